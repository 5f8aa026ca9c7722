"""The loader's oracle: random nested schemas, rows and small limits.

Whatever the limits, the concatenation of the harvested batches must equal
`pa.Table.from_pylist(rows, schema)` (omitted values back-filled), every batch must respect
every limit (bytes recounted from the batch), no row may be lost or duplicated, and a row may
only be rejected if it cannot fit an empty batch.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import batchloader as bl

from arrow_bytes import batch_buffer_sizes, exported_buffer_sizes
from strategies import expected, rows, schemas


@st.composite
def cases(draw: st.DrawFn) -> tuple[pa.Schema, list[dict[str, Any]], dict[str, Any]]:
    schema = draw(schemas())
    data = draw(rows(schema))
    limits = {
        "row_limit": draw(st.integers(1, 10)),
        "vector_byte_limit": draw(st.sampled_from([16, 40, 100, 400, 16 * 2**20])),
        "batch_byte_limit": draw(st.sampled_from([None, 200, 700, 3000])),
    }
    return schema, data, limits


def check_batch(batch: pa.RecordBatch, limits: dict[str, Any]) -> None:
    assert batch.num_rows <= limits["row_limit"]
    computed = batch_buffer_sizes(batch)
    exported = exported_buffer_sizes(batch)
    for sizes in (computed, exported):
        assert max(sizes, default=0) <= limits["vector_byte_limit"], sizes
        if limits["batch_byte_limit"] is not None:
            assert sum(sizes) <= limits["batch_byte_limit"], sizes


def check_rejected(row: dict[str, Any], schema: pa.Schema, limits: dict[str, Any]) -> None:
    """A rejected row must really be too large for an empty batch."""
    alone = pa.RecordBatch.from_pylist([expected(row, schema)], schema=schema)
    sizes = batch_buffer_sizes(alone)
    too_big = max(sizes) > limits["vector_byte_limit"] or (
        limits["batch_byte_limit"] is not None and sum(sizes) > limits["batch_byte_limit"]
    )
    assert too_big, f"row rejected although it fits an empty batch: {row} {sizes}"


def load_with_row_api(schema, data, limits):
    loader = bl.ResultSetLoader(schema, **limits)
    assert loader.start_batch()
    w = loader.writer
    batches, rejected = [], []

    def harvest():
        before = loader.batch_bytes
        batch = loader.harvest()
        assert before == sum(batch_buffer_sizes(batch)), "batch_bytes is not exact"
        batches.append(batch)

    for i, row in enumerate(data):
        while not w.start():
            harvest()
            assert loader.start_batch()
        try:
            for name, value in row.items():
                w[name].set(value)
            w.save()
        except bl.RowTooLargeError as e:
            assert "is larger than the maximum" in str(e)
            rejected.append(i)
    harvest()
    # A row that overflowed the last batch is row 0 of one more.
    if loader.start_batch() and loader.row_count > 0:
        harvest()
    return batches, rejected, loader


def load_with_write_rows(schema, data, limits):
    loader = bl.ResultSetLoader(schema, **limits)
    batches, rejected = [], []
    position = [-1]
    remaining = iter(enumerate(data))

    def source():
        for i, row in remaining:
            position[0] = i
            yield row

    while True:
        try:
            batches.extend(loader.write_rows(source()))
            break
        except bl.RowTooLargeError:
            rejected.append(position[0])
    return batches, rejected, loader


@pytest.mark.parametrize("load", [load_with_row_api, load_with_write_rows])
@given(case=cases())
def test_batches_concatenate_to_the_rows(load, case):
    schema, data, limits = case
    batches, rejected, loader = load(schema, data, limits)
    for batch in batches:
        assert batch.schema.equals(schema, check_metadata=True)
        check_batch(batch, limits)
    for i in rejected:
        check_rejected(data[i], schema, limits)
    kept = [expected(row, schema) for i, row in enumerate(data) if i not in set(rejected)]
    got = pa.Table.from_batches(batches, schema=schema)
    want = pa.Table.from_pylist(kept, schema=schema)
    assert got.num_rows == len(kept), "rows lost or duplicated"
    assert got.equals(want), f"\n{got.to_pylist()}\n!=\n{want.to_pylist()}"
    assert loader.total_row_count == len(kept)


@settings(max_examples=500)
@given(data=st.data())
def test_a_column_written_twice_keeps_its_last_value(data):
    """Each row first writes a draft value to some columns, then its own values: the last
    write wins, a struct or list written again loses what the draft put in it, and a column
    the row leaves out keeps the draft. (The commit skips the back-fill of columns that had
    every node written once; rewrites must not fool that count.)"""
    schema = data.draw(schemas(max_columns=3, depth=2))
    finals = data.draw(rows(schema))
    drafts = [(data.draw(rows(schema, max_rows=1)) or [{}])[0] for _ in finals]
    loader = bl.ResultSetLoader(schema, row_limit=data.draw(st.integers(1, 10)))
    w = loader.writer
    batches = []
    assert loader.start_batch()
    for draft, final in zip(drafts, finals, strict=True):
        while not w.start():
            batches.append(loader.harvest())
            assert loader.start_batch()
        for name, value in [*draft.items(), *final.items()]:
            w[name].set(value)
        w.save()
    batches.append(loader.harvest())
    pairs = zip(drafts, finals, strict=True)
    merged = [expected({**draft, **final}, schema) for draft, final in pairs]
    got = pa.Table.from_batches(batches, schema=schema)
    want = pa.Table.from_pylist(merged, schema=schema)
    assert got.equals(want), f"\n{got.to_pylist()}\n!=\n{want.to_pylist()}"


def test_a_struct_written_again_is_back_filled_anew():
    """Two first writes of `a` (one per value of `s`) make as many writes as `s` has nodes
    without `b`: the commit must still fill `b`, in its own row."""
    schema = pa.schema([("s", pa.struct([("a", pa.int64()), ("b", pa.int64())]))])
    loader = bl.ResultSetLoader(schema)
    assert loader.start_batch()
    w = loader.writer
    w.start()
    w["s"].set({"a": 1})
    w["s"].set({"a": 2})
    w.save()
    w.start()
    w["s"].set({"a": 5, "b": 6})
    w.save()
    assert loader.harvest().to_pylist() == [{"s": {"a": 2, "b": None}}, {"s": {"a": 5, "b": 6}}]


MIXED_SCHEMA = pa.schema(
    [
        ("x", pa.int64()),
        ("s", pa.struct([("a", pa.int64()), ("b", pa.utf8())])),
        ("l", pa.list_(pa.int64())),
    ]
)
_ints = st.integers(-5, 5)
_ops = st.one_of(
    st.tuples(st.just("set"), st.just("x"), st.none() | _ints),
    st.tuples(
        st.just("set"),
        st.just("s"),
        st.none()
        | st.fixed_dictionaries(
            {}, optional={"a": st.none() | _ints, "b": st.none() | st.text(max_size=3)}
        ),
    ),
    st.tuples(st.just("set"), st.just("l"), st.none() | st.lists(_ints, max_size=3)),
    st.tuples(st.just("member"), st.sampled_from(["a", "b"]), _ints),
    st.tuples(st.just("append"), st.just("l"), _ints),
)


def _apply(row: dict[str, Any], op: tuple[str, str, Any]) -> None:
    """The model of one write: what the row holds after it."""
    kind, name, value = op
    if kind == "set":
        row[name] = dict(value) if isinstance(value, dict) else value
    elif kind == "member":
        # a member written into a null or unwritten struct makes it a struct of that member
        struct = row.get("s") if isinstance(row.get("s"), dict) else {}
        row["s"] = {**struct, name: str(value) if name == "b" else value}
    else:
        # an element appended to a null or unwritten list starts it
        row["l"] = (row.get("l") or []) + [value]


@settings(max_examples=300)
@given(rows_of_ops=st.lists(st.lists(_ops, max_size=6), max_size=12), row_limit=st.integers(1, 5))
def test_mixed_writes_in_any_order_match_a_model(rows_of_ops, row_limit):
    """Whole values, single struct members and appended elements, in any order and any number
    of times per row: each row holds what a model of last-write-wins says, back-filled."""
    loader = bl.ResultSetLoader(MIXED_SCHEMA, row_limit=row_limit)
    w = loader.writer
    batches, model = [], []
    assert loader.start_batch()
    for ops in rows_of_ops:
        while not w.start():
            batches.append(loader.harvest())
            assert loader.start_batch()
        row: dict[str, Any] = {}
        for op in ops:
            kind, name, value = op
            if kind == "set":
                w[name].set(value)
            elif kind == "member":
                w["s"][name].set(str(value) if name == "b" else value)
            else:
                w["l"].append(value)
            _apply(row, op)
        w.save()
        model.append(expected(row, MIXED_SCHEMA))
    batches.append(loader.harvest())
    got = pa.Table.from_batches(batches, schema=MIXED_SCHEMA)
    assert got.to_pylist() == model
