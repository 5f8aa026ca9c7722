//! Python access to the Rust readers: fill a loader's batch from a file, GIL released.

use arrow_schema::DataType;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyDict};

use super::arrow::type_from_py;
use super::errors::to_pyerr;
use super::writers::PyResultSetLoader;
use crate::readers::csv_inference::InferenceOptions;
use crate::readers::input::{is_compressed, ByteRange, Charset, LineEnds, Opener, Source};
use crate::readers::{
    Conventions, CsvOptions, CsvReader, FloatTexts, HeaderNames, InputError, JsonSyntax,
    NdjsonReader, OnError, ReadError, SparkFields, TimeFormats, TimePattern,
};

static INPUT_ERROR: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// `batchloader.InputError(message, path=..., line=..., column=..., reason=..., excerpt=...,
/// unreadable=...)`
/// (defined in Python, next to the other Python errors), as an object.
fn input_error_object<'py>(py: Python<'py>, e: &InputError) -> PyResult<Bound<'py, PyAny>> {
    let class = INPUT_ERROR.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        Ok(py
            .import("batchloader.errors")?
            .getattr("InputError")?
            .unbind())
    })?;
    let place = PyDict::new(py);
    place.set_item("path", &e.path)?;
    place.set_item("line", e.line)?;
    place.set_item("column", e.column)?;
    place.set_item("reason", &e.message)?;
    place.set_item("excerpt", &e.excerpt)?;
    place.set_item("unreadable", e.unreadable)?;
    class.bind(py).call((e.to_string(),), Some(&place))
}

/// `e` raised as a `batchloader.InputError`, with the Python exception that caused it.
fn input_error(py: Python<'_>, e: InputError, cause: &Failure) -> PyErr {
    let err = match input_error_object(py, &e) {
        Ok(err) => PyErr::from_value(err),
        Err(err) => err,
    };
    // the Python exception the opener or its file raised, if that is what failed (its text
    // is the error's; a failure swallowed on the way, a line count for a message, is not)
    let cause = cause.lock().unwrap_or_else(|p| p.into_inner()).take();
    if let Some((cause, text)) = cause {
        if e.message.contains(&text) {
            err.set_cause(py, Some(cause));
        }
    }
    err
}

/// The last exception a Python opener, or a file it opened, raised: the cause of the
/// `InputError` that reading then fails with (its type and attributes kept, not only its
/// text).
type Failure = std::sync::Arc<std::sync::Mutex<Option<(PyErr, String)>>>;

/// `e` noted as the reader's failure, and as the I/O error reading fails with.
fn failed(failure: &Failure, e: PyErr) -> std::io::Error {
    let text = e.to_string();
    let io = std::io::Error::other(text.clone());
    *failure.lock().unwrap_or_else(|p| p.into_inner()) = Some((e, text));
    io
}

/// The readers' date and timestamp patterns (Java's, as Spark's `dateFormat`,
/// `timestampFormat` and `timestampNTZFormat` take them); a pattern they cannot read is a
/// `ValueError` naming it.
pub(crate) fn time_formats(
    date: Option<&str>,
    timestamp: Option<&str>,
    timestamp_ntz: Option<&str>,
) -> PyResult<TimeFormats> {
    let pattern = |option: &str, text: Option<&str>| {
        text.map(TimePattern::java)
            .transpose()
            .map_err(|why| PyValueError::new_err(format!("{option}: {why}")))
    };
    Ok(TimeFormats {
        date: pattern("date_format", date)?,
        timestamp: pattern("timestamp_format", timestamp)?,
        timestamp_ntz: pattern("timestamp_ntz_format", timestamp_ntz)?,
    })
}

/// Run a reader's `fill` on the loader with the GIL released; map its errors.
fn fill_detached(
    py: Python<'_>,
    loader: &Bound<'_, PyResultSetLoader>,
    failure: &Failure,
    fill: impl FnOnce(&mut crate::loader::ResultSetLoader) -> Result<bool, ReadError> + Send,
) -> PyResult<bool> {
    let mut l = loader.borrow_mut();
    let loader = &mut l.inner;
    match py.detach(|| fill(loader)) {
        Ok(more) => Ok(more),
        Err(ReadError::Input(e)) => Err(input_error(py, e, failure)),
        Err(ReadError::Loader(e)) => Err(to_pyerr(e)),
    }
}

fn parse_on_error(on_error: &str) -> PyResult<OnError> {
    OnError::parse(on_error).ok_or_else(|| {
        PyValueError::new_err(format!(
            "on_error must be 'error', 'skip' or 'permissive', not {on_error:?}"
        ))
    })
}

fn one_byte(name: &str, s: &str) -> PyResult<u8> {
    match s.as_bytes() {
        [b] => Ok(*b),
        _ => Err(PyValueError::new_err(format!(
            "{name} must be a single ASCII character, got {s:?}"
        ))),
    }
}

/// Check the readers' date and timestamp patterns (Java's, as Spark's options take them):
/// a `ValueError` names what in one is not taken.
#[pyfunction]
#[pyo3(signature = (date_format=None, timestamp_format=None, timestamp_ntz_format=None))]
pub fn check_time_formats(
    date_format: Option<&str>,
    timestamp_format: Option<&str>,
    timestamp_ntz_format: Option<&str>,
) -> PyResult<()> {
    time_formats(date_format, timestamp_format, timestamp_ntz_format).map(|_| ())
}

/// The Spark DDL type Spark's CSV inference (`inferSchema`) gives a column of these field
/// texts (None or empty: no value), dates and timestamps tried by `date_format` and
/// `timestamp_format` where given (dates only if `prefer_date`, Spark's `preferDate`), the
/// non-numeric doubles spelled `nan_value`, `positive_inf`, `negative_inf` (Spark's `NaN`,
/// `Inf`, `-Inf` unless given).
#[pyfunction]
#[pyo3(signature = (texts, timestamp_format=None, nan_value=None, positive_inf=None,
                    negative_inf=None, date_format=None, prefer_date=true))]
pub fn spark_csv_type(
    texts: Vec<Option<String>>,
    timestamp_format: Option<&str>,
    nan_value: Option<&str>,
    positive_inf: Option<&str>,
    negative_inf: Option<&str>,
    date_format: Option<&str>,
    prefer_date: bool,
) -> PyResult<String> {
    let formats = time_formats(date_format, timestamp_format, None)?;
    let floats = FloatTexts::of(Conventions::Spark, nan_value, positive_inf, negative_inf);
    let options = InferenceOptions::new(formats, floats, prefer_date);
    let texts = texts.iter().map(Option::as_deref);
    Ok(crate::readers::csv_inference::infer_column(texts, &options).ddl())
}

/// The local path a local path or `file:` URI names (`file:///a%20b`, `file://localhost/a`,
/// Hadoop's `file:/a`); `ValueError` for another host or a path that is not absolute.
#[pyfunction]
pub fn local_path(path: &str) -> PyResult<String> {
    crate::readers::input::local_path(path)
        .map(|p| p.into_owned())
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// A Python file object's bytes (`read(n)` giving `bytes`), read with the GIL taken for each
/// read: the readers' `fill` runs without it.
struct PyReadable(Py<PyAny>, Failure);

impl std::io::Read for PyReadable {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        Python::attach(|py| {
            let chunk = self.0.bind(py).call_method1("read", (out.len(),));
            let chunk = chunk.and_then(|c| Ok(c.cast_into::<PyBytes>()?));
            let chunk = chunk.map_err(|e| failed(&self.1, e))?;
            let bytes = chunk.as_bytes();
            // a read past what was asked would lose bytes: refuse it
            let Some(dest) = out.get_mut(..bytes.len()) else {
                return Err(std::io::Error::other(format!(
                    "read({}) gave {} bytes",
                    out.len(),
                    bytes.len()
                )));
            };
            dest.copy_from_slice(bytes);
            Ok(bytes.len())
        })
    }
}

/// An opener calling Python's `opener(offset)`, which returns a file object at that offset.
fn python_opener(opener: Py<PyAny>, failure: Failure) -> Opener {
    std::sync::Arc::new(move |offset| {
        Python::attach(|py| {
            let file = opener.bind(py).call1((offset,));
            let file = file.map_err(|e| failed(&failure, e))?;
            let readable = PyReadable(file.unbind(), failure.clone());
            Ok(Box::new(readable) as Box<dyn std::io::Read + Send>)
        })
    })
}

/// One of the built-in readers (boxed: they differ in size).
enum AnyReader {
    Ndjson(Box<NdjsonReader>),
    Csv(Box<CsvReader>),
}

/// Call the same method on whichever reader it is.
macro_rules! on_reader {
    ($reader:expr, $r:ident => $call:expr) => {
        match $reader {
            AnyReader::Ndjson($r) => $call,
            AnyReader::Csv($r) => $call,
        }
    };
}

/// Reads one file (NDJSON or CSV; plain, `.gz`, `.zst`) into a loader, a batch at a time.
/// `byte_range=(start, end)` reads only the lines of an uncompressed file that start in it.
/// `retype_nulls=True` (NDJSON): a column null in a whole batch, which goes out with the null
/// type, takes its type from a value in a later batch (for scans allowing schema changes).
/// `one_pass=False` (NDJSON): every line through the general path (for checking that both
/// paths read a file alike). `opener`: a callable `opener(offset)` returning a file object
/// (`read(n) -> bytes`) at byte `offset` of the file `path` names (a remote file, say);
/// without it `path` is a local file. `null_values` (CSV): field texts, quoted or not, read
/// as nulls (`[""]`: empty fields are null, as Spark reads them). `nan_value`,
/// `positive_inf`, `negative_inf` (CSV): the texts a float field spells those floats with,
/// each matched whole (Spark's `nanValue`...; under `csv_conventions="spark"` `NaN`, `Inf`
/// and `-Inf` unless given). `ignore_leading_whitespace`, `ignore_trailing_whitespace`,
/// `empty_value` (CSV under `csv_conventions="spark"`): Spark's `ignoreLeadingWhiteSpace`,
/// `ignoreTrailingWhiteSpace`, `emptyValue` (see `SparkFields`). NDJSON lines end at `\n`
/// (`json_conventions="arrow"`, JSON Lines) or at `\n`, `\r` and `\r\n` (`"spark"`, as
/// Hadoop's text lines); `line_sep` (Spark's `lineSep`) ends them, and CSV records (under
/// `csv_conventions="spark"`), at exactly its text. `encoding` (Spark's): the file's text
/// is `utf-8` (the default), `iso-8859-1` or `us-ascii`, read as Java decodes it.
#[pyclass(module = "batchloader._core", name = "FileReader")]
pub struct PyFileReader {
    /// In a mutex so that the class is `Sync` (a file's reader is not): Python may free it
    /// on any thread (a garbage collection in another thread). `fill` takes it through
    /// `&mut self`, without locking; the getters lock it.
    inner: std::sync::Mutex<AnyReader>,
    /// What the opener raised last, the cause of the next `InputError`.
    failure: Failure,
}

impl PyFileReader {
    /// The reader, for a getter.
    fn reader(&self) -> std::sync::MutexGuard<'_, AnyReader> {
        self.inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[pymethods]
impl PyFileReader {
    #[new]
    #[pyo3(signature = (path, format="ndjson", on_error="error", discover=true, header=false,
                        delimiter=",", quote="\"", escape=None, byte_range=None,
                        retype_nulls=false, one_pass=true, opener=None, multiline=false,
                        null_values=None, null_type=None, json_conventions="arrow",
                        csv_conventions="arrow", date_format=None, timestamp_format=None,
                        timestamp_ntz_format=None, corrupt_record_column="_corrupt_record",
                        comment=None, names=None, allow_comments=false,
                        allow_numeric_leading_zeros=false, allow_non_numeric_numbers=true,
                        allow_single_quotes=None, nan_value=None, positive_inf=None,
                        negative_inf=None, ignore_leading_whitespace=false,
                        ignore_trailing_whitespace=false, empty_value=None,
                        enforce_schema=None, checked_fields=None,
                        empty_strings_as_nulls=false, line_sep=None, encoding=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        path: &str,
        format: &str,
        on_error: &str,
        discover: bool,
        header: bool,
        delimiter: &str,
        quote: &str,
        escape: Option<&str>,
        byte_range: Option<(u64, u64)>,
        retype_nulls: bool,
        one_pass: bool,
        opener: Option<Py<PyAny>>,
        multiline: bool,
        null_values: Option<Vec<String>>,
        null_type: Option<&Bound<'_, PyAny>>,
        json_conventions: &str,
        csv_conventions: &str,
        date_format: Option<&str>,
        timestamp_format: Option<&str>,
        timestamp_ntz_format: Option<&str>,
        corrupt_record_column: &str,
        comment: Option<&str>,
        names: Option<Vec<String>>,
        allow_comments: bool,
        allow_numeric_leading_zeros: bool,
        allow_non_numeric_numbers: bool,
        allow_single_quotes: Option<bool>,
        nan_value: Option<&str>,
        positive_inf: Option<&str>,
        negative_inf: Option<&str>,
        ignore_leading_whitespace: bool,
        ignore_trailing_whitespace: bool,
        empty_value: Option<&str>,
        enforce_schema: Option<bool>,
        checked_fields: Option<Vec<usize>>,
        empty_strings_as_nulls: bool,
        line_sep: Option<&str>,
        encoding: Option<&str>,
    ) -> PyResult<Self> {
        let syntax = JsonSyntax {
            comments: allow_comments,
            leading_zeros: allow_numeric_leading_zeros,
            non_numeric: allow_non_numeric_numbers,
            single_quotes: allow_single_quotes,
        };
        let on_error = parse_on_error(on_error)?;
        if corrupt_record_column.is_empty() {
            return Err(PyValueError::new_err(
                "corrupt_record_column names the column bad records are kept in: not empty",
            ));
        }
        let formats = time_formats(date_format, timestamp_format, timestamp_ntz_format)?;
        let conventions = |option: &str, name: &str| {
            Conventions::named(name).ok_or_else(|| {
                PyValueError::new_err(format!("{option} must be 'arrow' or 'spark', not {name:?}"))
            })
        };
        let (json_conventions, csv_conventions) = (
            conventions("json_conventions", json_conventions)?,
            conventions("csv_conventions", csv_conventions)?,
        );
        let null_type = null_type
            .map(type_from_py)
            .transpose()?
            .unwrap_or(DataType::Utf8);
        let range = byte_range.map(|(start, end)| ByteRange { start, end });
        if let Some(ByteRange { start, end }) = range.filter(|r| r.start > r.end) {
            return Err(PyValueError::new_err(format!(
                "byte_range is (start, end) with start <= end, got ({start}, {end})"
            )));
        }
        if range.is_some() && is_compressed(path) {
            return Err(PyValueError::new_err(format!(
                "byte_range: {path} is compressed; only uncompressed files can be split"
            )));
        }
        let failure = Failure::default();
        let charset = match encoding {
            None => Charset::Utf8,
            Some(name) => named_charset(name, "encoding")?,
        };
        let source = match opener {
            Some(opener) => Source::opened_by(path, python_opener(opener, failure.clone())),
            None => Source::local(path),
        }
        .in_charset(charset);
        let line_sep = line_sep
            .map(|sep| checked_line_sep(sep, multiline, range.is_some()))
            .transpose()?;
        let csv = match format {
            "ndjson" => None,
            "csv" => Some(
                CsvOptions {
                    header,
                    delimiter: one_byte("delimiter", delimiter)?,
                    quote: one_byte("quote", quote)?,
                    escape: escape.map(|e| one_byte("escape", e)).transpose()?,
                    comment: comment.map(|c| one_byte("comment", c)).transpose()?,
                    conventions: csv_conventions,
                    spark_fields: SparkFields {
                        trim_leading: ignore_leading_whitespace,
                        trim_trailing: ignore_trailing_whitespace,
                        empty_value: empty_value.map(|t| t.as_bytes().into()),
                    },
                    line_sep: line_sep.clone(),
                }
                .checked()
                .map_err(PyValueError::new_err)?,
            ),
            other => {
                return Err(PyValueError::new_err(format!(
                    "format must be 'ndjson' or 'csv', not {other:?}"
                )))
            }
        };
        if comment.is_some() && csv.is_none() {
            return Err(PyValueError::new_err(
                "comment skips CSV lines that start with it: JSON has no comments",
            ));
        }
        if names.is_some() && (csv.is_none() || header && enforce_schema.is_none()) {
            return Err(PyValueError::new_err(
                "names name the fields of a CSV file by position: one without a header, or \
                 one with a header and enforce_schema (Spark's enforceSchema)",
            ));
        }
        if checked_fields.is_some() && enforce_schema != Some(false) {
            return Err(PyValueError::new_err(
                "checked_fields are the header fields enforce_schema=False checks",
            ));
        }
        let header_names = match enforce_schema {
            None => HeaderNames::Kept,
            Some(true) => HeaderNames::Replaced,
            Some(false) => HeaderNames::Checked(checked_fields),
        };
        if empty_strings_as_nulls && csv.is_some() {
            return Err(PyValueError::new_err(
                "empty_strings_as_nulls reads JSON's empty strings as nulls: CSV has null_values",
            ));
        }
        if null_values.is_some() && csv.is_none() {
            return Err(PyValueError::new_err(
                "null_values reads CSV fields as nulls: JSON has its own null",
            ));
        }
        let shaping = ignore_leading_whitespace || ignore_trailing_whitespace;
        if csv.is_none() && (shaping || empty_value.is_some()) {
            return Err(PyValueError::new_err(
                "ignore_leading_whitespace, ignore_trailing_whitespace and empty_value shape CSV \
                 fields: not JSON",
            ));
        }
        let float_texts = [nan_value, positive_inf, negative_inf];
        if csv.is_none() && float_texts.iter().any(Option::is_some) {
            return Err(PyValueError::new_err(
                "nan_value, positive_inf and negative_inf spell CSV floats: JSON has its own",
            ));
        }
        let float_texts = FloatTexts::of(csv_conventions, nan_value, positive_inf, negative_inf);
        if csv.is_some() && syntax != JsonSyntax::default() {
            return Err(PyValueError::new_err(
                "allow_comments, allow_numeric_leading_zeros, allow_non_numeric_numbers and \
                 allow_single_quotes are what a JSON reader takes: not CSV",
            ));
        }
        if multiline && allow_comments {
            return Err(PyValueError::new_err(
                "allow_comments reads comments in JSON lines; with multiline=True a document's \
                 lines are read as one, which a // comment would end: not both",
            ));
        }
        if multiline && (csv.is_some() || range.is_some()) {
            return Err(PyValueError::new_err(
                "multiline reads a JSON file whole: not CSV, not a byte_range",
            ));
        }
        // Opening reads (a range's first line, a CSV header): without the GIL, as `fill`
        // does (an opener takes it for each of its reads only)
        let inner = py.detach(|| match csv {
            None => if multiline {
                NdjsonReader::open_documents(&source, on_error, discover)
            } else if let Some(sep) = line_sep {
                let ends = LineEnds::Exact(sep);
                NdjsonReader::open_with_line_ends(&source, range, on_error, discover, ends)
            } else {
                NdjsonReader::open(&source, range, on_error, discover)
            }
            .map(|r| {
                AnyReader::Ndjson(Box::new(
                    r.retyping_nulls(retype_nulls)
                        .one_pass(one_pass)
                        .with_null_type(null_type)
                        .with_conventions(json_conventions)
                        .with_syntax(syntax)
                        .empty_strings_as_nulls(empty_strings_as_nulls)
                        .with_time_formats(formats)
                        .with_corrupt_column(corrupt_record_column),
                ))
            }),
            Some(options) => CsvReader::open(&source, range, options, on_error).map(|r| {
                let r = match names {
                    Some(names) => r.with_names(names, header_names),
                    None => r,
                };
                AnyReader::Csv(Box::new(
                    r.with_null_values(null_values.as_deref().unwrap_or_default())
                        .with_float_texts(float_texts)
                        .with_time_formats(formats)
                        .with_corrupt_column(corrupt_record_column),
                ))
            }),
        });
        Ok(PyFileReader {
            inner: std::sync::Mutex::new(inner.map_err(|e| input_error(py, e, &failure))?),
            failure,
        })
    }

    /// Fill the loader's current batch; True if it filled up and input remains.
    fn fill(&mut self, py: Python<'_>, loader: &Bound<'_, PyResultSetLoader>) -> PyResult<bool> {
        let reader = self
            .inner
            .get_mut()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let failure = &self.failure;
        on_reader!(reader, r => fill_detached(py, loader, failure, |l| r.fill(l)))
    }

    /// Records skipped as bad (on_error="skip").
    #[getter]
    fn skipped_lines(&self) -> u64 {
        on_reader!(&*self.reader(), r => r.skipped_lines())
    }

    /// Records kept as bad in `_corrupt_record` (on_error="permissive").
    #[getter]
    fn corrupt_lines(&self) -> u64 {
        on_reader!(&*self.reader(), r => r.corrupt_lines())
    }

    /// The first records skipped or kept as bad (`on_error` "skip" or "permissive"), each
    /// as the `InputError` it would have raised: why, and which file, line and column.
    #[getter]
    fn bad_lines<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let errors = on_reader!(&*self.reader(), r => r.bad_records().to_vec());
        errors.iter().map(|e| input_error_object(py, e)).collect()
    }

    /// Records read so far (blank lines and a CSV header included).
    #[getter]
    fn lines_read(&self) -> u64 {
        on_reader!(&*self.reader(), r => r.lines_read())
    }

    /// Rows written so far.
    #[getter]
    fn rows_written(&self) -> u64 {
        on_reader!(&*self.reader(), r => r.rows_written())
    }

    /// NDJSON lines the one-pass path wrote (0 for CSV); the others went through the
    /// general path.
    #[getter]
    fn one_pass_lines(&self) -> u64 {
        match &*self.reader() {
            AnyReader::Ndjson(r) => r.one_pass_lines(),
            AnyReader::Csv(_) => 0,
        }
    }

    /// From the next record on, NDJSON fields without a column are skipped and noted
    /// (`ignored_columns`, `ignored_members`) rather than made columns (CSV: nothing to do).
    fn stop_adding_columns(&self) {
        if let AnyReader::Ndjson(r) = &mut *self.reader() {
            r.stop_adding_columns();
        }
    }

    /// Top-level fields of the input skipped because the loader's projection leaves them
    /// out, in first-seen order.
    #[getter]
    fn ignored_columns(&self) -> Vec<String> {
        on_reader!(&*self.reader(), r => r.ignored_columns().to_vec())
    }

    /// Struct members of the input (by path, `m.x`) the projection wants but the loader's
    /// fixed schema lacks (or met after `stop_adding_columns`), skipped, in first-seen order.
    #[getter]
    fn ignored_members(&self) -> Vec<String> {
        on_reader!(&*self.reader(), r => r.ignored_members().to_vec())
    }
}

/// The name of the charset `name` names (Spark's `encoding` option: `"utf-8"`,
/// `"iso-8859-1"` or `"us-ascii"`, in any case); a `ValueError` naming `option` for any
/// other.
#[pyfunction]
#[pyo3(signature = (name, option="encoding"))]
pub fn charset_named(name: &str, option: &str) -> PyResult<&'static str> {
    named_charset(name, option).map(Charset::name)
}

/// The charset `name` names, or a `ValueError` naming `option` (see `charset_named`).
fn named_charset(name: &str, option: &str) -> PyResult<Charset> {
    Charset::named(name).ok_or_else(|| {
        let names: Vec<_> = Charset::ALL.map(Charset::name).into();
        PyValueError::new_err(format!(
            "{option} is {name:?}: the built-in readers read {} (Spark's utf-16 and utf-32 \
             are not read: re-encode the files, or read them with a reader of your own)",
            names.join(", ")
        ))
    })
}

/// Check `line_sep` (Spark's `lineSep`) for lines read with `multiline` or not, in a byte
/// range or not: a `ValueError` says why it cannot end them (see `checked_line_sep`).
#[pyfunction]
#[pyo3(signature = (line_sep, multiline=false, byte_range=false))]
pub fn check_line_sep(line_sep: &str, multiline: bool, byte_range: bool) -> PyResult<()> {
    checked_line_sep(line_sep, multiline, byte_range).map(|_| ())
}

/// Whether a file of lines ended by `line_sep` can be read in byte ranges: no match of it
/// can start inside another (`LineEnds::range_separator`), so a range finds where its
/// lines start.
#[pyfunction]
pub fn line_sep_splits(line_sep: &str) -> bool {
    LineEnds::Exact(Box::from(line_sep.as_bytes()))
        .range_separator()
        .is_some()
}

/// `line_sep` (Spark's `lineSep`) as the bytes that end lines (NDJSON) or records (CSV,
/// under Spark's conventions: `CsvOptions::checked` says). Refused empty, with `multiline`
/// (JSON documents; CSV read whole, where Spark's quotes would protect the separator), and
/// with a byte range where a range cannot find where its lines start (`line_sep_splits`).
fn checked_line_sep(sep: &str, multiline: bool, range: bool) -> PyResult<Box<[u8]>> {
    if sep.is_empty() {
        return Err(PyValueError::new_err(
            "line_sep is the text that ends lines and records: it cannot be empty",
        ));
    }
    if multiline {
        return Err(PyValueError::new_err(
            "line_sep ends lines and records; with multiline=True a file is read whole",
        ));
    }
    if range && !line_sep_splits(sep) {
        return Err(PyValueError::new_err(format!(
            "byte_range: line_sep {sep:?} begins as it ends, so a match of it can start \
             inside another: a range cannot find where its lines start; read the file whole"
        )));
    }
    Ok(Box::from(sep.as_bytes()))
}
