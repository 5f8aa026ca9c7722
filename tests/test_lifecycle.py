"""Lifecycle, counters, limits and errors of the loader (DESIGN.md section 1, seed 003)."""

from __future__ import annotations

import pyarrow as pa
import pytest

import batchloader as bl

SCHEMA = pa.schema([("a", pa.int64()), ("b", pa.utf8())])


def fresh(**kw) -> bl.ResultSetLoader:
    loader = bl.ResultSetLoader(SCHEMA, **kw)
    assert loader.start_batch()
    return loader


def write(loader, a, b=None):
    w = loader.writer
    assert w.start()
    w["a"].set(a)
    if b is not None:
        w["b"].set(b)
    w.save()


def test_errors_share_a_base_class():
    for cls in (bl.LoaderStateError, bl.SchemaConflictError, bl.RowTooLargeError):
        assert issubclass(cls, bl.BatchLoaderError)


@pytest.mark.parametrize("bad", [0, -1])
def test_row_limit_must_be_positive(bad):
    with pytest.raises(ValueError, match="row_limit"):
        bl.ResultSetLoader(SCHEMA, row_limit=bad)


def test_save_without_start():
    loader = fresh()
    with pytest.raises(bl.LoaderStateError, match="save"):
        loader.writer.save()


def test_write_before_start_batch():
    loader = bl.ResultSetLoader(SCHEMA)
    with pytest.raises(bl.LoaderStateError, match="start_batch"):
        loader.writer.start()


def test_start_batch_twice():
    loader = fresh()
    with pytest.raises(bl.LoaderStateError, match="twice"):
        loader.start_batch()


def test_harvest_twice():
    loader = fresh()
    write(loader, 1)
    assert loader.harvest().num_rows == 1
    with pytest.raises(bl.LoaderStateError, match="harvest"):
        loader.harvest()


def test_everything_after_close_raises():
    loader = fresh()
    write(loader, 1)
    w = loader.writer
    loader.close()
    assert loader.closed
    for call in (
        loader.start_batch,
        loader.harvest,
        w.start,
        lambda: loader.writer,
        lambda: loader.write_row({"a": 1}),
        lambda: w.add_column(pa.field("z", pa.int8())),
    ):
        with pytest.raises(bl.LoaderStateError, match="closed"):
            call()


def test_context_manager_closes():
    with bl.ResultSetLoader(SCHEMA) as loader:
        loader.start_batch()
    assert loader.closed


def test_row_limit_and_counters():
    loader = fresh(row_limit=2)
    w = loader.writer
    assert loader.batch_count == 0
    write(loader, 1)
    assert (loader.row_count, loader.total_row_count, loader.batch_count) == (1, 1, 1)
    write(loader, 2)
    assert loader.is_full()
    assert not w.start()
    assert loader.harvest().column("a").to_pylist() == [1, 2]
    assert (loader.row_count, loader.total_row_count, loader.batch_count) == (0, 2, 1)
    loader.start_batch()
    write(loader, 3)
    assert (loader.row_count, loader.total_row_count, loader.batch_count) == (1, 3, 2)


def test_counters_with_a_pending_overflow_row():
    loader = fresh(vector_byte_limit=24)  # 3 int64 values
    for i in range(3):
        write(loader, i)
    w = loader.writer
    w.start()
    w["a"].set(3)  # overflow
    w.save()
    assert loader.row_count == 3  # excludes the overflow row
    assert loader.total_row_count == 4  # includes it
    assert loader.batch_count == 1
    loader.harvest()
    assert loader.batch_count == 1
    loader.start_batch()
    assert loader.row_count == 1
    assert loader.batch_count == 2


def test_limit_pushdown():
    loader = bl.ResultSetLoader(SCHEMA, row_limit=2, limit=5)
    batches = list(loader.write_rows({"a": i} for i in range(100)))
    assert [b.num_rows for b in batches] == [2, 2, 1]
    assert not loader.start_batch()
    assert loader.total_row_count == 5


def test_limit_stops_consuming_the_input():
    consumed = []

    def source():
        for i in range(100):
            consumed.append(i)
            yield {"a": i}

    loader = bl.ResultSetLoader(SCHEMA, row_limit=3, limit=4)
    assert sum(b.num_rows for b in loader.write_rows(source())) == 4
    assert len(consumed) <= 5


def test_unsaved_row_is_discarded_at_every_level():
    schema = pa.schema(
        [("a", pa.int64()), ("ev", pa.list_(pa.struct([("k", pa.utf8()), ("v", pa.int64())])))]
    )
    loader = bl.ResultSetLoader(schema)
    loader.start_batch()
    w = loader.writer
    w.start()
    w["a"].set(1)
    w["ev"].element["k"].set("lost")
    w["ev"].save()
    w["ev"].element["k"].set("lost too")
    bytes_of_empty_batch = 0
    # start again without save: everything above goes
    w.start()
    w["a"].set(2)
    ev = w["ev"]
    ev.element["k"].set("kept")
    ev.save()
    ev.element["k"].set("unsaved element")  # never saved: discarded at row save
    w.save()
    assert loader.harvest().to_pylist() == [{"a": 2, "ev": [{"k": "kept", "v": None}]}]
    loader.start_batch()
    w.start()
    w["a"].set(3)
    assert loader.harvest().num_rows == 0  # harvest discards the unsaved row
    assert loader.batch_bytes == bytes_of_empty_batch


def test_write_row_discards_a_row_that_fails_half_way():
    loader = fresh()
    with pytest.raises(bl.SchemaConflictError, match=r"column 'b'.*'x'|'b'"):
        loader.write_row({"a": 1, "b": 5})
    loader.write_row({"a": 2, "b": "fine"})
    assert loader.harvest().to_pylist() == [{"a": 2, "b": "fine"}]


def test_wrong_type_names_column_and_value_and_loader_stays_usable():
    loader = fresh()
    w = loader.writer
    w.start()
    with pytest.raises(bl.SchemaConflictError, match=r"'a'.*'nope'"):
        w["a"].set("nope")
    w["a"].set(7)
    w.save()
    assert loader.harvest().to_pylist() == [{"a": 7, "b": None}]


def test_write_rows_error_names_the_row_and_keeps_yielded_batches():
    loader = bl.ResultSetLoader(SCHEMA, row_limit=2)
    it = loader.write_rows([{"a": 0}, {"a": 1}, {"a": 2}, {"a": "three"}, {"a": 4}])
    first = next(it)
    with pytest.raises(bl.SchemaConflictError, match=r"row 3: .*'a'.*'three'"):
        next(it)
    assert first.column("a").to_pylist() == [0, 1]
    rest = list(loader.write_rows([{"a": 5}]))
    assert [b.column("a").to_pylist() for b in rest] == [[2, 5]]


def test_rows_as_tuples_and_bad_rows():
    loader = fresh()
    loader.write_row((1, "x"))
    loader.write_row([2, None])
    with pytest.raises(bl.SchemaConflictError, match="2 columns"):
        loader.write_row((3,))
    with pytest.raises(bl.SchemaConflictError, match="dict, tuple or list"):
        loader.write_row(42)
    with pytest.raises(bl.SchemaConflictError, match="no column 'zzz'"):
        loader.write_row({"a": 1, "zzz": 2})
    assert loader.harvest().to_pylist() == [{"a": 1, "b": "x"}, {"a": 2, "b": None}]


def test_write_row_when_full_raises():
    loader = fresh(row_limit=1)
    loader.write_row({"a": 1})
    with pytest.raises(bl.LoaderStateError, match="full"):
        loader.write_row({"a": 2})


def test_names_are_case_insensitive_and_duplicates_conflict():
    loader = fresh()
    w = loader.writer
    w.start()
    w["A"].set(1)
    w["B"].set("x")
    w.save()
    with pytest.raises(bl.SchemaConflictError, match="already exists"):
        w.add_column(pa.field("A", pa.int32()))
    assert loader.harvest().to_pylist() == [{"a": 1, "b": "x"}]
    with pytest.raises(KeyError, match="zzz"):
        w["zzz"]


def test_columns_by_index_in_order_of_addition():
    loader = fresh()
    w = loader.writer
    assert w.add_column(pa.field("c", pa.float64())) == 2
    assert w[2].name == "c"
    assert w[-1].name == "c"
    assert len(w) == 3
    with pytest.raises(IndexError):
        w[3]


def test_schema_version_counts_projected_columns_and_members():
    loader = bl.ResultSetLoader()
    w = loader.writer
    assert loader.schema_version == 0
    w.add_column(pa.field("a", pa.int64()))
    assert loader.schema_version == 1
    w.add_column(pa.field("m", pa.struct([("x", pa.int64()), ("y", pa.utf8())])))
    assert loader.schema_version == 4  # struct + 2 members
    w.add_column(pa.field("ev", pa.list_(pa.struct([("k", pa.utf8()), ("v", pa.int8())]))))
    assert loader.schema_version == 7  # list + its 2 struct members
    w.add_column(pa.field("mp", pa.map_(pa.utf8(), pa.int64())))
    assert loader.schema_version == 8
    w["m"].add_column(pa.field("z", pa.bool_()))
    assert loader.schema_version == 9


def test_unsupported_type_is_refused():
    with pytest.raises(bl.SchemaConflictError, match="does not write"):
        bl.ResultSetLoader(pa.schema([("d", pa.duration("s"))]))
