//! Constant columns: one value repeated for every row of a batch (a scan's implicit file
//! columns, `filename` and the like), built straight into Arrow buffers.

use arrow_array::StringArray;
use arrow_buffer::{Buffer, OffsetBuffer, ScalarBuffer};

/// `n` copies of `value` as a utf8 array; `None` if the rows or their bytes would pass what
/// utf8 offsets (i32) can address.
pub fn repeat_utf8(value: &str, n: usize) -> Option<StringArray> {
    let width = value.len();
    let limit = i32::MAX as usize;
    let total = width.checked_mul(n).filter(|&t| t <= limit && n < limit)?;
    let offsets: ScalarBuffer<i32> = (0..=n).map(|i| (i * width) as i32).collect();
    // SAFETY: the offsets start at 0 and rise by `width`, ending at `total`, which fits.
    let offsets = unsafe { OffsetBuffer::new_unchecked(offsets) };
    let bytes = Buffer::from_vec(value.as_bytes().repeat(n));
    debug_assert_eq!(bytes.len(), total);
    // SAFETY: the bytes are `value`'s (UTF-8) `n` times; each offset falls between copies.
    Some(unsafe { StringArray::new_unchecked(offsets, bytes, None) })
}

#[cfg(test)]
mod tests {
    use super::repeat_utf8;
    use arrow_array::Array;

    #[test]
    fn repeats_the_value_for_every_row() {
        for (value, n) in [("a.json", 5), ("", 3), ("é/ü", 1), ("x", 0)] {
            let array = repeat_utf8(value, n).expect("small");
            array.to_data().validate_full().expect("valid utf8 array");
            assert_eq!(array.len(), n);
            assert_eq!(array.null_count(), 0);
            assert!(array.iter().all(|v| v == Some(value)), "{value:?} x {n}");
        }
    }

    #[test]
    fn refuses_what_utf8_offsets_cannot_address() {
        assert!(repeat_utf8("ab", (i32::MAX as usize) / 2 + 1).is_none());
        assert!(repeat_utf8("", i32::MAX as usize).is_none());
        assert!(repeat_utf8("ab", usize::MAX).is_none());
    }
}
