//! The lines of an input, each a slice of one read window rather than a copy, and the
//! line-break counting the readers share (CSV counts a lone `\r` as a line end).

use std::io::{self, BufRead, ErrorKind, Read};

use super::input::READ_BUFFER;

/// Reads an input into a window of bytes and hands out its lines as slices of the window.
/// Bytes are copied only when the window is refilled (the start of an unfinished line moves
/// to its front); a line longer than the window doubles it. Reads ask for at least
/// [`READ_BUFFER`] bytes, so a `BufReader` of that capacity passes them straight through.
///
/// A line's end can be left unsearched: a parser given [`rest`](Self::rest) that finds it
/// on its own says where with [`line_is`](Self::line_is); anyone else calls
/// [`find_end`](Self::find_end).
pub struct LineWindow {
    input: Box<dyn BufRead + Send>,
    buf: Vec<u8>,
    /// The current line starts at `start`; once found, it is `buf[start..end]`.
    start: usize,
    end: usize,
    found: bool,
    /// Where the bytes after the current line (and its line break) start, once found.
    next: usize,
    /// `buf[..filled]` holds what was read.
    filled: usize,
    /// `buf[start..searched]` holds no line break.
    searched: usize,
    eof: bool,
}

impl LineWindow {
    /// The lines of `input`.
    pub fn new(input: Box<dyn BufRead + Send>) -> Self {
        LineWindow {
            input,
            buf: vec![0; 2 * READ_BUFFER],
            start: 0,
            end: 0,
            found: true,
            next: 0,
            filled: 0,
            searched: 0,
            eof: false,
        }
    }

    /// Move to the next line, its end not looked for yet: `false` at the end of the input.
    /// The line has at least one byte in [`rest`](Self::rest).
    pub fn begin_line(&mut self) -> io::Result<bool> {
        debug_assert!(self.found, "the last line's end was not found");
        self.start = self.next;
        self.searched = self.next;
        if self.start == self.filled && !self.eof {
            self.read_more()?;
        }
        if self.start == self.filled {
            self.end = self.start;
            return Ok(false);
        }
        self.found = false;
        Ok(true)
    }

    /// The bytes read from the start of the current line on, and whether the input ends
    /// with them.
    #[inline]
    pub fn rest(&self) -> (&[u8], bool) {
        (&self.buf[self.start..self.filled], self.eof)
    }

    /// Whether the current line's end is known.
    #[inline]
    pub fn found(&self) -> bool {
        self.found
    }

    /// The current line is the first `len` bytes of [`rest`](Self::rest), followed by its
    /// `\n` or by the end of the input.
    #[inline]
    pub fn line_is(&mut self, len: usize) {
        let end = self.start + len;
        debug_assert!(end == self.filled || self.buf[end] == b'\n');
        self.take_line(end, (end + 1).min(self.filled));
    }

    /// Find the current line's end, reading on as far as it goes. The last line of the
    /// input need not end with a line break.
    pub fn find_end(&mut self) -> io::Result<()> {
        while !self.found {
            let unsearched = &self.buf[self.searched..self.filled];
            if let Some(i) = memchr::memchr(b'\n', unsearched) {
                let at = self.searched + i;
                self.take_line(at, at + 1);
            } else if self.eof {
                self.take_line(self.filled, self.filled);
            } else {
                self.searched = self.filled;
                if let Err(e) = self.read_more() {
                    // the input is over: an empty line, then the end
                    self.take_line(self.start, self.filled);
                    self.eof = true;
                    return Err(e);
                }
            }
        }
        Ok(())
    }

    /// The current line, without its line break (`\n`, and any `\r` before it); empty if
    /// its end was not found.
    #[inline]
    pub fn line(&self) -> &[u8] {
        debug_assert!(self.found, "line() before its end was found");
        &self.buf[self.start..self.end.max(self.start)]
    }

    /// Drop the first `n` bytes of the current line (a byte order mark); its end is known.
    pub fn drop_prefix(&mut self, n: usize) {
        self.start = (self.start + n).min(self.end);
    }

    /// The current line ends at `end` (its `\r`s dropped); the next starts at `next`.
    #[inline]
    fn take_line(&mut self, mut end: usize, next: usize) {
        while end > self.start && self.buf[end - 1] == b'\r' {
            end -= 1;
        }
        self.end = end;
        self.next = next;
        self.found = true;
    }

    /// Read more of the input after the current line's start (moved to the front of the
    /// window, which doubles if what it keeps leaves less than a read's worth free).
    #[cold]
    fn read_more(&mut self) -> io::Result<()> {
        let keep = self.start;
        if keep > 0 {
            self.buf.copy_within(keep..self.filled, 0);
            self.filled -= keep;
            self.searched -= keep;
            self.next = self.next.saturating_sub(keep);
            self.start = 0;
            self.end = 0;
        }
        let n = read_into(&mut *self.input, &mut self.buf, self.filled)?;
        self.filled += n;
        self.eof |= n == 0;
        Ok(())
    }
}

/// The line breaks in `bytes`: each `\r` (alone or the start of a `\r\n`) and each `\n`
/// that does not end a `\r\n` (`after_cr`: the byte before `bytes` is a `\r`).
pub(crate) fn line_breaks(bytes: &[u8], after_cr: bool) -> u64 {
    let returns = memchr::memchr_iter(b'\r', bytes).count();
    if returns == 0 && !after_cr {
        // no `\r\n` to count once: a plain count (the usual file)
        return memchr::memchr_iter(b'\n', bytes).count() as u64;
    }
    let feeds = memchr::memchr_iter(b'\n', bytes)
        .filter(|&k| match k {
            0 => !after_cr,
            _ => bytes[k - 1] != b'\r',
        })
        .count();
    (returns + feeds) as u64
}

/// How many line breaks (`\n`, `\r`) `text` starts with.
pub(crate) fn leading_line_breaks(text: &[u8]) -> usize {
    text.iter()
        .position(|b| !matches!(b, b'\n' | b'\r'))
        .unwrap_or(text.len())
}

/// Read once from `input` into `buf` after its first `filled` bytes, the buffer doubled if
/// less than [`READ_BUFFER`] bytes are free: how many bytes came (0: the input is over).
pub(crate) fn read_into(
    input: &mut dyn Read,
    buf: &mut Vec<u8>,
    filled: usize,
) -> io::Result<usize> {
    if buf.len() - filled < READ_BUFFER {
        buf.resize(2 * buf.len(), 0);
    }
    loop {
        match input.read(&mut buf[filled..]) {
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            read => return read,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line of `text` read through a window, with reads of at most `chunk` bytes; with
    /// `parse`, every other line's end is found as a parser finds it (in `rest`, where it
    /// can: up to its `\n`, or to the end of the input).
    fn lines_of(text: &[u8], chunk: usize, parse: bool) -> Vec<Vec<u8>> {
        struct Trickle<'a>(&'a [u8], usize);
        impl io::Read for Trickle<'_> {
            fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
                let n = self.0.len().min(out.len()).min(self.1);
                out[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let input = io::BufReader::new(Trickle(text.to_vec().leak(), chunk));
        let mut window = LineWindow::new(Box::new(input));
        let mut out = Vec::new();
        while window.begin_line().unwrap() {
            let (rest, ends_input) = window.rest();
            let parsed = match memchr::memchr(b'\n', rest) {
                Some(len) => Some(len),
                None if ends_input => Some(rest.len()),
                None => None,
            };
            match parsed {
                Some(len) if parse && out.len() % 2 == 0 => window.line_is(len),
                _ => window.find_end().unwrap(),
            }
            assert!(window.found());
            out.push(window.line().to_vec());
        }
        assert!(!window.begin_line().unwrap(), "the end stays the end");
        out
    }

    #[test]
    fn lines_are_split_as_str_lines_splits_them_whatever_the_reads() {
        let long = "x".repeat(5 * READ_BUFFER + 3);
        let texts = [
            String::new(),
            "\n".to_string(),
            "a".to_string(),
            "a\nb".to_string(),
            "a\r\nb\r\n\r\n\nc\n".to_string(),
            "a\r\r\n".to_string(),
            format!("{long}\nshort\n{long}"),
            format!("{}\n", "ab\n".repeat(READ_BUFFER)),
        ];
        for text in &texts {
            // str::lines drops one "\r" before each "\n"; the window drops them all
            let expected: Vec<Vec<u8>> = text
                .lines()
                .map(|l| l.trim_end_matches('\r').as_bytes().to_vec())
                .collect();
            for chunk in [1, 7, READ_BUFFER - 1, usize::MAX] {
                if chunk == 1 && text.len() > 100_000 {
                    continue;
                }
                let got = lines_of(text.as_bytes(), chunk, false);
                assert_eq!(got.len(), expected.len(), "{chunk}");
                let parsed = lines_of(text.as_bytes(), chunk, true);
                assert!(
                    parsed == got,
                    "parsed: text of {} bytes, reads of {chunk}",
                    text.len()
                );
                assert!(
                    got == expected,
                    "text of {} bytes, reads of {chunk}",
                    text.len()
                );
            }
        }
    }

    #[test]
    fn a_read_error_is_passed_on() {
        struct Broken;
        impl io::Read for Broken {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::new(ErrorKind::InvalidData, "corrupt"))
            }
        }
        let mut window = LineWindow::new(Box::new(io::BufReader::new(Broken)));
        let e = window.begin_line().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidData);
        // one that fails half-way through a line ends the input there
        let half = io::Read::chain(&b"{\"a\": 1}\n{\"a\""[..], Broken);
        let mut window = LineWindow::new(Box::new(io::BufReader::new(half)));
        assert!(window.begin_line().unwrap());
        window.find_end().unwrap();
        assert_eq!(window.line(), b"{\"a\": 1}");
        assert!(window.begin_line().unwrap());
        assert_eq!(
            window.find_end().unwrap_err().kind(),
            ErrorKind::InvalidData
        );
        assert!(window.found() && window.line().is_empty());
        assert!(!window.begin_line().unwrap(), "nothing after the failure");
    }
}
