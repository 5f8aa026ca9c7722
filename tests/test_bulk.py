"""The bulk path: write_rows / write_row with dicts, tuples, projection and schema discovery."""

from __future__ import annotations

import datetime as dt
import itertools
from typing import Any, ClassVar

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

import batchloader as bl
from batchloader.projection import spelled

from strategies import expected, loose_values, rows, schemas

# ------------------------------------------------------------------ oracles


@given(schema=schemas(max_columns=4), data=st.data())
def test_tuples_by_position_equal_pyarrow(schema, data):
    batch_rows = [expected(r, schema) for r in data.draw(rows(schema))]
    row_limit = data.draw(st.integers(1, 7))
    loader = bl.ResultSetLoader(schema, row_limit=row_limit, vector_byte_limit=1 << 16)
    tuples = [tuple(r[f.name] for f in schema) for r in batch_rows]
    batches = list(loader.write_rows(tuples))
    assert all(b.num_rows <= row_limit for b in batches)
    got = pa.Table.from_batches(batches, schema=schema)
    assert got.equals(pa.Table.from_pylist(batch_rows, schema=schema))


@given(schema=schemas(max_columns=5), data=st.data())
def test_projection_keeps_exactly_the_projected_columns(schema, data):
    data_rows = data.draw(rows(schema))
    names = data.draw(st.lists(st.sampled_from(schema.names), unique=True))
    # as paths spell them, case-insensitive
    paths = [spelled(n).upper() if i % 2 else spelled(n) for i, n in enumerate(names)]
    loader = bl.ResultSetLoader(schema, projection=paths, row_limit=5)
    batches = list(loader.write_rows(data_rows))
    projected = pa.schema([f for f in schema if f.name in names])
    assert loader.schema == projected
    assert sum(b.num_rows for b in batches) == len(data_rows)
    if not names:  # pyarrow cannot build rows without columns: the counts are the check
        assert all(b.num_columns == 0 for b in batches)
        return
    want = pa.Table.from_pylist(
        [{n: v for n, v in expected(r, schema).items() if n in names} for r in data_rows],
        schema=projected,
    )
    got = pa.Table.from_batches(batches, schema=projected)
    assert got.num_rows == len(data_rows)
    assert got.equals(want)


# Schema discovery: keys with a known family of values each.
DISCOVERY_VALUES = {
    "a": st.one_of(st.integers(-(2**40), 2**40), st.floats(allow_nan=False, width=32)),
    "b": st.text(max_size=5),
    "c": st.fixed_dictionaries({"x": st.integers(0, 9)}, optional={"y": st.text(max_size=3)}),
    "d": st.lists(st.integers(-5, 5), max_size=3),
}
MISSING = object()


@st.composite
def discovery_rows(draw: st.DrawFn) -> list[dict[str, Any]]:
    out = []
    for _ in range(draw(st.integers(0, 20))):
        row = {}
        for key, values in DISCOVERY_VALUES.items():
            v = draw(st.one_of(values, st.none(), st.just(MISSING)))
            if v is not MISSING:
                row[key] = v
        out.append(row)
    return out


def discovered_schema(data: list[dict[str, Any]]) -> pa.Schema:
    """What discovery must find: first non-null appearance order, widened types."""
    order: list[str] = []
    members: list[str] = []
    floats = lists_with_items = False
    for row in data:
        for key, v in row.items():
            if v is None:
                continue
            if key not in order:
                order.append(key)
            if key == "a" and isinstance(v, float):
                floats = True
            if key == "c":
                members += [m for m, mv in v.items() if mv is not None and m not in members]
            if key == "d" and v:
                lists_with_items = True
    types = {
        "a": pa.float64() if floats else pa.int64(),
        "b": pa.utf8(),
        "c": pa.struct([(m, pa.int64() if m == "x" else pa.utf8()) for m in members]),
        "d": pa.list_(pa.int64() if lists_with_items else pa.utf8()),
    }
    return pa.schema([(k, types[k]) for k in order])


@given(data=discovery_rows())
def test_discovered_schema_and_values(data):
    loader = bl.ResultSetLoader(row_limit=10_000)  # one batch: widening applies to all of it
    batches = list(loader.write_rows(data))
    schema = discovered_schema(data)
    if not data:
        assert batches == []
        return
    (batch,) = batches
    assert batch.schema == schema
    assert batch.num_rows == len(data)
    if not schema:
        return
    want = pa.Table.from_pylist(
        [{k: r.get(k) for k in schema.names} for r in data], schema=schema
    ).to_pylist()
    assert batch.to_pylist() == want


def test_discovery_across_batches_changes_the_schema_forward_only():
    loader = bl.ResultSetLoader(row_limit=2)
    batches = list(loader.write_rows([{"a": 1}, {"a": 2}, {"a": 2.5, "b": "x"}, {"a": 3}]))
    assert [b.schema for b in batches] == [
        pa.schema([("a", pa.int64())]),
        pa.schema([("a", pa.float64()), ("b", pa.utf8())]),
    ]
    assert batches[1].to_pylist() == [{"a": 2.5, "b": "x"}, {"a": 3.0, "b": None}]
    assert loader.schema_version == 3  # a, b, and a's widening


def test_discovery_conflict_names_column_row_and_both_types():
    loader = bl.ResultSetLoader()
    it = loader.write_rows([{"a": 1}, {"a": 2}, {"a": "three"}])
    with pytest.raises(bl.SchemaConflictError, match=r"row 2: column 'a' \(Int64\).*str.*'three'"):
        list(it)


def test_a_fixed_schema_does_not_widen():
    loader = bl.ResultSetLoader(pa.schema([("a", pa.int64())]))
    with pytest.raises(bl.SchemaConflictError, match="float"):
        list(loader.write_rows([{"a": 1.5}]))


def test_discovery_waits_for_a_non_null_value():
    loader = bl.ResultSetLoader()
    batches = list(loader.write_rows([{"a": None}, {"a": None}, {"a": "x"}]))
    assert batches[0].to_pylist() == [{"a": None}, {"a": None}, {"a": "x"}]
    assert batches[0].schema == pa.schema([("a", pa.utf8())])


def test_fields_seen_only_as_none_over_many_rows():
    """A field None in row after row has no column until a value types it (one that stays
    None has none); its key stays known by position meanwhile, and everything around it is
    written as from_pylist writes it, across batches; a row that then names it twice is
    still refused."""
    rows = [{"gone": None, "a": i, "m": {"x": None, "y": i}} for i in range(30)]
    rows[20] = {"gone": None, "a": 20, "m": {"x": 2.5, "y": 20}}
    # in batches of 8: each has the columns its rows typed (a field still without one is
    # None in all of them), and holds the rows as from_pylist makes them with its schema
    batches = list(bl.ResultSetLoader(row_limit=8).write_rows(rows))
    assert [b.num_rows for b in batches] == [8, 8, 8, 6]
    for i, b in enumerate(batches):
        assert b.equals(pa.RecordBatch.from_pylist(rows[8 * i : 8 * i + 8], b.schema))
    assert "x" in batches[2].schema.field("m").type.names
    member = pa.struct([("y", pa.int64()), ("x", pa.float64())])
    want = pa.Table.from_pylist(rows, pa.schema([("a", pa.int64()), ("m", member)]))
    loader = bl.ResultSetLoader(row_limit=64)
    (batch,) = loader.write_rows(rows)
    assert pa.Table.from_batches([batch]).equals(want)
    loader = bl.ResultSetLoader()
    twice = [{"a": None}] * 3 + [{"a": None, "A": None}]
    with pytest.raises(bl.SchemaConflictError, match="row 3: column 'a' is given twice"):
        list(loader.write_rows(twice))


def test_discovery_of_nested_values_and_mixed_case_keys():
    loader = bl.ResultSetLoader()
    data = [
        {"Id": 1, "m": {"k": [1, 2]}, "ev": [{"kind": "a"}]},
        {"id": 2, "M": {"k": [], "z": True}, "ev": [{"kind": "b", "v": 1.5}]},
    ]
    (batch,) = loader.write_rows(data)
    assert batch.schema == pa.schema(
        [
            ("Id", pa.int64()),
            ("m", pa.struct([("k", pa.list_(pa.int64())), ("z", pa.bool_())])),
            ("ev", pa.list_(pa.struct([("kind", pa.utf8()), ("v", pa.float64())]))),
        ]
    )
    assert batch.to_pylist() == [
        {"Id": 1, "m": {"k": [1, 2], "z": None}, "ev": [{"kind": "a", "v": None}]},
        {"Id": 2, "m": {"k": [], "z": True}, "ev": [{"kind": "b", "v": 1.5}]},
    ]


# ------------------------------------------------------------------ laziness, bad input


def test_write_rows_is_lazy_and_bounded():
    consumed = []

    def endless():
        for i in itertools.count():
            consumed.append(i)
            yield {"a": i}

    loader = bl.ResultSetLoader(pa.schema([("a", pa.int64())]), row_limit=100)
    it = loader.write_rows(endless())
    first = next(it)
    assert first.num_rows == 100
    assert len(consumed) == 100  # the batch was full after 100 rows: nothing read ahead
    second = next(it)
    assert second.column("a")[0].as_py() == 100


@pytest.mark.parametrize(
    ("row", "match"),
    [
        (42, "must be a dict, tuple or list"),
        ("abc", "must be a dict, tuple or list"),
        ((1, 2, 3), "3 values but the row has 2 columns"),
        ({1: 2}, "keys must be strings"),
        ({"a": 2**64}, "out of range"),
    ],
)
def test_bad_rows_name_the_row_and_keep_earlier_batches(row, match):
    loader = bl.ResultSetLoader(pa.schema([("a", pa.int64()), ("b", pa.utf8())]), row_limit=1)
    it = loader.write_rows([{"a": 1}, row, {"a": 3}])
    first = next(it)
    with pytest.raises(bl.SchemaConflictError, match=f"row 1: .*{match}"):
        next(it)
    assert first.to_pylist() == [{"a": 1, "b": None}]
    assert [b.to_pylist() for b in loader.write_rows([{"a": 4}])] == [[{"a": 4, "b": None}]]


class _ClearingZone(dt.tzinfo):
    """A time zone that empties a row dict when asked for its offset."""

    def __init__(self, row: dict) -> None:
        self.row = row

    def utcoffset(self, when: dt.datetime | None) -> dt.timedelta:
        self.row.clear()  # frees the row's other values while the row is being written
        return dt.timedelta(hours=1)


@pytest.mark.parametrize("how", ["scalar", "list", "nested"])
def test_a_row_changed_by_its_own_values_fails_cleanly(how):
    """Values are read from a row dict without owning them: one whose conversion runs
    Python code that empties the dict must neither crash nor write freed values."""
    schema = pa.schema(
        [
            ("t", pa.timestamp("us")),
            ("s", pa.struct([("l", pa.list_(pa.utf8()))])),
            ("c", pa.utf8()),
        ]
    )
    row: ClassVar[dict] = {}

    def clearing():
        row.clear()
        yield "y" * 40

    if how == "scalar":
        row.update(t=dt.datetime(2024, 1, 1, tzinfo=_ClearingZone(row)), c="x" * 50)
    elif how == "list":
        row.update(s={"l": clearing()}, c="x" * 50)
    else:
        row.update(s={"l": ["a", "b"]}, c="x" * 50)
        row["s"]["l"] = clearing()
    loader = bl.ResultSetLoader(schema)
    it = loader.write_rows([{"c": "ok"}, row])
    with pytest.raises(RuntimeError, match="dictionary changed size during iteration"):
        next(it)
    # the row before is kept, the failed one left nothing, and the loader goes on
    assert [b.to_pylist() for b in loader.write_rows([{"c": "z"}])] == [
        [{"t": None, "s": None, "c": "ok"}, {"t": None, "s": None, "c": "z"}]
    ]


class _Key(str):
    """A str key whose hashing empties the row it is a key of."""

    row: ClassVar[dict] = {}

    def __hash__(self) -> int:
        self.row.clear()
        return hash(str(self))

    def __eq__(self, other: object) -> bool:
        return str(self) == other


def test_a_row_emptied_by_hashing_its_key_fails_cleanly():
    loader = bl.ResultSetLoader(pa.schema([("a", pa.float64()), ("b", pa.utf8())]))
    row: ClassVar[dict] = {}
    _Key.row = row
    row[_Key("a")] = 1.5  # hashed here (row empty), and again when the loader looks it up
    row["b"] = "x" * 50
    it = loader.write_rows([{"a": 0.5, "b": "ok"}, row])
    with pytest.raises(RuntimeError, match="dictionary changed size during iteration"):
        next(it)
    assert [b.to_pylist() for b in loader.write_rows([{"a": 2.5}])] == [
        [{"a": 0.5, "b": "ok"}, {"a": 2.5, "b": None}]
    ]


def test_very_long_strings_force_overflow_without_losing_rows():
    loader = bl.ResultSetLoader(pa.schema([("s", pa.utf8())]), vector_byte_limit=10_000)
    data = [{"s": chr(0x4E00 + i) * (1000 + i)} for i in range(30)]  # 3 bytes per char
    batches = list(loader.write_rows(data))
    assert [b.num_rows for b in batches] == [3] * 10  # ~3 KB each: 3 fit in 10,000 bytes
    assert pa.Table.from_batches(batches).to_pylist() == data


def test_deeply_nested_empty_lists():
    t = pa.list_(pa.list_(pa.list_(pa.list_(pa.int8()))))
    data = [{"x": []}, {"x": [[]]}, {"x": [[[]]]}, {"x": [[[[]]]]}, {"x": [[[[1]], []]]}]
    batches = list(bl.ResultSetLoader(pa.schema([("x", t)]), row_limit=2).write_rows(data))
    assert pa.Table.from_batches(batches).to_pylist() == data


def _nested_dicts(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = {"a": value}
    return value


def test_types_nest_as_deep_as_pyarrow_imports_and_no_deeper():
    """pyarrow imports 64 levels of an Arrow C schema, the batch's own struct included: a
    column may nest 63 levels. Deeper is refused up front (a given schema) or at the row
    that would make it (discovery), not by pyarrow after the batch is built."""
    t = pa.int64()
    for _ in range(62):
        t = pa.list_(t)
    value: Any = 5
    for _ in range(62):
        value = [value]
    batches = list(bl.ResultSetLoader(pa.schema([("c", t)])).write_rows([{"c": value}]))
    assert batches[0].to_pylist() == [{"c": value}]
    with pytest.raises(bl.SchemaConflictError, match=r"column 'c(\[\]){63}' nests 64 levels"):
        bl.ResultSetLoader(pa.schema([("c", pa.list_(t))]))

    loader = bl.ResultSetLoader()
    fits = {"x": 2, "d": _nested_dicts(62)}
    rows = [{"x": 1}, fits, {"x": 3, "deeper": _nested_dicts(63)}]
    with pytest.raises(bl.SchemaConflictError, match=r"row 2: column 'deeper(\.a){63}' nests 64"):
        list(loader.write_rows(rows))
    # the rows before stay, and the loader goes on
    table = pa.Table.from_batches(list(loader.write_rows([{"x": 4}])))
    assert table.column("x").to_pylist() == [1, 2, 4]
    assert table.column("d").to_pylist()[1] == fits["d"]


def _member_paths(t: pa.DataType, prefix: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Projectable paths under a column (as their names): struct members, through lists
    too."""
    if pa.types.is_struct(t):
        out = []
        for i in range(t.num_fields):
            path = (*prefix, t.field(i).name)
            out += [path, *_member_paths(t.field(i).type, path)]
        return out
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return _member_paths(t.value_type, prefix)
    return []


def _tree(paths: list[tuple[str, ...]]) -> dict:
    """Projection tree: name -> subtree ({} = whole)."""
    root: dict = {}
    for parts in paths:
        node = root
        for i, part in enumerate(parts):
            if part in node and node[part] == {} and i < len(parts) - 1:
                break  # already whole
            last = i == len(parts) - 1
            node = node.setdefault(part, {}) if not last else node
            if last:
                node[part] = {}
    return root


def _project_type(t: pa.DataType, tree: dict) -> pa.DataType:
    if not tree:
        return t
    if pa.types.is_struct(t):
        fields = [t.field(i) for i in range(t.num_fields) if t.field(i).name in tree]
        return pa.struct([f.with_type(_project_type(f.type, tree[f.name])) for f in fields])
    if pa.types.is_list(t):
        return pa.list_(t.value_field.with_type(_project_type(t.value_type, tree)))
    if pa.types.is_large_list(t):
        return pa.large_list(t.value_field.with_type(_project_type(t.value_type, tree)))
    return t


def _project_value(v: Any, t: pa.DataType, tree: dict) -> Any:
    if not tree or v is None:
        return v
    if pa.types.is_struct(t):
        return {
            t.field(i).name: _project_value(
                v[t.field(i).name], t.field(i).type, tree[t.field(i).name]
            )
            for i in range(t.num_fields)
            if t.field(i).name in tree
        }
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return [_project_value(e, t.value_type, tree) for e in v]
    return v


@given(schema=schemas(max_columns=4), data=st.data())
def test_nested_projection_through_structs_and_lists(schema, data):
    candidates = [p for f in schema for p in [(f.name,), *_member_paths(f.type, (f.name,))]]
    paths = data.draw(st.lists(st.sampled_from(candidates), min_size=1, max_size=4))
    tree = _tree(paths)
    data_rows = data.draw(rows(schema, max_rows=10))
    projection = [".".join(map(spelled, p)) for p in paths]
    loader = bl.ResultSetLoader(schema, projection=projection, row_limit=3)
    batches = list(loader.write_rows(data_rows))
    projected = pa.schema(
        [f.with_type(_project_type(f.type, tree[f.name])) for f in schema if f.name in tree]
    )
    assert loader.schema == projected
    got = pa.Table.from_batches(batches, schema=projected)
    want = [
        {
            f.name: _project_value(expected(r, schema)[f.name], f.type, tree[f.name])
            for f in schema
            if f.name in tree
        }
        for r in data_rows
    ]
    assert got.to_pylist() == pa.Table.from_pylist(want, schema=projected).to_pylist()


def test_a_failed_row_leaves_no_column_or_type_behind():
    """What discovery learnt from a row that then fails is taken back with the row: the
    columns it added (top-level and struct members), the element type it gave a list first
    seen empty, and the widening of an int column it met a float in (exactly: 2**53 + 1 has
    no float64). The rows after it read as if it had never been written: the oracle
    is the same rows without it."""
    before = [{"a": 2**53 + 1, "t": [], "m": {"x": 1}}]
    bad = {"a": 2.5, "new": 5, "t": [1], "m": {"x": 1, "y": 2.5}, "z": object()}
    after = [{"a": 3, "new": "text", "t": ["s"], "m": {"x": 2, "y": "w"}}]
    loader = bl.ResultSetLoader()
    with pytest.raises(bl.SchemaConflictError, match="row 1: new column 'z'"):
        list(loader.write_rows([*before, bad]))
    got = pa.Table.from_batches(list(loader.write_rows(after)))
    want = pa.Table.from_batches(list(bl.ResultSetLoader().write_rows(before + after)))
    assert got.schema == want.schema
    assert (
        got.to_pylist()
        == want.to_pylist()
        == [
            {"a": 2**53 + 1, "t": [], "m": {"x": 1, "y": None}, "new": None},
            {"a": 3, "t": ["s"], "m": {"x": 2, "y": "w"}, "new": "text"},
        ]
    )


def write_one_by_one(rows, row_limit):
    """Each row through its own `write_rows`; a row that fails is counted and left out.
    Returns every batch (schema and rows) and the number of failures."""
    loader = bl.ResultSetLoader(row_limit=row_limit)
    batches, failures = [], 0
    for row in rows:
        try:
            batches += loader.write_rows([row])
        except bl.SchemaConflictError:
            failures += 1
    return [(b.schema, b.to_pylist()) for b in batches], failures


@given(
    rows=st.lists(st.dictionaries(st.sampled_from("abcd"), loose_values, max_size=4), max_size=12),
    broken=st.sets(st.integers(0, 11), max_size=4),
    row_limit=st.integers(1, 4),
)
def test_failed_rows_change_nothing_in_how_the_others_are_written(rows, broken, row_limit):
    """A row that fails after its other keys were written (a last key whose value no column
    can take) is left out as if it had never been written: the oracle is the same rows
    without it. Keys and types vary freely, so good rows may fail too: alike in both."""
    unconvertible = object()
    written = [{**row, "zz": unconvertible} if i in broken else row for i, row in enumerate(rows)]
    good = [row for i, row in enumerate(rows) if i not in broken]
    got, got_failures = write_one_by_one(written, row_limit)
    want, want_failures = write_one_by_one(good, row_limit)
    assert got == want
    assert got_failures == want_failures + len(written) - len(good)


@pytest.mark.parametrize(
    ("column_type", "value", "why"),
    [
        (pa.list_(pa.int64()), False, "bool value False: a list needs a sequence"),
        (pa.map_(pa.utf8(), pa.int64()), 5, r"int value 5: a map needs a dict or \(key"),
    ],
)
def test_a_scalar_for_a_list_or_map_names_row_column_and_value(column_type, value, why):
    loader = bl.ResultSetLoader(pa.schema([("c", column_type)]))
    with pytest.raises(bl.SchemaConflictError, match=rf"row 1: column 'c' .*{why}"):
        list(loader.write_rows([{"c": None}, {"c": value}]))


@pytest.mark.parametrize(
    ("row", "column"),
    [
        ({"id": 1, "ID": 2}, "id"),
        ({"id": 1, "m": {"x": 1, "X": None}}, "m.x"),
        ({"id": 1, "m": {"x": 1}, "M": None}, "m"),
        ({"id": 1, "ev": [{"k": "a", "K": "b"}]}, r"ev\[\]\.k"),
    ],
)
def test_a_row_naming_a_column_twice_is_refused(row, column):
    """Names are case-insensitive: {"id": 1, "ID": 2} gives column id twice, and keeping
    either value would drop the other silently. The rows around it are written."""
    schema = pa.schema(
        [
            ("id", pa.int64()),
            ("m", pa.struct([("x", pa.int64())])),
            ("ev", pa.list_(pa.struct([("k", pa.utf8())]))),
        ]
    )
    loader = bl.ResultSetLoader(schema)
    good = {"id": 0, "m": {"x": 0}, "ev": [{"k": "z"}]}
    with pytest.raises(bl.SchemaConflictError, match=rf"row 1: column '{column}' is given twice"):
        list(loader.write_rows([good, row]))
    rest = pa.Table.from_batches(list(loader.write_rows([good])), schema=schema)
    assert rest.to_pylist() == pa.Table.from_pylist([good, good], schema=schema).to_pylist()


def test_the_column_writer_still_overwrites():
    """Only whole rows refuse a second value; `writer[...].set` twice overwrites."""
    loader = bl.ResultSetLoader(pa.schema([("a", pa.int64())]))
    loader.start_batch()
    w = loader.writer
    w.start()
    w["a"].set(1)
    w["A"].set(2)
    w.save()
    assert loader.harvest().to_pylist() == [{"a": 2}]


@pytest.mark.parametrize(
    ("row", "column"),
    [
        ({"a": None, "A": 1}, "a"),
        ({"a": None, "A": None}, "a"),
        ({"ev": [{"k": "z"}, {"k": None, "K": "b"}]}, r"ev\[\]\.k"),
        ({"ev": [{"j": "z"}, {"k": None, "K": "b"}]}, r"ev\[\]\.k"),
    ],
)
def test_a_row_naming_a_column_twice_is_refused_before_discovery_types_it(row, column):
    """A None for a key with no column does not add one (the type waits for a value), so the
    loader cannot see a second key naming it: the same row is refused with or without the
    column, and the rows around it are written."""
    good = {"a": 0, "ev": [{"k": "z"}]}
    for before in ([], [good]):
        loader = bl.ResultSetLoader()
        with pytest.raises(
            bl.SchemaConflictError, match=rf"row {len(before)}: column '{column}' is given twice"
        ):
            list(loader.write_rows([*before, row]))
        rest = list(loader.write_rows([good]))
        assert pa.Table.from_batches(rest).to_pylist() == [*before, good]


@pytest.mark.parametrize("one_call", [True, False])
def test_a_column_first_seen_as_none_keeps_that_spelling(one_call):
    """Names are case-insensitive and a column takes the first spelling of its field, also
    when that first one came with a None (the column waits for a value to type it), in the
    same call or a later one, nested too; as the NDJSON reader names it."""
    rows = [
        {"a": None, "m": {"x": None}, "ev": [{"k": None}]},
        {"A": 1, "m": {"X": 2}, "ev": [{"K": "v"}]},
    ]
    loader = bl.ResultSetLoader()
    if one_call:
        (got,) = loader.write_rows(rows)
    else:
        got = [b for row in rows for b in loader.write_rows([row])][-1]
    assert got.schema.names == ["m", "ev", "a"]
    assert got.schema.field("m").type == pa.struct([("x", pa.int64())])
    assert got.schema.field("ev").type == pa.list_(pa.struct([("k", pa.utf8())]))
    want = [
        {"m": {"x": None}, "ev": [{"k": None}], "a": None},
        {"m": {"x": 2}, "ev": [{"k": "v"}], "a": 1},
    ]
    assert got.to_pylist() == (want if one_call else want[1:])
