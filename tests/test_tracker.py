"""ScanSchemaTracker on its own (seed 001): resolution, versions, reader schemas."""

from __future__ import annotations

import pyarrow as pa
import pytest

import batchloader as bl
from batchloader import ScanSchemaTracker, parse_projection
from batchloader.schema import conform


def test_explicit_projection_resolves_with_the_first_reader_schema():
    t = ScanSchemaTracker(parse_projection(["a", "b", "filename"]))
    assert t.projection_type == "some"
    assert not t.is_resolved
    assert t.reader_input_schema() == pa.schema([])
    assert t.reader_projection() == ["a", "b"]
    t.apply_reader_schema(pa.schema([("a", pa.int64())]), "f1")
    missing = t.missing_columns(pa.schema([("a", pa.int64())]))
    assert missing == [pa.field("b", pa.utf8())]
    t.mark_resolved()
    assert t.is_resolved
    assert t.output_schema() == pa.schema(
        [("a", pa.int64()), ("b", pa.utf8()), ("filename", pa.utf8())]
    )
    # b's type is a guess the first batch fixed: readers get it, to keep values as text
    assert t.reader_input_schema() == pa.schema([("a", pa.int64()), ("b", pa.utf8())])
    assert t.reader_text_guesses() == ["b"]


def test_schema_version_rises_only_when_the_schema_changes():
    t = ScanSchemaTracker(parse_projection(None), allow_schema_change=True)
    v0 = t.schema_version
    t.apply_reader_schema(pa.schema([("a", pa.int64())]))
    v1 = t.schema_version
    assert v1 > v0
    t.mark_resolved()
    t.apply_reader_schema(pa.schema([("a", pa.int64())]))
    assert t.schema_version == v1
    t.apply_reader_schema(pa.schema([("a", pa.int64()), ("b", pa.utf8())]))
    assert t.schema_version > v1
    assert t.output_schema().names[:2] == ["a", "b"]


def test_fixed_wildcard_schema_projects_the_known_columns():
    t = ScanSchemaTracker(parse_projection(["*"]))
    assert t.reader_projection() is None
    t.apply_reader_schema(pa.schema([("a", pa.int64())]))
    t.mark_resolved()
    assert t.reader_projection() == ["a"]
    t.apply_reader_schema(pa.schema([("a", pa.int64()), ("z", pa.int8())]))
    assert "z" not in t.output_schema().names


def test_defined_schema_is_the_output_and_is_strict():
    defined = pa.schema([("x", pa.int32()), ("y", pa.utf8())])
    t = ScanSchemaTracker(parse_projection(["x", "y"]), defined_schema=defined)
    assert t.is_resolved
    assert t.output_schema() == defined
    assert t.reader_input_schema() == defined


def test_empty_projection_has_no_reader_columns():
    t = ScanSchemaTracker(parse_projection([]))
    assert t.projection_type == "none"
    assert t.reader_projection() == []
    assert t.output_schema() == pa.schema([])


def test_provided_schema_lenient_lets_the_reader_add_columns():
    provided = pa.schema([("a", pa.int16())])
    t = ScanSchemaTracker(parse_projection(None), provided_schema=provided)
    assert t.reader_input_schema() == provided
    t.apply_reader_schema(pa.schema([("a", pa.int16()), ("b", pa.utf8())]))
    assert t.output_schema().names[:2] == ["a", "b"]


def test_provided_type_kind_must_match_the_projection():
    with pytest.raises(bl.SchemaConflictError, match="projected as an array"):
        ScanSchemaTracker(
            parse_projection(["c[1]"]), provided_schema=pa.schema([("c", pa.int64())])
        )


def test_implicit_values():
    values = bl.ImplicitColumns.values("/data/2024/01/a.json", "/data")
    assert values[("fqn", 0)] == "/data/2024/01/a.json"
    assert values[("filepath", 0)] == "/data/2024/01"
    assert values[("filename", 0)] == "a.json"
    assert values[("suffix", 0)] == "json"
    assert values[("partition", 0)] == "2024"
    assert values[("partition", 1)] == "01"
    assert ("partition", 2) not in values
    assert bl.ImplicitColumns().kind_of("DIR3") == ("partition", 3)
    assert bl.ImplicitColumns().kind_of("direction") is None


NESTED_VALUES = [
    {"s": {"l": [1, None], "t": "a"}, "ls": [{"x": 1}, None], "ll": [[1], None, []]},
    None,
    {"s": None, "ls": None, "ll": None},
    {"s": {"l": None, "t": None}, "ls": [], "ll": [[2, 3]]},
    {"s": {"l": [], "t": "b"}, "ls": [{"x": None}, {"x": 4}], "ll": [None]},
]
NESTED_TYPE = pa.struct(
    [
        ("s", pa.struct([("l", pa.list_(pa.int64())), ("t", pa.utf8())])),
        ("ls", pa.list_(pa.struct([("x", pa.int64())]))),
        ("ll", pa.list_(pa.list_(pa.int64()))),
    ]
)
# members reordered, some added, at every level
WIDER_TYPE = pa.struct(
    [
        ("ll", pa.list_(pa.list_(pa.int64()))),
        ("new", pa.utf8()),
        ("ls", pa.list_(pa.struct([("y", pa.float64()), ("x", pa.int64())]))),
        ("s", pa.struct([("t", pa.utf8()), ("u", pa.int32()), ("l", pa.list_(pa.int64()))])),
    ]
)


@pytest.mark.parametrize(
    "start,stop", [(a, b) for a in range(len(NESTED_VALUES) + 1) for b in range(a, 6)]
)
def test_conforming_a_slice_equals_slicing_the_conformed_array(start, stop):
    """Arrays may come sliced (a batch cut by a consumer): conform shapes what the slice
    holds, nulls included."""
    whole = pa.array(NESTED_VALUES, NESTED_TYPE)
    part = conform(whole.slice(start, stop - start), WIDER_TYPE)
    part.validate(full=True)
    assert part.type == WIDER_TYPE
    assert part.to_pylist() == conform(whole, WIDER_TYPE).to_pylist()[start:stop]
    # and the oracle itself: every value kept, the added members null
    for got, value in zip(part.to_pylist(), NESTED_VALUES[start:stop], strict=True):
        assert (got is None) == (value is None)
        if value is not None:
            assert got["new"] is None and got["ll"] == value["ll"]


def test_a_type_change_inside_a_column_names_the_part_that_changed():
    """A reader giving a member another type than an earlier one gave: the error names the
    column and the member's path, not only the column."""
    t = ScanSchemaTracker(parse_projection(None), allow_schema_change=True)
    m = pa.struct([("x", pa.int64()), ("y", pa.utf8())])
    batch = pa.record_batch([pa.array([{"x": 1, "y": "a"}], m)], names=["m"])
    t.apply_reader_schema(batch.schema, "f1", batch)
    t.note_values(batch)
    t.mark_resolved()
    changed = pa.schema([("m", pa.struct([("x", pa.utf8()), ("y", pa.utf8())]))])
    with pytest.raises(
        bl.SchemaConflictError,
        match=r"column 'm' changed type at 'm\.x' from int64 to string in file f2",
    ):
        t.apply_reader_schema(changed, "f2")
