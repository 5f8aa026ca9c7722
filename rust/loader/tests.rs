//! Unit tests of the core: buffers, overflow, offset rebasing at every depth, accounting.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};

use super::node::Data;
use super::*;

/// A loader schema of `fields`.
fn schema_of(fields: Vec<Field>) -> Option<SchemaRef> {
    Some(Arc::new(Schema::new(fields)))
}

/// The names of a batch's columns, in order.
fn column_names(batch: &RecordBatch) -> Vec<String> {
    let schema = batch.schema();
    schema.fields().iter().map(|f| f.name().clone()).collect()
}

fn loader(fields: Vec<Field>, vector_byte_limit: usize) -> ResultSetLoader {
    let options = LoaderOptions {
        schema: schema_of(fields),
        vector_byte_limit,
        ..LoaderOptions::default()
    };
    let mut l = ResultSetLoader::new(options).unwrap();
    assert!(l.start_batch().unwrap());
    l
}

/// Bytes of a batch's buffers, counting a nullable field's validity bitmap even where arrow
/// dropped it because nothing was null (the loader counts it: an upper bound).
fn exported_bytes(batch: &RecordBatch) -> usize {
    fn data_bytes(d: &arrow_data::ArrayData, nullable: bool) -> usize {
        let validity = match d.nulls() {
            Some(n) => n.buffer().len(),
            None if nullable => d.len().div_ceil(8),
            None => 0,
        };
        let children: Vec<bool> = match d.data_type() {
            DataType::Struct(fields) => fields.iter().map(|f| f.is_nullable()).collect(),
            DataType::List(f) | DataType::LargeList(f) | DataType::Map(f, _) => {
                vec![f.is_nullable()]
            }
            _ => vec![],
        };
        validity
            + d.buffers().iter().map(|b| b.len()).sum::<usize>()
            + d.child_data()
                .iter()
                .zip(children)
                .map(|(c, n)| data_bytes(c, n))
                .sum::<usize>()
    }
    batch
        .columns()
        .iter()
        .zip(batch.schema().fields())
        .map(|(c, f)| data_bytes(&c.to_data(), f.is_nullable()))
        .sum()
}

#[test]
fn flat_rows_round_trip() {
    let mut l = loader(
        vec![
            Field::new("a", DataType::Int64, false),
            Field::new("s", DataType::Utf8, true),
        ],
        1 << 20,
    );
    let (a, s) = (l.column(ROOT, "a").unwrap(), l.column(ROOT, "S").unwrap());
    for i in 0..5 {
        assert!(l.start_row().unwrap());
        l.set(a, Value::Int(i)).unwrap();
        if i % 2 == 0 {
            l.set(s, Value::Str(&format!("v{i}"))).unwrap();
        }
        l.save_row().unwrap();
    }
    let before = l.batch_bytes();
    let batch = l.harvest().unwrap();
    assert_eq!(exported_bytes(&batch), before);
    assert_eq!(
        batch
            .column(0)
            .as_primitive::<Int64Type>()
            .values()
            .to_vec(),
        vec![0, 1, 2, 3, 4]
    );
    let strings: Vec<Option<&str>> = batch.column(1).as_string::<i32>().iter().collect();
    assert_eq!(strings, [Some("v0"), None, Some("v2"), None, Some("v4")]);
}

/// list<struct<tag: utf8, xs: list<int16>>>: overflow on a leaf of the inner list, in the
/// middle of the second element of the third row.
#[test]
fn overflow_rebases_offsets_at_every_depth() {
    let xs = Field::new(
        "xs",
        DataType::List(Arc::new(Field::new("item", DataType::Int64, true))),
        true,
    );
    let elem = DataType::Struct(Fields::from(vec![
        Field::new("tag", DataType::Utf8, true),
        xs,
    ]));
    let outer = Field::new(
        "outer",
        DataType::List(Arc::new(Field::new("item", elem, true))),
        true,
    );
    // 10 int64 leaves fit (84 bytes); the 11th overflows.
    let mut l = loader(vec![outer], 84);
    let outer = l.column(ROOT, "outer").unwrap();
    let elem = l.element(outer).unwrap();
    let (tag, xs) = (
        l.column(elem, "tag").unwrap(),
        l.column(elem, "xs").unwrap(),
    );
    let leaf = l.element(xs).unwrap();
    let rows: [&[&[i64]]; 3] = [
        &[&[1, 2], &[3]],
        &[&[4, 5, 6]],
        &[&[7], &[8, 9, 10, 11], &[12]],
    ];
    let mut leaf_ptr = None;
    for (r, elements) in rows.iter().enumerate() {
        assert!(l.start_row().unwrap());
        for (e, leaves) in elements.iter().enumerate() {
            l.set(tag, Value::Str(&format!("r{r}e{e}"))).unwrap();
            for &v in leaves.iter() {
                if r == 2 && v == 11 {
                    assert!(!l.is_full());
                    if let Data::Fixed { values, .. } = &l.nodes[leaf].data {
                        leaf_ptr = Some(values.as_ptr() as usize);
                    }
                }
                l.set(leaf, Value::Int(v)).unwrap();
                l.save_element(xs).unwrap();
            }
            l.save_element(outer).unwrap();
        }
        l.save_row().unwrap();
        if r == 2 {
            assert!(l.is_full());
        }
    }
    assert_eq!(l.row_count(), 2);
    let first = l.harvest().unwrap();
    let first_outer = first.column(0).as_list::<i32>();
    assert_eq!(first_outer.value_offsets(), &[0, 2, 3]);
    let first_xs = first_outer.values().as_struct().column(1).as_list::<i32>();
    assert_eq!(first_xs.value_offsets(), &[0, 2, 3, 6]);
    let first_leaves = first_xs.values().as_primitive::<Int64Type>();
    assert_eq!(first_leaves.values().to_vec(), vec![1, 2, 3, 4, 5, 6]);
    // Zero-copy: the harvested leaves live in the buffer the rows were written into.
    assert_eq!(leaf_ptr, Some(first_leaves.values().as_ptr() as usize));

    assert!(l.start_batch().unwrap());
    assert_eq!(l.row_count(), 1);
    let second = l.harvest().unwrap();
    let outer2 = second.column(0).as_list::<i32>();
    assert_eq!(outer2.value_offsets(), &[0, 3]);
    let elems2 = outer2.values().as_struct();
    let tags: Vec<Option<&str>> = elems2.column(0).as_string::<i32>().iter().collect();
    assert_eq!(tags, [Some("r2e0"), Some("r2e1"), Some("r2e2")]);
    let xs2 = elems2.column(1).as_list::<i32>();
    assert_eq!(xs2.value_offsets(), &[0, 1, 5, 6]);
    assert_eq!(
        xs2.values().as_primitive::<Int64Type>().values().to_vec(),
        vec![7, 8, 9, 10, 11, 12]
    );
}

#[test]
fn byte_count_stays_exact_through_writes_discards_and_splits() {
    // A batch byte limit makes the loader keep a running total: it must match a recount.
    let options = LoaderOptions {
        schema: schema_of(vec![
            Field::new("s", DataType::Utf8, true),
            Field::new(
                "xs",
                DataType::LargeList(Arc::new(Field::new("item", DataType::Boolean, false))),
                false,
            ),
        ]),
        vector_byte_limit: 64,
        batch_byte_limit: Some(1 << 20),
        ..LoaderOptions::default()
    };
    let mut l = ResultSetLoader::new(options).unwrap();
    l.start_batch().unwrap();
    let (s, xs) = (l.column(ROOT, "s").unwrap(), l.column(ROOT, "xs").unwrap());
    let x = l.element(xs).unwrap();
    for i in 0..40 {
        if !l.start_row().unwrap() {
            let expected = l.batch_bytes();
            let batch = l.harvest().unwrap();
            assert_eq!(exported_bytes(&batch), expected);
            l.start_batch().unwrap();
            assert!(l.start_row().unwrap());
        }
        l.set(s, Value::Str(&"z".repeat(i % 7))).unwrap();
        assert_eq!(l.active_bytes(), l.recount_bytes(), "after set s, row {i}");
        for j in 0..(i % 4) {
            l.set(x, Value::Bool(j % 2 == 0)).unwrap();
            assert_eq!(
                l.active_bytes(),
                l.recount_bytes(),
                "after set x {j}, row {i}"
            );
            l.save_element(xs).unwrap();
            assert_eq!(
                l.active_bytes(),
                l.recount_bytes(),
                "after save x {j}, row {i}"
            );
        }
        assert_eq!(l.active_bytes(), l.recount_bytes());
        if i % 5 == 0 {
            l.discard_row();
            assert_eq!(l.active_bytes(), l.recount_bytes());
            continue;
        }
        l.save_row().unwrap();
        assert_eq!(l.active_bytes(), l.recount_bytes());
    }
}

/// The one-pass `set` counts the bytes each entry adds: for every type it takes, nulls,
/// validity bytes starting, nested members, the running total must match a recount.
#[test]
fn one_pass_writes_count_their_bytes_exactly() {
    let member = Fields::from(vec![Field::new("k", DataType::Utf8, true)]);
    let mut l = loader(
        vec![
            Field::new("i", DataType::Int64, true),
            Field::new("f", DataType::Float64, false),
            Field::new("b", DataType::Boolean, true),
            Field::new(
                "t",
                DataType::Timestamp(arrow_schema::TimeUnit::Microsecond, None),
                true,
            ),
            Field::new("m", DataType::Struct(member), true),
        ],
        1 << 20,
    );
    let [i, f, b, t, m] = ["i", "f", "b", "t", "m"].map(|name| l.column(ROOT, name).unwrap());
    let k = l.column(m, "k").unwrap();
    for row in 0..40i64 {
        l.start_row().unwrap();
        let null = row % 3 == 0;
        let writes: [(ColumnId, Value<'_>); 4] = [
            (i, if null { Value::Null } else { Value::Int(row) }),
            (f, Value::Float(row as f64 / 2.0)),
            (
                b,
                if null {
                    Value::Null
                } else {
                    Value::Bool(row % 2 == 0)
                },
            ),
            (t, Value::Timestamp(row * 1_000_000)),
        ];
        for (id, value) in writes {
            l.set(id, value).unwrap();
            assert_eq!(l.active_bytes(), l.recount_bytes(), "row {row}, {value}");
        }
        l.begin(m).unwrap();
        let text = "x".repeat(row as usize % 5);
        l.set(k, if null { Value::Null } else { Value::Str(&text) })
            .unwrap();
        assert_eq!(l.active_bytes(), l.recount_bytes(), "row {row}, m.k");
        l.save_row().unwrap();
    }
    let expected = l.batch_bytes();
    let batch = l.harvest().unwrap();
    assert_eq!(exported_bytes(&batch), expected);
    assert_eq!(batch.column(0).null_count(), 14);
    let ks = batch.column(4).as_struct().column(0).as_string::<i32>();
    assert_eq!(ks.value(4), "xxxx");
}

#[test]
fn discarding_a_row_restores_every_buffer() {
    let mut l = loader(
        vec![Field::new(
            "m",
            DataType::Map(
                Arc::new(Field::new(
                    "entries",
                    DataType::Struct(Fields::from(vec![
                        Field::new("key", DataType::Utf8, false),
                        Field::new("value", DataType::Int64, true),
                    ])),
                    false,
                )),
                false,
            ),
            true,
        )],
        1 << 20,
    );
    let m = l.column(ROOT, "m").unwrap();
    let entries = l.element(m).unwrap();
    let (k, v) = (
        l.column_at(entries, 0).unwrap(),
        l.column_at(entries, 1).unwrap(),
    );
    l.start_row().unwrap();
    l.set(k, Value::Str("a")).unwrap();
    l.save_element(m).unwrap();
    l.save_row().unwrap();
    let bytes = l.active_bytes();
    l.start_row().unwrap();
    l.set(k, Value::Str("b")).unwrap();
    l.set(v, Value::Int(2)).unwrap();
    l.save_element(m).unwrap();
    l.set(k, Value::Str("c")).unwrap();
    l.discard_row();
    assert_eq!(l.active_bytes(), bytes);
    assert_eq!(l.nodes[k].len, 1);
    let batch = l.harvest().unwrap();
    assert_eq!(batch.num_rows(), 1);
    assert_eq!(batch.column(0).as_map().value_offsets(), &[0, 1]);
}

#[test]
fn row_too_large_leaves_the_loader_usable() {
    let mut l = loader(vec![Field::new("b", DataType::Binary, false)], 16);
    let b = l.column(ROOT, "b").unwrap();
    l.start_row().unwrap();
    let err = l.set(b, Value::Bytes(&[0u8; 17])).unwrap_err();
    assert!(
        matches!(err, LoaderError::RowTooLarge(ref m) if m.contains("is larger than the maximum"))
    );
    assert!(!l.row_open());
    assert!(matches!(
        l.set(b, Value::Bytes(b"x")),
        Err(LoaderError::State(_))
    ));
    l.start_row().unwrap();
    l.set(b, Value::Bytes(b"ok")).unwrap();
    l.save_row().unwrap();
    let batch = l.harvest().unwrap();
    assert_eq!(batch.column(0).as_binary::<i32>().value(0), b"ok");
}

#[test]
fn unprojected_columns_cost_nothing() {
    let options = LoaderOptions {
        schema: schema_of(vec![
            Field::new("a", DataType::Int64, true),
            Field::new("b", DataType::Utf8, true),
        ]),
        projection: Projection::parse(&["a"]).unwrap(),
        vector_byte_limit: 16,
        ..LoaderOptions::default()
    };
    let mut l = ResultSetLoader::new(options).unwrap();
    l.start_batch().unwrap();
    let b = l.column(ROOT, "b").unwrap();
    l.start_row().unwrap();
    l.set(b, Value::Str(&"x".repeat(1000))).unwrap();
    l.save_row().unwrap();
    assert!(!l.is_full());
    let batch = l.harvest().unwrap();
    assert_eq!(batch.schema().fields().len(), 1);
}

#[test]
fn fill_at_commit_can_overflow_the_row() {
    // `a` is never written: the commit's back-fill is what takes it over the limit.
    let mut l = loader(
        vec![
            Field::new("a", DataType::Int64, false),
            Field::new("s", DataType::Utf8, true),
        ],
        16,
    );
    let s = l.column(ROOT, "s").unwrap();
    for _ in 0..2 {
        l.start_row().unwrap();
        l.set(s, Value::Str("x")).unwrap();
        l.save_row().unwrap();
    }
    assert!(!l.is_full());
    l.start_row().unwrap();
    l.save_row().unwrap(); // 3 x 8 bytes of `a` > 16: the row moves on
    assert!(l.is_full());
    assert_eq!(l.harvest().unwrap().num_rows(), 2);
    l.start_batch().unwrap();
    assert_eq!(l.harvest().unwrap().num_rows(), 1);
}

#[test]
fn reserve_keeps_room_for_columns_added_outside() {
    let options = LoaderOptions {
        schema: schema_of(vec![Field::new("a", DataType::Int64, false)]),
        batch_byte_limit: Some(1000),
        reserve: Reserve {
            per_row: 12,
            per_batch: 4,
            largest_buffer_per_row: 4,
        },
        ..LoaderOptions::default()
    };
    let mut l = ResultSetLoader::new(options).unwrap();
    l.start_batch().unwrap();
    let a = l.column(ROOT, "a").unwrap();
    let mut rows = 0;
    while l.start_row().unwrap() {
        l.set(a, Value::Int(rows)).unwrap();
        l.save_row().unwrap();
        rows += 1;
    }
    let batch = l.harvest().unwrap();
    // 8 bytes of `a` + 12 reserved per row, 4 per batch: 49 rows fit 1000 bytes (984),
    // 50 do not (1004).
    assert_eq!(batch.num_rows(), 49);
}

#[test]
fn commit_shortcut_still_back_fills_and_validates() {
    let mut l = loader(
        vec![
            Field::new("a", DataType::Int64, true),
            Field::new("s", DataType::Utf8, true),
        ],
        1 << 20,
    );
    let (a, s) = (l.column(ROOT, "a").unwrap(), l.column(ROOT, "s").unwrap());
    // Both written, then one cleared: the commit must back-fill it.
    l.start_row().unwrap();
    l.set(a, Value::Int(1)).unwrap();
    l.set(s, Value::Str("x")).unwrap();
    l.clear(s).unwrap();
    l.save_row().unwrap();
    // Both written, then bad UTF-8 appended: the commit must refuse the row.
    l.start_row().unwrap();
    l.set(a, Value::Int(2)).unwrap();
    l.set(s, Value::Str("y")).unwrap();
    l.append_bytes(s, &[0xff]).unwrap();
    assert!(matches!(l.save_row(), Err(LoaderError::SchemaConflict(_))));
    let batch = l.harvest().unwrap();
    assert_eq!(batch.num_rows(), 1);
    assert!(batch.column(1).is_null(0));
}

/// The commit shortcut counts first writes to each top-level column's nodes at every depth
/// outside lists; these rows write as many first writes as a column has nodes without
/// writing all of them.
#[test]
fn nested_commit_shortcut_is_not_fooled_by_rewrites_or_unsaved_elements() {
    let pair = Fields::from(vec![
        Field::new("a", DataType::Int64, true),
        Field::new("b", DataType::Int64, true),
    ]);
    let mut l = loader(
        vec![
            Field::new("x", DataType::Int64, true),
            Field::new(
                "s",
                DataType::Struct(Fields::from(vec![
                    Field::new("a", DataType::Int64, true),
                    Field::new("b", DataType::Int64, true),
                    Field::new("c", DataType::Int64, true),
                ])),
                true,
            ),
            Field::new("e", DataType::new_list(DataType::Struct(pair), true), true),
        ],
        1 << 20,
    );
    let (x, s, e) = (
        l.column(ROOT, "x").unwrap(),
        l.column(ROOT, "s").unwrap(),
        l.column(ROOT, "e").unwrap(),
    );
    let (a, b) = (l.column(s, "a").unwrap(), l.column(s, "b").unwrap());
    let el = l.element(e).unwrap();
    let (ea, eb) = (l.column(el, "a").unwrap(), l.column(el, "b").unwrap());
    // s begun twice: a and b are written, cut, and a written again (four first writes, s
    // has four nodes); x is never written.
    l.start_row().unwrap();
    l.begin(s).unwrap();
    l.set(a, Value::Int(1)).unwrap();
    l.set(b, Value::Int(2)).unwrap();
    l.begin(s).unwrap();
    l.set(a, Value::Int(3)).unwrap();
    l.begin(e).unwrap();
    l.save_row().unwrap();
    // Every node written once, but an element of e started and never saved.
    l.start_row().unwrap();
    l.set(x, Value::Int(4)).unwrap();
    l.begin(s).unwrap();
    l.set(a, Value::Int(5)).unwrap();
    l.set(b, Value::Int(6)).unwrap();
    l.begin(e).unwrap();
    l.set(ea, Value::Int(7)).unwrap();
    l.save_element(e).unwrap();
    l.set(eb, Value::Int(8)).unwrap();
    l.save_row().unwrap();
    // The unsaved element must not live on in the next row's first element.
    l.start_row().unwrap();
    l.begin(e).unwrap();
    l.set(ea, Value::Int(9)).unwrap();
    l.save_element(e).unwrap();
    l.save_row().unwrap();
    let batch = l.harvest().unwrap();
    assert_eq!(batch.num_rows(), 3);
    let xs = batch.column(0).as_primitive::<Int64Type>();
    assert!(xs.is_null(0));
    assert_eq!(xs.value(1), 4);
    let ss = batch.column(1).as_struct();
    let (sa, sb) = (
        ss.column(0).as_primitive::<Int64Type>(),
        ss.column(1).as_primitive::<Int64Type>(),
    );
    assert_eq!((sa.value(0), sb.is_null(0)), (3, true));
    assert_eq!(ss.column(2).null_count(), 3);
    assert_eq!(ss.column(2).len(), 3);
    assert_eq!((sa.value(1), sb.value(1)), (5, 6));
    let es = batch.column(2).as_list::<i32>();
    assert_eq!(es.value_offsets(), &[0, 0, 1, 2]);
    let elements = es.values().as_struct();
    let (a, b) = (
        elements.column(0).as_primitive::<Int64Type>(),
        elements.column(1).as_primitive::<Int64Type>(),
    );
    assert_eq!((a.value(0), a.value(1)), (7, 9));
    assert_eq!(b.null_count(), 2, "{b:?}");
}

#[test]
fn element_projection_keeps_positions_nulls_the_rest_and_drops_the_tail() {
    // c: list<struct<a int64, s utf8>>, projected `c[1]`, `c[3]`
    let element = Field::new(
        "item",
        DataType::Struct(Fields::from(vec![
            Field::new("a", DataType::Int64, true),
            Field::new("s", DataType::Utf8, true),
        ])),
        true,
    );
    let options = LoaderOptions {
        schema: schema_of(vec![Field::new(
            "c",
            DataType::List(Arc::new(element)),
            true,
        )]),
        projection: Projection::parse(&["c[3]", "c[1]"]).unwrap(),
        batch_byte_limit: Some(1 << 20),
        ..LoaderOptions::default()
    };
    let mut l = ResultSetLoader::new(options).unwrap();
    l.start_batch().unwrap();
    let c = l.column(ROOT, "c").unwrap();
    let item = l.element(c).unwrap();
    let (a, s) = (l.column_at(item, 0).unwrap(), l.column_at(item, 1).unwrap());
    let lengths = [0usize, 1, 2, 4, 6];
    for &n in &lengths {
        l.start_row().unwrap();
        l.begin(c).unwrap();
        for i in 0..n {
            let want = [
                ElementFate::Null,
                ElementFate::Keep,
                ElementFate::Null,
                ElementFate::Keep,
            ];
            assert_eq!(
                l.element_fate(c),
                *want.get(i).unwrap_or(&ElementFate::Drop)
            );
            l.set(a, Value::Int(i as i64)).unwrap();
            l.set(s, Value::Str(&"x".repeat(100 * (i + 1)))).unwrap();
            l.save_element(c).unwrap();
            assert_eq!(
                l.active_bytes(),
                l.recount_bytes(),
                "row of {n}, element {i}"
            );
        }
        l.save_row().unwrap();
    }
    let batch = l.harvest().unwrap();
    let list = batch.column(0).as_list::<i32>();
    let items = list.values().as_struct();
    let got_a = items.column(0).as_primitive::<Int64Type>();
    for (row, &n) in lengths.iter().enumerate() {
        let kept = n.min(4);
        assert_eq!(list.value_length(row) as usize, kept, "row of {n}");
        let start = list.value_offsets()[row] as usize;
        for i in 0..kept {
            let e = start + i;
            if i == 1 || i == 3 {
                assert!(
                    items.is_valid(e) && got_a.value(e) == i as i64,
                    "row {row} {i}"
                );
            } else {
                assert!(items.is_null(e), "row {row} element {i} is not asked for");
            }
        }
    }
    // only the kept strings take room: elements 1 and 3 of the rows that reach them
    let strings: usize = items.column(1).as_string::<i32>().value_data().len();
    assert_eq!(strings, 200 * 3 + 400 * 2);
}

#[test]
fn unchecked_writes_leave_the_limits_to_limits_hold() {
    let options = LoaderOptions {
        schema: schema_of(vec![
            Field::new("i", DataType::Int64, true),
            Field::new(
                "l",
                DataType::List(Arc::new(Field::new("item", DataType::Int64, true))),
                true,
            ),
        ]),
        batch_byte_limit: Some(400),
        ..LoaderOptions::default()
    };
    let mut l = ResultSetLoader::new(options).unwrap();
    l.start_batch().unwrap();
    let [i, list] = ["i", "l"].map(|name| l.column(ROOT, name).unwrap());
    let item = l.element(list).unwrap();
    let mut rows = 0i64;
    // rows of a one-element list: written unchecked while the limits hold
    loop {
        l.start_row().unwrap();
        assert!(l.set_plain(i, Value::Int(rows)));
        assert!(l.begin_plain(list));
        assert!(l.set_plain(item, Value::Int(rows * 10)));
        l.save_element_plain(list).unwrap();
        assert!(!l.is_full(), "nothing overflowed unchecked");
        if !l.limits_hold() {
            break;
        }
        l.save_row().unwrap();
        rows += 1;
    }
    assert!(rows > 5);
    assert_eq!(l.row_count(), rows as usize);
    // the row that broke the limit, written again checked: it overflows to the next batch
    l.restart_row();
    l.set(i, Value::Int(rows)).unwrap();
    l.begin(list).unwrap();
    l.set(item, Value::Int(rows * 10)).unwrap();
    l.save_element(list).unwrap();
    assert!(l.is_full());
    l.save_row().unwrap();
    let first = l.harvest().unwrap();
    assert_eq!(first.num_rows(), rows as usize);
    assert!(exported_bytes(&first) <= 400);
    l.start_batch().unwrap();
    assert!(l.limits_hold());
    let second = l.harvest().unwrap();
    assert_eq!(second.num_rows(), 1);
    assert_eq!(second.column(0).as_primitive::<Int64Type>().value(0), rows);
}

#[test]
fn a_late_column_that_breaks_a_limit_starts_the_next_batch() {
    let options = LoaderOptions {
        schema: schema_of(vec![Field::new("b", DataType::Boolean, true)]),
        batch_byte_limit: Some(100),
        ..LoaderOptions::default()
    };
    let mut l = ResultSetLoader::new(options).unwrap();
    l.start_batch().unwrap();
    let b = l.column(ROOT, "b").unwrap();
    for i in 0..30 {
        l.start_row().unwrap();
        l.set(b, Value::Bool(i % 2 == 0)).unwrap();
        l.save_row().unwrap();
    }
    l.start_row().unwrap();
    l.set(b, Value::Bool(true)).unwrap();
    // 30 back-filled int64s (240 bytes) cannot join the 30 rows already committed
    let n = l
        .add_column(ROOT, Field::new("n", DataType::Int64, true))
        .unwrap();
    assert!(l.is_full());
    assert_eq!(l.active_bytes(), l.recount_bytes());
    l.set(n, Value::Int(7)).unwrap();
    l.save_row().unwrap();
    let first = l.harvest().unwrap();
    assert_eq!(first.num_rows(), 30);
    assert_eq!(
        first.schema().fields().len(),
        1,
        "set aside without the new column"
    );
    assert!(exported_bytes(&first) <= 100);
    l.start_batch().unwrap();
    assert_eq!(l.row_count(), 1);
    let second = l.harvest().unwrap();
    assert_eq!(second.num_rows(), 1);
    assert_eq!(second.column(1).as_primitive::<Int64Type>().value(0), 7);
    assert!(second.column(0).as_boolean().value(0));
}

/// A type nesting `levels` levels from a top-level column: lists of lists, or a map whose
/// values are such lists (a map takes two levels: entries, then key/value).
fn nesting(levels: usize, through_map: bool) -> Field {
    let mut dt = DataType::Int64;
    let lists = if through_map { levels - 2 } else { levels };
    for _ in 1..lists {
        dt = DataType::List(Arc::new(Field::new("item", dt, true)));
    }
    if through_map {
        let entries = Fields::from(vec![
            Field::new("key", DataType::Utf8, false),
            Field::new("value", dt, true),
        ]);
        dt = DataType::Map(
            Arc::new(Field::new("entries", DataType::Struct(entries), false)),
            false,
        );
    }
    Field::new("c", dt, true)
}

#[test]
fn types_nest_at_most_max_nesting_levels() {
    for through_map in [false, true] {
        let deepest = nesting(MAX_NESTING, through_map);
        let too_deep = nesting(MAX_NESTING + 1, through_map);
        assert!(ResultSetLoader::check_field(&deepest).is_ok());
        let e = ResultSetLoader::check_field(&too_deep).unwrap_err();
        assert!(e.to_string().contains("nests 64 levels deep"), "{e}");
        // under a struct member, one level less fits
        let mut l = loader(
            vec![Field::new(
                "s",
                DataType::Struct(Fields::from(vec![Field::new("x", DataType::Int64, true)])),
                true,
            )],
            1 << 20,
        );
        let s = l.column(ROOT, "s").unwrap();
        let member = Field::new("m", deepest.data_type().clone(), true);
        let e = l.add_column(s, member).unwrap_err();
        assert!(e.to_string().contains("column 's.m"), "{e}");
        assert!(l.add_column(ROOT, deepest.clone()).is_ok());
        let options = LoaderOptions {
            schema: schema_of(vec![too_deep]),
            ..LoaderOptions::default()
        };
        assert!(ResultSetLoader::new(options).is_err());
    }
}

/// A loader built without a schema, its batch started, and its one column: int64 `a`
/// (added the way discovery adds columns).
fn schemaless_with_int64_a() -> (ResultSetLoader, ColumnId) {
    let mut l = ResultSetLoader::new(LoaderOptions::default()).unwrap();
    l.start_batch().unwrap();
    let a = l
        .add_column(ROOT, Field::new("a", DataType::Int64, true))
        .unwrap();
    (l, a)
}

/// Retype list `t`'s element to int64 (as discovery does when a number meets a guessed
/// element) and save `value` as its next element.
fn save_int_element_retyping(l: &mut ResultSetLoader, t: ColumnId, value: i64) {
    let e = l
        .replace_element(t, Field::new("item", DataType::Int64, true))
        .unwrap();
    l.set(e, Value::Int(value)).unwrap();
    l.save_element(t).unwrap();
}

fn utf8_list() -> DataType {
    DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)))
}

#[test]
fn forgetting_columns_undoes_what_a_failed_row_discovered() {
    let (mut l, a) = schemaless_with_int64_a();
    let t = l
        .add_column(ROOT, Field::new("t", utf8_list(), true))
        .unwrap();
    let x = Field::new("x", DataType::Int64, true);
    let s = l
        .add_column(ROOT, Field::new_struct("s", vec![x], true))
        .unwrap();
    l.start_row().unwrap();
    l.set(a, Value::Int(1)).unwrap();
    l.begin(t).unwrap();
    l.save_row().unwrap();
    let (before, version) = (l.schema(), l.schema_version());

    // the failed row: a new top-level column, a new struct member, the list retyped
    let mark = l.schema_mark();
    l.start_row().unwrap();
    l.set(a, Value::Int(2)).unwrap();
    let b = l
        .add_column(ROOT, Field::new("b", DataType::Utf8, true))
        .unwrap();
    l.set(b, Value::Str("junk")).unwrap();
    let y = l
        .add_column(s, Field::new("y", DataType::Int64, true))
        .unwrap();
    l.set(y, Value::Int(5)).unwrap();
    l.begin(t).unwrap();
    let e = l.element(t).unwrap();
    l.set(e, Value::Null).unwrap();
    l.save_element(t).unwrap();
    save_int_element_retyping(&mut l, t, 7);
    assert!(l.forget_columns_since(mark));
    l.discard_row();
    assert_eq!(l.schema(), before);
    assert!(l.schema_version() > version);
    assert_eq!(l.active_bytes(), l.recount_bytes());
    assert!(!l.forget_columns_since(mark), "nothing left to undo");

    // the loader goes on: the list takes strings again, new columns get working ids
    l.start_row().unwrap();
    l.set(a, Value::Int(3)).unwrap();
    l.begin(t).unwrap();
    l.set(l.element(t).unwrap(), Value::Str("ok")).unwrap();
    l.save_element(t).unwrap();
    let c = l
        .add_column(ROOT, Field::new("c", DataType::Boolean, true))
        .unwrap();
    l.set(c, Value::Bool(true)).unwrap();
    l.save_row().unwrap();
    assert_eq!(l.active_bytes(), l.recount_bytes());
    let batch = l.harvest().unwrap();
    assert_eq!(column_names(&batch), ["a", "t", "s", "c"]);
    assert_eq!(batch.schema().field(1).data_type(), &utf8_list());
    let ints = batch.column(0).as_primitive::<Int64Type>();
    assert_eq!(ints.iter().collect::<Vec<_>>(), [Some(1), Some(3)]);
    let lists = batch.column(1).as_list::<i32>();
    assert_eq!(lists.value(0).len(), 0);
    assert_eq!(lists.value(1).as_string::<i32>().value(0), "ok");
    assert_eq!(lists.value(1).len(), 1);
    let bools = batch.column(3).as_boolean();
    assert_eq!(bools.iter().collect::<Vec<_>>(), [None, Some(true)]);
}

/// A loader with utf8 column `s` (its id too) and a 64-byte vector limit, holding three
/// rows of 10 bytes: a row of 50 more overflows.
fn three_rows_of_ten_bytes() -> (ResultSetLoader, ColumnId) {
    let mut l = loader(vec![Field::new("s", DataType::Utf8, true)], 64);
    let s = l.column(ROOT, "s").unwrap();
    for _ in 0..3 {
        l.start_row().unwrap();
        l.set(s, Value::Str("0123456789")).unwrap();
        l.save_row().unwrap();
    }
    (l, s)
}

/// `three_rows_of_ten_bytes`, then a row that adds int64 column `b` and overflows (open);
/// the loader, `s` and the schema mark from before that row.
fn a_row_adding_a_column_overflows() -> (ResultSetLoader, ColumnId, SchemaMark) {
    let (mut l, s) = three_rows_of_ten_bytes();
    let mark = l.schema_mark();
    l.start_row().unwrap();
    let b = l
        .add_column(ROOT, Field::new("b", DataType::Int64, true))
        .unwrap();
    l.set(b, Value::Int(1)).unwrap();
    l.set(s, Value::Str(&"x".repeat(50))).unwrap();
    (l, s, mark)
}

#[test]
fn a_batch_set_aside_by_the_failed_row_loses_its_new_columns_too() {
    // `s` overflows mid-row, after `b` was added: the batch set aside holds `b` (back-fill)
    let (mut l, _, mark) = a_row_adding_a_column_overflows();
    assert!(l.is_full(), "the row overflowed");
    assert!(l.forget_columns_since(mark));
    l.discard_row();
    let batch = l.harvest().unwrap();
    assert_eq!(batch.num_columns(), 1);
    assert_eq!(batch.num_rows(), 3);
    l.start_batch().unwrap();
    assert_eq!(l.schema().fields().len(), 1);
    assert_eq!(l.active_bytes(), l.recount_bytes());
}

#[test]
fn forgetting_narrows_a_column_widened_by_the_failed_row_exactly() {
    let (mut l, a) = schemaless_with_int64_a();
    let big = (1i64 << 53) + 1; // no float64 holds it
    for v in [big, -7] {
        l.start_row().unwrap();
        l.set(a, Value::Int(v)).unwrap();
        l.save_row().unwrap();
    }
    for discard_first in [false, true] {
        let mark = l.schema_mark();
        l.start_row().unwrap();
        l.widen_to_float64(a).unwrap();
        l.set(a, Value::Float(0.5)).unwrap();
        if discard_first {
            l.discard_row();
        }
        assert!(l.forget_columns_since(mark));
        l.discard_row();
        assert_eq!(l.field(a).data_type(), &DataType::Int64);
        assert_eq!(l.active_bytes(), l.recount_bytes());
    }
    l.start_row().unwrap();
    l.set(a, Value::Int(3)).unwrap();
    l.save_row().unwrap();
    let batch = l.harvest().unwrap();
    let ints = batch.column(0).as_primitive::<Int64Type>();
    assert_eq!(
        ints.iter().collect::<Vec<_>>(),
        [Some(big), Some(-7), Some(3)]
    );
}

#[test]
fn a_batch_set_aside_by_the_failed_row_gets_its_list_element_type_back() {
    // `t` (elements a utf8 guess, nulls so far) is retyped, then `s` overflows mid-row: the
    // batch set aside holds `t`'s null elements in the new type until the row is undone
    let fields = vec![
        Field::new("s", DataType::Utf8, true),
        Field::new("t", utf8_list(), true),
    ];
    let mut l = loader(fields, 64);
    let (s, t) = (l.column(ROOT, "s").unwrap(), l.column(ROOT, "t").unwrap());
    for _ in 0..3 {
        l.start_row().unwrap();
        l.set(s, Value::Str("0123456789")).unwrap();
        l.begin(t).unwrap();
        l.set(l.element(t).unwrap(), Value::Null).unwrap();
        l.save_element(t).unwrap();
        l.save_row().unwrap();
    }
    let mark = l.schema_mark();
    l.start_row().unwrap();
    l.begin(t).unwrap();
    save_int_element_retyping(&mut l, t, 7);
    l.set(s, Value::Str(&"x".repeat(50))).unwrap();
    assert!(l.is_full(), "the row overflowed");
    assert!(l.forget_columns_since(mark));
    l.discard_row();
    assert_eq!(l.field(t).data_type(), &utf8_list());
    let expected = l.batch_bytes();
    let batch = l.harvest().unwrap();
    assert_eq!(exported_bytes(&batch), expected);
    assert_eq!(batch.num_rows(), 3);
    assert_eq!(batch.schema().field(1).data_type(), &utf8_list());
    let lists = batch.column(1).as_list::<i32>();
    for i in 0..3 {
        assert_eq!(lists.value(i).len(), 1);
        assert!(lists.value(i).is_null(0));
    }
    // the next batch takes strings in `t` again
    l.start_batch().unwrap();
    l.start_row().unwrap();
    l.begin(t).unwrap();
    l.set(l.element(t).unwrap(), Value::Str("ok")).unwrap();
    l.save_element(t).unwrap();
    l.save_row().unwrap();
    assert_eq!(l.active_bytes(), l.recount_bytes());
    let batch = l.harvest().unwrap();
    let lists = batch.column(1).as_list::<i32>();
    assert_eq!(lists.value(0).as_string::<i32>().value(0), "ok");
}

#[test]
fn a_batch_set_aside_by_the_failed_row_gets_its_int_column_back() {
    // the failed row widens `a`, and `s` overflows before or after: the batch set aside
    // must hold `a`'s exact int64 values either way
    let big = (1i64 << 53) + 1;
    for widen_first in [true, false] {
        let fields = vec![
            Field::new("s", DataType::Utf8, true),
            Field::new("a", DataType::Int64, true),
        ];
        let mut l = loader(fields, 64);
        let (s, a) = (l.column(ROOT, "s").unwrap(), l.column(ROOT, "a").unwrap());
        for v in [big, -7, 5] {
            l.start_row().unwrap();
            l.set(s, Value::Str("0123456789")).unwrap();
            l.set(a, Value::Int(v)).unwrap();
            l.save_row().unwrap();
        }
        let mark = l.schema_mark();
        l.start_row().unwrap();
        if !widen_first {
            l.set(s, Value::Str(&"x".repeat(50))).unwrap();
        }
        l.widen_to_float64(a).unwrap();
        l.set(a, Value::Float(0.5)).unwrap();
        if widen_first {
            l.set(s, Value::Str(&"x".repeat(50))).unwrap();
        }
        assert!(l.is_full(), "the row overflowed");
        assert!(l.forget_columns_since(mark));
        l.discard_row();
        assert_eq!(l.field(a).data_type(), &DataType::Int64);
        let expected = l.batch_bytes();
        let batch = l.harvest().unwrap();
        assert_eq!(exported_bytes(&batch), expected);
        assert_eq!(batch.schema().field(1).data_type(), &DataType::Int64);
        let ints = batch.column(1).as_primitive::<Int64Type>();
        let want = [Some(big), Some(-7), Some(5)];
        assert_eq!(
            ints.iter().collect::<Vec<_>>(),
            want,
            "widen first: {widen_first}"
        );
        l.start_batch().unwrap();
        l.start_row().unwrap();
        l.set(a, Value::Int(3)).unwrap();
        l.save_row().unwrap();
        assert_eq!(l.active_bytes(), l.recount_bytes());
        let batch = l.harvest().unwrap();
        let ints = batch.column(1).as_primitive::<Int64Type>();
        assert_eq!(ints.iter().collect::<Vec<_>>(), [Some(3)]);
    }
}

#[test]
fn a_record_refuses_a_second_write_where_a_row_overwrites() {
    let pair = Fields::from(vec![Field::new("k", DataType::Int64, true)]);
    let mut l = loader(
        vec![
            Field::new("x", DataType::Int64, true),
            Field::new("e", DataType::new_list(DataType::Struct(pair), true), true),
        ],
        1 << 20,
    );
    let x = l.column(ROOT, "x").unwrap();
    let e = l.column(ROOT, "e").unwrap();
    let item = l.element(e).unwrap();
    let k = l.column(item, "k").unwrap();
    // a row overwrites
    assert!(l.start_row().unwrap());
    l.set(x, Value::Int(1)).unwrap();
    l.set(x, Value::Int(2)).unwrap();
    l.save_row().unwrap();
    // a record refuses, at the top and in a list element, scalar or compound, and the
    // loader goes on
    assert!(l.start_record().unwrap());
    l.set(x, Value::Int(3)).unwrap();
    let twice = l.set(x, Value::Null).unwrap_err();
    assert_eq!(twice, LoaderError::GivenTwice("x".into()));
    assert!(twice.to_string().contains("'x' is given twice"), "{twice}");
    l.begin(e).unwrap();
    l.begin(item).unwrap();
    l.set(k, Value::Int(4)).unwrap();
    let twice = l.set(k, Value::Int(5)).unwrap_err();
    assert_eq!(twice, LoaderError::GivenTwice("e[].k".into()));
    l.save_element(e).unwrap();
    l.begin(item).unwrap(); // the next element is fresh
    l.set(k, Value::Int(6)).unwrap();
    l.save_element(e).unwrap();
    let twice = l.begin(e).unwrap_err();
    assert_eq!(twice, LoaderError::GivenTwice("e".into()));
    l.save_row().unwrap();
    let batch = l.harvest().unwrap();
    let xs = batch
        .column(0)
        .as_primitive::<arrow_array::types::Int64Type>();
    assert_eq!(xs.values().to_vec(), vec![2, 3]);
    let lists = batch.column(1).as_list::<i32>();
    assert_eq!(lists.value_length(1), 2);
}

/// A name holding NUL cannot cross Arrow's C data interface (names are C strings): a column
/// or struct member so named is refused where it is added, and the loader goes on.
#[test]
fn names_with_nul_are_refused_where_added() {
    let mut l = loader(vec![Field::new("a", DataType::Int64, true)], 1 << 20);
    let bad = l.add_column(ROOT, Field::new("x\0y", DataType::Int64, true));
    assert!(
        matches!(&bad, Err(LoaderError::SchemaConflict(m)) if m.contains("NUL")),
        "{bad:?}"
    );
    let nested = Field::new(
        "s",
        DataType::Struct(vec![Field::new("\0", DataType::Utf8, true)].into()),
        true,
    );
    assert!(matches!(
        l.add_column(ROOT, nested),
        Err(LoaderError::SchemaConflict(_))
    ));
    let b = l
        .add_column(ROOT, Field::new("b", DataType::Utf8, true))
        .unwrap();
    let a = l.column(ROOT, "a").unwrap();
    assert!(l.start_row().unwrap());
    l.set(a, Value::Int(1)).unwrap();
    l.set(b, Value::Str("ok")).unwrap();
    l.save_row().unwrap();
    assert_eq!(column_names(&l.harvest().unwrap()), ["a", "b"]);
}

/// Where a column of the type under test sits.
#[derive(Clone, Copy, Debug)]
enum Placement {
    Top,
    Member,
    Element,
}

/// One loader holding a column of type `dt` at `placement`, and the ids a row writes: the
/// column (or element) itself, and the struct or list to open around it.
fn placed(
    dt: &DataType,
    nullable: bool,
    placement: Placement,
) -> (ResultSetLoader, ColumnId, Option<ColumnId>) {
    let leaf = Field::new("v", dt.clone(), nullable);
    let field = match placement {
        Placement::Top => leaf,
        Placement::Member => Field::new("s", DataType::Struct(Fields::from(vec![leaf])), true),
        Placement::Element => Field::new("s", DataType::List(Arc::new(leaf)), true),
    };
    let l = loader(vec![field], 1 << 20);
    let (id, around) = match placement {
        Placement::Top => (l.column(ROOT, "v").unwrap(), None),
        Placement::Member => {
            let s = l.column(ROOT, "s").unwrap();
            (l.column(s, "v").unwrap(), Some(s))
        }
        Placement::Element => {
            let s = l.column(ROOT, "s").unwrap();
            (l.element(s).unwrap(), Some(s))
        }
    };
    (l, id, around)
}

#[test]
fn one_pass_and_checked_writes_store_the_same_for_every_type_and_value() {
    use arrow_schema::TimeUnit;
    let types = [
        DataType::Boolean,
        DataType::Int8,
        DataType::Int16,
        DataType::Int32,
        DataType::Int64,
        DataType::UInt8,
        DataType::UInt32,
        DataType::UInt64,
        DataType::Float32,
        DataType::Float64,
        DataType::Decimal128(12, 2),
        DataType::Date32,
        DataType::Timestamp(TimeUnit::Second, None),
        DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())),
        DataType::Timestamp(TimeUnit::Microsecond, None),
        DataType::Timestamp(TimeUnit::Nanosecond, Some("+02:00".into())),
        DataType::Utf8,
        DataType::LargeUtf8,
        DataType::Binary,
        DataType::LargeBinary,
    ];
    let values = [
        Value::Null,
        Value::Bool(true),
        Value::Bool(false),
        Value::Int(0),
        Value::Int(-1),
        Value::Int(200),
        Value::Int(70_000),
        Value::Int(i64::MAX),
        Value::Int(i64::MIN),
        Value::UInt(u64::MAX),
        Value::Float(1.5),
        Value::Float(-0.0),
        Value::Float(f64::NAN),
        Value::Str(""),
        Value::Str("hé, \u{1F600}"),
        Value::Bytes(b"\x00\xff"),
        Value::Decimal(-123_456),
        Value::Date(19_000),
        Value::Timestamp(1_700_000_000),
    ];
    let placements = [Placement::Top, Placement::Member, Placement::Element];
    for dt in &types {
        for nullable in [true, false] {
            for placement in placements {
                let case = format!("{dt} (nullable {nullable}) as {placement:?}");
                let (mut one_pass, id, around) = placed(dt, nullable, placement);
                let (mut checked, _, _) = placed(dt, nullable, placement);
                // Each value in a row of its own, then all of them in one row: as list
                // elements after the first, every write of a row is a one-pass candidate.
                let mut rows: Vec<Vec<Value<'_>>> = values.iter().map(|v| vec![*v]).collect();
                rows.push(values.to_vec());
                for row in &rows {
                    let mut outcomes = vec![];
                    for (l, one) in [(&mut one_pass, true), (&mut checked, false)] {
                        l.start_row().unwrap();
                        let mut outcome = vec![];
                        for value in row {
                            if let Some(s) = around {
                                if !matches!(placement, Placement::Element) || outcome.is_empty() {
                                    l.begin(s).unwrap();
                                }
                            }
                            let written = if one {
                                l.set(id, *value)
                            } else {
                                l.set_checked(id, *value)
                            };
                            outcome.push(written.map_err(|e| e.to_string()));
                            if matches!(placement, Placement::Element)
                                && outcome.last().unwrap().is_ok()
                            {
                                l.save_element(around.unwrap()).unwrap();
                            }
                            assert_eq!(l.active_bytes(), l.recount_bytes(), "{case}, {value}");
                        }
                        if matches!(placement, Placement::Top | Placement::Member) && row.len() > 1
                        {
                            // a row of many values overwrites one column: only the last counts
                            l.discard_row();
                        } else {
                            l.save_row().unwrap();
                        }
                        outcomes.push(outcome);
                    }
                    assert_eq!(outcomes[0], outcomes[1], "{case}, row {row:?}");
                }
                assert_eq!(one_pass.batch_bytes(), checked.batch_bytes(), "{case}");
                let (a, b) = (one_pass.harvest().unwrap(), checked.harvest().unwrap());
                assert_eq!(a, b, "{case}");
                assert!(a.num_rows() >= values.len(), "{case}");
            }
        }
    }
}

/// Sparse rows: each writes one of 100 nullable columns (a schema wide enough for the
/// commit to zero only the counts a row set), whose nulls the others defer
/// (`lazy.rs`). The batches are those of writing every null: each row's value in its place
/// and nulls elsewhere, the byte count exact at every harvest, the vector limit reached by
/// the deferred nulls' offsets as a written null's would reach it.
#[test]
fn sparse_rows_defer_their_nulls_and_count_them() {
    const N: usize = 100;
    let fields: Vec<Field> = (0..N)
        .map(|i| match i % 3 {
            0 => Field::new(format!("i{i}"), DataType::Int64, true),
            1 => Field::new(format!("s{i}"), DataType::Utf8, true),
            _ => Field::new(format!("b{i}"), DataType::Boolean, true),
        })
        .collect();
    // 400 bytes: 99 utf8 offsets (and 50 int64 values) a buffer
    let mut l = loader(fields.clone(), 400);
    let mut batches = Vec::new();
    for r in 0..300usize {
        if !l.start_row().unwrap() {
            let expected = l.batch_bytes();
            let batch = l.harvest().unwrap();
            assert_eq!(exported_bytes(&batch), expected);
            batches.push(batch);
            assert!(l.start_batch().unwrap());
            assert!(l.start_row().unwrap());
        }
        let column = r % N;
        let id = l.column(ROOT, fields[column].name()).unwrap();
        match column % 3 {
            0 => l.set(id, Value::Int(r as i64)).unwrap(),
            1 => l.set(id, Value::Str("x")).unwrap(),
            _ => l.set(id, Value::Bool(true)).unwrap(),
        }
        l.save_row().unwrap();
        assert_eq!(l.active_bytes(), l.recount_bytes());
    }
    let expected = l.batch_bytes();
    let last = l.harvest().unwrap();
    assert_eq!(exported_bytes(&last), expected);
    batches.push(last);
    // 50 int64 values fit 400 bytes, and so do 99 utf8 offsets: the int64s end each batch
    let rows: Vec<usize> = batches.iter().map(RecordBatch::num_rows).collect();
    assert_eq!(rows, [50, 50, 50, 50, 50, 50]);
    for (b, batch) in batches.iter().enumerate() {
        for (c, column) in batch.columns().iter().enumerate() {
            for row in 0..batch.num_rows() {
                let r = b * 50 + row;
                assert_eq!(column.is_valid(row), r % N == c, "row {r} column {c}");
            }
        }
        let ints = batch.column(0).as_primitive::<Int64Type>();
        for row in (0..batch.num_rows()).filter(|row| (b * 50 + row) % N == 0) {
            assert_eq!(ints.value(row), (b * 50 + row) as i64);
        }
    }
}

/// `text_guesses` marks the utf8 columns at and below each path as taking any JSON value
/// as text (`takes_any_text`), in any case; other columns, and paths it does not name, are
/// not; a path the schema lacks is refused. `fix_text_guesses` does the same on an open
/// loader, adding a column or member it lacks from the schema given.
#[test]
fn text_guesses_mark_the_utf8_columns_at_and_below_their_paths() {
    let m = DataType::Struct(Fields::from(vec![
        Field::new("x", DataType::Utf8, true),
        Field::new("n", DataType::Int64, true),
    ]));
    let l_type = DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)));
    let fields = vec![
        Field::new("M", m.clone(), true),
        Field::new("l", l_type.clone(), true),
        Field::new("s", DataType::Utf8, true),
    ];
    let options = |paths: &[&str]| LoaderOptions {
        schema: schema_of(fields.clone()),
        text_guesses: paths.iter().map(|p| p.to_string()).collect(),
        ..LoaderOptions::default()
    };
    let l = ResultSetLoader::new(options(&["m", "L[]"])).unwrap();
    let id = |l: &ResultSetLoader, path: &str| l.column_by_path(path).unwrap();
    assert!(l.takes_any_text(id(&l, "m.x")));
    assert!(!l.takes_any_text(id(&l, "m.n")), "an int64 takes no text");
    assert!(l.is_fixed_guess(id(&l, "m")) && l.is_fixed_guess(id(&l, "m.n")));
    assert!(l.takes_any_text(id(&l, "l[]")));
    assert!(
        !l.is_fixed_guess(id(&l, "l")),
        "the list itself was not named"
    );
    assert!(!l.takes_any_text(id(&l, "s")));
    assert!(ResultSetLoader::new(options(&["m.y"])).is_err());

    // on an open loader: a member and a column it lacks are added from the schema
    let mut l = ResultSetLoader::new(LoaderOptions {
        schema: schema_of(vec![Field::new(
            "m",
            DataType::Struct(Fields::from(vec![Field::new("n", DataType::Int64, true)])),
            true,
        )]),
        ..LoaderOptions::default()
    })
    .unwrap();
    let wider = Schema::new(fields.clone());
    let paths = ["m.x", "l", "nope", "m.nope.x"].map(String::from);
    l.fix_text_guesses(&wider, &paths).unwrap();
    assert!(l.takes_any_text(id(&l, "m.x")));
    assert!(l.takes_any_text(id(&l, "l[]")));
    assert!(!l.is_fixed_guess(id(&l, "m.n")));
    assert_eq!(l.field(id(&l, "l")).data_type(), &l_type);
    assert!(l.column_by_path("nope").is_none() && l.column_by_path("s").is_none());
}

/// A value kept as text is counted for a column typed by a guess, not for a declared utf8
/// column, and only in a row saved: a row written again or discarded counts nothing.
#[test]
fn text_kept_counts_guessed_columns_in_rows_saved() {
    let mut l = ResultSetLoader::new(LoaderOptions {
        schema: schema_of(vec![
            Field::new("g", DataType::Utf8, true),
            Field::new("d", DataType::Utf8, true),
        ]),
        text_guesses: vec!["g".into()],
        declared: vec!["d".into()],
        ..LoaderOptions::default()
    })
    .unwrap();
    let (g, d) = (l.column(ROOT, "g").unwrap(), l.column(ROOT, "d").unwrap());
    assert!(l.takes_any_text(g) && l.takes_any_text(d));
    l.start_batch().unwrap();
    let row = |l: &mut ResultSetLoader, save: bool| {
        l.start_row().unwrap();
        for id in [g, d] {
            l.note_text_kept(id);
            l.set(id, Value::Str("1")).unwrap();
        }
        if save {
            l.save_row().unwrap();
        }
    };
    row(&mut l, true);
    row(&mut l, false);
    l.restart_row();
    l.note_text_kept(g);
    l.save_row().unwrap();
    row(&mut l, false);
    l.discard_row();
    row(&mut l, false); // discarded by the next start_row
    row(&mut l, true);
    assert_eq!(l.take_text_kept(), [("g".to_string(), 3)]);
    assert_eq!(l.row_count(), 3);

    // rounded whole numbers are counted apart, in rows saved, and taken apart
    l.start_row().unwrap();
    l.note_whole_rounded(d);
    l.note_text_kept(g);
    l.save_row().unwrap();
    l.start_row().unwrap();
    l.note_whole_rounded(d);
    l.discard_row();
    assert_eq!(l.take_wholes_rounded(), [("d".to_string(), 1)]);
    assert!(l.take_wholes_rounded().is_empty(), "the counts start again");
    assert_eq!(l.take_text_kept(), [("g".to_string(), 1)]);
}

/// A row that overflowed is not saved by `save_row_unless_moved`, whether a write moved it
/// or its commit did: discarded, with the columns it added, it leaves the batch set aside
/// whole, and it can be written again as the first row of the next batch.
#[test]
fn save_row_unless_moved_leaves_a_row_that_overflowed_unsaved() {
    // moved by a write
    let (mut l, s, mark) = a_row_adding_a_column_overflows();
    assert!(l.row_moved());
    assert!(!l.save_row_unless_moved().unwrap());
    assert!(l.row_moved() && l.row_open());
    l.forget_columns_since(mark);
    l.discard_row();
    let batch = l.harvest().unwrap();
    assert_eq!(
        (batch.num_rows(), batch.num_columns()),
        (3, 1),
        "b went with the row"
    );
    l.start_batch().unwrap();
    l.start_row().unwrap();
    l.set(s, Value::Str(&"x".repeat(50))).unwrap();
    assert!(
        l.save_row_unless_moved().unwrap(),
        "the first row of a batch stays"
    );
    assert_eq!(l.harvest().unwrap().num_rows(), 1);

    // moved by its commit: rows that write nothing take back-filled nulls until the
    // int64 column's 8 bytes a row pass the limit
    let mut l = loader(vec![Field::new("b", DataType::Int64, true)], 64);
    let mut saved = 0;
    loop {
        l.start_row().unwrap();
        assert!(!l.row_moved());
        if !l.save_row_unless_moved().unwrap() {
            break;
        }
        saved += 1;
        assert!(saved < 100, "the commit never overflowed");
    }
    assert!(l.row_moved() && l.row_open());
    l.discard_row();
    assert_eq!(l.harvest().unwrap().num_rows(), saved);
    l.start_batch().unwrap();
    assert_eq!(l.row_count(), 0);
    assert_eq!(l.active_bytes(), l.recount_bytes());
    l.start_row().unwrap();
    l.save_row().unwrap();
    assert_eq!(l.harvest().unwrap().num_rows(), 1);
}

/// `add_null_column_set_aside_too` after an overflow gives the column to the batch set
/// aside as well, all null (a struct with its member too), where `add_column` gives it to
/// the rows after it only.
#[test]
fn a_null_column_added_after_an_overflow_reaches_the_batch_set_aside() {
    let (mut l, s) = three_rows_of_ten_bytes();
    l.start_row().unwrap();
    l.set(s, Value::Str(&"x".repeat(50))).unwrap();
    l.save_row().unwrap();
    assert!(l.is_full(), "the fourth row overflowed");
    let m = DataType::Struct(Fields::from(vec![Field::new("x", DataType::Utf8, true)]));
    l.add_null_column_set_aside_too(ROOT, Field::new("y", DataType::Utf8, true))
        .unwrap();
    l.add_null_column_set_aside_too(ROOT, Field::new("m", m.clone(), true))
        .unwrap();
    l.add_column(ROOT, Field::new("late", DataType::Int64, true))
        .unwrap();
    let set_aside = l.harvest().unwrap();
    let names: Vec<&str> = set_aside
        .schema_ref()
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    assert_eq!(names, ["s", "y", "m"]);
    assert_eq!(set_aside.num_rows(), 3);
    assert_eq!(set_aside.column(1).null_count(), 3);
    assert_eq!(set_aside.column(2).data_type(), &m);
    assert_eq!(set_aside.column(2).null_count(), 3);
    l.start_batch().unwrap();
    let next = l.harvest().unwrap();
    assert_eq!(next.num_rows(), 1);
    assert_eq!(next.num_columns(), 4);
    assert_eq!(next.column(1).null_count(), 1);
}

/// A member added with `add_null_column_set_aside_too` after an overflow reaches the
/// structs of the batch set aside, top-level and in a list's elements, all null there.
#[test]
fn a_null_member_added_after_an_overflow_reaches_the_structs_set_aside() {
    let k = || Fields::from(vec![Field::new("k", DataType::Int64, true)]);
    let element = Field::new("item", DataType::Struct(k()), true);
    let mut l = loader(
        vec![
            Field::new("m", DataType::Struct(k()), true),
            Field::new("ev", DataType::List(Arc::new(element)), true),
        ],
        64,
    );
    let m = l.column(ROOT, "m").unwrap();
    let mk = l.column(m, "k").unwrap();
    let ev = l.column(ROOT, "ev").unwrap();
    let item = l.element(ev).unwrap();
    let ek = l.column(item, "k").unwrap();
    let mut rows = 0;
    while !l.is_full() {
        l.start_row().unwrap();
        l.set(mk, Value::Int(rows)).unwrap();
        for _ in 0..2 {
            l.set(ek, Value::Int(rows)).unwrap();
            l.save_element(ev).unwrap();
        }
        l.save_row().unwrap();
        rows += 1;
    }
    let x = || Field::new("x", DataType::Utf8, true);
    l.add_null_column_set_aside_too(m, x()).unwrap();
    l.add_null_column_set_aside_too(item, x()).unwrap();
    let set_aside = l.harvest().unwrap();
    let n = set_aside.num_rows();
    assert_eq!(n as i64, rows - 1, "the last row overflowed");
    let m = set_aside.column(0).as_struct();
    assert_eq!(m.column_names(), ["k", "x"]);
    assert_eq!(m.column(1).null_count(), n);
    let items = set_aside
        .column(1)
        .as_list::<i32>()
        .values()
        .as_struct()
        .clone();
    assert_eq!(items.column_names(), ["k", "x"]);
    assert_eq!((items.len(), items.column(1).null_count()), (2 * n, 2 * n));
    l.start_batch().unwrap();
    assert_eq!(l.harvest().unwrap().num_rows(), 1);
}

/// `declared` takes top-level names (one with a dot included, as it is) and paths: a path
/// declares that member and what it holds, not its struct's other members; a member added
/// later to a declared struct is declared too. A name or path the schema lacks is refused.
#[test]
fn declared_paths_declare_the_members_they_name() {
    let s = DataType::Struct(Fields::from(vec![
        Field::new("k.v", DataType::Utf8, true),
        Field::new("x", DataType::Utf8, true),
    ]));
    let schema = |declared: Vec<&str>| {
        ResultSetLoader::new(LoaderOptions {
            schema: schema_of(vec![
                Field::new("s", s.clone(), true),
                Field::new("a.b", DataType::Utf8, true),
                Field::new("t", s.clone(), true),
            ]),
            declared: declared.into_iter().map(String::from).collect(),
            ..LoaderOptions::default()
        })
    };
    let l = schema(vec!["S.`K.V`", "a.b", "t"]).unwrap();
    let at = |path: &str| l.column_by_path(path).unwrap();
    assert_eq!(l.path(at("s.`k.v`")), "s.`k.v`");
    assert!(l.takes_any_text(at("s.`k.v`")) && !l.takes_any_text(at("s.x")));
    assert!(!l.is_declared(at("s")));
    assert!(l.takes_any_text(at("`a.b`")));
    assert!(l.takes_any_text(at("t.`k.v`")) && l.takes_any_text(at("t.x")));
    let mut l = l;
    let t = l.column(ROOT, "t").unwrap();
    let added = l
        .add_column(t, Field::new("y", DataType::Utf8, true))
        .unwrap();
    assert!(l.takes_any_text(added));
    let s = l.column(ROOT, "s").unwrap();
    let added = l
        .add_column(s, Field::new("y", DataType::Utf8, true))
        .unwrap();
    assert!(!l.takes_any_text(added));
    for missing in ["s.y", "s.k.v", "nope"] {
        let e = schema(vec![missing]).err().expect(missing);
        assert!(e.to_string().contains("is not in the schema"), "{e}");
    }
}
