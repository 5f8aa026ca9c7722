//! The lines of an input, each a slice of one read window rather than a copy, and the
//! line-break counting the readers share (CSV counts a lone `\r` as a line end).

use std::io::{self, BufRead, ErrorKind, Read};

use memchr::memmem;

use super::input::READ_BUFFER;

/// What ends a line of an input.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum LineEnds {
    /// `\n`, any `\r`s before it dropped from the line: JSON Lines' rule (a lone `\r` is
    /// white space inside the line).
    #[default]
    Feed,
    /// `\n`, `\r` or `\r\n`: the lines of Hadoop's text reader, which Spark reads JSON by
    /// unless given a `lineSep`.
    AnyBreak,
    /// Exactly these bytes (Spark's `lineSep`), nothing else: a `\n` or `\r` is part of the
    /// line. Not empty.
    Exact(Box<[u8]>),
}

impl LineEnds {
    /// The line breaks in `bytes` (`after_cr`: the byte before `bytes` is a `\r`, which only
    /// [`LineEnds::AnyBreak`] looks at). A separator of several bytes is counted within
    /// `bytes` only.
    pub(crate) fn count_in(&self, bytes: &[u8], after_cr: bool) -> u64 {
        match self {
            LineEnds::Feed => memchr::memchr_iter(b'\n', bytes).count() as u64,
            LineEnds::AnyBreak => line_breaks(bytes, after_cr),
            LineEnds::Exact(sep) => memmem::find_iter(bytes, &sep[..]).count() as u64,
        }
    }

    /// The bytes after which a byte range of a file starts its first line: `\n` for line
    /// breaks (a `\n` ends a line under either rule), an exact separator if no match of it
    /// can start inside another (it has no border: no proper prefix of it is also a suffix,
    /// as `|`, `\r\n` or `<>`, not `||` or `aba`), so that its matches are the same wherever
    /// a search starts. `None` for the others, whose files are read whole.
    pub fn range_separator(&self) -> Option<&[u8]> {
        match self {
            LineEnds::Feed | LineEnds::AnyBreak => Some(b"\n"),
            LineEnds::Exact(sep) => {
                let border = (1..sep.len()).any(|k| sep[..k] == sep[sep.len() - k..]);
                (!border).then_some(&sep[..])
            }
        }
    }
}

/// Reads an input into a window of bytes and hands out its lines as slices of the window.
/// Bytes are copied only when the window is refilled (the start of an unfinished line moves
/// to its front); a line longer than the window doubles it. Reads ask for at least
/// [`READ_BUFFER`] bytes, so a `BufReader` of that capacity passes them straight through.
///
/// A line's end can be left unsearched: a parser given [`rest`](Self::rest) that finds it
/// on its own (its `\n`, or under [`LineEnds::AnyBreak`] its `\r` too) says where with
/// [`line_is`](Self::line_is); anyone else calls [`find_end`](Self::find_end).
pub struct LineWindow {
    input: Box<dyn BufRead + Send>,
    buf: Vec<u8>,
    /// What ends a line.
    ends: LineEnds,
    /// The current line starts at `start`; once found, it is `buf[start..end]`.
    start: usize,
    end: usize,
    found: bool,
    /// Where the bytes after the current line (and its line break) start, once found.
    next: usize,
    /// The current line ended with a `\r` the window's last byte (`LineEnds::AnyBreak`): a
    /// `\n` right after it belongs to that break, not to a line of its own.
    feed_may_follow: bool,
    /// `buf[..filled]` holds what was read.
    filled: usize,
    /// `buf[start..searched]` holds no line break.
    searched: usize,
    eof: bool,
    /// The bytes of the input dropped from the window's front.
    dropped: u64,
    /// The first `\r` at or after `cr_from` in what was read is at `next_cr` (`filled`: none),
    /// found by one search for the lines before it ([`cr_within`](Self::cr_within));
    /// `cr_from` is `usize::MAX` until searched, and again after each read.
    cr_from: usize,
    next_cr: usize,
}

impl LineWindow {
    /// The lines of `input`, ended by `\n` ([`LineEnds::Feed`]).
    pub fn new(input: Box<dyn BufRead + Send>) -> Self {
        LineWindow {
            input,
            buf: vec![0; 2 * READ_BUFFER],
            ends: LineEnds::Feed,
            start: 0,
            end: 0,
            found: true,
            next: 0,
            feed_may_follow: false,
            filled: 0,
            searched: 0,
            eof: false,
            dropped: 0,
            cr_from: usize::MAX,
            next_cr: 0,
        }
    }

    /// Lines ended by `ends` from the next line on (set before the first, for a whole
    /// input's lines to follow one rule).
    pub fn set_ends(&mut self, ends: LineEnds) {
        if let LineEnds::Exact(sep) = &ends {
            assert!(!sep.is_empty(), "a line separator is not empty");
        }
        self.ends = ends;
    }

    /// What ends the lines.
    pub fn ends(&self) -> &LineEnds {
        &self.ends
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
        if std::mem::take(&mut self.feed_may_follow)
            && self.start < self.filled
            && self.buf[self.start] == b'\n'
        {
            // the `\n` of a `\r\n` the last read split
            self.start += 1;
            self.searched = self.start;
            self.next = self.start;
            if self.start == self.filled && !self.eof {
                self.read_more()?;
            }
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

    /// Where the first `\r` is in the first `len` bytes of [`rest`](Self::rest), if any: one
    /// search of the window serves the lines up to its next `\r`.
    #[inline]
    pub fn cr_within(&mut self, len: usize) -> Option<usize> {
        let from = self.start;
        if self.cr_from > from || self.next_cr < from {
            let unread = &self.buf[from..self.filled];
            self.next_cr = memchr::memchr(b'\r', unread).map_or(self.filled, |i| from + i);
            self.cr_from = from;
        }
        (self.next_cr < from + len).then(|| self.next_cr - from)
    }

    /// Whether the current line's end is known.
    #[inline]
    pub fn found(&self) -> bool {
        self.found
    }

    /// The current line is the first `len` bytes of [`rest`](Self::rest), followed by its
    /// line break (`\n`; under [`LineEnds::AnyBreak`] `\r` or `\r\n` too) or by the end of
    /// the input. Not for [`LineEnds::Exact`] lines.
    #[inline]
    pub fn line_is(&mut self, len: usize) {
        let end = self.start + len;
        match self.buf[..self.filled].get(end) {
            None => self.take_line(end, end),
            Some(b'\r') => self.take_cr_line(end),
            Some(c) => {
                debug_assert!(*c == b'\n' && !matches!(self.ends, LineEnds::Exact(_)));
                self.take_line(end, end + 1);
            }
        }
    }

    /// Find the current line's end, reading on as far as it goes. The last line of the
    /// input need not end with a line break.
    pub fn find_end(&mut self) -> io::Result<()> {
        while !self.found {
            let unsearched = &self.buf[self.searched..self.filled];
            let hit = match &self.ends {
                LineEnds::Feed => memchr::memchr(b'\n', unsearched).map(|i| (i, 1)),
                LineEnds::AnyBreak => memchr::memchr2(b'\n', b'\r', unsearched).map(|i| (i, 0)),
                LineEnds::Exact(sep) if sep.len() == 1 => {
                    memchr::memchr(sep[0], unsearched).map(|i| (i, 1))
                }
                LineEnds::Exact(sep) => memmem::find(unsearched, sep).map(|i| (i, sep.len())),
            };
            if let Some((i, len)) = hit {
                let at = self.searched + i;
                match len {
                    // a break of `LineEnds::AnyBreak`
                    0 if self.buf[at] == b'\r' => self.take_cr_line(at),
                    0 => self.take_line(at, at + 1),
                    len => self.take_line(at, at + len),
                }
            } else if self.eof {
                self.take_line(self.filled, self.filled);
            } else {
                // a separator of several bytes may start in the last bytes searched
                let overlap = match &self.ends {
                    LineEnds::Exact(sep) => sep.len() - 1,
                    _ => 0,
                };
                self.searched = self.filled.saturating_sub(overlap).max(self.start);
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

    /// The current line, without its line break (and under [`LineEnds::Feed`] any `\r`
    /// before it); empty if its end was not found.
    #[inline]
    pub fn line(&self) -> &[u8] {
        debug_assert!(self.found, "line() before its end was found");
        &self.buf[self.start..self.end.max(self.start)]
    }

    /// The offset in the input of the current line's first byte.
    pub fn line_offset(&self) -> u64 {
        self.dropped + self.start as u64
    }

    /// Drop the first `n` bytes of the current line (a byte order mark); its end is known.
    pub fn drop_prefix(&mut self, n: usize) {
        self.start = (self.start + n).min(self.end);
    }

    /// The current line ends at the `\r` at `at` (`LineEnds::AnyBreak`), alone or the
    /// start of a `\r\n`; a `\n` the window does not hold yet is looked for by the next
    /// `begin_line`.
    #[inline]
    fn take_cr_line(&mut self, at: usize) {
        debug_assert_eq!(self.ends, LineEnds::AnyBreak);
        match self.buf[..self.filled].get(at + 1) {
            Some(b'\n') => self.take_line(at, at + 2),
            Some(_) => self.take_line(at, at + 1),
            None => {
                self.feed_may_follow = !self.eof;
                self.take_line(at, at + 1);
            }
        }
    }

    /// Whether the line before the current one ended at a `\r` alone (not a `\r\n`), as far
    /// as the window still holds it: the input's lines may all end so, and a parser that
    /// finds only `\n`s would read on past them.
    #[inline]
    pub fn after_lone_cr(&self) -> bool {
        self.start > 0 && self.buf[self.start - 1] == b'\r'
    }

    /// The current line ends at `end` (under `LineEnds::Feed` its `\r`s dropped); the next
    /// starts at `next`.
    #[inline]
    fn take_line(&mut self, mut end: usize, next: usize) {
        if matches!(self.ends, LineEnds::Feed) {
            while end > self.start && self.buf[end - 1] == b'\r' {
                end -= 1;
            }
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
            self.dropped += keep as u64;
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
        self.cr_from = usize::MAX; // (what was searched moved, and more came)
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

/// `text` without the line breaks that end it.
pub(crate) fn trim_line_breaks(text: &[u8]) -> &[u8] {
    let end = text.iter().rposition(|b| !matches!(b, b'\n' | b'\r'));
    &text[..end.map_or(0, |i| i + 1)]
}

/// A test input that gives at most `chunk` bytes a read (as a network stream or a decoder
/// may), for the windows' refills.
#[cfg(test)]
pub(crate) struct Trickle {
    text: io::Cursor<Vec<u8>>,
    chunk: usize,
}

#[cfg(test)]
impl Trickle {
    /// `text`, `chunk` bytes a read at most.
    pub(crate) fn new(text: &[u8], chunk: usize) -> Self {
        Trickle {
            text: io::Cursor::new(text.to_vec()),
            chunk,
        }
    }
}

#[cfg(test)]
impl Read for Trickle {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = out.len().min(self.chunk);
        self.text.read(&mut out[..n])
    }
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

/// At least `len` bytes of `pieces` one after another, picked by a xorshift from `seed`:
/// a test's text of line breaks among other bytes.
#[cfg(test)]
pub(crate) fn pieced_text(mut seed: u64, len: usize, pieces: &[&[u8]]) -> Vec<u8> {
    let mut text = Vec::new();
    while text.len() < len {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        text.extend_from_slice(pieces[(seed % pieces.len() as u64) as usize]);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line of `text` read through a window, with reads of at most `chunk` bytes; with
    /// `parse`, every other line's end is found as a parser finds it (in `rest`, where it
    /// can: up to its `\n`, or to the end of the input).
    fn lines_of(text: &[u8], chunk: usize, parse: bool) -> Vec<Vec<u8>> {
        lines_ended_by(text, chunk, parse, LineEnds::Feed)
    }

    /// [`lines_of`], the lines ended by `ends` (a parser finds a `\r` too under
    /// `LineEnds::AnyBreak`; none parses `LineEnds::Exact` lines).
    fn lines_ended_by(text: &[u8], chunk: usize, parse: bool, ends: LineEnds) -> Vec<Vec<u8>> {
        let input = io::BufReader::new(Trickle::new(text, chunk));
        let mut window = LineWindow::new(Box::new(input));
        let parse = parse && !matches!(ends, LineEnds::Exact(_));
        let cr = ends == LineEnds::AnyBreak;
        window.set_ends(ends);
        let mut out = Vec::new();
        while window.begin_line().unwrap() {
            let (rest, ends_input) = window.rest();
            let end = if cr {
                memchr::memchr2(b'\n', b'\r', rest)
            } else {
                memchr::memchr(b'\n', rest)
            };
            let parsed = match end {
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

    /// Lines split at `\n`, `\r` and `\r\n` (`LineEnds::AnyBreak`) or at an exact
    /// separator, as a plain split of the whole text splits them, whatever the reads (a
    /// `\r\n` or a separator across two of them) and whether a parser finds the ends.
    #[test]
    fn lines_end_at_any_break_or_at_a_separator_whatever_the_reads() {
        /// `text` split at each `sep` (several tried at a place: the first that matches),
        /// without a last empty piece (as `str::lines` leaves it out).
        fn split(text: &[u8], seps: &[&[u8]]) -> Vec<Vec<u8>> {
            let (mut out, mut line, mut i) = (Vec::new(), Vec::new(), 0);
            'bytes: while i < text.len() {
                for sep in seps {
                    if text[i..].starts_with(sep) {
                        out.push(std::mem::take(&mut line));
                        i += sep.len();
                        continue 'bytes;
                    }
                }
                line.push(text[i]);
                i += 1;
            }
            if !line.is_empty() {
                out.push(line);
            }
            out
        }
        let pieces: [&[u8]; 7] = [b"\r", b"\n", b"\r\n", b"|", b"<>", b"<", b"{\"a\": 1}"];
        let text = pieced_text(0x2545_f491, 2 * READ_BUFFER + 500, &pieces);
        let texts: [&[u8]; 7] = [
            b"",
            b"\r",
            b"a\r",
            b"a\r\n\r\nb",
            b"\r\r\n\n",
            b"a<>",
            &text,
        ];
        for text in texts {
            let cases: [(LineEnds, Vec<&[u8]>); 4] = [
                (LineEnds::AnyBreak, vec![b"\r\n", b"\r", b"\n"]),
                (LineEnds::Exact(Box::from(&b"|"[..])), vec![b"|"]),
                (LineEnds::Exact(Box::from(&b"<>"[..])), vec![b"<>"]),
                (LineEnds::Exact(Box::from(&b"\r\n"[..])), vec![b"\r\n"]),
            ];
            for (ends, seps) in cases {
                let expected = split(text, &seps);
                for chunk in [1, 2, 3, 7, READ_BUFFER - 1, usize::MAX] {
                    if chunk < 4 && text.len() > 100 {
                        continue;
                    }
                    for parse in [false, true] {
                        let got = lines_ended_by(text, chunk, parse, ends.clone());
                        assert!(
                            got == expected,
                            "{ends:?}, text of {} bytes, reads of {chunk}, parse {parse}",
                            text.len()
                        );
                    }
                }
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
