"""Overflow: the row being written moves whole to the next batch (seed 002)."""

from __future__ import annotations

import itertools

import pyarrow as pa
import pytest

import batchloader as bl

from arrow_bytes import batch_buffer_sizes

S = pa.utf8()


def test_seed_002_use_cases_a_to_h():
    """Columns a..h of seed 002's table around an overflow on row n (= 2).

    a: written in every row, before the overflowing value; b: its value on row n overflows;
    c: written after the overflow on row n; d: written on n-2, n-1, not n; e: written on n-2
    and on n (after the overflow), not n-1; f: written on n-2 only; g: added after the
    overflow and written; h: added after the overflow, not written.
    """
    schema = pa.schema([(name, S) for name in "abcdef"])
    loader = bl.ResultSetLoader(schema, vector_byte_limit=100)
    assert loader.schema_version == 6
    loader.start_batch()
    w = loader.writer
    big = "B" * 40

    assert w.start()
    for name in "abcdef":
        w[name].set(f"{name}0")
    w["b"].set(big)
    w.save()

    assert w.start()
    for name in "abcd":
        w[name].set(f"{name}1")
    w["b"].set(big)
    w.save()

    assert w.start()
    w["a"].set("a2")
    assert not loader.is_full()
    w["b"].set(big)  # 120 bytes of b data > 100: row 2 moves to the look-ahead batch
    assert loader.is_full()
    assert loader.row_count == 2
    w["c"].set("c2")
    w["e"].set("e2")
    w.add_column(pa.field("g", S))
    w["g"].set("g2")
    w.add_column(pa.field("h", S))
    w.save()
    assert loader.schema_version == 8
    assert loader.row_count == 2
    assert loader.total_row_count == 3
    assert not w.start()  # full

    first = loader.harvest()
    assert first.schema.names == list("abcdef")  # g, h belong to the next batch
    assert first.to_pylist() == [
        {"a": "a0", "b": big, "c": "c0", "d": "d0", "e": "e0", "f": "f0"},
        {"a": "a1", "b": big, "c": "c1", "d": "d1", "e": None, "f": None},
    ]
    assert loader.start_batch()
    assert loader.row_count == 1
    assert w.start()
    w["a"].set("a3")
    w.save()
    second = loader.harvest()
    assert second.schema.names == list("abcdefgh")
    assert second.to_pylist() == [
        {"a": "a2", "b": big, "c": "c2", "d": None, "e": "e2", "f": None, "g": "g2", "h": None},
        {"a": "a3", "b": None, "c": None, "d": None, "e": None, "f": None, "g": None, "h": None},
    ]


def test_overflow_in_the_middle_of_a_list():
    schema = pa.schema([("id", pa.int64()), ("xs", pa.list_(pa.int64()))])
    loader = bl.ResultSetLoader(schema, vector_byte_limit=100)  # 12 int64 elements
    loader.start_batch()
    w = loader.writer
    for row in range(2):
        w.start()
        w["id"].set(row)
        w["xs"].extend(range(row * 5, row * 5 + 5))
        w.save()
    w.start()
    w["id"].set(2)
    xs = w["xs"]
    xs.append(100)
    xs.append(101)
    assert not loader.is_full()
    xs.append(102)  # element 13: 104 bytes
    assert loader.is_full()
    xs.append(103)
    w.save()
    first = loader.harvest()
    assert first.to_pylist() == [
        {"id": 0, "xs": [0, 1, 2, 3, 4]},
        {"id": 1, "xs": [5, 6, 7, 8, 9]},
    ]
    loader.start_batch()
    second = loader.harvest()
    assert second.to_pylist() == [{"id": 2, "xs": [100, 101, 102, 103]}]
    assert second.column("xs").offsets.to_pylist() == [0, 4]  # rebased


def test_overflow_in_a_list_of_structs_through_element_writers():
    ev_type = pa.list_(pa.struct([("kind", S), ("value", pa.int64())]))
    schema = pa.schema([("id", pa.int32()), ("events", ev_type)])
    loader = bl.ResultSetLoader(schema, vector_byte_limit=60)  # kind data <= 60 bytes
    loader.start_batch()
    w = loader.writer
    rows = []
    for row in range(6):
        if not w.start():
            break
        w["id"].set(row)
        ev = w["events"]
        events = []
        for j in range(3):
            ev.element["kind"].set(f"k{row}{j}-----")
            ev.element["value"].set(row * 10 + j)
            ev.save()
            events.append({"kind": f"k{row}{j}-----", "value": row * 10 + j})
        w.save()
        rows.append({"id": row, "events": events})
    first = loader.harvest()
    loader.start_batch()
    second = loader.harvest()
    got = first.to_pylist() + second.to_pylist()
    assert got == rows
    assert first.num_rows == 2  # 3 x 8 bytes of kind per row: the third row overflows
    assert second.num_rows == 1
    assert second.column("events").offsets.to_pylist() == [0, 3]


def test_overflow_in_a_list_of_lists_rebases_every_level():
    schema = pa.schema([("grid", pa.list_(pa.list_(pa.int16())))])
    loader = bl.ResultSetLoader(schema, vector_byte_limit=30)  # 15 int16 leaves
    loader.start_batch()
    rows = [
        {"grid": [[1, 2, 3], [4, 5]]},
        {"grid": [[6], [7, 8, 9, 10]]},
        {"grid": [[11, 12], [13, 14, 15], [16]]},  # leaf 16 overflows, mid inner list
        {"grid": [[], [17]]},
    ]
    batches = list(loader.write_rows(rows))
    assert [b.num_rows for b in batches] == [2, 2]
    assert pa.Table.from_batches(batches).to_pylist() == rows
    grid = batches[1].column("grid")
    assert grid.offsets.to_pylist() == [0, 3, 5]
    assert grid.values.offsets.to_pylist() == [0, 2, 5, 6, 6, 7]


def test_overflow_in_a_map():
    schema = pa.schema([("attrs", pa.map_(S, pa.int64()))])
    loader = bl.ResultSetLoader(schema, vector_byte_limit=50)  # key data <= 50 bytes
    loader.start_batch()
    rows = [{"attrs": {f"key{i}{j}-----": j for j in range(3)}} for i in range(3)]
    batches = list(loader.write_rows(rows))
    got = [dict(r["attrs"]) for b in batches for r in b.to_pylist()]
    assert got == [r["attrs"] for r in rows]
    assert [b.num_rows for b in batches] == [1, 1, 1]


def test_overflow_in_the_middle_of_an_appended_value():
    schema = pa.schema([("id", pa.int64()), ("blob", pa.binary())])
    loader = bl.ResultSetLoader(schema, vector_byte_limit=64)
    loader.start_batch()
    w = loader.writer
    w.start()
    w["id"].set(0)
    w["blob"].append_bytes(b"x" * 40)
    w.save()
    w.start()
    w["id"].set(1)
    w["blob"].append_bytes(b"abc")
    w["blob"].append_bytes(b"d" * 20)  # 63 bytes so far: fits
    assert not loader.is_full()
    w["blob"].append_bytes(b"efg")  # 66 bytes: the row moves, mid-value
    assert loader.is_full()
    w["blob"].append_bytes(b"hij")
    w.save()
    assert loader.harvest().to_pylist() == [{"id": 0, "blob": b"x" * 40}]
    loader.start_batch()
    assert loader.harvest().to_pylist() == [{"id": 1, "blob": b"abc" + b"d" * 20 + b"efghij"}]


def test_batch_byte_limit_bounds_all_buffers_together():
    schema = pa.schema([("a", pa.int64()), ("s", S)])
    loader = bl.ResultSetLoader(schema, batch_byte_limit=500)
    rows = [{"a": i, "s": "v" * (i % 17)} for i in range(200)]
    batches = list(loader.write_rows(rows))
    assert pa.Table.from_batches(batches).to_pylist() == rows
    assert len(batches) > 5
    for b in batches:
        assert sum(batch_buffer_sizes(b)) <= 500
    # Batches are filled: one more row would not have fitted.
    for b, nxt in itertools.pairwise(batches):
        grown = pa.Table.from_batches([b, nxt.slice(0, 1)]).combine_chunks().to_batches()[0]
        assert sum(batch_buffer_sizes(grown)) > 500


def test_fixed_width_column_fills_to_the_vector_limit_exactly():
    loader = bl.ResultSetLoader(
        pa.schema([pa.field("a", pa.int64(), nullable=False)]), vector_byte_limit=80
    )
    batches = list(loader.write_rows({"a": i} for i in range(25)))
    assert [b.num_rows for b in batches] == [10, 10, 5]


def test_row_too_large_for_an_empty_batch_is_rejected_and_the_loader_stays_usable():
    schema = pa.schema([("id", pa.int64()), ("s", S)])
    loader = bl.ResultSetLoader(schema, vector_byte_limit=32)
    loader.start_batch()
    w = loader.writer
    w.start()
    w["id"].set(1)
    with pytest.raises(bl.RowTooLargeError, match=r"'s' is larger than the maximum"):
        w["s"].set("x" * 33)
    with pytest.raises(bl.LoaderStateError):
        w["id"].set(2)  # the row was discarded: no row is open
    w.start()
    w["id"].set(2)
    w["s"].set("ok")
    w.save()
    assert loader.harvest().to_pylist() == [{"id": 2, "s": "ok"}]


def test_overflow_row_that_is_too_large_alone_is_rejected_and_the_batch_kept():
    schema = pa.schema([("s", S)])
    loader = bl.ResultSetLoader(schema, vector_byte_limit=32)
    loader.start_batch()
    w = loader.writer
    w.start()
    w["s"].set("a" * 20)
    w.save()
    w.start()
    with pytest.raises(bl.RowTooLargeError):
        w["s"].set("b" * 40)
    assert loader.row_count == 1
    assert loader.harvest().to_pylist() == [{"s": "a" * 20}]


def test_look_ahead_batch_holds_only_the_moved_row():
    schema = pa.schema([("s", S)])
    loader = bl.ResultSetLoader(schema, vector_byte_limit=1000)
    loader.start_batch()
    w = loader.writer
    for i in range(10):
        w.start()
        w["s"].set(f"{i:0>99}")
        w.save()
    w.start()
    w["s"].set("x" * 99)  # 1089 bytes of data: overflow
    w.save()
    assert loader.batch_bytes == 4 * 11 + 2 + 990  # offsets, validity, data of 10 rows
    batch = loader.harvest()
    assert batch.num_rows == 10
    assert batch.column("s").to_pylist() == [f"{i:0>99}" for i in range(10)]
    loader.start_batch()
    assert loader.batch_bytes == 4 * 2 + 1 + 99


def _union(batches):
    """The batches as one table, columns a batch lacks filled with nulls."""
    tables = [pa.Table.from_batches([b]) for b in batches]
    return pa.concat_tables(tables, promote_options="default")


@pytest.mark.parametrize("limit", ["batch_byte_limit", "vector_byte_limit"])
def test_a_late_column_whose_back_fill_breaks_a_limit_starts_the_next_batch(limit):
    """Rows already committed cannot move: if back-filling a column added late would take
    the batch past a limit, they are set aside without it and it starts with the next batch
    (the row that added it moving there too)."""
    rows = [{"b": i % 2 == 0} for i in range(30)] + [{"b": True, "n": i} for i in range(5)]
    loader = bl.ResultSetLoader(**{limit: 100})
    batches = list(loader.write_rows(rows))
    for b in batches:
        sizes = batch_buffer_sizes(b)
        assert (sum(sizes) if limit == "batch_byte_limit" else max(sizes)) <= 100
    assert "n" not in batches[0].schema.names
    assert batches[-1].schema.names == ["b", "n"]
    want = pa.Table.from_pylist(rows, schema=pa.schema([("b", pa.bool_()), ("n", pa.int64())]))
    assert _union(batches).equals(want)


def test_a_late_member_of_a_struct_starts_the_next_batch_with_its_row():
    rows = [{"m": {"x": i}} for i in range(40)] + [{"m": {"x": 99, "y": "new"}}]
    loader = bl.ResultSetLoader(batch_byte_limit=400)
    batches = list(loader.write_rows(rows))
    assert [b.num_rows for b in batches] == [40, 1]
    assert all(sum(batch_buffer_sizes(b)) <= 400 for b in batches)
    assert batches[-1].column("m").to_pylist()[-1] == {"x": 99, "y": "new"}
    m = pa.struct([("x", pa.int64()), ("y", pa.utf8())])
    assert _union(batches).equals(pa.Table.from_pylist(rows, schema=pa.schema([("m", m)])))


def test_a_late_member_of_a_list_of_structs_moves_its_row_with_the_elements_written():
    rows = [{"ev": [{"k": i}, {"k": -i}]} for i in range(20)]
    rows.append({"ev": [{"k": 7}, {"k": 8, "extra": "x"}, {"k": 9}]})
    loader = bl.ResultSetLoader(batch_byte_limit=500)
    batches = list(loader.write_rows(rows))
    assert [b.num_rows for b in batches] == [20, 1]
    assert all(sum(batch_buffer_sizes(b)) <= 500 for b in batches)
    assert batches[1].column("ev").to_pylist() == [
        [{"k": 7, "extra": None}, {"k": 8, "extra": "x"}, {"k": 9, "extra": None}]
    ]
    ev = pa.list_(pa.struct([("k", pa.int64()), ("extra", pa.utf8())]))
    assert _union(batches).equals(pa.Table.from_pylist(rows, schema=pa.schema([("ev", ev)])))
