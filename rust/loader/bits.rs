//! A growable bitmap (validity and boolean values) with the cheap append, truncate and split
//! the writers need.

use arrow_buffer::{BooleanBuffer, MutableBuffer};

/// Bits packed LSB-first, as Arrow lays them out; bytes past `len` bits are kept zero.
pub(crate) struct Bits {
    buf: MutableBuffer,
    len: usize,
}

impl Bits {
    /// An empty bitmap with room for `capacity` bits.
    pub fn new(capacity: usize) -> Self {
        Bits {
            buf: MutableBuffer::new(capacity.div_ceil(8)),
            len: 0,
        }
    }

    /// Append one bit.
    #[inline(always)]
    pub fn append(&mut self, bit: bool) {
        let shift = self.len % 8;
        if shift == 0 {
            super::append::push(&mut self.buf, u8::from(bit));
        } else if bit {
            // the byte of bit `len` is the last one (bytes past `len` bits are not kept)
            if let Some(last) = self.buf.as_slice_mut().last_mut() {
                *last |= 1 << shift;
            }
        }
        self.len += 1;
    }

    /// Append `n` zero bits.
    pub fn append_zeros(&mut self, n: usize) {
        // the bytes past `len` bits are zero already: only whole new bytes are added
        let bytes = (self.len + n).div_ceil(8) - self.buf.len();
        super::append::zeros(&mut self.buf, bytes);
        self.len += n;
    }

    /// Bit `i`.
    #[inline]
    pub fn get_bit(&self, i: usize) -> bool {
        self.buf.as_slice()[i / 8] & (1 << (i % 8)) != 0
    }

    /// Set bit `i`.
    #[inline]
    pub fn set_bit(&mut self, i: usize, bit: bool) {
        let byte = &mut self.buf.as_slice_mut()[i / 8];
        if bit {
            *byte |= 1 << (i % 8);
        } else {
            *byte &= !(1 << (i % 8));
        }
    }

    /// Keep the first `n` bits.
    pub fn truncate(&mut self, n: usize) {
        if n >= self.len {
            return;
        }
        self.buf.truncate(n.div_ceil(8));
        if !n.is_multiple_of(8) {
            let last = n / 8;
            self.buf.as_slice_mut()[last] &= (1u8 << (n % 8)) - 1;
        }
        self.len = n;
    }

    /// Set the first `at` bits aside as an Arrow buffer (no copy) and keep the rest, moved to
    /// the start of a fresh bitmap of the same capacity.
    pub fn split(&mut self, at: usize) -> BooleanBuffer {
        let mut tail = Bits {
            buf: MutableBuffer::new(self.buf.capacity()),
            len: 0,
        };
        for i in at..self.len {
            tail.append(self.get_bit(i));
        }
        self.truncate(at);
        let head = std::mem::replace(self, tail);
        BooleanBuffer::new(head.buf.into(), 0, at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn append_truncate_split() {
        let mut b = Bits::new(0);
        let pattern: Vec<bool> = (0..21).map(|i| i % 3 == 0).collect();
        for &bit in &pattern {
            b.append(bit);
        }
        b.truncate(19);
        assert_eq!(b.len, 19);
        b.append(true);
        let head = b.split(13);
        assert_eq!(head.len(), 13);
        assert_eq!(head.iter().collect::<Vec<_>>(), pattern[..13]);
        assert_eq!(head.inner().len(), 2);
        let tail: Vec<bool> = (0..b.len).map(|i| b.get_bit(i)).collect();
        let mut want = pattern[13..19].to_vec();
        want.push(true);
        assert_eq!(tail, want);
        b.set_bit(0, false);
        assert!(!b.get_bit(0));
    }
}
