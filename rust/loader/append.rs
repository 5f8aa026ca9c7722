//! Appending to Arrow buffers on the writers' hot path. `MutableBuffer::push` and
//! `extend_from_slice` are not inlined into the writers (their growth and panic paths make
//! them too large), so every value paid a call: here the capacity check is inline and only
//! the growth is a call. Short byte strings (most keys, names, codes, timestamps) are copied
//! with two overlapping loads and stores instead of a call to `memcpy`.

use arrow_buffer::{MutableBuffer, ToByteSlice};

/// Make room for `additional` more bytes (out of line: it runs once per doubling).
#[cold]
#[inline(never)]
fn grow(buf: &mut MutableBuffer, additional: usize) {
    buf.reserve(additional);
}

/// Append one fixed-width value (a native number, an offset, a bitmap byte).
#[inline(always)]
pub(crate) fn push<T: ToByteSlice>(buf: &mut MutableBuffer, value: T) {
    let n = std::mem::size_of::<T>();
    if buf.capacity() - buf.len() < n {
        grow(buf, n);
    }
    // SAFETY: at least `n` bytes of capacity are free (checked above).
    unsafe { buf.push_unchecked(value) }
}

/// Append `n` copies of one fixed-width value (the offsets of `n` nulls), with one
/// capacity check and a loop the compiler turns into wide stores.
#[inline]
pub(crate) fn repeat<T: ToByteSlice + Copy>(buf: &mut MutableBuffer, value: T, n: usize) {
    let bytes = n * std::mem::size_of::<T>();
    if buf.capacity() - buf.len() < bytes {
        grow(buf, bytes);
    }
    let len = buf.len();
    // SAFETY: at least `bytes` bytes of capacity are free after `len` (checked above); the
    // stores are unaligned, so `len` need not be a multiple of the width.
    unsafe {
        let at = buf.as_mut_ptr().add(len).cast::<T>();
        for i in 0..n {
            at.add(i).write_unaligned(value);
        }
        buf.set_len(len + bytes);
    }
}

/// Append `bytes`.
#[inline(always)]
pub(crate) fn extend(buf: &mut MutableBuffer, bytes: &[u8]) {
    let n = bytes.len();
    if buf.capacity() - buf.len() < n {
        grow(buf, n);
    }
    let len = buf.len();
    // SAFETY: at least `n` bytes of capacity are free after `len` (checked above), and the
    // buffer cannot overlap `bytes` (it is borrowed mutably).
    unsafe {
        copy(bytes.as_ptr(), buf.as_mut_ptr().add(len), n);
        buf.set_len(len + n);
    }
}

/// Append `n` zero bytes (a null's slot in a fixed-width column).
#[inline(always)]
pub(crate) fn zeros(buf: &mut MutableBuffer, n: usize) {
    if buf.capacity() - buf.len() < n {
        grow(buf, n);
    }
    let len = buf.len();
    // SAFETY: at least `n` bytes of capacity are free after `len` (checked above); the
    // usual widths are stored whole, without a call to `memset` (a sparse file back-fills
    // thousands of nulls a row).
    unsafe {
        let at = buf.as_mut_ptr().add(len);
        match n {
            8 => at.cast::<u64>().write_unaligned(0),
            4 => at.cast::<u32>().write_unaligned(0),
            16 => at.cast::<u128>().write_unaligned(0),
            _ => std::ptr::write_bytes(at, 0, n),
        }
        buf.set_len(len + n);
    }
}

/// Copy `src` into `dst` (of the same length): short ones without a call to `memcpy`.
#[inline(always)]
pub(crate) fn copy_short(dst: &mut [u8], src: &[u8]) {
    assert_eq!(dst.len(), src.len());
    // SAFETY: both slices hold `src.len()` bytes, and `dst` is borrowed mutably, so they
    // cannot overlap.
    unsafe { copy(src.as_ptr(), dst.as_mut_ptr(), src.len()) }
}

/// Copy `n` bytes from `src` to `dst`: up to 32 without a call.
///
/// # Safety
/// `src..src+n` readable, `dst..dst+n` writable, not overlapping.
#[inline(always)]
unsafe fn copy(src: *const u8, dst: *mut u8, n: usize) {
    // SAFETY (each arm): every access lies within the first `n` bytes of both ranges.
    unsafe {
        match n {
            0 => {}
            1..=3 => {
                *dst = *src;
                *dst.add(n / 2) = *src.add(n / 2);
                *dst.add(n - 1) = *src.add(n - 1);
            }
            4..=7 => {
                let (a, b) = (src.cast::<u32>(), src.add(n - 4).cast::<u32>());
                let (a, b) = (a.read_unaligned(), b.read_unaligned());
                dst.cast::<u32>().write_unaligned(a);
                dst.add(n - 4).cast::<u32>().write_unaligned(b);
            }
            8..=16 => {
                let (a, b) = (src.cast::<u64>(), src.add(n - 8).cast::<u64>());
                let (a, b) = (a.read_unaligned(), b.read_unaligned());
                dst.cast::<u64>().write_unaligned(a);
                dst.add(n - 8).cast::<u64>().write_unaligned(b);
            }
            17..=32 => {
                let (a, b) = (src.cast::<u128>(), src.add(n - 16).cast::<u128>());
                let (a, b) = (a.read_unaligned(), b.read_unaligned());
                dst.cast::<u128>().write_unaligned(a);
                dst.add(n - 16).cast::<u128>().write_unaligned(b);
            }
            _ => std::ptr::copy_nonoverlapping(src, dst, n),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extend_push_and_zeros_append_exactly_what_they_are_given() {
        let text: Vec<u8> = (0..=255u8).cycle().take(700).collect();
        let mut buf = MutableBuffer::new(0);
        let mut want = Vec::new();
        // every length from 0 to 40 (each copy path and its edges), then a long one
        for n in (0..=40).chain([300]) {
            let start = n * 7 % 200;
            extend(&mut buf, &text[start..start + n]);
            want.extend_from_slice(&text[start..start + n]);
            push(&mut buf, n as i32);
            want.extend_from_slice(&(n as i32).to_le_bytes());
            push(&mut buf, 1.5f64 * n as f64);
            want.extend_from_slice(&(1.5f64 * n as f64).to_le_bytes());
            push(&mut buf, n as u8);
            want.push(n as u8);
            zeros(&mut buf, n % 17);
            want.extend(std::iter::repeat_n(0, n % 17));
            assert_eq!(buf.as_slice(), &want[..], "after length {n}");
        }
    }
}
