//! Differential fuzzing of the built-in readers (NDJSON lines, JSON documents, CSV) on
//! arbitrary bytes. The first three bytes choose the format, the `on_error` policy, the
//! limits, a projection and a declared schema (values converted to its types); the rest is
//! the file. For every input:
//!
//! - no reader panics, whatever the bytes;
//! - every array of every batch is valid Arrow (`validate_full`: offsets, UTF-8, children);
//! - the same bytes read through a reader that hands over a few bytes at a time (records,
//!   escapes and characters cut at every place) give the same batches, or the same error;
//! - NDJSON's one-pass path and its general path give the same batches, or the same error;
//! - a read that stops with an error leaves a loader that still harvests a valid batch;
//! - with one row per batch, the rows equal those of one big batch (when both read the file
//!   without a bad record and the schema did not change between batches).

#![no_main]

use std::io::{self, BufRead, BufReader, Cursor, Read};

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Fields, Schema, TimeUnit};
use batchloader::readers::{CsvOptions, CsvReader, NdjsonReader, OnError, ReadError};
use batchloader::{LoaderOptions, Projection, ResultSetLoader};
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
    /// Bytes handed over a call (`None`: all at once).
    chunk: Option<usize>,
    /// NDJSON lines tried on the one-pass path first.
    one_pass: bool,
    /// Which of `PROJECTIONS` (0: every column).
    projection: usize,
    /// Columns declared up front with these types (`declared_schema`).
    declared: bool,
}

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
        Field::new("d", DataType::Decimal128(10, 2), true),
        Field::new("e", DataType::Date32, true),
        Field::new("b", DataType::Boolean, true),
        Field::new("s", DataType::Utf8, true),
    ]))
}

/// The batches read, or the error's text.
type Outcome = Result<Vec<RecordBatch>, String>;

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
    let source = input(data, setup.chunk);
    let mut fill: Box<dyn FnMut(&mut ResultSetLoader) -> Result<bool, ReadError>> =
        match setup.format {
            Format::Lines => {
                let mut r = NdjsonReader::from_reader(source, "fuzz.json", setup.on_error, true)
                    .one_pass(setup.one_pass);
                Box::new(move |l| r.fill(l))
            }
            Format::Documents => {
                let mut r =
                    NdjsonReader::documents_from_reader(source, "fuzz.json", setup.on_error, true)
                        .one_pass(setup.one_pass);
                Box::new(move |l| r.fill(l))
            }
            Format::Csv { header } => {
                let options = CsvOptions {
                    header,
                    ..CsvOptions::default()
                };
                let mut r = CsvReader::from_reader(source, "fuzz.csv", options, setup.on_error);
                Box::new(move |l| r.fill(l))
            }
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
                return Err(e.to_string());
            }
        }
    }
    out.push(checked(l.harvest().expect("the last batch harvests")));
    if l.start_batch().expect("the overflow batch starts") && l.row_count() > 0 {
        out.push(checked(l.harvest().expect("the overflow row harvests")));
    }
    Ok(out.into_iter().filter(|b| b.num_rows() > 0).collect())
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
        chunk: Some(1 + usize::from(b / 4) % 9),
        one_pass: true,
        projection: usize::from(c) % PROJECTIONS.len(),
        declared: c & 4 != 0,
    }
}

fuzz_target!(|raw: &[u8]| {
    let [a, b, c, data @ ..] = raw else { return };
    let setup = setup_of(*a, *b, *c);
    let whole = Setup {
        chunk: None,
        ..setup
    };
    let expected = read(data, whole);
    assert_eq!(
        read(data, setup),
        expected,
        "read {:?} bytes at a time",
        setup.chunk
    );
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
                assert_eq!(small, big, "one row a batch against one batch");
            }
        }
    }
});
