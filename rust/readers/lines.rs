//! The lines of an input, each a slice of one read window rather than a copy.

use std::io::{self, BufRead, ErrorKind};

use super::input::READ_BUFFER;

/// Reads an input into a window of bytes and hands out its lines as slices of the window.
/// Bytes are copied only when the window is refilled (the start of an unfinished line moves
/// to its front); a line longer than the window doubles it. Reads ask for at least
/// [`READ_BUFFER`] bytes, so a `BufReader` of that capacity passes them straight through.
pub struct LineWindow {
    input: Box<dyn BufRead + Send>,
    buf: Vec<u8>,
    /// The current line is `buf[start..end]`.
    start: usize,
    end: usize,
    /// Where the bytes after the current line (and its line break) start.
    next: usize,
    /// `buf[..filled]` holds what was read.
    filled: usize,
    /// `buf[next..searched]` holds no line break.
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
            next: 0,
            filled: 0,
            searched: 0,
            eof: false,
        }
    }

    /// The current line, without its line break (`\n`, and any `\r` before it).
    #[inline]
    pub fn line(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }

    /// Drop the first `n` bytes of the current line (a byte order mark).
    pub fn drop_prefix(&mut self, n: usize) {
        self.start = (self.start + n).min(self.end);
    }

    /// Move to the next line: `false` at the end of the input. The last line need not end
    /// with a line break.
    pub fn advance(&mut self) -> io::Result<bool> {
        loop {
            let unsearched = &self.buf[self.searched..self.filled];
            if let Some(i) = memchr::memchr(b'\n', unsearched) {
                let at = self.searched + i;
                self.take_line(at, at + 1);
                return Ok(true);
            }
            self.searched = self.filled;
            if self.eof {
                if self.next == self.filled {
                    self.start = self.next;
                    self.end = self.next;
                    return Ok(false);
                }
                self.take_line(self.filled, self.filled);
                return Ok(true);
            }
            self.read_more()?;
        }
    }

    /// The current line ends at `end` (its `\r`s dropped); the next starts at `next`.
    #[inline]
    fn take_line(&mut self, mut end: usize, next: usize) {
        let start = self.next;
        while end > start && self.buf[end - 1] == b'\r' {
            end -= 1;
        }
        self.start = start;
        self.end = end;
        self.next = next;
        self.searched = next;
    }

    /// Read more of the input after the bytes not yet handed out, moved to the front of the
    /// window (which doubles if they fill it).
    #[cold]
    fn read_more(&mut self) -> io::Result<()> {
        if self.next > 0 {
            self.buf.copy_within(self.next..self.filled, 0);
            self.filled -= self.next;
            self.searched -= self.next;
            self.next = 0;
            self.start = 0;
            self.end = 0;
        }
        if self.buf.len() - self.filled < READ_BUFFER {
            self.buf.resize(2 * self.buf.len(), 0);
        }
        loop {
            match self.input.read(&mut self.buf[self.filled..]) {
                Ok(0) => self.eof = true,
                Ok(n) => self.filled += n,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line of `text` read through a window, with reads of at most `chunk` bytes.
    fn lines_of(text: &[u8], chunk: usize) -> Vec<Vec<u8>> {
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
        while window.advance().unwrap() {
            out.push(window.line().to_vec());
        }
        assert!(!window.advance().unwrap(), "the end stays the end");
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
                let got = lines_of(text.as_bytes(), chunk);
                assert_eq!(got.len(), expected.len(), "{chunk}");
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
        let e = window.advance().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidData);
    }
}
