//! The NDJSON reader: one JSON object per line, parsed straight into the loader.

use std::io::{BufRead, BufReader};
use std::ops::Range;
use std::sync::Arc;

use serde::de::{DeserializeSeed, IgnoredAny};
use serde::Deserialize;
use serde_json::error::Category;

use super::conventions::Conventions;
use super::driver::{excerpt, io_error, loader_error, IgnoredNames, RecordReader, RecordSource};
pub use super::driver::{InputError, OnError, ReadError, BAD_RECORDS_KEPT, CORRUPT_RECORD};
use super::input;
use super::json::{
    respell_for_serde, JsonSyntax, JsonWriter, KeyCache, Respelling, ValueSeed, TOO_DEEP,
};
use super::json_documents::{Documents, RecordPlaces};
use super::json_fast;
use super::lines::{LineEnds, LineWindow};
use super::time_pattern::TimeFormats;
use arrow_schema::DataType;

use crate::loader::{ColumnKind, Discovery, LoaderError, ResultSetLoader};

/// The UTF-8 encoding of U+FEFF, which some tools write at the start of a text file.
const UTF8_BOM: &[u8] = b"\xef\xbb\xbf";

/// The lines of an NDJSON input (the record source of [`NdjsonReader`]).
pub struct JsonLines {
    lines: LineWindow,
    path: String,
    discover: bool,
    /// With `discover`: top-level fields without a column become columns too (else only
    /// struct members do; see `stop_adding_columns`).
    new_columns: bool,
    /// The type of a field null in a whole batch, and of the elements of a list seen only
    /// empty (a guess; utf8 unless told otherwise, see `with_null_type`).
    null_type: DataType,
    /// How numbers and strings convert to declared types where Arrow and Spark differ.
    conventions: Conventions,
    /// The JSON taken beyond the standard's (comments, leading zeros...).
    syntax: JsonSyntax,
    /// Patterns date and timestamp texts are read by, where given.
    formats: TimeFormats,
    discovery: Discovery,
    keys: KeyCache,
    line_no: u64,
    /// Lines of the file before this input (a byte range that does not start the file).
    base: input::LineBase,
    /// Top-level keys skipped because the projection leaves them out.
    ignored: IgnoredNames,
    /// Struct members skipped because the fixed schema lacks them, by path.
    ignored_members: IgnoredNames,
    /// Columns given the null type at the end of a batch are typed anew by the next one.
    retype_nulls: bool,
    /// Where the one-pass path decodes strings with escapes.
    scratch: Vec<u8>,
    /// A line respelled for serde (see [`respell_for_serde`]).
    respelled: String,
    /// Whether lines are tried on the one-pass path first (else all go through serde).
    one_pass: bool,
    /// The lines' ends were given (`with_line_ends`), not left to the conventions.
    ends_given: bool,
    /// An empty string is a null wherever it is (`empty_strings_as_nulls`).
    empty_strings_null: bool,
    /// Lines the one-pass path wrote (the others went through serde).
    pub(crate) one_pass_lines: u64,
    /// The input failed while the current line's end was looked for.
    read_error: Option<InputError>,
    /// For a file of JSON documents (`multiline`), where each record (a line here) is in
    /// the file.
    places: Option<Arc<RecordPlaces>>,
    /// Under Spark's conventions, a line that is an array of objects is a record per
    /// object, as Spark's JSON reader reads it: the current object's bytes in the line...
    element: Option<Range<usize>>,
    /// ...and the objects after it, last first.
    elements: Vec<Range<usize>>,
}

impl JsonLines {
    /// `error` on the first line, saying how to read the file if it looks like JSON
    /// documents rather than lines (an array, or an object the line does not close).
    fn hinting_multiline(&self, mut error: InputError) -> InputError {
        let documents =
            error.message.ends_with("not an array") || error.message.contains("EOF while parsing");
        if self.places.is_none() && self.line_no == 1 && self.base.starts_file() && documents {
            error.message.push_str(
                " (a file of JSON documents rather than lines, an array of objects or objects \
                 over several lines, reads with multiline=True)",
            );
        }
        error
    }

    /// The file's line of line `line` of the input, and of byte `column` of it.
    fn file_place(&self, line: u64, column: Option<usize>) -> (u64, Option<usize>) {
        place_in_file(&self.base, self.places.as_deref(), line, column)
    }

    /// The current record: the line without its line break, or the object of an array
    /// line (`element`).
    fn line(&self) -> &[u8] {
        record_of(&self.lines, &self.element)
    }

    /// Where the current record starts in its line (an array line's object past 0).
    fn record_offset(&self) -> usize {
        self.element.as_ref().map_or(0, |e| e.start)
    }

    /// The file's line and column of byte `column` (1-based) of the current record, and
    /// the line's excerpt there.
    fn place(&self, column: Option<usize>) -> (u64, Option<usize>, String) {
        let column = column.map(|c| c + self.record_offset());
        let text = self.lines.line();
        // (a document's records are placed by their `places`)
        let in_file = match self.places {
            None => column.map(|c| self.base.file_column(text, c)),
            Some(_) => column,
        };
        let (line, file_column) = self.file_place(self.line_no, in_file);
        (line, file_column, excerpt(text, column))
    }

    /// Under Spark's conventions, an NDJSON line (not a document's record) that is an array
    /// of objects: each object a record, as Spark's JSON reader reads the line. `true` if
    /// the line is one, its first object now the record; an empty array is a line of no
    /// records (`is_blank`). Any other array is left whole (bad input: a row is an object).
    fn split_array_line(&mut self) -> bool {
        if self.conventions != Conventions::Spark || self.places.is_some() {
            return false;
        }
        let line = self.lines.line();
        if line.iter().find(|b| !json_fast::is_space(**b)) != Some(&b'[') {
            return false;
        }
        let Some(mut objects) = array_objects(line) else {
            return false;
        };
        objects.reverse();
        self.element = objects.pop().or(Some(0..0));
        self.elements = objects;
        true
    }

    /// Write the current line on the one-pass path if it is the common case: the whole line
    /// if `found` (its end is known), else what the window holds of it. `false`: it is not
    /// (or the window ends before the line does), and the row is restarted.
    #[inline(always)]
    fn try_one_pass(&mut self, l: &mut ResultSetLoader, found: bool) -> bool {
        let (text, ends_input) = if found {
            (record_of(&self.lines, &self.element), true)
        } else {
            self.lines.rest()
        };
        let known = json_fast::Known {
            discover: self.discover,
            new_columns: self.new_columns,
            ignored: &self.ignored,
            ignored_members: &self.ignored_members,
            conventions: self.conventions,
            formats: &self.formats,
            non_numeric: self.syntax.non_numeric,
            empty_strings_null: self.empty_strings_null,
        };
        let written = json_fast::write_common(
            text,
            ends_input,
            l,
            &mut self.keys,
            &mut self.discovery,
            known,
            &mut self.scratch,
        );
        match written.and_then(|len| self.line_read(len, found)) {
            Some(len) => {
                if !found {
                    self.lines.line_is(len);
                }
                self.one_pass_lines += 1;
                true
            }
            None => {
                l.restart_row();
                self.discovery.retry_row();
                false
            }
        }
    }

    /// The length of the line the one-pass path read as the first `len` bytes of the
    /// record (`found`: given whole) or of the window's rest, checked against what ends the lines, which the one-pass
    /// path does not know: it takes white space up to a `\n`, or to the end of a line given
    /// whole. `None` if a line break it took for white space ends the line sooner (a `\r`
    /// under `LineEnds::AnyBreak`, but the one before its `\n`, which ends the line there),
    /// or if a line given whole (`LineEnds::Exact`, where a `\n` is no break) goes on after
    /// that `\n`.
    #[inline]
    fn line_read(&mut self, len: usize, found: bool) -> Option<usize> {
        if found {
            return record_of(&self.lines, &self.element)[len..]
                .iter()
                .all(|&b| json_fast::is_space(b))
                .then_some(len);
        }
        if !matches!(self.lines.ends(), LineEnds::AnyBreak) {
            return Some(len);
        }
        match self.lines.cr_within(len) {
            None => Some(len),
            Some(at) if at + 1 == len => Some(at),
            Some(_) => None,
        }
    }

    /// The current line through serde (the general path), or `edited`, a text in its place
    /// (the line with values nulled, see `write_partial`), into the open row.
    fn write_general(
        &mut self,
        l: &mut ResultSetLoader,
        edited: Option<&str>,
    ) -> Result<(), InputError> {
        // Validate the line once (ASCII runs go word by word) so serde need not check each
        // string it reads.
        let text = match edited {
            Some(text) => text,
            None => match std::str::from_utf8(record_of(&self.lines, &self.element)) {
                Ok(text) => text,
                Err(e) => {
                    let column = e.valid_up_to() + 1;
                    return Err(self.error(
                        Some(column),
                        format!("invalid UTF-8 at byte {column} of the line"),
                    ));
                }
            },
        };
        let how = Respelling::of(self.syntax, self.conventions);
        let respelled = respell_for_serde(text, &mut self.respelled, how);
        let parsed = respelled.unwrap_or(text);
        let mut writer = JsonWriter {
            l,
            discovery: &mut self.discovery,
            keys: &mut self.keys,
            discover: self.discover,
            new_columns: self.new_columns,
            null_type: &self.null_type,
            conventions: self.conventions,
            formats: &self.formats,
            error: None,
            ignored: &mut self.ignored,
            ignored_members: &mut self.ignored_members,
            unnoted: None,
            depth: 0,
            parsed,
            written: respelled.map(|_| text),
            refused_at: None,
            empty_strings_null: self.empty_strings_null,
        };
        let mut de = serde_json::Deserializer::from_str(parsed);
        let parsed = ValueSeed::row(&mut writer)
            .deserialize(&mut de)
            .and_then(|_| de.end());
        // Where a refused value starts (1-based): known for a column that reads values from
        // their text; else serde stood on the value's last byte (its `[` or `{` for an
        // array or object), from which its start is found.
        let refused_at = writer.refused_at.map(|at| at + 1);
        let serde_text = writer.parsed;
        let line = serde_text.as_bytes();
        let refused = writer.error.take();
        let Err(stop) = parsed else {
            return Ok(());
        };
        if edited.is_none() && (refused.is_some() || stop.classify() == Category::Data) {
            // A value refused in a line that is no JSON: the line is malformed whatever its
            // values, as Spark's reader takes it (and its inference, which learns no type
            // from it, where a sample here would have learnt one from the value refused).
            // (Checked on the line as written only: a line edited by `write_partial` is one
            // found to be JSON, some of its values nulled.)
            let mut whole = serde_json::Deserializer::from_str(serde_text);
            let checked = IgnoredAny::deserialize(&mut whole).and_then(|_| whole.end());
            if let Err(syntax) = checked {
                if syntax.classify() != Category::Data {
                    let message = syntax_message(&syntax);
                    return Err(self.hinting_multiline(self.error(Some(syntax.column()), message)));
                }
            }
        }
        let column = refused_at.unwrap_or_else(|| {
            // a value the writer or the visitor refused (a type or range serde checks)
            let refused = refused.is_some() || stop.classify() == Category::Data;
            if refused {
                value_start(line, stop.column())
            } else {
                stop.column()
            }
        });
        match refused {
            Some(e) => {
                // a column named twice: the second key says so better than its value
                let column = if matches!(e, LoaderError::GivenTwice(_)) {
                    key_before(line, column).unwrap_or(column)
                } else {
                    column
                };
                let mut error = loader_error(self, e);
                (error.line, error.column, error.excerpt) = self.place(Some(column));
                Err(self.hinting_multiline(error))
            }
            None => Err(self.hinting_multiline(self.error(Some(column), syntax_message(&stop)))),
        }
    }
}

impl RecordSource for JsonLines {
    fn next_record(&mut self) -> Result<bool, InputError> {
        // the next object of an array line
        if let Some(element) = self.elements.pop() {
            self.element = Some(element);
            return Ok(true);
        }
        self.element = None;
        // the lines before a range are counted for an error only (they are read to count)
        let (path, base, places) = (&self.path, &self.base, self.places.as_deref());
        let line = self.line_no + 1;
        let read_error = |e| io_error(path, place_in_file(base, places, line, None).0, &e);
        if !self.lines.begin_line().map_err(read_error)? {
            return Ok(false);
        }
        self.line_no += 1;
        if let Some(places) = &self.places {
            places.reached(self.line_no);
        }
        // A line that starts an object is left for the one-pass path to find its end; any
        // other (blank, the first, not an object) is found now.
        // (Lines ended by an exact separator are found first: the one-pass path does not
        // look for one; so are lines after one ended by a lone `\r`, which the one-pass path
        // would read past, to give up at the next line's `{`.)
        if self.line_no == 1
            || self.lines.rest().0[0] != b'{'
            || self.lines.after_lone_cr()
            || matches!(self.lines.ends(), LineEnds::Exact(_))
        {
            self.lines.find_end().map_err(read_error)?;
        }
        // A UTF-8 byte order mark (files saved by Windows tools) is not part of the JSON.
        if self.line_no == 1 && self.base.starts_file() && self.line().starts_with(UTF8_BOM) {
            self.lines.drop_prefix(UTF8_BOM.len());
        }
        if self.lines.found() && self.lines.rest().0.first() != Some(&b'{') {
            self.split_array_line();
        }
        Ok(true)
    }

    fn is_blank(&self) -> bool {
        // a line whose end is not found yet starts with `{`; JSON's white space only (a
        // form feed is none: such a line is malformed, as Spark finds it; found by fuzzing);
        // an empty array line (its record empty)
        self.lines.found() && self.line().iter().all(|&b| json_fast::is_space(b))
    }

    fn write(&mut self, l: &mut ResultSetLoader) -> Result<(), InputError> {
        self.discovery.begin_row(l);
        // The common case in one pass (it checks the UTF-8 of the strings it reads); anything
        // else through serde, from the row's start.
        let found = self.lines.found();
        if self.one_pass && self.try_one_pass(l, found) {
            return Ok(());
        }
        if let Err(e) = self.lines.find_end() {
            let error = io_error(&self.path, self.file_place(self.line_no, None).0, &e);
            self.read_error = Some(error.clone());
            return Err(error);
        }
        // A line whose end was not in the window was tried on what the window held: once
        // more whole, or a line longer than a read would always take the general path.
        if self.one_pass && !found && self.try_one_pass(l, true) {
            return Ok(());
        }
        self.write_general(l, None)
    }

    fn take_read_error(&mut self) -> Option<InputError> {
        self.read_error.take()
    }

    /// Under Spark's conventions, a line (not a JSON document's record) that failed on a
    /// value: written again with that value null, until it writes (or fails otherwise), as
    /// Spark's JSON reader keeps partial results. The value nulled is the one that failed,
    /// or the list or map holding it (Spark nulls an array or map for an element's fault):
    /// `{"a": 1, "b": "x"}` into ints keeps `a`, `{"l": [1, "x"]}` nulls `l`, a struct's
    /// member `s.q` only that member. Each value nulled costs a read of the line: a line
    /// with more than `PARTIAL_TRIES` of them is kept alone (its text holds every value).
    fn write_partial(
        &mut self,
        l: &mut ResultSetLoader,
        failed: &InputError,
    ) -> Result<bool, InputError> {
        if self.conventions != Conventions::Spark || self.places.is_some() {
            return Ok(true);
        }
        let Ok(line) = std::str::from_utf8(self.line()) else {
            return Ok(true);
        };
        let how = Respelling::of(self.syntax, self.conventions);
        let mut text = line.to_string();
        let mut respelled = String::new();
        let mut failed = failed.clone();
        let offset = self.record_offset(); // an array line's object: its columns the line's
        for _ in 0..PARTIAL_TRIES {
            // found in the text serde reads (`NaN` as a string, comments as spaces...),
            // whose bytes are where the line has them
            let parsed = respell_for_serde(&text, &mut respelled, how).unwrap_or(&text);
            let Some(range) = failed_value(l, parsed, &failed, offset) else {
                break;
            };
            let range = as_written(parsed.as_bytes(), text.as_bytes(), range);
            text.replace_range(range, "null");
            self.discovery.begin_row(l);
            let Err(e) = self.write_general(l, Some(&text)) else {
                return Ok(true);
            };
            // the row again, empty (discarded with what the try discovered)
            self.discard(l);
            if !l.start_row().map_err(|e| loader_error(self, e))? {
                return Ok(false);
            }
            if e.column == failed.column && e.message == failed.message {
                break; // nulling changed nothing
            }
            failed = e;
        }
        // nothing kept: the tries ran out, or the line failed otherwise (the row is empty)
        Ok(true)
    }

    /// A line that fails leaves nothing it discovered behind (see `Discovery::undo_row`).
    fn discard(&mut self, l: &mut ResultSetLoader) {
        if self.discovery.undo_row(l) {
            self.keys = KeyCache::default();
        }
    }

    fn row_changed_schema(&self, l: &ResultSetLoader) -> bool {
        self.discovery.row_changed_schema(l)
    }

    fn raw(&self) -> String {
        String::from_utf8_lossy(self.line()).into_owned()
    }

    fn error(&self, column: Option<usize>, message: String) -> InputError {
        let (line, column, excerpt) = self.place(column);
        InputError {
            path: self.path.clone(),
            line,
            column,
            message,
            excerpt,
            unreadable: false,
        }
    }

    fn records_read(&self) -> u64 {
        self.line_no
    }

    fn flush(&mut self, l: &mut ResultSetLoader) -> Result<(), LoaderError> {
        self.discovery.settle_nulls(l, &self.null_type)?;
        if !self.retype_nulls {
            // the batch handed over fixes the types it guessed: later values of another
            // type are kept as their JSON text, not refused
            self.discovery.fix_guesses(l);
        }
        Ok(())
    }

    fn forget_columns(&mut self) {
        self.keys = KeyCache::default();
        self.discovery = Discovery::default();
    }

    fn fill_starts(&mut self, l: &mut ResultSetLoader) {
        if self.retype_nulls && self.discovery.forget_null_typed(l) {
            self.keys = KeyCache::default();
        }
    }

    fn ignored_columns(&self) -> &[String] {
        self.ignored.names()
    }

    fn ignored_members(&self) -> &[String] {
        self.ignored_members.names()
    }
}

/// The file's line of line `line` of an input, and of byte `column` of it: the lines of the
/// file before a byte range added (counted only now: an error's), or a record of a file of
/// JSON documents placed by its `places`.
fn place_in_file(
    base: &input::LineBase,
    places: Option<&RecordPlaces>,
    line: u64,
    column: Option<usize>,
) -> (u64, Option<usize>) {
    match places {
        Some(places) => places
            .place(line, column)
            .unwrap_or((places.file_line(), None)),
        None => (base.get() + line, column),
    }
}

/// The current record of `lines`: its line, or the `element` of it (an array line's object).
fn record_of<'l>(lines: &'l LineWindow, element: &Option<Range<usize>>) -> &'l [u8] {
    match element {
        Some(element) => &lines.line()[element.clone()],
        None => lines.line(),
    }
}

/// The byte ranges of the objects of JSON array `line`, if it is one (nothing after it but
/// white space) and every element is an object; `None` otherwise.
fn array_objects(line: &[u8]) -> Option<Vec<Range<usize>>> {
    let text = std::str::from_utf8(line).ok()?;
    let elements: Vec<&serde_json::value::RawValue> = serde_json::from_str(text).ok()?;
    elements
        .iter()
        .map(|e| {
            let start = e.get().as_ptr() as usize - text.as_ptr() as usize;
            e.get()
                .starts_with('{')
                .then_some(start..start + e.get().len())
        })
        .collect()
}

/// How many values of a bad line partial results null, each by reading the line again:
/// past them the line is kept alone (a line of thousands of bad values would otherwise
/// take a time of the square of its length).
const PARTIAL_TRIES: usize = 256;

/// The byte range of `text` (a record starting at byte `offset` of its line) to null for
/// the value `failed` on (Spark's partial results, see `JsonLines::write_partial`): the
/// value at the error's column, or the
/// list or map holding it (each list an element's fault goes through, and a map for its
/// value's); `None` if the error is about no column's value.
fn failed_value(
    l: &ResultSetLoader,
    text: &str,
    failed: &InputError,
    offset: usize,
) -> Option<std::ops::Range<usize>> {
    let path = failed.message.strip_prefix("column '")?;
    let mut id = l.column_by_path(&path[..path.find('\'')?])?;
    let mut climbs = 0;
    while let Some(parent) = l.parent(id) {
        id = match l.kind(parent) {
            ColumnKind::List => parent,
            ColumnKind::Struct => match l.parent(parent) {
                Some(map) if l.kind(map) == ColumnKind::Map => map,
                _ => break,
            },
            _ => break,
        };
        climbs += 1;
    }
    let at = failed.column?.checked_sub(1 + offset)?;
    let start = enclosing_start(text.as_bytes(), at, climbs)?;
    let mut values =
        serde_json::Deserializer::from_str(text.get(start..)?).into_iter::<serde::de::IgnoredAny>();
    values.next()?.ok()?;
    Some(start..start + values.byte_offset())
}

/// The bytes of `written` a value at `range` of its respelling `parsed` takes (see
/// `respell_for_serde`: every byte keeps its place, but a respelled token may be shorter
/// than the bytes it replaces, `-0` as `0 `, `007` as `  7`): the range widened over the
/// bytes either side that the respelling changed.
fn as_written(
    parsed: &[u8],
    written: &[u8],
    range: std::ops::Range<usize>,
) -> std::ops::Range<usize> {
    let (mut start, mut end) = (range.start, range.end);
    while start > 0 && parsed[start - 1] != written[start - 1] {
        start -= 1;
    }
    while end < written.len() && parsed[end] != written[end] {
        end += 1;
    }
    start..end
}

/// Where the array or object `climbs` levels out from byte `at` of `b` (JSON) starts
/// (`at` itself for none).
fn enclosing_start(b: &[u8], at: usize, climbs: usize) -> Option<usize> {
    let mut open = Vec::new();
    let mut i = 0;
    while i < at.min(b.len()) {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'[' | b'{' => open.push(i),
            b']' | b'}' => {
                open.pop();
            }
            _ => {}
        }
        i += 1;
    }
    match climbs {
        0 => (at < b.len()).then_some(at),
        _ => open.len().checked_sub(climbs).map(|k| open[k]),
    }
}

/// Reads one NDJSON file into a loader, batch by batch.
pub type NdjsonReader = RecordReader<JsonLines>;

impl NdjsonReader {
    /// Open `source` (gzip / zstd by suffix), or with `range` only the lines of an
    /// uncompressed `source` that start in it (one split of a file read by several tasks;
    /// errors still give the line number in the whole file). `discover`: unknown fields
    /// become columns.
    pub fn open(
        source: &input::Source,
        range: Option<input::ByteRange>,
        on_error: OnError,
        discover: bool,
    ) -> Result<Self, InputError> {
        // `\n` ends the lines of both conventions' rules where a range starts
        let (lines, base) = input::open_lines(source, range, &LineEnds::Feed)?;
        let mut reader = Self::from_reader(lines, source.name(), on_error, discover);
        reader.src.base = base;
        Ok(reader)
    }

    /// [`Self::open`], the lines ended by `ends` whatever the conventions (Spark's
    /// `lineSep`). A `range` needs `ends` it can start lines at ([`LineEnds::range_separator`]).
    pub fn open_with_line_ends(
        source: &input::Source,
        range: Option<input::ByteRange>,
        on_error: OnError,
        discover: bool,
        ends: LineEnds,
    ) -> Result<Self, InputError> {
        let (lines, base) = input::open_lines(source, range, &ends)?;
        let mut reader = Self::from_reader(lines, source.name(), on_error, discover);
        reader.src.base = base;
        Ok(reader.with_line_ends(ends))
    }

    /// Open `source` as a file of JSON documents rather than lines (Spark's `multiLine`): a
    /// top-level array of objects, or objects over several lines one after the other; each
    /// object is a record (see [`super::json_documents`]). Errors give the file's line and
    /// column. Read whole (no byte ranges).
    pub fn open_documents(
        source: &input::Source,
        on_error: OnError,
        discover: bool,
    ) -> Result<Self, InputError> {
        let (raw, _) = input::open_lines(source, None, &LineEnds::Feed)?;
        Ok(Self::documents_from_reader(
            raw,
            source.name(),
            on_error,
            discover,
        ))
    }

    /// [`Self::open_documents`] over any buffered input (`path` names it in errors).
    pub fn documents_from_reader(
        input: Box<dyn BufRead + Send>,
        path: &str,
        on_error: OnError,
        discover: bool,
    ) -> Self {
        let places = Arc::new(RecordPlaces::default());
        let records = Documents::new(input, Arc::clone(&places));
        let input = Box::new(BufReader::with_capacity(input::READ_BUFFER, records));
        let mut reader = Self::from_reader(input, path, on_error, discover);
        reader.src.places = Some(places);
        reader
    }

    /// Read from any buffered input (`path` names it in errors).
    pub fn from_reader(
        input: Box<dyn BufRead + Send>,
        path: &str,
        on_error: OnError,
        discover: bool,
    ) -> Self {
        let src = JsonLines {
            lines: LineWindow::new(input),
            path: path.to_string(),
            discover,
            new_columns: true,
            null_type: DataType::Utf8,
            conventions: Conventions::Arrow,
            syntax: JsonSyntax::default(),
            formats: TimeFormats::default(),
            discovery: Discovery::default(),
            keys: KeyCache::default(),
            line_no: 0,
            base: input::LineBase::default(),
            ignored: IgnoredNames::default(),
            ignored_members: IgnoredNames::default(),
            retype_nulls: false,
            scratch: Vec::new(),
            respelled: String::new(),
            one_pass: true,
            ends_given: false,
            empty_strings_null: false,
            one_pass_lines: 0,
            read_error: None,
            places: None,
            element: None,
            elements: Vec::new(),
        };
        RecordReader::new(src, on_error)
    }

    /// Let a column seen only as null in a whole batch (which that batch gives the null
    /// type) take its type from a value in a later batch, where by default the null type
    /// stays and such a value is bad input. For consumers that allow the schema to change
    /// between batches.
    pub fn retyping_nulls(mut self, on: bool) -> Self {
        self.src.retype_nulls = on;
        self
    }

    /// Read an empty string (`""`) as a null wherever it is: it types no column, as Spark's
    /// JSON inference takes it (`1` and `""` make a bigint; `""` alone a string, as a
    /// field seen only as null is). For a sample that types columns.
    pub fn empty_strings_as_nulls(mut self, on: bool) -> Self {
        self.src.empty_strings_null = on;
        self
    }

    /// Whether lines are tried on the one-pass path (the default) before the general one;
    /// `false` sends every line through the general path, for checking that both read a
    /// file alike.
    pub fn one_pass(mut self, on: bool) -> Self {
        self.src.one_pass = on;
        self
    }

    /// Give a field null in a whole batch, and the elements of a list seen only empty, the
    /// type `null_type` rather than utf8 (a scan's `null_type`, as Drill's JSON reader's
    /// `nullType`). Only utf8 takes later values of other types as their JSON text.
    pub fn with_null_type(mut self, null_type: DataType) -> Self {
        self.src.null_type = null_type;
        self
    }

    /// Convert declared types by `conventions` where Arrow's rules and Spark's JSON reader
    /// differ (a number into a timestamp, a string into binary; Arrow's by default). Unless
    /// `with_line_ends` gave them, lines end as the conventions' readers end them: at `\n`
    /// (JSON Lines'), or under Spark's at `\n`, `\r` or `\r\n` (Hadoop's text lines).
    pub fn with_conventions(mut self, conventions: Conventions) -> Self {
        self.src.conventions = conventions;
        if !self.src.ends_given && self.src.places.is_none() {
            let ends = match conventions {
                Conventions::Spark => LineEnds::AnyBreak,
                Conventions::Arrow => LineEnds::Feed,
            };
            self.set_line_ends(ends);
        }
        self
    }

    /// Lines end at `ends` whatever the conventions (Spark's `lineSep` is
    /// `LineEnds::Exact`). Before the first line is read; for a byte range, give them to
    /// [`Self::open_with_line_ends`]. Not for JSON documents (`open_documents`), whose
    /// records are not lines of the file.
    pub fn with_line_ends(mut self, ends: LineEnds) -> Self {
        assert!(
            self.src.places.is_none(),
            "JSON documents have no line ends to give"
        );
        self.src.ends_given = true;
        self.set_line_ends(ends);
        self
    }

    fn set_line_ends(&mut self, ends: LineEnds) {
        let base = std::mem::take(&mut self.src.base);
        self.src.base = base.ended_by(ends.clone());
        self.src.lines.set_ends(ends);
    }

    /// Take the JSON `syntax` allows beyond the standard's (Spark's `allowComments`,
    /// `allowNumericLeadingZeros`, `allowNonNumericNumbers`, `allowSingleQuotes`).
    pub fn with_syntax(mut self, syntax: JsonSyntax) -> Self {
        self.src.syntax = syntax;
        self
    }

    /// Read date and timestamp strings by the patterns `formats` gives (Spark's
    /// `dateFormat`, `timestampFormat`, `timestampNTZFormat`) instead of the conventions'
    /// reading.
    pub fn with_time_formats(mut self, formats: TimeFormats) -> Self {
        self.src.formats = formats;
        self
    }

    /// Lines the one-pass path wrote so far.
    pub fn one_pass_lines(&self) -> u64 {
        self.src.one_pass_lines
    }

    /// From the next line on, fields without a column are skipped rather than made
    /// columns, and noted: top-level ones in `ignored_columns`, struct members (`m.x`) in
    /// `ignored_members` (a member of a struct typed by a guess is still made a text column,
    /// see `json::may_become_column`). A consumer whose columns the batches so far fixed
    /// would drop them, and a value of mixed types in one would fail its line for nothing.
    pub fn stop_adding_columns(&mut self) {
        if std::mem::replace(&mut self.src.new_columns, false) {
            self.src.keys = KeyCache::default(); // keys cached as fields to come
        }
    }
}

/// The column (1-based) where the JSON value whose last byte is at `column` starts: a
/// string's opening quote, a number's or literal's first byte, an empty array's or
/// object's opening bracket (serde refuses those at their end). Any other byte (an array's
/// or object's `[` or `{`, which serde stands on when it refuses one) is its own start.
/// `text` is valid JSON up to `column` (serde read the value).
fn value_start(text: &[u8], column: usize) -> usize {
    let Some(last) = column.checked_sub(1).filter(|&at| at < text.len()) else {
        return column;
    };
    let scalar = |c: &u8| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'+' | b'.');
    if text[last] == b'"' {
        // the opening quote: the nearest `"` before that no odd run of `\` escapes
        let mut end = last;
        while let Some(quote) = memchr::memrchr(b'"', &text[..end]) {
            let escapes = text[..quote]
                .iter()
                .rev()
                .take_while(|&&c| c == b'\\')
                .count();
            if escapes % 2 == 0 {
                return quote + 1;
            }
            end = quote;
        }
        column
    } else if scalar(&text[last]) {
        let run = text[..last].iter().rev().take_while(|c| scalar(c)).count();
        last - run + 1
    } else if matches!(text[last], b']' | b'}') {
        // an empty array or object (serde refuses it at its end): its opening bracket
        let open = text[..last].iter().rposition(|c| !c.is_ascii_whitespace());
        match open {
            Some(at) if matches!((text[at], text[last]), (b'[', b']') | (b'{', b'}')) => at + 1,
            _ => column,
        }
    } else {
        column
    }
}

/// The column (1-based) of the key of the object member whose value starts at `column`: the
/// key's opening quote. `None` if no key comes before the value (an array element).
fn key_before(text: &[u8], column: usize) -> Option<usize> {
    let is_space = |c: &u8| matches!(c, b' ' | b'\t' | b'\n' | b'\r');
    let before = text.get(..column.checked_sub(1)?)?;
    let colon = before.iter().rposition(|c| !is_space(c))?;
    if before[colon] != b':' {
        return None;
    }
    let close = before[..colon].iter().rposition(|c| !is_space(c))?;
    (before[close] == b'"').then(|| value_start(text, close + 1))
}

/// What is wrong with a line that is not JSON text (serde_json's message, said plainly,
/// without its position in the line: the error's line and column say where).
fn syntax_message(e: &serde_json::Error) -> String {
    let mut text = e.to_string();
    let place = format!(" at line {} column {}", e.line(), e.column());
    if text.ends_with(&place) {
        text.truncate(text.len() - place.len());
    }
    if text.starts_with(TOO_DEEP) {
        text
    } else if text.contains("surrogate") || text.contains("unexpected end of hex escape") {
        // the line was valid UTF-8: an escape is the one way left to name no character
        "invalid escape in a string: a \\u escape names half of a surrogate pair, which is \
         no character (UTF-8 cannot hold it)"
            .to_string()
    } else if text.contains("unicode") || text.contains("escape") {
        format!("invalid UTF-8 or escape in a string: {text}")
    } else {
        format!("malformed JSON: {text}")
    }
}

#[cfg(test)]
mod tests {
    use super::{key_before, value_start};

    /// From the last byte of each kind of value (after other values, escapes and quotes
    /// earlier in the line), the start found is where the value was put.
    #[test]
    fn a_value_is_found_back_from_its_last_byte() {
        let values = [
            r#""plain""#,
            r#""a\"b""#,
            r#""\\""#,
            r#""x\\\"y\\""#,
            r#""""#,
            r#""é\u00e9""#,
            "-1.5e+10",
            "0",
            "true",
            "null",
        ];
        for value in values {
            for before in [r#"{"k": "#, r#"{"q": "\"", "k": ["#, r#"{"k":"#] {
                let line = format!("{before}{value}, 1]");
                let start = before.len() + 1;
                let last = before.len() + value.len();
                assert_eq!(value_start(line.as_bytes(), last), start, "{line}");
            }
        }
        // an array or object is named by its first byte, where serde stands
        assert_eq!(value_start(br#"{"k": [1]}"#, 7), 7);
        assert_eq!(value_start(br#"{"k": {"a": 1}}"#, 7), 7);
        // an empty one, refused at its end
        assert_eq!(value_start(br#"{"k": []}"#, 8), 7);
        assert_eq!(value_start(br#"{"k": { }}"#, 9), 7);
        assert_eq!(value_start(br#"{"k": [1]}"#, 9), 9);
    }

    /// From a member's value, its key's opening quote (escaped quotes and a `:` inside
    /// the key, any whitespace around the colon); nothing from an array element.
    #[test]
    fn a_key_is_found_back_from_its_value() {
        for (line, key, value) in [
            (r#"{"a": 1, "a": 2}"#, 10, 15),
            (r#"{"a":1,"a" :	"x"}"#, 8, 14),
            (r#"{"q\":\"": 1, "k\"": [1]}"#, 15, 22),
        ] {
            assert_eq!(key_before(line.as_bytes(), value), Some(key), "{line}");
        }
        assert_eq!(key_before(br#"{"l": [1, 2]}"#, 11), None);
        assert_eq!(key_before(br#"{"l": [1]}"#, 8), None);
        assert_eq!(key_before(br#"1"#, 1), None);
    }
}
