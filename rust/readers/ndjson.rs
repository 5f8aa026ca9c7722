//! The NDJSON reader: one JSON object per line, parsed straight into the loader, a batch at a
//! time; bad lines raise, are skipped, or are kept whole in `_corrupt_record`.

use std::fmt;
use std::io::{self, BufRead};
use std::sync::Arc;

use arrow_schema::{DataType, Field};
use serde::de::DeserializeSeed;

use super::input;
use super::json::{JsonWriter, KeyCache, ValueSeed};
use crate::loader::{Discovery, LoaderError, ResultSetLoader, Value, ROOT};

/// The column that keeps a malformed line whole under `OnError::Permissive`.
pub const CORRUPT_RECORD: &str = "_corrupt_record";

/// What to do with a line that cannot be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnError {
    /// Stop with an [`InputError`].
    Error,
    /// Count the line as skipped and go on.
    Skip,
    /// Keep the raw line in `_corrupt_record`, the other columns null.
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
    pub path: String,
    /// 1-based line number (0 when the file could not be opened or read at all).
    pub line: u64,
    /// 1-based byte column within the line, when known.
    pub column: Option<usize>,
    pub message: String,
    pub excerpt: String,
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
    Input(InputError),
    Loader(LoaderError),
}

impl From<LoaderError> for ReadError {
    fn from(e: LoaderError) -> Self {
        ReadError::Loader(e)
    }
}

fn excerpt(line: &[u8], column: Option<usize>) -> String {
    let text = String::from_utf8_lossy(line);
    let chars: Vec<char> = text.chars().collect();
    let at = column.unwrap_or(1).saturating_sub(1).min(chars.len());
    let start = at.saturating_sub(30);
    let end = (at + 30).min(chars.len());
    chars[start..end].iter().collect()
}

/// Reads one NDJSON file into a loader, batch by batch.
pub struct NdjsonReader {
    input: Box<dyn BufRead + Send>,
    path: String,
    on_error: OnError,
    discover: bool,
    discovery: Discovery,
    keys: KeyCache,
    line: Vec<u8>,
    line_no: u64,
    /// `line` holds a line not yet written (it found the batch full).
    pending: bool,
    /// ... and it is to be written as a corrupt record.
    pending_corrupt: bool,
    skipped: u64,
    rows: u64,
}

impl NdjsonReader {
    /// Open `path` (gzip / zstd by suffix). `discover`: unknown fields become columns.
    pub fn open(path: &str, on_error: OnError, discover: bool) -> Result<Self, InputError> {
        let input = input::open(path).map_err(|e| InputError {
            path: path.to_string(),
            line: 0,
            column: None,
            message: format!("cannot open: {e}"),
            excerpt: String::new(),
        })?;
        Ok(Self::from_reader(input, path, on_error, discover))
    }

    /// Read from any buffered input (`path` names it in errors).
    pub fn from_reader(
        input: Box<dyn BufRead + Send>,
        path: &str,
        on_error: OnError,
        discover: bool,
    ) -> Self {
        NdjsonReader {
            input,
            path: path.to_string(),
            on_error,
            discover,
            discovery: Discovery::default(),
            keys: KeyCache::default(),
            line: Vec::with_capacity(4096),
            line_no: 0,
            pending: false,
            pending_corrupt: false,
            skipped: 0,
            rows: 0,
        }
    }

    /// Lines skipped as bad (`OnError::Skip`).
    pub fn skipped_lines(&self) -> u64 {
        self.skipped
    }

    /// Lines read so far (blank ones included).
    pub fn lines_read(&self) -> u64 {
        self.line_no
    }

    /// Rows written so far (corrupt records included).
    pub fn rows_written(&self) -> u64 {
        self.rows
    }

    fn error(&self, column: Option<usize>, message: String) -> InputError {
        InputError {
            path: self.path.clone(),
            line: self.line_no,
            column,
            message,
            excerpt: excerpt(&self.line, column),
        }
    }

    fn read_line(&mut self) -> Result<bool, InputError> {
        self.line.clear();
        let n = self.input.read_until(b'\n', &mut self.line).map_err(|e| {
            let what = match e.kind() {
                io::ErrorKind::UnexpectedEof => {
                    "the file is truncated (compressed stream ends early)"
                }
                io::ErrorKind::InvalidData | io::ErrorKind::InvalidInput => {
                    "the compressed stream is corrupt"
                }
                _ => "read failed",
            };
            InputError {
                path: self.path.clone(),
                line: self.line_no + 1,
                column: None,
                message: format!("{what}: {e}"),
                excerpt: String::new(),
            }
        })?;
        if n == 0 {
            return Ok(false);
        }
        self.line_no += 1;
        while matches!(self.line.last(), Some(b'\n' | b'\r')) {
            self.line.pop();
        }
        Ok(true)
    }

    /// Fill the loader's current batch. Returns `true` if the batch filled up and more input
    /// remains (harvest, start the next batch, call again), `false` at the end of the file.
    pub fn fill(&mut self, l: &mut ResultSetLoader) -> Result<bool, ReadError> {
        loop {
            if !self.pending {
                if !self.read_line().map_err(ReadError::Input)? {
                    return Ok(false);
                }
                if self.line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                self.pending = true;
            }
            if !l.start_row()? {
                return Ok(true);
            }
            self.pending = false;
            if std::mem::take(&mut self.pending_corrupt) {
                self.write_corrupt(l)?;
                continue;
            }
            if let Err(e) = self.write_line(l) {
                if l.row_open() {
                    l.discard_row();
                }
                self.on_bad_line(l, e)?;
            }
        }
    }

    fn write_line(&mut self, l: &mut ResultSetLoader) -> Result<(), InputError> {
        let mut writer = JsonWriter {
            l,
            discovery: &mut self.discovery,
            keys: &mut self.keys,
            discover: self.discover,
            error: None,
        };
        let mut de = serde_json::Deserializer::from_slice(&self.line);
        let parsed = ValueSeed::row(&mut writer)
            .deserialize(&mut de)
            .and_then(|_| de.end());
        let loader_error = writer.error.take();
        match (parsed, loader_error) {
            (Ok(()), _) => {}
            (Err(_), Some(e)) => return Err(self.loader_error(e)),
            (Err(e), None) => {
                let message =
                    if e.to_string().contains("unicode") || e.to_string().contains("UTF-8") {
                        format!("invalid UTF-8 or escape in a string: {e}")
                    } else {
                        format!("malformed JSON: {e}")
                    };
                return Err(self.error(Some(e.column()), message));
            }
        }
        l.save_row().map_err(|e| self.loader_error(e))?;
        self.rows += 1;
        Ok(())
    }

    fn loader_error(&self, e: LoaderError) -> InputError {
        match e {
            LoaderError::RowTooLarge(m) => self.error(
                None,
                format!("the line is larger than the batch limits allow: {m}"),
            ),
            e => self.error(None, e.to_string()),
        }
    }

    fn on_bad_line(&mut self, l: &mut ResultSetLoader, e: InputError) -> Result<(), ReadError> {
        match self.on_error {
            OnError::Error => Err(ReadError::Input(e)),
            OnError::Skip => {
                self.skipped += 1;
                Ok(())
            }
            OnError::Permissive => {
                if l.start_row()? {
                    self.write_corrupt(l)
                } else {
                    self.pending = true;
                    self.pending_corrupt = true;
                    Ok(())
                }
            }
        }
    }

    /// Keep the current line whole in `_corrupt_record` (the row is open).
    fn write_corrupt(&mut self, l: &mut ResultSetLoader) -> Result<(), ReadError> {
        let id = match l.column(ROOT, CORRUPT_RECORD) {
            Some(id) => id,
            None => l.add_column(
                ROOT,
                Arc::new(Field::new(CORRUPT_RECORD, DataType::Utf8, true)),
            )?,
        };
        let text = String::from_utf8_lossy(&self.line).into_owned();
        let written = l.set(id, Value::Str(&text)).and_then(|_| l.save_row());
        if let Err(e) = written {
            if l.row_open() {
                l.discard_row();
            }
            return Err(ReadError::Input(self.loader_error(e)));
        }
        self.rows += 1;
        Ok(())
    }
}
