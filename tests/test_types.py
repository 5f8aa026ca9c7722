"""Every listed type round-trips through the loader exactly as pyarrow builds it."""

from __future__ import annotations

import datetime as dt
import decimal
import math

import pyarrow as pa
import pytest

import batchloader as bl

UTC = dt.timezone.utc
CASES = [
    (pa.bool_(), [True, False, None]),
    (pa.int8(), [-128, 127, None]),
    (pa.int16(), [-(2**15), 2**15 - 1]),
    (pa.int32(), [-(2**31), 2**31 - 1]),
    (pa.int64(), [-(2**63), 2**63 - 1, 0]),
    (pa.uint8(), [0, 255]),
    (pa.uint16(), [0, 65535]),
    (pa.uint32(), [0, 2**32 - 1]),
    (pa.uint64(), [0, 2**64 - 1]),
    (pa.float32(), [1.5, -0.0, math.inf, None]),
    (pa.float64(), [1e308, -math.inf, 5e-324]),
    (pa.utf8(), ["", "héllo", "日本語", "\U0001f600", None]),
    (pa.large_utf8(), ["a", ""]),
    (pa.binary(), [b"", b"\x00\xff", None]),
    (pa.large_binary(), [b"abc"]),
    (pa.date32(), [dt.date(1, 1, 1), dt.date(1969, 12, 31), dt.date(9999, 12, 31)]),
    (pa.timestamp("s"), [dt.datetime(1900, 1, 1, 0, 0, 1)]),
    (pa.timestamp("ms"), [dt.datetime(2024, 2, 29, 12, 30, 15, 123000)]),
    (pa.timestamp("us"), [dt.datetime(1969, 12, 31, 23, 59, 59, 999999)]),
    (pa.timestamp("ns"), [dt.datetime(2262, 4, 11)]),
    (pa.timestamp("us", tz="UTC"), [dt.datetime(2024, 1, 1, 12, tzinfo=UTC)]),
    (
        pa.timestamp("us", tz="Europe/Paris"),
        [dt.datetime(2024, 1, 1, 12, tzinfo=dt.timezone(dt.timedelta(hours=5, minutes=30)))],
    ),
    (pa.decimal128(10, 2), [decimal.Decimal("12345678.99"), decimal.Decimal("-0.01"), None]),
    (pa.decimal128(38, 0), [decimal.Decimal(10**37), decimal.Decimal("1E+3")]),
    (pa.list_(pa.list_(pa.list_(pa.int8()))), [[[[]]], [[], [[1, None]]], None]),
    (pa.large_list(pa.utf8()), [["a", None], []]),
    (pa.map_(pa.utf8(), pa.struct([("x", pa.int64())])), [{"k": {"x": 1}}, {}, None]),
    (pa.struct([("a", pa.struct([("b", pa.list_(pa.int8()))]))]), [{"a": {"b": [1]}}, {}]),
]


@pytest.mark.parametrize(("t", "vals"), CASES, ids=[str(t) for t, _ in CASES])
def test_round_trip_matches_pyarrow(t, vals):
    schema = pa.schema([("v", t)])
    rows = [{"v": v} for v in vals]
    batches = list(bl.ResultSetLoader(schema).write_rows(rows))
    got = pa.Table.from_batches(batches, schema=schema)
    want = pa.Table.from_pylist(rows, schema=schema)
    assert got.equals(want), (got.to_pylist(), want.to_pylist())


class _Stamp(dt.datetime):
    """A datetime subclass (as pandas.Timestamp is): takes the general conversion path."""


def test_datetimes_exact_subclassed_and_into_dates_match_pyarrow():
    schema = pa.schema([("d", pa.date32()), ("t", pa.timestamp("ms")), ("z", pa.timestamp("s"))])
    rows = [
        {"d": dt.datetime(2024, 1, 1, 23, 59), "t": _Stamp(2024, 1, 1, 15, 0, 0, 5000)},
        {"d": _Stamp(1969, 12, 31, 1), "t": dt.datetime(1969, 12, 31, 23, 59, 59, 999000)},
        {"z": dt.datetime(2024, 1, 1, 12, tzinfo=dt.timezone(dt.timedelta(hours=-3)))},
    ]
    batches = list(bl.ResultSetLoader(schema).write_rows(rows))
    got = pa.Table.from_batches(batches, schema=schema)
    assert got.equals(pa.Table.from_pylist(rows, schema=schema)), got.to_pylist()
    assert got.column("z")[2].as_py() == dt.datetime(2024, 1, 1, 15)


def test_nan_round_trips():
    batches = list(
        bl.ResultSetLoader(pa.schema([("v", pa.float64())])).write_rows([{"v": math.nan}])
    )
    assert math.isnan(batches[0].column("v")[0].as_py())


def test_int_into_float_and_decimal_columns():
    schema = pa.schema([("f", pa.float64()), ("d", pa.decimal128(5, 2))])
    batches = list(bl.ResultSetLoader(schema).write_rows([{"f": 3, "d": 7}]))
    assert batches[0].to_pylist() == [{"f": 3.0, "d": decimal.Decimal("7.00")}]


@pytest.mark.parametrize(
    ("t", "value", "why"),
    [
        (pa.int64(), 2**63, "out of range"),
        (pa.int64(), 2**70, "out of range"),
        (pa.int8(), 128, "out of range"),
        (pa.uint8(), -1, "out of range"),
        (pa.int64(), 1.5, "does not fit"),
        (pa.int64(), "1", "does not fit"),
        (pa.utf8(), b"bytes", "does not fit"),
        (pa.utf8(), "\ud800", "not valid UTF-8"),
        (pa.bool_(), 1, "does not fit"),
        (pa.decimal128(5, 2), decimal.Decimal("1.234"), "scale"),
        (pa.decimal128(3, 2), decimal.Decimal("12.34"), "out of range"),
        (pa.date32(), "2020-01-01", "does not fit"),
        (pa.list_(pa.int8()), "abc", "sequence"),
        (pa.struct([("a", pa.int8())]), 5, "dict, tuple or list"),
        (pa.struct([("a", pa.int8())]), {"b": 1}, "no column 'b'"),
    ],
)
def test_bad_values_raise_schema_conflict_naming_column_and_value(t, value, why):
    loader = bl.ResultSetLoader(pa.schema([("v", t), ("ok", pa.int8())]))
    loader.start_batch()
    w = loader.writer
    w.start()
    w["ok"].set(1)
    with pytest.raises(bl.SchemaConflictError, match=why) as info:
        w["v"].set(value)
    assert "'v'" in str(info.value)
    w.save()  # the row is still usable: v back-filled
    assert loader.harvest().to_pylist() == [{"v": None, "ok": 1}]


def test_a_list_that_fails_half_way_leaves_nothing_behind():
    loader = bl.ResultSetLoader(pa.schema([("xs", pa.list_(pa.int8()))]))
    loader.start_batch()
    w = loader.writer
    w.start()
    with pytest.raises(bl.SchemaConflictError):
        w["xs"].set([1, 2, "three"])
    w.save()
    w.start()
    w["xs"].set([4])
    w.save()
    assert loader.harvest().column("xs").to_pylist() == [None, [4]]


def test_invalid_utf8_from_append_bytes_is_refused_at_save():
    loader = bl.ResultSetLoader(pa.schema([("s", pa.utf8())]))
    loader.start_batch()
    w = loader.writer
    w.start()
    w["s"].append_bytes("é".encode()[:1])
    with pytest.raises(bl.SchemaConflictError, match="UTF-8"):
        w.save()
    w.start()
    w["s"].append_bytes("é".encode()[:1])
    w["s"].append_bytes("é".encode()[1:])  # a character split across chunks is fine
    w.save()
    assert loader.harvest().column("s").to_pylist() == ["é"]


def test_map_from_pairs_and_element_writer():
    loader = bl.ResultSetLoader(pa.schema([("m", pa.map_(pa.utf8(), pa.int64()))]))
    loader.start_batch()
    w = loader.writer
    w.start()
    w["m"].set([("a", 1), ("b", 2)])
    w.save()
    w.start()
    entries = w["m"].element
    entries["key"].set("z")
    entries["value"].set(26)
    w["m"].save()
    w.save()
    assert loader.harvest().column("m").to_pylist() == [[("a", 1), ("b", 2)], [("z", 26)]]


def test_struct_members_by_index_and_tuple():
    t = pa.struct([("x", pa.int8()), ("y", pa.utf8())])
    loader = bl.ResultSetLoader(pa.schema([("m", t)]))
    loader.start_batch()
    w = loader.writer
    w.start()
    w["m"][1].set("second")
    w["m"]["X"].set(1)
    w.save()
    w.start()
    w["m"].set((2, "tuple"))
    w.save()
    assert loader.harvest().to_pylist() == [
        {"m": {"x": 1, "y": "second"}},
        {"m": {"x": 2, "y": "tuple"}},
    ]


NUMPY_CASES = [
    (pa.int64(), ["int64", "int32", "uint8", "uint64"], [0, 1, 127]),
    (pa.int8(), ["int64", "int16"], [-128, 5, 127]),
    (pa.uint64(), ["uint64"], [0, 2**64 - 1]),
    (pa.float64(), ["float64", "float32", "float16", "int64"], [0.5, -2.0, 1e4]),
    (pa.float32(), ["float32", "float64"], [1.5, -0.0]),
    (pa.bool_(), ["bool"], [True, False]),
    (pa.decimal128(10, 2), ["int64", "int8"], [7, -3]),
]


@pytest.mark.parametrize(
    ("t", "dtypes", "vals"), NUMPY_CASES, ids=[str(t) for t, _, _ in NUMPY_CASES]
)
def test_numpy_scalars_and_arrays_are_written_as_pyarrow_writes_them(t, dtypes, vals):
    """Rows built from NumPy data (zip over arrays, itertuples) hold NumPy scalars, and list
    values may be arrays: written as the Python numbers they hold, as pyarrow does."""
    np = pytest.importorskip("numpy")
    schema = pa.schema([("v", t), ("xs", pa.list_(t))])
    for dtype in dtypes:
        array = np.array(vals, dtype=dtype)
        rows = [{"v": s, "xs": array} for s in array]
        batches = list(bl.ResultSetLoader(schema).write_rows(rows))
        got = pa.Table.from_batches(batches, schema=schema)
        native = [{"v": s.item(), "xs": array.tolist()} for s in array]
        want = pa.Table.from_pylist(native, schema=schema)
        assert got.equals(want), (dtype, got.to_pylist(), want.to_pylist())
        try:  # and as pyarrow writes the NumPy values themselves, where it takes them
            assert got.equals(pa.Table.from_pylist(rows, schema=schema))
        except pa.ArrowTypeError:
            assert pa.types.is_decimal(t)  # pyarrow wants a Python int for a decimal


def test_numpy_values_that_do_not_fit_raise_schema_conflict():
    np = pytest.importorskip("numpy")
    for t, value, why in [
        (pa.int8(), np.int64(300), "out of range"),
        (pa.uint8(), np.int8(-1), "out of range"),
        (pa.int64(), np.float64(1.5), "does not fit"),
        (pa.int64(), np.float32(2.0), "does not fit"),
        (pa.utf8(), np.int64(1), "does not fit"),
        (pa.int64(), np.datetime64("2020-01-01"), "unsupported"),
    ]:
        loader = bl.ResultSetLoader(pa.schema([("v", t)]))
        with pytest.raises(bl.SchemaConflictError, match=rf"row 0: column 'v'.*{why}"):
            list(loader.write_rows([{"v": value}]))


def test_discovery_types_numpy_values_by_the_python_number_they_hold():
    np = pytest.importorskip("numpy")
    rows = [
        {"i": np.int32(1), "f": np.float32(0.5), "b": np.bool_(True), "w": np.int64(1)},
        {"i": np.uint8(2), "f": np.float64(1.5), "b": np.bool_(False), "w": np.float32(2.5)},
    ]
    # arrays are lists, a 2-D array a list of lists
    rows[0] |= {"xs": np.array([1, 2], dtype="int16"), "m": np.array([[0.5], [1.5]])}
    rows[1] |= {"xs": np.array([], dtype="int16"), "m": np.zeros((0, 3))}
    loader = bl.ResultSetLoader()
    table = pa.Table.from_batches(list(loader.write_rows(rows)))
    assert table.schema == pa.schema(
        [
            ("i", pa.int64()),
            ("f", pa.float64()),
            ("b", pa.bool_()),
            ("w", pa.float64()),
            ("xs", pa.list_(pa.int64())),
            ("m", pa.list_(pa.list_(pa.float64()))),
        ]
    )
    # an int column meeting a NumPy float widens, as with a Python float
    assert table.to_pylist() == [
        {"i": 1, "f": 0.5, "b": True, "w": 1.0, "xs": [1, 2], "m": [[0.5], [1.5]]},
        {"i": 2, "f": 1.5, "b": False, "w": 2.5, "xs": [], "m": []},
    ]
