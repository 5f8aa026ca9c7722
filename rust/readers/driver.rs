//! What every record-oriented reader shares: filling a batch record by record, a record that
//! found the batch full kept for the next one, and the bad-input policy (raise, skip, or keep
//! the raw record in `_corrupt_record`).

use std::collections::HashSet;
use std::fmt;
use std::io;
use std::sync::Arc;

use arrow_schema::{DataType, Field};

use super::json_documents::MalformedDocuments;
use crate::loader::{LoaderError, ResultSetLoader, Value, ROOT};

/// The column that keeps a malformed record whole under `OnError::Permissive`, unless a
/// reader is told another (`RecordReader::with_corrupt_column`).
pub const CORRUPT_RECORD: &str = "_corrupt_record";

/// What to do with a record that cannot be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnError {
    /// Stop with an [`InputError`].
    Error,
    /// Count the record as skipped and go on.
    Skip,
    /// Keep the raw record in `_corrupt_record`, the other columns null.
    Permissive,
}

impl OnError {
    /// `"error"`, `"skip"` or `"permissive"`.
    pub fn parse(s: &str) -> Option<OnError> {
        match s {
            "error" => Some(OnError::Error),
            "skip" => Some(OnError::Skip),
            "permissive" => Some(OnError::Permissive),
            _ => None,
        }
    }
}

/// Bad input: which file, line and byte column, why, and a short excerpt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    /// The file, as the scan was given it.
    pub path: String,
    /// 1-based line number (0 when the file could not be opened at all).
    pub line: u64,
    /// 1-based byte column within the line, when known.
    pub column: Option<usize>,
    /// What is wrong, said plainly (without the place, which the other fields give).
    pub message: String,
    /// About 30 characters of the line either side of `column` (its start if unknown).
    pub excerpt: String,
    /// The file could not be read from here on (opened, decompressed or fetched), as
    /// opposed to bad text in it: what Spark's `ignoreCorruptFiles` passes over.
    pub unreadable: bool,
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path)?;
        if self.line > 0 {
            write!(f, ", line {}", self.line)?;
        }
        if let Some(c) = self.column {
            write!(f, ", column {c}")?;
        }
        write!(f, ": {}", self.message)?;
        if !self.excerpt.is_empty() {
            write!(f, " (near {:?})", self.excerpt)?;
        }
        Ok(())
    }
}

/// A read stopped by bad input or by misuse of the loader.
#[derive(Debug)]
pub enum ReadError {
    /// The input is bad (under `OnError::Error`, or an error no policy skips).
    Input(InputError),
    /// The loader failed outside any one record (its lifecycle misused, say).
    Loader(LoaderError),
}

impl std::error::Error for InputError {}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Input(e) => e.fmt(f),
            ReadError::Loader(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ReadError {}

impl From<LoaderError> for ReadError {
    fn from(e: LoaderError) -> Self {
        ReadError::Loader(e)
    }
}

/// Up to 60 characters of `text` around `column`.
pub(crate) fn excerpt(text: &[u8], column: Option<usize>) -> String {
    const CHARS: usize = 30;
    // Only the bytes that can hold the excerpt are decoded (a char is at most 4 bytes): a
    // record of hundreds of megabytes must not be copied for its error message.
    let at = column.unwrap_or(1).saturating_sub(1).min(text.len());
    let (before, after) = text.split_at(at);
    let mut before = &before[before.len().saturating_sub(4 * CHARS + 3)..];
    while before.first().is_some_and(|b| b & 0xC0 == 0x80) && before.len() > 4 * CHARS {
        before = &before[1..]; // start on a char, not inside one cut by the window
    }
    let after = &after[..after.len().min(4 * CHARS)];
    let before = String::from_utf8_lossy(before);
    let skip = before.chars().count().saturating_sub(CHARS);
    before
        .chars()
        .skip(skip)
        .chain(String::from_utf8_lossy(after).chars().take(CHARS))
        .collect()
}

/// An input error for an I/O failure while reading record `line` of `path`.
pub(crate) fn io_error(path: &str, line: u64, e: &io::Error) -> InputError {
    if let Some(fault) = e
        .get_ref()
        .and_then(|e| e.downcast_ref::<MalformedDocuments>())
    {
        // placed where the file has it, not at the record being read
        return InputError {
            path: path.to_string(),
            line: fault.line,
            column: Some(fault.column as usize),
            message: fault.message.to_string(),
            excerpt: fault.excerpt.clone(),
            unreadable: false,
        };
    }
    let what = match e.kind() {
        io::ErrorKind::UnexpectedEof => "the file is truncated (compressed stream ends early)",
        io::ErrorKind::InvalidData | io::ErrorKind::InvalidInput => {
            "the compressed stream is corrupt"
        }
        _ => "read failed",
    };
    InputError {
        path: path.to_string(),
        line,
        column: None,
        message: format!("{what}: {e}"),
        excerpt: String::new(),
        unreadable: true,
    }
}

/// A source of records: the format-specific half of a reader.
pub(crate) trait RecordSource {
    /// Read the next record; `Ok(false)` at the end of the input.
    fn next_record(&mut self) -> Result<bool, InputError>;
    /// Whether the current record is blank (skipped without a row).
    fn is_blank(&self) -> bool;
    /// Write the current record into the open row (not saving it).
    fn write(&mut self, l: &mut ResultSetLoader) -> Result<(), InputError>;
    /// The current record failed (in `write` or at the commit): discard its row, if still
    /// open, and whatever writing it changed.
    fn discard(&mut self, l: &mut ResultSetLoader) {
        if l.row_open() {
            l.discard_row();
        }
    }
    /// The input could not be read while `write` looked for the rest of the current
    /// record: the error that stops the read (no `OnError` policy applies to it).
    fn take_read_error(&mut self) -> Option<InputError> {
        None
    }
    /// Whether writing the current record changed the loader's schema (a column added,
    /// widened or retyped): if the row overflowed, it is written again at the start of the
    /// next batch rather than moved (see `ResultSetLoader::save_row_unless_moved`).
    fn row_changed_schema(&self, _l: &ResultSetLoader) -> bool {
        false
    }
    /// The current record, bad input (`failed` says why) kept in `_corrupt_record`: write
    /// into the open row the values of it its format keeps beside the raw record (Spark's
    /// readers keep the values that convert). By default none: the other columns are null.
    /// `Ok(false)`: the batch filled while trying, and the row is not open.
    fn write_partial(
        &mut self,
        _l: &mut ResultSetLoader,
        _failed: &InputError,
    ) -> Result<bool, InputError> {
        Ok(true)
    }
    /// The current record as text, for `_corrupt_record`.
    fn raw(&self) -> String;
    /// An input error about the current record.
    fn error(&self, column: Option<usize>, message: String) -> InputError;
    /// Records read so far (blank ones included).
    fn records_read(&self) -> u64;
    /// The batch is about to be handed over (full, or the input is done).
    fn flush(&mut self, _l: &mut ResultSetLoader) -> Result<(), LoaderError> {
        Ok(())
    }
    /// Forget what was learnt about a loader's columns (a different loader is used now).
    fn forget_columns(&mut self) {}
    /// A fill starts: the loader's batch may be a new one since the last `flush`.
    fn fill_starts(&mut self, _l: &mut ResultSetLoader) {}
    /// Top-level fields of the input skipped because the projection leaves them out, in
    /// first-seen order (a scan with a fixed wildcard schema warns about them).
    fn ignored_columns(&self) -> &[String] {
        &[]
    }
    /// Struct members of the input (by path, `m.x`) the projection wants but the loader's
    /// fixed schema lacks, skipped, in first-seen order (a scan warns about them).
    fn ignored_members(&self) -> &[String] {
        &[]
    }
}

/// Top-level fields of an input skipped because the projection leaves them out: each once,
/// in first-seen order. A set beside the list: a file may skip thousands of names, asked
/// for on every line whose keys the key cache did not expect.
#[derive(Default)]
pub(crate) struct IgnoredNames {
    names: Vec<String>,
    seen: HashSet<String>,
}

impl IgnoredNames {
    /// Remember `name` as skipped (once).
    pub fn note(&mut self, name: &str) {
        if !self.seen.contains(name) {
            self.seen.insert(name.to_string());
            self.names.push(name.to_string());
        }
    }

    /// Whether `name` was noted.
    pub fn contains(&self, name: &str) -> bool {
        self.seen.contains(name)
    }

    /// The names noted, in first-seen order.
    pub fn names(&self) -> &[String] {
        &self.names
    }
}

/// How many bad records' errors a reader keeps (`RecordReader::bad_records`): the first.
pub const BAD_RECORDS_KEPT: usize = 100;

/// The record loop and the bad-input policy, around a [`RecordSource`].
pub(crate) struct Driver {
    on_error: OnError,
    /// The current record found the batch full: write it first thing next time.
    pending: bool,
    /// ... as a corrupt record, which failed so.
    pending_corrupt: Option<InputError>,
    pub skipped: u64,
    /// Records kept whole in `_corrupt_record` (`OnError::Permissive`).
    pub kept: u64,
    pub rows: u64,
    /// The errors of the first `BAD_RECORDS_KEPT` records skipped or kept as bad.
    pub bad: Vec<InputError>,
    /// The column bad records are kept in (`CORRUPT_RECORD` unless told otherwise).
    corrupt_column: String,
}

impl Driver {
    pub fn new(on_error: OnError) -> Self {
        Driver {
            on_error,
            pending: false,
            pending_corrupt: None,
            skipped: 0,
            kept: 0,
            rows: 0,
            bad: Vec::new(),
            corrupt_column: CORRUPT_RECORD.to_string(),
        }
    }

    /// Fill the loader's current batch from `src`. `Ok(true)`: the batch filled up and input
    /// remains; `Ok(false)`: the input is done.
    pub fn fill<S: RecordSource>(
        &mut self,
        src: &mut S,
        l: &mut ResultSetLoader,
    ) -> Result<bool, ReadError> {
        loop {
            if !self.pending {
                if !src.next_record().map_err(ReadError::Input)? {
                    src.flush(l)?;
                    return Ok(false);
                }
                if src.is_blank() {
                    continue;
                }
                self.pending = true;
            }
            if !l.start_record()? {
                src.flush(l)?;
                return Ok(true);
            }
            self.pending = false;
            if let Some(failed) = self.pending_corrupt.take() {
                self.write_corrupt(src, l, failed)?;
                continue;
            }
            let written = src.write(l).and_then(|_| {
                let saved = if src.row_changed_schema(l) {
                    l.save_row_unless_moved()
                } else {
                    l.save_row().map(|_| true)
                };
                saved.map_err(|e| loader_error(src, e))
            });
            match written {
                Ok(true) => self.rows += 1,
                Ok(false) => {
                    src.discard(l);
                    return self.write_again_in_the_next_batch(src, l);
                }
                Err(e) => {
                    // a row that overflowed having changed the schema may have failed on a
                    // type its own values had just given a column: written again first in
                    // the next batch, once the consumer has fixed that batch's schema, it
                    // may read (where it fails again, it is bad input then)
                    let again = l.row_moved() && src.row_changed_schema(l);
                    src.discard(l);
                    if let Some(failed) = src.take_read_error() {
                        return Err(ReadError::Input(failed));
                    }
                    if again {
                        return self.write_again_in_the_next_batch(src, l);
                    }
                    self.on_bad_record(src, l, e)?;
                }
            }
        }
    }

    /// The row being written overflowed having changed the schema (added, widened or
    /// retyped a column), and was discarded with what it discovered: the batch set aside is
    /// handed over without it, and the row is written again first in the next batch, after
    /// the consumer has seen that batch's schema (a scan fixes its guesses then), as it
    /// would be had the batch ended just before it. `Ok(true)`: the batch is full.
    fn write_again_in_the_next_batch<S: RecordSource>(
        &mut self,
        src: &mut S,
        l: &mut ResultSetLoader,
    ) -> Result<bool, ReadError> {
        self.pending = true;
        src.flush(l)?;
        Ok(true)
    }

    fn on_bad_record<S: RecordSource>(
        &mut self,
        src: &mut S,
        l: &mut ResultSetLoader,
        e: InputError,
    ) -> Result<(), ReadError> {
        let skip = match self.on_error {
            OnError::Error => return Err(ReadError::Input(e)),
            OnError::Skip => true,
            OnError::Permissive => false,
        };
        if self.bad.len() < BAD_RECORDS_KEPT {
            self.bad.push(e.clone());
        }
        if skip {
            self.skipped += 1;
            Ok(())
        } else if l.start_row()? {
            self.write_corrupt(src, l, e)
        } else {
            self.keep_pending(e);
            Ok(())
        }
    }

    /// Keep the current record, which failed so, whole in `_corrupt_record` (the row is
    /// open), beside what of it the source keeps (`write_partial`): the batch may fill
    /// meanwhile, and the record is kept first thing in the next.
    fn write_corrupt<S: RecordSource>(
        &mut self,
        src: &mut S,
        l: &mut ResultSetLoader,
        failed: InputError,
    ) -> Result<(), ReadError> {
        let mut partial = true;
        loop {
            if partial {
                match src.write_partial(l, &failed) {
                    Ok(true) => {}
                    Ok(false) => {
                        self.keep_pending(failed);
                        return Ok(());
                    }
                    Err(e) => {
                        if l.row_open() {
                            src.discard(l);
                        }
                        return Err(ReadError::Input(e));
                    }
                }
            }
            let name = &self.corrupt_column;
            let id = match l.column(ROOT, name) {
                Some(id) => id,
                None => l.add_column(ROOT, Arc::new(Field::new(name, DataType::Utf8, true)))?,
            };
            let text = src.raw();
            let Err(e) = l.set(id, Value::Str(&text)).and_then(|_| l.save_row()) else {
                break;
            };
            if l.row_open() {
                src.discard(l);
            }
            if !(partial && matches!(e, LoaderError::RowTooLarge(_))) {
                return Err(ReadError::Input(loader_error(src, e)));
            }
            // the values kept beside the record made the row too large: the record alone
            partial = false;
            if !l.start_row()? {
                self.keep_pending(failed);
                return Ok(());
            }
        }
        self.rows += 1;
        self.kept += 1;
        Ok(())
    }

    /// The current record, bad input, waits for the next batch (this one is full).
    fn keep_pending(&mut self, failed: InputError) {
        self.pending = true;
        self.pending_corrupt = Some(failed);
    }
}

/// A loader error while writing the current record, as an input error about it.
#[cold]
#[inline(never)]
pub(crate) fn loader_error<S: RecordSource>(src: &S, e: LoaderError) -> InputError {
    match e {
        LoaderError::RowTooLarge(m) => src.error(
            None,
            format!("the record is larger than the batch limits allow: {m}"),
        ),
        e => src.error(None, e.to_string()),
    }
}

/// A reader: a record source driven into a loader, a batch per `fill`.
pub struct RecordReader<S> {
    pub(crate) src: S,
    pub(crate) driver: Driver,
    /// The loader the source's column caches refer to.
    loader: Option<u64>,
}

#[allow(private_bounds)]
impl<S: RecordSource> RecordReader<S> {
    pub(crate) fn new(src: S, on_error: OnError) -> Self {
        RecordReader {
            src,
            driver: Driver::new(on_error),
            loader: None,
        }
    }

    /// Keep bad records (`OnError::Permissive`) in column `name` rather than
    /// `_corrupt_record` (Spark's `columnNameOfCorruptRecord`).
    pub fn with_corrupt_column(mut self, name: &str) -> Self {
        self.driver.corrupt_column = name.to_string();
        self
    }

    /// Fill the loader's current batch. Returns `true` if the batch filled up and more input
    /// remains (harvest, start the next batch, call again), `false` at the end of the input.
    pub fn fill(&mut self, l: &mut ResultSetLoader) -> Result<bool, ReadError> {
        if self.loader != Some(l.instance_id()) {
            self.src.forget_columns();
            self.loader = Some(l.instance_id());
        }
        self.src.fill_starts(l);
        self.driver.fill(&mut self.src, l)
    }

    /// Records skipped as bad (`OnError::Skip`).
    pub fn skipped_lines(&self) -> u64 {
        self.driver.skipped
    }

    /// Records kept whole in `_corrupt_record` as bad (`OnError::Permissive`); the row is
    /// there even if the loader's projection leaves that column out.
    pub fn corrupt_lines(&self) -> u64 {
        self.driver.kept
    }

    /// The errors of the first [`BAD_RECORDS_KEPT`] records skipped or kept in
    /// `_corrupt_record` (`OnError::Skip`, `OnError::Permissive`): why each was bad, where.
    pub fn bad_records(&self) -> &[InputError] {
        &self.driver.bad
    }

    /// Records read so far (blank lines and a CSV header included).
    pub fn lines_read(&self) -> u64 {
        self.src.records_read()
    }

    /// Rows written so far (corrupt records included).
    pub fn rows_written(&self) -> u64 {
        self.driver.rows
    }

    /// Top-level fields skipped because the loader's projection leaves them out.
    pub fn ignored_columns(&self) -> &[String] {
        self.src.ignored_columns()
    }

    /// Struct members skipped because the loader's fixed schema lacks them, by path.
    pub fn ignored_members(&self) -> &[String] {
        self.src.ignored_members()
    }
}
