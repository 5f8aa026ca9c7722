"""Sparse rows: each writes a few of many nullable columns (top-level, or members of a struct).

The loader defers the nulls of the columns a row leaves out (`rust/loader/lazy.rs`) instead
of writing one per column per row. Whatever it defers, the batches must be those of writing
every null at once: the rows come back (the oracle: `pa.Table.from_pylist`), every limit
holds, `batch_bytes` is exact, and a batch ends only where the next row would have broken a
limit (counting deferred nulls too high would end batches early; too low, break limits).
"""

from __future__ import annotations

import itertools
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

import batchloader as bl

from arrow_bytes import batch_buffer_sizes
from strategies import expected

#: column types whose nulls the loader defers (nullable top-level scalars): every kind of
#: buffer a null grows (fixed values of each width, 4- and 8-byte offsets, bit-packed bools)
DEFERRED = [
    pa.int8(),
    pa.int32(),
    pa.int64(),
    pa.float64(),
    pa.bool_(),
    pa.utf8(),
    pa.large_utf8(),
    pa.binary(),
]

#: columns written as before (every null at its row's commit), mixed in
OTHERS = [
    pa.field("k", pa.int64(), nullable=False),
    pa.field("m", pa.struct([("x", pa.int64())])),
    pa.field("l", pa.list_(pa.int32())),
]


def _value(t: pa.DataType) -> st.SearchStrategy[Any]:
    if pa.types.is_boolean(t):
        return st.booleans()
    if pa.types.is_floating(t):
        return st.floats(-1e6, 1e6)
    if pa.types.is_integer(t):
        return st.integers(-100, 100)
    if pa.types.is_binary(t):
        return st.binary(max_size=10)
    return st.text(max_size=4)  # at most 16 bytes: a row always fits the vector limit


@st.composite
def cases(draw: st.DrawFn) -> tuple[pa.Schema, list[dict[str, Any]], dict[str, Any]]:
    # (past 64 columns the commit zeroes only the counts a row set)
    types = draw(st.lists(st.sampled_from(DEFERRED), min_size=1, max_size=90))
    fields = [pa.field(f"c{i}", t) for i, t in enumerate(types)]
    others = draw(st.lists(st.sampled_from(OTHERS), max_size=3, unique_by=lambda f: f.name))
    # members of a struct (outside lists) have one entry a row too: theirs are deferred
    members = draw(st.lists(st.sampled_from(DEFERRED), max_size=30))
    props = [pa.field("props", pa.struct([pa.field(f"q{i}", t) for i, t in enumerate(members)]))]
    schema = pa.schema(fields + others + (props if members else []))
    rows = []
    for _ in range(draw(st.integers(0, 80))):
        written = draw(st.lists(st.sampled_from(schema.names), max_size=3, unique=True))
        row: dict[str, Any] = {}
        for name in written:
            t = schema.field(name).type
            if name == "props":
                chosen = draw(st.lists(st.sampled_from(t.names), max_size=3, unique=True))
                row[name] = (
                    draw(st.none())
                    if not chosen and draw(st.booleans())
                    else {m: draw(st.none() | _value(t.field(m).type)) for m in chosen}
                )
            elif pa.types.is_struct(t):
                row[name] = {"x": draw(st.none() | st.integers(0, 9))}
            elif pa.types.is_list(t):
                row[name] = draw(st.lists(st.integers(0, 9), max_size=3))
            elif name == "k":
                row[name] = draw(st.integers(0, 9))
            else:
                row[name] = draw(st.none() | _value(t))
        rows.append(row)
    # every row fits an empty batch: none is refused, so every batch boundary is a limit
    limits = {
        "row_limit": draw(st.sampled_from([1, 3, 17, 65536])),
        "vector_byte_limit": draw(st.sampled_from([16, 24, 64, 300, 16 * 2**20])),
        "batch_byte_limit": draw(st.sampled_from([None, 2000, 5000, 20000])),
    }
    return schema, rows, limits


def _breaks_a_limit(batch: pa.RecordBatch, limits: dict[str, Any]) -> bool:
    sizes = batch_buffer_sizes(batch)
    batch_limit = limits["batch_byte_limit"]
    return (
        batch.num_rows > limits["row_limit"]
        or max(sizes, default=0) > limits["vector_byte_limit"]
        or (batch_limit is not None and sum(sizes) > batch_limit)
    )


def _check(schema, rows, limits, batches):
    for batch in batches:
        assert not _breaks_a_limit(batch, limits), batch_buffer_sizes(batch)
    got = pa.Table.from_batches(batches, schema=schema)
    want = pa.Table.from_pylist([expected(r, schema) for r in rows], schema=schema)
    assert got.equals(want), f"\n{got.to_pylist()}\n!=\n{want.to_pylist()}"
    for batch, following in itertools.pairwise(batches):
        grown = pa.Table.from_batches([batch, following.slice(0, 1)]).combine_chunks()
        assert _breaks_a_limit(grown.to_batches()[0], limits), "a batch ended early"


def _by_rows(schema, rows, limits):
    """The row API: only the columns a row has are written; text goes in two appends."""
    loader = bl.ResultSetLoader(schema, **limits)
    assert loader.start_batch()
    w = loader.writer
    batches = []

    def harvest():
        before = loader.batch_bytes
        batch = loader.harvest()
        assert before == sum(batch_buffer_sizes(batch)), "batch_bytes is not exact"
        batches.append(batch)

    for row in rows:
        while not w.start():
            harvest()
            assert loader.start_batch()
        for name, value in row.items():
            t = schema.field(name).type
            if isinstance(value, (str, bytes)) and len(value) > 1:
                raw = value.encode() if isinstance(value, str) else value
                w[name].append_bytes(raw[:1])
                w[name].append_bytes(raw[1:])
            elif isinstance(value, dict) and value:
                for member, v in value.items():
                    w[name][member].set(v)  # the struct opened by its members' writes
            else:
                if pa.types.is_integer(t) and value is not None and name != "k":
                    w[name].set(0)  # overwritten below: the column is still written once
                w[name].set(value)
        w.save()
    harvest()
    if loader.start_batch() and loader.row_count > 0:
        harvest()
    return batches


@pytest.mark.parametrize("how", ["row API", "write_rows"])
@given(case=cases())
def test_deferred_nulls_give_the_batches_of_written_ones(how, case):
    schema, rows, limits = case
    if how == "row API":
        batches = _by_rows(schema, rows, limits)
    else:
        batches = list(bl.ResultSetLoader(schema, **limits).write_rows(rows))
    _check(schema, rows, limits, batches)


def test_a_row_refused_for_bad_utf8_owes_no_nulls():
    """A row whose appended bytes are not UTF-8 is refused at its commit, after the nulls
    of the columns it left out were deferred: they go with it."""
    schema = pa.schema([(f"c{i}", pa.int64()) for i in range(20)] + [("s", pa.utf8())])
    loader = bl.ResultSetLoader(schema)
    assert loader.start_batch()
    w = loader.writer
    for i in range(10):
        assert w.start()
        w[f"c{i}"].set(i)
        w.save()
    assert w.start()
    w["c3"].set(7)
    w["s"].append_bytes(b"\xff")
    with pytest.raises(bl.SchemaConflictError, match="UTF-8"):
        w.save()
    before = loader.batch_bytes
    batch = loader.harvest()
    assert batch.num_rows == 10
    assert before == sum(batch_buffer_sizes(batch))
    assert batch.to_pylist() == [
        {**{f"c{j}": (j if j == i else None) for j in range(20)}, "s": None} for i in range(10)
    ]


def test_bad_utf8_appended_to_a_member_whose_nulls_are_deferred_is_refused():
    """A struct member whose nulls are deferred is not walked at the commit: the bytes
    `append_bytes` gave it are still checked there, the row refused, the rows before kept."""
    schema = pa.schema([("props", pa.struct([(f"q{i}", pa.utf8()) for i in range(80)]))])
    loader = bl.ResultSetLoader(schema)
    assert loader.start_batch()
    w = loader.writer
    for i in range(3):
        assert w.start()
        w["props"][f"q{i}"].append_bytes(b"ok")
        w.save()
    assert w.start()
    w["props"]["q5"].append_bytes(b"\xff")
    with pytest.raises(bl.SchemaConflictError, match="UTF-8"):
        w.save()
    assert w.start()
    w["props"]["q5"].append_bytes("é".encode())
    w.save()
    props = [{f"q{j}": None for j in range(80)} for _ in range(4)]
    for i in range(3):
        props[i][f"q{i}"] = "ok"
    props[3]["q5"] = "é"
    assert loader.harvest().to_pylist() == [{"props": p} for p in props]
