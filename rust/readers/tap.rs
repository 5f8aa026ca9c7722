//! An input that keeps what was read from the start of the current record on, so a parser
//! that copies fields out of their quoting (the CSV reader) can still give a record's exact
//! text (`_corrupt_record`, error excerpts).

use std::io::{self, BufRead, Read};

/// Bytes kept before the current record are dropped once there are this many of them (and
/// they are at least half of what is kept), so dropping costs one copy per byte read.
const DROP_AT: usize = 64 << 10;

/// Reads `inner`, keeping the bytes from the current record's start to the read position.
pub(crate) struct Tap {
    inner: Box<dyn BufRead + Send>,
    kept: Vec<u8>,
    /// Offset in the input of `kept[0]`.
    kept_from: u64,
    /// `inner` has said it has no more bytes.
    at_end: bool,
}

impl Tap {
    /// Tap `inner` from its first byte (offset 0).
    pub fn new(inner: Box<dyn BufRead + Send>) -> Self {
        Tap {
            inner,
            kept: Vec::new(),
            kept_from: 0,
            at_end: false,
        }
    }

    /// Bytes `start..end` of the input (offsets from its first byte); empty if they are no
    /// longer (or not yet) kept.
    pub fn kept_bytes(&self, start: u64, end: u64) -> &[u8] {
        let (Some(from), Some(to)) = (
            start.checked_sub(self.kept_from),
            end.checked_sub(self.kept_from),
        ) else {
            return &[];
        };
        self.kept.get(from as usize..to as usize).unwrap_or(&[])
    }

    /// Whether the whole input was read and ends at `offset`.
    pub fn ends_at(&self, offset: u64) -> bool {
        self.at_end && self.kept_from + self.kept.len() as u64 == offset
    }

    /// The next record starts at `offset`: what comes before it may be dropped.
    pub fn release_before(&mut self, offset: u64) {
        let dead = offset.saturating_sub(self.kept_from) as usize;
        if dead >= DROP_AT && dead * 2 >= self.kept.len() {
            let dead = dead.min(self.kept.len());
            self.kept.drain(..dead);
            self.kept_from += dead as u64;
        }
    }
}

impl Read for Tap {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.at_end |= n == 0 && !buf.is_empty();
        self.kept.extend_from_slice(&buf[..n]);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_bytes_of_the_current_record_and_drops_the_rest() {
        let data: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        let mut tap = Tap::new(Box::new(io::Cursor::new(data.clone())));
        let mut buf = vec![0; 8192];
        let mut read = 0u64;
        while read < 150_000 {
            read += tap.read(&mut buf).unwrap() as u64;
        }
        assert_eq!(tap.kept_bytes(10, 20), &data[10..20]);
        tap.release_before(140_000);
        assert!(
            tap.kept.len() < 20_000,
            "dropped what comes before the record"
        );
        assert_eq!(tap.kept_bytes(140_000, 140_100), &data[140_000..140_100]);
        assert_eq!(tap.kept_bytes(10, 20), b"", "dropped bytes are not made up");
        assert_eq!(
            tap.kept_bytes(140_000, read + 1),
            b"",
            "unread bytes are not made up"
        );
        assert!(!tap.ends_at(read), "the end is known only once it is read");
        while tap.read(&mut buf).unwrap() > 0 {}
        assert!(tap.ends_at(data.len() as u64) && !tap.ends_at(read));
    }
}
