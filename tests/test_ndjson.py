"""The Rust NDJSON reader through the scan: oracles (pyarrow.json, json.loads), bad input,
compression, projection pushdown."""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import gzip
import io
import json
import logging
import math
import pickle
import random
import re
import sys
import zlib
import zoneinfo
from dataclasses import dataclass
from typing import Any
from unittest import mock

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pj
import pytest
from float_texts import f32_midpoint_texts
from hypothesis import event, given, settings
from hypothesis import strategies as st
from reading import read_to_end

import batchloader as bl
from batchloader.bench import NARROW, NESTED_SCHEMA, _keep, nested_rows
from batchloader.projection import spelled

import strategies
from strategies import loose_values, schemas

DATA_COLUMNS = ["fqn", "filepath", "filename", "suffix"]


def gzip_utf8(path, mode):
    """`gzip.open` of UTF-8 text, for `write_lines`."""
    return gzip.open(path, mode, encoding="utf-8")


def write_lines(path, lines, opener=open):
    with opener(path, "wt") as f:
        f.write("\n".join(lines) + "\n")


def json_safe(rows):
    """The nested bench rows with timestamps as ISO strings (JSON has no timestamps)."""
    out = []
    for r in rows:
        r = dict(r)
        r["ts"] = r["ts"].isoformat()
        out.append(r)
    return out


def data_table(scan):
    table = pa.Table.from_batches(list(scan), schema=scan.schema)
    return table.drop_columns([c for c in DATA_COLUMNS if c in table.column_names])


def test_equal_to_pyarrow_json_with_a_provided_schema(tmp_path):
    rows = json_safe(nested_rows(3000))
    path = tmp_path / "nested.json"
    write_lines(path, [json.dumps(r) for r in rows])
    want = pj.read_json(path, parse_options=pj.ParseOptions(explicit_schema=NESTED_SCHEMA))
    scan = bl.Scan(path, schema=NESTED_SCHEMA, batch_byte_limit=64 * 1024)
    got = data_table(scan)
    assert got.schema == NESTED_SCHEMA
    assert got.equals(want.select(NESTED_SCHEMA.names).cast(NESTED_SCHEMA))
    assert scan.rows_read == 3000


def test_discovered_types_match_pyarrow_json_inference(tmp_path):
    rows = [
        {"i": 1, "f": 1.5, "s": "x", "b": True, "l": [1, 2], "m": {"x": "y", "n": [0.5]}},
        {"i": None, "f": 2, "s": None, "b": False, "l": [], "m": {"x": None, "n": []}},
        {"i": -(2**63), "f": -0.0, "s": "ü\u20ac\U0001f600", "b": None, "l": None, "m": None},
    ]
    path = tmp_path / "t.jsonl"
    write_lines(path, [json.dumps(r) for r in rows])
    got = data_table(bl.Scan(path))
    want = pj.read_json(path)
    assert got.equals(want), (got.schema, want.schema)


def _signed(values):
    """Values with the sign of a zero made visible (`-0.0 == 0.0` in Python and Arrow)."""
    return [
        _signed(v) if isinstance(v, list) else (v, math.copysign(1, v) if v == 0 else None)
        for v in values
    ]


@pytest.mark.parametrize("one_pass", [True, False])
def test_negative_zeros_read_as_json_loads_reads_them(tmp_path, one_pass):
    """`-0` is the integer 0; `-0.0` and `-0e5` are the float -0.0, which types a new column
    double and widens an int one, as any float does (pyarrow.json agrees on the types). The
    text `-0` inside strings and keys is left alone."""
    lines = [
        '{"i": -0, "f": -0.0, "e": -0e5, "l": [-0.0, 1], "w": 2, "s": "-0", "-0": -0}',
        '{"i": 3, "f": 1, "e": 1, "l": [2], "w": -0.0, "s": "x -0 y", "-0": 4}',
        # the columns typed: the one-pass path reads it
        '{"i": -0, "f": -0.0, "e": 2.5, "l": [-0.0], "w": -0.0, "s": "-0", "-0": -0}',
    ]
    path = tmp_path / "z.json"
    write_lines(path, lines)
    rows = [json.loads(line) for line in lines]
    reader = bl.FileReader(str(path), one_pass=one_pass)
    batches = []
    read_to_end(reader, bl.ResultSetLoader(), batches)
    got = pa.Table.from_batches(batches)
    want = pj.read_json(path)
    assert got.schema == want.schema
    for name in want.column_names:
        assert _signed(got.column(name).to_pylist()) == _signed([r[name] for r in rows]), name
    assert (reader.one_pass_lines > 0) == one_pass


@pytest.mark.parametrize("one_pass", [True, False])
def test_float32_numbers_are_rounded_once_as_pyarrow_rounds_them(tmp_path, one_pass):
    """A float32 column (top level, struct member, list element) rounds a fraction's text
    straight to f32 on both paths, as pyarrow.json does; through an f64 each of these texts
    would be a midpoint between two f32s, rounded to the even one. Whole numbers are ints
    rounded once too; 2^64 and past are left to the general path."""
    texts = f32_midpoint_texts(200)
    ints = ["16777217", "-16777219", "18446744073709551615", "18446744073709551616"]
    lines = [
        f'{{"x": {t}, "s": {{"y": {t}}}, "l": [{t}, {ints[i % 4]}, null, 2.5]}}'
        for i, t in enumerate(texts)
    ]
    path = tmp_path / "f.json"
    write_lines(path, lines)
    f32 = pa.float32()
    schema = pa.schema([("x", f32), ("s", pa.struct([("y", f32)])), ("l", pa.list_(f32))])
    reader = bl.FileReader(str(path), one_pass=one_pass)
    batches = []
    read_to_end(reader, bl.ResultSetLoader(schema), batches)
    got = pa.Table.from_batches(batches)
    want = pj.read_json(path, parse_options=pj.ParseOptions(explicit_schema=schema))
    assert got.equals(want.cast(got.schema))
    assert (reader.one_pass_lines > 0) == one_pass
    twice = pa.array([float(t) for t in texts]).cast(f32)
    assert not got.column("x").combine_chunks().equals(twice)  # the texts do tell apart


def test_a_negative_zero_float_into_a_declared_int_column_is_refused_like_zero(tmp_path):
    """A declared int column takes `-0` (the integer 0) and refuses `-0.0` as it refuses
    `0.0`: the float's sign is not silently dropped."""
    schema = pa.schema([("a", pa.int64())])
    path = tmp_path / "d.json"
    write_lines(path, ['{"a": -0}', '{"a": 5}'])
    assert data_table(bl.Scan(path, schema=schema)).column("a").to_pylist() == [0, 5]
    for zero in ("0.0", "-0.0"):
        write_lines(path, ['{"a": 1}', '{"a": ' + zero + "}"])
        message = rf"line 2, column \d+: column 'a': float value {zero} does not fit Int64"
        with pytest.raises(bl.InputError, match=message):
            list(bl.Scan(path, schema=schema))


@pytest.mark.parametrize(
    ("column_type", "value", "want"),
    [
        (pa.decimal128(6, 2), '"2.50"', decimal.Decimal("2.50")),
        (pa.decimal128(6, 2), "null", None),
        (pa.decimal128(6, 2), "true", r"column 'x': bool value True does not fit Decimal128"),
        (pa.decimal128(6, 2), "[1]", r"column 'x' \(Decimal128\(6, 2\)\) cannot take an array"),
        (pa.decimal128(6, 2), "1.234", r"column 'x' .* cannot take number 1.234: too precise"),
        (pa.float32(), "null", None),
        (pa.float32(), "-0", 0.0),
        (pa.float32(), "false", r"column 'x': bool value False does not fit Float32"),
        (pa.float32(), '"2.5"', r"column 'x': str value \"2.5\" does not fit Float32"),
        (pa.float32(), "{}", r"column 'x' \(Float32\) cannot take an object"),
        (pa.float32(), "1e39", 1e39),
        (pa.float32(), "1e400", r"malformed JSON: number out of range"),
    ],
)
def test_number_text_columns_take_other_values_as_other_columns_do(
    tmp_path, column_type, value, want
):
    """Decimal and float32 columns read a number from its text; any other value is written,
    or refused with the message, as for other scalar columns, on the second line (after a
    line that taught the key cache)."""
    path = tmp_path / "x.json"
    write_lines(path, ['{"x": 1}', '{"x": ' + value + "}"])
    scan = bl.Scan(path, schema=pa.schema([("x", column_type)]))
    if isinstance(want, str):
        with pytest.raises(bl.InputError, match="line 2, column \\d+: " + want):
            list(scan)
        return
    got = data_table(scan).column("x").to_pylist()[1]
    if column_type == pa.float32() and want is not None:
        assert got == float(pa.scalar(want, pa.float32()).as_py())
        assert math.copysign(1, got) == 1  # `-0` is the integer 0
    else:
        assert got == want


@pytest.mark.parametrize(
    ("line", "value"),
    [
        ('{"d": true, "f": 1.5}', "true"),
        ('{"s": "é€", "d": [1, 2]}', "[1, 2]"),
        ('{"z": -0, "f": {"a": 1}}', '{"a": 1}'),
        ('{"l": [1.5, "x"]}', '"x"'),
        ('{"f": 1e400}', "1e400"),
    ],
)
def test_a_value_a_number_text_column_refuses_is_named_where_it_starts(tmp_path, line, value):
    """Decimal and float32 columns read their values from the text: a value they refuse
    is named by the byte column where it starts (after non-ASCII text and a respelled `-0`
    too), not where the parser stopped, past it."""
    schema = pa.schema(
        [
            ("d", pa.decimal128(6, 2)),
            ("f", pa.float32()),
            ("l", pa.list_(pa.float32())),
            ("s", pa.utf8()),
            ("z", pa.int64()),
        ]
    )
    assert_named_where_it_starts(tmp_path / "v.json", schema, '{"d": 1, "f": 1}', line, value)


def assert_named_where_it_starts(path, schema, first, line, value):
    """A file of `first` then `line` fails on line 2, at the byte column of the last
    `value` in `line`."""
    write_lines(path, [first, line])
    column = line.encode().rindex(value.encode()) + 1
    with pytest.raises(bl.InputError) as info:
        list(bl.Scan(path, schema=schema))
    assert (info.value.line, info.value.column) == (2, column), str(info.value)


@pytest.mark.parametrize(
    ("line", "value"),
    [
        ('{"i": 300}', "300"),
        ('{"i":  -99999999999999999999 }', "-99999999999999999999"),
        ('{"i": 1.5e3}', "1.5e3"),
        ('{"i": true}', "true"),
        ('{"i": "x\\"y\\\\"}', '"x\\"y\\\\"'),
        ('{"q": "é\\"", "i": "é"}', '"é"'),
        ('{"i": [1]}', "[1]"),
        ('{"s": 5}', "5"),
        ('{"s": {"a": "z"}}', '"z"'),
        ('{"l": [1, "x"]}', '"x"'),
        ('{"l": [1, [2]]}', "[2]"),
        ('{"l": [ {"a": 1} ]}', '{"a": 1}'),
        ('{"t": "2024-13-01"}', '"2024-13-01"'),
        ('{"t": false}', "false"),
        ('{"b": 1}', "1"),
        ('{"m": {"k": "v"}}', '"v"'),
        ('{"i": -0, "b": -0}', "-0"),
    ],
)
def test_a_refused_value_is_named_where_it_starts(tmp_path, line, value):
    """Any value a column cannot take (a type, a range, a timestamp that is none) is named
    by the byte column of its first byte: a string's opening quote, a number's sign, an
    array's `[`, not the byte where the parser stood (a scalar's last)."""
    schema = pa.schema(
        [
            ("i", pa.int8()),
            ("s", pa.struct([("a", pa.int64())])),
            ("l", pa.list_(pa.int64())),
            ("t", pa.timestamp("us")),
            ("b", pa.bool_()),
            ("m", pa.map_(pa.utf8(), pa.int64())),
            ("q", pa.utf8()),
        ]
    )
    # a good line first: the one-pass path has the keys cached, and gives up on the value
    first = '{"i": 1, "l": [1], "q": "a"}'
    assert_named_where_it_starts(tmp_path / "v.json", schema, first, line, value)


@pytest.mark.parametrize("declared", [False, True])
def test_a_line_with_negative_zeros_keeps_its_text_and_error_columns(tmp_path, declared):
    """Where `-0` is read as the integer it spells, the line keeps its text: a declared
    string column gets the value as written, a bad line's error names the same column as
    in the same line without `-0`, and `_corrupt_record` keeps the line whole."""
    schema = pa.schema([("t", pa.utf8()), ("u", pa.utf8())]) if declared else None
    path = tmp_path / "t.json"
    good = '{"t": -0, "u": {"v": [-0, 1] }, "n": [1,-0]}'
    write_lines(path, [good])
    got = data_table(bl.Scan(path, schema=schema, columns=["t", "u"]))
    if declared:
        assert got.to_pylist() == [{"t": "-0", "u": '{"v": [-0, 1] }'}]
    else:
        assert got.to_pylist() == [{"t": 0, "u": {"v": [0, 1]}}]
    for bad, same in [
        ('{"t": -0, "u": tru}', '{"t": 10, "u": tru}'),
        ('{"t": 1 -0}', '{"t": 1 10}'),
        ('{"t": -0x}', '{"t": 10x}'),
        ('{"t": [-0 -0]}', '{"t": [10 10]}'),
    ]:
        columns = []
        for line in (bad, same):
            write_lines(path, [line])
            with pytest.raises(bl.InputError) as e:
                list(bl.Scan(path, schema=schema))
            columns.append(e.value.column)
        assert columns[0] == columns[1], bad
        write_lines(path, [bad])
        scan = bl.Scan(path, schema=schema, on_error="permissive")
        assert data_table(scan).column("_corrupt_record").to_pylist() == [bad]


def test_narrow_projection_is_pushed_down(tmp_path):
    rows = json_safe(nested_rows(500))
    path = tmp_path / "n.json"
    write_lines(path, [json.dumps(r) for r in rows])
    scan = bl.Scan(path, columns=["id", "address.city", "events"])
    got = pa.Table.from_batches(list(scan), schema=scan.schema)
    assert got.column_names == ["id", "address", "events"]
    assert got.column("address").type == pa.struct([("city", pa.utf8())])
    assert got.to_pylist() == [
        {"id": r["id"], "address": {"city": r["address"]["city"]}, "events": r["events"]}
        for r in rows
    ]


def test_the_benchs_projected_file_reads_as_the_narrow_projection(tmp_path):
    """`bench --readers` times a file of only the narrow projection's fields as the narrow
    scan's floor: it must hold what that scan returns, no more and no less."""
    rows = json_safe(nested_rows(500))
    full, projected = tmp_path / "full.json", tmp_path / "projected.json"
    write_lines(full, [json.dumps(r) for r in rows])
    write_lines(projected, [json.dumps(_keep(r, NARROW)) for r in rows])
    narrow = data_table(bl.Scan(full, columns=NARROW))
    assert data_table(bl.Scan(projected)).equals(narrow)
    assert narrow.num_rows == 500


# -------------------------------------------------------------- hypothesis documents

SCALARS = {
    pa.int64(): st.integers(-(2**63), 2**63 - 1),
    pa.float64(): st.floats(allow_nan=False, allow_infinity=False),
    pa.utf8(): st.text(),
    pa.bool_(): st.booleans(),
}


@st.composite
def typed(draw, depth=2):
    kinds = ["scalar"] * 3 + (["struct", "list"] if depth else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "scalar":
        t = draw(st.sampled_from(list(SCALARS)))
        return t, SCALARS[t]
    if kind == "list":
        t, values = draw(typed(depth - 1))
        return pa.list_(t), st.lists(st.one_of(st.none(), values), max_size=3)
    members = [(f"k{i}", draw(typed(depth - 1))) for i in range(draw(st.integers(1, 3)))]
    t = pa.struct([(name, mt) for name, (mt, _) in members])
    values = st.fixed_dictionaries({name: st.one_of(st.none(), v) for name, (_, v) in members})
    return t, values


@st.composite
def documents(draw):
    cols = [(f"c{i}", draw(typed())) for i in range(draw(st.integers(1, 4)))]
    schema = pa.schema([(name, t) for name, (t, _) in cols])
    row = st.fixed_dictionaries({name: st.one_of(st.none(), v) for name, (_, v) in cols})
    return schema, draw(st.lists(row, min_size=1, max_size=15)), draw(st.booleans())


@given(doc=documents())
def test_random_documents_equal_json_loads(tmp_path_factory, doc):
    schema, rows, ascii_only = doc
    path = tmp_path_factory.mktemp("docs") / "d.json"
    write_lines(path, [json.dumps(r, ensure_ascii=ascii_only) for r in rows])
    scan = bl.Scan(path, schema=schema, strict_schema=True, row_limit=4)
    got = data_table(scan)
    text = path.read_text(encoding="utf-8")
    expected = [json.loads(line) for line in text.split("\n") if line.strip()]
    want = pa.Table.from_pylist(expected, schema=schema)
    assert got.equals(want), (got.to_pylist(), want.to_pylist())


@given(doc=documents())
def test_random_documents_discovered_equal_json_loads(tmp_path_factory, doc):
    """Without a schema: types discovered as values arrive (a list's element type from its
    first non-null element, a member first seen null back-filled) give json.loads' values."""
    _, rows, ascii_only = doc
    path = tmp_path_factory.mktemp("docs") / "d.json"
    write_lines(path, [json.dumps(r, ensure_ascii=ascii_only) for r in rows])
    # one batch: a column null in a whole batch takes the null type when it is handed over
    # (test_a_field_seen_only_as_null_takes_the_null_type), which json.loads knows nothing of
    got = data_table(bl.Scan(path)).to_pylist()
    text = path.read_text(encoding="utf-8")
    assert got == [json.loads(line) for line in text.split("\n") if line.strip()]


def _without_nulls(value):
    """`value` with null members dropped: a member a row lacks reads as null."""
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def _reordered(row):
    """`row` with its keys (and its structs' keys) in reverse order, the last one dropped."""
    if not isinstance(row, dict):
        return row
    keys = list(row)[::-1][: max(len(row) - 1, 1)]
    return {k: _reordered(row[k]) for k in keys}


@given(doc=documents(), discover=st.booleans(), shuffle=st.booleans())
def test_every_line_read_the_quick_way_reads_as_the_general_way(
    tmp_path_factory, doc, discover, shuffle
):
    """Each line twice in a row: the second copy meets its keys in the order the first
    taught the key cache, so the one-pass path writes it (unless it has something only the
    general path does: an escape, a new column, -0...); or, shuffled, a third copy with its
    keys in another order and one fewer, which the one-pass path looks up. Every copy must
    read as json.loads does, over batches of 3 rows."""
    schema, rows, ascii_only = doc
    path = tmp_path_factory.mktemp("docs") / "d.json"
    copies = [(r, r, _reordered(r)) if shuffle else (r, r) for r in rows]
    lines = [json.dumps(c, ensure_ascii=ascii_only) for cs in copies for c in cs]
    write_lines(path, lines)
    expected = [json.loads(line) for line in lines]
    if discover:
        got = data_table(bl.Scan(path)).to_pylist()
        assert [_without_nulls(r) for r in got] == [_without_nulls(r) for r in expected]
    else:
        got = data_table(bl.Scan(path, schema=schema, strict_schema=True, row_limit=3))
        want = pa.Table.from_pylist(expected, schema=schema)
        assert got.equals(want), (got.to_pylist(), want.to_pylist())


# ---------------------------------------------------- one-pass path vs general path

# number literals the one-pass path leaves to the general one, or must read exactly as it
TRICKY_NUMBERS = [
    "-0",
    "-0.0",
    "-0e5",
    "-0.000E-1",
    "0.1",
    "1E5",
    "2e-3",
    "1.5e-300",
    "1e400",
    "9007199254740993",
    "123456789012345678",
    "1234567890123456789",
    "12345678901234567890123",
    "-1.0",
    # short whole numbers, read in one word on the one-pass path, and their look-alikes
    "0",
    "7",
    "1234567",
    "12345678",
    "00",
    "01",
    "-01",
    "12.",
    "7e2",
    "0E1",
    "3e+2",
    # fractions of up to 19 digits above 2^53 (an integer division), and of 20 (fast-float2)
    "0.30000000000000004",
    "9007199254740993.5",
    "-123456789.123456789",
    "9.999999999999999999",
    "99999999999999999.99",
    "1234567890123456789.0",
]


def _json_text(value, ascii_only=True):
    """JSON text of a Python value from `strategies.rows`: dates and timestamps as ISO-8601
    strings, decimals as number literals, bytes as (lossy) text; non-ASCII characters as
    `\\u` escapes or as they are."""
    if isinstance(value, dict):
        members = (
            f"{_json_text(k, ascii_only)}: {_json_text(v, ascii_only)}" for k, v in value.items()
        )
        return "{" + ", ".join(members) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_json_text(v, ascii_only) for v in value) + "]"
    if isinstance(value, dt.date | dt.datetime):
        return json.dumps(value.isoformat())
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    return json.dumps(value, ensure_ascii=ascii_only)


@st.composite
def loose_lines(draw):
    """A random schema, and lines mostly of its values: some columns swapped for a value of
    any type or a tricky number literal; text escaped to ASCII or raw UTF-8; each line twice,
    so the second copy meets the key order the first taught the cache."""
    schema = draw(schemas(max_columns=4, depth=2))
    ascii_only = draw(st.booleans())
    lines = []
    for row in draw(strategies.rows(schema, max_rows=12).filter(bool)):
        texts = {k: _json_text(v, ascii_only) for k, v in row.items()}
        for k in list(texts):
            swap = draw(st.sampled_from(["keep"] * 3 + ["loose"] + ["number"] * 2))
            if swap == "loose":
                texts[k] = _json_text(draw(loose_values), ascii_only)
            elif swap == "number":
                texts[k] = draw(st.sampled_from(TRICKY_NUMBERS))
        line = "{" + ", ".join(f"{json.dumps(k)}: {t}" for k, t in texts.items()) + "}"
        lines += [line, line]
    return schema, lines, draw(projections(schema))


@st.composite
def projections(draw, schema):
    """None (every column), or some of `schema`'s columns: whole, one struct member (`c.k0`)
    or one list element (`c[1]`); what is left out is skipped while parsing."""
    if draw(st.booleans()):
        return None
    out = []
    for f in schema:
        how = draw(st.sampled_from(["whole", "out", "part"]))
        name = spelled(f.name)
        if how == "whole":
            out.append(name)
        elif how == "part" and pa.types.is_struct(f.type):
            out.append(f"{name}.{spelled(f.type.field(0).name)}")
        elif how == "part" and (pa.types.is_list(f.type) or pa.types.is_large_list(f.type)):
            out.append(f"{name}[1]")
    return out


def _ipc_bytes(batch):
    """`batch` as an Arrow IPC stream: its values bit for bit (and no Python conversion, which
    fails on timestamps past year 9999)."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, batch.schema) as writer:
        writer.write_batch(batch)
    return sink.getvalue().to_pybytes()


def _read_with(path, schema, discover, one_pass, on_error, limits, projection=None):
    """Every batch a FileReader gives (or the error that stopped it), and its counters."""
    loader = bl.ResultSetLoader(
        schema=None if discover else schema, projection=projection, discover=discover, **limits
    )
    reader = bl.FileReader(str(path), on_error=on_error, discover=discover, one_pass=one_pass)
    batches, error = [], None
    try:
        read_to_end(reader, loader, batches)
    except bl.InputError as e:
        error = str(e)
    return batches, error, reader.skipped_lines, reader.one_pass_lines


@settings(max_examples=max(300, settings.default.max_examples))
@given(
    case=loose_lines(),
    discover=st.booleans(),
    on_error=st.sampled_from(["error", "skip", "permissive"]),
    limits=st.sampled_from(
        [
            {"row_limit": 3},
            {"row_limit": 100, "batch_byte_limit": 3000},
            {"batch_byte_limit": 700},
            {"batch_byte_limit": 150},
            {"row_limit": 100, "vector_byte_limit": 200},
            {},
        ]
    ),
)
def test_the_one_pass_path_reads_every_file_as_the_general_path(
    tmp_path_factory, case, discover, on_error, limits
):
    """The one-pass path is a shortcut: with it or without it (every line through the
    general path), a file gives the same batches, the same error, the same skipped lines,
    over random schemas (narrow ints, float32, decimals, dates, timestamps, binary, nested),
    values of the wrong type, tricky number literals, projections (what they leave out is
    skipped) and small batches and buffers (the one-pass path checks the limits once a line,
    the general path after every write: a line that breaks one overflows, or is too large,
    alike)."""
    schema, lines, projection = case
    path = tmp_path_factory.mktemp("paths") / "p.json"
    write_lines(path, lines)
    quick = _read_with(path, schema, discover, True, on_error, limits, projection)
    general = _read_with(path, schema, discover, False, on_error, limits, projection)
    assert general[3] == 0
    assert quick[1:3] == general[1:3]
    assert len(quick[0]) == len(general[0])
    for a, b in zip(quick[0], general[0], strict=True):
        assert a.equals(b), (a, b)
        # byte for byte: Arrow's equality takes -0.0 for 0.0
        assert _ipc_bytes(a) == _ipc_bytes(b), (a, b)


#: bytes a mutation puts into a line: JSON's punctuation and the first bytes of its
#: literals, whitespace and line breaks, control characters, and bytes that are not UTF-8
#: or begin a sequence that may not end (a lone surrogate's `\xed\xa0`)
MUTATION_BYTES = b'"\\{}[],: \t\r\n0-+.eEnutfx\x00\x1f\x7f\x80\xc3\xa9\xed\xa0\xff'


@st.composite
def mutated_lines(draw):
    """`loose_lines`, then a few bytes inserted, deleted or replaced, or a line cut short,
    half the time just past a quote (in a key or a string, where the checks of UTF-8,
    escapes and control characters are): mostly bad JSON, bad UTF-8 and broken escapes, now
    and then a line split in two."""
    schema, lines, projection = draw(loose_lines())
    if projection is None and draw(st.booleans()):
        projection = [spelled(schema.names[0])]  # the other columns skipped, where bytes may be bad
    data = [bytearray(line.encode()) for line in lines]
    for _ in range(draw(st.integers(1, 4))):
        line = data[draw(st.integers(0, len(data) - 1))]
        quotes = [i + 1 for i, c in enumerate(line) if c == ord('"')]
        if quotes and draw(st.booleans()):
            at = draw(st.sampled_from(quotes))  # inside a string, or just past one
        else:
            at = draw(st.integers(0, len(line)))
        how = draw(st.sampled_from(["insert", "replace", "delete", "cut"]))
        byte = draw(st.sampled_from(MUTATION_BYTES))
        if how == "insert":
            line.insert(at, byte)
        elif how == "replace" and at < len(line):
            line[at] = byte
        elif how == "delete" and at < len(line):
            del line[at]
        elif how == "cut":
            del line[at:]
    return schema, [bytes(line) for line in data], projection


@settings(max_examples=max(600, settings.default.max_examples))
@given(
    case=mutated_lines(),
    discover=st.booleans(),
    on_error=st.sampled_from(["error", "skip", "permissive"]),
    limits=st.sampled_from([{"row_limit": 3}, {"batch_byte_limit": 400}, {}]),
)
def test_broken_lines_read_alike_on_both_paths(tmp_path_factory, case, discover, on_error, limits):
    """The one-pass path gives up on anything amiss and leaves it to the general path:
    lines with stray, missing or invalid bytes give the same batches, the same error (the
    same line, column and words) and the same skipped lines with it as without it, and
    never a crash."""
    schema, lines, projection = case
    path = tmp_path_factory.mktemp("broken") / "b.json"
    path.write_bytes(b"\n".join(lines) + b"\n")
    quick = _read_with(path, schema, discover, True, on_error, limits, projection)
    general = _read_with(path, schema, discover, False, on_error, limits, projection)
    assert quick[1:3] == general[1:3]
    assert len(quick[0]) == len(general[0])
    for a, b in zip(quick[0], general[0], strict=True):
        assert _ipc_bytes(a) == _ipc_bytes(b), (a, b)


BASE_LINES = [
    '{"a": 1, "s": "x\\u00e9\\n\\"", "f": -1.5e3, "l": [[2], []], "o": {"k": "v", "b": true}}',
    '{"a": -20, "u": "é€😀", "n": null, "m": [{"k": 0.5}, {"k": null}]}',
]


@pytest.mark.parametrize("projection", [None, ["a"], ["o.k", "l", "m", "u"]])
@pytest.mark.parametrize("base", BASE_LINES)
def test_every_one_byte_change_reads_alike_on_both_paths(tmp_path, base, projection):
    """Each byte of a line replaced by, or preceded by, each of `MUTATION_BYTES`, or
    deleted, with the projection writing every value, skipping most, or some of each: on
    the one-pass path and off it, the file (each changed line followed by the line
    itself, so the key cache is taught again) gives the same rows, and the same
    `_corrupt_record`s for the lines that are bad."""
    line = base.encode()
    changed = []
    for at in range(len(line)):
        changed.append(line[:at] + line[at + 1 :])
        for byte in MUTATION_BYTES:
            changed.append(line[:at] + bytes([byte]) + line[at + 1 :])
            changed.append(line[:at] + bytes([byte]) + line[at:])
    path = tmp_path / "changed.json"
    path.write_bytes(b"".join(c + b"\n" + line + b"\n" for c in [line, *changed]))
    columns = None if projection is None else [*projection, "_corrupt_record"]
    quick = _read_with(path, None, True, True, "permissive", {}, columns)
    general = _read_with(path, None, True, False, "permissive", {}, columns)
    assert quick[3] > len(changed)  # the one-pass path took the copies of the line at least
    assert quick[1:3] == general[1:3] == (None, 0)
    assert len(quick[0]) == len(general[0])
    for a, b in zip(quick[0], general[0], strict=True):
        assert _ipc_bytes(a) == _ipc_bytes(b), (a, b)
    corrupt = pa.Table.from_batches(general[0]).column("_corrupt_record").drop_null()
    assert 0 < len(corrupt) < len(changed)  # some changes break the line, some do not


def test_lines_across_read_windows_read_alike_on_both_paths(tmp_path):
    """The one-pass path finds a line's end itself, in a read window of a few MB: lines
    that straddle a window's end, blank ones, CRLF ones, one longer than a window and a last
    line without a line break give the rows `json.loads` gives, on either path."""
    rnd = random.Random(7)
    rows = [{"a": i, "s": "x" * rnd.randrange(200)} for i in range(40_000)]
    rows[20_000]["s"] = "y" * (5 << 20)
    lines = [json.dumps(r) + rnd.choice(["", "", " ", "\r"]) for r in rows]
    for at in (5, 17_000, 30_000):
        lines.insert(at, "")
    path = tmp_path / "windows.json"
    path.write_text("\n".join(lines))  # no line break after the last line
    expected = pa.Table.from_pylist(rows)
    for one_pass in (True, False):
        batches, error, _, quick = _read_with(path, None, True, one_pass, "error", {})
        assert error is None
        table = pa.Table.from_batches(batches).select(["a", "s"])
        assert table.equals(expected.cast(table.schema))
        assert (quick > 39_000) == one_pass
    # every line counted: a bad last line is named by its number
    path.write_text("\n".join([*lines, '{"a": }']))
    for one_pass in (True, False):
        _, error, _, _ = _read_with(path, None, True, one_pass, "error", {})
        assert f"windows.json, line {len(lines) + 1}, column 7: malformed JSON" in error, error


@pytest.mark.parametrize("limits", [{"batch_byte_limit": 400}, {"vector_byte_limit": 200}])
def test_a_line_too_large_is_named_alike_on_both_paths(tmp_path, limits):
    """The one-pass path checks the limits once a line, the general path after every write:
    a line too large for any batch is still refused naming the column that broke the limit,
    and the lines around it are kept, on either path."""
    path = tmp_path / "big.json"
    plain = [json.dumps({"a": i, "s": "x", "b": 1}) for i in range(6)]
    big = json.dumps({"a": 9, "s": "y" * 500, "b": 2})
    write_lines(path, [*plain[:3], big, *plain[3:]])
    quick = _read_with(path, None, True, True, "skip", limits)
    general = _read_with(path, None, True, False, "skip", limits)
    assert quick[3] >= 5  # the plain lines went the one-pass way
    assert quick[1:3] == general[1:3] == (None, 1)
    assert all(b.equals(c) for b, c in zip(quick[0], general[0], strict=True))
    assert sum(b.num_rows for b in quick[0]) == 6
    _, error, _, _ = _read_with(path, None, True, True, "error", limits)
    _, general_error, _, _ = _read_with(path, None, True, False, "error", limits)
    assert error == general_error
    assert "line 4" in error and "column 's'" in error, error


def test_one_pass_lines_are_counted_and_can_be_turned_off(tmp_path):
    """The switch the property above relies on: the one-pass path takes repeated plain
    lines (fractions and exponents too: a number is not cut at its `.` or `e`), and
    `one_pass=False` sends them all to the general path."""
    path = tmp_path / "plain.json"
    write_lines(path, ['{"a": 1, "b": "x", "c": 1.5, "d": 7e2, "e": [3, 0.25]}'] * 10)
    for one_pass, least, most in [(True, 5, 10), (False, 0, 0)]:
        _, error, _, quick = _read_with(path, None, True, one_pass, "error", {})
        assert error is None and least <= quick <= most


def test_fields_seen_only_as_null_keep_lines_on_the_one_pass_path(tmp_path):
    """A field null on every line has no column until the batch ends (then it takes the
    null type): its nulls are noted on the one-pass path as on the general one, so such a
    file is not read the slow way. The member that gets a value is then a column; a line
    naming a null field twice is refused alike."""
    rows = [{"gone": None, "a": i, "m": {"x": None, "y": i}} for i in range(50)]
    rows.append({"gone": None, "a": 50, "m": {"x": "now", "y": 50}})
    rows += [{"gone": None, "a": i, "m": {"x": None, "y": i}} for i in range(51, 60)]
    path = tmp_path / "nulls.json"
    write_lines(path, [json.dumps(r) for r in rows])
    # columns in the order they were made: a field without one gets it at the batch's end
    member = pa.struct([("y", pa.int64()), ("x", pa.utf8())])
    schema = pa.schema([("a", pa.int64()), ("m", member), ("gone", pa.utf8())])
    expected = pa.Table.from_pylist(rows, schema)
    for one_pass in (True, False):
        batches, error, _, quick = _read_with(path, None, True, one_pass, "error", {})
        assert error is None
        assert pa.Table.from_batches(batches).equals(expected)
        # all but the first line (which teaches the key cache) and the one with a value
        assert quick == (len(rows) - 2 if one_pass else 0)
    # batches of 7 rows: the fields get their columns at the first batch's end
    quick, general = (
        _read_with(path, None, True, p, "error", {"row_limit": 7}) for p in (True, False)
    )
    assert [_ipc_bytes(b) for b in quick[0]] == [_ipc_bytes(b) for b in general[0]]
    assert pa.Table.from_batches(quick[0]).equals(expected)
    write_lines(path, [json.dumps(r) for r in rows[:5]] + ['{"gone": null, "a": 5, "GONE": null}'])
    errors = [_read_with(path, None, True, one_pass, "error", {})[1] for one_pass in (True, False)]
    assert errors[0] == errors[1]
    assert "line 6" in errors[0] and "given twice" in errors[0], errors[0]


@pytest.mark.parametrize("columns", [None, ["id", "tags[1]", "none[0]", "ev[0]"]])
def test_lists_seen_only_empty_and_element_projections_keep_the_one_pass_path(tmp_path, columns):
    """A list seen only empty (its element type a guess) takes more empty lists, and a list
    projected by index (`tags[1]`) takes its elements, on the one-pass path: the same
    batches as the general path, with every line but the first one-pass."""
    rows = [
        {"id": i, "none": [], "tags": ["a", "b", "c"][: i % 4], "ev": [{"k": i}] * (i % 3)}
        for i in range(40)
    ]
    path = tmp_path / "lists.json"
    write_lines(path, [json.dumps(r) for r in rows])
    quick = _read_with(path, None, True, True, "error", {"row_limit": 16}, columns)
    general = _read_with(path, None, True, False, "error", {"row_limit": 16}, columns)
    assert quick[1] is None and general[1] is None
    assert [_ipc_bytes(b) for b in quick[0]] == [_ipc_bytes(b) for b in general[0]]
    assert quick[3] >= len(rows) - 3, quick[3]  # lines that type a guess go the general way
    got = pa.Table.from_batches(quick[0]).to_pylist()
    if columns is None:
        assert [r["none"] for r in got] == [[]] * len(rows)
    else:
        assert [r["tags"] for r in got] == [
            [None, t[1]] if len(t) > 1 else [None] * len(t) for t in (r["tags"] for r in rows)
        ]
        assert [r["ev"] for r in got] == [[{"k": r["id"]}] if r["ev"] else [] for r in rows]


def test_decimal_and_map_columns_keep_the_one_pass_path(tmp_path):
    """Declared decimal and map columns take their values on the one-pass path (numbers and
    strings to decimals from their digits, objects to map entries in order, empty ones
    too): the rows `from_pylist` makes of the same values, the same batches as the general
    path, which still takes the lines it must (a key with an escape); a value a decimal
    cannot hold exactly is refused alike on both paths."""
    schema = pa.schema(
        [
            ("amt", pa.decimal128(9, 2)),
            ("attrs", pa.map_(pa.utf8(), pa.list_(pa.decimal128(5, 1)))),
        ]
    )
    texts = ["12.5", "-0.07", "3", '"4.25"', "1e2", "-0", "null", "0.10"]
    values = ["12.50", "-0.07", "3.00", "4.25", "100.00", "0.00", None, "0.10"]
    lines, rows = [], []
    for i in range(40):
        text, value = texts[i % len(texts)], values[i % len(values)]
        attrs = {f"k{j}é": [j / 2, None] for j in range(i % 3)}
        key_text = '"a\\"b"' if i == 33 else None  # an escaped key: the general path
        members = [
            f"{json.dumps(k, ensure_ascii=False)}: [{j / 2}, null]" for j, k in enumerate(attrs)
        ]
        if key_text:
            members.append(f"{key_text}: []")
            attrs['a"b'] = []
        lines.append(f'{{"amt": {text}, "attrs": {{{", ".join(members)}}}}}')
        rows.append(
            {
                "amt": None if value is None else decimal.Decimal(value),
                "attrs": [
                    (k, [decimal.Decimal(str(x)) if x is not None else None for x in v])
                    for k, v in attrs.items()
                ],
            }
        )
    path = tmp_path / "typed.json"
    write_lines(path, lines)
    quick = _read_with(path, schema, False, True, "error", {"row_limit": 16})
    general = _read_with(path, schema, False, False, "error", {"row_limit": 16})
    assert quick[1] is None and general[1] is None
    assert [_ipc_bytes(b) for b in quick[0]] == [_ipc_bytes(b) for b in general[0]]
    assert pa.Table.from_batches(quick[0]).equals(pa.Table.from_pylist(rows, schema))
    assert quick[3] == len(lines) - 1  # all but the line with an escaped key
    for bad in ["1.234", "12345678.9", '"x"', "[1]"]:
        write_lines(path, ['{"amt": 1, "attrs": {}}', f'{{"amt": {bad}, "attrs": {{}}}}'])
        errors = [_read_with(path, schema, False, p, "error", {})[1] for p in (True, False)]
        assert errors[0] == errors[1] and "line 2" in errors[0], errors


def test_declared_string_columns_take_any_value_as_text_on_the_one_pass_path(tmp_path):
    """A string column the user declared takes any JSON value, a non-string as its text as
    the line has it (as the type conflict message advises): at the top, in a struct, in
    lists (whole or by index) and as map values, on the one-pass path, giving what the
    general path gives."""
    schema = pa.schema(
        [
            ("v", pa.utf8()),
            ("s", pa.struct([("w", pa.utf8())])),
            ("l", pa.list_(pa.utf8())),
            ("m", pa.map_(pa.utf8(), pa.utf8())),
        ]
    )
    values = [
        '"text"',
        "12",
        "-0",
        "1.5e3",
        "true",
        "null",
        '{"a": [1, "x"]}',
        "[ 1 ,2 ]",
        '"\\u00e9"',
    ]
    as_text = ["text", "12", "-0", "1.5e3", "true", None, '{"a": [1, "x"]}', "[ 1 ,2 ]", "é"]
    lines = []
    for i in range(36):
        v = values[i % len(values)]
        w = values[(i + 1) % len(values)]
        lines.append(f'{{"v": {v}, "s": {{"w": {w}}}, "l": [{v}, {w}], "m": {{"k": {v}}}}}')
    path = tmp_path / "mixed.json"
    write_lines(path, lines)
    for columns in [None, ["v", "s", "l[1]", "m"]]:
        results = []
        for one_pass in (True, False):
            loader = bl.ResultSetLoader(
                schema, projection=columns, discover=False, declared=schema.names
            )
            reader = bl.FileReader(str(path), discover=False, one_pass=one_pass)
            batches = []
            read_to_end(reader, loader, batches)
            results.append((batches, reader.one_pass_lines))
        (quick, lines_quick), (general, _) = results
        assert [_ipc_bytes(b) for b in quick] == [_ipc_bytes(b) for b in general]
        assert lines_quick == len(lines)
        got = pa.Table.from_batches(quick).to_pylist()
        assert [r["v"] for r in got] == [as_text[i % len(values)] for i in range(36)]
        assert [r["m"] for r in got] == [[("k", as_text[i % len(values)])] for i in range(36)]
        second = [as_text[(i + 1) % len(values)] for i in range(36)]
        assert [r["s"]["w"] for r in got] == second
        assert [r["l"][1] for r in got] == second


def test_nineteen_digit_ids_keep_the_one_pass_path(tmp_path):
    """64-bit ids (snowflakes have 19 digits) are int64s on the one-pass path, to the edges
    of int64's range; past them the general path decides, alike either way."""
    ids = [1_234_567_890_123_456_789 + i for i in range(30)] + [2**63 - 1, -(2**63)]
    path = tmp_path / "ids.json"
    write_lines(path, [json.dumps({"id": v, "n": 1}) for v in ids])
    results = [_read_with(path, None, True, p, "error", {}) for p in (True, False)]
    assert [_ipc_bytes(b) for b in results[0][0]] == [_ipc_bytes(b) for b in results[1][0]]
    assert pa.Table.from_batches(results[0][0]).column("id").to_pylist() == ids
    assert results[0][3] == len(ids) - 1  # the first line makes the columns
    write_lines(path, [json.dumps({"id": v}) for v in [1, 2**63, 2**64, -(2**63) - 1]])
    results = [_read_with(path, None, True, p, "error", {}) for p in (True, False)]
    assert results[0][1] == results[1][1]
    assert [_ipc_bytes(b) for b in results[0][0]] == [_ipc_bytes(b) for b in results[1][0]]


# -------------------------------------------------------------- element projection

JUNK = st.one_of(st.text(max_size=3), st.dictionaries(st.text(max_size=2), st.booleans()))


@st.composite
def indexed_lists(draw):
    """Rows with a list `c` and the indexes projected: elements at projected positions are
    ints or nulls, the others junk of any type (never parsed, so never a conflict)."""
    indexes = sorted(draw(st.sets(st.integers(0, 6), min_size=1, max_size=3)))
    kept = st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1))

    def row(n):
        return {"c": [draw(kept) if i in indexes else draw(JUNK) for i in range(n)], "d": n}

    lengths = draw(st.lists(st.one_of(st.none(), st.integers(0, 9)), min_size=1, max_size=12))
    rows = [{"c": None, "d": -1} if n is None else row(n) for n in lengths]
    return indexes, rows


def element_oracle(indexes, rows):
    """What an element projection keeps: each position up to the last index asked for, the
    elements not asked for as nulls."""
    keep = set(indexes)
    return [
        None
        if r["c"] is None
        else [v if i in keep else None for i, v in enumerate(r["c"][: indexes[-1] + 1])]
        for r in rows
    ]


@given(case=indexed_lists())
def test_element_projection_is_pushed_into_parsing(tmp_path_factory, case):
    indexes, rows = case
    path = tmp_path_factory.mktemp("idx") / "d.json"
    write_lines(path, [json.dumps(r) for r in rows])
    columns = [f"c[{i}]" for i in indexes]
    want = element_oracle(indexes, rows)
    # discovered (one batch: a column all null in a batch takes the null type), and with a
    # provided schema over several batches
    scan = bl.Scan(path, columns=columns)
    got = pa.Table.from_batches(list(scan), schema=scan.schema)
    assert got.column_names == ["c"]
    assert got.column("c").to_pylist() == want
    if any(v is not None for c in want for v in c or []):
        assert got.schema.field("c").type == pa.list_(pa.int64())
    schema = pa.schema([("c", pa.list_(pa.int64()))])
    scan = bl.Scan(path, columns=columns, schema=schema, row_limit=3)
    got = pa.Table.from_batches(list(scan), schema=scan.schema)
    assert got.column("c").to_pylist() == want


@given(case=indexed_lists())
def test_element_projection_in_write_rows(case):
    indexes, rows = case
    schema = pa.schema([("c", pa.list_(pa.int64())), ("d", pa.int64())])
    loader = bl.ResultSetLoader(schema, projection=[f"c[{i}]" for i in indexes], row_limit=5)
    got = pa.Table.from_batches(list(loader.write_rows(rows)))
    assert got.column("c").to_pylist() == element_oracle(indexes, rows)


INNER = st.one_of(st.none(), st.lists(st.text(max_size=6), max_size=3))


@given(
    indexes=st.sets(st.integers(0, 5), min_size=1, max_size=3).map(sorted),
    rows=st.lists(st.lists(INNER, max_size=8).map(lambda c: {"c": c}), min_size=1, max_size=30),
    limit=st.integers(300, 600),
)
def test_element_projection_with_overflow_mid_row(indexes, rows, limit):
    """Rows moving to the next batch in the middle of a selected list keep its positions
    (a kept row is at most ~250 bytes: every row fits an empty batch)."""
    schema = pa.schema([("c", pa.list_(pa.list_(pa.utf8())))])
    projection = [f"c[{i}]" for i in indexes]
    loader = bl.ResultSetLoader(schema, projection=projection, batch_byte_limit=limit)
    batches = list(loader.write_rows(rows))
    got = [r["c"] for b in batches for r in b.to_pylist()]
    assert got == element_oracle(indexes, rows)


def test_element_projection_of_structs_and_members(tmp_path):
    rows = [
        {"ev": [{"k": "a", "v": 1}, {"k": "b", "v": 2}, {"k": "c", "v": 3}]},
        {"ev": [{"k": "d", "v": 4}]},
        {"ev": []},
    ]
    path = tmp_path / "ev.json"
    write_lines(path, [json.dumps(r) for r in rows])
    t = data_table(bl.Scan(path, columns=["ev[1].v", "ev[0].v"]))
    assert t.column("ev").type == pa.list_(pa.struct([("v", pa.int64())]))
    assert t.column("ev").to_pylist() == [[{"v": 1}, {"v": 2}], [{"v": 4}], []]
    t = data_table(bl.Scan(path, columns=["ev[1]"]))
    assert t.column("ev").to_pylist() == [[None, {"k": "b", "v": 2}], [None], []]
    # a mention without an index wants every element
    t = data_table(bl.Scan(path, columns=["ev[1]", "ev"]))
    assert t.column("ev").to_pylist() == [r["ev"] for r in rows]


# -------------------------------------------------------------- bad input

GOOD = json.dumps({"a": 1, "b": "x"})
BAD = '{"a": 2, "b": }'


@pytest.mark.parametrize("position", ["first", "middle", "last"])
def test_on_error_modes(tmp_path, position):
    lines = [GOOD, GOOD, GOOD]
    index = {"first": 0, "middle": 1, "last": 2}[position]
    lines[index] = BAD
    path = tmp_path / "bad.json"
    write_lines(path, lines)

    with pytest.raises(bl.InputError, match=rf"bad\.json, line {index + 1}, column \d+: malformed"):
        list(bl.Scan(path))

    scan = bl.Scan(path, on_error="skip")
    table = data_table(scan)
    assert table.num_rows == 2
    assert scan.skipped_lines == 1

    scan = bl.Scan(path, on_error="permissive")
    table = data_table(scan)
    assert table.num_rows == 3
    corrupt = table.column("_corrupt_record").to_pylist()
    assert corrupt[index] == BAD
    assert [c for i, c in enumerate(corrupt) if i != index] == [None, None]
    assert table.column("a").to_pylist()[index] is None


#: lines with values their columns cannot take, and what Spark's JSON reader keeps of
#: each in PERMISSIVE mode (3.5 and 4.3 alike; `_corrupt_record` holds every bad line)
PARTIAL_SCHEMA = pa.schema(
    [
        ("a", pa.int32()),
        ("b", pa.int32()),
        ("s", pa.struct([("p", pa.int32()), ("q", pa.int32())])),
        ("l", pa.list_(pa.int32())),
        ("ls", pa.list_(pa.struct([("x", pa.int32()), ("y", pa.int32())]))),
        ("ll", pa.list_(pa.list_(pa.int32()))),
        ("m", pa.map_(pa.utf8(), pa.int32())),
        ("d", pa.decimal128(5, 1)),
        ("ms", pa.map_(pa.utf8(), pa.struct([("x", pa.int32()), ("y", pa.int32())]))),
    ]
)
PARTIAL_LINES = [
    ('{"a": 1, "b": "x", "s": {"p": 1, "q": "y"}, "l": [1, "z", 3]}', {"a": 1, "s": {"p": 1}}),
    ('{"a": 2, "b": 3, "s": {"p": 2, "q": 4}, "l": [4]}', None),
    ('{"a": 5, "b": {"x": 1}, "s": [1], "l": {"k": 1}}', {"a": 5}),
    (
        '{"ls": [{"x": 1, "y": "bad"}, {"x": 2, "y": 3}], "ll": [[1], ["z"]], '
        '"m": {"k": 1, "j": "w"}, "a": 7}',
        {"ls": [{"x": 1, "y": None}, {"x": 2, "y": 3}], "a": 7},
    ),
    (
        '{"a": "nope", "m": {"k": 1}, "b": 2.5, "d": 1.5}',
        {"m": [("k", 1)], "d": decimal.Decimal("1.5")},
    ),
    ('{"a": 1, "d": 123456.7}', {"a": 1}),
    (
        '{"ms": {"k": {"x": 1, "y": "bad"}, "j": {"x": 2, "y": 3}}, "a": 1}',
        {"ms": [("k", {"x": 1, "y": None}), ("j", {"x": 2, "y": 3})], "a": 1},
    ),
    # values respelled for serde (non-numeric numbers, `-0`): the one that fails is nulled
    ('{"a": 3, "b": NaN, "l": [1, Infinity]}', {"a": 3}),
    ('{"a": -0, "s": -0, "b": 2}', {"a": 0, "b": 2}),
    ('{"a": 1, "b": oops', {}),  # malformed: nothing kept
]


@pytest.mark.parametrize("conventions", ["spark", "arrow"])
def test_permissive_keeps_the_values_of_a_bad_line_under_sparks_conventions(tmp_path, conventions):
    """Under Spark's conventions a line with values its columns cannot take keeps the
    others, as Spark's JSON reader keeps partial results: the value that failed is null,
    or the list or map holding it (a struct's member alone, also in a list's struct
    elements); a malformed line keeps nothing. Under Arrow's the other columns are null.
    Small batches too: a bad line that starts a batch."""
    path = tmp_path / "p.json"
    write_lines(path, [line for line, _ in PARTIAL_LINES])
    nulls = dict.fromkeys(PARTIAL_SCHEMA.names)
    want = []
    for line, kept in PARTIAL_LINES:
        if kept is None:  # a good line
            row = pa.Table.from_pylist([json.loads(line)], PARTIAL_SCHEMA).to_pylist()[0]
            want.append({**row, "_corrupt_record": None})
            continue
        kept = kept if conventions == "spark" else {}
        row = pa.Table.from_pylist([{**nulls, **kept}], PARTIAL_SCHEMA).to_pylist()[0]
        want.append({**row, "_corrupt_record": line})
    for row_limit in (1, 2, 100):
        scan = bl.Scan(
            path,
            schema=PARTIAL_SCHEMA,
            columns=[*PARTIAL_SCHEMA.names, "_corrupt_record"],
            on_error="permissive",
            json_conventions=conventions,
            row_limit=row_limit,
        )
        assert data_table(scan).to_pylist() == want, row_limit
        assert scan.corrupt_lines == 9


def test_a_line_of_very_many_bad_values_is_kept_alone(tmp_path):
    """Partial results null one bad value per read of the line: a line with more than 256
    of them keeps only its text (in time linear in the file), one with fewer its values."""
    names = [f"c{i}" for i in range(300)]
    schema = pa.schema([("ok", pa.int64()), *((n, pa.int64()) for n in names)])
    lines = [
        json.dumps({"ok": 1, **dict.fromkeys(names, "x")}),
        json.dumps({"ok": 2, **dict.fromkeys(names[:200], "x")}),
    ]
    write_lines(tmp_path / "wide.json", lines)
    scan = bl.Scan(
        tmp_path,
        schema=schema,
        columns=["ok", *names, "_corrupt_record"],
        on_error="permissive",
        json_conventions="spark",
    )
    rows = data_table(scan).to_pylist()
    assert [(r["ok"], r["c0"]) for r in rows] == [(None, None), (2, None)]
    assert [r["_corrupt_record"] for r in rows] == lines


@pytest.mark.parametrize("suffix", ["json", "csv"])
def test_a_bad_records_kept_values_give_way_when_the_row_would_break_the_limits(tmp_path, suffix):
    """Spark's partial results keep a bad record's values beside its text: where both
    together would make a row larger than the batch limits allow, the record is kept alone
    (its text holds every value), not an error; with room, the values are kept too."""
    path = tmp_path / f"big.{suffix}"
    if suffix == "json":
        write_lines(path, [json.dumps({"s": "x" * 600, "a": "bad"}), '{"s": "y", "a": 2}'])
    else:
        write_lines(path, ["s,a", "x" * 600 + ",bad", "y,2"])
    schema = pa.schema([("s", pa.utf8()), ("a", pa.int64())])
    for limit, kept in [(1000, None), (4000, "x" * 600)]:
        scan = bl.Scan(
            path,
            schema=schema,
            columns=["s", "a", "_corrupt_record"],
            on_error="permissive",
            header=True,
            batch_byte_limit=limit,
            **{f"{suffix}_conventions": "spark"},
        )
        rows = data_table(scan).to_pylist()
        assert [(r["s"], r["a"]) for r in rows] == [(kept, None), ("y", 2)], limit
        assert rows[0]["_corrupt_record"] is not None and rows[1]["_corrupt_record"] is None


#: a value of a line for the partial-results property: mostly ints (which convert),
#: else what an int column cannot take
_PARTIAL_VALUE = st.one_of(
    st.integers(-(2**63), 2**63 - 1),
    st.integers(-(2**63), 2**63 - 1),
    st.none(),
    st.text(max_size=3),
    st.floats(allow_nan=False, allow_infinity=False).filter(lambda x: x != int(x)),
    st.booleans(),
    st.lists(st.integers(0, 9), max_size=2),
    st.fixed_dictionaries({"p": st.integers(0, 9)}),
)


def _converts(value: Any, t: pa.DataType) -> bool:
    """Whether `value` converts whole to `t` (int64, a list of them, a struct of them)."""
    if value is None:
        return True
    if pa.types.is_list(t):
        return isinstance(value, list) and all(_converts(v, t.value_type) for v in value)
    if pa.types.is_struct(t):
        return isinstance(value, dict) and all(_converts(value.get(f.name), f.type) for f in t)
    return isinstance(value, int) and not isinstance(value, bool)


def _kept(value: Any, t: pa.DataType) -> Any:
    """What Spark's partial results keep of `value` in a column of type `t` (int64, a list
    of them, a struct of them): the value if it converts, else null; a list with an element
    that does not is null whole, a struct keeps its members that do."""
    if pa.types.is_struct(t) and isinstance(value, dict):
        return {f.name: _kept(value.get(f.name), f.type) for f in t}
    return value if _converts(value, t) else None


@given(
    rows=st.lists(
        st.fixed_dictionaries(
            {},
            optional={
                "a": _PARTIAL_VALUE,
                "l": st.one_of(st.lists(_PARTIAL_VALUE, max_size=3), _PARTIAL_VALUE),
                "s": st.one_of(
                    st.fixed_dictionaries({}, optional={"p": _PARTIAL_VALUE, "q": _PARTIAL_VALUE}),
                    _PARTIAL_VALUE,
                ),
            },
        ),
        min_size=1,
        max_size=8,
    ),
    row_limit=st.sampled_from([1, 3, 100]),
)
def test_partial_results_keep_exactly_the_values_that_convert(tmp_path_factory, rows, row_limit):
    """Property: under Spark's conventions in permissive mode, every line's row holds the
    values that convert to the declared types, nulls where they do not (a list for any
    element), and the line in `_corrupt_record` exactly when some value did not convert;
    as many rows as lines, in order."""
    schema = pa.schema(
        [
            ("a", pa.int64()),
            ("l", pa.list_(pa.int64())),
            ("s", pa.struct([("p", pa.int64()), ("q", pa.int64())])),
        ]
    )
    lines = [json.dumps(r) for r in rows]
    path = tmp_path_factory.mktemp("partial") / "p.json"
    write_lines(path, lines)
    scan = bl.Scan(
        path,
        schema=schema,
        columns=[*schema.names, "_corrupt_record"],
        on_error="permissive",
        json_conventions="spark",
        row_limit=row_limit,
    )
    want = []
    for row, line in zip(rows, lines, strict=True):
        kept = {f.name: _kept(row.get(f.name), f.type) for f in schema}
        good = all(_converts(row.get(f.name), f.type) for f in schema)
        out = pa.Table.from_pylist([kept], schema).to_pylist()[0]
        want.append({**out, "_corrupt_record": None if good else line})
    assert data_table(scan).to_pylist() == want


@pytest.mark.parametrize("on_error", ["skip", "permissive"])
def test_a_scan_tells_why_and_where_its_first_bad_lines_were_bad(tmp_path, on_error):
    """`scan.bad_lines`: the first `BAD_LINES_KEPT` lines skipped or kept as bad, in the
    order met over the files, each the `InputError` the line raises in "error" mode (its
    file, line, column and reason); the counters still count them all; a pass again tells
    of that pass."""
    from batchloader._core import BAD_LINES_KEPT

    first = [BAD if i % 3 == 1 else GOOD for i in range(90)]  # 30 bad
    second = ['{"a": "not an int"}' if i % 2 else GOOD for i in range(200)]  # 100 bad
    write_lines(tmp_path / "1.json", first)
    write_lines(tmp_path / "2.json", second)
    scan = bl.Scan(tmp_path, on_error=on_error, schema=pa.schema([("a", pa.int64())]))
    for _ in range(2):
        data_table(scan)
        assert scan.skipped_lines + scan.corrupt_lines == 130
        assert len(scan.bad_lines) == BAD_LINES_KEPT == 100
        places = [(e.path.rsplit("/", 1)[-1], e.line) for e in scan.bad_lines]
        want = [("1.json", i + 1) for i in range(1, 90, 3)]
        want += [("2.json", i + 1) for i in range(1, 200, 2)][: 100 - len(want)]
        assert places == want
        # each file's first bad line, as "error" mode raises it
        for e in (scan.bad_lines[0], scan.bad_lines[30]):
            assert isinstance(e, bl.InputError)
            with pytest.raises(bl.InputError) as raised:
                list(bl.Scan(e.path, schema=pa.schema([("a", pa.int64())])))
            got = raised.value
            assert (got.line, got.column, got.reason) == (e.line, e.column, e.reason)
            assert str(got) == str(e)
    scan = bl.Scan(tmp_path / "1.json", on_error=on_error)
    data_table(scan)
    assert len(scan.bad_lines) == 30
    (tmp_path / "good").mkdir()
    write_lines(tmp_path / "good" / "3.json", [GOOD] * 5)
    good = bl.Scan(tmp_path / "good", on_error=on_error)
    data_table(good)
    assert good.bad_lines == []


@pytest.mark.parametrize("suffix", ["json", "csv"])
def test_permissive_mode_keeps_bad_lines_in_the_column_named(tmp_path, suffix):
    """`corrupt_record_column` (Spark's `columnNameOfCorruptRecord`) names the column bad
    lines are kept in: a wildcard scan has it, a schema may place it, a projection that
    leaves it out is warned of by that name; no `_corrupt_record` column then."""
    path = tmp_path / f"bad.{suffix}"
    if suffix == "json":
        write_lines(path, [GOOD, BAD, GOOD])
        bad = BAD
    else:
        write_lines(path, ["a,b", "1,x", "oops,y", "1,x"])
        bad = "oops,y"
    schema = pa.schema([("a", pa.int64())])
    options = {"on_error": "permissive", "header": True, "corrupt_record_column": "bad"}
    table = data_table(bl.Scan(path, schema=schema, **options))
    assert "_corrupt_record" not in table.column_names
    assert table.column("bad").to_pylist() == [None, bad, None]
    assert table.column("a").to_pylist() == [1, None, 1]
    placed = pa.schema([("bad", pa.utf8()), ("a", pa.int64())])
    table = data_table(bl.Scan(path, schema=placed, strict_schema=True, **options))
    assert table.column_names == ["bad", "a"]
    assert table.column("bad").to_pylist() == [None, bad, None]
    with pytest.raises(ValueError, match="corrupt_record_column"):
        bl.Scan(path, corrupt_record_column="")


@pytest.mark.parametrize("name", ["_corrupt_record", "_CORRUPT_RECORD"])
@pytest.mark.parametrize("strict", [True, False])
def test_a_schema_may_name_the_corrupt_record_column_itself(tmp_path, name, strict):
    """Spark's way to ask for permissive mode's column is to put `_corrupt_record string` in
    the schema: the scan fills that column, where the schema puts it."""
    path = tmp_path / "bad.json"
    write_lines(path, [GOOD, BAD, GOOD])
    schema = pa.schema([(name, pa.utf8()), ("a", pa.int64())])
    scan = bl.Scan(path, schema=schema, strict_schema=strict, on_error="permissive")
    table = data_table(scan)
    assert table.column_names[:2] == [name, "a"]
    assert table.column(name).to_pylist() == [None, BAD, None]
    assert table.column("a").to_pylist() == [1, None, 1]
    wrong = pa.schema([("_corrupt_record", pa.int64())])
    with pytest.raises(ValueError, match=r"_corrupt_record.*string"):
        bl.Scan(path, schema=wrong, on_error="permissive")


@pytest.mark.parametrize(
    ("line", "what"),
    [
        ("[1, 2]", "an array"),
        ("null", "null"),
        ("5", "a number"),
        ("-1.5", "a number"),
        ('"s"', "a string"),
        ("true", "a boolean"),
    ],
)
@pytest.mark.parametrize("schema", [None, pa.schema([("a", pa.int64())])])
def test_a_line_that_is_not_an_object_says_so(tmp_path, line, what, schema):
    path = tmp_path / "scalar.json"
    write_lines(path, [GOOD, line, GOOD])
    says = rf"line 2, column \d+: a row must be a JSON object, not {what}"
    with pytest.raises(bl.InputError, match=says):
        list(bl.Scan(path, schema=schema))
    scan = bl.Scan(path, on_error="skip", schema=schema)
    assert data_table(scan).num_rows == 2
    assert scan.skipped_lines == 1


BAD_LINES = st.sampled_from(
    ['{"c0": }', "{", '{"c0": 1', "[1, 2]", "null", "7", '{"c0": tru}', '{"a": "\\x"}', "}{"]
)


SMALL = pa.schema([("c0", pa.utf8()), ("c1", pa.int64()), ("l", pa.list_(pa.utf8()))])
SMALL_ROWS = st.fixed_dictionaries(
    {
        "c0": st.one_of(st.none(), st.text(min_size=10, max_size=60)),
        "c1": st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1)),
        "l": st.one_of(st.none(), st.lists(st.text(max_size=10), max_size=4)),
    }
)


@given(
    rows=st.lists(SMALL_ROWS, min_size=5, max_size=25),
    bad=st.lists(
        st.tuples(st.integers(0, 30), st.one_of(BAD_LINES, st.integers(0, 30))),
        min_size=1,
        max_size=4,
    ),
    mode=st.sampled_from(["skip", "permissive"]),
    # any one line fits a batch (a line, its values and the file columns stay under 1300
    # bytes), so no line is refused as too large; byte limits move rows mid-write
    limits=st.tuples(st.sampled_from([3, 1000, 1000]), st.integers(1300, 3000)),
)
@settings(max_examples=300)
def test_bad_lines_anywhere_lose_and_duplicate_nothing(tmp_path_factory, rows, bad, mode, limits):
    """Malformed lines at random places (fixed ones, and good lines cut short: written up to
    their last value before they fail, so the batch can overflow while writing them), under
    random row and byte limits: every good line comes out once, in order; each bad one is
    counted (skip) or kept whole (permissive)."""
    lines = [json.dumps(r) for r in rows]
    bad_texts = set()
    for at, what in bad:
        text = what if isinstance(what, str) else json.dumps(rows[what % len(rows)])[:-1]
        bad_texts.add(text)
        lines.insert(min(at, len(lines)), text)
    path = tmp_path_factory.mktemp("bad") / "d.json"
    write_lines(path, lines)
    row_limit, byte_limit = limits
    scan = bl.Scan(
        path,
        schema=SMALL,
        strict_schema=True,
        on_error=mode,
        row_limit=row_limit,
        batch_byte_limit=byte_limit,
    )
    got = data_table(scan)
    good = [json.loads(line) for line in lines if line not in bad_texts]
    want = pa.Table.from_pylist(good, schema=SMALL)
    if mode == "skip":
        assert scan.skipped_lines == len(bad)
        assert got.equals(want)
    else:
        corrupt = got.column("_corrupt_record").to_pylist()
        assert corrupt == [line if line in bad_texts else None for line in lines]
        kept = got.filter(pc.is_null(got.column("_corrupt_record")))
        assert kept.drop_columns(["_corrupt_record"]).equals(want)


def test_a_bad_line_that_overflows_the_batch_is_kept_in_the_next(tmp_path):
    """The rare path of the property test above, for every limit near it: a line cut short
    whose values take the batch over its byte limit before it fails. The completed rows are
    set aside, so its corrupt record must wait for the next batch, not vanish."""
    schema = pa.schema([("c0", pa.utf8()), ("c1", pa.int64())])
    lines = [json.dumps({"c0": "x" * 40, "c1": i}) for i in range(6)]
    lines.insert(3, lines[1][:-1])
    path = tmp_path / "cut.json"
    write_lines(path, lines)
    for limit in range(440, 600, 7):
        scan = bl.Scan(
            path, schema=schema, strict_schema=True, on_error="permissive", batch_byte_limit=limit
        )
        got = data_table(scan)
        corrupt = got.column("_corrupt_record").to_pylist()
        assert corrupt == [None, None, None, lines[3], None, None, None], limit


def test_conversion_failure_follows_the_policy(tmp_path):
    path = tmp_path / "t.json"
    write_lines(path, ['{"t": "2024-01-02T03:04:05Z"}', '{"t": "not a time"}'])
    schema = pa.schema([("t", pa.timestamp("us", tz="UTC"))])
    with pytest.raises(bl.InputError, match=r"line 2, column \d+: column 't'.*not an ISO-8601"):
        list(bl.Scan(path, schema=schema))
    scan = bl.Scan(path, schema=schema, on_error="skip")
    assert data_table(scan).column("t").to_pylist()[0].isoformat() == "2024-01-02T03:04:05+00:00"


EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


def _iso_micros(text: str) -> int | None:
    """The oracle: Python's own ISO-8601 parser; a time without offset is UTC. Python also
    takes offset minutes past 59 (`+00:60`); ISO 8601 and pyarrow do not, nor do we."""
    offset = re.search(r"[+-]\d\d:(\d\d)$", text)
    if offset and int(offset.group(1)) > 59:
        return None
    try:
        when = dt.datetime.fromisoformat(text)
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.timezone.utc)
    return (when - EPOCH) // dt.timedelta(microseconds=1)


def _has_offset(text: str) -> bool:
    """Whether ISO-8601 text `text` (one `_iso_micros` reads) names a UTC offset."""
    return dt.datetime.fromisoformat(text).tzinfo is not None


def _two(lo: int, hi: int):
    return st.integers(lo, hi).map(lambda n: f"{n:02d}")


ISO_DATES = st.builds(
    lambda y, m, d: f"{y:04d}-{m}-{d}", st.integers(1, 9999), _two(0, 13), _two(0, 32)
)
ISO_TIMESTAMPS = st.builds(
    lambda date, sep, clock, offset: f"{date}{sep}{clock}{offset}",
    ISO_DATES.filter(lambda d: _iso_micros(d) is not None and d[:4] not in ("0001", "9999")),
    st.sampled_from(["T", " "]),
    # the hour alone, hours and minutes, or down to a fraction of a second
    st.one_of(
        _two(0, 25),
        st.builds(lambda h, m: f"{h}:{m}", _two(0, 25), _two(0, 61)),
        st.builds(
            lambda h, m, s, frac: f"{h}:{m}:{s}{frac}",
            _two(0, 25),
            _two(0, 61),
            _two(0, 61),
            st.sampled_from(["", ".5", ".000001", ".123456"]),
        ),
    ),
    st.one_of(
        st.sampled_from(["", "Z"]),
        st.builds(
            lambda sign, h, m: f"{sign}{h}{m}",
            st.sampled_from("+-"),
            _two(0, 25),
            st.one_of(st.just(""), _two(0, 61).map(lambda m: f":{m}")),
        ),
    ),
)


@pytest.mark.skipif(
    sys.version_info < (3, 11), reason="the oracle is Python 3.11's datetime.fromisoformat"
)
@given(
    dates=st.lists(ISO_DATES, min_size=1, max_size=30),
    stamps=st.lists(ISO_TIMESTAMPS, min_size=1, max_size=30),
)
@settings(max_examples=200)
def test_iso_dates_and_timestamps_agree_with_python(tmp_path_factory, dates, stamps):
    """Every text Python's fromisoformat refuses is refused (kept whole as a corrupt record,
    never shifted into another day); every one it reads gives the same instant. In NDJSON
    strings and in CSV fields (which read the usual layout on a path of their own; a text
    with a UTC offset in a column without a time zone is refused there, as pyarrow.csv and
    Spark's CSV reader refuse it, where pyarrow.json reads the instant)."""
    folder = tmp_path_factory.mktemp("iso")
    cases = [
        (name, values, t, suffix)
        for name, values, t in (("d", dates, pa.date32()), ("t", stamps, pa.timestamp("us")))
        for suffix in ("json", "csv")
    ]
    for name, values, t, suffix in cases:
        path = folder / f"{name}.{suffix}"
        if suffix == "json":
            write_lines(path, [json.dumps({"v": v}) for v in values])
        else:
            write_lines(path, ["v", *values])
        schema = pa.schema([("v", t)])
        table = data_table(
            bl.Scan(
                path,
                schema=schema,
                columns=["v", "_corrupt_record"],
                on_error="permissive",
                header=True,
            )
        )
        got = table.column("v").cast(pa.int32() if t == pa.date32() else pa.int64()).to_pylist()
        corrupt = table.column("_corrupt_record").to_pylist()
        for value, have, bad in zip(values, got, corrupt, strict=True):
            want = _iso_micros(value)
            if want is not None and t == pa.date32():
                want //= 86_400_000_000
            elif want is not None and suffix == "csv" and _has_offset(value):
                want = None
            assert (have, bad is not None) == (want, want is None), value


#: zones after a clock's seconds, as Spark spells them, and their offsets (None: Paris)
SPARK_ZONES = {
    "Z": 0,
    "+1": 3600,
    "-01:30": -5400,
    "+0530": 19800,
    " UTC": 0,
    "GMT-3": -10800,
    "UTC+01:00": 3600,
    " +02:00:30": 7230,
    "EST": -18000,
    "Europe/Paris": None,
    " Europe/Paris": None,
}


@st.composite
def spark_date_texts(draw):
    """A date or timestamp text in the forms Spark's readers take (fields one or two
    digits, a year alone or with its month, a signed or 6-digit year, a clock to the hour,
    minute, second or fraction, a zone after the seconds), some out of range; and the
    date and the instant (microseconds, UTC) it stands for, computed by `datetime`."""
    # (chrono-tz's rules for a zone's summer time end in 2099: `Europe/Paris` texts stop
    # there; Java's go on)
    y, m, d = draw(st.integers(1000, 2099)), draw(st.integers(0, 13)), draw(st.integers(0, 32))
    year = draw(st.sampled_from(["{:04d}", "+{:04d}", "{:06d}"])).format(y)
    field = lambda n: draw(st.sampled_from([f"{n}", f"{n:02d}"]))  # noqa: E731
    parts = draw(st.integers(-2, 4))  # year; year-month; date; hour; minute; second; fraction
    if parts == -2:
        return year, *_civil(y, 1, 1, 0, 0, 0, 0, 0)
    if parts == -1:
        return f"{year}-{field(m)}", *_civil(y, m, 1, 0, 0, 0, 0, 0)
    text = f"{year}-{field(m)}-{field(d)}"
    clock = [draw(st.integers(0, 24)), draw(st.integers(0, 60)), draw(st.integers(0, 60))]
    shown = min(parts, 3)  # clock fields in the text; the others are 0
    clock[shown:] = [0] * (3 - shown)
    if shown:
        text += draw(st.sampled_from(["T", " "])) + ":".join(field(n) for n in clock[:shown])
    digits = draw(st.text("0123456789", max_size=12)) if parts == 4 else ""
    if parts == 4:
        text += "." + digits
    micros = int((digits + "000000")[:6])
    zone = draw(st.sampled_from(["", *SPARK_ZONES])) if parts >= 3 else ""
    return text + zone, *_civil(y, m, d, *clock, micros, SPARK_ZONES.get(zone, 0))


def _civil(y, m, d, h, mi, s, micros, offset):
    """The date of `y-m-d` (None: no such day) and the instant of the clock on it, at
    `offset` seconds east of UTC (None: Paris's time), in microseconds (None: no such
    time)."""
    try:
        day = dt.date(y, m, d)
    except ValueError:
        return None, None
    try:
        zone = (
            zoneinfo.ZoneInfo("Europe/Paris")
            if offset is None
            else dt.timezone(dt.timedelta(seconds=offset))
        )
        when = dt.datetime(y, m, d, h, mi, s, micros, tzinfo=zone)
    except ValueError:
        return day, None
    return day, (when - EPOCH) // dt.timedelta(microseconds=1)


@given(texts=st.lists(spark_date_texts(), min_size=1, max_size=30))
def test_spark_forms_of_dates_and_timestamps_agree_with_datetime(tmp_path_factory, texts):
    """Under Spark's conventions a text in any of the forms Spark's readers take reads as
    the date and the instant its fields make (`datetime` the oracle: a day that does not
    exist, an hour 24, a minute 60 are refused, kept whole as a corrupt record); a date
    column takes the day of a timestamp's text. NDJSON and CSV alike."""
    folder = tmp_path_factory.mktemp("spark")
    for suffix in ("json", "csv"):
        path = folder / f"t.{suffix}"
        if suffix == "json":
            write_lines(path, [json.dumps({"v": text}) for text, _, _ in texts])
        else:
            write_lines(path, ["v", *(text for text, _, _ in texts)])
        for t, want in ((pa.date32(), 1), (pa.timestamp("us", tz="UTC"), 2)):
            table = data_table(
                bl.Scan(
                    path,
                    schema=pa.schema([("v", t)]),
                    columns=["v", "_corrupt_record"],
                    on_error="permissive",
                    header=True,
                    **{f"{suffix}_conventions": "spark"},
                )
            )
            column = table.column("v")
            got = (column if want == 1 else column.cast(pa.int64())).to_pylist()
            corrupt = table.column("_corrupt_record").to_pylist()
            for case, have, bad in zip(texts, got, corrupt, strict=True):
                assert (have, bad is not None) == (case[want], case[want] is None), case


#: zones with summer time (north and south, a half-hour one), odd offsets, none
ZONES = ["America/New_York", "Europe/Paris", "Australia/Lord_Howe", "Asia/Kathmandu", "+05:30"]


def _zoned_micros(text: str, zone: str) -> int | None:
    """The oracle of a zoned column: `_iso_micros`, but a time without an offset is a local
    time of `zone` by Python's zoneinfo with fold=0, which is Java's `ZonedDateTime.of`
    (Spark's reading): a repeated time takes the earlier offset, a skipped one the offset
    before the gap."""
    from zoneinfo import ZoneInfo

    if _iso_micros(text) is None:
        return None
    when = dt.datetime.fromisoformat(text)
    if when.tzinfo is None:
        if zone.startswith("+"):
            tz: dt.tzinfo = dt.timezone(dt.timedelta(hours=int(zone[1:3]), minutes=int(zone[4:])))
        else:
            tz = ZoneInfo(zone)
        when = when.replace(tzinfo=tz, fold=0)
    return (when - EPOCH) // dt.timedelta(microseconds=1)


#: local times near the clock changes of ZONES' summer times (in 2024, and in 2100, past
#: the years chrono-tz's tables hold, where the zones' rules go on), anywhere in 1970-2037
#: (the years both time zone databases, Python's and the library's, agree on for certain),
#: and anywhere from 2100 on (Python reads the zone's rules there, as Java does)
ZONED_TEXTS = st.one_of(
    st.builds(
        lambda day, h, m, offset: f"{day}T{h:02d}:{m:02d}:00{offset}",
        st.sampled_from(
            [
                *("2024-03-10", "2024-11-03", "2024-03-31", "2024-10-27", "2024-04-07"),
                *("2024-10-06", "2100-03-14", "2100-11-07", "2100-03-28", "2100-10-31"),
                *("2100-04-04", "2100-10-03"),
            ]
        ),
        st.integers(0, 3),
        st.sampled_from([0, 15, 30, 59]),
        st.sampled_from(["", "", "", "Z", "+01:00"]),
    ),
    st.datetimes(dt.datetime(1970, 1, 2), dt.datetime(2037, 12, 30)).map(
        lambda d: d.isoformat(sep=" ")
    ),
    st.datetimes(dt.datetime(2100, 1, 1), dt.datetime(9999, 12, 30)).map(
        lambda d: d.isoformat(sep=" ")
    ),
)


@pytest.mark.skipif(
    sys.version_info < (3, 11), reason="the oracle is Python 3.11's datetime.fromisoformat"
)
@given(zone=st.sampled_from(ZONES), texts=st.lists(ZONED_TEXTS, min_size=1, max_size=20))
@settings(max_examples=150, deadline=None)
def test_times_without_an_offset_are_local_times_of_the_columns_zone(tmp_path_factory, zone, texts):
    """A timestamp column with a time zone reads a text without an offset as a local time
    there, as Spark reads one in its session time zone (pyarrow.json would read UTC); a
    text with an offset is that instant. NDJSON on both paths, and CSV."""
    folder = tmp_path_factory.mktemp("zoned")
    schema = pa.schema([("v", pa.timestamp("us", tz=zone))])
    want = [_zoned_micros(t, zone) for t in texts]
    write_lines(folder / "v.json", [json.dumps({"v": t}) for t in texts])
    write_lines(folder / "v.csv", ["v", *texts])
    for one_pass in (True, False):
        reader = bl.FileReader(str(folder / "v.json"), discover=False, one_pass=one_pass)
        loader = bl.ResultSetLoader(schema=schema, discover=False)
        loader.start_batch()
        assert not reader.fill(loader)
        assert loader.harvest().column("v").cast(pa.int64()).to_pylist() == want, one_pass
    table = data_table(bl.Scan(folder / "v.csv", schema=schema, header=True))
    assert table.column("v").cast(pa.int64()).to_pylist() == want


@pytest.mark.parametrize("suffix", ["json", "csv"])
def test_a_time_without_an_offset_in_an_unknown_zone_says_why(tmp_path, suffix):
    """A zone the library does not know reads texts with an offset, and refuses the others
    naming the zone (not as if the text were no timestamp)."""
    path = tmp_path / f"t.{suffix}"
    texts = ["2024-01-01T00:00:00Z", "2024-01-01T00:00:00"]
    write_lines(path, [json.dumps({"t": t}) for t in texts] if suffix == "json" else ["t", *texts])
    schema = pa.schema([("t", pa.timestamp("us", tz="Mars/Olympus"))])
    with pytest.raises(bl.InputError, match=r"line 3?2?.*no UTC offset.*'?\"?Mars/Olympus"):
        list(bl.Scan(path, schema=schema, header=True))
    scan = bl.Scan(path, schema=schema, header=True, on_error="skip")
    assert data_table(scan).column("t").cast(pa.int64()).to_pylist() == [1_704_067_200_000_000]


@pytest.mark.parametrize(
    "suffix, conventions, refused",
    [("csv", "arrow", True), ("json", "spark", True), ("json", "arrow", False)],
)
def test_a_time_with_an_offset_in_a_column_without_a_zone(tmp_path, suffix, conventions, refused):
    """A column without a time zone holds wall clocks: a CSV field with a UTC offset is
    refused saying so (as pyarrow.csv and Spark's CSV reader refuse it), and a JSON string
    under Spark's conventions (Spark's `timestamp_ntz`); under Arrow's, NDJSON reads the
    instant's UTC clock, as pyarrow.json does. A text without an offset is read as is."""
    path = tmp_path / f"t.{suffix}"
    texts = ["2024-01-01T00:00:00", "2024-01-01T01:00:00+01:00"]
    write_lines(path, [json.dumps({"t": t}) for t in texts] if suffix == "json" else ["t", *texts])
    schema = pa.schema([("t", pa.timestamp("us"))])
    scan = bl.Scan(path, schema=schema, header=True, json_conventions=conventions)
    midnight = dt.datetime(2024, 1, 1)
    if not refused:
        assert data_table(scan).column("t").to_pylist() == [midnight, midnight]
        return
    with pytest.raises(bl.InputError, match=r"line 3?2?.*has a UTC offset.*no time zone"):
        list(scan)
    skipping = bl.Scan(
        path, schema=schema, header=True, on_error="skip", json_conventions=conventions
    )
    assert data_table(skipping).column("t").to_pylist() == [midnight]


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
@pytest.mark.parametrize("one_pass", [True, False])
def test_a_number_into_a_timestamp_counts_the_columns_unit(tmp_path, unit, one_pass):
    """Arrow's cast rule, not Spark's seconds: the number is that many units since the
    epoch, on both paths; a fraction is not a timestamp."""
    path = tmp_path / "t.json"
    numbers = [1_700_000_000, -5, 0]
    write_lines(path, [json.dumps({"t": n}) for n in numbers] + ['{"t": 1.5}'])
    schema = pa.schema([("t", pa.timestamp(unit))])
    reader = bl.FileReader(str(path), on_error="permissive", discover=False, one_pass=one_pass)
    loader = bl.ResultSetLoader(schema=schema, discover=False)
    loader.start_batch()
    assert not reader.fill(loader)
    batch = loader.harvest()
    want = pa.array([*numbers, None], pa.int64()).cast(pa.timestamp(unit))
    assert batch.column("t").equals(want)
    assert batch.column("_corrupt_record").to_pylist() == [None] * 3 + ['{"t": 1.5}']


def test_spark_conventions_read_single_quoted_strings(tmp_path):
    """`json_conventions="spark"` reads strings in single quotes, keys and values (Spark's
    `allowSingleQuotes`), into discovered and declared columns alike; a declared string
    column given an object holding one gets its text in double quotes, and a string that
    spells `NaN` stays a string. Arrow's conventions find each such line malformed."""
    path = tmp_path / "q.json"
    write_lines(
        path,
        [
            "{'a': 1, 'b': 'x', 'n': 'NaN'}",
            "{\"a\": 2, 'b': {'k': 'v'}, \"n\": \"it's\"}",
        ],
    )
    schema = pa.schema([("b", pa.utf8())])
    got = data_table(bl.Scan(path, schema=schema, json_conventions="spark")).to_pylist()
    assert got == [{"b": "x", "a": 1, "n": "NaN"}, {"b": '{"k": "v"}', "a": 2, "n": "it's"}]
    with pytest.raises(bl.InputError, match="line 1, column 2"):
        list(bl.Scan(path))


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
@pytest.mark.parametrize("one_pass", [True, False])
def test_spark_conventions_read_numbers_as_seconds_and_binary_as_base64(tmp_path, unit, one_pass):
    """`json_conventions="spark"`: a whole number into a timestamp with a time zone is
    seconds since the epoch (as Spark's JSON reader reads it), in the column's unit, in
    list elements too; one past the unit's range, a number into a date or a zone-less
    timestamp, and a binary value that is not base64 are bad input naming why; a binary
    value is its base64 text decoded. On both paths."""
    path = tmp_path / "t.json"
    seconds = [1_700_000_000, -5, 0]
    blobs = [b"\x00\xff", b"", b"hi there"]
    rows = [
        {"t": n, "l": [n, 1], "b": base64.b64encode(blob).decode()}
        for n, blob in zip(seconds, blobs, strict=True)
    ]
    refused = [
        ({"d": 3}, "reads a date from a string only"),
        ({"n": 3}, "reads a timestamp without a time zone from a string only"),
        ({"b": "aGk"}, "not base64"),
        ({"n": "2024-01-01T00:00:00Z"}, "has a UTC offset, and the column has no time zone"),
    ]
    if unit != "s":  # past int64 in the unit (any int64 is a count of seconds)
        name = {"ms": "milliseconds", "us": "microseconds", "ns": "nanoseconds"}[unit]
        refused.append(({"t": 10**16}, f"out of range in {name}"))
    bad = [row for row, _ in refused]
    write_lines(path, [json.dumps(r) for r in rows + bad])
    zoned = pa.timestamp(unit, tz="UTC")
    schema = pa.schema(
        [
            ("t", zoned),
            ("l", pa.list_(zoned)),
            ("b", pa.binary()),
            ("d", pa.date32()),
            ("n", pa.timestamp(unit)),
        ]
    )
    reader = bl.FileReader(
        str(path),
        on_error="permissive",
        discover=False,
        one_pass=one_pass,
        json_conventions="spark",
    )
    loader = bl.ResultSetLoader(schema=schema, discover=False)
    loader.start_batch()
    assert not reader.fill(loader)
    batch = loader.harvest()
    nulls = [None] * len(bad)
    instants = [dt.datetime.fromtimestamp(n, dt.timezone.utc) for n in seconds]
    assert batch.column("t").equals(pa.array(instants + nulls, zoned))
    one = dt.datetime.fromtimestamp(1, dt.timezone.utc)
    assert batch.column("l").to_pylist() == [[t, one] for t in instants] + nulls
    assert batch.column("b").to_pylist() == blobs + nulls
    corrupt = batch.column("_corrupt_record").to_pylist()
    assert corrupt == [None] * 3 + [json.dumps(r) for r in bad]
    for row, says in refused:
        write_lines(path, [json.dumps(rows[0]), json.dumps(row)])
        scan = bl.Scan(path, schema=schema, json_conventions="spark")
        with pytest.raises(bl.InputError, match=rf"line 2, column \d+: .*{says}"):
            list(scan)


@pytest.mark.parametrize("one_pass", [True, False])
def test_spark_conventions_read_non_numeric_numbers_from_strings(tmp_path, one_pass):
    """Spark reads `"NaN"`, `"Infinity"`, `"+INF"`... into a float column as it reads them
    unquoted; under Spark's conventions so does the reader (float64 and float32), and
    other spellings stay bad input, as every string is under Arrow's."""
    path = tmp_path / "f.json"
    texts = ["NaN", "Infinity", "+Infinity", "-Infinity", "+INF", "-INF", "nan", "INF"]
    write_lines(path, [json.dumps({"d": t, "f": t}) for t in texts])
    schema = pa.schema([("d", pa.float64()), ("f", pa.float32())])
    for conventions, read in (("spark", 6), ("arrow", 0)):
        reader = bl.FileReader(
            str(path),
            on_error="permissive",
            discover=False,
            one_pass=one_pass,
            json_conventions=conventions,
        )
        loader = bl.ResultSetLoader(schema=schema, discover=False)
        loader.start_batch()
        assert not reader.fill(loader)
        batch = loader.harvest()
        for name in ("d", "f"):
            got = batch.column(name).to_pylist()
            want = [float(t.lstrip("+").replace("INF", "inf")) for t in texts[:read]]
            assert got[:read] == pytest.approx(want, nan_ok=True), (conventions, name)
            assert got[read:] == [None] * (len(texts) - read)


@pytest.mark.parametrize("option", ["json_conventions", "csv_conventions"])
def test_conventions_are_arrow_or_spark(tmp_path, option):
    path = tmp_path / "t.json"
    write_lines(path, ['{"t": 1}'])
    with pytest.raises(ValueError, match=f"{option} must be 'arrow' or 'spark', not 'Spark'"):
        bl.Scan(path, **{option: "Spark"})
    with pytest.raises(ValueError, match=f"{option} must be 'arrow' or 'spark'"):
        bl.FileReader(str(path), **{option: "pyarrow"})


@pytest.mark.parametrize("suffix", ["json", "csv"])
def test_spark_conventions_read_sparks_date_and_timestamp_texts(tmp_path, suffix):
    """Under Spark's conventions (`json_conventions` for NDJSON, `csv_conventions` for CSV)
    the date and timestamp texts Spark's readers take besides ISO-8601 are read as Spark
    reads them, in a zoned column's zone when the text names none; under Arrow's they are
    bad input, kept whole in permissive mode."""
    path = tmp_path / f"t.{suffix}"
    texts = ["2024-7-1 3:4", "2024-07-01T03:04:00 Europe/Paris", "2024-7-1 3:4:00-1", "2024-7"]
    if suffix == "json":
        write_lines(path, [json.dumps({"d": t, "t": t}) for t in texts])
    else:
        write_lines(path, ["d,t", *(f"{t},{t}" for t in texts)])
    schema = pa.schema([("d", pa.date32()), ("t", pa.timestamp("us", tz="America/New_York"))])
    read = {
        conventions: data_table(
            bl.Scan(
                path,
                schema=schema,
                header=True,
                on_error="permissive",
                **{f"{suffix}_conventions": conventions},
            )
        )
        for conventions in ("spark", "arrow")
    }
    july = dt.date(2024, 7, 1)
    assert read["spark"].column("d").to_pylist() == [july, july, july, july]
    utc = dt.timezone.utc
    assert [t.astimezone(utc) for t in read["spark"].column("t").to_pylist()] == [
        dt.datetime(2024, 7, 1, 7, 4, tzinfo=utc),  # New York's summer time: UTC-4
        dt.datetime(2024, 7, 1, 1, 4, tzinfo=utc),
        dt.datetime(2024, 7, 1, 4, 4, tzinfo=utc),
        dt.datetime(2024, 7, 1, 4, 0, tzinfo=utc),  # midnight in New York
    ]
    assert read["arrow"].column("t").null_count == len(texts)
    assert read["arrow"].column("_corrupt_record").null_count == 0


@pytest.mark.parametrize("suffix", ["json", "csv"])
def test_dates_and_timestamps_read_by_the_patterns_given(tmp_path, suffix):
    """`date_format`, `timestamp_format` (columns with a time zone) and
    `timestamp_ntz_format` (wall clocks), Java patterns as Spark's options take them: each
    column's texts are read by its pattern alone (an ISO text another pattern would read is
    bad input, naming the pattern), a local time in the column's zone; an offset in a
    wall-clock column is refused."""
    rows = [
        ("02/01/2024", "02/01/2024 03:04 PM", "2024.01.02 03h04"),
        ("2/1/2024", "2/1/2024 3:04 am", "2024.01.02 23h59"),
        ("2024-01-02", "02/01/2024 03:04 PM", "2024.01.02 03h04"),
        ("02/01/2024", "02/01/2024 03:04 PM", "2024-01-02T03:04:00"),
    ]
    if suffix == "json":
        write_lines(
            tmp_path / "t.json", [json.dumps(dict(zip("dtw", r, strict=True))) for r in rows]
        )
    else:
        write_lines(tmp_path / "t.csv", ["d,t,w", *(",".join(r) for r in rows)])
    schema = pa.schema(
        [("d", pa.date32()), ("t", pa.timestamp("s", tz="Europe/Paris")), ("w", pa.timestamp("ms"))]
    )
    formats = {
        "date_format": "d/M/yyyy",
        "timestamp_format": "d/M/yyyy h:mm a",
        "timestamp_ntz_format": "yyyy.MM.dd HH'h'mm",
    }
    scan = bl.Scan(tmp_path, schema=schema, header=True, on_error="skip", **formats)
    table = data_table(scan)
    utc = dt.timezone.utc
    assert table.column("d").to_pylist() == [dt.date(2024, 1, 2)] * 2
    assert [t.astimezone(utc) for t in table.column("t").to_pylist()] == [
        dt.datetime(2024, 1, 2, 14, 4, tzinfo=utc),  # 3:04 PM in Paris, UTC+1
        dt.datetime(2024, 1, 2, 2, 4, tzinfo=utc),
    ]
    assert table.column("w").to_pylist() == [
        dt.datetime(2024, 1, 2, 3, 4),
        dt.datetime(2024, 1, 2, 23, 59),
    ]
    assert scan.skipped_lines == 2
    reasons = [e.reason for e in scan.bad_lines]
    assert "2024-01-02" in reasons[0] and "d/M/yyyy" in reasons[0], reasons
    assert "2024-01-02T03:04:00" in reasons[1] and "HH'h'mm" in reasons[1], reasons
    if suffix == "json":
        # the one-pass path and the general one read them alike
        read = []
        for one_pass in (True, False):
            reader = bl.FileReader(
                str(tmp_path / "t.json"), on_error="skip", one_pass=one_pass, **formats
            )
            batches: list = []
            read_to_end(reader, bl.ResultSetLoader(schema=schema, discover=False), batches)
            read.append(pa.Table.from_batches(batches))
        assert read[0].equals(read[1]) and read[0].num_rows == 2
    # an offset in a wall-clock column
    (tmp_path / "z").mkdir()
    write_lines(tmp_path / "z" / "z.json", ['{"w": "2024-01-02 03:04+01:00"}'])
    with pytest.raises(bl.InputError, match=r"z\.json, line 1.*yyyy-MM-dd HH:mmXXX"):
        list(
            bl.Scan(
                tmp_path / "z",
                schema=pa.schema([("w", pa.timestamp("s"))]),
                timestamp_ntz_format="yyyy-MM-dd HH:mmXXX",
            )
        )


#: Java patterns and the strftime formats that write the same texts
JAVA_AND_STRFTIME = [
    ("dd/MM/yyyy HH:mm:ss", "%d/%m/%Y %H:%M:%S"),
    ("yyyyMMddHHmmss", "%Y%m%d%H%M%S"),
    ("MM-dd-yy hh:mm a", "%m-%d-%y %I:%M %p"),
    ("d MMM yyyy, H:mm", "{day} %b %Y, {hour}:%M"),
    ("MMMM d yyyy HH'h'mm", "%B {day} %Y %Hh%M"),
    ("yyyy-MM-dd HH:mm:ss.SSSSSS", "%Y-%m-%d %H:%M:%S.%f"),
]


@given(
    stamps=st.lists(
        st.datetimes(min_value=dt.datetime(2000, 1, 1), max_value=dt.datetime(2099, 12, 31)),
        min_size=1,
        max_size=20,
    ),
    formats=st.sampled_from(JAVA_AND_STRFTIME),
    suffix=st.sampled_from(["json", "csv"]),
)
def test_texts_a_strftime_format_writes_read_back_by_the_java_pattern(
    tmp_path_factory, stamps, formats, suffix
):
    """Property: datetimes written by a strftime format read back, by the Java pattern
    spelling the same layout, as the datetimes themselves (to the pattern's precision)."""
    java, strftime = formats

    def text(t: dt.datetime) -> str:
        layout = strftime.replace("{day}", str(t.day)).replace("{hour}", str(t.hour))
        return t.strftime(layout)

    path = tmp_path_factory.mktemp("patterns") / f"t.{suffix}"
    if suffix == "json":
        write_lines(path, [json.dumps({"t": text(t)}) for t in stamps])
    else:
        write_lines(path, ["t", *(f'"{text(t)}"' for t in stamps)])
    schema = pa.schema([("t", pa.timestamp("us"))])
    got = data_table(bl.Scan(path, schema=schema, header=True, timestamp_ntz_format=java))
    seconds = "ss" in java
    minutes = "mm" in java
    want = [
        t.replace(
            second=t.second if seconds else 0,
            microsecond=t.microsecond if "SSS" in java else 0,
            minute=t.minute if minutes else 0,
        )
        for t in stamps
    ]
    assert got.column("t").to_pylist() == want


def test_patterns_the_readers_cannot_take_are_refused_when_the_scan_is_made(tmp_path):
    write_lines(tmp_path / "t.json", ['{"d": "2024-01-02"}'])
    for option, pattern, why in [
        ("date_format", "yyyy-ww", "'w'"),
        ("timestamp_format", "EEE, d MMM yyyy", "day of the week"),
        ("timestamp_ntz_format", "yyyy-MM-dd'T", "quote open"),
    ]:
        with pytest.raises(ValueError, match=rf"{option}: .*{why}"):
            bl.Scan(tmp_path, **{option: pattern})


def test_narrowing_ints_checks_range(tmp_path):
    path = tmp_path / "t.json"
    write_lines(path, ['{"x": 100}', '{"x": 300}'])
    with pytest.raises(bl.InputError, match=r"line 2, column \d+: .*out of range"):
        list(bl.Scan(path, schema=pa.schema([("x", pa.int8())])))


#: JSON number literals of any length, beyond float64's precision, in its range
NUMBER_LITERALS = st.from_regex(r"\A-?(0|[1-9][0-9]{0,25})(\.[0-9]{1,25})?([eE][+-]?[0-9]{1,2})?\Z")


@given(literals=st.lists(NUMBER_LITERALS, min_size=1, max_size=20))
@settings(max_examples=300, deadline=None)
def test_number_literals_into_float64_round_as_python(tmp_path_factory, literals):
    """Any JSON number, written as text a person or another tool may write (not Python's
    shortest repr), reads into a float64 column as `float(json.loads(text))`: correctly
    rounded, long integers and exponents included."""
    path = tmp_path_factory.mktemp("numbers") / "n.json"
    write_lines(path, ['{"x": ' + text + "}" for text in literals])
    schema = pa.schema([("x", pa.float64())])
    got = data_table(bl.Scan(path, columns=["x"], schema=schema)).column("x").to_pylist()
    assert got == [float(json.loads(text)) for text in literals]


MALFORMED_VALUES = [
    "01",
    "1.",
    ".5",
    "-",
    "1e",
    "nan",
    "-NaN",
    "+NaN",
    "INF",
    "Infinit",
    "tru",
    "[1,]",
    "[1 2]",
    '{"k" 1}',
    "{k: 1}",
    '{"k": 1,}',
    '"\x01"',
    '"x\\q"',
    '{"k": [{"j": 1}, {"j": 01}]}',
]


@pytest.mark.parametrize("value", MALFORMED_VALUES)
def test_a_malformed_value_fails_its_line_whether_read_or_skipped(tmp_path, value):
    """Text json.loads refuses fails its line, also in a field the projection skips: skipping
    validates, so the projection never decides whether a line is JSON."""
    line = '{"b": 2, "a": ' + value + "}"
    with pytest.raises(ValueError):
        json.loads(line)
    path = tmp_path / "m.json"
    write_lines(path, ['{"b": 1}', line, '{"b": 3}'])
    for columns in (None, ["b"]):
        with pytest.raises(bl.InputError, match=r"line 2, column \d+: (malformed JSON|invalid)"):
            list(bl.Scan(path, columns=columns))
        scan = bl.Scan(path, columns=columns, on_error="skip")
        assert data_table(scan).column("b").to_pylist() == [1, 3]


def _nan_aware(value):
    """`value` with every NaN as the string "NaN" (NaN equals nothing, itself included)."""
    if isinstance(value, dict):
        return {k: _nan_aware(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_nan_aware(v) for v in value]
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    return value


@pytest.mark.parametrize("one_pass", [True, False])
@given(
    rows=st.lists(
        st.fixed_dictionaries(
            {
                "f": st.floats(),
                "l": st.lists(st.floats(), max_size=3),
                "m": st.fixed_dictionaries({"x": st.floats(), "s": st.sampled_from(["NaN", "x"])}),
                "i": st.integers(-5, 5),
            }
        ),
        min_size=1,
        max_size=10,
    )
)
def test_non_numeric_numbers_read_as_json_loads_reads_them(tmp_path_factory, one_pass, rows):
    """`NaN`, `Infinity` and `-Infinity`, which Python's json.dumps writes for such floats
    and Spark's JSON reader reads (`allowNonNumericNumbers`), are floats: discovered, in a
    given schema, in structs and lists, on either path; the text "NaN" in a string stays
    one; the lines a projection skips read too."""
    path = tmp_path_factory.mktemp("nan") / "n.json"
    write_lines(path, [json.dumps(r) for r in rows])
    want = [json.loads(line) for line in path.read_text().splitlines()]
    reader = bl.FileReader(str(path), one_pass=one_pass)
    batches = []
    read_to_end(reader, bl.ResultSetLoader(), batches)
    got = pa.Table.from_batches(batches)
    assert got.column("f").type == pa.float64()
    assert _nan_aware(got.to_pylist()) == _nan_aware(want)
    narrow = data_table(bl.Scan(path, columns=["i"]))
    assert narrow.column("i").to_pylist() == [r["i"] for r in rows]


@pytest.mark.parametrize("one_pass", [True, False])
def test_every_non_numeric_spelling_spark_takes(tmp_path, one_pass):
    """Spark's reader takes `+Infinity`, `+INF` and `-INF` too (Python's json does not):
    the same floats, in a new column, a given one, a list and a skipped field."""
    tokens = {"NaN": math.nan, "Infinity": math.inf, "+Infinity": math.inf, "+INF": math.inf}
    tokens |= {"-Infinity": -math.inf, "-INF": -math.inf}
    path = tmp_path / "n.json"
    write_lines(path, [f'{{"x": {t}, "l": [{t}, 1.5], "skip": {t}}}' for t in tokens])
    want = [{"x": v, "l": [v, 1.5]} for v in tokens.values()]
    reader = bl.FileReader(str(path), one_pass=one_pass)
    loader = bl.ResultSetLoader(projection=["x", "l"])
    batches = []
    read_to_end(reader, loader, batches)
    assert _nan_aware(pa.Table.from_batches(batches).to_pylist()) == _nan_aware(want)


def test_non_numeric_numbers_in_other_columns(tmp_path):
    """A string column takes the token's text (as Spark's reader does), a float32 column the
    float; an integer or decimal column refuses it as any float."""
    path = tmp_path / "n.json"
    write_lines(path, ['{"s": NaN, "f": -Infinity, "i": 1}', '{"s": "x", "f": 2.5, "i": NaN}'])
    schema = pa.schema([("s", pa.utf8()), ("f", pa.float32())])
    got = data_table(bl.Scan(path, columns=["s", "f"], schema=schema))
    assert got.to_pylist() == [{"s": "NaN", "f": float("-inf")}, {"s": "x", "f": 2.5}]
    for t in (pa.int64(), pa.decimal128(5, 1)):
        with pytest.raises(bl.InputError, match=r"line 1, column \d+: .*'f'"):
            list(bl.Scan(path, columns=["f"], schema=pa.schema([("f", t)])))
    scan = bl.Scan(path, columns=["i"], schema=pa.schema([("i", pa.int64())]), on_error="skip")
    assert data_table(scan).column("i").to_pylist() == [1] and scan.skipped_lines == 1


def test_non_numeric_numbers_in_float_columns_take_the_one_pass_path(tmp_path):
    """In a float64 or float32 column, kept or skipped, a line with them is read in one
    pass, and as the general path reads it."""
    path = tmp_path / "n.json"
    lines = ['{"x": NaN, "y": [Infinity, 1.5]}', '{"x": -Infinity, "y": [-Infinity]}']
    write_lines(path, lines)
    schema = pa.schema([("x", pa.float64()), ("y", pa.list_(pa.float32()))])
    want = [{"x": math.nan, "y": [math.inf, 1.5]}, {"x": -math.inf, "y": [-math.inf]}]
    plain = tmp_path / "plain.json"  # the same lines with numbers: the lines one pass reads
    write_lines(plain, [re.sub(r"-?(NaN|Infinity)", "1.0", line) for line in lines])

    def read(p, projection, one_pass):
        loader = bl.ResultSetLoader(schema, projection=projection)
        reader = bl.FileReader(str(p), discover=False, one_pass=one_pass)
        batches = []
        read_to_end(reader, loader, batches)
        return pa.Table.from_batches(batches).to_pylist(), reader.one_pass_lines

    for projection in (None, ["x"]):
        for one_pass in (True, False):
            got, one_pass_lines = read(path, projection, one_pass)
            kept = [
                {k: v for k, v in r.items() if projection is None or k in projection} for r in want
            ]
            assert _nan_aware(got) == _nan_aware(kept), (projection, one_pass)
            assert one_pass_lines == read(plain, projection, one_pass)[1]
            assert (one_pass_lines > 0) == one_pass


def test_number_literals_read_as_json_loads_reads_them(tmp_path):
    """`-0` is the integer 0: it neither widens an int column nor fails an int32 one, and a
    column it starts is int64, as json.loads and pyarrow have it. In a float column a
    negative zero stays -0.0."""
    lines = ['{"i": 5, "f": 1.5}', '{"i": -0, "f": -0.0, "z": -0}', '{"i": 7, "f": -0, "z": 2}']
    path = tmp_path / "n.json"
    write_lines(path, lines)
    schema = pa.schema([("i", pa.int64()), ("f", pa.float64()), ("z", pa.int64())])
    want = pa.Table.from_pylist([json.loads(line) for line in lines], schema=schema)
    got = data_table(bl.Scan(path))
    assert got.schema == schema and got.to_pylist() == want.to_pylist()
    assert math.copysign(1, got.column("f")[1].as_py()) == -1.0
    narrow = data_table(bl.Scan(path, columns=["i"], schema=pa.schema([("i", pa.int32())])))
    assert narrow.column("i").to_pylist() == [5, 0, 7]


@pytest.mark.parametrize("big", [2**63, 2**64 - 1, 2**64, -(2**63) - 1, 10**30])
@pytest.mark.parametrize("first", [True, False])
def test_integers_past_int64_widen_a_discovered_column_alike(tmp_path, big, first):
    """Any integer past int64, whether uint64 holds it or not, makes a discovered column (or
    list element) float64, as json.loads' value converted by pyarrow; a declared column
    converts it exactly (uint64, decimal) or says it is out of range (int64)."""
    lines = [f'{{"a": {big}, "l": [{big}]}}', '{"a": 1, "l": [1]}']
    if not first:
        lines.reverse()
    path = tmp_path / "big.json"
    write_lines(path, lines)
    got = data_table(bl.Scan(path))
    schema = pa.schema([("a", pa.float64()), ("l", pa.list_(pa.float64()))])
    rows = [json.loads(line, parse_int=float) for line in lines]
    want = pa.Table.from_pylist(rows, schema=schema)
    assert got.schema == schema and got.to_pylist() == want.to_pylist()
    if 0 <= big < 2**64:
        exact = data_table(bl.Scan(path, columns=["a"], schema=pa.schema([("a", pa.uint64())])))
        assert sorted(exact.column("a").to_pylist()) == [1, big]
    refused = r"line \d+, column \d+: column 'a': .*(out of range|does not fit) .*Int64"
    with pytest.raises(bl.InputError, match=refused):
        list(bl.Scan(path, columns=["a"], schema=pa.schema([("a", pa.int64())])))


@pytest.mark.parametrize("mode", ["error", "skip", "permissive"])
def test_a_key_holding_nul_is_bad_input_not_a_broken_batch(tmp_path, mode):
    """JSON allows "\u0000" in a key; Arrow's C data interface (names are C strings) does
    not: the line that would add such a column (or member) is bad input, and the others
    read on."""
    lines = [
        '{"a": 1}',
        '{"a": 2, "m": {"\\u0000x": 1}}',
        '{"a": 3, "\\u0000": 5}',
        '{"a": 5, "n": {"\\u0000": null}}',  # a null leaves the column to the batch's end
        '{"a": 4}',
    ]
    path = tmp_path / "nul.json"
    write_lines(path, lines)
    scan = bl.Scan(path, on_error=mode)
    if mode == "error":
        with pytest.raises(bl.InputError, match=r"line 2, .*column \"m.\\0x\" has a NUL"):
            list(scan)
        return
    got = data_table(scan)
    assert "a" in got.column_names and not {"m", "n"} & set(got.column_names)
    if mode == "skip":
        assert got.column("a").to_pylist() == [1, 4] and scan.skipped_lines == 3
    else:
        assert got.column("_corrupt_record").to_pylist() == [None, *lines[1:4], None]


def test_a_number_beyond_float64_is_an_error_naming_the_line(tmp_path):
    """`1e400` has no float64 (pyarrow refuses it too; Python would make it inf)."""
    path = tmp_path / "big.json"
    write_lines(path, ['{"f": 1.5}', '{"f": 1e400}'])
    with pytest.raises(bl.InputError, match=r"line 2, column \d+: malformed JSON: number out"):
        list(bl.Scan(path))


def nested(kind, levels):
    """A JSON value nesting `levels` arrays or objects."""
    if kind == "list":
        return "[" * levels + "]" * levels
    return '{"a": ' * (levels - 1) + "{}" + "}" * (levels - 1)


@pytest.mark.parametrize("kind", ["list", "struct"])
def test_nesting_up_to_the_limit_reaches_pyarrow(tmp_path, kind):
    """62 levels below the row object cross to pyarrow (which imports 64 levels of types); one
    more is a clear error naming the line, not pyarrow's failure at export."""
    path = tmp_path / "deep.json"
    write_lines(path, ['{"a": ' + nested(kind, 62) + "}"])
    value = json.loads(path.read_text())
    assert data_table(bl.Scan(path)).to_pylist() == [value]
    write_lines(path, ['{"a": ' + nested(kind, 63) + "}"])
    with pytest.raises(bl.InputError, match=r"line 1, column \d+: .*nest too deep"):
        list(bl.Scan(path))


def test_nesting_depth_is_bounded_with_a_clear_error(tmp_path):
    """Nesting beyond the limit is an error naming the line, however deep (no stack overflow);
    the lines around it stay. A value the projection skips is walked without recursion, so
    any depth of it is read past (and validated)."""
    ok = '{"b": 1, "a": ' + "[" * 40 + "]" * 40 + "}"
    deep = '{"b": 2, "a": ' + "[" * 100_000 + "]" * 100_000 + "}"
    path = tmp_path / "deep.json"
    write_lines(path, [ok, deep, '{"b": 3}'])
    with pytest.raises(bl.InputError, match=r"line 2, column \d+: .*nest too deep"):
        list(bl.Scan(path))
    scan = bl.Scan(path, on_error="skip")
    assert data_table(scan).column("b").to_pylist() == [1, 3]
    assert scan.skipped_lines == 1
    assert data_table(bl.Scan(path, columns=["b"])).column("b").to_pylist() == [1, 2, 3]
    write_lines(path, ['{"b": 1, "a": ' + "[" * 100_000 + "]" * 99_999 + "}"])
    with pytest.raises(bl.InputError, match=r"line 1, column \d+: malformed JSON"):
        list(bl.Scan(path, columns=["b"]))


@pytest.mark.parametrize("escape", ["\\ud800", "\\udc00", "\\ud800\\u0041", "\\ud800x"])
def test_half_a_surrogate_pair_is_named_as_such(tmp_path, escape):
    """json.loads takes a lone surrogate; UTF-8 cannot hold one: the line fails, saying why."""
    path = tmp_path / "s.json"
    write_lines(path, ['{"s": "a' + escape + 'b"}'])
    with pytest.raises(bl.InputError, match=r"line 1, column \d+: .*half of a surrogate pair"):
        list(bl.Scan(path))
    write_lines(path, ['{"s": "\\ud83d\\ude00"}'])  # a whole pair is a character
    assert data_table(bl.Scan(path)).column("s").to_pylist() == ["\U0001f600"]


@pytest.mark.parametrize(
    ("first", "then", "says"),
    [
        ('{"m": {"x": 1}}', '{"m": "s"}', r"column 'm' \(Struct\(.*\)\) cannot take a string"),
        ('{"m": {"x": 1}}', '{"m": 2.5}', r"column 'm' \(Struct\(.*\)\) cannot take a number"),
        ('{"l": [1]}', '{"l": true}', r"column 'l' \(List\(.*\)\) cannot take a boolean"),
        ('{"l": [1]}', '{"l": 7}', r"column 'l' \(List\(.*\)\) cannot take a number"),
        ('{"a": 1}', '{"a": {"x": 1}}', r"column 'a' \(Int64\) cannot take an object"),
        ('{"a": 1}', '{"a": [1]}', r"column 'a' \(Int64\) cannot take an array"),
    ],
)
def test_a_value_of_another_shape_names_the_column_and_what_it_met(tmp_path, first, then, says):
    path = tmp_path / "shape.json"
    write_lines(path, [first, then, first])
    with pytest.raises(bl.InputError, match=r"line 2, column \d+: " + says):
        list(bl.Scan(path))
    scan = bl.Scan(path, on_error="skip")
    assert data_table(scan).num_rows == 2 and scan.skipped_lines == 1


@pytest.mark.parametrize(
    ("lines", "schema", "why"),
    [
        (['{"a": 1}', '{"a": "x"}'], None, "earlier lines typed it: for values of mixed types"),
        (['{"b": 1}', '{"a": [1, "x"]}'], None, "an earlier value in this line typed it: "),
        (['{"a": 1}', '{"a": 1, "A": 2}'], None, None),
        (['{"a": {"b": 1}}', '{"a": {"b": 1, "B": 2}}'], None, None),
        (['{"a": 1}', '{"a": 1, "A": [1]}'], None, None),
        (['{"a": 1}', '{"a": null, "A": {"b": 1}}'], None, None),
        (['{"a": {"b": 1}}', '{"a": {"b": 2, "B": [1]}}'], None, None),
        (['{"a": 1}', '{"a": "x"}'], pa.schema([("a", pa.int64())]), None),
    ],
)
def test_a_type_conflict_says_what_typed_the_column(tmp_path, lines, schema, why):
    """A value that does not fit a column discovery typed is told what typed it (earlier
    lines, or an earlier value of its own line) and how to take mixed types; a column given
    twice (said as such, whatever the second value's type) or declared in the schema gets no
    such advice: no type would help."""
    path = tmp_path / "t.json"
    write_lines(path, lines)
    with pytest.raises(bl.InputError) as e:
        list(bl.Scan(path, schema=schema))
    assert e.value.line == 2
    if why is None:
        assert "typed it" not in e.value.reason and "mixed types" not in e.value.reason
        # a second key for a column is that, whatever the second value's type
        assert schema is not None or "given twice" in e.value.reason, e.value.reason
    else:
        assert why in e.value.reason, e.value.reason
        assert "string type in the scan's schema" in e.value.reason


def test_invalid_utf8_is_its_own_error(tmp_path):
    path = tmp_path / "u.json"
    path.write_bytes(b'{"s": "ok"}\n{"s": "\xff\xfe"}\n')
    with pytest.raises(bl.InputError, match=r"line 2, column 8: invalid UTF-8 at byte 8"):
        list(bl.Scan(path))


@pytest.mark.parametrize(
    "line", ['{"a": 2, "b": }', '{"a":', '{"a": 1} x', "[" * 70 + "]" * 70, '{"a": 1e999}']
)
def test_a_syntax_error_names_its_place_once(tmp_path, line):
    """The file's line and byte column say where; the reason does not repeat serde's own
    position within the line ("at line 1 column 5"), which would contradict them."""
    path = tmp_path / "bad.json"
    write_lines(path, [GOOD, GOOD, line])
    with pytest.raises(bl.InputError) as caught:
        list(bl.Scan(path))
    e = caught.value
    assert e.line == 3 and e.column is not None
    assert " at line " not in e.reason and " column " not in e.reason, e.reason


def test_an_input_error_carries_its_place_as_attributes(tmp_path):
    """Code that handles bad input need not parse the message: the file, line, byte column,
    reason and excerpt are attributes, and survive pickling (as across processes)."""
    path = tmp_path / "bad.json"
    write_lines(path, [GOOD, BAD, GOOD])
    with pytest.raises(bl.InputError) as caught:
        list(bl.Scan(path))
    e = caught.value
    assert (e.path, e.line) == (str(path), 2)
    assert BAD[e.column - 1 :].startswith("}")  # the byte column points at the bad token
    assert e.reason.startswith("malformed JSON") and e.reason in str(e)
    assert e.excerpt and e.excerpt in BAD
    copy = pickle.loads(pickle.dumps(e))
    assert (copy.path, copy.line, copy.column, copy.reason, str(copy)) == (
        e.path,
        e.line,
        e.column,
        e.reason,
        str(e),
    )
    # also in a field the projection skips: the line is not JSON text
    path.write_bytes(b'{"a": 1, "s": "ok"}\n{"a": 2, "s": "\xff"}\n')
    with pytest.raises(bl.InputError, match=r"line 2, column 16: invalid UTF-8"):
        list(bl.Scan(path, columns=["a"]))
    skipped = bl.Scan(path, columns=["a"], on_error="skip")
    assert [b.to_pylist() for b in skipped] == [[{"a": 1}]] and skipped.skipped_lines == 1


def test_line_longer_than_the_batch_limit(tmp_path):
    path = tmp_path / "long.json"
    write_lines(path, [json.dumps({"s": "x" * 10}), json.dumps({"s": "y" * 5000})])
    says = r"line 2, column \d+: the record is larger than the batch limits"
    with pytest.raises(bl.InputError, match=says):
        list(bl.Scan(path, vector_byte_limit=1000))


@pytest.mark.parametrize("on_error", ["error", "skip", "permissive"])
@pytest.mark.parametrize("one_pass", [True, False])
def test_truncated_gzip(tmp_path, on_error, one_pass):
    """A file that cannot be read to its end is an error whatever `on_error` says (it is not
    a bad line), on either path: the read fails while a line's end is looked for."""
    path = tmp_path / "t.json.gz"
    write_lines(path, [json.dumps({"a": i, "b": "x" * (i % 50)}) for i in range(20_000)], gzip.open)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    batches, error, skipped, _ = _read_with(path, None, True, one_pass, on_error, {})
    assert re.search(r"t\.json\.gz, line \d+: the file is truncated", error or ""), error
    assert skipped == 0
    assert sum(b.num_rows for b in batches) < 20_000
    with pytest.raises(bl.InputError, match="truncated"):
        list(bl.Scan(path, on_error=on_error))


@pytest.mark.parametrize("coalesce", [True, False])
def test_a_truncated_file_hands_out_every_whole_line_before_its_error(tmp_path, coalesce):
    """What a truncated gzip file still holds is read: every whole line zlib can decompress
    is a row handed out before the error, in order, once."""
    path = tmp_path / "t.json.gz"
    write_lines(path, [json.dumps({"a": i, "b": "x" * (i % 50)}) for i in range(20_000)], gzip.open)
    data = path.read_bytes()[: len(path.read_bytes()) // 2]
    path.write_bytes(data)
    text = zlib.decompressobj(wbits=31).decompress(data)
    whole = [json.loads(line)["a"] for line in text[: text.rindex(b"\n")].splitlines()]
    got: list[int] = []
    with pytest.raises(bl.InputError, match="truncated"):
        for batch in bl.Scan(path, coalesce=coalesce, row_limit=3000, columns=["a"]):
            got.extend(batch.column("a").to_pylist())
    assert got == whole


@pytest.mark.parametrize("codec", ["gzip", "zstd"])
def test_compressed_inputs(tmp_path, codec):
    suffix = {"gzip": "gz", "zstd": "zst"}[codec]
    path = tmp_path / f"c.json.{suffix}"
    with pa.CompressedOutputStream(str(path), codec) as out:
        out.write(("\n".join([GOOD] * 50) + "\n").encode())
    table = data_table(bl.Scan(f"file://{path}"))
    assert table.num_rows == 50
    assert table.column("a").to_pylist() == [1] * 50


def test_empty_file_and_blank_lines(tmp_path):
    (tmp_path / "empty.json").write_text("")
    (tmp_path / "blank.json").write_text("\n  \n\r\n\t\n")
    scan = bl.Scan(tmp_path)
    assert list(scan) == []
    assert scan.files_read == 2


@pytest.mark.parametrize("codec", [None, "gzip"])
def test_a_byte_order_mark_and_crlf_lines_read_as_pyarrow_reads_them(tmp_path, codec):
    """Files saved by Windows tools start with a UTF-8 BOM and end lines with CRLF; the last
    line may lack its line break. Only the file's first line can carry the BOM."""
    text = '\ufeff{"a": 1, "s": "x"}\r\n{"a": 2, "s": "\ufeffy"}\r\n\r\n  \n{"a": 3}'
    path = tmp_path / ("bom.json" + (".gz" if codec else ""))
    path.write_bytes(gzip.compress(text.encode()) if codec else text.encode())
    table = data_table(bl.Scan(path))
    assert table.to_pylist() == pj.read_json(path).to_pylist()
    assert table.column("s").to_pylist() == ["x", "\ufeffy", None]  # a BOM inside is data


def test_a_byte_order_mark_in_any_split(tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes('\ufeff{"i": 0}\n{"i": 1}\n{"i": 2}\n'.encode())
    size = path.stat().st_size
    for cut in range(1, size):
        parts = [bl.Scan(path, columns=["i"], byte_range=r) for r in ((0, cut), (cut, size))]
        assert [v for scan in parts for b in scan for v in b.column("i").to_pylist()] == [0, 1, 2]


def test_a_file_bigger_than_one_batch_keeps_every_row_once(tmp_path):
    rows = [{"i": i, "s": "v" * (i % 50)} for i in range(20_000)]
    path = tmp_path / "big.json"
    write_lines(path, [json.dumps(r) for r in rows])
    scan = bl.Scan(path, columns=["i", "s"], batch_byte_limit=50_000)
    batches = list(scan)
    assert len(batches) > 10
    assert pa.Table.from_batches(batches).to_pylist() == rows


def test_int_then_float_widens_within_a_file(tmp_path):
    path = tmp_path / "w.json"
    write_lines(path, ['{"x": 1}', '{"x": 2.5}', '{"x": 3}'])
    got = data_table(bl.Scan(path))
    assert got.column("x").to_pylist() == [1.0, 2.5, 3.0]
    assert got.schema.field("x").type == pa.float64()
    assert not math.isnan(got.column("x")[0].as_py())


def test_a_field_seen_only_as_null_takes_the_null_type(tmp_path):
    path = tmp_path / "n.json"
    write_lines(
        path,
        ['{"a": 1, "z": null, "m": {"q": null}}', '{"a": 2, "late": null}', '{"a": 3, "late": 7}'],
    )
    got = data_table(bl.Scan(path))
    assert got.schema.field("z").type == pa.utf8()
    assert got.schema.field("m").type == pa.struct([("q", pa.utf8())])
    assert got.schema.field("late").type == pa.int64()  # a real value came in time
    assert got.column("z").to_pylist() == [None, None, None]
    assert got.column("late").to_pylist() == [None, None, 7]


def test_a_value_after_a_batch_of_nulls_is_kept_as_its_json_text(tmp_path, caplog):
    """A column null in the whole first batch goes out as utf8 (a guess); that batch fixes
    the schema, so a later value of another type is kept as its JSON text, as the line has
    it, rather than refused (Drill's JSON reader does the same)."""
    path = tmp_path / "n.json"
    values = ["1.5", "true", '{"k": [1, "z"]}', '"s"', "null", "-0", "1E+400", '["\\u00e9"]']
    write_lines(
        path,
        [f'{{"a": {i}, "x": null}}' for i in range(2)]
        + [
            f'{{"a": {i + 2}, "x": {v}}}'
            for i, v in enumerate(values * 2)  # the one-pass path too
        ],
    )
    scan = bl.Scan(path, row_limit=2)
    with caplog.at_level(logging.WARNING, logger="batchloader"):
        got = data_table(scan)
    assert got.schema.field("x").type == pa.utf8()
    texts = ["1.5", "true", '{"k": [1, "z"]}', "s", None, "-0", "1E+400", '["\\u00e9"]']
    assert got.column("x").to_pylist() == [None, None, *texts, *texts]
    # said once, with the file, and counted
    assert scan.text_kept == {"x": 12}
    said = [r.getMessage() for r in caplog.records if "by a guess" in r.getMessage()]
    assert len(said) == 1 and "'x'" in said[0] and str(path) in said[0], said
    # while types may change, the next batch types the column by its value instead
    batches = list(bl.Scan(path, row_limit=2, allow_schema_change=True, limit=3))
    assert batches[1].schema.field("x").type == pa.float64()


def test_values_kept_as_text_in_later_files_are_said_once_at_the_scans_end(tmp_path, caplog):
    """The first file that keeps values of another type as text in a guessed column says
    so; the files after it are said in one line at the scan's end (as ignored columns
    are), with their values and the last of them; `scan.text_kept` counts them all."""
    write_lines(tmp_path / "1.json", ['{"x": null}'])
    write_lines(tmp_path / "2.json", ['{"x": 5}', '{"x": "s"}'])
    write_lines(tmp_path / "3.json", ['{"x": [1]}', '{"x": true}'])
    write_lines(tmp_path / "4.json", ['{"x": {}}'])
    with caplog.at_level(logging.WARNING, logger="batchloader"):
        scan = bl.Scan(tmp_path, row_limit=1, coalesce=False)
        assert data_table(scan).column("x").to_pylist() == [None, "5", "s", "[1]", "true", "{}"]
    said = [r.getMessage() for r in caplog.records if "'x'" in r.getMessage()]
    assert len(said) == 2, said
    assert "1 value(s) of another type in file" in said[0] and "2.json" in said[0]
    assert said[1] == (
        "column 'x': 3 more value(s) of another type kept as JSON text in 2 more file(s) "
        f"(the last: {tmp_path / '4.json'})"
    )
    assert scan.text_kept == {"x": 4}


def test_whole_numbers_past_int64_rounded_to_float64_are_said_and_counted(tmp_path, caplog):
    """A whole number past int64 (a uint64 id or hash) in a column the data types makes it
    float64 (pyarrow.json's rule), whose 53-bit mantissa loses digits of it: said for the
    first file, the later files at the scan's end, counted in `scan.wholes_rounded`; 2^63,
    which a float64 holds exactly, is not; a type in schema= keeps every digit."""
    big = 12345678901234567891
    write_lines(tmp_path / "1.json", [json.dumps({"id": 1}), json.dumps({"id": big})])
    write_lines(tmp_path / "2.json", [json.dumps({"id": big + 2}), json.dumps({"id": 2**63})])
    write_lines(tmp_path / "3.json", [json.dumps({"id": 2**64 - 1})])
    with caplog.at_level(logging.WARNING, logger="batchloader"):
        scan = bl.Scan(tmp_path, coalesce=False)
        got = data_table(scan).column("id")
    assert got.type == pa.float64()
    assert got.to_pylist() == [1.0, float(big), float(big + 2), 2.0**63, 2.0**64]
    assert scan.wholes_rounded == {"id": 3}
    said = [r.getMessage() for r in caplog.records if "past int64" in r.getMessage()]
    assert len(said) == 2, said
    assert "1 whole number(s) past int64 in file" in said[0] and "1.json" in said[0]
    assert said[0].endswith(
        "(give it a type in schema= that keeps them: uint64, decimal128(20, 0) or string)"
    )
    assert said[1] == (
        "column 'id': 2 more whole number(s) past int64 rounded to float64 in 2 more "
        f"file(s) (the last: {tmp_path / '3.json'})"
    )
    kept = bl.Scan(tmp_path, schema=pa.schema([("id", pa.uint64())]))
    assert data_table(kept).column("id").to_pylist() == [1, big, big + 2, 2**63, 2**64 - 1]
    assert kept.wholes_rounded == {}


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=6,
)


def _kept_text(value):
    """What a utf8 column that takes any JSON value keeps of `value` written by json.dumps:
    a string itself, null as null, anything else its JSON text."""
    return value if value is None or isinstance(value, str) else json.dumps(value)


@given(
    values=st.lists(json_values, min_size=1, max_size=8),
    split=st.sampled_from(["one file", "two files", "a file each"]),
    coalesce=st.booleans(),
    wildcard=st.booleans(),
)
@settings(deadline=None)
def test_types_guessed_by_the_first_batch_keep_later_values_as_their_json_text(
    tmp_path_factory, values, split, coalesce, wildcard
):
    """A column null in the whole first batch, a struct member likewise, a list only empty,
    and (by projection) a column no row had: their types are guesses (utf8, list<utf8>),
    which that batch fixes. Any later value, in the same file or a later one, shared batch
    or not, is kept as its JSON text (a string as itself), on the one-pass path and the
    general one alike: nothing is refused, nothing lost (Drill's `unknownsAsJson`)."""
    nulls = [{"id": i, "x": None, "m": {"x": None}, "l": []} for i in range(2)]
    later = [{"id": 2 + i, "x": v, "m": {"x": v}, "l": [v, v]} for i, v in enumerate(values)]
    if not wildcard:
        for row in later:
            row["y"] = row["x"]  # projected, a column no row of the first batch had
    folder = tmp_path_factory.mktemp("guesses")
    parts = {"one file": [nulls + later], "two files": [nulls, later]}.get(
        split, [nulls, *([r] for r in later)]
    )
    for k, rows in enumerate(parts):
        write_lines(folder / f"{k:03}.json", [json.dumps(r) for r in rows])
    columns = None if wildcard else ["id", "x", "m", "l", "y"]
    scan = bl.Scan(folder, row_limit=2, coalesce=coalesce, columns=columns)
    got = data_table(scan)
    texts = [_kept_text(v) for v in values]
    # every value kept as text is counted, once, by column
    n = sum(v is not None and not isinstance(v, str) for v in values)
    counts = {"x": n, "m.x": n, "l[]": 2 * n} | ({} if wildcard else {"y": n})
    assert scan.text_kept == {path: k for path, k in counts.items() if k}
    assert got.column("x").to_pylist() == [None, None, *texts]
    assert got.column("m").to_pylist() == [{"x": None}] * 2 + [{"x": t} for t in texts]
    assert got.column("l").to_pylist() == [[], [], *([t, t] for t in texts)]
    assert got.schema.field("l").type == pa.list_(pa.utf8())
    if not wildcard:
        assert got.column("y").to_pylist() == [None, None, *texts]


@given(
    nulls=st.integers(1, 12),
    values=st.lists(json_values, min_size=1, max_size=6),
    pads=st.lists(st.integers(0, 120), min_size=18, max_size=18),
    limit=st.integers(300, 2500),
    wildcard=st.booleans(),
    absent=st.booleans(),
)
@settings(deadline=None)
def test_where_a_byte_limit_ends_the_first_batch_no_value_after_it_is_lost(
    tmp_path_factory, nulls, values, pads, limit, wildcard, absent
):
    """Rows of random sizes, `y` null in (or missing from) the first ones, then random JSON
    values (objects and lists that make new columns included), read with a random byte
    limit: when the first batch ends before the first value, `y` is a guess that batch
    fixed, and every later value is kept as its JSON text, in every row, once; whichever
    row overflowed (the one that brings the first value, or any other, even one that then
    fails on a type its own values gave a column). The first value fails a read only where
    it fails alone too (a list of mixed types, in a row that did not overflow)."""
    rows = [{"a": i, "s": "x" * pads[i]} | ({} if absent else {"y": None}) for i in range(nulls)]
    rows += [{"a": nulls + i, "s": "x" * pads[nulls + i], "y": v} for i, v in enumerate(values)]
    path = tmp_path_factory.mktemp("first") / "o.json"
    write_lines(path, [json.dumps(r) for r in rows])
    columns = None if wildcard else ["a", "s", "y"]
    scan = bl.Scan(path, columns=columns, batch_byte_limit=limit, coalesce=False)
    batches: list[pa.RecordBatch] = []
    try:
        batches.extend(scan)
    except (bl.InputError, bl.SchemaConflictError) as e:
        if "cannot fit even an empty batch" in str(e):
            event("a row larger than the limit")
            return
        if batches and batches[0].num_rows > nulls:
            event("a value in the first batch types the column; a later one conflicts")
            return
        # The first batch ended before the first value (or was handed out as the error
        # came): `y` is a guess that takes any value as text, so only the first value may
        # fail, and only where it fails alone too (a list of mixed types in a row that had
        # not overflowed types the column with its own values).
        assert isinstance(e, bl.InputError) and e.line == nulls + 1, e
        event("the first value fails on its own")
        alone = path.with_name("alone.json")
        write_lines(alone, [json.dumps({"y": values[0]})])
        with pytest.raises(bl.InputError):
            list(bl.Scan(alone))
        return
    if batches[0].num_rows > nulls or (wildcard and absent):
        event("the first batch holds a value, or leaves out a column first seen after it")
        return
    event("the first batch ends before the first value")
    got = pa.Table.from_batches(batches)
    assert got.column("a").to_pylist() == list(range(len(rows)))
    texts = [_kept_text(v) for v in values]
    assert got.column("y").to_pylist() == [None] * nulls + texts
    kept = sum(v is not None and not isinstance(v, str) for v in values)
    assert scan.text_kept == ({"y": kept} if kept else {})


@pytest.mark.parametrize("multiline", [False, True], ids=["lines", "documents"])
@pytest.mark.parametrize("first", ["null", "absent"])
@pytest.mark.parametrize("columns", [None, ["a", "s", "y"]], ids=["wildcard", "projection"])
def test_the_first_value_in_the_row_that_overflows_the_first_batch_is_kept(
    tmp_path, first, columns, multiline
):
    """A field null in (or missing from) every row of the first batch, whose first value
    comes in the row that overflows that batch: the batch is handed out with the field
    (its type a guess, or invented for the projection), the row is read again at the start
    of the next batch, and its value is kept as text there, as it would be had the batch
    ended by its row count. (The field went missing from a wildcard scan, and a projection
    refused the row as a type change.) Every byte limit that ends the first batch before
    that row is tried; with it inside, the value types the field."""
    y = {"null": {"y": None}, "absent": {}}[first]
    rows = [{"a": i, "s": "x" * 40} | y for i in range(12)]
    rows += [{"a": 12, "s": "x" * 40, "y": 5}, {"a": 13, "y": {"k": [1]}}]
    path = tmp_path / "o.json"
    if multiline:
        path.write_text(json.dumps(rows, indent=1))
    else:
        write_lines(path, [json.dumps(r) for r in rows])
    tried = 0
    for limit in range(300, 3000, 11):
        scan = bl.Scan(path, columns=columns, batch_byte_limit=limit, multiline=multiline)
        batches = iter(scan)
        head = next(batches)
        if head.num_rows > 12:
            continue  # the value is in the first batch: it types the column
        tried += 1
        table = pa.Table.from_batches([head, *batches])
        if columns is None and first == "absent":
            # a column first seen after the first batch is left out (with a warning)
            assert "y" not in scan.schema.names and table.num_rows == 14
            continue
        got = table.select(["a", "y"]).to_pylist()
        assert [r["a"] for r in got] == list(range(14)), limit
        assert [r["y"] for r in got][:13] == [None] * 12 + ["5"], limit
        assert json.loads(got[13]["y"]) == {"k": [1]}, limit  # documents: breaks as spaces
        assert scan.text_kept == {"y": 2}, limit
    assert tried > 20


def test_with_schema_changes_allowed_a_batch_of_nulls_leaves_the_type_open(tmp_path):
    """A column null in a whole batch goes out with the null type; with schema changes
    allowed, a value in a later batch of the same file types it (top-level and member)
    instead of being bad input."""
    path = tmp_path / "n.json"
    rows = [
        {"a": 1, "x": None, "s": {"q": None}},
        {"a": 2, "x": None, "s": {"q": None}},
        {"a": 3, "x": 1.5, "s": {"q": 7}},
        {"a": 4, "x": None, "s": {"q": None}},
    ]
    write_lines(path, [json.dumps(r) for r in rows])
    batches = list(bl.Scan(path, row_limit=2, allow_schema_change=True))
    first, second = (b.select(["a", "x", "s"]) for b in batches)
    assert first.schema.field("x").type == pa.utf8()
    assert first.schema.field("s").type == pa.struct([("q", pa.utf8())])
    assert second.schema.field("x").type == pa.float64()
    assert second.schema.field("s").type == pa.struct([("q", pa.int64())])
    assert first.to_pylist() + second.to_pylist() == rows


number_or_null = st.one_of(st.none(), st.integers(-5, 5), st.floats(-5, 5, allow_nan=False))


@given(
    rows=st.lists(
        st.fixed_dictionaries(
            {},
            optional={
                "n": number_or_null,
                "t": st.one_of(st.none(), st.text(max_size=3)),
                "s": st.one_of(
                    st.none(),
                    # int64: one past it makes a new column double (tested above)
                    st.fixed_dictionaries(
                        {}, optional={"q": st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1))}
                    ),
                ),
            },
        ),
        min_size=1,
        max_size=12,
    ),
    row_limit=st.integers(1, 4),
    byte_limit=st.sampled_from([None, 300]),
)
@settings(max_examples=100, deadline=None)
def test_with_schema_changes_allowed_nulls_never_fix_a_type_within_a_file(
    tmp_path_factory, rows, row_limit, byte_limit
):
    """Whatever batches the nulls and values of a column fall in (a byte limit moves rows
    to the next batch half-written), a scan allowing schema changes reads every row as
    json.loads does (a missing field, or member, as null)."""
    path = tmp_path_factory.mktemp("n") / "n.json"
    write_lines(path, [json.dumps(r) for r in rows])
    limits = {"row_limit": row_limit} if byte_limit is None else {"batch_byte_limit": byte_limit}
    scan = bl.Scan(path, allow_schema_change=True, **limits)
    got = [r for b in scan for r in b.to_pylist()]
    names = [n for n in ("n", "t", "s") if any(n in r for r in rows)]
    members = any(isinstance(r.get("s"), dict) and "q" in r["s"] for r in rows)

    def filled(row):
        """The row with every column and member the file has: a batch before one's first
        appearance lacks it (the schema grows later), as JSON lines may."""
        out = {n: row.get(n) for n in names}
        if isinstance(out.get("s"), dict) and members:
            out["s"] = {"q": out["s"].get("q")}
        return out

    assert [filled(r) for r in got] == [filled(r) for r in rows]


# ------------------------------------------------------- failed lines leave no trace


@given(
    lines=st.lists(
        st.tuples(st.dictionaries(st.sampled_from("abcd"), loose_values, max_size=4), st.data()),
        min_size=1,
        max_size=12,
    ),
    broken=st.sets(st.integers(0, 11), max_size=4),
    row_limit=st.integers(1, 4),
    columns=st.sampled_from([None, ["a", "b"], ["a.x", "c"], ["b[1]", "d.y"]]),
)
@settings(max_examples=200, deadline=None)
def test_a_failed_line_changes_nothing_in_how_the_others_are_read(
    tmp_path_factory, lines, broken, row_limit, columns
):
    """A line cut short (malformed) is skipped, or kept in `_corrupt_record`, as if its
    fields had never been seen: no column it named, no type it gave a field or a list's
    elements, no int column it widened to float, stays behind to change how later lines
    read. The oracle is the same file
    without those lines. Keys and types vary freely, so good lines may conflict too: they
    must fail the same way in both reads."""
    texts, good = [], []
    for i, (row, data) in enumerate(lines):
        text = json.dumps(row)
        if i in broken:
            cut = data.draw(st.integers(1, len(text) - 1), label="cut")
            texts.append(text[:cut])
        else:
            texts.append(text)
            good.append(text)
    folder = tmp_path_factory.mktemp("failed")
    (folder / "all.json").write_text("\n".join(texts) + "\n")
    (folder / "good.json").write_text("\n".join(good) + "\n")
    cut_lines = len(texts) - len(good)

    def read(name, **options):
        """The table and the scan, or the error (a type change between batches fails the
        scan, not a line: then both reads must fail alike). A projection names
        `_corrupt_record` when the read keeps corrupt lines."""
        keep = ["_corrupt_record"] if options.get("on_error") == "permissive" else []
        projection = None if columns is None else columns + keep
        scan = bl.Scan(folder / name, columns=projection, **options)
        try:
            return data_table(scan), scan
        except bl.SchemaConflictError as e:
            return type(e), None

    want, want_scan = read("good.json", on_error="skip", row_limit=row_limit)
    got, got_scan = read("all.json", on_error="skip", row_limit=row_limit)
    if want_scan is None:
        assert got == want
        return
    assert got.schema == want.schema
    assert got.to_pylist() == want.to_pylist()
    assert got_scan.skipped_lines == want_scan.skipped_lines + cut_lines

    # one batch each: kept lines are rows, so batches would end elsewhere than in `want`
    want, _ = read("good.json", on_error="skip")
    _, skipping = read("all.json", on_error="skip")
    kept, _ = read("all.json", on_error="permissive")
    if skipping is None:  # `b[1]` on a column that turned out scalar fails the scan
        assert kept == want == bl.SchemaConflictError
        return
    corrupt = kept.column("_corrupt_record").to_pylist()
    assert sum(c is not None for c in corrupt) == skipping.skipped_lines
    rows = kept.filter(pc.is_null(kept.column("_corrupt_record")))
    rows = rows.drop_columns(["_corrupt_record"])
    assert rows.to_pylist() == want.to_pylist()
    if want.num_columns:  # else no good row made a batch: no schema to compare
        assert rows.schema == want.schema


def test_a_struct_without_members_keeps_its_length_in_later_batches(tmp_path):
    """`{}` gives a struct with no members; a later batch conformed to that schema still has
    one entry per row (an Arrow struct without children takes its length from its nulls)."""
    path = tmp_path / "e.json"
    write_lines(path, ['{"a": null, "c": {}}', '{"c": {"x": null}}'])
    got = data_table(bl.Scan(path, row_limit=1))
    assert got.to_pylist() == [{"c": {}, "a": None}, {"c": {}, "a": None}]


def test_a_failed_line_does_not_widen_an_int_column(tmp_path):
    """A float in a line that then fails does not leave its int64 column widened: the
    values stay exact (2**53 + 1 has no float64) and the column's type stays int64."""
    path = tmp_path / "w.json"
    write_lines(path, [f'{{"a": {2**53 + 1}}}', '{"a": 1.5, "b": 1', '{"a": 2}'])
    skipped = data_table(bl.Scan(path, on_error="skip"))
    assert skipped.schema == pa.schema([("a", pa.int64())])
    assert skipped.column("a").to_pylist() == [2**53 + 1, 2]
    kept = data_table(bl.Scan(path, on_error="permissive"))
    assert kept.schema.field("a").type == pa.int64()
    assert kept.column("a").to_pylist() == [2**53 + 1, None, 2]


def test_keys_cached_from_a_failed_line_are_forgotten_with_its_columns(tmp_path):
    """The failed line's second struct element caches its key (`x`) for the column the first
    one created; that column is forgotten, and a later line reuses the ids for columns of
    another type: the cached key must not lead there."""
    path = tmp_path / "k.json"
    write_lines(path, ['{"a": [{"x": 1}, {"x": 2}], "b', '{"a": [{"x": "s"}, {"x": "t"}]}'])
    got = data_table(bl.Scan(path, on_error="skip"))
    assert got.schema == pa.schema([("a", pa.list_(pa.struct([("x", pa.utf8())])))])
    assert got.to_pylist() == [{"a": [{"x": "s"}, {"x": "t"}]}]


def test_numbers_into_decimal_columns_keep_every_digit(tmp_path):
    """A JSON number read into a decimal column is read from its digits, not through a
    float: 12345678901234567.89 stays exact, as pyarrow.json reads it, in members, lists
    and map values alike."""
    schema = pa.schema(
        [
            ("m", pa.decimal128(20, 2)),
            ("b", pa.decimal128(38, 0)),
            ("e", pa.decimal128(10, 3)),
            ("s", pa.decimal128(20, 2)),
            ("l", pa.list_(pa.decimal128(20, 1))),
            ("t", pa.struct([("x", pa.decimal128(30, 10))])),
            ("k", pa.map_(pa.utf8(), pa.decimal128(19, 0))),
        ]
    )
    lines = [
        '{"m": 12345678901234567.89, "b": 18446744073709551616, "e": 1.5e3, '
        '"s": "12345678901234567.89", "l": [0.1, 123456789012345678.5, null], '
        '"t": {"x": 0.1234567891}, "k": {"a": 9223372036854775808}}',
        '{"m": -0.01, "b": -99999999999999999999999999999999999999, "e": 25E-3, '
        '"s": null, "l": [], "t": {"x": -1e-10}, "k": {}}',
    ]
    path = tmp_path / "dec.json"
    path.write_text("\n".join(lines) + "\n")
    got = data_table(bl.Scan(path, schema=schema, columns=schema.names))
    no_map = pa.schema([f for f in schema if f.name != "k"])  # pyarrow.json reads no maps
    want = pj.read_json(path, parse_options=pj.ParseOptions(explicit_schema=no_map))
    assert got.drop_columns(["k"]).to_pylist() == want.select(no_map.names).to_pylist()
    assert got.column("m").to_pylist()[0] == decimal.Decimal("12345678901234567.89")
    assert got.column("k").to_pylist() == [[("a", decimal.Decimal(2**63))], []]


@settings(max_examples=300, deadline=None)
@given(
    digits=st.text("0123456789", min_size=1, max_size=40),
    point=st.integers(0, 40),
    exponent=st.one_of(st.none(), st.integers(-45, 45)),
    style=st.sampled_from(["e", "E", "e+"]),
    negative=st.booleans(),
    scale=st.integers(0, 12),
)
def test_any_json_number_reads_into_a_decimal_column_exactly_or_fails(
    tmp_path_factory, digits, point, exponent, style, negative, scale
):
    """The value is the number's exact decimal value when the column's scale and precision
    hold it, and an error naming the line otherwise: never a rounded value."""
    digits = digits.lstrip("0") or "0"
    point = min(point, len(digits) - 1)
    text = digits if point == 0 else f"{digits[:-point]}.{digits[-point:]}"
    if exponent is not None:
        text += f"{style[0]}{exponent}" if exponent < 0 else f"{style}{exponent}"
    text = ("-" if negative else "") + text
    path = tmp_path_factory.mktemp("dec") / "n.json"
    path.write_text('{"v": ' + text + "}\n")
    t = pa.decimal128(38, scale)
    with decimal.localcontext(decimal.Context(prec=200)):
        value = decimal.Decimal(text)
        stored = value.scaleb(scale)  # the integer the column keeps, if it is one
        fits = stored == stored.to_integral_value() and abs(stored) < 10**38
    scan = bl.Scan(path, schema=pa.schema([("v", t)]))
    if fits:
        assert data_table(scan).column("v").to_pylist() == [value]
    else:
        with pytest.raises(bl.InputError, match=r"line 1.*'v'"):
            list(scan)


@settings(max_examples=300, deadline=None)
@given(
    digits=st.text("0123456789", min_size=1, max_size=40),
    point=st.integers(0, 40),
    exponent=st.one_of(st.none(), st.integers(-45, 45)),
    negative=st.booleans(),
    scale=st.integers(0, 12),
    form=st.sampled_from(["number", "string", "csv"]),
)
def test_a_decimal_past_its_scale_rounds_half_up_under_sparks_conventions(
    tmp_path_factory, digits, point, exponent, negative, scale, form
):
    """Under Spark's conventions a decimal text (a JSON number or string, a CSV field) is
    its value rounded half up to the column's scale (Python's `ROUND_HALF_UP`, as Java's
    `BigDecimal.setScale` rounds it for Spark) when that fits the precision, and an error
    naming the line otherwise; under Arrow's the same text is exact or an error."""
    digits = digits.lstrip("0") or "0"
    point = min(point, len(digits) - 1)
    text = digits if point == 0 else f"{digits[:-point]}.{digits[-point:]}"
    if exponent is not None:
        text += f"e{exponent}"
    text = ("-" if negative else "") + text
    folder = tmp_path_factory.mktemp("dec")
    if form == "csv":
        path = folder / "n.csv"
        path.write_text(f"v\n{text}\n")
        options: dict[str, Any] = {"header": True}
        line = 2
    else:
        path = folder / "n.json"
        path.write_text('{"v": ' + (text if form == "number" else f'"{text}"') + "}\n")
        options = {}
        line = 1
    schema = pa.schema([("v", pa.decimal128(20, scale))])
    with decimal.localcontext(decimal.Context(prec=200)):
        value = decimal.Decimal(text)
        rounded = value.quantize(decimal.Decimal(1).scaleb(-scale), decimal.ROUND_HALF_UP)
        fits = abs(rounded.scaleb(scale)) < 10**20
        exact = rounded == value
    for conventions in ["spark", "arrow"]:
        kind = "csv_conventions" if form == "csv" else "json_conventions"
        scan = bl.Scan(path, schema=schema, **{kind: conventions}, **options)
        if fits and (exact or conventions == "spark"):
            assert data_table(scan).column("v").to_pylist() == [rounded], conventions
        else:
            with pytest.raises(bl.InputError, match=rf"line {line}\b"):
                list(scan)


def assert_named_twice(tmp_path, lines: list[str], bad: list[int], column: str) -> None:
    """The lines at indexes `bad` name `column` twice: the first raises under
    on_error="error" at the second key naming it (the last key of that name in these
    lines), each is skipped under "skip" (the rows equal the other lines' own) and kept
    whole under "permissive"."""
    path = tmp_path / "dup.json"
    write_lines(path, lines)
    key = '"' + column.split(".")[-1] + '"'
    second_key = lines[bad[0]].lower().rindex(key) + 1
    said = rf"line {bad[0] + 1}, column {second_key}: column '{re.escape(column)}' is given twice"
    with pytest.raises(bl.InputError, match=said):
        list(bl.Scan(path))
    clean = tmp_path / "clean.json"
    write_lines(clean, [line for i, line in enumerate(lines) if i not in bad])
    skipped = bl.Scan(path, on_error="skip")
    assert data_table(skipped).to_pylist() == data_table(bl.Scan(clean)).to_pylist()
    assert skipped.skipped_lines == len(bad)
    kept = bl.Scan(path, on_error="permissive")
    table = pa.Table.from_batches(list(kept), schema=kept.schema)
    want = [line if i in bad else None for i, line in enumerate(lines)]
    assert table.column("_corrupt_record").to_pylist() == want


DUPLICATES = [
    ('{"a": 1, "a": 2}', "a"),
    ('{"A": 1, "a": 2}', "a"),
    ('{"m": {"x": 1, "X": 2}}', "m.x"),
    ('{"m": {"x": 1}, "M": {"x": 2}}', "m"),
    ('{"l": [1], "L": [2]}', "l"),
    ('{"ev": [{"k": 1, "k": 2}]}', "ev[].k"),
    ('{"a": 1, "b": "x", "a": null}', "a"),
]


@pytest.mark.parametrize(("line", "column"), DUPLICATES)
def test_an_object_naming_a_column_twice_is_bad_input(tmp_path, line, column):
    """`{"A": 1, "a": 2}` names one column twice (names are case-insensitive, as in Drill):
    keeping either value would silently drop the other, so the line is bad input under
    every policy (pyarrow.json and duckdb refuse duplicate names too)."""
    first = '{"a": 0, "b": "y", "m": {"x": 0}, "l": [0], "ev": [{"k": 0}]}'
    assert_named_twice(tmp_path, [first, line, first], [1], column)
    path = tmp_path / "dup.json"
    # a projection that leaves the column out does not look at it
    other = "b" if column.split(".")[0].split("[")[0].lower() != "b" else "a"
    assert len(data_table(bl.Scan(path, columns=[other]))) == 3


NULL_FIRST_DUPLICATES = [
    ('{"a": null, "a": 1}', "a"),
    ('{"a": null, "A": null}', "a"),
    ('{"m": {"x": null, "X": 2}}', "m.x"),
    ('{"ev": [{"k": 0}, {"k": null, "K": 1}]}', "ev[].k"),
    ('{"ev": [{"j": 0}, {"k": null, "K": 1}]}', "ev[].k"),
]


@pytest.mark.parametrize(("line", "column"), NULL_FIRST_DUPLICATES)
def test_a_null_first_names_a_column_twice_before_the_column_exists_too(tmp_path, line, column):
    """A field given a null has no column yet (its type waits for a value), so the loader
    cannot see a second key naming it: the reader must. The same line is refused whether
    its columns exist yet (line 3) or not (line 1), under every policy."""
    first = '{"a": 0, "m": {"x": 0}, "ev": [{"k": 0}]}'
    assert_named_twice(tmp_path, [line, first, line], [0, 2], column)


def test_a_null_and_a_value_in_different_entries_are_not_a_duplicate(tmp_path):
    """The check is per object: the same key in two list elements, or in two lines, is
    two fields."""
    lines = ['{"ev": [{"k": null}, {"K": 1}], "a": null}', '{"A": 2, "ev": []}']
    path = tmp_path / "ok.json"
    write_lines(path, lines)
    assert data_table(bl.Scan(path)).to_pylist() == [
        {"ev": [{"k": None}, {"k": 1}], "a": None},
        {"ev": [], "a": 2},
    ]


def test_the_excerpt_shows_the_error_after_non_ascii_text(tmp_path):
    """The error's column counts bytes; the excerpt is cut around that byte, not around the
    character of that number (100 'é' before the error are 200 bytes)."""
    path = tmp_path / "u.json"
    write_lines(path, ['{"s": "' + "é" * 100 + '", "x": tru}'])
    with pytest.raises(bl.InputError) as info:
        list(bl.Scan(path))
    # serde_json stops at the `}` after `tru`: 30 characters before it, then the rest
    assert info.value.column == len(('{"s": "' + "é" * 100 + '", "x": tru').encode()) + 1
    assert info.value.excerpt == "é" * 19 + '", "x": tru}'


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=6,
)

TEXT_SCHEMA = pa.schema(
    [
        ("t", pa.utf8()),
        ("m", pa.struct([("t", pa.large_utf8())])),
        ("l", pa.list_(pa.utf8())),
        ("kv", pa.map_(pa.utf8(), pa.utf8())),
    ]
)


def as_text(value):
    """A declared utf8 column's value for JSON `value`: a string's content, else its JSON
    text as the line has it (json.dumps writes nested values as it writes them alone)."""
    return value if value is None or isinstance(value, str) else json.dumps(value)


@given(values=st.lists(json_values, min_size=1, max_size=8))
def test_a_declared_string_column_takes_any_value_as_its_text(tmp_path_factory, values):
    """Spark's rule for a string column (and Drill's all-text mode): a number, boolean,
    object or array is kept as its JSON text, exactly as written; a string as its content.
    At the top level, in a struct, as list elements and as map values."""
    lines = [json.dumps({"t": v, "m": {"t": v}, "l": [v, v], "kv": {"k": v}}) for v in values]
    path = tmp_path_factory.mktemp("text") / "t.json"
    write_lines(path, lines)
    got = data_table(bl.Scan(path, schema=TEXT_SCHEMA, columns=TEXT_SCHEMA.names))
    want = [
        {"t": as_text(v), "m": {"t": as_text(v)}, "l": [as_text(v)] * 2, "kv": [("k", as_text(v))]}
        for v in values
    ]
    assert got.to_pylist() == want


def test_only_a_declared_string_column_takes_other_values_as_text(tmp_path):
    """A string column the data typed (discovered in the file, or fixed by an earlier file)
    still refuses a number: its type was a reading of the data, not the user's word."""
    mixed, a, b = tmp_path / "mixed.json", tmp_path / "a.json", tmp_path / "b.json"
    write_lines(mixed, ['{"id": "a1"}', '{"id": 2}'])
    write_lines(a, ['{"id": "a1"}'])
    write_lines(b, ['{"id": 3}'])
    with pytest.raises(bl.InputError, match=r"mixed\.json, line 2.*'id'.*int value 2") as info:
        list(bl.Scan(mixed))
    assert "give it a string type in the scan's schema" in str(info.value)
    with pytest.raises(bl.InputError, match=r"b\.json, line 1.*'id'.*int value 3"):
        list(bl.Scan([str(a), str(b)]))
    schema = pa.schema([("id", pa.utf8())])
    got = data_table(bl.Scan([str(mixed), str(a), str(b)], schema=schema))
    assert got.column("id").to_pylist() == ["a1", "2", "a1", "3"]


def test_a_conflict_names_a_structs_type_as_it_stands(tmp_path):
    """A discovered struct's type gains members as lines come: the error gives it with them
    (it said `Struct()`, the type the column was created with)."""
    path = tmp_path / "s.json"
    write_lines(path, ['{"a": {"x": 1}}', '{"a": 5}'])
    with pytest.raises(bl.InputError, match=r"column 'a' \(Struct\(\"x\": Int64\)\) cannot take"):
        list(bl.Scan(path))


# ------------------------------------------------- random projections of random documents


def _paths(name: str, t: pa.DataType, depth: int = 0) -> list[tuple[str, tuple]]:
    """The projection paths into a column `name` of type `t`, each with its steps: the
    column whole, a member (`m.k0`, also through a list: `l.k0`), an element (`l[1]`)."""
    name = spelled(name)
    out = [(name, ())]
    inner = t.value_type if pa.types.is_list(t) else t
    if pa.types.is_list(t) and depth < 2:
        out += [(f"{name}[{i}]", (("index", i),)) for i in range(3)]
    if pa.types.is_struct(inner) and depth < 2:
        for f in inner:
            out += [
                (f"{name}.{p}", (("member", f.name), *steps))
                for p, steps in _paths(f.name, f.type, depth + 1)
            ]
    return out


def _tree(steps_list) -> dict:
    """The projection tree of some paths' steps: per node, whether it is projected whole,
    its members' trees and the element indexes asked for."""
    root: dict = {"whole": False, "members": {}, "indexes": set()}
    for steps in steps_list:
        node = root
        for kind, arg in steps:
            if kind == "index":
                node["indexes"].add(arg)
                break
            node = node["members"].setdefault(
                arg, {"whole": False, "members": {}, "indexes": set()}
            )
        else:
            node["whole"] = True
    return root


def _projected(node: dict, t: pa.DataType, v, declared: bool):
    """What projecting `node` keeps of value `v` of type `t`: a list asked for by index
    alone has nulls for the elements not asked for and ends at the last one asked for, else
    every element, whole if an index asked for one; a struct has the members asked for
    (with a declared schema all its members, those not asked for null)."""
    if v is None or node["whole"]:
        return v
    if pa.types.is_list(t):
        if node["indexes"] and not node["members"]:
            last = max(node["indexes"])
            return [x if i in node["indexes"] else None for i, x in enumerate(v[: last + 1])]
        if node["indexes"]:
            return v  # every element for the members, and the one indexed whole
        return [_projected_struct(node, t.value_type, x, declared) for x in v]
    return _projected_struct(node, t, v, declared)


def _projected_struct(node: dict, t: pa.StructType, v, declared: bool):
    if v is None:
        return None
    out = {}
    for f in t:
        if f.name in node["members"]:
            out[f.name] = _projected(node["members"][f.name], f.type, v.get(f.name), declared)
        elif declared:
            out[f.name] = None
    return out


@given(doc=documents(), data=st.data(), declared=st.booleans())
def test_a_random_projection_reads_as_json_loads_projected(tmp_path_factory, doc, data, declared):
    """Random paths into random documents (whole columns, members at any depth, members
    through lists, element indexes, several at once and overlapping), pushed into parsing:
    the rows equal json.loads' rows projected by the paths' rules, with the schema declared
    (several batches) or discovered (one batch: a column null in a whole batch takes the
    null type)."""
    schema, rows, ascii_only = doc
    columns, want = _random_projection(schema, rows, data, declared)
    path = tmp_path_factory.mktemp("proj") / "d.json"
    write_lines(path, [json.dumps(r, ensure_ascii=ascii_only) for r in rows])
    if declared:
        scan = bl.Scan(path, columns=columns, schema=schema, strict_schema=True, row_limit=4)
    else:
        scan = bl.Scan(path, columns=columns)
    got = data_table(scan)
    assert got.column_names == list(want[0])
    assert got.to_pylist() == want, columns


def _random_projection(schema: pa.Schema, rows: list, data, declared: bool):
    """Up to 4 random paths into `schema`'s columns, and what they keep of `rows` (as
    json.loads reads them back)."""
    paths = [
        (p, (("member", f.name), *steps)) for f in schema for p, steps in _paths(f.name, f.type)
    ]
    chosen = data.draw(st.lists(st.sampled_from(paths), min_size=1, max_size=4))
    columns = [p for p, _ in chosen]
    names = list(dict.fromkeys(steps[0][1] for _, steps in chosen))
    tree = _tree(steps for p, steps in chosen)
    want = [
        {n: _projected(tree["members"][n], schema.field(n).type, r.get(n), declared) for n in names}
        for r in (json.loads(json.dumps(r)) for r in rows)
    ]
    return columns, want


@dataclass
class _FilesScenario:
    """Random files of random documents and a scan of them (see `_files_scenario`)."""

    folder: object
    options: dict
    #: the rows json.loads reads, projected
    want: list
    #: the malformed lines, in order
    bad: list
    #: with the schema fixed by the first batch (an explicit projection)
    fixed: bool


def _files_scenario(tmp_path_factory, doc, data) -> _FilesScenario:
    """Several files (some gzipped) of `doc`'s rows with keys left out and bad lines here
    and there, and the options of a scan of them with small batches: a random projection or
    the wildcard, some columns' types given, types allowed to change or fixed."""
    schema, rows, ascii_only = doc
    if data.draw(st.booleans(), label="keys left out"):
        rnd = data.draw(st.randoms(use_true_random=False))
        rows = [_some_keys_left_out(r, rnd) for r in rows]
    columns, want = _random_projection(schema, rows, data, False)
    if data.draw(st.booleans(), label="wildcard"):
        columns, want = None, [json.loads(json.dumps(r)) for r in rows]
    # some columns' types given (the others discovered): nulls compare alike either way
    declared = data.draw(st.lists(st.sampled_from(schema.names), unique=True), label="given")
    given_schema = pa.schema([schema.field(n) for n in declared]) if declared else None
    # bad lines before some rows: a row cut short, or one with something after it (read
    # whole before the error: what it wrote and discovered must be taken back)
    bad_before = data.draw(st.sets(st.integers(0, len(rows) - 1), max_size=3), label="bad")
    on_error = data.draw(st.sampled_from(["skip", "permissive"])) if bad_before else "error"
    texts, bad = [], []
    for i, r in enumerate(rows):
        text = json.dumps(r, ensure_ascii=ascii_only)
        if i in bad_before:
            bad.append(text[:-1] if i % 2 else f"{text} x")
            texts.append(bad[-1])
        texts.append(text)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(texts)), max_size=2)))
    folder = tmp_path_factory.mktemp("files")
    for k, (a, b) in enumerate(zip([0, *cuts], [*cuts, len(texts)], strict=True)):
        if data.draw(st.booleans(), label=f"f{k} gzipped"):
            write_lines(folder / f"f{k}.json.gz", texts[a:b], gzip_utf8)
        else:
            write_lines(folder / f"f{k}.json", texts[a:b])
    if on_error == "permissive" and columns is not None:
        columns = [*columns, "_corrupt_record"]  # as in Spark, kept if asked for
    # with the schema fixed by the first batch (an explicit projection: a wildcard leaves
    # later columns out), a type that batch guessed may meet a value: bad input, which the
    # error explains (without bad lines: skip and permissive would take such lines too)
    fixed = columns is not None and not bad and data.draw(st.booleans(), label="fixed")
    options = dict(
        columns=columns,
        schema=given_schema,
        allow_schema_change=not fixed,
        row_limit=3,
        on_error=on_error,
    )
    return _FilesScenario(folder, options, want, bad, fixed)


@given(doc=documents(), data=st.data())
def test_a_random_projection_over_files_and_batches_while_types_may_change(
    tmp_path_factory, doc, data
):
    """The same over several files and small batches with types discovered (some given)
    and allowed to change, keys left out, bad lines skipped or kept: a column null or empty
    in a whole batch or file is typed by a later one, and every row reads as json.loads
    projected."""
    case = _files_scenario(tmp_path_factory, doc, data)
    scan = bl.Scan(case.folder, **case.options)
    try:
        got = [row for batch in scan for row in batch.to_pylist()]
    except (bl.InputError, bl.SchemaConflictError) as e:
        said = str(e)
        assert case.fixed and ("earlier batch" in said or "a guess" in said), said
        return
    for row in got:
        for name in DATA_COLUMNS:
            row.pop(name, None)
    on_error, bad, columns = case.options["on_error"], case.bad, case.options["columns"]
    if on_error == "permissive":
        kept = [r.pop("_corrupt_record") for r in got]
        assert [k for k in kept if k is not None] == bad
        assert all(_without_nulls(r) == {} for r, k in zip(got, kept, strict=True) if k)
        got = [r for r, k in zip(got, kept, strict=True) if k is None]
    assert scan.skipped_lines == (len(bad) if on_error == "skip" else 0)
    # a key a row leaves out reads as null, and a batch before a column's first value may
    # not have it at all
    if case.fixed:
        # a type the first batch guessed keeps later values as their JSON text
        assert len(got) == len(case.want)
        for g, w in zip(got, case.want, strict=True):
            assert _read_as_text(g, w), (columns, g, w)
        as_text = [_without_nulls(r) for r in got] != [_without_nulls(r) for r in case.want]
        event(f"the schema fixed, a value kept as its text: {as_text}")
    else:
        assert [_without_nulls(r) for r in got] == [_without_nulls(r) for r in case.want], columns


def _read_as_text(got, want) -> bool:
    """Whether `got` (read with the schema fixed) is `want` (json.loads'), but for a string
    where `want` has another value: the JSON text of that value (a column whose type was a
    guess when the first batch fixed it takes later values as their text). A member a row
    lacks reads as null."""
    if isinstance(got, str) and want is not None and not isinstance(want, str):
        return json.loads(got) == want
    if isinstance(got, dict) and isinstance(want, dict):
        return all(_read_as_text(got.get(k), want.get(k)) for k in set(got) | set(want))
    if isinstance(got, list) and isinstance(want, list):
        return len(got) == len(want) and all(map(_read_as_text, got, want))
    return got == want


def _tracker_state(tracker) -> list:
    """What the tracker knows of each column (all but its memos)."""
    return [
        (c.name, c.source, c.field, c.guessed, c.unconfirmed, c.seen, c.spliced)
        for c in tracker._columns
    ] + [tracker.schema_version]


def _scan_outcome(folder, options) -> tuple[list, str | None, list[str]]:
    """What a scan does: each batch it hands out with what its tracker knows then, the
    error it ends with, the warnings it logs."""
    said: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: said.append(record.getMessage())  # type: ignore[method-assign]
    logger = logging.getLogger("batchloader")
    logger.addHandler(handler)
    steps: list = []
    scan = bl.Scan(folder, **options)
    try:
        steps.extend((batch, _tracker_state(scan.tracker)) for batch in scan)
        error = None
    except bl.BatchLoaderError as e:
        error = f"{type(e).__name__}: {e}"
    finally:
        logger.removeHandler(handler)
    return steps, error, said


@given(doc=documents(), data=st.data())
def test_a_scan_without_its_memos_hands_out_the_same(tmp_path_factory, doc, data):
    """The scan remembers what it worked out for a reader schema (nothing changes at this
    schema version; how its batch becomes an output batch) and skips that work for the next
    batch or file with the same schema: a wide schema's small batches and small files
    would spend more on it than on reading. With every memo off (and the output batches
    built column by column), the same random files give the same batches, the same
    warnings and the same error, and the tracker knows the same after each batch."""
    case = _files_scenario(tmp_path_factory, doc, data)
    with_memos = _scan_outcome(case.folder, case.options)
    never = mock.Mock(return_value=False)
    with (
        mock.patch("batchloader.schema.memo_holds", never),
        mock.patch("batchloader.scan.memo_holds", never),
        mock.patch("batchloader.schema._is_steady", never),
        mock.patch("batchloader.schema._is_settled", never),
        mock.patch("batchloader.scan._FEW_MADE", -1),
    ):
        without = _scan_outcome(case.folder, case.options)
    assert never.called
    (got, error, said), (want, want_error, want_said) = with_memos, without
    assert error == want_error
    assert said == want_said
    assert len(got) == len(want)
    for (a, known), (b, want_known) in zip(got, want, strict=True):
        assert a.equals(b, check_metadata=True), (a.to_pylist(), b.to_pylist())
        assert known == want_known


@given(doc=documents(), data=st.data())
def test_a_random_projection_over_byte_ranges_reads_each_row_once(tmp_path_factory, doc, data):
    """A file cut into byte ranges at random offsets (as Spark's tasks read it), each
    scanned with the projection and the schema: the ranges' rows, in order, are the file's
    rows projected, each once."""
    schema, rows, ascii_only = doc
    columns, want = _random_projection(schema, rows, data, True)
    path = tmp_path_factory.mktemp("ranges") / "d.json"
    write_lines(path, [json.dumps(r, ensure_ascii=ascii_only) for r in rows])
    size = path.stat().st_size
    cuts = sorted(data.draw(st.lists(st.integers(0, size), max_size=3), label="cuts"))
    got = []
    for a, b in zip([0, *cuts], [*cuts, size], strict=True):
        scan = bl.Scan(path, columns=columns, schema=schema, strict_schema=True, byte_range=(a, b))
        got += data_table(scan).to_pylist()
    assert got == want, (columns, cuts)


@given(doc=documents(), data=st.data(), row_limit=st.integers(1, 5))
def test_a_random_projection_in_write_rows_keeps_what_the_scan_keeps(doc, data, row_limit):
    """The loader's own projection, given Python rows of a declared schema: the same
    elements and members as the scan's discovered output (a struct has only the members
    asked for), columns in the schema's order."""
    schema, rows, _ = doc
    columns, want = _random_projection(schema, rows, data, False)
    loader = bl.ResultSetLoader(schema, projection=columns, row_limit=row_limit)
    batches = list(loader.write_rows(rows))
    got = [r for b in batches for r in b.to_pylist()]
    assert got == want, columns
    names = [f.name for f in schema if f.name in want[0]]
    assert all(b.schema.names == names for b in batches)


def _some_keys_left_out(value, rnd):
    """`value` with about a third of its objects' keys (at any depth) left out."""
    if isinstance(value, dict):
        return {k: _some_keys_left_out(v, rnd) for k, v in value.items() if rnd.random() > 0.3}
    if isinstance(value, list):
        return [_some_keys_left_out(v, rnd) for v in value]
    return value


@pytest.mark.parametrize(
    ("columns", "shape"),
    [
        (["m", "m.x"], pa.struct([("x", pa.utf8())])),
        (["m.x", "M"], pa.struct([("x", pa.utf8())])),
        (["c[1]", "c"], pa.list_(pa.utf8())),
        (["c.x", "c[1]"], pa.list_(pa.struct([("x", pa.utf8())]))),
        (["c[1].y", "c.x"], pa.list_(pa.struct([("y", pa.utf8()), ("x", pa.utf8())]))),
        (["m", "m.l[2]"], pa.struct([("l", pa.list_(pa.utf8()))])),
    ],
)
@pytest.mark.parametrize("value", ["null", "{}", "[]"])
def test_a_column_without_values_takes_the_shape_its_mentions_give_it(
    tmp_path, columns, shape, value
):
    """A column only null (or only empty) in the data has no type of its own: it takes the
    shape the projection gives it, also when a mention names it whole (`m.x, m`: a struct,
    `c[1], c`: a list; before, the whole mention left it `null_type`, which the scan then
    refused as not a struct or list)."""
    path = tmp_path / "d.json"
    name = columns[0].split(".")[0].split("[")[0].lower()
    if value == "[]" and pa.types.is_struct(shape):
        shape = pa.list_(shape)  # `m.x` on a list projects `x` of each element
    fits = value == "null" or (value == "{}") == pa.types.is_struct(shape)
    write_lines(path, [f'{{"{name}": {value}, "n": 1}}'] * 3)
    scan = bl.Scan(path, columns=[*columns, "n"])
    if not fits:
        with pytest.raises(bl.SchemaConflictError, match=f"column '{name}' is projected as"):
            data_table(scan)
        return
    got = data_table(scan)
    assert got.schema.field(name).type == shape
    empty = None if value == "null" else ({} if value == "{}" else [])
    if empty == {}:
        empty = {f.name: None for f in shape}
    assert got.column(name).to_pylist() == [empty] * 3
    assert got.column("n").to_pylist() == [1] * 3


@pytest.mark.parametrize(
    ("columns", "rows"),
    [
        (["c.x"], [{"c": []}]),
        (["c[1].x"], [{"c": []}, {"c": []}]),
        (["m.l.x"], [{"m": {"l": []}}]),
        (["m.l[0][1]"], [{"m": {"l": []}}]),
        (["c.x"], [{"c": []}, {"c": [{"x": 1, "y": 2}]}]),
        (["m.l.x"], [{"m": {"l": []}}, {"m": {"l": [{"x": True}]}}]),
        (["c[0][0]"], [{"c": [[]]}, {"c": [[], [1]]}]),
    ],
)
def test_write_rows_types_a_list_seen_empty_as_the_reader_does(tmp_path, columns, rows):
    """A list discovered empty from Python rows takes the element shape its projection
    implies (`c.x`: structs), as the NDJSON reader's does, and the first element that types
    it replaces the guess: the loader's batch equals the reader's on the same rows (before,
    a list seen only empty had utf8 elements whatever the projection)."""
    path = tmp_path / "d.json"
    write_lines(path, [json.dumps(r) for r in rows])
    want = []
    read_to_end(bl.FileReader(str(path)), bl.ResultSetLoader(projection=columns), want)
    (batch,) = bl.ResultSetLoader(projection=columns).write_rows(rows)
    assert batch.schema == want[0].schema
    assert pa.Table.from_batches([batch]).equals(pa.Table.from_batches(want))


@pytest.mark.parametrize("allow_schema_change", [True, False])
@pytest.mark.parametrize(
    ("first", "later"),
    [
        ('{"c": []}', '{"c": null}'),
        ('{"m": {"l": []}}', '{"m": {"l": null}}'),
        ('{"m": {"l": []}}', '{"m": null}'),
        ('{"c": [{"x": null}]}', '{"c": [null]}'),
    ],
)
def test_a_later_file_without_values_keeps_the_type_an_earlier_one_gave(
    tmp_path, first, later, allow_schema_change
):
    """A file whose column (or part of one) is only null or empty shows no type for it: the
    type an earlier file gave stays, even one that file only guessed (a list seen empty),
    and the rows read as json.loads. Before, the later file's null type was a type change."""
    write_lines(tmp_path / "f0.json", [first])
    write_lines(tmp_path / "f1.json", [later])
    scan = bl.Scan(tmp_path, allow_schema_change=allow_schema_change)
    batches = list(scan)
    rows = [r for b in batches for r in b.to_pylist()]
    assert [{k: r[k] for k in json.loads(first)} for r in rows] == [
        json.loads(first),
        {k: json.loads(later).get(k) for k in json.loads(first)},
    ]
    assert {b.schema.field(0).type for b in batches} == {scan.schema.field(0).type}


@pytest.mark.parametrize(
    "files",
    [
        [['{"c": {}}'], ['{"c": {"k": {}}}']],
        [["{}", '{"c": {}}', "{}", '{"c": {"k": [1]}}']],
        [['{"c": {}}'], ['{"c": null}'], ['{"c": {"k": 5}}']],
        [['{"c": {"k": []}}'], ['{"c": {}}']],
    ],
)
def test_a_member_the_projection_added_is_typed_by_its_first_value(tmp_path, files):
    """`c.k` where the data's `c` has no `k` yet: the scan adds `k` typed by guess (the null
    type), and while types may change a later batch or file that has a value types it.
    Before, the guess passed for a type a value had shown: the later value was refused. And
    the other way: a `k` the scan adds to a later file's `c` keeps the earlier type (it was
    a type change)."""
    for i, lines in enumerate(files):
        write_lines(tmp_path / f"f{i}.json", lines)
    scan = bl.Scan(tmp_path, columns=["c.k"], allow_schema_change=True, row_limit=1)
    rows = [r for b in scan for r in b.to_pylist()]
    want = [json.loads(line).get("c") for f in files for line in f]
    assert [r["c"] for r in rows] == [None if c is None else {"k": c.get("k")} for c in want]


@pytest.mark.parametrize("columns", [None, ["a", "_corrupt_record"], ["a"]])
def test_permissive_counts_the_lines_it_keeps_and_says_if_their_text_is_left_out(
    tmp_path, caplog, columns
):
    """Bad lines under "permissive" are rows: `scan.corrupt_lines` counts them, with their
    text in `_corrupt_record` when the projection has it; a projection without it keeps
    them as rows of nulls (as Spark does), and a warning says how many and how to see them."""
    path = tmp_path / "p.json"
    write_lines(path, ['{"a": 1}', '{"a": ', '{"a": 3}', "[1, 2", '{"a": 5}'])
    scan = bl.Scan(path, columns=columns, on_error="permissive")
    with caplog.at_level("WARNING", logger="batchloader"):
        rows = data_table(scan).to_pylist()
    assert [r["a"] for r in rows] == [1, None, 3, None, 5]
    assert scan.corrupt_lines == 2 and scan.skipped_lines == 0
    warned = [r.getMessage() for r in caplog.records if "malformed" in r.getMessage()]
    if columns == ["a"]:
        assert warned == [
            f"2 malformed line(s) of {path} were kept as rows of nulls: add "
            "'_corrupt_record' to columns= to keep their text"
        ]
    else:
        assert warned == []
        assert [r["_corrupt_record"] for r in rows] == [None, '{"a": ', None, "[1, 2", None]


def test_a_guessed_member_meeting_a_value_after_the_schema_is_fixed_keeps_its_text(
    tmp_path,
):
    """`c.k` on data whose first batch has no `c` value: the first batch fixes `k` as the
    null type, by guess. A later value of another type is kept as its JSON text (it was a
    type conflict); while types may change, it types the member instead."""
    path = tmp_path / "d.json"
    write_lines(path, ['{"c": null}'] * 3 + ['{"c": {"k": 0}}', '{"c": {"k": [true]}}'])
    scan = bl.Scan(path, columns=["c.k"], row_limit=3)
    assert [r["c"] for b in scan for r in b.to_pylist()] == [None] * 3 + [
        {"k": "0"},
        {"k": "[true]"},
    ]
    write_lines(path, ['{"c": null}'] * 3 + ['{"c": {"k": 0}}'])
    scan = bl.Scan(path, columns=["c.k"], row_limit=3, allow_schema_change=True)
    assert [r["c"] for b in scan for r in b.to_pylist()] == [None] * 3 + [{"k": 0}]


def test_a_file_reader_may_be_freed_on_another_thread(tmp_path, monkeypatch):
    """Python frees an object on whichever thread drops it last (or runs the garbage
    collection that finds it in a cycle): a reader freed so must not complain and leak."""
    import threading

    from batchloader import FileReader

    path = tmp_path / "a.json"
    path.write_text('{"a": 1}\n')
    raised: list[object] = []
    monkeypatch.setattr(sys, "unraisablehook", raised.append)
    holder = [FileReader(str(path)) for _ in range(3)]
    loader = bl.ResultSetLoader()
    loader.start_batch()
    assert not holder[0].fill(loader)
    dropper = threading.Thread(target=holder.clear)
    dropper.start()
    dropper.join()
    assert holder == [] and raised == []
    assert loader.harvest().to_pylist() == [{"a": 1}]


def test_what_an_opener_raised_is_the_cause_of_the_input_error():
    """An opener's exception (credentials, a timeout) reaches the user as the `__cause__`
    of the `InputError` naming the file: its type and attributes kept, not only its text;
    an error that is not the opener's has no such cause."""

    class Denied(PermissionError):
        pass

    def denied(offset):
        raise Denied(13, "access denied by the store")

    with pytest.raises(bl.InputError, match=r"x\.json.*access denied by the store") as info:
        bl.FileReader("s3://b/x.json", opener=denied)
    assert isinstance(info.value.__cause__, Denied) and info.value.__cause__.errno == 13

    class Flaky:
        """Two good lines, then a timeout."""

        def __init__(self):
            self.reads = 0

        def read(self, n):
            self.reads += 1
            if self.reads == 1:
                return b'{"a": 1}\n{"a": 2}\n'[:n]
            raise TimeoutError("the store timed out")

    reader = bl.FileReader("s3://b/y.json", opener=lambda offset: Flaky())
    batches = []
    with pytest.raises(bl.InputError, match=r"y\.json.*timed out") as info:
        read_to_end(reader, bl.ResultSetLoader(), batches)
    assert isinstance(info.value.__cause__, TimeoutError)

    text = b'{"a": 1}\n{"a": }\n'
    reader = bl.FileReader("s3://b/z.json", opener=lambda offset: io.BytesIO(text[offset:]))
    with pytest.raises(bl.InputError, match=r"z\.json, line 2") as info:
        read_to_end(reader, bl.ResultSetLoader(), [])
    assert info.value.__cause__ is None


def test_a_null_type_given_types_fields_null_in_a_whole_batch_and_lists_only_empty(tmp_path):
    """`null_type` is the type of a field null in a whole batch and of the elements of a
    list only empty, not only of a column a file lacks (Drill's JSON `nullType`). Only a
    utf8 guess takes later values as text: an int64 one takes ints, and a string there is
    bad input whose error says why the column has the type."""
    path = tmp_path / "n.json"
    rows = [{"x": None, "l": []}] * 2 + [{"x": 5, "l": [6]}]
    write_lines(path, [json.dumps(r) for r in rows])
    scan = bl.Scan(path, row_limit=2, null_type=pa.int64())
    got = data_table(scan)
    assert got.schema.field("x").type == pa.int64()
    assert got.schema.field("l").type == pa.list_(pa.int64())
    assert got.select(["x", "l"]).to_pylist() == rows
    write_lines(path, [json.dumps(r) for r in rows[:2]] + ['{"x": "s", "l": []}'])
    with pytest.raises(bl.InputError, match=r"line 3.*'x'.*null in every row of an earlier batch"):
        list(bl.Scan(path, row_limit=2, null_type=pa.int64()))
