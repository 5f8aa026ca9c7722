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

fn new_loader(schema: Schema, vector_byte_limit: usize) -> ResultSetLoader {
    let mut loader = ResultSetLoader::new(LoaderOptions {
        schema: Some(Arc::new(schema)),
        vector_byte_limit,
        ..LoaderOptions::default()
    })
    .expect("loader");
    loader.start_batch().expect("batch");
    loader
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

fn write_flat(vector_byte_limit: usize) -> usize {
    let mut l = new_loader(flat_schema(), vector_byte_limit);
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

fn write_nested(vector_byte_limit: usize) -> usize {
    let mut l = new_loader(nested_schema(), vector_byte_limit);
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
    // 16 MiB: batches end at the 65536-row limit. 64 KiB: the id column fills after 8192
    // rows, so every batch ends with an overflow row moved to the next.
    let cases = [("row_limit", 16usize << 20), ("overflow", 64 << 10)];
    let mut group = c.benchmark_group("write_1M_rows");
    group.sample_size(10);
    group.throughput(Throughput::Elements(ROWS as u64));
    for (name, limit) in cases {
        group.bench_with_input(BenchmarkId::new("flat", name), &limit, |b, &limit| {
            b.iter(|| write_flat(limit))
        });
        group.bench_with_input(BenchmarkId::new("nested", name), &limit, |b, &limit| {
            b.iter(|| write_nested(limit))
        });
    }
    group.finish();
    // How often the overflow cases overflow (printed once, for the report).
    eprintln!(
        "batches: flat {} / {}, nested {} / {}",
        write_flat(16 << 20),
        write_flat(64 << 10),
        write_nested(16 << 20),
        write_nested(64 << 10)
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
