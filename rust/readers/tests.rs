//! Unit tests of the readers on in-memory input.

use std::io::Cursor;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int64Type};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};

use super::csv::{CsvOptions, CsvReader, HeaderNames};
use super::input::Source;
use super::lines::Trickle;
use super::ndjson::{NdjsonReader, OnError, ReadError};
use crate::loader::{LoaderOptions, Projection, ResultSetLoader};

/// A discovering NDJSON reader over `text`.
fn ndjson_reader(text: &str, on_error: OnError) -> NdjsonReader {
    let input = Box::new(Cursor::new(text.as_bytes().to_vec()));
    NdjsonReader::from_reader(input, "mem.json", on_error, true)
}

fn read_all(
    text: &str,
    options: LoaderOptions,
    on_error: OnError,
) -> Result<Vec<RecordBatch>, ReadError> {
    read_all_with(&mut ndjson_reader(text, on_error), options)
}

/// Every non-empty batch reader `r` fills, with a loader of `options`.
fn read_all_with(
    r: &mut NdjsonReader,
    options: LoaderOptions,
) -> Result<Vec<RecordBatch>, ReadError> {
    let mut l = ResultSetLoader::new(options).unwrap();
    let mut out = Vec::new();
    l.start_batch().unwrap();
    while r.fill(&mut l)? {
        out.push(l.harvest().unwrap());
        l.start_batch().unwrap();
    }
    out.push(l.harvest().unwrap());
    if l.start_batch().unwrap() && l.row_count() > 0 {
        out.push(l.harvest().unwrap());
    }
    Ok(out.into_iter().filter(|b| b.num_rows() > 0).collect())
}

/// A CSV reader of `text` with a header, under `conventions`.
fn header_csv(text: &str, conventions: super::Conventions, on_error: OnError) -> CsvReader {
    csv_of(text, true, conventions, on_error)
}

/// What one fill of a loader of `schema` by `r` gives: its batch, or the error.
fn fill_once_by(r: &mut CsvReader, schema: &Arc<Schema>) -> Result<RecordBatch, ReadError> {
    let mut l = ResultSetLoader::new(LoaderOptions {
        schema: Some(Arc::clone(schema)),
        ..LoaderOptions::default()
    })
    .unwrap();
    l.start_batch().unwrap();
    r.fill(&mut l).map(|_| l.harvest().unwrap())
}

/// A CSV reader of `text`, with a header or not, under `conventions`.
fn csv_of(
    text: &str,
    header: bool,
    conventions: super::Conventions,
    on_error: OnError,
) -> CsvReader {
    let options = CsvOptions {
        header,
        conventions,
        ..CsvOptions::default()
    };
    let input = Box::new(Cursor::new(text.as_bytes().to_vec()));
    CsvReader::from_reader(input, "mem.csv", options, on_error)
}

#[test]
fn discovers_nested_types_and_widens() {
    let text = "{\"a\": 1, \"m\": {\"x\": \"s\"}, \"l\": []}\n\n{\"a\": 2.5, \"l\": [1, 2]}\n";
    let batches = read_all(text, LoaderOptions::default(), OnError::Error).unwrap();
    let b = &batches[0];
    assert_eq!(b.num_rows(), 2);
    assert_eq!(b.schema().field(0).data_type(), &DataType::Float64);
    assert_eq!(
        b.column(0).as_primitive::<Float64Type>().values().to_vec(),
        vec![1.0, 2.5]
    );
    let l = b.column(2).as_list::<i32>();
    assert_eq!(l.value_offsets(), &[0, 0, 2]);
    assert_eq!(l.values().data_type(), &DataType::Int64);
    assert!(b.column(1).is_null(1));
}

#[test]
fn unprojected_fields_are_skipped_while_parsing() {
    let options = LoaderOptions {
        projection: Projection::parse(&["b"]).unwrap(),
        ..LoaderOptions::default()
    };
    // `a` is not even valid for any single type: it is never looked at.
    let text = "{\"a\": {\"deep\": [1, {\"x\": null}]}, \"b\": 1}\n{\"a\": \"str\", \"b\": 2}\n";
    let batches = read_all(text, options, OnError::Error).unwrap();
    assert_eq!(batches[0].schema().fields().len(), 1);
    assert_eq!(
        batches[0]
            .column(0)
            .as_primitive::<Int64Type>()
            .values()
            .to_vec(),
        vec![1, 2]
    );
}

#[test]
fn errors_name_line_and_column() {
    let err = read_all(
        "{\"a\": 1}\n{\"a\": tru}\n",
        LoaderOptions::default(),
        OnError::Error,
    )
    .unwrap_err();
    let ReadError::Input(e) = err else {
        panic!("not an input error")
    };
    assert_eq!(e.line, 2);
    assert!(e.column.is_some());
    assert!(e.to_string().starts_with("mem.json, line 2, column"), "{e}");
    assert!(!e.unreadable, "bad text is not an unreadable file");
}

#[test]
fn skip_and_permissive_lose_nothing_silently() {
    let text = "{\"a\": 1}\nnot json\n{\"a\": 3}\n";
    let skipped = read_all(text, LoaderOptions::default(), OnError::Skip).unwrap();
    assert_eq!(skipped.iter().map(|b| b.num_rows()).sum::<usize>(), 2);
    let kept = read_all(text, LoaderOptions::default(), OnError::Permissive).unwrap();
    let b = &kept[0];
    assert_eq!(b.num_rows(), 3);
    let corrupt = b.column(1).as_string::<i32>();
    assert_eq!(corrupt.value(1), "not json");
    assert!(corrupt.is_null(0) && corrupt.is_null(2));
}

/// A reader keeps the errors of the first `BAD_RECORDS_KEPT` records it skipped or kept
/// as bad, in order, each as "error" mode raises it; none in "error" mode.
#[test]
fn readers_keep_their_first_bad_records_errors() {
    use super::ndjson::BAD_RECORDS_KEPT;
    // one bad line more than are kept
    let total = 2 * BAD_RECORDS_KEPT + 3;
    let lines: Vec<String> = (0..total)
        .map(|i| match i % 2 {
            0 => format!("{{\"a\": {i}}}"),
            _ => format!("oops {i}"),
        })
        .collect();
    let text = lines.join("\n") + "\n";
    let Err(ReadError::Input(raised)) = read_all(&text, LoaderOptions::default(), OnError::Error)
    else {
        panic!("a bad line was read");
    };
    for on_error in [OnError::Skip, OnError::Permissive] {
        let mut r = ndjson_reader(&text, on_error);
        let rows: usize = read_all_with(&mut r, LoaderOptions::default())
            .unwrap()
            .iter()
            .map(|b| b.num_rows())
            .sum();
        let bad = r.bad_records();
        assert_eq!(bad.len(), BAD_RECORDS_KEPT);
        assert_eq!(bad[0], raised);
        let places: Vec<u64> = bad.iter().map(|e| e.line).collect();
        let want: Vec<u64> = (1..=BAD_RECORDS_KEPT as u64).map(|k| 2 * k).collect();
        assert_eq!(places, want, "{on_error:?}");
        let counted = r.skipped_lines() + r.corrupt_lines();
        assert_eq!(counted, BAD_RECORDS_KEPT as u64 + 1);
        assert_eq!(rows as u64 + r.skipped_lines(), total as u64);
    }
    let mut r = ndjson_reader(&text[..text.find("oops").unwrap()], OnError::Skip);
    read_all_with(&mut r, LoaderOptions::default()).unwrap();
    assert!(r.bad_records().is_empty());
}

/// A line of JSON white space (spaces, tabs, `\r`) is blank; one holding any other byte,
/// a form feed or a vertical tab too, is malformed: kept or counted, never dropped unseen
/// (found by fuzzing: a form feed line was taken for blank).
#[test]
fn only_json_white_space_makes_a_line_blank() {
    for other in ["\u{c}", " \u{b} ", "\u{c}\r", "\u{1c}"] {
        for ending in ["\n", ""] {
            let text = format!("{{\"a\": 1}}\n \t\r\n{other}{ending}");
            let kept = read_all(&text, LoaderOptions::default(), OnError::Permissive).unwrap();
            let rows: usize = kept.iter().map(|b| b.num_rows()).sum();
            assert_eq!(rows, 2, "{text:?}");
            let err = read_all(&text, LoaderOptions::default(), OnError::Error).unwrap_err();
            assert!(err.to_string().contains("line 3"), "{text:?}: {err}");
        }
    }
}

#[test]
fn provided_types_convert_values() {
    let schema = Schema::new(vec![
        Field::new("d", DataType::Date32, true),
        Field::new("n", DataType::Decimal128(6, 2), true),
        Field::new("i", DataType::Int16, true),
    ]);
    let options = LoaderOptions {
        schema: Some(Arc::new(schema)),
        ..LoaderOptions::default()
    };
    let text = "{\"d\": \"1970-01-03\", \"n\": 12.5, \"i\": 7}\n{\"n\": \"0.01\"}\n";
    let b = &read_all(text, options, OnError::Error).unwrap()[0];
    assert_eq!(
        b.column(0)
            .as_primitive::<arrow_array::types::Date32Type>()
            .value(0),
        2
    );
    let n = b
        .column(1)
        .as_primitive::<arrow_array::types::Decimal128Type>();
    assert_eq!((n.value(0), n.value(1)), (1250, 1));
}

/// Under Spark's conventions a whole number into a zoned timestamp counts seconds (in the
/// column's unit), a base64 string into binary is decoded, and a number into a date or a
/// zone-less timestamp is refused naming the rule; Arrow's, the default, count the unit and
/// days, and keep a string's bytes. Both paths (one-pass and serde) read each line alike,
/// in a list's elements too.
#[test]
fn spark_conventions_read_seconds_and_base64() {
    use super::Conventions;
    use arrow_array::types::{Date32Type, TimestampMillisecondType};
    use arrow_schema::TimeUnit;
    let ms = DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into()));
    let schema = Arc::new(Schema::new(vec![
        Field::new("t", ms.clone(), true),
        Field::new("b", DataType::Binary, true),
        Field::new("l", DataType::new_list(ms, true), true),
        Field::new("d", DataType::Date32, true),
        Field::new("w", DataType::Timestamp(TimeUnit::Second, None), true),
    ]));
    let options = || LoaderOptions {
        schema: Some(Arc::clone(&schema)),
        ..LoaderOptions::default()
    };
    let line = r#"{"t": 1700000000, "b": "aGk=", "l": [-5, 2], "d": null}"#;
    let text = format!("{line}\n{line}\n");
    for one_pass in [true, false] {
        let reader = |text: &str| {
            ndjson_reader(text, OnError::Error)
                .with_conventions(Conventions::Spark)
                .one_pass(one_pass)
        };
        let b = &read_all_with(&mut reader(&text), options()).unwrap()[0];
        let t = b.column(0).as_primitive::<TimestampMillisecondType>();
        assert_eq!(t.values().to_vec(), vec![1_700_000_000_000; 2]);
        assert_eq!(b.column(1).as_binary::<i32>().value(1), b"hi");
        let l = b.column(2).as_list::<i32>();
        let values = l.values().as_primitive::<TimestampMillisecondType>();
        assert_eq!(values.values().to_vec(), vec![-5_000, 2_000, -5_000, 2_000]);
        // seconds convert on the one-pass path too (a binary value sends a line to serde)
        let mut r = reader("{\"t\": 1, \"l\": [2]}\n{\"t\": 3}\n");
        let b = &read_all_with(&mut r, options()).unwrap()[0];
        let t = b.column(0).as_primitive::<TimestampMillisecondType>();
        assert_eq!((t.value(0), t.value(1)), (1_000, 3_000));
        assert_eq!(r.src.one_pass_lines, if one_pass { 2 } else { 0 });

        for (bad, why) in [
            (r#"{"d": 3}"#, "reads a date from a string only"),
            (r#"{"b": "aGk"}"#, "not base64"),
            (r#"{"w": "2024-01-01T00:00:00Z"}"#, "holds wall clocks"),
            (
                r#"{"t": 10000000000000000}"#,
                "out of range in milliseconds",
            ),
        ] {
            let text = format!("{line}\n{bad}\n");
            let Err(ReadError::Input(e)) = read_all_with(&mut reader(&text), options()) else {
                panic!("{bad} was read");
            };
            assert_eq!(e.line, 2, "{bad}");
            assert!(e.message.contains(why), "{bad}: {}", e.message);
        }

        // Arrow's conventions: the unit, days, the text's bytes, the instant
        let more = r#"{"d": 3, "w": "1970-01-01T01:00:00+01:00"}"#;
        let mut arrow =
            ndjson_reader(&format!("{line}\n{more}\n"), OnError::Error).one_pass(one_pass);
        let b = &read_all_with(&mut arrow, options()).unwrap()[0];
        let t = b.column(0).as_primitive::<TimestampMillisecondType>();
        assert_eq!(t.value(0), 1_700_000_000);
        assert_eq!(b.column(1).as_binary::<i32>().value(0), b"aGk=");
        assert_eq!(b.column(3).as_primitive::<Date32Type>().value(1), 3);
        let w = b
            .column(4)
            .as_primitive::<arrow_array::types::TimestampSecondType>();
        assert_eq!(w.value(1), 0);
    }
}

/// A schema of a date `d` and a timestamp `t` in `unit`, in UTC.
fn date_and_utc_timestamp(unit: arrow_schema::TimeUnit) -> arrow_schema::SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("d", DataType::Date32, true),
        Field::new("t", DataType::Timestamp(unit, Some("UTC".into())), true),
    ]))
}

/// Under Spark's conventions both readers take the date and timestamp texts Spark's take
/// besides ISO-8601 (`spark_times` has the forms), the JSON one a whole number's text
/// into a date as days too; under Arrow's each is bad input naming its line. A text Spark
/// refuses stays refused under either.
#[test]
fn spark_conventions_read_sparks_date_and_timestamp_texts() {
    use super::Conventions;
    use arrow_array::types::{Date32Type, TimestampMicrosecondType};
    use arrow_schema::TimeUnit;
    let schema = date_and_utc_timestamp(TimeUnit::Microsecond);
    let options = || LoaderOptions {
        schema: Some(Arc::clone(&schema)),
        ..LoaderOptions::default()
    };
    // (date text, timestamp text): each row 2024-01-02 and 2024-01-02T03:04:00Z
    let rows = [
        ("2024-1-2", "2024-1-2 3:04"),
        ("2024-01-02T03:04:05Z", "2024-01-02T03:04:00 UTC"),
        ("2024-01-02 anything", "2024-01-02T04:04:00+1"),
        ("12", "2024-01-01T19:04:00 PST"), // the date: 1970-01-13, as Spark counts days
    ];
    let json: String = rows
        .iter()
        .map(|(d, t)| format!("{{\"d\": \"{d}\", \"t\": \"{t}\"}}\n"))
        .collect();
    let csv: String = std::iter::once("d,t\n".to_string())
        .chain(rows.iter().map(|(d, t)| format!("{d},{t}\n")))
        .collect();
    let day = crate::loader::days_from_civil(2024, 1, 2) as i32;
    let instant = (i64::from(day) * 86_400 + 3 * 3600 + 4 * 60) * 1_000_000;
    let check = |b: &RecordBatch, last_day: i32| {
        let d = b.column(0).as_primitive::<Date32Type>();
        let t = b.column(1).as_primitive::<TimestampMicrosecondType>();
        assert_eq!(d.values().to_vec(), [day, day, day, last_day]);
        assert_eq!(t.values().to_vec(), vec![instant; 4]);
    };
    for one_pass in [true, false] {
        let reader = |conventions| {
            ndjson_reader(&json, OnError::Error)
                .with_conventions(conventions)
                .one_pass(one_pass)
        };
        check(
            &read_all_with(&mut reader(Conventions::Spark), options()).unwrap()[0],
            12,
        );
        let Err(ReadError::Input(e)) = read_all_with(&mut reader(Conventions::Arrow), options())
        else {
            panic!("Arrow's conventions read Spark's texts");
        };
        assert_eq!(e.line, 1);
        assert!(e.message.contains("not an ISO-8601 date"), "{}", e.message);
        // what Spark reads as today's time is refused, saying so
        let text = format!("{json}{{\"t\": \"12:00\"}}\n");
        let mut r = ndjson_reader(&text, OnError::Error)
            .with_conventions(Conventions::Spark)
            .one_pass(one_pass);
        let Err(ReadError::Input(e)) = read_all_with(&mut r, options()) else {
            panic!("a time of day alone was read");
        };
        assert_eq!(e.line, 5);
        assert!(e.message.contains("a time of day alone"), "{}", e.message);
    }
    let csv_reader = |conventions| header_csv(&csv, conventions, OnError::Error);
    let read_csv = |mut r: CsvReader| {
        let mut l = ResultSetLoader::new(options()).unwrap();
        l.start_batch().unwrap();
        r.fill(&mut l).map(|_| l.harvest().unwrap())
    };
    // Spark's CSV reader counts no days: the last row's date is refused
    let Err(ReadError::Input(e)) = read_csv(csv_reader(Conventions::Spark)) else {
        panic!("a whole number read as a CSV date");
    };
    assert_eq!(e.line, 5);
    assert!(e.message.contains("is not a date: \"12\""), "{}", e.message);
    let Err(ReadError::Input(e)) = read_csv(csv_reader(Conventions::Arrow)) else {
        panic!("Arrow's conventions read Spark's texts");
    };
    assert_eq!(e.line, 2);
    let csv = csv.replace("\n12,", "\n2024-01-02,");
    let r = header_csv(&csv, Conventions::Spark, OnError::Error);
    check(&read_csv(r).unwrap(), day);
}

/// A decimal with more fractional digits than its column's scale: under Spark's
/// conventions rounded half up, from a JSON number or string (both paths) and a CSV field,
/// as Spark's readers set it to the scale (probed on Spark 4.3); one that rounds past the
/// precision is refused. Under Arrow's each such text is refused, naming its line, and so
/// it is under Spark's in a decimal column the user did not declare (a type inferred from
/// whole numbers takes whole numbers only).
#[test]
fn decimals_past_the_scale_round_half_up_under_sparks_conventions() {
    use super::Conventions;
    use arrow_array::types::Decimal128Type;
    let schema = Arc::new(Schema::new(vec![Field::new(
        "d",
        DataType::Decimal128(5, 2),
        true,
    )]));
    let declared = || LoaderOptions {
        schema: Some(Arc::clone(&schema)),
        declared: vec!["d".into()],
        ..LoaderOptions::default()
    };
    let options = declared;
    let inferred = || LoaderOptions {
        declared: Vec::new(),
        ..declared()
    };
    let texts = [
        "1.2", "1.234", "1.235", "-1.235", "999.994", "0.005", "1.5e-3",
    ];
    let want = [120, 123, 124, -124, 99_999, 1, 0];
    let values = |b: &RecordBatch| {
        b.column(0)
            .as_primitive::<Decimal128Type>()
            .values()
            .to_vec()
    };
    for quoted in [false, true] {
        let q = if quoted { "\"" } else { "" };
        let json: String = texts
            .iter()
            .map(|t| format!("{{\"d\": {q}{t}{q}}}\n"))
            .collect();
        for one_pass in [true, false] {
            let reader = |text: &str, conventions| {
                ndjson_reader(text, OnError::Error)
                    .with_conventions(conventions)
                    .one_pass(one_pass)
            };
            let b = &read_all_with(&mut reader(&json, Conventions::Spark), options()).unwrap()[0];
            assert_eq!(values(b), want, "quoted {quoted}, one pass {one_pass}");
            let Err(ReadError::Input(e)) =
                read_all_with(&mut reader(&json, Conventions::Arrow), options())
            else {
                panic!("Arrow's conventions rounded a decimal");
            };
            assert_eq!(e.line, 2, "{}", e.message);
            let over = format!("{{\"d\": {q}999.995{q}}}\n");
            let Err(ReadError::Input(e)) =
                read_all_with(&mut reader(&over, Conventions::Spark), options())
            else {
                panic!("999.995 rounded into decimal(5, 2)");
            };
            assert_eq!(e.line, 1, "{}", e.message);
            let Err(ReadError::Input(e)) =
                read_all_with(&mut reader(&json, Conventions::Spark), inferred())
            else {
                panic!("a decimal rounded in a column the user did not declare");
            };
            assert_eq!(e.line, 2, "{}", e.message);
        }
    }
    let csv_reader = |text: String, conventions| header_csv(&text, conventions, OnError::Error);
    let read_csv = |mut r: CsvReader| {
        let mut l = ResultSetLoader::new(options()).unwrap();
        l.start_batch().unwrap();
        r.fill(&mut l).map(|_| l.harvest().unwrap())
    };
    let csv = format!("d\n{}\n", texts.join("\n"));
    let b = read_csv(csv_reader(csv.clone(), Conventions::Spark)).unwrap();
    assert_eq!(values(&b), want);
    let Err(ReadError::Input(e)) = read_csv(csv_reader(csv, Conventions::Arrow)) else {
        panic!("Arrow's conventions rounded a CSV decimal");
    };
    assert_eq!(e.line, 3, "{}", e.message);
}

/// Strings in single quotes (keys and values) read as Spark's JSON reader reads them under
/// Spark's conventions, on either path; under Arrow's the line is malformed, at its first
/// single quote.
#[test]
fn single_quoted_strings_read_under_sparks_conventions() {
    use super::Conventions;
    let text =
        "{'a': 1, 'b': 'x'}\n{\"a\": 2, \"b\": 'it is \\u00e9'}\n{\"a\": 3, \"b\": \"it's\"}\n";
    for one_pass in [true, false] {
        let reader = |conventions| {
            ndjson_reader(text, OnError::Error)
                .with_conventions(conventions)
                .one_pass(one_pass)
        };
        let b =
            &read_all_with(&mut reader(Conventions::Spark), LoaderOptions::default()).unwrap()[0];
        let a = b.column_by_name("a").unwrap().as_primitive::<Int64Type>();
        let s = b.column_by_name("b").unwrap().as_string::<i32>();
        assert_eq!(a.values().to_vec(), [1, 2, 3]);
        assert_eq!(
            (s.value(0), s.value(1), s.value(2)),
            ("x", "it is \u{e9}", "it's")
        );
        let Err(ReadError::Input(e)) =
            read_all_with(&mut reader(Conventions::Arrow), LoaderOptions::default())
        else {
            panic!("single quotes read under Arrow's conventions");
        };
        assert_eq!((e.line, e.column), (1, Some(2)), "{}", e.message);
    }
}

/// A CSV boolean, integer or decimal field with white space around it: trimmed under
/// Arrow's conventions, refused under Spark's (as Spark's CSV reader refuses `" 7 "` as an
/// int), which trim a float's text still.
#[test]
fn csv_spaces_around_whole_numbers_are_refused_under_sparks_conventions() {
    use super::Conventions;
    let schema = Arc::new(Schema::new(vec![
        Field::new("i", DataType::Int32, true),
        Field::new("b", DataType::Boolean, true),
        Field::new("n", DataType::Decimal128(5, 2), true),
        Field::new("d", DataType::Float64, true),
    ]));
    let read = |text: &str, conventions| {
        fill_once_by(&mut header_csv(text, conventions, OnError::Error), &schema)
    };
    let all = "i,b,n,d\n 7 , true , 1.5 , 2.5 \n";
    let b = read(all, Conventions::Arrow).unwrap();
    assert_eq!(
        b.column(0)
            .as_primitive::<arrow_array::types::Int32Type>()
            .value(0),
        7
    );
    assert!(b.column(1).as_boolean().value(0));
    for (i, text) in [" 7 ,,,", ", true ,,", ",, 1.5 ,"].iter().enumerate() {
        let text = format!("i,b,n,d\n{text}\n");
        let Err(ReadError::Input(e)) = read(&text, Conventions::Spark) else {
            panic!("{text:?} read under Spark's conventions");
        };
        assert_eq!(
            (e.line, e.column),
            (2, Some(text[8..].find(' ').unwrap() + 1)),
            "{i}"
        );
    }
    let b = read("i,b,n,d\n7,true,1.5, 2.5 \n", Conventions::Spark).unwrap();
    assert_eq!(b.column(3).as_primitive::<Float64Type>().value(0), 2.5);
}

/// The batches of NDJSON `text` read in permissive mode into `schema` under
/// `conventions`, `row_limit` rows a batch (on the one-pass path first or not), and the
/// reader that read them.
fn read_permissive(
    text: &str,
    schema: &arrow_schema::SchemaRef,
    conventions: super::Conventions,
    row_limit: usize,
    one_pass: bool,
) -> (Vec<RecordBatch>, NdjsonReader) {
    let mut r = ndjson_reader(text, OnError::Permissive)
        .with_conventions(conventions)
        .one_pass(one_pass);
    let options = LoaderOptions {
        schema: Some(Arc::clone(schema)),
        row_limit,
        ..LoaderOptions::default()
    };
    (read_all_with(&mut r, options).unwrap(), r)
}

/// An NDJSON line kept as bad input in permissive mode: under Spark's conventions with the
/// values that convert (the one that does not null, or the list holding it), as Spark's
/// JSON reader keeps partial results; a malformed line keeps nothing; under Arrow's the
/// other columns null.
#[test]
fn ndjson_permissive_keeps_the_values_of_a_bad_line_under_sparks_conventions() {
    use super::driver::CORRUPT_RECORD;
    use super::Conventions;
    let element = Arc::new(Field::new("item", DataType::Int64, true));
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Int64, true),
        Field::new("l", DataType::List(element), true),
    ]));
    let text = "{\"a\": 1, \"l\": [1, \"x\"]}\n{\"a\": \"x\", \"l\": [2]}\n{\"a\": 3, oops\n";
    let rows_by = |conventions| {
        let (batches, _) = read_permissive(text, &schema, conventions, 1, true);
        let mut rows = Vec::new();
        for batch in &batches {
            let a = batch
                .column_by_name("a")
                .unwrap()
                .as_primitive::<Int64Type>();
            let l = batch.column_by_name("l").unwrap().as_list::<i32>();
            let bad = batch
                .column_by_name(CORRUPT_RECORD)
                .unwrap()
                .as_string::<i32>();
            let elements = |i: usize| {
                let e = l.value(i);
                e.as_primitive::<Int64Type>().values().to_vec()
            };
            rows.push((
                a.is_valid(0).then(|| a.value(0)),
                l.is_valid(0).then(|| elements(0)),
                bad.is_valid(0).then(|| bad.value(0).len()),
            ));
        }
        rows
    };
    let lengths: Vec<usize> = text.lines().map(str::len).collect();
    assert_eq!(
        rows_by(Conventions::Spark),
        [
            (Some(1), None, Some(lengths[0])),
            (None, Some(vec![2]), Some(lengths[1])),
            (None, None, Some(lengths[2])),
        ]
    );
    assert_eq!(
        rows_by(Conventions::Arrow),
        lengths
            .iter()
            .map(|&n| (None, None, Some(n)))
            .collect::<Vec<_>>()
    );
}

/// Under Spark's conventions an NDJSON line that is an array of objects is a record per
/// object (an empty array none), as Spark's JSON reader reads it, at any batch size; an
/// object that fails is a bad record alone, its error placed in the line; an array holding
/// anything but objects is one bad line. Under Arrow's every array line is bad.
#[test]
fn array_lines_are_a_row_per_object_under_sparks_conventions() {
    use super::driver::CORRUPT_RECORD;
    use super::Conventions;
    let lines = [
        r#"{"a": 0}"#,
        r#"[{"a": 1}, {"a": 2, "b": "x"}]"#,
        "[]",
        "[1, 2]",
        r#"[{"a": "bad", "b": "y"}, {"a": 5}]"#,
        r#"  [ {"a": 7} ]  "#,
        r#"[{"a": 8}] trailing"#,
        r#"[[{"a": 6}]]"#,
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Int64, true),
        Field::new("b", DataType::Utf8, true),
    ]));
    let read = |conventions, row_limit, one_pass| {
        let (batches, r) = read_permissive(&text, &schema, conventions, row_limit, one_pass);
        let mut rows = Vec::new();
        for batch in &batches {
            let a = batch
                .column_by_name("a")
                .unwrap()
                .as_primitive::<Int64Type>();
            let b = batch.column_by_name("b").unwrap().as_string::<i32>();
            let bad = batch.column_by_name(CORRUPT_RECORD);
            for i in 0..batch.num_rows() {
                let text = bad
                    .map(|c| c.as_string::<i32>())
                    .filter(|c| c.is_valid(i))
                    .map(|c| c.value(i).to_string());
                let b = b.is_valid(i).then(|| b.value(i).to_string());
                rows.push((a.is_valid(i).then(|| a.value(i)), b, text));
            }
        }
        let places: Vec<_> = r.bad_records().iter().map(|e| (e.line, e.column)).collect();
        (rows, places)
    };
    let s = |t: &str| Some(t.to_string());
    for row_limit in [1, 2, 100] {
        for one_pass in [true, false] {
            let (rows, places) = read(Conventions::Spark, row_limit, one_pass);
            assert_eq!(
                rows,
                [
                    (Some(0), None, None),
                    (Some(1), None, None),
                    (Some(2), s("x"), None),
                    (None, None, s("[1, 2]")),
                    (None, s("y"), s(r#"{"a": "bad", "b": "y"}"#)), // partial results
                    (Some(5), None, None),
                    (Some(7), None, None),
                    (None, None, s(r#"[{"a": 8}] trailing"#)),
                    (None, None, s(r#"[[{"a": 6}]]"#)),
                ],
                "row limit {row_limit}, one pass {one_pass}"
            );
            assert_eq!(places[1], (5, Some(8)), "the value \"bad\" in its line");
        }
    }
    let (rows, _) = read(Conventions::Arrow, 100, true);
    let kept: Vec<_> = rows.iter().filter(|(a, _, _)| a.is_some()).collect();
    assert_eq!(kept, [&(Some(0), None, None)]);
    assert_eq!(rows.len(), lines.len());
}

/// Date and timestamp texts read by the patterns given (`TimeFormats`): by CSV and by
/// NDJSON on both paths alike, and an ISO text the pattern does not spell is bad input
/// naming the pattern.
#[test]
fn dates_and_timestamps_read_by_the_patterns_given() {
    use super::{TimeFormats, TimePattern};
    use arrow_array::types::{Date32Type, TimestampSecondType};
    use arrow_schema::TimeUnit;
    let schema = date_and_utc_timestamp(TimeUnit::Second);
    let formats = || TimeFormats {
        date: Some(TimePattern::java("dd.MM.yyyy").unwrap()),
        timestamp: Some(TimePattern::java("yyyyMMdd HHmm").unwrap()),
        timestamp_ntz: None,
    };
    let options = || LoaderOptions {
        schema: Some(Arc::clone(&schema)),
        ..LoaderOptions::default()
    };
    let check = |batches: Vec<RecordBatch>| {
        let b = &batches[0];
        let d = b.column(0).as_primitive::<Date32Type>();
        let t = b.column(1).as_primitive::<TimestampSecondType>();
        assert_eq!((d.value(0), t.value(0)), (19_724, 1_704_164_640)); // 2024-01-02 03:04
    };
    let csv = "d,t\n02.01.2024,20240102 0304\n2024-01-02,20240102 0304\n";
    let input = Box::new(Cursor::new(csv.as_bytes().to_vec()));
    let header = CsvOptions {
        header: true,
        ..CsvOptions::default()
    };
    let mut r = CsvReader::from_reader(input, "mem.csv", header, OnError::Skip)
        .with_time_formats(formats());
    let mut l = ResultSetLoader::new(options()).unwrap();
    l.start_batch().unwrap();
    assert!(!r.fill(&mut l).unwrap());
    check(vec![l.harvest().unwrap()]);
    assert_eq!(r.skipped_lines(), 1);
    assert!(r.bad_records()[0].message.contains("\"dd.MM.yyyy\""));
    let json = "{\"d\": \"02.01.2024\", \"t\": \"20240102 0304\"}\n{\"d\": \"2024-01-02\"}\n";
    for one_pass in [true, false] {
        let mut r = ndjson_reader(json, OnError::Skip)
            .one_pass(one_pass)
            .with_time_formats(formats());
        check(read_all_with(&mut r, options()).unwrap());
        assert_eq!(r.skipped_lines(), 1, "{one_pass}");
        assert!(r.bad_records()[0].message.contains("\"dd.MM.yyyy\""));
    }
}

/// A CSV record kept as bad input in permissive mode: under Spark's conventions with the
/// values that convert (a field that does not is null, the fields past the header's left
/// out, a record short of fields is bad too), as Spark's CSV reader keeps partial results;
/// under Arrow's the other columns null, a short record a row (Drill's rule). A bad record
/// that starts a batch (the one before it full) is kept alike.
#[test]
fn csv_permissive_keeps_the_values_of_a_bad_record_under_sparks_conventions() {
    use super::driver::CORRUPT_RECORD;
    use super::Conventions;
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Int64, true),
        Field::new("b", DataType::Int64, true),
        Field::new("c", DataType::Utf8, true),
    ]));
    let text = "a,b,c\n1,x,p\n2,3,q\n4,5,r,extra\n6,7\n8,9.5,s\n";
    let rows_by = |conventions, row_limit| {
        let mut r = header_csv(text, conventions, OnError::Permissive);
        let mut l = ResultSetLoader::new(LoaderOptions {
            schema: Some(Arc::clone(&schema)),
            row_limit,
            ..LoaderOptions::default()
        })
        .unwrap();
        let mut rows = Vec::new();
        let mut more = true;
        while more {
            l.start_batch().unwrap();
            more = r.fill(&mut l).unwrap();
            let batch = l.harvest().unwrap();
            let ints = |name: &str| {
                batch
                    .column_by_name(name)
                    .unwrap()
                    .as_primitive::<Int64Type>()
                    .clone()
            };
            let texts = |name: &str| {
                batch
                    .column_by_name(name)
                    .map(|c| c.as_string::<i32>().clone())
            };
            let (a, b, c, bad) = (
                ints("a"),
                ints("b"),
                texts("c").unwrap(),
                texts(CORRUPT_RECORD),
            );
            for i in 0..batch.num_rows() {
                let int = |x: &arrow_array::Int64Array| x.is_valid(i).then(|| x.value(i));
                let text =
                    |x: &arrow_array::StringArray| x.is_valid(i).then(|| x.value(i).to_string());
                rows.push((int(&a), int(&b), text(&c), bad.as_ref().and_then(text)));
            }
        }
        rows
    };
    let s = |t: &str| Some(t.to_string());
    let spark = [
        (Some(1), None, s("p"), s("1,x,p")),
        (Some(2), Some(3), s("q"), None),
        (Some(4), Some(5), s("r"), s("4,5,r,extra")),
        (Some(6), Some(7), None, s("6,7")), // short: malformed to Spark, its fields kept
        (Some(8), None, s("s"), s("8,9.5,s")),
    ];
    let arrow = [
        (None, None, None, s("1,x,p")),
        (Some(2), Some(3), s("q"), None),
        (None, None, None, s("4,5,r,extra")),
        (Some(6), Some(7), None, None),
        (None, None, None, s("8,9.5,s")),
    ];
    for row_limit in [1, 2, 100] {
        assert_eq!(rows_by(Conventions::Spark, row_limit), spark, "{row_limit}");
        assert_eq!(rows_by(Conventions::Arrow, row_limit), arrow, "{row_limit}");
    }
}

/// A header's empty names and names given twice: under Arrow's conventions `column<n>`
/// and an error naming the name; under Spark's, Spark's names (`_c<i>`, the name with its
/// index), in every byte range of the file alike (a later range reads the header apart).
#[test]
fn csv_header_names_follow_the_conventions() {
    use super::Conventions;
    let text = "a,,b,a,A,\n1,2,3,4,5,6\n7,8,9,10,11,12\n";
    let options = |conventions| CsvOptions {
        header: true,
        conventions,
        ..CsvOptions::default()
    };
    let names_of = |batch: &RecordBatch| {
        let schema = batch.schema();
        schema
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect::<Vec<_>>()
    };
    let (source, _) = in_memory("mem.csv", text.as_bytes());
    let second = text.find('7').unwrap() as u64;
    for (start, end) in [(0, text.len() as u64), (second, text.len() as u64)] {
        let range = super::input::ByteRange { start, end };
        let mut r = CsvReader::open(
            &source,
            Some(range),
            options(Conventions::Spark),
            OnError::Error,
        )
        .unwrap();
        let mut l = ResultSetLoader::new(LoaderOptions::default()).unwrap();
        l.start_batch().unwrap();
        assert!(!r.fill(&mut l).unwrap());
        let batch = l.harvest().unwrap();
        assert_eq!(
            names_of(&batch),
            ["a0", "_c1", "b", "a3", "A4", "_c5"],
            "{start}"
        );
        let last = batch.column(5).as_string::<i32>();
        assert_eq!(last.value(batch.num_rows() - 1), "12");
    }
    let e = match CsvReader::open(&source, None, options(Conventions::Arrow), OnError::Error) {
        Ok(mut r) => {
            let mut l = ResultSetLoader::new(LoaderOptions::default()).unwrap();
            l.start_batch().unwrap();
            r.fill(&mut l).map(|_| ()).unwrap_err()
        }
        Err(e) => ReadError::Input(e),
    };
    let ReadError::Input(e) = e else {
        panic!("not an input error");
    };
    assert!(
        e.message.contains("the header names 'a' twice"),
        "{}",
        e.message
    );
    let (source, _) = in_memory("mem.csv", b"a,,b\n1,2,3\n");
    let mut r =
        CsvReader::open(&source, None, options(Conventions::Arrow), OnError::Error).unwrap();
    let mut l = ResultSetLoader::new(LoaderOptions::default()).unwrap();
    l.start_batch().unwrap();
    assert!(!r.fill(&mut l).unwrap());
    assert_eq!(names_of(&l.harvest().unwrap()), ["a", "column2", "b"]);
}

/// A whole number past int64 (within uint64) that a column the data typed holds as a
/// float64 which is not it (digits lost) is noted (`take_wholes_rounded`): in a column it
/// starts, in an int64 column it widens, in a float64 column the data typed, in a list's
/// elements, on both paths; not one a float64 holds exactly (2^63), nor one a declared
/// column holds (float64 as the user chose, uint64 exactly).
#[test]
fn whole_numbers_rounded_to_float64_are_noted() {
    let lines = [
        r#"{"n": 12345678901234567891, "w": 1, "f": 0.5, "e": [1, 18446744073709551615]}"#,
        r#"{"w": 12345678901234567891, "f": 18446744073709551615, "x": 9223372036854775808}"#,
        r#"{"n": 12345678901234567891, "d": 12345678901234567891, "u": 12345678901234567891}"#,
    ];
    let text = lines.join("\n") + "\n";
    let declared = Arc::new(Schema::new(vec![
        Field::new("d", DataType::Float64, true),
        Field::new("u", DataType::UInt64, true),
    ]));
    for one_pass in [true, false] {
        let mut r = ndjson_reader(&text, OnError::Error).one_pass(one_pass);
        let mut l = ResultSetLoader::new(LoaderOptions {
            schema: Some(Arc::clone(&declared)),
            declared: vec!["d".into(), "u".into()],
            ..LoaderOptions::default()
        })
        .unwrap();
        l.start_batch().unwrap();
        assert!(!r.fill(&mut l).unwrap());
        let rounded = l.take_wholes_rounded();
        let want = [("e[]", 1), ("f", 1), ("n", 2), ("w", 1)];
        let want: Vec<(String, u64)> = want.iter().map(|&(p, n)| (p.to_string(), n)).collect();
        assert_eq!(rounded, want, "one_pass: {one_pass}");
        let b = l.harvest().unwrap();
        let u = b.column_by_name("u").unwrap();
        let u = u.as_primitive::<arrow_array::types::UInt64Type>();
        assert_eq!(u.value(2), 12_345_678_901_234_567_891);
    }
}

/// A float32 column rounds a fraction's text once: `1.0000000596046448` is a hair above
/// the midpoint between 1 and the next f32, and an f64 on the way would be that midpoint,
/// rounded to the even 1. On every line, whichever path reads it (a key with an escape
/// sends a line the general way).
#[test]
fn float32_columns_round_fractions_once() {
    let schema = Schema::new(vec![
        Field::new("x", DataType::Float32, true),
        Field::new("l", DataType::new_list(DataType::Float32, true), true),
    ]);
    let options = LoaderOptions {
        schema: Some(Arc::new(schema)),
        ..LoaderOptions::default()
    };
    let line = "{\"x\": 1.0000000596046448, \"l\": [1.0000000596046448, 16777217, -0]}\n";
    // a key with an escape is the general path's
    let general = line.replace("\"x\"", "\"\\u0078\"");
    let text = format!("{general}{line}{general}{line}");
    let batches = read_all(&text, options, OnError::Error).unwrap();
    let above = 1.0f32.next_up();
    for b in &batches {
        let x = b
            .column(0)
            .as_primitive::<arrow_array::types::Float32Type>();
        assert!(x.values().iter().all(|&v| v == above), "{x:?}");
        let l = b.column(1).as_list::<i32>();
        for row in 0..l.len() {
            let items = l.value(row);
            let items = items.as_primitive::<arrow_array::types::Float32Type>();
            let bits: Vec<u32> = items.values().iter().map(|v| v.to_bits()).collect();
            assert_eq!(
                bits,
                [above, 16777216.0, 0.0].map(f32::to_bits),
                "row {row}"
            );
        }
    }
    assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), 4);
}

#[test]
fn rows_larger_than_a_batch_span_batches_without_loss() {
    let text: String = (0..1000).map(|i| format!("{{\"i\": {i}}}\n")).collect();
    let options = LoaderOptions {
        row_limit: 64,
        ..LoaderOptions::default()
    };
    let batches = read_all(&text, options, OnError::Error).unwrap();
    let all: Vec<i64> = batches
        .iter()
        .flat_map(|b| b.column(0).as_primitive::<Int64Type>().values().to_vec())
        .collect();
    assert_eq!(all, (0..1000).collect::<Vec<_>>());
}

#[test]
fn a_reader_can_move_to_another_loader() {
    let text = "{\"a\": 1, \"b\": 2}\n{\"a\": 3, \"b\": 4}\n{\"a\": 5, \"b\": 6}\n";
    let mut r = ndjson_reader(text, OnError::Error);
    let mut first = ResultSetLoader::new(LoaderOptions {
        row_limit: 2,
        ..LoaderOptions::default()
    })
    .unwrap();
    first.start_batch().unwrap();
    assert!(r.fill(&mut first).unwrap());
    // The second loader knows only `b`, at column id 1 (where the first had `a`).
    let mut second = ResultSetLoader::new(LoaderOptions {
        schema: Some(Arc::new(Schema::new(vec![Field::new(
            "b",
            DataType::Int64,
            true,
        )]))),
        projection: Projection::parse(&["b"]).unwrap(),
        ..LoaderOptions::default()
    })
    .unwrap();
    second.start_batch().unwrap();
    assert!(!r.fill(&mut second).unwrap());
    let b = second.harvest().unwrap();
    assert_eq!(b.schema().fields().len(), 1);
    assert_eq!(
        b.column(0).as_primitive::<Int64Type>().values().to_vec(),
        vec![6]
    );
}

/// A file named `name` whose bytes are `bytes`, opened through an opener (as a remote file
/// is), counting its opens.
fn in_memory(name: &str, bytes: &[u8]) -> (Source, Arc<std::sync::atomic::AtomicUsize>) {
    let (bytes, opens) = (
        bytes.to_vec(),
        Arc::new(std::sync::atomic::AtomicUsize::new(0)),
    );
    let counted = Arc::clone(&opens);
    let opener: super::input::Opener = Arc::new(move |offset| {
        counted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut cursor = Cursor::new(bytes.clone());
        cursor.set_position(offset);
        Ok(Box::new(cursor) as Box<dyn std::io::Read + Send>)
    });
    (Source::opened_by(name, opener), opens)
}

/// Every line of `source` read through ranges cut at `cuts`, in order.
fn lines_in_ranges(source: &Source, cuts: &[u64]) -> Vec<String> {
    use std::io::BufRead;
    let mut out = Vec::new();
    for w in cuts.windows(2) {
        let range = super::input::ByteRange {
            start: w[0],
            end: w[1],
        };
        let (mut input, _) =
            super::input::open_range(source, range, &super::input::LineEnds::Feed).unwrap();
        let mut line = String::new();
        while input.read_line(&mut line).unwrap() > 0 {
            out.push(std::mem::take(&mut line));
        }
    }
    out
}

#[test]
fn byte_ranges_at_any_offsets_read_every_line_once() {
    let dir = std::env::temp_dir().join(format!("bl-ranges-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("lines.json");
    // lines of varied length, an empty line, and no newline at the end
    let lines: Vec<String> = (0..40)
        .map(|i| format!("{{\"i\": {i}, \"s\": \"{}\"}}\n", "x".repeat(i % 7)))
        .chain(["\n".to_string(), "{\"last\": 1}".to_string()])
        .collect();
    let text = lines.concat();
    std::fs::write(&path, &text).unwrap();
    let len = text.len() as u64;
    // the local file, and the same bytes opened as a remote file is
    let sources = [
        Source::local(path.to_str().unwrap()),
        in_memory("lines.json", text.as_bytes()).0,
    ];
    for source in &sources {
        for step in [1, 2, 3, 5, 17, 64, len] {
            let mut cuts: Vec<u64> = (0..len).step_by(step as usize).collect();
            cuts.push(len);
            assert_eq!(
                lines_in_ranges(source, &cuts),
                lines,
                "{source:?} step {step}"
            );
        }
        // two-way splits at every offset
        for cut in 0..=len {
            assert_eq!(lines_in_ranges(source, &[0, cut, len]), lines, "cut {cut}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_error_in_a_later_range_names_its_line_in_the_whole_file() {
    let dir = std::env::temp_dir().join(format!("bl-range-err-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.json");
    let text = "{\"a\": 1}\n{\"a\": 2}\n{\"a\": 3}\n{\"a\": oops}\n{\"a\": 5}\n";
    std::fs::write(&path, text).unwrap();
    let range = super::input::ByteRange {
        start: 20,
        end: text.len() as u64,
    };
    let sources = [
        Source::local(path.to_str().unwrap()),
        in_memory("s3://bucket/bad.json", text.as_bytes()).0,
    ];
    for source in &sources {
        let mut r = NdjsonReader::open(source, Some(range), OnError::Error, true).unwrap();
        let mut l = ResultSetLoader::new(LoaderOptions::default()).unwrap();
        l.start_batch().unwrap();
        let err = match r.fill(&mut l).unwrap_err() {
            ReadError::Input(e) => e.to_string(),
            other => panic!("{other:?}"),
        };
        assert!(err.contains("line 4"), "{err}");
        assert!(err.contains(source.name()), "{err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A byte range that reads well does not count the lines before it: that count (a read of
/// the whole file up to the range) is for error messages only. A split at 1 GB would read
/// 1 GB more, and the splits of a file together O(splits^2) of it.
#[test]
fn a_range_without_errors_reads_only_from_its_start() {
    let ndjson: String = (0..200).map(|i| format!("{{\"i\": {i}}}\n")).collect();
    let csv: String = (0..200).map(|i| format!("{i},x\n")).collect();
    for (name, text) in [("r.json", &ndjson), ("r.csv", &csv)] {
        let len = text.len() as u64;
        let range = super::input::ByteRange {
            start: len / 2,
            end: len,
        };
        let (source, opens) = in_memory(name, text.as_bytes());
        let mut l = ResultSetLoader::new(LoaderOptions::default()).unwrap();
        l.start_batch().unwrap();
        let more = if name.ends_with(".json") {
            let mut r = NdjsonReader::open(&source, Some(range), OnError::Error, true).unwrap();
            r.fill(&mut l).unwrap()
        } else {
            let options = CsvOptions {
                header: false,
                delimiter: b',',
                quote: b'"',
                escape: None,
                ..CsvOptions::default()
            };
            let mut r =
                CsvReader::open(&source, Some(range), options.clone(), OnError::Error).unwrap();
            r.fill(&mut l).unwrap()
        };
        assert!(!more);
        // the lines that start in the range: past its start, and the one at it, if any
        let starts = text.match_indices('\n').map(|(at, _)| at as u64 + 1);
        let want = starts.filter(|&at| range.start <= at && at < len).count();
        assert_eq!(l.harvest().unwrap().num_rows(), want, "{name}");
        assert_eq!(
            opens.load(std::sync::atomic::Ordering::Relaxed),
            1,
            "{name}"
        );
    }
}

/// Spark's CSV reader reads an empty field without quotes as null whatever its
/// `nullValue`, and `""` as an empty string unless `""` is a null text (its default): so
/// under Spark's conventions, split or parsed (a quoted line break, an escape), as Arrow's
/// take `""` and an empty field alike.
#[test]
fn spark_tells_a_quoted_empty_field_from_an_empty_one() {
    use super::Conventions;
    let text = "a,b,c\n,\"\",x\n\"\",,\"l\nm\"\n\"\",\"\\\\\",\n";
    let values = |conventions, nulls: &[&str]| {
        let options = CsvOptions {
            header: true,
            escape: Some(b'\\'),
            conventions,
            ..CsvOptions::default()
        };
        let input = std::io::Cursor::new(text.as_bytes().to_vec());
        let r = CsvReader::from_reader(Box::new(input), "mem.csv", options, OnError::Error);
        let mut r = r.with_null_values(nulls);
        let mut l = ResultSetLoader::new(LoaderOptions::default()).unwrap();
        l.start_batch().unwrap();
        assert!(!r.fill(&mut l).unwrap());
        let batch = l.harvest().unwrap();
        (0..batch.num_columns())
            .map(|c| {
                let a = batch.column(c).as_string::<i32>();
                (0..a.len())
                    .map(|i| a.is_valid(i).then(|| a.value(i).to_string()))
                    .collect::<Vec<_>>()
            })
            .collect::<Vec<_>>()
    };
    let s = |v: &str| Some(v.to_string());
    assert_eq!(
        values(Conventions::Spark, &["NA"]),
        [
            vec![None, s(""), s("")],
            vec![s(""), None, s("\\")],
            vec![s("x"), s("l\nm"), None]
        ]
    );
    assert_eq!(
        values(Conventions::Spark, &[]),
        [
            vec![None; 3],
            vec![None, None, s("\\")],
            vec![s("x"), s("l\nm"), None]
        ]
    );
    assert_eq!(
        values(Conventions::Arrow, &["NA"]),
        [
            vec![s(""), s(""), s("")],
            vec![s(""), s(""), s("\\")],
            vec![s("x"), s("l\nm"), s("")]
        ]
    );
}

/// A file opened through an opener is read as a local file is: decompressed by its name's
/// suffix, opened once for a whole read; an opener's error names the file.
#[test]
fn files_opened_by_an_opener_read_as_local_ones() {
    use std::io::Write;
    let text = "{\"a\": 1}\n{\"a\": 2}\n";
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(text.as_bytes()).unwrap();
    let gz = gz.finish().unwrap();
    for (name, bytes) in [("m.json", text.as_bytes()), ("m.json.gz", &gz[..])] {
        let (source, opens) = in_memory(name, bytes);
        let mut r = NdjsonReader::open(&source, None, OnError::Error, true).unwrap();
        let batches = read_all_with(&mut r, LoaderOptions::default()).unwrap();
        let values: Vec<i64> = batches
            .iter()
            .flat_map(|b| b.column(0).as_primitive::<Int64Type>().values().to_vec())
            .collect();
        assert_eq!(values, vec![1, 2], "{name}");
        assert_eq!(
            opens.load(std::sync::atomic::Ordering::Relaxed),
            1,
            "{name}"
        );
    }
    let failing: super::input::Opener =
        Arc::new(|_| Err(std::io::Error::other("access denied by the store")));
    let source = Source::opened_by("s3://bucket/x.json", failing);
    let Err(e) = NdjsonReader::open(&source, None, OnError::Error, true) else {
        panic!("an opener's error was not reported");
    };
    assert!(e.to_string().contains("s3://bucket/x.json"), "{e}");
    assert!(e.to_string().contains("access denied by the store"), "{e}");
    assert!(e.unreadable, "a file that cannot be opened is unreadable");
    // cut inside its stream: the whole lines before the cut, then an unreadable file
    let text: String = (0..2000).map(|i| format!("{{\"a\": {i}}}\n")).collect();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(text.as_bytes()).unwrap();
    let gz = gz.finish().unwrap();
    let (source, _) = in_memory("cut.json.gz", &gz[..gz.len() / 2]);
    let mut r = NdjsonReader::open(&source, None, OnError::Skip, true).unwrap();
    let Err(ReadError::Input(e)) = read_all_with(&mut r, LoaderOptions::default()) else {
        panic!("a cut stream was not reported");
    };
    assert!(e.unreadable && e.message.contains("truncated"), "{e}");
    let missing = Source::local("/nonexistent/batchloader/x.json");
    let Err(e) = NdjsonReader::open(&missing, None, OnError::Error, true) else {
        panic!("a missing file was not reported");
    };
    assert!(!e.unreadable, "a missing file is not a corrupt one: {e}");
}

#[test]
fn compressed_files_refuse_byte_ranges() {
    let range = super::input::ByteRange { start: 0, end: 10 };
    let err = super::input::open_range(
        &Source::local("x.json.gz"),
        range,
        &super::input::LineEnds::Feed,
    )
    .err()
    .unwrap();
    assert!(err.to_string().contains("compressed"));
}

#[test]
fn element_projection_is_pushed_into_parsing() {
    let options = LoaderOptions {
        projection: Projection::parse(&["c[1]", "c[3]"]).unwrap(),
        ..LoaderOptions::default()
    };
    // Elements 0, 2 and 4+ are never parsed: their types would conflict with int64.
    let text = concat!(
        "{\"c\": [{\"x\": 1}, 10, [\"no\"], 30, \"tail\", {}]}\n",
        "{\"c\": [true, 11]}\n",
        "{\"c\": [null]}\n",
        "{\"c\": []}\n",
    );
    let batches = read_all(text, options, OnError::Error).unwrap();
    let c = batches[0].column(0).as_list::<i32>();
    assert_eq!(c.value_offsets(), &[0, 4, 6, 7, 7]);
    let items = c.values().as_primitive::<Int64Type>();
    let got: Vec<Option<i64>> = items.iter().collect();
    assert_eq!(
        got,
        [None, Some(10), None, Some(30), None, Some(11), None],
        "positions kept, elements not asked for null, the tail dropped"
    );
}

#[test]
fn null_elements_before_the_first_value_take_its_type() {
    let text = "{\"c\": [null, 1]}\n{\"c\": [null]}\n{\"c\": [2, null]}\n";
    let batches = read_all(text, LoaderOptions::default(), OnError::Error).unwrap();
    let c = batches[0].column(0).as_list::<i32>();
    assert_eq!(c.value_offsets(), &[0, 2, 3, 5]);
    let got: Vec<Option<i64>> = c.values().as_primitive::<Int64Type>().iter().collect();
    assert_eq!(got, [None, Some(1), None, Some(2), None]);
}

#[test]
fn top_level_keys_left_out_by_the_projection_are_reported_once() {
    let options = LoaderOptions {
        projection: Projection::parse(&["b", "m.x"]).unwrap(),
        ..LoaderOptions::default()
    };
    // keys that hold no data (nulls, empty arrays and objects) lose nothing: not reported
    let text = concat!(
        "{\"a\": 1, \"b\": 2, \"m\": {\"y\": 0}, \"e\": {}, \"n\": null}\n",
        "{\"b\": 3, \"z\": [{}, [null, 0]], \"a\": 4, \"q\": [[], {\"r\": null}]}\n",
        "{\"b\": 5, \"e\": {\"f\": [[]]}, \"n\": null, \"q\": []}\n",
    );
    // again with every line on the general path (a key with an escape)
    for text in [text.to_string(), text.replace("\"b\"", "\"\\u0062\"")] {
        let mut l = ResultSetLoader::new(options.clone()).unwrap();
        let mut r = ndjson_reader(&text, OnError::Error);
        l.start_batch().unwrap();
        assert!(!r.fill(&mut l).unwrap());
        // members left out of a projected struct (m.y) are the projection's business
        assert_eq!(r.ignored_columns(), ["a", "z"], "{text}");
    }
}

/// After `stop_adding_columns` a struct member without a column is read past rather than
/// made a column: values of mixed types in it fail no line; it is noted once a value that
/// is not null shows it (nulls lose nothing), and lines that have it only null stay on the
/// one-pass path. A new top-level field is noted as before.
#[test]
fn members_met_after_columns_stop_are_read_past_and_noted_once_they_hold_a_value() {
    let first = "{\"m\": {\"a\": 1}, \"ev\": [{\"k\": 1}]}\n".repeat(2);
    let nulls = "{\"m\": {\"a\": 2, \"n\": null}, \"ev\": [{\"k\": 2, \"z\": null}]}\n";
    let mixed = [
        "{\"m\": {\"a\": 3, \"b\": []}, \"ev\": [{\"k\": 3, \"z\": {}}]}\n",
        "{\"m\": {\"a\": 4, \"b\": {\"c\": 1}}, \"ev\": [{\"k\": 4, \"z\": 5}], \"top\": 1}\n",
    ]
    .concat();
    // a new top-level field sends its line to the general path
    let general = "{\"top\": null, \"m\": {\"n\": null, \"a\": 2}, \"ev\": [{\"z\": null}]}\n";
    let text = first + general + &nulls.repeat(3) + &mixed;
    let mut l = ResultSetLoader::new(LoaderOptions {
        row_limit: 2,
        ..LoaderOptions::default()
    })
    .unwrap();
    let mut r = ndjson_reader(&text, OnError::Error);
    let mut batches = Vec::new();
    l.start_batch().unwrap();
    while r.fill(&mut l).unwrap() {
        batches.push(l.harvest().unwrap());
        l.start_batch().unwrap();
        r.stop_adding_columns();
    }
    let after_nulls = r.src.one_pass_lines;
    batches.push(l.harvest().unwrap());
    assert!(batches.iter().all(|b| b.schema() == batches[0].schema()));
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    assert_eq!(rows, 8);
    assert_eq!(r.ignored_members(), ["m.b", "ev[].z"]);
    assert_eq!(r.ignored_columns(), ["top"]);
    // the lines whose new members are only null stay on the one-pass path
    assert!(after_nulls >= 3, "{after_nulls}");
    let a = batches[3].column(0).as_struct().column(0);
    assert_eq!(a.as_primitive::<Int64Type>().values().to_vec(), vec![3, 4]);
}

/// Whatever byte limit ends the first batch: a field null in all its rows is in it (typed
/// by the null type, its later values kept as text), even when the batch ends by an
/// overflow; and a row that overflowed after adding a column is written again at the start
/// of the next batch, so the batch set aside lacks that column, and every row comes once.
#[test]
fn batches_ending_by_overflow_keep_their_null_fields_and_not_the_next_rows_columns() {
    let mut text = String::new();
    for a in 0..10 {
        text += &format!("{{\"a\": {a}, \"s\": \"0123456789\", \"y\": null}}\n");
    }
    text += &format!(
        "{{\"a\": 10, \"s\": \"{}\", \"y\": 5, \"n\": 1}}\n",
        "x".repeat(40)
    );
    text += "{\"a\": 11, \"y\": 6}\n";
    let mut overflowed = 0;
    for limit in (200..1200).step_by(7) {
        let options = LoaderOptions {
            batch_byte_limit: Some(limit),
            ..LoaderOptions::default()
        };
        let batches = read_all(&text, options, OnError::Error).unwrap();
        let a: Vec<i64> = batches
            .iter()
            .flat_map(|b| {
                b.column_by_name("a")
                    .unwrap()
                    .as_primitive::<Int64Type>()
                    .values()
                    .to_vec()
            })
            .collect();
        assert_eq!(a, (0..12).collect::<Vec<i64>>(), "limit {limit}");
        let first = &batches[0];
        let y = first.column_by_name("y").expect("y is in the first batch");
        let has_row_10 = first.num_rows() > 10;
        if !has_row_10 {
            overflowed += 1;
            assert_eq!(y.data_type(), &DataType::Utf8, "limit {limit}");
            assert!(first.column_by_name("n").is_none(), "limit {limit}");
        }
        let ys: Vec<String> = batches
            .iter()
            .flat_map(|b| {
                let y = b.column_by_name("y").unwrap();
                (0..b.num_rows())
                    .filter(|&i| y.is_valid(i))
                    .map(|i| match y.data_type() {
                        DataType::Utf8 => y.as_string::<i32>().value(i).to_string(),
                        _ => y.as_primitive::<Int64Type>().value(i).to_string(),
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        assert_eq!(ys, ["5", "6"], "limit {limit}");
    }
    assert!(
        overflowed > 10,
        "the limits end the first batch before row 10: {overflowed}"
    );
}

/// The row that overflows (here while writing its first field) and then fails on a type
/// its own values just gave a column (a list of a boolean and a number) is written again
/// first in the next batch, where the column is the guess the batch before fixed, so it
/// reads, as it would had the batch ended by its row count; written into the first batch
/// (no limit), the same row is bad input.
#[test]
fn a_row_that_overflows_and_then_fails_on_its_own_types_is_read_in_the_next_batch() {
    let pad = "x".repeat(50);
    let mut text = format!("{{\"s\": \"{pad}\", \"y\": null}}\n").repeat(10);
    text += &format!("{{\"s\": \"{pad}\", \"y\": [false, 0]}}\n");
    let options = |vector_byte_limit| LoaderOptions {
        vector_byte_limit,
        ..LoaderOptions::default()
    };
    // ten values of `s` fill 500 of the 512 bytes: the eleventh overflows
    let batches = read_all(&text, options(512), OnError::Error).unwrap();
    assert_eq!(batches.len(), 2);
    assert_eq!(batches[0].num_rows(), 10);
    let y = batches[1].column_by_name("y").unwrap().as_string::<i32>();
    assert_eq!(y.value(0), "[false, 0]");
    let Err(ReadError::Input(e)) = read_all(&text, options(1 << 20), OnError::Error) else {
        panic!("the row typed its list with its own first element");
    };
    assert_eq!(e.line, 11);
}

#[test]
fn a_byte_order_mark_is_skipped_on_the_first_line_only() {
    let text = "\u{feff}{\"s\": \"a\"}\r\n{\"s\": \"\u{feff}b\"}\r\n";
    let batches = read_all(text, LoaderOptions::default(), OnError::Error).unwrap();
    let s = batches[0].column(0).as_string::<i32>();
    assert_eq!(s.iter().collect::<Vec<_>>(), [Some("a"), Some("\u{feff}b")]);
    // not at the start of a line after the first: malformed, as any stray character
    let err = read_all("{}\n\u{feff}{}\n", LoaderOptions::default(), OnError::Error);
    assert!(
        matches!(err, Err(ReadError::Input(ref e)) if e.line == 2),
        "{err:?}"
    );
}

/// A loader whose schema came from earlier data (`inferred`) widens its int64s, nested ones
/// too, as if it had discovered them; the same schema declared (not inferred) refuses.
#[test]
fn inferred_columns_widen_like_discovered_ones() {
    let member = Field::new("x", DataType::Int64, true);
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Int64, true),
        Field::new("m", DataType::Struct(vec![member].into()), true),
        Field::new("b", DataType::Int64, true),
    ]));
    let text =
        "{\"a\": 1, \"m\": {\"x\": 2}, \"b\": 3}\n{\"a\": 1.5, \"m\": {\"x\": 0.5}, \"b\": 4}\n";
    let inferred = LoaderOptions {
        schema: Some(schema.clone()),
        inferred: vec!["A".into(), "m".into()],
        ..LoaderOptions::default()
    };
    let batches = read_all(text, inferred, OnError::Error).unwrap();
    let b = &batches[0];
    assert_eq!(b.num_rows(), 2);
    let a = b.column(0).as_primitive::<Float64Type>();
    assert_eq!(a.values().to_vec(), vec![1.0, 1.5]);
    let x = b
        .column(1)
        .as_struct()
        .column(0)
        .as_primitive::<Float64Type>();
    assert_eq!(x.values().to_vec(), vec![2.0, 0.5]);
    // `b` was not inferred: it keeps int64
    assert_eq!(b.column(2).data_type(), &DataType::Int64);

    let declared = LoaderOptions {
        schema: Some(schema.clone()),
        ..LoaderOptions::default()
    };
    let Err(ReadError::Input(e)) = read_all(text, declared, OnError::Error) else {
        panic!("a declared int64 took a float");
    };
    assert_eq!(e.line, 2);
    assert!(e.message.contains("1.5"), "{}", e.message);

    let unknown = LoaderOptions {
        schema: Some(schema),
        inferred: vec!["nope".into()],
        ..LoaderOptions::default()
    };
    assert!(ResultSetLoader::new(unknown).is_err());
}

/// A column null in a whole batch goes out with the null type; a reader retyping nulls lets
/// the next batch type it from its values (top-level and member), where by default the
/// type stays and such a value is kept as its JSON text.
#[test]
fn a_batch_of_nulls_leaves_the_type_open_when_retyping_nulls() {
    let text = "{\"x\": null, \"s\": {\"q\": null}}\n{\"x\": null, \"s\": {\"q\": null}}\n\
                {\"x\": 1.5, \"s\": {\"q\": 7}}\n{\"x\": null, \"s\": {\"q\": 8}}\n";
    let two = || LoaderOptions {
        row_limit: 2,
        ..LoaderOptions::default()
    };
    let mut r = ndjson_reader(text, OnError::Error).retyping_nulls(true);
    let batches = read_all_with(&mut r, two()).unwrap();
    assert_eq!(batches.len(), 2);
    let types = |b: &RecordBatch| -> Vec<String> {
        b.schema()
            .fields()
            .iter()
            .map(|f| format!("{}: {}", f.name(), f.data_type()))
            .collect()
    };
    // `s` came with the first line, `x` when the batch was handed over
    let q = |dt: &str| format!("s: Struct(\"q\": {dt})");
    assert_eq!(types(&batches[0]), [q("Utf8"), "x: Utf8".to_string()]);
    assert_eq!(batches[0].column(1).null_count(), 2);
    assert_eq!(types(&batches[1]), [q("Int64"), "x: Float64".to_string()]);
    let x = batches[1].column(1).as_primitive::<Float64Type>();
    assert_eq!((x.value(0), x.is_null(1)), (1.5, true));
    let s = batches[1].column(0).as_struct();
    let q = s.column(0).as_primitive::<Int64Type>();
    assert_eq!(q.values().to_vec(), vec![7, 8]);

    let batches = read_all(text, two(), OnError::Error).unwrap();
    let utf8_q = "s: Struct(\"q\": Utf8)".to_string();
    assert_eq!(types(&batches[1]), [utf8_q, "x: Utf8".to_string()]);
    let x = batches[1].column(1).as_string::<i32>();
    assert_eq!((x.value(0), x.is_null(1)), ("1.5", true));
    let q = batches[1]
        .column(0)
        .as_struct()
        .column(0)
        .as_string::<i32>();
    assert_eq!((q.value(0), q.value(1)), ("7", "8"));
}

/// The guesses a batch hands over fix the schema (the reader does not retype nulls): a
/// column null in the whole batch, a list only empty, keep their guessed types, and any
/// later value there is kept as its JSON text, on the one-pass path (lines repeated) as on
/// the general one; a list whose elements typed it before goes on refusing other types.
#[test]
fn a_batch_of_guesses_keeps_later_values_as_their_json_text() {
    let first = "{\"x\": null, \"l\": [], \"k\": [1]}\n".repeat(2);
    let later = "{\"x\": {\"a\": [1, 2.5]}, \"l\": [true, \"s\", {}], \"k\": [2]}\n".repeat(3);
    let two = LoaderOptions {
        row_limit: 2,
        ..LoaderOptions::default()
    };
    let batches = read_all(&(first.clone() + &later), two.clone(), OnError::Error).unwrap();
    assert_eq!(batches.len(), 3);
    let schema = batches[0].schema();
    assert!(batches.iter().all(|b| b.schema() == schema));
    let l_type = DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)));
    assert_eq!(schema.field_with_name("l").unwrap().data_type(), &l_type);
    for b in &batches[1..] {
        let x = b.column_by_name("x").unwrap().as_string::<i32>();
        assert!((0..b.num_rows()).all(|i| x.value(i) == "{\"a\": [1, 2.5]}"));
        let l = b.column_by_name("l").unwrap().as_list::<i32>();
        let elements = l.value(0);
        let elements = elements.as_string::<i32>();
        let texts: Vec<&str> = (0..elements.len()).map(|i| elements.value(i)).collect();
        assert_eq!(texts, ["true", "s", "{}"]);
    }
    let mixed = first + "{\"x\": 1, \"l\": [], \"k\": [\"no\"]}\n";
    let Err(ReadError::Input(e)) = read_all(&mixed, two, OnError::Error) else {
        panic!("a list typed by its elements took a string");
    };
    assert_eq!(e.line, 3);
}

/// The values kept as text in guessed columns are counted per column (`take_text_kept`),
/// once each, on the one-pass path (lines repeated) and the general one alike: a string
/// or a null is not counted, nor is a value of a line skipped as malformed after it, nor
/// anything in the batch that fixed the guesses.
#[test]
fn values_kept_as_text_in_guessed_columns_are_counted_once() {
    let text = [
        "{\"x\": null, \"l\": []}\n".repeat(2),
        "{\"x\": 5, \"l\": [true, \"s\", {}]}\n".repeat(3),
        "{\"x\": \"str\", \"l\": [null]}\n".to_string(),
        "{\"x\": 7, \"l\": [1], \"oops\"}\n".to_string(),
        "{\"l\": [[2]], \"x\": {\"a\": 1}}\n".to_string(),
        // a new column: the general path writes the line
        "{\"x\": [1], \"new\": {\"b\": 1}, \"l\": [false]}\n".to_string(),
    ]
    .concat();
    let mut l = ResultSetLoader::new(LoaderOptions {
        row_limit: 2,
        ..LoaderOptions::default()
    })
    .unwrap();
    let mut r = ndjson_reader(&text, OnError::Skip);
    let mut rows = 0;
    l.start_batch().unwrap();
    while r.fill(&mut l).unwrap() {
        rows += l.harvest().unwrap().num_rows();
        if rows == 2 {
            assert!(l.take_text_kept().is_empty(), "nothing kept yet");
        }
        l.start_batch().unwrap();
    }
    rows += l.harvest().unwrap().num_rows();
    assert_eq!((rows, r.skipped_lines()), (8, 1));
    let kept = l.take_text_kept();
    assert_eq!(kept, [("l[]".to_string(), 8), ("x".to_string(), 5)]);
    assert!(l.take_text_kept().is_empty(), "the counts start again");
}

/// Retyping takes back only the columns the reader gave the null type: a column the caller
/// added to the loader between two fills stays, and so do the null-typed ones then.
#[test]
fn retyping_nulls_leaves_columns_added_between_fills() {
    let text = "{\"x\": null}\n{\"x\": \"s\", \"y\": 1}\n";
    let mut l = ResultSetLoader::new(LoaderOptions {
        row_limit: 1,
        ..LoaderOptions::default()
    })
    .unwrap();
    let mut r = ndjson_reader(text, OnError::Error).retyping_nulls(true);
    l.start_batch().unwrap();
    assert!(r.fill(&mut l).unwrap());
    assert_eq!(
        l.harvest().unwrap().schema().field(0).data_type(),
        &DataType::Utf8
    );
    l.start_batch().unwrap();
    let extra = Field::new("extra", DataType::Boolean, true);
    l.add_column(crate::loader::ROOT, extra).unwrap();
    assert!(!r.fill(&mut l).unwrap());
    let b = l.harvest().unwrap();
    let names: Vec<&str> = b
        .schema_ref()
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    assert_eq!(names, ["x", "extra", "y"]);
    assert_eq!(b.column(0).as_string::<i32>().value(0), "s");
}

/// `file:` URIs name local paths however they are spelt (`Path.as_uri()`, Hadoop's
/// `file:/a`, `localhost`), %-escapes decoded; plain paths are taken as they are.
#[test]
fn file_uris_name_local_paths() {
    use super::input::local_path;
    let ok = |uri: &str| local_path(uri).unwrap().into_owned();
    assert_eq!(ok("file:///tmp/a%20b/c%25.json"), "/tmp/a b/c%.json");
    assert_eq!(ok("file://localhost/tmp/x.json"), "/tmp/x.json");
    assert_eq!(ok("file:/tmp/x.json"), "/tmp/x.json");
    assert_eq!(ok("/tmp/a%20b.json"), "/tmp/a%20b.json");
    assert_eq!(ok("rel/x.json"), "rel/x.json");
    for bad in [
        "file://server/share/x.json",
        "file:rel/x.json",
        "file:///x%FF.json",
        "file:///x.json?v=1",
    ] {
        assert!(local_path(bad).is_err(), "{bad}");
    }

    let dir = std::env::temp_dir().join(format!("batchloader uri {}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("a b.json");
    std::fs::write(&file, "{\"a\": 1}\n").unwrap();
    let uri = format!("file://{}", file.display()).replace(' ', "%20");
    let reader = NdjsonReader::open(&Source::local(&uri), None, OnError::Error, true);
    let mut l = ResultSetLoader::new(LoaderOptions::default()).unwrap();
    l.start_batch().unwrap();
    let more = reader.map(|mut r| r.fill(&mut l).is_ok_and(|more| !more));
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(more.is_ok_and(|done| done), "{uri} was not read to its end");
    assert_eq!(l.harvest().unwrap().num_rows(), 1);

    let remote = Source::local("file://server/x.json");
    let Err(e) = NdjsonReader::open(&remote, None, OnError::Error, true) else {
        panic!("a remote host was opened");
    };
    assert!(e.message.contains("only local files"), "{}", e.message);
}

/// A line whose keys the cache knows is written in one pass, escapes decoded as serde
/// decodes them; a line the one-pass path cannot take (a new key, a lone surrogate) goes
/// through serde, with the same result or error.
#[test]
fn the_one_pass_path_reads_lines_as_serde_does() {
    let line = r#"{"s": "q\"b\\s\/\b\f\n\r\t \u00e9\ud83d\ude00 end", "n": -12.5e-1, "i": 123456789012345678}"#;
    let text = format!("{line}\n{line}\n{line}\n{line}\n");
    let mut r = ndjson_reader(&text, OnError::Error);
    let mut l = ResultSetLoader::new(LoaderOptions::default()).unwrap();
    l.start_batch().unwrap();
    assert!(!r.fill(&mut l).unwrap());
    // the first line makes the columns, which the next ones find
    assert_eq!(r.src.one_pass_lines, 3);
    let b = l.harvest().unwrap();
    let s = b.column(0).as_string::<i32>();
    let want = "q\"b\\s/\u{8}\u{c}\n\r\t \u{e9}\u{1f600} end";
    assert!((0..4).all(|i| s.value(i) == want), "{s:?}");
    let n = b.column(1).as_primitive::<Float64Type>();
    assert!(n.values().iter().all(|&x| x == -1.25));
    let i = b.column(2).as_primitive::<Int64Type>();
    assert!(i.values().iter().all(|&x| x == 123_456_789_012_345_678));

    // a lone surrogate after lines the one-pass path took: serde's error, placed
    let bad = r#"{"s": "x\ud800", "n": 1, "i": 2}"#;
    let text = format!("{line}\n{line}\n{line}\n{bad}\n");
    let mut r = ndjson_reader(&text, OnError::Error);
    let mut l = ResultSetLoader::new(LoaderOptions::default()).unwrap();
    l.start_batch().unwrap();
    let Err(ReadError::Input(e)) = r.fill(&mut l) else {
        panic!("a lone surrogate was read");
    };
    assert_eq!((e.line, r.src.one_pass_lines), (4, 2));
    assert!(e.message.contains("surrogate"), "{}", e.message);
}

/// A line the one-pass path starts and the loader rejects (larger than a batch may be) is
/// written again by serde, which meets the same rejection: skipped, the lines after it are
/// read, quick again, and lines that overflow a batch half-way move whole to the next.
#[test]
fn a_row_rejected_on_the_one_pass_path_is_rejected_with_its_line() {
    let small = |i: usize| format!("{{\"i\": {i}, \"s\": \"{}\"}}\n", "x".repeat(i % 7));
    let big = format!("{{\"i\": 99, \"s\": \"{}\"}}\n", "y".repeat(5000));
    let text: String = (0..3)
        .map(small)
        .chain([big])
        .chain((3..40).map(small))
        .collect();
    let options = || LoaderOptions {
        batch_byte_limit: Some(1000),
        ..LoaderOptions::default()
    };
    let Err(ReadError::Input(e)) = read_all(&text, options(), OnError::Error) else {
        panic!("a row larger than a batch was read");
    };
    assert_eq!(e.line, 4);
    assert!(
        e.message.contains("larger than the batch limits"),
        "{}",
        e.message
    );

    let mut r = ndjson_reader(&text, OnError::Skip);
    let batches = read_all_with(&mut r, options()).unwrap();
    assert!(batches.len() > 1, "the lines span batches");
    let ids: Vec<i64> = batches
        .iter()
        .flat_map(|b| b.column(0).as_primitive::<Int64Type>().values().to_vec())
        .collect();
    assert_eq!(ids, (0..40).map(|i| i as i64).collect::<Vec<_>>());
    assert_eq!(r.skipped_lines(), 1);
    assert!(r.src.one_pass_lines > 30, "{}", r.src.one_pass_lines);
}

/// The one-pass path checks the UTF-8 of each string it keeps or skips (the general path
/// checks the whole line first): non-ASCII text is read quick, a line with invalid UTF-8 in a
/// kept or a skipped string gets the general path's error, placed.
#[test]
fn the_one_pass_path_checks_utf8_in_strings_kept_and_skipped() {
    let good =
        "{\"s\": \"\u{e9}\u{20ac}\u{1f600} long enough to fill a word\", \"t\": \"\u{fc}\"}\n";
    let text = good.repeat(4);
    let mut r = ndjson_reader(&text, OnError::Error);
    let batches = read_all_with(&mut r, LoaderOptions::default()).unwrap();
    let s = batches[0].column(0).as_string::<i32>();
    assert!((0..4).all(|i| s.value(i) == "\u{e9}\u{20ac}\u{1f600} long enough to fill a word"));
    assert_eq!(r.src.one_pass_lines, 3);

    for (bad, projection) in [
        (
            b"{\"s\": \"long enough \xff word\", \"t\": \"u\"}\n".as_slice(),
            vec![],
        ),
        (
            b"{\"s\": \"x\", \"t\": \"skipped \xc3(\"}\n".as_slice(),
            vec!["s"],
        ),
    ] {
        let mut input = good.repeat(3).into_bytes();
        input.extend_from_slice(bad);
        let options = LoaderOptions {
            projection: if projection.is_empty() {
                Projection::All
            } else {
                Projection::parse(&projection).unwrap()
            },
            ..LoaderOptions::default()
        };
        let mut r = NdjsonReader::from_reader(
            Box::new(Cursor::new(input)),
            "mem.json",
            OnError::Error,
            true,
        );
        let Err(ReadError::Input(e)) = read_all_with(&mut r, options) else {
            panic!("invalid UTF-8 was read");
        };
        let at = bad.iter().position(|&b| b >= 0x80).unwrap() + 1;
        assert_eq!((e.line, e.column), (4, Some(at)), "{}", e.message);
        assert!(e.message.contains("invalid UTF-8"), "{}", e.message);
    }
}

/// Decimals of every length and scale read as Rust's correctly rounded parse reads them,
/// whether the one-pass path divides exactly (up to 2^53 over 10^22) or asks fast-float2.
#[test]
fn decimals_read_correctly_rounded() {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut texts = Vec::new();
    for n in 0..4000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let digits = 1 + (seed % 19) as usize;
        let point = 1 + (seed >> 8) as usize % digits.max(1);
        let mut text: String = (0..digits)
            .map(|k| char::from(b'0' + ((seed >> (k * 3)) % 10) as u8))
            .collect();
        if text.len() > 1 && text.starts_with('0') && point > 1 {
            text.replace_range(0..1, "1");
        }
        let (whole, frac) = text.split_at(point.min(digits));
        let frac = if frac.is_empty() { "5" } else { frac };
        let sign = if n % 3 == 0 { "-" } else { "" };
        texts.push(format!("{sign}{whole}.{frac}"));
    }
    let lines: String = texts.iter().map(|t| format!("{{\"x\": {t}}}\n")).collect();
    let mut r = ndjson_reader(&lines, OnError::Error);
    let batches = read_all_with(&mut r, LoaderOptions::default()).unwrap();
    let got: Vec<f64> = batches
        .iter()
        .flat_map(|b| b.column(0).as_primitive::<Float64Type>().values().to_vec())
        .collect();
    assert!(r.src.one_pass_lines > 3900, "{}", r.src.one_pass_lines);
    for (text, x) in texts.iter().zip(&got) {
        let want: f64 = text.parse().unwrap();
        assert_eq!(x.to_bits(), want.to_bits(), "{text}");
    }
}

#[test]
fn an_excerpt_is_centred_on_the_byte_column_of_a_non_ascii_line() {
    use super::driver::excerpt;
    // 'é' and 'ü' take two bytes: the X is at byte 2000, character 1000
    let text = format!("{}X{}", "é".repeat(1000), "ü".repeat(1000));
    let want = format!("{}X{}", "é".repeat(30), "ü".repeat(29));
    assert_eq!(excerpt(text.as_bytes(), Some(2001)), want);
    // four-byte characters, cut by the window wherever it falls
    let text = format!("{}X{}", "\u{1F600}".repeat(100), "ab".repeat(50));
    let got = excerpt(text.as_bytes(), Some(401));
    assert_eq!(
        got,
        format!("{}X{}", "\u{1F600}".repeat(30), &"ab".repeat(50)[..29])
    );
    // short lines, the start and the end of the text, no column
    assert_eq!(excerpt(b"{\"a\": x}", Some(7)), "{\"a\": x}");
    assert_eq!(excerpt(b"abc", None), "abc");
    assert_eq!(excerpt(b"abc", Some(99)), "abc");
    // invalid UTF-8 is shown, not dropped
    assert_eq!(excerpt(b"a\xffb", Some(2)), "a\u{FFFD}b");
}

/// Lines whose keys come in a different order each time, most of them left out by the
/// projection (at the top level and inside a projected struct): once the general path has
/// noted a skipped top-level key, the one-pass path skips it too, so such lines stay quick
/// (they all went through the general path, which also looked the key up in a list of
/// every name noted: a file of thousands of keys took seconds). The rows and the names
/// reported as left out are those of the general path.
#[test]
fn keys_left_out_in_any_order_stay_on_the_one_pass_path() {
    let mut next = crate::readers::numbers::tests::xorshift(0x51_7cc1_b727_220a);
    let lines: Vec<String> = (0..400)
        .map(|i| {
            let mut members = Vec::new();
            for k in 0..12 {
                if !next().is_multiple_of(3) {
                    members.push(format!("\"k{k}\": {}", next() % 100));
                }
            }
            members.push(format!("\"id\": {i}"));
            members.push(format!("\"m\": {{\"u{}\": 1, \"x\": {i}}}", next() % 9));
            // a different order on every line
            let turn = (next() as usize) % members.len();
            members.rotate_left(turn);
            format!("{{{}}}\n", members.join(", "))
        })
        .collect();
    let text = lines.concat();
    let options = || LoaderOptions {
        projection: Projection::parse(&["id", "m.x"]).unwrap(),
        ..LoaderOptions::default()
    };
    let read = |one_pass: bool| {
        let mut r = ndjson_reader(&text, OnError::Error).one_pass(one_pass);
        let batches = read_all_with(&mut r, options()).unwrap();
        (batches, r.ignored_columns().to_vec(), r.src.one_pass_lines)
    };
    let (quick, quick_ignored, quick_lines) = read(true);
    let (general, general_ignored, _) = read(false);
    assert_eq!(quick, general);
    assert_eq!(quick_ignored, general_ignored);
    let ids: Vec<i64> = quick[0]
        .column(0)
        .as_primitive::<Int64Type>()
        .values()
        .to_vec();
    assert_eq!(ids, (0..400).collect::<Vec<_>>());
    // the general path reads a line while it meets a top-level key for the first time
    assert!(
        quick_lines > 380,
        "{quick_lines} lines of 400 on the one-pass path"
    );
}

/// Lines longer than a read (each ends past the window the reader holds when it starts)
/// are read on the one-pass path once their end is found, not sent to the general path:
/// only the first line (which makes the columns) goes there, and the rows are the same.
#[test]
fn lines_longer_than_a_read_stay_on_the_one_pass_path() {
    let long = |i: usize| {
        let values: Vec<String> = (0..60_000).map(|k| (k * i % 1000).to_string()).collect();
        format!("{{\"i\": {i}, \"l\": [{}]}}\n", values.join(", "))
    };
    let text: String = (0..4).map(long).collect();
    assert!(
        text.len() / 4 > super::input::READ_BUFFER,
        "each line longer than a read"
    );
    let mut r = ndjson_reader(&text, OnError::Error);
    let quick = read_all_with(&mut r, LoaderOptions::default()).unwrap();
    assert_eq!(r.src.one_pass_lines, 3);
    let mut general = ndjson_reader(&text, OnError::Error).one_pass(false);
    assert_eq!(
        quick,
        read_all_with(&mut general, LoaderOptions::default()).unwrap()
    );
    let l = quick[0].column(1).as_list::<i32>();
    assert_eq!(l.value_length(3), 60_000);
    assert_eq!(l.value(3).as_primitive::<Int64Type>().value(7), 21);
}

/// A CSV record read while the loader's projection needed only its first column (the fields
/// after it counted, not split), then written into a loader that needs a later one (the
/// reader moved to another loader with that record pending): it is split again whole, and
/// the later column has its values.
#[test]
fn a_pending_csv_record_is_split_again_for_a_wider_projection() {
    let text = "a,b,c\n1,2,3\n4,5,6\n7,8,9\n";
    let options = CsvOptions {
        header: true,
        delimiter: b',',
        quote: b'"',
        escape: None,
        ..CsvOptions::default()
    };
    let input = Box::new(Cursor::new(text.as_bytes().to_vec()));
    let mut r = CsvReader::from_reader(input, "mem.csv", options, OnError::Error);
    let narrow = LoaderOptions {
        projection: Projection::parse(&["a"]).unwrap(),
        row_limit: 1,
        ..LoaderOptions::default()
    };
    let mut l = ResultSetLoader::new(narrow).unwrap();
    l.start_batch().unwrap();
    assert!(
        r.fill(&mut l).unwrap(),
        "the batch is full, a record pending"
    );
    assert_eq!(l.harvest().unwrap().num_rows(), 1);
    let wide = LoaderOptions {
        projection: Projection::parse(&["a", "c"]).unwrap(),
        ..LoaderOptions::default()
    };
    let mut l = ResultSetLoader::new(wide).unwrap();
    l.start_batch().unwrap();
    assert!(!r.fill(&mut l).unwrap());
    let rest = l.harvest().unwrap();
    let c = rest.column_by_name("c").unwrap().as_string::<i32>();
    assert_eq!(c.iter().collect::<Vec<_>>(), [Some("6"), Some("9")]);
}

/// `with_null_values`: a field whose text is a null text, quoted or not, is a null in a
/// header column and in Drill's `columns` list; an empty field stays "" unless `""` is one,
/// or none are given under Spark's conventions.
#[test]
fn csv_null_texts_are_nulls_quoted_or_not() {
    use super::Conventions;
    let text = "a,b\nNA,\"NA\"\n,x\n";
    let values_by = |conventions, header: bool, nulls: &[&str]| {
        let mut r = csv_of(text, header, conventions, OnError::Error).with_null_values(nulls);
        let mut l = ResultSetLoader::new(LoaderOptions::default()).unwrap();
        l.start_batch().unwrap();
        assert!(!r.fill(&mut l).unwrap());
        let batch = l.harvest().unwrap();
        let strings = |a: &dyn Array| {
            let a = a.as_string::<i32>();
            (0..a.len())
                .map(|i| a.is_valid(i).then(|| a.value(i).to_string()))
                .collect::<Vec<_>>()
        };
        if header {
            vec![strings(batch.column(0)), strings(batch.column(1))]
        } else {
            let list = batch.column(0).as_list::<i32>();
            (0..list.len()).map(|i| strings(&list.value(i))).collect()
        }
    };
    let column_values = |header, nulls: &[&str]| values_by(Conventions::Arrow, header, nulls);
    let s = |v: Option<&str>| v.map(str::to_string);
    assert_eq!(
        column_values(true, &["NA"]),
        [vec![None, s(Some(""))], vec![None, s(Some("x"))]]
    );
    assert_eq!(
        column_values(true, &["", "x"]),
        [vec![s(Some("NA")), None], vec![s(Some("NA")), None]]
    );
    assert_eq!(
        column_values(false, &["b", ""]),
        [
            vec![s(Some("a")), None],
            vec![s(Some("NA")), s(Some("NA"))],
            vec![None, s(Some("x"))]
        ]
    );
    // Spark's conventions: an empty field, quoted or not, is a null unless texts are given;
    // Arrow's keep ""
    assert_eq!(
        values_by(Conventions::Spark, true, &[]),
        [vec![s(Some("NA")), None], vec![s(Some("NA")), s(Some("x"))]]
    );
    // with texts given, Spark's reader still reads an empty field without quotes as null
    assert_eq!(
        values_by(Conventions::Spark, true, &["NA"]),
        [vec![None, None], vec![None, s(Some("x"))]]
    );
    assert_eq!(
        column_values(true, &[]),
        [
            vec![s(Some("NA")), s(Some(""))],
            vec![s(Some("NA")), s(Some("x"))]
        ]
    );
}

/// A UTF-8 byte order mark starting a CSV file is not part of its first field, however few
/// bytes the input's first read gives (found by fuzzing: with fewer than 3, it was).
#[test]
fn csv_byte_order_mark_is_dropped_whatever_the_first_read_gives() {
    let text = "\u{feff}id,name\n1,\u{feff}a\n";
    for chunk in [1, 2, 3, 64] {
        let input = Box::new(std::io::BufReader::with_capacity(
            chunk,
            Trickle::new(text.as_bytes(), chunk),
        ));
        let options = CsvOptions {
            header: true,
            ..CsvOptions::default()
        };
        let mut r = CsvReader::from_reader(input, "mem.csv", options, OnError::Error);
        let mut l = ResultSetLoader::new(LoaderOptions::default()).unwrap();
        l.start_batch().unwrap();
        assert!(!r.fill(&mut l).unwrap());
        let batch = l.harvest().unwrap();
        let names: Vec<_> = batch
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        assert_eq!(names, ["id", "name"], "{chunk} bytes a read");
        // a mark inside the file is data
        let name = batch.column(1).as_string::<i32>();
        assert_eq!(name.value(0), "\u{feff}a");
    }
}

/// The header is the first record after any blank lines: a byte range that starts among
/// them, or at the header's line, reads it as the header, not as a row (found by fuzzing).
#[test]
fn a_csv_range_starting_before_the_header_reads_it_as_the_header() {
    // (a lone `\r` ends a CSV line, not a line of a byte range's input)
    for text in [
        &b"\n\r\nid,name\n1,x\n"[..],
        b"\r\n\rid,name\n1,x\n",
        b"\rid,name\r\n1,x",
    ] {
        a_csv_range_reads_the_header_once(text);
    }
}

/// The one batch a CSV reader of `options` fills from the byte range `start..end` of
/// `source` (its rows fit one).
fn csv_range_batch(source: &Source, start: u64, end: u64, options: &CsvOptions) -> RecordBatch {
    let range = super::input::ByteRange { start, end };
    let mut r = CsvReader::open(source, Some(range), options.clone(), OnError::Error).unwrap();
    let mut l = ResultSetLoader::new(LoaderOptions::default()).unwrap();
    l.start_batch().unwrap();
    assert!(!r.fill(&mut l).unwrap());
    l.harvest().unwrap()
}

fn a_csv_range_reads_the_header_once(text: &[u8]) {
    let (source, _) = in_memory("blank.csv", text);
    let options = CsvOptions {
        header: true,
        ..CsvOptions::default()
    };
    for cut in 1..text.len() as u64 {
        let mut ids = Vec::new();
        for (start, end) in [(0, cut), (cut, text.len() as u64)] {
            let batch = csv_range_batch(&source, start, end, &options);
            if let Some(id) = batch.column_by_name("id") {
                ids.extend(id.as_string::<i32>().iter().map(|v| v.unwrap().to_string()));
            }
        }
        assert_eq!(ids, ["1"], "{text:?} cut at {cut}");
    }
}

/// `CsvOptions::checked`: a quote that is its own escape reads doubled quotes (Spark's
/// `escape='"'`); a line break for any role, or one byte for the delimiter and another
/// role, is refused, naming the roles.
#[test]
fn csv_dialects_are_checked_and_a_self_escaping_quote_is_the_doubled_quote() {
    let base = CsvOptions {
        header: true,
        ..CsvOptions::default()
    };
    let own = CsvOptions {
        escape: Some(b'"'),
        ..base.clone()
    }
    .checked()
    .unwrap();
    assert_eq!(own.escape, None);
    let input = Box::new(Cursor::new(b"a,b\n\"1\"\"2\",\"\"\"\"\n".to_vec()));
    let mut r = CsvReader::from_reader(input, "mem.csv", own, OnError::Error);
    let mut l = ResultSetLoader::new(LoaderOptions::default()).unwrap();
    l.start_batch().unwrap();
    assert!(!r.fill(&mut l).unwrap());
    let batch = l.harvest().unwrap();
    let value = |c: usize| batch.column(c).as_string::<i32>().value(0).to_string();
    assert_eq!((value(0), value(1)), ("1\"2".to_string(), "\"".to_string()));
    let refused = [
        (b'\n', b'"', None, "delimiter cannot be a line break"),
        (b',', b'\r', None, "quote cannot be a line break"),
        (b',', b'"', Some(b'\n'), "escape cannot be a line break"),
        (b'|', b'|', None, "delimiter and the quote"),
        (b';', b'"', Some(b';'), "delimiter and the escape"),
    ];
    for (delimiter, quote, escape, why) in refused {
        let options = CsvOptions {
            delimiter,
            quote,
            escape,
            ..base.clone()
        };
        let e = options.checked().unwrap_err();
        assert!(e.contains(why), "{e}");
    }
    let backslash = CsvOptions {
        escape: Some(b'\\'),
        ..base
    };
    assert_eq!(backslash.clone().checked().unwrap().escape, Some(b'\\'));
    // with an escape, a quote is escaped (`\"`, as Spark writes it) or doubled (RFC 4180):
    // both read right, on the split path and the parser's (a line break in the field)
    let text = "a,b\n\"1\\\"2\",\"3\"\"4\"\n\"5\\\"\n6\",\"\"\"\"\n";
    let input = Box::new(Cursor::new(text.as_bytes().to_vec()));
    let mut r = CsvReader::from_reader(input, "mem.csv", backslash, OnError::Error);
    let mut l = ResultSetLoader::new(LoaderOptions::default()).unwrap();
    l.start_batch().unwrap();
    assert!(!r.fill(&mut l).unwrap());
    let batch = l.harvest().unwrap();
    let column = |c: usize| {
        batch
            .column(c)
            .as_string::<i32>()
            .iter()
            .flatten()
            .collect()
    };
    let (a, b): (Vec<&str>, Vec<&str>) = (column(0), column(1));
    assert_eq!((a, b), (vec!["1\"2", "5\"\n6"], vec!["3\"4", "\""]));
}

/// A CSV file without a header read `with_names`: its fields go to the named columns by
/// position (converted to their types), not to Drill's `columns` list; a record with more
/// fields than names is bad, as one with fewer under Spark's conventions, each naming the
/// schema; with a header, the names are the header's and `with_names` changes nothing
/// while the header's names are `Kept`.
#[test]
fn a_headerless_csv_with_names_maps_its_fields_by_position() {
    use super::Conventions;
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Int64, true),
        Field::new("b", DataType::Utf8, true),
    ]));
    let read = |text: &str, header: bool, conventions: Conventions| {
        let r = csv_of(text, header, conventions, OnError::Error);
        let names = vec!["a".into(), "b".into()];
        fill_once_by(&mut r.with_names(names, HeaderNames::Kept), &schema)
    };
    let b = read("1,x\n2,y\n", false, Conventions::Arrow).unwrap();
    assert_eq!(b.schema().fields().len(), 2, "no `columns` list");
    let a = b.column_by_name("a").unwrap().as_primitive::<Int64Type>();
    assert_eq!(a.values().to_vec(), [1, 2]);
    let s = b.column_by_name("b").unwrap().as_string::<i32>();
    assert_eq!(s.iter().collect::<Vec<_>>(), [Some("x"), Some("y")]);
    // Drill's rule reads a short record's missing fields as nulls; Spark's refuses it
    let b = read("1,x\n2\n", false, Conventions::Arrow).unwrap();
    assert!(b.column_by_name("b").unwrap().is_null(1));
    let Err(ReadError::Input(e)) = read("1,x\n2\n", false, Conventions::Spark) else {
        panic!("a short record read under Spark's conventions");
    };
    assert_eq!(e.line, 2);
    assert!(
        e.message.contains("1 fields, the schema 2"),
        "{}",
        e.message
    );
    let Err(ReadError::Input(e)) = read("1,x,z\n", false, Conventions::Arrow) else {
        panic!("a long record read");
    };
    assert!(
        e.message.contains("3 fields, the schema 2"),
        "{}",
        e.message
    );
    // a header names the columns itself
    let b = read("b,a\nx,1\n", true, Conventions::Arrow).unwrap();
    let a = b.column_by_name("a").unwrap().as_primitive::<Int64Type>();
    assert_eq!((a.len(), a.value(0)), (1, 1));
}

/// A CSV file with a header read `with_names` as Spark's `enforceSchema` reads it (probed on
/// Spark 4.3): `Replaced`, the schema's names take the fields by position and the header's
/// are read past, whatever they say (`Customer ID` is `customer_id`; `b,a` swaps nothing);
/// `Checked`, the same once the header gives the schema's names (any case), where another
/// name, or another number of fields, refuses the file (whatever `on_error` says), naming
/// both; with positions listed (a projection), only those are checked.
#[test]
fn a_csv_header_meets_a_schemas_names_as_spark_enforces_the_schema() {
    use super::Conventions;
    let schema = Arc::new(Schema::new(vec![
        Field::new("customer_id", DataType::Int64, true),
        Field::new("amount", DataType::Utf8, true),
    ]));
    let read = |text: &str, rule: HeaderNames| {
        let r = csv_of(text, true, Conventions::Spark, OnError::Skip);
        let names = vec!["customer_id".into(), "amount".into()];
        fill_once_by(&mut r.with_names(names, rule), &schema)
    };
    let values = |b: &RecordBatch| {
        let id = b
            .column_by_name("customer_id")
            .unwrap()
            .as_primitive::<Int64Type>();
        let amount = b.column_by_name("amount").unwrap().as_string::<i32>();
        let ids: Vec<Option<i64>> = id.iter().collect();
        let amounts: Vec<Option<String>> = amount.iter().map(|a| a.map(String::from)).collect();
        (b.num_columns(), ids, amounts)
    };
    let both = |ids: Vec<Option<i64>>, amounts: [&str; 1]| {
        (
            2,
            ids,
            amounts
                .iter()
                .map(|a| Some(a.to_string()))
                .collect::<Vec<_>>(),
        )
    };
    let b = read("Customer ID,Amount\n1,2.5\n", HeaderNames::Replaced).unwrap();
    assert_eq!(values(&b), both(vec![Some(1)], ["2.5"]));
    let b = read("amount,customer_id\n8,7.5\n", HeaderNames::Replaced).unwrap();
    assert_eq!(values(&b), both(vec![Some(8)], ["7.5"]));
    let b = read("\nCUSTOMER_ID,amount\n3,x\n", HeaderNames::Checked(None)).unwrap();
    assert_eq!(values(&b), both(vec![Some(3)], ["x"]));
    let refused = |text: &str, rule: HeaderNames| match read(text, rule) {
        Err(ReadError::Input(e)) => e,
        other => panic!("{text:?} read: {other:?}"),
    };
    let e = refused("Customer ID,Amount\n1,2.5\n", HeaderNames::Checked(None));
    assert_eq!((e.line, e.column), (1, Some(1)));
    assert!(
        e.message
            .contains("field 1 'Customer ID' where the schema has 'customer_id'")
            && e.message
                .contains("header: Customer ID, Amount; schema: customer_id, amount"),
        "{}",
        e.message
    );
    let e = refused("customer_id,amount,x\n1,2,3\n", HeaderNames::Checked(None));
    assert!(
        e.message.contains("the header has 3 fields, the schema 2"),
        "{}",
        e.message
    );
    // a projection of the first field: the second is not checked, nor the count
    let b = read(
        "customer_id,y,z\n1,2,3\n",
        HeaderNames::Checked(Some(vec![0])),
    )
    .unwrap();
    assert_eq!(
        b.num_rows(),
        0,
        "a record of 3 fields under a schema of 2 is bad (skipped)"
    );
    let mut strict = csv_of(
        "id,amount,x\n1,2,3\n",
        true,
        Conventions::Spark,
        OnError::Error,
    );
    strict = strict.with_names(
        vec!["customer_id".into(), "amount".into()],
        HeaderNames::Replaced,
    );
    let Err(ReadError::Input(e)) = fill_once_by(&mut strict, &schema) else {
        panic!("a record of 3 fields under a schema of 2 read");
    };
    assert!(
        e.message
            .contains("3 fields, the schema 2; the schema's columns take the fields by")
            && e.message.contains("enforce_schema=None"),
        "{}",
        e.message
    );
    let b = read("customer_id,y\n1,2\n", HeaderNames::Checked(Some(vec![0]))).unwrap();
    assert_eq!(values(&b), both(vec![Some(1)], ["2"]));
    let e = refused("customer_id,y\n1,2\n", HeaderNames::Checked(Some(vec![1])));
    assert!(e.message.contains("field 2 'y'"), "{}", e.message);
}

/// Under Spark's conventions, a projection listing some of the named fields reads as Spark's
/// CSV reader prunes columns (probed on Spark 4.3): a record's count of fields makes it no
/// bad record (a long one's extra fields unread, a short one's missing fields null), the
/// corrupt record column asked for or not; with every field (or all of them) both are bad.
/// Arrow's conventions (Drill's rule) refuse the long one whatever the projection.
#[test]
fn a_csv_projection_of_some_fields_takes_records_of_any_length_as_spark_prunes() {
    use super::Conventions;
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Int64, true),
        Field::new("b", DataType::Utf8, true),
        Field::new("_corrupt_record", DataType::Utf8, true),
    ]));
    let read = |conventions: Conventions, columns: &[&str]| {
        let text = "1,x,z\n2\n3,y\n";
        let r = csv_of(text, false, conventions, OnError::Skip);
        let mut r = r.with_names(vec!["a".into(), "b".into()], HeaderNames::Kept);
        let mut l = ResultSetLoader::new(LoaderOptions {
            schema: Some(Arc::clone(&schema)),
            projection: Projection::parse(columns).unwrap(),
            ..LoaderOptions::default()
        })
        .unwrap();
        l.start_batch().unwrap();
        r.fill(&mut l).unwrap();
        let b = l.harvest().unwrap();
        let a = b.column_by_name("a").unwrap().as_primitive::<Int64Type>();
        (a.iter().collect::<Vec<_>>(), r.skipped_lines())
    };
    let all = (vec![Some(3)], 2);
    assert_eq!(
        read(Conventions::Spark, &["a"]),
        (vec![Some(1), Some(2), Some(3)], 0)
    );
    assert_eq!(read(Conventions::Spark, &["a", "b"]), all);
    let pruned = (vec![Some(1), Some(2), Some(3)], 0);
    assert_eq!(read(Conventions::Spark, &["a", "_corrupt_record"]), pruned);
    assert_eq!(
        read(Conventions::Spark, &["b", "a", "_corrupt_record"]),
        all
    );
    assert_eq!(read(Conventions::Spark, &["*"]), all);
    assert_eq!(
        read(Conventions::Arrow, &["a"]),
        (vec![Some(2), Some(3)], 1)
    );
}

/// `empty_strings_as_nulls`: an empty string types no column, as Spark's JSON inference
/// takes it: beside numbers the column is int64 and the `""` rows null, in structs and
/// lists too; `""` alone leaves a column seen only as null. Without it, `""` makes the
/// column utf8 and a number after it is bad input (in the first line's list already).
#[test]
fn empty_strings_read_as_nulls_type_no_column() {
    let text = "{\"a\": \"\", \"s\": {\"x\": \"\"}, \"l\": [\"\", 1], \"e\": \"\"}\n\
                {\"a\": 7, \"s\": {\"x\": 2.5}, \"l\": [2], \"e\": null}\n";
    let mut r = ndjson_reader(text, OnError::Error).empty_strings_as_nulls(true);
    let b = read_all_with(&mut r, LoaderOptions::default())
        .unwrap()
        .remove(0);
    let a = b.column_by_name("a").unwrap().as_primitive::<Int64Type>();
    assert_eq!(a.iter().collect::<Vec<_>>(), [None, Some(7)]);
    let s = b.column_by_name("s").unwrap().as_struct();
    let x = s.column_by_name("x").unwrap().as_primitive::<Float64Type>();
    assert_eq!(x.iter().collect::<Vec<_>>(), [None, Some(2.5)]);
    let l = b.column_by_name("l").unwrap().as_list::<i32>();
    let items = l.values().as_primitive::<Int64Type>();
    assert_eq!(items.iter().collect::<Vec<_>>(), [None, Some(1), Some(2)]);
    assert_eq!(b.column_by_name("e").unwrap().null_count(), 2);
    let Err(ReadError::Input(e)) = read_all(text, LoaderOptions::default(), OnError::Error) else {
        panic!("a number after an empty string read into its utf8 column");
    };
    assert_eq!(e.line, 1, "{}", e.message);
    assert!(
        e.message.contains("'l[]': int value 1 does not fit Utf8"),
        "{}",
        e.message
    );
}

/// A row of ints `a` and `b`, or the text of a bad record.
type ABRow = Result<(Option<i64>, Option<i64>), String>;

/// The rows `reader` reads in permissive mode into ints `a`, `b` (two a batch).
fn a_b_rows(mut reader: NdjsonReader) -> Vec<ABRow> {
    use super::driver::CORRUPT_RECORD;
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Int64, true),
        Field::new("b", DataType::Int64, true),
    ]));
    let options = LoaderOptions {
        schema: Some(schema),
        row_limit: 2, // the lines' ends found across batches too
        ..LoaderOptions::default()
    };
    let mut rows = Vec::new();
    for batch in read_all_with(&mut reader, options).unwrap() {
        let int = |name: &str| {
            batch
                .column_by_name(name)
                .unwrap()
                .as_primitive::<Int64Type>()
                .clone()
        };
        let (a, b) = (int("a"), int("b"));
        // (the corrupt record column comes with the first bad record)
        let bad = batch
            .column_by_name(CORRUPT_RECORD)
            .map(|c| c.as_string::<i32>().clone());
        for i in 0..batch.num_rows() {
            rows.push(match bad.as_ref().filter(|bad| bad.is_valid(i)) {
                Some(bad) => Err(bad.value(i).to_string()),
                None => Ok((
                    a.is_valid(i).then(|| a.value(i)),
                    b.is_valid(i).then(|| b.value(i)),
                )),
            });
        }
    }
    rows
}

/// Under Spark's conventions an NDJSON line ends at `\n`, `\r` or `\r\n`, as Hadoop's
/// text lines that Spark's JSON reader reads (probed on Spark 4.3: `{"a":1}\r{"a":2}` is two
/// rows, `{"a":1,\r"b":2}` two bad records); under Arrow's (JSON Lines) only at `\n`, a
/// lone `\r` white space. The one-pass path and serde find the same lines.
#[test]
fn spark_json_lines_end_at_any_line_break() {
    use super::Conventions;
    let text = "{\"a\":1}\r{\"a\":2}\r\n{\"a\":3}\n{\"a\":4,\r\"b\":5}\r\r\n{\"a\":6, \"b\":7}\r";
    // whole, and a few bytes a read (the window searched for `\r`s again after each)
    for (one_pass, chunk) in [
        (true, None),
        (false, None),
        (true, Some(3)),
        (true, Some(10)),
    ] {
        let reader = |conventions| {
            let input: Box<dyn std::io::BufRead + Send> = match chunk {
                Some(chunk) => Box::new(std::io::BufReader::new(Trickle::new(
                    text.as_bytes(),
                    chunk,
                ))),
                None => Box::new(Cursor::new(text.as_bytes().to_vec())),
            };
            NdjsonReader::from_reader(input, "mem.json", OnError::Permissive, true)
                .with_conventions(conventions)
                .one_pass(one_pass)
        };
        assert_eq!(
            a_b_rows(reader(Conventions::Spark)),
            [
                Ok((Some(1), None)),
                Ok((Some(2), None)),
                Ok((Some(3), None)),
                Err("{\"a\":4,".to_string()),
                Err("\"b\":5}".to_string()),
                Ok((Some(6), Some(7))),
            ],
            "one_pass {one_pass}, reads of {chunk:?}"
        );
        assert_eq!(
            a_b_rows(reader(Conventions::Arrow)),
            [
                Err("{\"a\":1}\r{\"a\":2}".to_string()),
                Ok((Some(3), None)),
                Ok((Some(4), Some(5))),
                Ok((Some(6), Some(7))),
            ],
            "one_pass {one_pass}, reads of {chunk:?}"
        );
    }
    // lines ended by `\r` or `\r\n` stay on the one-pass path as `\n` lines do (all but
    // the first, which makes the column)
    let one_pass_lines = |sep: &str| {
        let text: String = (0..50).map(|i| format!("{{\"a\": {i}}}{sep}")).collect();
        let mut r = ndjson_reader(&text, OnError::Error).with_conventions(Conventions::Spark);
        let rows: usize = read_all_with(&mut r, LoaderOptions::default())
            .unwrap()
            .iter()
            .map(RecordBatch::num_rows)
            .sum();
        (rows, r.one_pass_lines())
    };
    assert_eq!(one_pass_lines("\n"), (50, 49));
    assert_eq!(one_pass_lines("\r"), (50, 49));
    assert_eq!(one_pass_lines("\r\n"), (50, 49));
    // errors count a `\r\n` as one line break, a lone `\r` as one
    let text = "{\"a\":1}\r\n{\"a\":2}\r{\"a\":3}\r\n\r\n{\"a\":x}\n";
    let mut r = ndjson_reader(text, OnError::Error).with_conventions(Conventions::Spark);
    let err = read_all_with(&mut r, LoaderOptions::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("line 5"), "{err}");
}

/// Lines ended by an exact separator (Spark's `lineSep`): nothing else ends one, so a `\n`
/// or `\r` inside is white space between tokens; a line holding text after its object
/// (`{"a":1}\n{"a":2}` with `|`) is a bad record, not its first object alone (Spark's
/// parser reads the first and drops the rest without a word).
#[test]
fn lines_end_at_exactly_the_separator_given() {
    use super::input::LineEnds;
    use super::Conventions;
    let text = "{\"a\":1}|{\"a\":\n2,\r\n\"b\":3}||\n|{\"a\":4}\n{\"a\":5}<>{\"a\":6}|";
    for one_pass in [true, false] {
        let reader = |sep: &str| {
            ndjson_reader(text, OnError::Permissive)
                .with_line_ends(LineEnds::Exact(Box::from(sep.as_bytes())))
                .with_conventions(Conventions::Spark)
                .one_pass(one_pass)
        };
        assert_eq!(
            a_b_rows(reader("|")),
            [
                Ok((Some(1), None)),
                Ok((Some(2), Some(3))),
                Err("{\"a\":4}\n{\"a\":5}<>{\"a\":6}".to_string()),
            ],
            "one_pass {one_pass}"
        );
        assert_eq!(
            a_b_rows(reader("<>")),
            [
                Err(text[..text.find("<>").unwrap()].to_string()),
                Err("{\"a\":6}|".to_string()),
            ],
            "one_pass {one_pass}"
        );
    }
}

/// Byte ranges of a file whose lines end at `\r` (Spark's conventions) or at a separator
/// that cannot overlap itself (of one byte, `<>`, `\r\n`) read every line once, wherever
/// the cuts; one that can (`||`) cannot start a range.
#[test]
fn byte_ranges_of_other_line_ends_read_every_line_once() {
    use super::input::LineEnds;
    use super::Conventions;
    let dir = std::env::temp_dir().join(format!("bl-ranges-ends-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        (None, "\r"),
        (None, "\r\n"),
        (Some(LineEnds::Exact(Box::from(&b"|"[..]))), "|"),
        (Some(LineEnds::Exact(Box::from(&b"<>"[..]))), "<>"),
        (Some(LineEnds::Exact(Box::from(&b"\r\n"[..]))), "\r\n"),
    ];
    for (ends, sep) in cases {
        let text: String = (0..30).map(|i| format!("{{\"a\":{i}}}{sep}")).collect();
        let path = dir.join("lines.json");
        std::fs::write(&path, &text).unwrap();
        let source = Source::local(path.to_str().unwrap());
        for step in [1, 5, 13] {
            let mut cuts: Vec<u64> = (0..text.len() as u64).step_by(step).collect();
            cuts.push(text.len() as u64);
            let mut got = Vec::new();
            for w in cuts.windows(2) {
                let range = super::input::ByteRange {
                    start: w[0],
                    end: w[1],
                };
                let r = match &ends {
                    Some(ends) => NdjsonReader::open_with_line_ends(
                        &source,
                        Some(range),
                        OnError::Permissive,
                        true,
                        ends.clone(),
                    ),
                    None => NdjsonReader::open(&source, Some(range), OnError::Permissive, true),
                };
                let r = r.unwrap().with_conventions(Conventions::Spark);
                got.extend(a_b_rows(r));
            }
            let expected: Vec<_> = (0..30).map(|i| Ok((Some(i), None))).collect();
            assert_eq!(got, expected, "{sep:?} cut every {step}");
        }
    }
    let range = super::input::ByteRange { start: 3, end: 9 };
    let several = LineEnds::Exact(Box::from(&b"||"[..]));
    let path = dir.join("lines.json");
    let err = NdjsonReader::open_with_line_ends(
        &Source::local(path.to_str().unwrap()),
        Some(range),
        OnError::Error,
        true,
        several,
    )
    .err()
    .unwrap();
    assert!(err.to_string().contains("it begins as it ends"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// With comments allowed, a `//` comment in a line given whole (an exact separator) ends at
/// its line break, as Jackson ends it for Spark: the members after it are read.
#[test]
fn a_line_comment_ends_at_a_line_break_inside_a_separated_line() {
    use super::input::LineEnds;
    use super::json::JsonSyntax;
    let text = "{\"a\":1 // c\n, \"b\":2}|{\"a\":3 /* x\n y */}|{\"a\":4, // c\r\"b\":5}|";
    let syntax = JsonSyntax {
        comments: true,
        ..JsonSyntax::default()
    };
    let reader = ndjson_reader(text, OnError::Permissive)
        .with_line_ends(LineEnds::Exact(Box::from(&b"|"[..])))
        .with_conventions(super::Conventions::Spark)
        .with_syntax(syntax);
    assert_eq!(
        a_b_rows(reader),
        [
            Ok((Some(1), Some(2))),
            Ok((Some(3), None)),
            Ok((Some(4), Some(5)))
        ]
    );
}

/// The records a headerless CSV reader gives, each its `columns` list's texts (a batch of
/// up to `row_limit` rows at a time).
fn csv_records(mut r: CsvReader, row_limit: usize) -> Result<Vec<Vec<String>>, ReadError> {
    let mut l = ResultSetLoader::new(LoaderOptions {
        row_limit,
        ..LoaderOptions::default()
    })
    .unwrap();
    let mut out = Vec::new();
    loop {
        l.start_batch().unwrap();
        let more = r.fill(&mut l)?;
        let batch = l.harvest().unwrap();
        if let Some(list) = batch.column_by_name("columns") {
            let list = list.as_list::<i32>();
            for i in 0..list.len() {
                let fields = list.value(i);
                let fields = fields.as_string::<i32>();
                out.push(fields.iter().map(|f| f.unwrap().to_string()).collect());
            }
        }
        if !more {
            return Ok(out);
        }
    }
}

/// CSV records ended by an exact separator (Spark's `lineSep`), as Spark 4.3's CSV reader
/// has them (probed): the separator ends a record inside quotes too, a quote left open
/// closes at the record's end, line breaks are text, blank records and comment lines are
/// skipped, a byte order mark opens the first only.
#[test]
fn csv_records_end_at_exactly_the_separator_given() {
    let text = "\u{feff}1,\"x;y\";2,q\r;;\n;3,  z ;#c;4,\"p\nq\";\"a\\\"b\",c";
    for row_limit in [1, 2, 100] {
        let options = CsvOptions {
            conventions: super::Conventions::Spark,
            escape: Some(b'\\'),
            comment: Some(b'#'),
            line_sep: Some(Box::from(&b";"[..])),
            ..CsvOptions::default()
        };
        let input = Box::new(Cursor::new(text.as_bytes().to_vec()));
        let r =
            CsvReader::from_reader(input, "mem.csv", options.checked().unwrap(), OnError::Error);
        let records = csv_records(r, row_limit).unwrap();
        let expected: [&[&str]; 6] = [
            &["1", "x"],
            &["y\""],
            &["2", "q\r"],
            &["3", "  z "],
            &["4", "p\nq"],
            &["a\"b", "c"],
        ];
        assert_eq!(records, expected, "row_limit {row_limit}");
    }
}

/// A bad value in a record ended by a separator is placed at its record's number and its
/// field's column in the record (line breaks in it are text, not lines).
#[test]
fn an_error_in_a_separated_csv_record_names_its_record_and_column() {
    let options = CsvOptions {
        header: true,
        conventions: super::Conventions::Spark,
        line_sep: Some(Box::from(&b"|"[..])),
        ..CsvOptions::default()
    };
    let input = Box::new(Cursor::new(b"a,b|1,2|3,\"x\ny\"|".to_vec()));
    let mut r = CsvReader::from_reader(input, "mem.csv", options, OnError::Error);
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Int64, true),
        Field::new("b", DataType::Int64, true),
    ]));
    let err = fill_once_by(&mut r, &schema).unwrap_err().to_string();
    assert!(err.contains("line 3"), "{err}");
    assert!(err.contains("column 3"), "{err}");
}

/// A bad value's column is where Spark's rules start its field: past the whitespace
/// `ignoreLeadingWhiteSpace` trims, after a quoted field whose quotes (opened after such
/// whitespace) hold the delimiter; in records ended by line breaks and by a separator.
#[test]
fn an_error_column_follows_the_fields_as_trimmed_and_quoted() {
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Int64, true),
        Field::new("b", DataType::Utf8, true),
        Field::new("c", DataType::Int64, true),
    ]));
    for (text, sep) in [
        ("a,b,c\n1,  \"x,y\",  z\n", None),
        ("a,b,c|1,  \"x,y\",  z|", Some(&b"|"[..])),
    ] {
        let options = CsvOptions {
            header: true,
            conventions: super::Conventions::Spark,
            spark_fields: super::SparkFields {
                trim_leading: true,
                ..super::SparkFields::default()
            },
            line_sep: sep.map(Box::from),
            ..CsvOptions::default()
        };
        let input = Box::new(Cursor::new(text.as_bytes().to_vec()));
        let mut r = CsvReader::from_reader(input, "mem.csv", options, OnError::Error);
        let err = fill_once_by(&mut r, &schema).unwrap_err().to_string();
        assert!(
            err.contains("line 2") && err.contains("column 13"),
            "{sep:?}: {err}"
        );
    }
}

/// In a file of a single-byte charset an error's column is the file's byte (one a
/// character), not the byte of the UTF-8 the reader decoded it to; whole and in a range.
#[test]
fn error_columns_count_the_files_bytes_in_a_single_byte_charset() {
    use super::input::{ByteRange, Charset};
    let json = b"{\"a\":1}\n{\"a\":\"\xe9\xff\",\"b\":x}\n";
    let csv = b"s,n\n\xe9\xe9,1\n\xe9\xe9,x\n";
    let schema = Arc::new(Schema::new(vec![
        Field::new("s", DataType::Utf8, true),
        Field::new("n", DataType::Int64, true),
    ]));
    for charset in [Charset::Latin1, Charset::Ascii] {
        for range in [None, Some(ByteRange { start: 3, end: 40 })] {
            let (source, _) = in_memory("a.json", json);
            let source = source.in_charset(charset);
            let mut r = NdjsonReader::open(&source, range, OnError::Error, true).unwrap();
            let err = read_all_with(&mut r, LoaderOptions::default()).unwrap_err();
            let err = err.to_string();
            assert!(
                err.contains("line 2, column 15"),
                "{charset:?} {range:?}: {err}"
            );
            let (source, _) = in_memory("a.csv", csv);
            let options = CsvOptions {
                header: true,
                conventions: super::Conventions::Spark,
                ..CsvOptions::default()
            };
            let source = source.in_charset(charset);
            let mut r = CsvReader::open(&source, range, options, OnError::Error).unwrap();
            let err = fill_once_by(&mut r, &schema).unwrap_err().to_string();
            assert!(
                err.contains("line 3, column 4"),
                "{charset:?} {range:?}: {err}"
            );
        }
    }
}

/// Byte ranges of a CSV file of records ended by a separator (one byte, or two that cannot
/// overlap themselves), cut anywhere, read the header once and every record once.
#[test]
fn csv_byte_ranges_of_separated_records_read_every_record_once() {
    for sep in ["\u{1}", "\r\n"] {
        let text: String = std::iter::once("id,s".to_string())
            .chain((0..20).map(|i| format!("{i},\"q\ne\"")))
            .collect::<Vec<_>>()
            .join(sep);
        let (source, _) = in_memory("sep.csv", text.as_bytes());
        let options = CsvOptions {
            header: true,
            conventions: super::Conventions::Spark,
            line_sep: Some(Box::from(sep.as_bytes())),
            ..CsvOptions::default()
        };
        for step in [1, 7, 40] {
            let mut ids = Vec::new();
            let mut start = 0;
            while start < text.len() as u64 {
                let end = (start + step).min(text.len() as u64);
                let batch = csv_range_batch(&source, start, end, &options);
                if let Some(id) = batch.column_by_name("id") {
                    let s = batch.column_by_name("s").unwrap().as_string::<i32>();
                    assert!(s.iter().all(|v| v == Some("q\ne")));
                    ids.extend(id.as_string::<i32>().iter().map(|v| v.unwrap().to_string()));
                }
                start = end;
            }
            let expected: Vec<String> = (0..20).map(|i| i.to_string()).collect();
            assert_eq!(ids, expected, "{sep:?}: ranges of {step} bytes");
        }
    }
}

/// `line_sep` for CSV takes Spark's conventions and no byte of the dialect.
#[test]
fn a_csv_line_sep_is_checked() {
    let with = |sep: &[u8], conventions| CsvOptions {
        conventions,
        line_sep: Some(Box::from(sep)),
        ..CsvOptions::default()
    };
    use super::Conventions::{Arrow, Spark};
    let refused = |options: CsvOptions| options.checked().unwrap_err();
    assert!(refused(with(b";", Arrow)).contains("csv_conventions"));
    assert!(refused(with(b";,", Spark)).contains("holds the delimiter"));
    assert!(refused(with(b"\"", Spark)).contains("holds the quote"));
    assert!(refused(with(b"", Spark)).contains("cannot be empty"));
    assert!(with(b"\r\n", Spark).checked().is_ok());
}

/// A line that is no JSON is malformed even where a value in it is refused first (`"s2"`
/// into an int, before the line turns out to end inside its object): the error is the
/// line's syntax, as Spark's reader takes such a line, so a sample learns no type from it.
#[test]
fn a_malformed_line_is_malformed_before_its_values_are_refused() {
    let schema = Arc::new(Schema::new(vec![Field::new("a", DataType::Int64, true)]));
    let read = |text: &str| {
        let mut r = ndjson_reader(text, OnError::Error).with_conventions(super::Conventions::Spark);
        let options = LoaderOptions {
            schema: Some(Arc::clone(&schema)),
            ..LoaderOptions::default()
        };
        read_all_with(&mut r, options).unwrap_err().to_string()
    };
    for line in ["{\"a\":\"s2\",", "{\"a\":\"s2\"} x", "{\"a\":[1,{\"b\"}]}"] {
        let err = read(&format!("{{\"a\": 0}}\n{line}\n"));
        assert!(
            err.contains("line 2") && err.contains("malformed JSON"),
            "{line}: {err}"
        );
        assert!(!err.contains("column 'a'"), "{line}: {err}");
    }
    let err = read("{\"a\": 0}\n{\"a\":\"s2\"}\n");
    assert!(
        err.contains("column 'a'") && err.contains("column 6"),
        "{err}"
    );
}
