//! Opening an input: local paths and `file://` URIs, or any [`Source`] that can be opened at
//! an offset (a remote file read through Python); compressed files by suffix
//! ([`super::compression`]), read in chunks.

use std::borrow::Cow;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::sync::Arc;

use percent_encoding::percent_decode_str;

pub use super::charsets::Charset;
use super::charsets::Utf8Of;
use super::compression::{decompress, refuse_non_text, Compression};
use super::driver::InputError;
pub use super::lines::LineEnds;

/// Read buffer size: memory per open file, whatever the file's size. 256 KiB, not more:
/// a read then stays in the core's L2 cache while it is parsed (1 MiB reads made the
/// scans 1-4% slower).
pub const READ_BUFFER: usize = 1 << 18;

/// The local path `path` names: a `file:` URI (`file:///a%20b`, `file://localhost/a`,
/// Hadoop's `file:/a`) percent-decoded, anything else as is. A URI naming another host, or
/// whose escapes decode to no UTF-8, is an error.
pub fn local_path(path: &str) -> io::Result<Cow<'_, str>> {
    let Some(rest) = path.strip_prefix("file:") else {
        return Ok(Cow::Borrowed(path));
    };
    let invalid = |why: String| io::Error::new(io::ErrorKind::InvalidInput, why);
    let absolute = match rest.strip_prefix("//") {
        Some(authority_and_path) => {
            let slash = authority_and_path
                .find('/')
                .unwrap_or(authority_and_path.len());
            let (host, absolute) = authority_and_path.split_at(slash);
            if !(host.is_empty() || host.eq_ignore_ascii_case("localhost")) {
                return Err(invalid(format!(
                    "{path:?} names host '{host}': only local files can be read"
                )));
            }
            absolute
        }
        None => rest,
    };
    if !absolute.starts_with('/') || absolute.contains(['?', '#']) {
        return Err(invalid(format!(
            "{path:?} is not a file URI of an absolute path (file:///path, ? as %3F, # as %23)"
        )));
    }
    percent_decode_str(absolute)
        .decode_utf8()
        .map_err(|_| invalid(format!("{path:?}: its %-escapes decode to no UTF-8 text")))
}

/// Opens a file's bytes from a byte offset: a remote file's, say, read through another
/// library. Called once per read of the file, and again for an error's line number.
pub type Opener = Arc<dyn Fn(u64) -> io::Result<Box<dyn Read + Send>> + Send + Sync>;

/// A file a reader reads: its name (in errors; its suffix says whether it is compressed) and
/// how its bytes are opened: the local file (or `file:` URI) the name is, or an [`Opener`].
#[derive(Clone)]
pub struct Source {
    name: String,
    opener: Option<Opener>,
    /// The charset of the file's text (UTF-8 unless told).
    charset: Charset,
}

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Source")
            .field("name", &self.name)
            .field("opener", &self.opener.is_some())
            .field("charset", &self.charset)
            .finish()
    }
}

impl Source {
    /// The local file (or `file:` URI) `path`.
    pub fn local(path: &str) -> Self {
        Source {
            name: path.to_string(),
            opener: None,
            charset: Charset::Utf8,
        }
    }

    /// A file named `name` whose bytes `opener` opens.
    pub fn opened_by(name: &str, opener: Opener) -> Self {
        Source {
            name: name.to_string(),
            opener: Some(opener),
            charset: Charset::Utf8,
        }
    }

    /// The same file, its text in `charset` (read as UTF-8 by [`open_lines`]).
    pub fn in_charset(mut self, charset: Charset) -> Self {
        self.charset = charset;
        self
    }

    /// The file's name, as errors give it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The file's bytes from `offset` on, unbuffered and as stored (compressed or not).
    fn open_at(&self, offset: u64) -> io::Result<Box<dyn Read + Send>> {
        match &self.opener {
            Some(open) => open(offset),
            None => {
                let mut file = File::open(&*local_path(&self.name)?)?;
                if offset > 0 {
                    file.seek(SeekFrom::Start(offset))?;
                }
                Ok(Box::new(file))
            }
        }
    }
}

/// Open `source` for buffered reading, decompressing a compressed file (by its name's
/// suffix, [`Compression::of`]) as it streams.
pub fn open(source: &Source) -> io::Result<Box<dyn BufRead + Send>> {
    let raw = BufReader::with_capacity(READ_BUFFER, source.open_at(0)?);
    decompress(
        raw,
        Compression::of(&decoded_name(source.name())),
        source.charset,
    )
}

/// `name` with a `file:` URI's escapes decoded (so its suffix is the file's).
fn decoded_name(name: &str) -> Cow<'_, str> {
    local_path(name).unwrap_or(Cow::Borrowed(name))
}

/// The input of a reader: the whole of `source` ([`open`]), or with `range` the lines of an
/// uncompressed `source` that start in it ([`open_range`], lines ended by `ends`), as UTF-8
/// (decoded from the source's charset); and the lines before it, for error messages.
pub fn open_lines(
    source: &Source,
    range: Option<ByteRange>,
    ends: &LineEnds,
) -> Result<(Box<dyn BufRead + Send>, LineBase), InputError> {
    let failed = |e: io::Error| open_error(source.name(), &e);
    let (lines, base) = match range {
        None => (open(source).map_err(failed)?, LineBase::default()),
        Some(range) => {
            let (lines, first) = open_range(source, range, ends).map_err(failed)?;
            (lines, LineBase::at(source, first).ended_by(ends.clone()))
        }
    };
    let base = LineBase {
        charset: source.charset,
        ..base
    };
    // (decoded past the range's cut: offsets and line breaks are the file's own bytes)
    match source.charset {
        Charset::Utf8 => Ok((lines, base)),
        charset => Ok((Box::new(Utf8Of::new(lines, charset)), base)),
    }
}

/// The input error of a file that could not be opened: unreadable, unless it is not there
/// (a missing file is `ignore_missing_files`' case, not a corrupt one, as in Spark).
pub fn open_error(path: &str, e: &io::Error) -> InputError {
    InputError {
        path: path.to_string(),
        line: 0,
        column: None,
        message: format!("cannot open: {e}"),
        excerpt: String::new(),
        unreadable: e.kind() != io::ErrorKind::NotFound,
    }
}

/// A byte range of an uncompressed file, for reading one file in several tasks: the range
/// holds the lines that *start* in `[start, end)`, so splits at arbitrary offsets read every
/// line of the file exactly once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteRange {
    /// The first byte offset a line of the range may start at.
    pub start: u64,
    /// The byte offset past the last a line of the range may start at.
    pub end: u64,
}

/// Whether `path` is compressed (by suffix), so cannot be read by byte ranges.
pub fn is_compressed(path: &str) -> bool {
    Compression::of(&decoded_name(path)) != Compression::None
}

/// The lines of `source` that start in `range`, and the offset of the first of them. A
/// range starts a line after its separator (see [`LineEnds::range_separator`]: `\n` for
/// line breaks; none for an exact separator a match of which can start inside another,
/// whose files are read whole).
pub fn open_range(
    source: &Source,
    range: ByteRange,
    ends: &LineEnds,
) -> io::Result<(Box<dyn BufRead + Send>, u64)> {
    if is_compressed(source.name()) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "a compressed file cannot be read by byte ranges",
        ));
    }
    let Some(sep) = ends.range_separator() else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "a file of lines ended by a separator that can start inside another of its \
             matches (it begins as it ends) cannot be read by byte ranges",
        ));
    };
    // A line starts in the range if the separator before it ends there: the earliest such
    // separator starts `sep.len()` bytes before the range.
    let open_at = range.start.saturating_sub(sep.len() as u64);
    let mut file = BufReader::with_capacity(READ_BUFFER, source.open_at(open_at)?);
    let first = if range.start == 0 {
        refuse_non_text(file.fill_buf()?, source.charset)?;
        0
    } else {
        open_at + skip_past(&mut file, sep)?
    };
    let lines = LineRange {
        inner: file,
        pos: first,
        end: range.end,
        sep: Box::from(sep),
        recent: sep.to_vec(),
        done: first >= range.end,
    };
    Ok((Box::new(lines), first))
}

/// Read `input` past the first match of `sep` in it: the bytes read (all of them if none).
fn skip_past(input: &mut impl BufRead, sep: &[u8]) -> io::Result<u64> {
    if let [byte] = sep {
        return Ok(input.read_until(*byte, &mut Vec::new())? as u64);
    }
    let (mut skipped, mut before) = (0, Vec::new());
    loop {
        let buf = input.fill_buf()?;
        if buf.is_empty() {
            return Ok(skipped);
        }
        let found = separator_ends(&before, buf, sep).first().copied();
        let n = found.unwrap_or(buf.len());
        keep_last(&mut before, buf, sep.len());
        input.consume(n);
        skipped += n as u64;
        if found.is_some() {
            return Ok(skipped);
        }
    }
}

/// Where the matches of `sep` that end in `buf` end (offsets in `buf`, past each), `buf`
/// read after `before` (the input's last bytes before it, where a match may start).
fn separator_ends(before: &[u8], buf: &[u8], sep: &[u8]) -> Vec<usize> {
    let joined = [before, buf].concat();
    memchr::memmem::find_iter(&joined, sep)
        .map(|i| i + sep.len())
        .filter(|&end| end > before.len())
        .map(|end| end - before.len())
        .collect()
}

/// Keep in `before` the last `keep` bytes of what it holds and then `passed`.
fn keep_last(before: &mut Vec<u8>, passed: &[u8], keep: usize) {
    before.extend_from_slice(&passed[passed.len().saturating_sub(keep)..]);
    let extra = before.len().saturating_sub(keep);
    before.drain(..extra);
}

/// `Read::read` of a reader that is its own buffer: copy out of `fill_buf`, then consume.
pub(super) fn read_through<B: BufRead>(b: &mut B, out: &mut [u8]) -> io::Result<usize> {
    let n = {
        let buf = b.fill_buf()?;
        let n = buf.len().min(out.len());
        out[..n].copy_from_slice(&buf[..n]);
        n
    };
    b.consume(n);
    Ok(n)
}

/// Passes bytes through up to `end`, then up to the end of the line in progress (its
/// separator, `sep`).
struct LineRange {
    inner: BufReader<Box<dyn Read + Send>>,
    pos: u64,
    end: u64,
    sep: Box<[u8]>,
    /// The last bytes passed through, as many as `sep` has (at first `sep` itself: the
    /// range starts a line).
    recent: Vec<u8>,
    done: bool,
}

impl LineRange {
    /// How many bytes of `buf` (what follows `recent`) run to the end of the separator in
    /// progress, or all of them if it does not end there.
    fn to_line_end(recent: &[u8], buf: &[u8], sep: &[u8]) -> usize {
        if let [byte] = sep {
            return memchr::memchr(*byte, buf).map_or(buf.len(), |i| i + 1);
        }
        // (the tail of a range only)
        let ends = separator_ends(recent, buf, sep);
        ends.first().copied().unwrap_or(buf.len())
    }
}

impl Read for LineRange {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        read_through(self, out)
    }
}

impl BufRead for LineRange {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.done {
            return Ok(&[]);
        }
        if self.pos >= self.end && self.recent[..] == self.sep[..] {
            self.done = true;
            return Ok(&[]);
        }
        let (pos, end) = (self.pos, self.end);
        let buf = self.inner.fill_buf()?;
        let n = if pos < end {
            buf.len()
                .min(usize::try_from(end - pos).unwrap_or(usize::MAX))
        } else {
            Self::to_line_end(&self.recent, buf, &self.sep)
        };
        Ok(&buf[..n])
    }

    fn consume(&mut self, amt: usize) {
        if amt == 0 {
            return;
        }
        keep_last(
            &mut self.recent,
            &self.inner.buffer()[..amt],
            self.sep.len(),
        );
        self.pos += amt as u64;
        self.inner.consume(amt);
    }
}

/// The number of the line before byte `offset` of a file, counted only when asked (an error
/// message in a range that does not start the file), then remembered.
#[derive(Debug, Default)]
pub struct LineBase {
    source: Option<Source>,
    offset: u64,
    /// What ends the lines counted.
    ends: LineEnds,
    lines: std::sync::OnceLock<u64>,
    /// The charset of the file's text (which the reader sees decoded as UTF-8).
    charset: Charset,
}

impl LineBase {
    /// Lines before `offset` of `source` (0 for the start of the file).
    pub fn at(source: &Source, offset: u64) -> Self {
        LineBase {
            source: Some(source.clone()),
            offset,
            ends: LineEnds::Feed,
            lines: std::sync::OnceLock::new(),
            charset: Charset::Utf8,
        }
    }

    /// Lines counted as `ends` ends them (CSV's: a lone `\r` ends one, as `\n` and `\r\n`
    /// do, `LineEnds::AnyBreak`).
    pub fn ended_by(mut self, ends: LineEnds) -> Self {
        self.ends = ends;
        self
    }

    /// Whether the input starts at the start of the file (where a byte order mark may be).
    pub fn starts_file(&self) -> bool {
        self.offset == 0
    }

    /// The file offset the input starts at.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The file's byte column of byte `column` (1-based) of `line` as the reader sees it,
    /// decoded as UTF-8: the same in a UTF-8 file; in a single-byte charset the characters
    /// before it, one byte each in the file.
    pub fn file_column(&self, line: &[u8], column: usize) -> usize {
        if self.charset == Charset::Utf8 {
            return column;
        }
        let before = &line[..(column - 1).min(line.len())];
        let chars = before.iter().filter(|&&b| b & 0xC0 != 0x80).count();
        column - before.len() + chars
    }

    /// The number of lines before the offset.
    pub fn get(&self) -> u64 {
        let Some(source) = self.source.as_ref().filter(|_| self.offset > 0) else {
            return 0;
        };
        *self
            .lines
            .get_or_init(|| count_lines(source, self.offset, &self.ends).unwrap_or(0))
    }
}

/// The lines before byte `upto` of `source`, ended by `ends` (a separator of several bytes
/// found across reads too, as a search from the file's start finds it where a range may
/// start: see `LineEnds::range_separator`).
fn count_lines(source: &Source, upto: u64, ends: &LineEnds) -> io::Result<u64> {
    let mut file = BufReader::with_capacity(READ_BUFFER, source.open_at(0)?).take(upto);
    let (mut lines, mut after_cr) = (0u64, false);
    // the last bytes read, where a separator of several bytes may start
    let mut before = Vec::new();
    loop {
        let buf = file.fill_buf()?;
        let Some(&last) = buf.last() else {
            return Ok(lines);
        };
        lines += match ends {
            LineEnds::Exact(sep) if sep.len() > 1 => {
                let found = separator_ends(&before, buf, sep).len();
                keep_last(&mut before, buf, sep.len());
                found as u64
            }
            _ => ends.count_in(buf, after_cr),
        };
        after_cr = last == b'\r';
        let n = buf.len();
        file.consume(n);
    }
}

#[cfg(test)]
mod tests {
    use super::{count_lines, open_range, ByteRange, LineEnds, Source, READ_BUFFER};
    use crate::readers::lines::pieced_text;
    use std::io::Read;

    /// Byte ranges of a file cut anywhere (at the edges of reads too), its lines ended by a
    /// separator a range can start lines after, pass it on once: each range from the first
    /// line that starts in it through the end of the last, so the ranges end to end are the
    /// file; and the lines before each cut are counted as a search from the start finds them.
    #[test]
    fn ranges_pass_every_line_on_once_whatever_the_separator() {
        let dir = std::env::temp_dir().join(format!("bl-range-seps-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (k, sep) in [
            &b"\n"[..],
            b"|",
            b"\r\n",
            b"<>",
            "\u{e9}".as_bytes(),
            b"abc",
        ]
        .into_iter()
        .enumerate()
        {
            let ends = match sep {
                b"\n" => LineEnds::Feed,
                _ => LineEnds::Exact(sep.into()),
            };
            let (first, last) = (&sep[..1], &sep[sep.len() - 1..]);
            let pieces = [sep, first, last, b"xy", b"z", sep, b"a\r", b"\n", b"ab"];
            let text = pieced_text(0x2545_f491 + k as u64, 3 * READ_BUFFER, &pieces);
            let path = dir.join(format!("f{k}"));
            std::fs::write(&path, &text).unwrap();
            let source = Source::local(path.to_str().unwrap());
            let starts: Vec<usize> = std::iter::once(0)
                .chain(memchr::memmem::find_iter(&text, sep).map(|i| i + sep.len()))
                .collect();
            let mut cuts = vec![0, 1, 2, 3, text.len()];
            for edge in 1..=2 {
                cuts.extend((0..5).map(|d| edge * READ_BUFFER + d - 2));
            }
            let mut seed = 0x9e37_79b9_u64 + k as u64;
            for _ in 0..30 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                cuts.push((seed % text.len() as u64) as usize);
            }
            cuts.sort_unstable();
            cuts.dedup();
            let mut passed = Vec::new();
            for w in cuts.windows(2) {
                let range = ByteRange {
                    start: w[0] as u64,
                    end: w[1] as u64,
                };
                let (mut lines, at) = open_range(&source, range, &ends).unwrap();
                let want = starts
                    .iter()
                    .copied()
                    .find(|&q| q >= w[0])
                    .unwrap_or(text.len());
                assert_eq!(at, want as u64, "{sep:?}: the first line of {w:?}");
                lines.read_to_end(&mut passed).unwrap();
            }
            assert!(passed == text, "{sep:?}: the ranges pass on the file once");
            for &cut in &cuts {
                let before = starts.iter().filter(|&&q| q > 0 && q <= cut).count();
                let counted = count_lines(&source, cut as u64, &ends).unwrap();
                assert_eq!(counted, before as u64, "{sep:?}: lines before {cut}");
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A separator of two bytes split between two reads: where a range ends (the line in
    /// progress runs to it) and where one starts (its first line starts after it).
    #[test]
    fn a_separator_across_two_reads_ends_and_starts_ranges() {
        let dir = std::env::temp_dir().join(format!("bl-range-edge-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let long = |n: usize| "y".repeat(n);
        // `<` the last byte of the first read: from 0, and from 3 (a range from 5)
        let cases = [
            (format!("ab{}<>c<>", long(READ_BUFFER - 3)), 3),
            (format!("ab<>{}<>c<>", long(READ_BUFFER - 2)), 5),
        ];
        for (text, cut) in cases {
            let path = dir.join("f");
            std::fs::write(&path, &text).unwrap();
            let source = Source::local(path.to_str().unwrap());
            let ends = LineEnds::Exact(Box::from(&b"<>"[..]));
            let second = text.find("<>c").unwrap() + 2;
            let mut passed = Vec::new();
            for (start, end) in [(0, cut), (cut, text.len())] {
                let range = ByteRange {
                    start: start as u64,
                    end: end as u64,
                };
                let (mut lines, at) = open_range(&source, range, &ends).unwrap();
                // (the range from 5 starts past the `<>` at 2, which ends before it)
                let want = if start == 0 { 0 } else { second };
                assert_eq!(at, want as u64, "cut at {cut}");
                lines.read_to_end(&mut passed).unwrap();
            }
            assert!(passed == text.as_bytes(), "cut at {cut}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A range starts lines after a separator none of whose matches can start inside
    /// another; a file of lines ended by another is read whole.
    #[test]
    fn a_range_starts_lines_only_after_a_separator_that_cannot_overlap_itself() {
        for (sep, splits) in [
            (&b"|"[..], true),
            (b"\r\n", true),
            (b"<>", true),
            (b"abc", true),
            (b"||", false),
            (b"aba", false),
            (b"abab", false),
        ] {
            let ends = LineEnds::Exact(sep.into());
            assert_eq!(ends.range_separator().is_some(), splits, "{sep:?}");
        }
        assert_eq!(LineEnds::AnyBreak.range_separator(), Some(&b"\n"[..]));
    }

    /// Lines before byte `upto`, counted byte by byte: `\r\n`, a lone `\r` and `\n` each end
    /// one (`lone_cr`), or `\n` alone does.
    fn lines_before(text: &[u8], upto: usize, lone_cr: bool) -> u64 {
        let mut lines = 0;
        for (k, &c) in text[..upto].iter().enumerate() {
            let crlf_end = c == b'\n' && k > 0 && text[k - 1] == b'\r';
            lines += u64::from(c == b'\n' && (!lone_cr || !crlf_end));
            lines += u64::from(lone_cr && c == b'\r');
        }
        lines
    }

    #[test]
    fn lines_are_counted_across_read_buffers() {
        // `\r\n`s straddling every read's edge, among lone `\r`s and `\n`s
        let pieces: [&[u8]; 4] = [b"\r", b"\n", b"\r\n", b"abc"];
        let mut text = super::super::lines::pieced_text(0x9e37_79b9, 3 * READ_BUFFER, &pieces);
        for edge in 1..=2 {
            text[edge * READ_BUFFER - 1] = b'\r';
            text[edge * READ_BUFFER] = b'\n';
        }
        let path = std::env::temp_dir().join(format!("bl-count-lines-{}", std::process::id()));
        std::fs::write(&path, &text).unwrap();
        let name = path.to_str().unwrap();
        for upto in [
            1,
            READ_BUFFER,
            READ_BUFFER + 1,
            2 * READ_BUFFER + 7,
            text.len(),
        ] {
            for lone_cr in [false, true] {
                let ends = if lone_cr {
                    LineEnds::AnyBreak
                } else {
                    LineEnds::Feed
                };
                assert_eq!(
                    count_lines(&Source::local(name), upto as u64, &ends).unwrap(),
                    lines_before(&text, upto, lone_cr),
                    "up to {upto}, lone_cr {lone_cr}"
                );
            }
        }
        std::fs::remove_file(&path).unwrap();
    }
}
