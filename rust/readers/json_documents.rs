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

/// The file places of the records between the reader's and the transformer's positions:
/// the transformer adds each record it starts, the reader says which record it is on, and
/// the places of the records before it are let go (memory stays bounded by the bytes in
/// flight).
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
        let mut starts = self.starts.lock().expect("record places");
        starts.1 = record;
        while starts.0.front().is_some_and(|s| s.record < record) {
            starts.0.pop_front();
        }
    }

    fn add(&self, start: RecordStart) {
        let mut starts = self.starts.lock().expect("record places");
        let reached = starts.1;
        while starts.0.front().is_some_and(|s| s.record < reached) {
            starts.0.pop_front();
        }
        starts.0.push_back(start);
    }

    fn add_break(&self, record: u64, offset: usize) {
        let mut starts = self.starts.lock().expect("record places");
        if let Some(start) = starts.0.back_mut().filter(|s| s.record == record) {
            start.breaks.push(offset);
        }
    }

    /// The file's line and byte column (1-based) of byte `column` (1-based; none: the
    /// record's start) of record `record`; `None` if the record is not known.
    pub fn place(&self, record: u64, column: Option<usize>) -> Option<(u64, Option<usize>)> {
        let starts = self.starts.lock().expect("record places");
        let start = starts.0.iter().find(|s| s.record == record)?;
        let Some(column) = column else {
            return Some((start.line, Some(start.column as usize)));
        };
        let offset = column - 1;
        let before = start.breaks.partition_point(|&b| b < offset);
        Some(match before {
            0 => (start.line, Some(start.column as usize + offset)),
            k => (start.line + k as u64, Some(offset - start.breaks[k - 1])),
        })
    }
}

/// Where the transformer is in the file's structure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Between {
    /// Between records: at the top level, or directly inside a top-level array.
    Records,
    /// Inside a record `depth` arrays and objects deep (0: a bare scalar).
    Record { depth: u32 },
}

/// A JSON document stream as one record per line (see the module's doc).
pub struct Documents<R> {
    inner: R,
    scan: Scanner,
}

/// Where [`Documents`] is in the file's bytes and structure.
struct Scanner {
    places: Arc<RecordPlaces>,
    at: Between,
    /// Whether the records are the elements of a top-level array.
    in_array: bool,
    in_string: bool,
    escaped: bool,
    /// The file's line (1-based) and byte column (0-based) of the next byte.
    line: u64,
    column: u64,
    /// Records started, and the current one's bytes so far.
    records: u64,
    record_len: usize,
}

impl<R: BufRead> Documents<R> {
    /// The records of `inner`, their places noted in `places`.
    pub fn new(inner: R, places: Arc<RecordPlaces>) -> Self {
        Documents {
            inner,
            scan: Scanner::new(places),
        }
    }
}

impl Scanner {
    fn new(places: Arc<RecordPlaces>) -> Self {
        Scanner {
            places,
            at: Between::Records,
            in_array: false,
            in_string: false,
            escaped: false,
            line: 1,
            column: 0,
            records: 0,
            record_len: 0,
        }
    }

    fn start_record(&mut self, depth: u32) {
        self.records += 1;
        self.record_len = 0;
        self.at = Between::Record { depth };
        self.places.add(RecordStart {
            record: self.records,
            line: self.line,
            column: self.column + 1,
            breaks: Vec::new(),
        });
    }

    /// Whether the byte `b` between records starts one (it is then read again as part of
    /// it): an object, or anything else the NDJSON reader will refuse as a record, a scalar
    /// or a stray `]`, which ends where a scalar would. The bytes that start none (white
    /// space, an array's brackets and commas) are left out.
    fn starts_record(&mut self, b: u8) -> bool {
        match b {
            b'[' if !self.in_array => self.in_array = true,
            b']' if self.in_array => self.in_array = false,
            b',' if self.in_array => {}
            // a UTF-8 byte order mark starting the file (Windows tools write one)
            0xef | 0xbb | 0xbf
                if self.line == 1 && self.column < 3 && b == BOM[self.column as usize] => {}
            b'\n' | b'\r' | b' ' | b'\t' => {}
            _ => {
                self.start_record(0);
                return true;
            }
        }
        false
    }

    /// The byte `b` inside a record `depth` deep: what it turns into, and whether the
    /// record ends after it (`Some(false)`: it ends before it, `b` is read again).
    fn inside(&mut self, b: u8, depth: u32) -> (u8, Option<bool>) {
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
                if depth == 0 {
                    return (b, Some(true)); // a string record
                }
            } else if b == b'\n' {
                // a line break in a string: invalid JSON, kept invalid (a control character)
                // in a record that keeps its line
                return (b'\r', None);
            }
            return (b, None);
        }
        match b {
            b'"' => self.in_string = true,
            b'{' | b'[' => self.at = Between::Record { depth: depth + 1 },
            b'}' | b']' if depth > 0 => {
                self.at = Between::Record { depth: depth - 1 };
                return (b, (depth == 1).then_some(true));
            }
            b'\n' | b'\r' => {
                return if depth == 0 {
                    (b, Some(false))
                } else {
                    (b' ', None)
                }
            }
            b' ' | b'\t' | b',' | b'}' | b']' if depth == 0 && self.record_len > 0 => {
                return (b, Some(false));
            }
            _ => {}
        }
        (b, None)
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
        let scan = &mut self.scan;
        let mut written = 0;
        loop {
            let input = self.inner.fill_buf()?;
            if input.is_empty() {
                if written == 0 && scan.in_array && scan.at == Between::Records {
                    scan.in_array = false;
                    return Err(io::Error::other(
                        "the file ends inside its top-level JSON array (no closing `]`): \
                         it is truncated",
                    ));
                }
                if written == 0 && matches!(scan.at, Between::Record { .. }) {
                    // the last record ends with the input
                    scan.at = Between::Records;
                    out[0] = b'\n';
                    return Ok(1);
                }
                return Ok(written);
            }
            let mut used = 0;
            // two bytes of room: a record's last byte and its line break
            while used < input.len() && written + 2 <= out.len() {
                let b = input[used];
                let turned = match scan.at {
                    Between::Records => {
                        if scan.starts_record(b) {
                            continue;
                        }
                        scan.advance(b);
                        used += 1;
                        continue;
                    }
                    Between::Record { depth } => {
                        let (t, ends) = scan.inside(b, depth);
                        match ends {
                            Some(false) => {
                                // a bare scalar ended before `b`
                                scan.at = Between::Records;
                                out[written] = b'\n';
                                written += 1;
                                continue;
                            }
                            Some(true) => {
                                out[written] = t;
                                out[written + 1] = b'\n';
                                written += 2;
                                scan.at = Between::Records;
                                scan.advance(b);
                                used += 1;
                                continue;
                            }
                            None => {
                                if b == b'\n' {
                                    scan.places.add_break(scan.records, scan.record_len);
                                }
                                scan.record_len += 1;
                                t
                            }
                        }
                    }
                };
                out[written] = turned;
                written += 1;
                scan.advance(b);
                used += 1;
            }
            self.inner.consume(used);
            scan.places.line.store(scan.line, Ordering::Relaxed);
            if written > 0 {
                return Ok(written);
            }
        }
    }
}

impl Scanner {
    /// Count `b`, a byte of the file, into the file's line and column.
    #[inline]
    fn advance(&mut self, b: u8) {
        if b == b'\n' {
            self.line += 1;
            self.column = 0;
        } else {
            self.column += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Documents, RecordPlaces};
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
    fn a_byte_of_a_record_is_placed_at_its_line_and_column_in_the_file() {
        let text = "[\n  {\"a\": 1},\n  {\n    \"b\": 2,\n  \"c\": 3\n  }\n]";
        let (got, places) = records(text, 5);
        let got = got.unwrap();
        // record 2 is `{     "b": 2,   "c": 3   }`: byte 7 is `"b"`'s quote, line 4 col 5
        let file_lines: Vec<&str> = text.lines().collect();
        for (record, column) in [(1, 1), (1, 7), (2, 1), (2, 7), (2, 19), (2, got[1].len())] {
            let (line, col) = places.place(record, Some(column)).unwrap();
            let in_file = file_lines[line as usize - 1].as_bytes()[col.unwrap() - 1];
            let in_record = got[record as usize - 1].as_bytes()[column - 1];
            assert_eq!(
                in_file, in_record,
                "record {record} byte {column}: {line}:{col:?}"
            );
        }
        assert_eq!(places.place(2, Some(7)), Some((4, Some(5))));
        assert_eq!(places.place(1, None), Some((2, Some(3))));
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
