//! Differential fuzzing of the built-in readers (NDJSON lines, JSON documents, CSV) on
//! arbitrary bytes. The first three bytes choose the format, the `on_error` policy, the
//! limits, a projection, a declared schema (values converted to its types; fields it lacks
//! discovered or ignored) and for CSV the dialect and null texts; the rest is the file. For
//! every input:
//!
//! - no reader panics, whatever the bytes;
//! - every array of every batch is valid Arrow (`validate_full`: offsets, UTF-8, children);
//! - the same bytes read through a reader that hands over a few bytes at a time (records,
//!   escapes and characters cut at every place) give the same batches, or the same error;
//! - NDJSON's one-pass path and its general path give the same batches, or the same error;
//! - the bytes opened as a file give the same, gzip-compressed too; and the lines of two
//!   byte ranges of the file (NDJSON, CSV) are the file's lines, each once;
//! - a read that stops with an error leaves a loader that still harvests a valid batch;
//! - with one row per batch, the rows equal those of one big batch (when both read the file
//!   without a bad record, in one schema: a type a one-row batch guessed, from a null or an
//!   empty list, stays and takes later values as their text, where one batch types them);
//! - a projection of top-level columns reads them as the whole read does;
//! - a JSON read that stops adding columns after its first batch fails nowhere the whole
//!   read does not, and its columns hold the whole read's values;
//! - NDJSON read without an error is JSON to serde_json line by line, once the non-numeric
//!   numbers the reader takes (`NaN`, `-Infinity`...) are zeroed outside strings (and under
//!   Spark's conventions single quotes made double); and `permissive` keeps a row for
//!   every line that is not blank (under Spark's conventions, for every object of a line
//!   that is an array of objects).

#![no_main]

use std::io::{self, BufRead, BufReader, Cursor, Read, Write};
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Fields, Schema, TimeUnit};
use batchloader::readers::input::{ByteRange, Source};
use batchloader::readers::{
    Conventions, CsvOptions, CsvReader, NdjsonReader, OnError, ReadError, TimeFormats, TimePattern,
};
use batchloader::{LoaderOptions, Projection, ResultSetLoader};
use flate2::write::GzEncoder;
use flate2::Compression;
use libfuzzer_sys::fuzz_target;

/// A reader that gives at most `chunk` bytes a call.
struct Trickle {
    inner: Cursor<Vec<u8>>,
    chunk: usize,
}

impl Read for Trickle {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(self.chunk);
        self.inner.read(&mut buf[..n])
    }
}

/// Which reader reads the bytes.
#[derive(Clone, Copy, Debug)]
enum Format {
    Lines,
    Documents,
    Csv { header: bool },
}

/// One way of reading the bytes.
#[derive(Clone, Copy, Debug)]
struct Setup {
    format: Format,
    on_error: OnError,
    row_limit: usize,
    batch_byte_limit: Option<usize>,
    /// How the reader gets the bytes.
    input: Input,
    /// NDJSON lines tried on the one-pass path first.
    one_pass: bool,
    /// Which of `PROJECTIONS` (0: every column).
    projection: usize,
    /// Columns declared up front with these types (`declared_schema`).
    declared: bool,
    /// Fields the schema lacks become columns (else they are ignored).
    discover: bool,
    /// The CSV dialect (`DIALECTS`) and whether `NULL_TEXTS` are nulls.
    dialect: usize,
    null_texts: bool,
    /// CSV: lines starting with `#` are comments (Spark's `comment`).
    comment: bool,
    /// NDJSON: after the first batch, fields without a column are read past, not made
    /// columns (`stop_adding_columns`, as a scan whose first batch fixed a wildcard does).
    stop_after_first: bool,
    /// How numbers and strings convert to declared types (Arrow's or Spark's), NDJSON's
    /// and CSV's dates and timestamps among them.
    conventions: Conventions,
    /// Dates and timestamps read by `time_formats` (patterns) instead.
    patterns: bool,
}

/// The patterns dates and timestamps are read by when `Setup::patterns`.
fn time_formats(on: bool) -> TimeFormats {
    let pattern = |text| on.then(|| TimePattern::java(text).expect("a pattern the readers take"));
    TimeFormats {
        date: pattern("dd.MM.yyyy"),
        timestamp: pattern("yyyy-MM-dd[ HH:mm[:ss[.SSS]]][XXX]"),
        timestamp_ntz: pattern("yyyyMMdd HHmm"),
    }
}

/// CSV dialects: delimiter, quote, escape.
const DIALECTS: [(u8, u8, Option<u8>); 4] = [
    (b',', b'"', None),
    (b';', b'\'', None),
    (b'\t', b'"', Some(b'\\')),
    (b',', b'"', Some(b'"')),
];

/// Field texts read as nulls when `null_texts`.
const NULL_TEXTS: [&str; 2] = ["NA", ""];

/// Projections over the names the seeds use (CSV without a header has `columns`).
const PROJECTIONS: [&[&str]; 4] = [
    &[],
    &["a", "m.x", "l[1]"],
    &["s", "b"],
    &["columns[1]", "a"],
];

/// Columns of many types, declared: values convert to them (or are bad input).
fn declared_schema() -> Arc<Schema> {
    let m = Fields::from(vec![
        Field::new("x", DataType::Float64, true),
        Field::new("y", DataType::Utf8, true),
    ]);
    Arc::new(Schema::new(vec![
        Field::new("a", DataType::Int32, true),
        Field::new("m", DataType::Struct(m), true),
        Field::new("l", DataType::new_list(DataType::Int64, true), true),
        Field::new("t", DataType::Timestamp(TimeUnit::Microsecond, None), true),
        // a zone with summer time: texts without an offset are its local times
        Field::new(
            "z",
            DataType::Timestamp(TimeUnit::Microsecond, Some("Europe/Paris".into())),
            true,
        ),
        Field::new("d", DataType::Decimal128(10, 2), true),
        Field::new("e", DataType::Date32, true),
        Field::new("b", DataType::Boolean, true),
        Field::new("s", DataType::Utf8, true),
        // a text's bytes, or (Spark's conventions) the bytes its base64 spells
        Field::new("y", DataType::Binary, true),
    ]))
}

/// How a reader gets the bytes.
#[derive(Clone, Copy, Debug)]
enum Input {
    /// From a reader of them: at most so many a read (`None`: all at once).
    Bytes(Option<usize>),
    /// Opened as a file (gzip-compressed, or the lines of a byte range of it).
    File {
        gzip: bool,
        range: Option<ByteRange>,
    },
}

/// The batches read, or the error's text.
type Outcome = Result<Vec<RecordBatch>, String>;

/// A file of `data` (gzip-compressed if `gzip`) named as the format's files are.
fn source(format: Format, data: &[u8], gzip: bool) -> Source {
    let name = match format {
        Format::Csv { .. } => "fuzz.csv",
        _ => "fuzz.json",
    };
    let (name, bytes) = if gzip {
        let mut encoder = GzEncoder::new(Vec::new(), Compression::fast());
        encoder.write_all(data).expect("in memory");
        (format!("{name}.gz"), encoder.finish().expect("in memory"))
    } else {
        (name.to_string(), data.to_vec())
    };
    let bytes = Arc::new(bytes);
    Source::opened_by(
        &name,
        Arc::new(move |offset| {
            let from = bytes.len().min(offset as usize);
            Ok(Box::new(Cursor::new(bytes[from..].to_vec())) as Box<dyn Read + Send>)
        }),
    )
}

/// A buffered reader of `data`, giving at most `chunk` bytes a read.
fn input(data: &[u8], chunk: Option<usize>) -> Box<dyn BufRead + Send> {
    let bytes = Cursor::new(data.to_vec());
    match chunk {
        None => Box::new(bytes),
        Some(chunk) => Box::new(BufReader::with_capacity(
            chunk,
            Trickle {
                inner: bytes,
                chunk,
            },
        )),
    }
}

/// A batch checked to be valid Arrow throughout.
fn checked(batch: RecordBatch) -> RecordBatch {
    for column in batch.columns() {
        if let Err(e) = column.to_data().validate_full() {
            panic!("invalid {} array: {e}", column.data_type());
        }
    }
    batch
}

/// Every batch read from `data` as `setup` says (each checked), or the error.
fn read(data: &[u8], setup: Setup) -> Outcome {
    let paths = PROJECTIONS[setup.projection];
    let schema = setup.declared.then(declared_schema);
    let options = LoaderOptions {
        row_limit: setup.row_limit,
        batch_byte_limit: setup.batch_byte_limit,
        projection: if paths.is_empty() {
            Projection::All
        } else {
            Projection::parse(paths).expect("valid paths")
        },
        declared: schema.as_ref().map_or_else(Vec::new, |s| {
            s.fields().iter().map(|f| f.name().clone()).collect()
        }),
        schema,
        ..LoaderOptions::default()
    };
    let mut l = ResultSetLoader::new(options).expect("valid limits");
    let mut fill = match reader(data, setup) {
        Ok(fill) => fill,
        Err(e) => return Err(e.to_string().replace(".gz", "")),
    };
    let mut out = Vec::new();
    l.start_batch().expect("a new loader starts a batch");
    loop {
        match fill(&mut l) {
            Ok(true) => {
                out.push(checked(l.harvest().expect("a full batch harvests")));
                l.start_batch().expect("the next batch starts");
            }
            Ok(false) => break,
            Err(e) => {
                // the loader stays usable: the rows before the bad one harvest
                checked(l.harvest().expect("a loader harvests after a read error"));
                return Err(e.to_string().replace(".gz", ""));
            }
        }
    }
    out.push(checked(l.harvest().expect("the last batch harvests")));
    if l.start_batch().expect("the overflow batch starts") && l.row_count() > 0 {
        out.push(checked(l.harvest().expect("the overflow row harvests")));
    }
    Ok(out.into_iter().filter(|b| b.num_rows() > 0).collect())
}

/// The checks of `data` opened as a file (`expected`: its batches read by `whole`), and of
/// the byte ranges before and after `cut` ninths of it.
fn check_files(data: &[u8], whole: Setup, expected: &Outcome, cut: usize) {
    let file = |gzip, range| Setup {
        input: Input::File { gzip, range },
        ..whole
    };
    let plain = read(data, file(false, None));
    // (a file's first bytes are checked to be UTF-8 text, not another encoding's or a
    // compressed file's: a reader of any bytes checks nothing of them)
    if !plain
        .as_ref()
        .is_err_and(|e| e.contains("its bytes are") || e.contains("its text is"))
    {
        assert_eq!(&plain, expected, "opened as a file");
        assert_eq!(read(data, file(true, None)), plain, "gzip-compressed");
    }
    if matches!(whole.format, Format::Documents) || !matches!(whole.on_error, OnError::Error) {
        return; // read whole only; a bad record may be another with other batches
    }
    // One batch for each part, as for the whole file: types are taken from the data, and
    // a column only null in one batch keeps its type from another (see the last check).
    let one_batch = |range| Setup {
        row_limit: 65536,
        batch_byte_limit: None,
        ..file(false, range)
    };
    let Ok(whole) = read(data, one_batch(None)) else {
        return;
    };
    let cut = (data.len() * (1 + cut % 8) / 9) as u64;
    let mut parts = Vec::new();
    for (start, end) in [(0, cut), (cut, data.len() as u64)] {
        match read(data, one_batch(Some(ByteRange { start, end }))) {
            Ok(batches) => parts.extend(batches),
            // a range cannot find a quoted line break's record: refused, never misread
            Err(e) if e.contains("a quoted field holds a line break") => return,
            Err(e) => panic!("a range failed where the whole file did not: {e}"),
        }
    }
    if let (Some(parts), Some(whole)) = (joined(&parts), joined(&whole)) {
        assert_eq!(parts, whole, "two ranges cut at {cut}");
    }
}

/// A projection of top-level columns (`s`, `b`) skips the other values while parsing: where
/// the whole file reads without an error, the projected columns are the same as in the
/// whole read, in as many rows.
fn check_projection(data: &[u8], whole: Setup) {
    if whole.projection != 2 || whole.declared || !matches!(whole.on_error, OnError::Error) {
        return;
    }
    let one_batch = |projection| Setup {
        row_limit: 65536,
        batch_byte_limit: None,
        projection,
        ..whole
    };
    let Ok(all) = read(data, one_batch(0)) else {
        return;
    };
    let projected = match read(data, one_batch(2)) {
        Ok(batches) => batches,
        Err(e) => panic!("a projection failed where the whole read did not: {e}"),
    };
    let rows = |batches: &[RecordBatch]| batches.iter().map(RecordBatch::num_rows).sum::<usize>();
    assert_eq!(rows(&projected), rows(&all), "rows of the projection");
    let (Some(all), Some(projected)) = (joined(&all), joined(&projected)) else {
        return;
    };
    for (field, column) in projected.schema().fields().iter().zip(projected.columns()) {
        let whole_column = all
            .column_by_name(field.name())
            .unwrap_or_else(|| panic!("projected column {} not read whole", field.name()));
        assert_eq!(column, whole_column, "projected column {}", field.name());
    }
}

/// A JSON read that stops adding columns after its first batch (a scan whose first batch
/// fixed a wildcard schema) never fails where the whole read does not (values of mixed
/// types in a field it reads past, say) and reads every row; batch by batch, each of its
/// columns that has the whole read's type there holds the same values. Batches of a row
/// count only: a byte limit ends them elsewhere when the rows are smaller.
fn check_stop_adding(data: &[u8], whole: Setup, expected: &Outcome) {
    if matches!(whole.format, Format::Csv { .. })
        || !matches!(whole.on_error, OnError::Error)
        || whole.batch_byte_limit.is_some()
    {
        return;
    }
    let Ok(all) = expected else { return };
    let stopping = Setup {
        stop_after_first: true,
        ..whole
    };
    let stopped = match read(data, stopping) {
        Ok(batches) => batches,
        Err(e) => panic!("a read that stops adding columns failed where the whole did not: {e}"),
    };
    assert_eq!(stopped.len(), all.len(), "batches when adding no columns");
    for (b, (got, want)) in stopped.iter().zip(all).enumerate() {
        assert_eq!(got.num_rows(), want.num_rows(), "rows of batch {b}");
        for (field, column) in got.schema().fields().iter().zip(got.columns()) {
            let Some(same) = want.column_by_name(field.name()) else {
                panic!("column {} made after the first batch", field.name());
            };
            if same.data_type() == column.data_type() {
                assert_eq!(column, same, "column {} of batch {b}", field.name());
            }
        }
    }
}

/// The lines of NDJSON `data` that are not blank (only JSON white space), without the
/// byte order mark that may start the first.
fn lines(data: &[u8]) -> Vec<&[u8]> {
    let data = data.strip_prefix(b"\xef\xbb\xbf").unwrap_or(data);
    data.split(|&b| b == b'\n')
        .filter(|line| !line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r')))
        .collect()
}

/// The tokens the reader takes as numbers beyond JSON's (Spark's non-numeric numbers), where
/// a value goes and a delimiter or the line's end follows. Written out here rather than
/// taken from the reader's table: a check that shares the reader's list cannot see it wrong.
const NON_NUMERIC: [&[u8]; 6] = [
    b"NaN",
    b"Infinity",
    b"+Infinity",
    b"+INF",
    b"-Infinity",
    b"-INF",
];

/// The rows NDJSON `line` (not blank) makes: one, but under Spark's conventions as many
/// as the objects of a line that is an array of objects only (Spark's JSON reader reads
/// such a line as a row per object).
fn rows_of_line(line: &[u8], conventions: Conventions) -> usize {
    if conventions != Conventions::Spark {
        return 1;
    }
    let Ok(text) = std::str::from_utf8(line) else {
        return 1;
    };
    match serde_json::from_str::<Vec<&serde_json::value::RawValue>>(text) {
        Ok(values) if values.iter().all(|v| v.get().starts_with('{')) => values.len(),
        _ => 1,
    }
}

/// `line` with every non-numeric number outside its strings as `0`, and under Spark's
/// conventions (`single_quotes`) a string in single quotes in double quotes: JSON, if the
/// reader took the line.
fn as_strict_json(line: &[u8], single_quotes: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(line.len());
    let (mut i, mut in_string) = (0, false);
    while let Some(&b) = line.get(i) {
        if single_quotes && !in_string && b == b'\'' {
            // to its closing quote (past escapes), both quotes doubled
            let mut end = i + 1;
            while end < line.len() && line[end] != b'\'' {
                end += if line[end] == b'\\' { 2 } else { 1 };
            }
            let end = end.min(line.len());
            out.push(b'"');
            out.extend_from_slice(&line[i + 1..end]);
            if end < line.len() {
                out.push(b'"');
            }
            i = end + 1;
            continue;
        }
        if in_string {
            out.push(b);
            if b == b'\\' {
                // an escape: the byte after it is its own, whatever it is
                out.extend(line.get(i + 1));
                i += 1;
            }
            in_string = b != b'"';
            i += 1;
            continue;
        }
        if b == b'"' {
            in_string = true;
            out.push(b);
            i += 1;
            continue;
        }
        let ends = |token: &[u8]| {
            line[i..].starts_with(token)
                && matches!(
                    line.get(i + token.len()),
                    None | Some(b',' | b']' | b'}' | b' ' | b'\t' | b'\r' | b'\n')
                )
        };
        match NON_NUMERIC.iter().find(|token| ends(token)) {
            Some(token) => {
                out.push(b'0');
                i += token.len();
            }
            None => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

/// `expected`, NDJSON read whole, against the lines themselves.
fn check_lines(data: &[u8], whole: Setup, expected: &Outcome) {
    let Format::Lines = whole.format else { return };
    let Ok(batches) = expected else { return };
    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    let expected_rows: usize = lines(data)
        .iter()
        .map(|line| rows_of_line(line, whole.conventions))
        .sum();
    match whole.on_error {
        OnError::Error => {
            assert_eq!(rows, expected_rows, "a row for every line (object)");
            for line in lines(data) {
                let strict = as_strict_json(line, whole.conventions == Conventions::Spark);
                let Err(e) = serde_json::from_slice::<serde_json::Value>(&strict) else {
                    continue;
                };
                assert!(
                    e.to_string().contains("recursion limit"),
                    "read as JSON, which serde_json refuses ({e}): {:?}",
                    String::from_utf8_lossy(line)
                );
            }
        }
        OnError::Permissive => assert_eq!(rows, expected_rows, "a row for every line (object)"),
        OnError::Skip => assert!(rows <= expected_rows, "no more rows than lines (objects)"),
    }
}

/// A batch filler reading `data` as `setup` says.
type Filler = Box<dyn FnMut(&mut ResultSetLoader) -> Result<bool, ReadError>>;

fn reader(data: &[u8], setup: Setup) -> Result<Filler, ReadError> {
    let on_error = setup.on_error;
    let (delimiter, quote, escape) = DIALECTS[setup.dialect];
    // as the Python API gives them: checked, a quote escaping itself made the doubled quote
    let csv = |header| {
        CsvOptions {
            header,
            delimiter,
            quote,
            escape,
            comment: setup.comment.then_some(b'#'),
            conventions: setup.conventions,
            ..CsvOptions::default()
        }
        .checked()
        .expect("a dialect the readers take")
    };
    let nulls: &[&str] = if setup.null_texts { &NULL_TEXTS } else { &[] };
    Ok(match setup.input {
        Input::Bytes(chunk) => {
            let bytes = input(data, chunk);
            match setup.format {
                Format::Lines => {
                    let r = NdjsonReader::from_reader(bytes, "fuzz.json", on_error, setup.discover)
                        .one_pass(setup.one_pass)
                        .with_conventions(setup.conventions)
                        .with_time_formats(time_formats(setup.patterns));
                    json_filler(r, setup.stop_after_first)
                }
                Format::Documents => {
                    let r = NdjsonReader::documents_from_reader(
                        bytes,
                        "fuzz.json",
                        on_error,
                        setup.discover,
                    )
                    .one_pass(setup.one_pass)
                    .with_conventions(setup.conventions)
                    .with_time_formats(time_formats(setup.patterns));
                    json_filler(r, setup.stop_after_first)
                }
                Format::Csv { header } => {
                    let mut r = CsvReader::from_reader(bytes, "fuzz.csv", csv(header), on_error)
                        .with_null_values(nulls)
                        .with_time_formats(time_formats(setup.patterns));
                    Box::new(move |l| r.fill(l))
                }
            }
        }
        Input::File { gzip, range } => {
            let file = source(setup.format, data, gzip);
            match setup.format {
                Format::Lines => {
                    let r = NdjsonReader::open(&file, range, on_error, setup.discover)
                        .map_err(ReadError::Input)?
                        .one_pass(setup.one_pass)
                        .with_conventions(setup.conventions)
                        .with_time_formats(time_formats(setup.patterns));
                    json_filler(r, setup.stop_after_first)
                }
                Format::Documents => {
                    let r = NdjsonReader::open_documents(&file, on_error, setup.discover)
                        .map_err(ReadError::Input)?
                        .one_pass(setup.one_pass)
                        .with_conventions(setup.conventions)
                        .with_time_formats(time_formats(setup.patterns));
                    json_filler(r, setup.stop_after_first)
                }
                Format::Csv { header } => {
                    let mut r = CsvReader::open(&file, range, csv(header), on_error)
                        .map_err(ReadError::Input)?
                        .with_null_values(nulls)
                        .with_time_formats(time_formats(setup.patterns));
                    Box::new(move |l| r.fill(l))
                }
            }
        }
    })
}

/// A batch filler of NDJSON reader `r`, which stops adding columns after the first batch
/// if `stop`.
fn json_filler(mut r: NdjsonReader, stop: bool) -> Filler {
    Box::new(move |l| {
        let more = r.fill(l)?;
        if stop && more {
            r.stop_adding_columns();
        }
        Ok(more)
    })
}

/// The batches as one, if they share one schema.
fn joined(batches: &[RecordBatch]) -> Option<RecordBatch> {
    let first = batches.first()?;
    if batches.iter().any(|b| b.schema() != first.schema()) {
        return None;
    }
    Some(arrow_select::concat::concat_batches(&first.schema(), batches).expect("one schema"))
}

fn setup_of(a: u8, b: u8, c: u8) -> Setup {
    Setup {
        format: match a % 4 {
            0 => Format::Lines,
            1 => Format::Documents,
            2 => Format::Csv { header: true },
            _ => Format::Csv { header: false },
        },
        on_error: match (a / 4) % 3 {
            0 => OnError::Error,
            1 => OnError::Skip,
            _ => OnError::Permissive,
        },
        row_limit: [1, 2, 3, 7, 65536][usize::from(a / 12) % 5],
        batch_byte_limit: match b % 4 {
            0 => Some(256),
            1 => Some(4096),
            _ => None,
        },
        input: Input::Bytes(Some(1 + usize::from(b / 4) % 9)),
        one_pass: true,
        projection: usize::from(c) % PROJECTIONS.len(),
        declared: c & 4 != 0,
        dialect: usize::from(b / 36) % DIALECTS.len(),
        null_texts: c & 64 != 0,
        comment: c & 16 != 0,
        stop_after_first: false,
        conventions: if b >= 144 {
            Conventions::Spark
        } else {
            Conventions::Arrow
        },
        patterns: c & 8 != 0,
        // a declared schema, strictly
        discover: c & 4 == 0 || c & 128 == 0,
    }
}

fuzz_target!(|raw: &[u8]| {
    let [a, b, c, data @ ..] = raw else { return };
    let setup = setup_of(*a, *b, *c);
    let whole = Setup {
        input: Input::Bytes(None),
        ..setup
    };
    let expected = read(data, whole);
    assert_eq!(read(data, setup), expected, "read as {:?}", setup.input);
    check_files(data, whole, &expected, usize::from(*c >> 3));
    check_projection(data, whole);
    check_lines(data, whole, &expected);
    check_stop_adding(data, whole, &expected);
    if matches!(setup.format, Format::Lines | Format::Documents) {
        let general = Setup {
            one_pass: false,
            ..whole
        };
        assert_eq!(read(data, general), expected, "the general path");
    }
    // (under `skip` and `permissive`, a value that a column typed by an earlier batch
    // refuses is a bad record: with other batches, other records may be)
    if setup.row_limit == 1 && matches!(setup.on_error, OnError::Error) {
        let big = Setup {
            row_limit: 65536,
            ..whole
        };
        if let (Ok(small), Ok(big)) = (&expected, read(data, big)) {
            if let (Some(small), Some(big)) = (joined(small), joined(&big)) {
                if small.schema() == big.schema() {
                    assert_eq!(small, big, "one row a batch against one batch");
                }
            }
        }
    }
});
