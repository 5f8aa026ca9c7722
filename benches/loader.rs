//! Criterion benches of the Rust core: 1M rows of a flat schema (6 scalar columns) and of a
//! nested one (struct, list<utf8>, list<struct>), with batches cut by the row limit (no
//! overflow) and by a small vector limit (an overflow row moved on every batch).
//! Throughput is in rows: criterion reports rows/s; ns/row = 1e9 / that.

use std::hint::black_box;
use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields, Schema};
use batchloader::{LoaderOptions, ResultSetLoader, Value, ROOT};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

const ROWS: usize = 1_000_000;
const WORDS: [&str; 8] = [
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
];

fn flat_schema() -> Schema {
    Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("score", DataType::Float64, true),
        Field::new("name", DataType::Utf8, true),
        Field::new("flag", DataType::Boolean, true),
        Field::new("qty", DataType::Int32, true),
        Field::new("day", DataType::Date32, true),
    ])
}

fn nested_schema() -> Schema {
    let address = DataType::Struct(Fields::from(vec![
        Field::new("city", DataType::Utf8, true),
        Field::new("zip", DataType::Int32, true),
    ]));
    let event = DataType::Struct(Fields::from(vec![
        Field::new("kind", DataType::Utf8, true),
        Field::new("value", DataType::Int64, true),
    ]));
    Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("address", address, true),
        Field::new(
            "tags",
            DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
            true,
        ),
        Field::new(
            "events",
            DataType::List(Arc::new(Field::new("item", event, true))),
            true,
        ),
    ])
}

fn new_loader(schema: Schema, limits: Limits) -> ResultSetLoader {
    let mut loader = ResultSetLoader::new(LoaderOptions {
        schema: Some(Arc::new(schema)),
        vector_byte_limit: limits.vector_byte_limit,
        row_limit: limits.row_limit,
        ..LoaderOptions::default()
    })
    .expect("loader");
    loader.start_batch().expect("batch");
    loader
}

/// The limits of one case.
#[derive(Clone, Copy)]
struct Limits {
    vector_byte_limit: usize,
    row_limit: usize,
}

/// Start a row, harvesting (and counting) a batch whenever the current one is full.
fn start(loader: &mut ResultSetLoader, batches: &mut usize) {
    if !loader.start_row().unwrap() {
        black_box(loader.harvest().unwrap());
        *batches += 1;
        loader.start_batch().unwrap();
        assert!(loader.start_row().unwrap());
    }
}

fn write_flat(limits: Limits) -> usize {
    let mut l = new_loader(flat_schema(), limits);
    let cols: Vec<_> = (0..6).map(|i| l.column_at(ROOT, i).unwrap()).collect();
    let mut batches = 0;
    for i in 0..ROWS {
        start(&mut l, &mut batches);
        l.set(cols[0], Value::Int(i as i64)).unwrap();
        if i % 20 != 0 {
            l.set(cols[1], Value::Float(i as f64 * 0.5)).unwrap();
        }
        l.set(cols[2], Value::Str(WORDS[i % 8])).unwrap();
        l.set(cols[3], Value::Bool(i % 3 == 0)).unwrap();
        l.set(cols[4], Value::Int((i % 1000) as i64)).unwrap();
        l.set(cols[5], Value::Date((i % 20000) as i32)).unwrap();
        l.save_row().unwrap();
    }
    black_box(l.harvest().unwrap());
    batches + 1
}

fn write_nested(limits: Limits) -> usize {
    let mut l = new_loader(nested_schema(), limits);
    let id = l.column(ROOT, "id").unwrap();
    let address = l.column(ROOT, "address").unwrap();
    let (city, zip) = (
        l.column(address, "city").unwrap(),
        l.column(address, "zip").unwrap(),
    );
    let tags = l.column(ROOT, "tags").unwrap();
    let tag = l.element(tags).unwrap();
    let events = l.column(ROOT, "events").unwrap();
    let event = l.element(events).unwrap();
    let (kind, value) = (
        l.column(event, "kind").unwrap(),
        l.column(event, "value").unwrap(),
    );
    let mut batches = 0;
    for i in 0..ROWS {
        start(&mut l, &mut batches);
        l.set(id, Value::Int(i as i64)).unwrap();
        l.set(city, Value::Str(WORDS[i % 8])).unwrap();
        l.set(zip, Value::Int((i % 99999) as i64)).unwrap();
        for t in 0..(i % 3) {
            l.set(tag, Value::Str(WORDS[(i + t) % 8])).unwrap();
            l.save_element(tags).unwrap();
        }
        for (e, word) in WORDS.iter().enumerate().take(i % 4) {
            l.set(kind, Value::Str(word)).unwrap();
            l.set(value, Value::Int(e as i64)).unwrap();
            l.save_element(events).unwrap();
        }
        l.save_row().unwrap();
    }
    black_box(l.harvest().unwrap());
    batches + 1
}

fn bench(c: &mut Criterion) {
    // "overflow": a 64 KiB vector limit ends every batch with an overflow row moved to the
    // next. "same_batches": the row limit that gives as many batches without any overflow,
    // so the two differ only by the overflow handling. "row_limit": the default 65536 rows.
    let overflow = Limits {
        vector_byte_limit: 64 << 10,
        row_limit: 65536,
    };
    let by_rows = |rows: usize| Limits {
        vector_byte_limit: 16 << 20,
        row_limit: rows,
    };
    type Writer = fn(Limits) -> usize;
    let writers: [(&str, Writer); 2] = [("flat", write_flat), ("nested", write_nested)];
    let mut group = c.benchmark_group("write_1M_rows");
    group.sample_size(10);
    group.throughput(Throughput::Elements(ROWS as u64));
    for (name, write) in writers {
        let batches = write(overflow);
        let same = by_rows(ROWS.div_ceil(batches));
        eprintln!(
            "{name}: {batches} batches with overflow, {} without",
            write(same)
        );
        for (case, limits) in [
            ("row_limit", by_rows(65536)),
            ("same_batches", same),
            ("overflow", overflow),
        ] {
            group.bench_with_input(BenchmarkId::new(name, case), &limits, |b, &limits| {
                b.iter(|| write(limits))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
