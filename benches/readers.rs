//! Criterion benches of the Rust readers on in-memory input, without Python: 100k generated
//! rows of a nested NDJSON dataset (read whole, with the narrow projection `id`,
//! `address.city`, `events`, and with none: every value skipped, still checked), of a flat
//! one, and of the flat one as CSV (all strings, and with column types). The shapes are the
//! Python harness's (`batchloader.bench`), so the two can be read side by side. Throughput
//! is in input bytes: criterion reports MiB/s.

use std::hint::black_box;
use std::io::Cursor;
use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema, TimeUnit};
use batchloader::readers::{CsvOptions, CsvReader, NdjsonReader, OnError};
use batchloader::{LoaderOptions, Projection, ResultSetLoader};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

const ROWS: usize = 100_000;
const CITIES: [&str; 4] = ["Rome", "Nice", "Oslo", "Lima"];
const KINDS: [&str; 5] = ["click", "view", "buy", "share", "scroll"];

/// A xorshift64 generator: the same data on every run, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// A float in [0, 1) with 53 random bits (printed with up to 17 digits).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A timestamp text `seconds` after 2024-01-01, with microseconds (`sep` between date and
/// clock, as NDJSON (`T`) and CSV (` `) have it).
fn timestamp(seconds: u64, micros: u64, sep: char) -> String {
    let (day, rest) = (seconds / 86_400, seconds % 86_400);
    let (h, m, s) = (rest / 3600, rest / 60 % 60, rest % 60);
    format!(
        "2024-01-{:02}{sep}{h:02}:{m:02}:{s:02}.{micros:06}",
        day % 28 + 1
    )
}

/// Lines like `batchloader.bench`'s nested rows: scalars, a list of strings, a struct
/// holding a struct, a list of structs.
fn nested_ndjson() -> Vec<u8> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut out = String::new();
    for id in 0..ROWS as u64 {
        let score = if rng.below(10) == 0 {
            "null".to_string()
        } else {
            (rng.unit() * 100.0).to_string()
        };
        let tags: Vec<String> = (0..rng.below(4))
            .map(|_| format!("\"{}\"", KINDS[rng.below(5) as usize]))
            .collect();
        let events: Vec<String> = (0..rng.below(5))
            .map(|_| {
                let kind = KINDS[rng.below(5) as usize];
                format!("{{\"kind\": \"{kind}\", \"value\": {}}}", rng.below(1000))
            })
            .collect();
        out += &format!(
            "{{\"id\": {id}, \"ts\": \"{}\", \"user\": \"user{}\", \"score\": {score}, \
             \"tags\": [{}], \"address\": {{\"city\": \"{}\", \"zip\": \"{:05}\", \
             \"geo\": {{\"lat\": {}, \"lon\": {}}}}}, \"events\": [{}]}}\n",
            timestamp(id, rng.below(1_000_000), 'T'),
            rng.below(100_000),
            tags.join(", "),
            CITIES[rng.below(4) as usize],
            rng.below(100_000),
            rng.unit() * 180.0 - 90.0,
            rng.unit() * 360.0 - 180.0,
            events.join(", "),
        );
    }
    out.into_bytes()
}

/// The flat rows' values: id, user, score, qty, flag, ts.
fn flat_values() -> Vec<(u64, String, f64, u64, bool, String)> {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    (0..ROWS as u64)
        .map(|id| {
            (
                id,
                format!("user{}", rng.below(100_000)),
                rng.unit() * 100.0,
                rng.below(1000),
                rng.below(2) == 0,
                timestamp(id, 0, ' '),
            )
        })
        .collect()
}

fn flat_ndjson() -> Vec<u8> {
    let mut out = String::new();
    for (id, user, score, qty, flag, ts) in flat_values() {
        let ts = ts.replace(' ', "T");
        out += &format!(
            "{{\"id\": {id}, \"user\": \"{user}\", \"score\": {score}, \"qty\": {qty}, \
             \"flag\": {flag}, \"ts\": \"{ts}\"}}\n"
        );
    }
    out.into_bytes()
}

fn flat_csv() -> Vec<u8> {
    let mut out = String::from("id,user,score,qty,flag,ts\n");
    for (id, user, score, qty, flag, ts) in flat_values() {
        out += &format!("{id},\"{user}\",{score},{qty},{flag},{ts}\n");
    }
    out.into_bytes()
}

fn flat_csv_schema(typed: bool) -> Schema {
    let types = [
        ("id", DataType::Int64),
        ("user", DataType::Utf8),
        ("score", DataType::Float64),
        ("qty", DataType::Int64),
        ("flag", DataType::Boolean),
        ("ts", DataType::Timestamp(TimeUnit::Microsecond, None)),
    ];
    let fields = types.into_iter().map(|(name, t)| {
        let t = if typed { t } else { DataType::Utf8 };
        Field::new(name, t, true)
    });
    Schema::new(fields.collect::<Vec<_>>())
}

/// Fill batches from `fill` into one loader of `options` to the end; the rows read.
fn drain(options: LoaderOptions, mut fill: impl FnMut(&mut ResultSetLoader) -> bool) -> usize {
    let mut l = ResultSetLoader::new(options).expect("loader");
    let mut rows = 0;
    l.start_batch().expect("batch");
    while fill(&mut l) {
        rows += black_box(l.harvest().expect("harvest")).num_rows();
        l.start_batch().expect("batch");
    }
    rows + black_box(l.harvest().expect("harvest")).num_rows()
}

/// Loader options of the scan's defaults, 64 MiB batches, with `projection`.
fn options(projection: Option<&[&str]>, schema: Option<Schema>) -> LoaderOptions {
    LoaderOptions {
        schema: schema.map(Arc::new),
        projection: match projection {
            Some(paths) => Projection::parse(paths).expect("projection"),
            None => Projection::All,
        },
        vector_byte_limit: 64 << 20,
        ..LoaderOptions::default()
    }
}

fn read_ndjson(text: &'static [u8], projection: Option<&[&str]>) -> usize {
    let input = Box::new(Cursor::new(text));
    let mut reader = NdjsonReader::from_reader(input, "mem.json", OnError::Error, true);
    drain(options(projection, None), |l| reader.fill(l).expect("fill"))
}

fn read_csv(text: &'static [u8], typed: bool) -> usize {
    let input = Box::new(Cursor::new(text));
    let csv = CsvOptions {
        header: true,
        ..CsvOptions::default()
    };
    let mut reader = CsvReader::from_reader(input, "mem.csv", csv, OnError::Error);
    let schema = flat_csv_schema(typed);
    drain(options(None, Some(schema)), |l| {
        reader.fill(l).expect("fill")
    })
}

fn bench(c: &mut Criterion) {
    // read in place by every iteration (a reader's input is `'static`)
    let nested: &'static [u8] = nested_ndjson().leak();
    let flat: &'static [u8] = flat_ndjson().leak();
    let csv: &'static [u8] = flat_csv().leak();
    let narrow: &[&str] = &["id", "address.city", "events"];
    let mut group = c.benchmark_group("read_100k_rows");
    group.sample_size(10);
    type Read<'a> = Box<dyn Fn() -> usize + 'a>;
    let cases: Vec<(&str, usize, Read)> = vec![
        (
            "ndjson_nested/full",
            nested.len(),
            Box::new(move || read_ndjson(nested, None)),
        ),
        (
            "ndjson_nested/narrow",
            nested.len(),
            Box::new(move || read_ndjson(nested, Some(narrow))),
        ),
        (
            "ndjson_nested/no_columns",
            nested.len(),
            Box::new(move || read_ndjson(nested, Some(&[]))),
        ),
        (
            "ndjson_flat/full",
            flat.len(),
            Box::new(move || read_ndjson(flat, None)),
        ),
        (
            "csv_flat/strings",
            csv.len(),
            Box::new(move || read_csv(csv, false)),
        ),
        (
            "csv_flat/typed",
            csv.len(),
            Box::new(move || read_csv(csv, true)),
        ),
    ];
    for (name, bytes, read) in &cases {
        assert_eq!(read(), ROWS, "{name}");
        group.throughput(Throughput::Bytes(*bytes as u64));
        group.bench_function(BenchmarkId::from_parameter(name), |b| b.iter(read));
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
