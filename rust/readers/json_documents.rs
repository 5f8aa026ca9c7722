//! JSON files that are not one object per line (Spark's `multiLine`, what Drill reads too):
//! a top-level array of objects, or objects spread over lines one after the other (pretty
//! printed), in any mix. [`Documents`] turns them, as they stream, into one record per line
//! for the NDJSON reader: line breaks inside a record become spaces, what is between
//! records (white space, the array's brackets, the commas between its elements) goes, and
//! each record ends with a line break. A record's text is its text in the file, byte for
//! byte; [`RecordPlaces`] maps a record's line and byte column back to the file's.

use std::collections::VecDeque;
use std::io::{self, BufRead, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The UTF-8 encoding of U+FEFF, which some tools write at the start of a text file.
const BOM: &[u8; 3] = b"\xef\xbb\xbf";

/// Where a record started in the file, and the line breaks inside it.
#[derive(Debug, Clone)]
struct RecordStart {
    /// The record's line in the output (1-based): the record's number.
    record: u64,
    /// Its first byte's line and byte column in the file (1-based).
    line: u64,
    column: u64,
    /// Offsets in the record of the line breaks it holds (turned into spaces).
    breaks: Vec<usize>,
}

/// The file places of the records between the reader's and the transformer's positions.
/// The transformer adds what each of its reads produced (the reader sees nothing else), the
/// reader says which record it is on, and the places before it are let go: memory stays
/// bounded by the bytes in flight.
#[derive(Debug, Default)]
pub struct RecordPlaces {
    starts: Mutex<(VecDeque<RecordStart>, u64)>,
    /// The file's line the transformer has read up to.
    line: AtomicU64,
}

impl RecordPlaces {
    /// The file's line the transformer has read up to (where a read failed).
    pub fn file_line(&self) -> u64 {
        self.line.load(Ordering::Relaxed)
    }

    /// The reader has moved on to record `record`: the places before it are not needed.
    pub fn reached(&self, record: u64) {
        let mut guard = self.starts.lock().expect("record places");
        let (starts, reached) = &mut *guard;
        *reached = record;
        let_go(starts, record);
    }

    /// What a read produced: the records it started (their breaks so far), and the breaks
    /// it found in the record it continued, `open` (started by an earlier read).
    fn publish(&self, started: &mut Vec<RecordStart>, open: Option<(u64, &[usize])>, line: u64) {
        let mut guard = self.starts.lock().expect("record places");
        let (starts, reached) = &mut *guard;
        let_go(starts, *reached);
        if let Some((record, breaks)) = open {
            if let Some(start) = starts.back_mut().filter(|s| s.record == record) {
                start.breaks.extend_from_slice(breaks);
            }
        }
        starts.extend(started.drain(..));
        self.line.store(line, Ordering::Relaxed);
    }

    /// The file's line and byte column (1-based) of byte `column` (1-based; none: the
    /// record's start) of record `record`; `None` if the record is not known.
    pub fn place(&self, record: u64, column: Option<usize>) -> Option<(u64, Option<usize>)> {
        let starts = self.starts.lock().expect("record places");
        let start = starts.0.iter().find(|s| s.record == record)?;
        let Some(column) = column else {
            return Some((start.line, Some(start.column as usize)));
        };
        let offset = column.saturating_sub(1);
        let before = start.breaks.partition_point(|&b| b < offset);
        Some(match before {
            0 => (start.line, Some(start.column as usize + offset)),
            k => (start.line + k as u64, Some(offset - start.breaks[k - 1])),
        })
    }
}

/// Let go of the places of the records before `reached`.
fn let_go(starts: &mut VecDeque<RecordStart>, reached: u64) {
    while starts.front().is_some_and(|s| s.record < reached) {
        starts.pop_front();
    }
}

/// A fault in the structure between records, where the file has it: a `,` missing or extra
/// between the elements of a top-level array (Spark and Drill fail the file on it too).
/// Nothing can be skipped to read on: the reader makes it an error in every `on_error` mode.
#[derive(Debug, Clone)]
pub struct MalformedDocuments {
    /// The file's line and byte column (1-based) of the byte at fault.
    pub line: u64,
    pub column: u64,
    /// What is wrong.
    pub message: &'static str,
    /// The bytes around it.
    pub excerpt: String,
}

/// A fault as [`Scanner::transform`] meets it: the bytes up to it, for its excerpt.
struct Fault {
    line: u64,
    column: u64,
    message: &'static str,
    before: Vec<u8>,
}

impl std::fmt::Display for MalformedDocuments {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.message)
    }
}

impl std::error::Error for MalformedDocuments {}

/// Where the transformer is in a top-level array of records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum InArray {
    /// Not in one.
    No,
    /// After its `[`: an element or its `]` comes next.
    Opened,
    /// After (or in) an element: a `,` or the `]`.
    AfterElement,
    /// After a `,`: an element.
    AfterComma,
}

/// A JSON document stream as one record per line (see the module's doc).
pub struct Documents<R> {
    inner: R,
    scan: Scanner,
    /// The fault met, given again by every later read (the input stops there).
    fault: Option<MalformedDocuments>,
}

/// Where [`Documents`] is in the file's bytes and structure.
struct Scanner {
    places: Arc<RecordPlaces>,
    /// Inside a record (else between records), `depth` arrays and objects deep (0: a bare
    /// scalar, or the first byte of any record).
    in_record: bool,
    depth: u32,
    /// Whether the records are the elements of a top-level array, and what comes next in it.
    array: InArray,
    in_string: bool,
    /// The last byte was a backslash in a string.
    escaped: bool,
    /// The file offset of the next byte, the file's line it is on (1-based) and the offset
    /// that line starts at.
    offset: u64,
    line: u64,
    line_start: u64,
    /// Records started; the offset of the current one's first byte.
    records: u64,
    record_start: u64,
    /// Records this read started, not yet published; and the breaks this read found in the
    /// record open when it began (started by an earlier read).
    started: Vec<RecordStart>,
    breaks: Vec<usize>,
    /// The line breaks in the current record: the next one's room for its own (pretty
    /// printed records are alike; growing the list break by break was 12% of the transform).
    record_breaks: usize,
    /// The last bytes read before the current input (a fault's excerpt shows them).
    recent: Vec<u8>,
}

/// How many of the last bytes read [`Scanner::recent`] keeps.
const RECENT: usize = 120;

impl<R: BufRead> Documents<R> {
    /// The records of `inner`, their places noted in `places`.
    pub fn new(inner: R, places: Arc<RecordPlaces>) -> Self {
        Documents {
            inner,
            scan: Scanner {
                places,
                in_record: false,
                depth: 0,
                array: InArray::No,
                in_string: false,
                escaped: false,
                offset: 0,
                line: 1,
                line_start: 0,
                records: 0,
                record_start: 0,
                started: Vec::new(),
                breaks: Vec::new(),
                record_breaks: 0,
                recent: Vec::with_capacity(2 * RECENT),
            },
            fault: None,
        }
    }
}

impl Scanner {
    fn start_record(&mut self, at: u64) {
        self.records += 1;
        self.record_start = at;
        self.in_record = true;
        self.depth = 0;
        self.started.push(RecordStart {
            record: self.records,
            line: self.line,
            column: at - self.line_start + 1,
            breaks: Vec::with_capacity(std::mem::take(&mut self.record_breaks)),
        });
    }

    /// A line break at file offset `at`, inside the current record or not.
    fn line_break(&mut self, at: u64, in_record: bool) {
        if in_record {
            self.record_breaks += 1;
            let offset = (at - self.record_start) as usize;
            match self.started.last_mut() {
                Some(start) if start.record == self.records => start.breaks.push(offset),
                _ => self.breaks.push(offset),
            }
        }
        self.line += 1;
        self.line_start = at + 1;
    }

    /// Whether the byte `b` (at offset `at`) between records starts one, to be read again as
    /// part of it: an object, or anything else the NDJSON reader will refuse as a record (a
    /// scalar, a stray `]`), which ends where a scalar would. The bytes that start none
    /// (white space, an array's brackets and commas) are left out. A `,` missing or extra in
    /// an array is a fault (nothing changed: the byte is read again to the same fault).
    fn starts_record(&mut self, b: u8, at: u64) -> Result<bool, &'static str> {
        match (b, self.array) {
            (b'[', InArray::No) => self.array = InArray::Opened,
            (b']', InArray::AfterComma) => {
                return Err("a `,` before the array's closing `]` (a trailing comma)");
            }
            (b']', _) if self.array != InArray::No => self.array = InArray::No,
            (b',', InArray::AfterElement) => self.array = InArray::AfterComma,
            (b',', InArray::Opened | InArray::AfterComma) => {
                return Err("a `,` where an element of the top-level array should be");
            }
            // a UTF-8 byte order mark starting the file (Windows tools write one)
            (0xef | 0xbb | 0xbf, _) if at < 3 && self.line == 1 && b == BOM[at as usize] => {}
            (b' ' | b'\t' | b'\r', _) => {}
            (b'\n', _) => self.line_break(at, false),
            (_, InArray::AfterElement) => {
                return Err(
                    "no `,` between this element of the top-level array and the one before",
                );
            }
            _ => {
                if self.array != InArray::No {
                    self.array = InArray::AfterElement;
                }
                self.start_record(at);
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Note `used`, the bytes just read: the last of them are kept in `recent`.
    fn keep_recent(&mut self, used: &[u8]) {
        self.recent
            .extend_from_slice(&used[used.len().saturating_sub(RECENT)..]);
        let excess = self.recent.len().saturating_sub(RECENT);
        self.recent.drain(..excess);
    }

    /// Publish what this read found (see [`RecordPlaces::publish`]).
    fn publish(&mut self) {
        // `breaks` are the record's that was open when the read began (it may have ended
        // in the read, and others started): found by fuzzing
        let open_record = self.started.first().map_or(self.records, |s| s.record - 1);
        let open = (!self.breaks.is_empty()).then_some((open_record, &self.breaks[..]));
        self.places.publish(&mut self.started, open, self.line);
        self.breaks.clear();
    }
}

impl<R: BufRead> Read for Documents<R> {
    /// Reads at least two bytes at a time (a record's last byte and its line break): a
    /// `BufReader` of any capacity over it asks for that many.
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if out.len() < 2 {
            return Err(io::Error::other(
                "JSON documents are read two bytes at a time",
            ));
        }
        if let Some(fault) = &self.fault {
            return Err(io::Error::other(fault.clone()));
        }
        let scan = &mut self.scan;
        let mut w = 0;
        let result = loop {
            let input = match self.inner.fill_buf() {
                Ok(input) => input,
                Err(e) => break Err(e),
            };
            if input.is_empty() {
                if w == 0 && scan.in_record {
                    // the last record ends with the input
                    scan.in_record = false;
                    out[0] = b'\n';
                    w = 1;
                } else if w == 0 && scan.array != InArray::No {
                    scan.array = InArray::No;
                    break Err(io::Error::other(
                        "the file ends inside its top-level JSON array (no closing `]`): it is \
                         truncated",
                    ));
                }
                break Ok(w);
            }
            let (used, fault) = scan.transform(input, out, &mut w);
            scan.keep_recent(&input[..used]);
            scan.offset += used as u64;
            self.inner.consume(used);
            if let Some(fault) = fault {
                let fault = fault.with_bytes_after(&mut self.inner);
                self.fault = Some(fault.clone());
                // the records before it are read first
                break if w > 0 {
                    Ok(w)
                } else {
                    Err(io::Error::other(fault))
                };
            }
            if w > 0 {
                break Ok(w);
            }
        };
        scan.publish();
        result
    }
}

impl Fault {
    /// The fault, its excerpt showing the bytes after it too, read from `input` (at the
    /// fault): the same bytes whatever the sizes of the reads before. Nothing after a
    /// fault is read as records, so they are consumed.
    fn with_bytes_after(self, input: &mut impl BufRead) -> MalformedDocuments {
        let mut around = self.before;
        let column = around.len() + 1;
        let end = around.len() + RECENT;
        while around.len() < end {
            match input.fill_buf() {
                // (an error reading on leaves the excerpt shorter: the fault is the error)
                Ok([]) | Err(_) => break,
                Ok(more) => {
                    let n = more.len().min(end - around.len());
                    around.extend_from_slice(&more[..n]);
                    input.consume(n);
                }
            }
        }
        MalformedDocuments {
            line: self.line,
            column: self.column,
            message: self.message,
            excerpt: super::driver::excerpt(&around, Some(column)),
        }
    }
}

/// Bytes that end a run of string bytes (`STRING_STOP`) or of bytes inside an array or
/// object outside strings (`NESTED_STOP`).
const STRING_STOP: u8 = 1;
const NESTED_STOP: u8 = 2;

/// Each byte's stops.
static STOPS: [u8; 256] = {
    let mut table = [0u8; 256];
    table[b'"' as usize] = STRING_STOP | NESTED_STOP;
    table[b'\\' as usize] = STRING_STOP;
    table[b'\n' as usize] = STRING_STOP | NESTED_STOP;
    table[b'\r' as usize] = NESTED_STOP;
    table[b'{' as usize] = NESTED_STOP;
    table[b'}' as usize] = NESTED_STOP;
    table[b'[' as usize] = NESTED_STOP;
    table[b']' as usize] = NESTED_STOP;
    table
};

/// Copy the bytes of `input` before the first that is a `stop` into `out` (as long as
/// `input`, or longer); their number. (Runs are short, a key or a number: SSE2 compares of
/// 16 bytes at a time were no faster than this table.)
#[inline]
fn copy_run(input: &[u8], out: &mut [u8], stop: u8) -> usize {
    let out = &mut out[..input.len()];
    for (k, (&b, o)) in input.iter().zip(out.iter_mut()).enumerate() {
        if STOPS[b as usize] & stop != 0 {
            return k;
        }
        *o = b;
    }
    input.len()
}

impl Scanner {
    /// Transform `input` into `out[*w..]` as far as both go (leaving a byte of room for a
    /// record's line break), or up to a fault between records; the input bytes used, and
    /// the fault.
    fn transform(&mut self, input: &[u8], out: &mut [u8], w: &mut usize) -> (usize, Option<Fault>) {
        let mut i = 0;
        while i < input.len() && *w + 2 <= out.len() {
            let at = self.offset + i as u64;
            if !self.in_record {
                match self.starts_record(input[i], at) {
                    Ok(true) => {}
                    Ok(false) => i += 1,
                    Err(message) => {
                        let mut before = self.recent.clone();
                        before.extend_from_slice(&input[..i]);
                        let fault = Fault {
                            line: self.line,
                            column: at - self.line_start + 1,
                            message,
                            before,
                        };
                        return (i, Some(fault));
                    }
                }
                continue;
            }
            if self.in_string {
                if self.escaped {
                    // the escaped byte, whatever it is (a line break stays invalid)
                    self.escaped = false;
                } else {
                    // plain string bytes, copied as a run
                    let end = input.len().min(i + (out.len() - *w - 1));
                    let run = copy_run(&input[i..end], &mut out[*w..], STRING_STOP);
                    *w += run;
                    i += run;
                    if i == end {
                        continue;
                    }
                    match input[i] {
                        b'\\' => self.escaped = true,
                        b'"' => {
                            self.in_string = false;
                            if self.depth == 0 {
                                // a string record: it ends here
                                out[*w] = b'"';
                                out[*w + 1] = b'\n';
                                *w += 2;
                                self.in_record = false;
                                i += 1;
                                continue;
                            }
                        }
                        _ => {}
                    }
                }
                let b = input[i];
                if b == b'\n' {
                    // a line break in a string: invalid JSON, kept invalid (a control
                    // character) in a record that keeps its line (its place counted from
                    // here, past the run: found by fuzzing)
                    self.line_break(self.offset + i as u64, true);
                    out[*w] = b'\r';
                } else {
                    out[*w] = b;
                }
                *w += 1;
                i += 1;
                continue;
            }
            let depth = self.depth;
            if depth > 0 {
                // bytes that change nothing inside an array or object, copied as a run
                let end = input.len().min(i + (out.len() - *w - 1));
                let run = copy_run(&input[i..end], &mut out[*w..], NESTED_STOP);
                *w += run;
                i += run;
                if i == end {
                    continue;
                }
            }
            let at = self.offset + i as u64;
            let b = input[i];
            match b {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' if depth > 0 => {
                    self.depth -= 1;
                    if depth == 1 {
                        // the record's last byte
                        out[*w] = b;
                        out[*w + 1] = b'\n';
                        *w += 2;
                        self.in_record = false;
                        i += 1;
                        continue;
                    }
                }
                b'\n' | b'\r' | b' ' | b'\t' | b',' | b'}' | b']'
                    if depth == 0 && at > self.record_start =>
                {
                    // a bare scalar ends before `b`, which is read again between records
                    out[*w] = b'\n';
                    *w += 1;
                    self.in_record = false;
                    continue;
                }
                b'\n' => {
                    self.line_break(at, true);
                    out[*w] = b' ';
                    *w += 1;
                    i += 1;
                    continue;
                }
                b'\r' => {
                    out[*w] = b' ';
                    *w += 1;
                    i += 1;
                    continue;
                }
                _ => {}
            }
            out[*w] = b;
            *w += 1;
            i += 1;
        }
        (i, None)
    }
}

#[cfg(test)]
mod tests {
    use super::{Documents, MalformedDocuments, RecordPlaces};
    use std::io::{BufRead, BufReader, Cursor, Read};
    use std::sync::Arc;

    /// The records of `text` (one per line, trimmed; blank lines left out), and the places.
    fn records(text: &str, capacity: usize) -> (std::io::Result<Vec<String>>, Arc<RecordPlaces>) {
        let places = Arc::new(RecordPlaces::default());
        let raw = BufReader::with_capacity(capacity, Cursor::new(text.as_bytes().to_vec()));
        let mut out =
            BufReader::with_capacity(capacity.max(2), Documents::new(raw, places.clone()));
        let mut lines = Vec::new();
        let got = loop {
            let mut line = Vec::new();
            match out.read_until(b'\n', &mut line) {
                Ok(0) => break Ok(lines),
                Ok(_) => {
                    let line = String::from_utf8(line).unwrap();
                    if !line.trim().is_empty() {
                        lines.push(line.trim().to_string());
                    }
                }
                Err(e) => break Err(e),
            }
        };
        (got, places)
    }

    #[test]
    fn arrays_and_objects_over_lines_become_one_record_a_line() {
        let text = "\u{feff}[\n  {\n    \"a\": 1,\n    \"s\": \"x], {y\\\" ,\"\n  },\n  {\"a\": [2, {\"b\": \
                    3}]}\r\n]\n{\"a\":\n 4}{\"a\": 5}\n\n[{\"a\": 6}] [] {}";
        let want = [
            r#"{     "a": 1,     "s": "x], {y\" ,"   }"#,
            r#"{"a": [2, {"b": 3}]}"#,
            r#"{"a":  4}"#,
            r#"{"a": 5}"#,
            r#"{"a": 6}"#,
            "{}",
        ];
        // reads of every size see the same records
        for capacity in [1, 2, 3, 7, 64, 1 << 16] {
            let (got, _) = records(text, capacity);
            assert_eq!(got.unwrap(), want, "capacity {capacity}");
        }
    }

    #[test]
    fn anything_but_an_object_is_a_record_of_its_own() {
        let (got, _) = records("[1, \"two\", [3], {\"a\": 4}, null]\n5 ]", 64);
        assert_eq!(
            got.unwrap(),
            ["1", "\"two\"", "[3]", "{\"a\": 4}", "null", "5", "]"]
        );
        // a line break inside a string stays invalid (a control character), on its line
        let (got, _) = records("{\"s\": \"a\nb\"}\n{\"a\": 1}", 64);
        assert_eq!(got.unwrap(), ["{\"s\": \"a\rb\"}", "{\"a\": 1}"]);
    }

    #[test]
    fn an_array_that_is_not_closed_is_an_error() {
        for text in ["[{\"a\": 1},", "[{\"a\": 1}", "[{\"a\": 1}, {\"a\""] {
            let (got, _) = records(text, 64);
            let e = got.unwrap_err();
            assert!(e.to_string().contains("no closing `]`"), "{text}: {e}");
        }
    }

    #[test]
    fn a_comma_missing_or_extra_in_the_array_is_an_error_at_its_place() {
        // (text, line, column, what the message says)
        let cases = [
            ("[{\"a\": 1}\n {\"a\": 2}]", 2, 2, "no `,` between"),
            ("[{\"a\": 1} 2]", 1, 11, "no `,` between"),
            (
                "[{\"a\": 1},\n {\"a\": 2},\n]",
                3,
                1,
                "before the array's closing `]`",
            ),
            ("[{\"a\": 1},, {\"a\": 2}]", 1, 11, "where an element"),
            ("[\n  , {\"a\": 1}]", 2, 3, "where an element"),
            ("{\"a\": 0}\n[{\"a\": 1}] [,]", 2, 13, "where an element"),
        ];
        for (text, line, column, says) in cases {
            let mut excerpts = Vec::new();
            for capacity in [1, 2, 5, 64] {
                let (got, _) = records(text, capacity);
                let e = got.unwrap_err();
                let fault = e
                    .get_ref()
                    .and_then(|e| e.downcast_ref::<MalformedDocuments>())
                    .unwrap_or_else(|| panic!("{text:?}: {e}"));
                assert_eq!((fault.line, fault.column), (line, column), "{text:?}");
                assert!(e.to_string().contains(says), "{text:?}: {e}");
                // the excerpt shows the bytes before the fault, from earlier reads too
                let lines_before: usize = text
                    .split_inclusive('\n')
                    .take(line as usize - 1)
                    .map(str::len)
                    .sum();
                let at = lines_before + column as usize - 1;
                let around = &text[at.saturating_sub(4)..=at];
                assert!(
                    fault.excerpt.contains(around),
                    "{text:?}: {:?}",
                    fault.excerpt
                );
                excerpts.push(fault.excerpt.clone());
            }
            // the bytes after the fault too, whatever the reads' sizes (found by fuzzing)
            assert!(excerpts.iter().all(|e| *e == excerpts[0]), "{excerpts:?}");
            assert!(excerpts[0].ends_with(&text[text.len().saturating_sub(3)..]));
        }
        // the records before the fault are read first
        let mut docs = Documents::new(
            BufReader::new(Cursor::new(&b"[{\"a\": 1}, {\"a\": 2} {\"a\": 3}]"[..])),
            Arc::new(RecordPlaces::default()),
        );
        let mut out = Vec::new();
        let e = docs.read_to_end(&mut out).unwrap_err();
        assert_eq!(out, b"{\"a\": 1}\n{\"a\": 2}\n", "{e}");
        // commas and brackets in their places, and records outside arrays, are no fault
        let (got, _) = records("[] [{\"a\": 1} , {\"a\": 2}\n,\n3] {\"b\": 1} {}", 3);
        assert_eq!(
            got.unwrap(),
            ["{\"a\": 1}", "{\"a\": 2}", "3", "{\"b\": 1}", "{}"]
        );
    }

    #[test]
    fn a_byte_of_a_record_is_placed_at_its_line_and_column_in_the_file() {
        // record 3 has a line break inside a string (invalid JSON, kept as a `\r`); so has
        // the second file's record 2, which a read may end while starting record 3
        let texts = [
            "[\n  {\"a\": 1},\n  {\n    \"b\": 2,\n  \"c\": 3\n  },\n  {\"s\": \"xyz\nuv\", \
             \"t\": 1}\n]",
            ",,\"bNNNNNNN\n\u{2bd}\"b\"\r,\n\"a\"",
        ];
        for text in texts {
            let file_lines: Vec<&str> = text.lines().collect();
            for capacity in (1..=16).chain([64]) {
                let (got, places) = records(text, capacity);
                // every byte of every record (but white space, which may stand for a line
                // break) is where the file has it, whatever the reads' sizes (found by
                // fuzzing: a break in a string was placed wrong)
                for (record, line) in (1..).zip(&got.unwrap()) {
                    for (column, &in_record) in (1..).zip(line.as_bytes()) {
                        let (at, col) = places.place(record, Some(column)).unwrap();
                        if !matches!(in_record, b'\r' | b' ') {
                            let in_file = file_lines[at as usize - 1].as_bytes()[col.unwrap() - 1];
                            assert_eq!(
                                in_file, in_record,
                                "record {record} byte {column}: {at}:{col:?} ({capacity})"
                            );
                        }
                    }
                }
                if text.starts_with('[') {
                    // record 2 is `{     "b": 2,   "c": 3   }`: byte 7 is `"b"`'s quote
                    assert_eq!(places.place(2, Some(7)), Some((4, Some(5))));
                    assert_eq!(places.place(1, None), Some((2, Some(3))));
                    // `"t"`'s quote, after the break in the string
                    assert_eq!(places.place(3, Some(17)), Some((8, Some(6))));
                }
            }
        }
    }

    #[test]
    fn places_the_reader_has_passed_are_let_go() {
        let text = "{}\n".repeat(1000);
        let places = Arc::new(RecordPlaces::default());
        let raw = Cursor::new(text.into_bytes());
        let mut docs = Documents::new(BufReader::new(raw), places.clone());
        let mut buf = [0u8; 300];
        let mut read = 0;
        while docs.read(&mut buf).unwrap() > 0 {
            read += 1;
            places.reached(read * 100); // 100 records a read: the reader keeps up
        }
        let held = places.starts.lock().unwrap().0.len();
        assert!(held <= 101, "{held} places held");
    }
}
