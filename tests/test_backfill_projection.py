"""Columns added mid-batch (seed 003's back-fill rules) and projection."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pytest

import batchloader as bl


def three_rows_then(add):
    """Write 3 rows of `a`, add a column with `add(writer)`, write a 4th row; harvest."""
    loader = bl.ResultSetLoader(pa.schema([("a", pa.int64())]))
    loader.start_batch()
    w = loader.writer
    for i in range(3):
        w.start()
        w["a"].set(i)
        w.save()
    w.start()
    w["a"].set(3)
    add(w)
    w.save()
    return loader.harvest()


@pytest.mark.parametrize(
    ("field", "fill"),
    [
        (pa.field("x", pa.int32()), None),
        (pa.field("x", pa.int32(), nullable=False), 0),
        (pa.field("x", pa.utf8(), nullable=False), ""),
        (pa.field("x", pa.binary(), nullable=False), b""),
        (pa.field("x", pa.bool_(), nullable=False), False),
        (pa.field("x", pa.float64(), nullable=False), 0.0),
        (pa.field("x", pa.int16(), nullable=False, metadata={"default": "42"}), 42),
        (pa.field("x", pa.utf8(), nullable=False, metadata={"default": "n/a"}), "n/a"),
        (pa.field("x", pa.list_(pa.int64())), None),
        (pa.field("x", pa.list_(pa.int64()), nullable=False), []),
        (pa.field("x", pa.map_(pa.utf8(), pa.int8()), nullable=False), []),
        (
            pa.field(
                "x",
                pa.struct([pa.field("p", pa.int8(), nullable=False), ("q", pa.utf8())]),
                nullable=False,
            ),
            {"p": 0, "q": None},
        ),
        (pa.field("x", pa.struct([("p", pa.int8())])), None),
        (
            pa.field("x", pa.date32(), nullable=False, metadata={"default": "2020-01-02"}),
            dt.date(2020, 1, 2),
        ),
    ],
)
def test_column_added_after_rows_is_back_filled(field, fill):
    batch = three_rows_then(lambda w: w.add_column(field))
    assert batch.schema.field("x") == field
    assert batch.column("x").to_pylist() == [fill] * 4
    assert batch.schema.field("x").metadata == field.metadata


def test_non_nullable_date_cannot_be_added_after_the_first_row():
    for t in (pa.date32(), pa.timestamp("us")):
        with pytest.raises(bl.SchemaConflictError, match="after the first row"):
            three_rows_then(lambda w, t=t: w.add_column(pa.field("d", t, nullable=False)))


def test_non_nullable_date_can_be_added_before_the_first_row():
    loader = bl.ResultSetLoader()
    w = loader.writer
    w.add_column(pa.field("d", pa.date32(), nullable=False))
    loader.start_batch()
    w.start()
    w["d"].set(dt.date(2024, 2, 29))
    w.save()
    assert loader.harvest().column("d").to_pylist() == [dt.date(2024, 2, 29)]


def test_member_added_to_a_struct_mid_batch():
    loader = bl.ResultSetLoader(pa.schema([("m", pa.struct([("a", pa.int64())]))]))
    rows = []
    loader.start_batch()
    w = loader.writer
    for i in range(2):
        w.start()
        w["m"]["a"].set(i)
        w.save()
        rows.append({"m": {"a": i}})
    w.start()
    w["m"].add_column(pa.field("b", pa.utf8()))
    w["m"]["b"].set("new")
    w.save()
    batch = loader.harvest()
    assert batch.to_pylist() == [
        {"m": {"a": 0, "b": None}},
        {"m": {"a": 1, "b": None}},
        {"m": {"a": None, "b": "new"}},
    ]


def test_member_added_to_a_list_of_structs_mid_row():
    t = pa.list_(pa.struct([("k", pa.utf8())]))
    loader = bl.ResultSetLoader(pa.schema([("ev", t)]))
    loader.start_batch()
    w = loader.writer
    w.start()
    ev = w["ev"]
    ev.append({"k": "a"})
    ev.element.add_column(pa.field("n", pa.int64(), nullable=False))
    ev.element["k"].set("b")
    ev.element["n"].set(5)
    ev.save()
    w.save()
    assert loader.harvest().to_pylist() == [{"ev": [{"k": "a", "n": 0}, {"k": "b", "n": 5}]}]


def test_writing_a_member_makes_a_null_struct_non_null():
    loader = bl.ResultSetLoader(pa.schema([("m", pa.struct([("a", pa.int64())]))]))
    loader.start_batch()
    w = loader.writer
    w.start()
    w["m"].set(None)
    w["m"]["a"].set(1)
    w.save()
    w.start()
    w.save()
    assert loader.harvest().to_pylist() == [{"m": {"a": 1}}, {"m": None}]


def test_none_into_non_nullable_list_stores_empty():
    schema = pa.schema([pa.field("xs", pa.list_(pa.int8()), nullable=False)])
    loader = bl.ResultSetLoader(schema)
    batches = list(loader.write_rows([{"xs": None}, {}, {"xs": [1]}]))
    assert batches[0].column("xs").to_pylist() == [[], [], [1]]


def test_none_into_non_nullable_scalar_is_a_conflict():
    loader = bl.ResultSetLoader(pa.schema([pa.field("a", pa.int8(), nullable=False)]))
    loader.start_batch()
    w = loader.writer
    w.start()
    with pytest.raises(bl.SchemaConflictError, match="not nullable"):
        w["a"].set(None)


# ---------------------------------------------------------------- projection


def test_unprojected_columns_are_accepted_and_dropped():
    schema = pa.schema([("a", pa.int64()), ("b", pa.utf8()), ("c", pa.float64())])
    loader = bl.ResultSetLoader(schema, projection=["C", "a"], vector_byte_limit=64)
    assert loader.schema_version == 2
    loader.start_batch()
    w = loader.writer
    w.start()
    w["a"].set(1)
    w["b"].set("x" * 10_000)  # unprojected: never overflows
    w["b"].set(12)  # not even type-checked
    assert not w["b"].is_projected
    w["c"].set(2.5)
    w.save()
    assert not loader.is_full()
    batch = loader.harvest()
    assert batch.schema.names == ["a", "c"]  # order of addition
    assert batch.to_pylist() == [{"a": 1, "c": 2.5}]


def test_nested_projection_keeps_only_the_named_members():
    t = pa.struct([("a", pa.int64()), ("b", pa.utf8()), ("c", pa.struct([("d", pa.int8())]))])
    loader = bl.ResultSetLoader(
        pa.schema([("m", t), ("z", pa.int8())]), projection=["m.b", "m.c.d"]
    )
    assert loader.schema_version == 4  # m, m.b, m.c, m.c.d
    batches = list(loader.write_rows([{"m": {"a": 1, "b": "x", "c": {"d": 4}}, "z": 3}]))
    assert batches[0].to_pylist() == [{"m": {"b": "x", "c": {"d": 4}}}]
    assert loader.schema == batches[0].schema


def test_empty_projection_counts_rows_without_columns():
    loader = bl.ResultSetLoader(pa.schema([("a", pa.int64())]), projection=[], row_limit=3)
    batches = list(loader.write_rows({"a": i} for i in range(7)))
    assert [b.num_rows for b in batches] == [3, 3, 1]
    assert all(b.num_columns == 0 for b in batches)


def test_wildcard_projection_and_added_columns():
    loader = bl.ResultSetLoader(projection=["*"])
    w = loader.writer
    w.add_column(pa.field("x", pa.int8()))
    assert w["x"].is_projected


def test_columns_added_outside_the_projection_are_dummies():
    loader = bl.ResultSetLoader(projection=["keep"])
    w = loader.writer
    w.add_column(pa.field("drop", pa.int8()))
    w.add_column(pa.field("keep", pa.int8()))
    assert loader.schema_version == 1
    loader.start_batch()
    w.start()
    w["drop"].set(1)
    w["keep"].set(2)
    w.save()
    assert loader.harvest().to_pylist() == [{"keep": 2}]


def test_unknown_keys_outside_the_projection_are_skipped():
    loader = bl.ResultSetLoader(pa.schema([("a", pa.int64())]), projection=["a"])
    batches = list(loader.write_rows([{"a": 1, "other": object()}]))
    assert batches[0].to_pylist() == [{"a": 1}]
