"""batchloader.spark.read on a real local Spark (one session per test run)."""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import json
import math
import os
import re
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import batchloader as bl
import batchloader.spark as bls
from batchloader import InputError

try:
    import pyspark.sql.datasource  # noqa: F401

    HAS_PYTHON_DATA_SOURCES = True
except ImportError:  # Spark 3.5
    HAS_PYTHON_DATA_SOURCES = False

needs_data_sources = pytest.mark.skipif(
    not HAS_PYTHON_DATA_SOURCES, reason="Python data sources arrived in Spark 4"
)


def write(path, rows):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(json.dumps(r) for r in rows) + "\n")


def rows_of(df):
    return sorted(map(lambda r: r.asDict(recursive=True), df.collect()), key=repr)


@pytest.fixture
def events(tmp_path):
    rows = []
    for month in (1, 2):
        part = [
            {
                "id": month * 100 + i,
                "user": f"u{i % 7}",
                "score": None if i % 5 == 0 else i * 0.5,
                "tags": [f"t{j}" for j in range(i % 3)],
                "address": {"city": ["Lyon", "Oslo"][i % 2], "zip": f"{i:05d}"},
                "events": [{"kind": "click", "value": j} for j in range(i % 4)],
            }
            for i in range(40)
        ]
        write(f"{tmp_path}/year=2024/month={month:02d}/part-0.json", part)
        rows += part
    return tmp_path, rows


def test_read_equals_sparks_json_reader(spark, events):
    root, _ = events
    df = bls.read(spark, str(root), columns=["id", "user", "score", "tags", "address", "events"])
    reference = spark.read.schema(df.schema).json(str(root))
    assert rows_of(df) == rows_of(reference.select(*df.columns))
    assert df.rdd.getNumPartitions() == 2  # a task per file


def test_a_schema_may_be_given_as_spark_gives_one(spark, events):
    """`schema=` as a Spark StructType or DDL string types the columns as the same schema in
    Arrow does; anything else is a TypeError that says what it takes."""
    root, _ = events
    ddl = "id int, score float, address struct<city: string, zip: string>"
    cols = ["id", "score", "address"]
    struct = spark.createDataFrame([], ddl).schema
    arrow = pa.schema(
        [
            ("id", pa.int32()),
            ("score", pa.float32()),
            ("address", pa.struct([("city", pa.utf8()), ("zip", pa.utf8())])),
        ]
    )
    want = bls.read(spark, str(root), columns=cols, schema=arrow)
    assert want.schema == struct
    for spelled in (ddl, struct):
        df = bls.read(spark, str(root), columns=cols, schema=spelled)
        assert df.schema == struct
        assert rows_of(df) == rows_of(want)
    with pytest.raises(TypeError, match="StructType or a DDL string, not dict"):
        bls.read(spark, str(root), schema={"id": "int"})


@pytest.fixture
def session_zone(spark):
    """The shared session in New York's time zone for one test."""
    key = "spark.sql.session.timeZone"
    before = spark.conf.get(key)
    spark.conf.set(key, "America/New_York")
    yield "America/New_York"
    spark.conf.set(key, before)


TIMESTAMP_TEXTS = [
    "2024-01-01T00:00:00",  # no offset: a local time of the session's zone
    "2024-07-01 12:30:00.5",  # summer time there
    "2024-01-01T00:00:00+02:00",
    "2024-01-01T00:00:00Z",
]


def test_timestamps_of_a_schema_read_as_sparks_json_reader_reads_them(
    spark, tmp_path, session_zone
):
    """Spark's `timestamp` in `schema=` (a DDL string or a StructType: PySpark 4 failed
    on it) is an instant; a text without an offset is a local time of the session's time
    zone, as Spark's JSON reader reads it (not UTC: five hours off in New York);
    `timestamp_ntz` keeps the wall clock."""
    write(f"{tmp_path}/t.json", [{"ts": t, "n": t[:19]} for t in TIMESTAMP_TEXTS])
    ddl = "ts timestamp, n timestamp_ntz"
    reference = rows_of(spark.read.schema(ddl).json(str(tmp_path)))
    for schema in (ddl, spark.createDataFrame([], ddl).schema):
        df = bls.read(spark, str(tmp_path), columns=["ts", "n"], schema=schema)
        assert df.schema.simpleString() == "struct<ts:timestamp,n:timestamp_ntz>"
        assert rows_of(df) == reference
    plan = bls.ScanPlan(str(tmp_path), schema=bls.arrow_schema_of(spark, ddl), columns=["ts"])
    assert rows_of(bls._read_with_map_in_arrow(spark, plan)) == rows_of(
        spark.read.schema(ddl).json(str(tmp_path)).select("ts")
    )


#: date and timestamp texts in the forms Spark's readers take besides ISO-8601's layout,
#: and some they refuse (null); not a time of day alone, which Spark reads as today's
LENIENT_TEXTS = [
    "2024-01-02T03:04:05Z",
    "2024-1-2",
    "2024",
    "2024-7",
    "+002024-01-02",
    "2024-01-02T03:04:05",
    "2024-7-1 3:4:5.6",
    "2024-01-02T03:04",
    "2024-01-02T3",
    " 2024-01-02 ",
    "2024-01-02T03:04:05.123456789",
    "2024-01-02T03:04:05 UTC",
    "2024-01-02T03:04:05+1",
    "2024-01-02T03:04:05-01:00:30",
    "2024-01-02T03:04:05GMT-0530",
    "2024-01-02T03:04:05 PST",
    "2024-07-01T03:04:05Europe/Paris",
    "2024-01-02 garbage",
    "2024-01-02T03:04:05 UTC junk",
    "2024-01-02T24:00:00",
    "2024-02-30",
    "24-01-02",
    "12",
    "-5",
    "2024/01/02",
]


@pytest.mark.parametrize("fmt", ["json", "csv"])
@pytest.mark.parametrize("kind", ["date", "timestamp", "timestamp_ntz"])
def test_date_and_timestamp_texts_read_as_sparks_readers_read_them(
    spark, tmp_path, session_zone, fmt, kind
):
    """`read` (JSON and CSV conventions "spark", its defaults) takes the date and timestamp
    texts Spark's readers take besides ISO-8601 (`2024-1-2`, a clock without seconds, a
    zone after it: `PST`, `+1`, `GMT-0530`; a date from any text a day starts), each to the
    value Spark gives it in the session's zone (New York: a text without a zone is a local
    time there), and refuses (here skips) each text Spark reads as a null."""
    path = f"{tmp_path}/t.{fmt}"
    texts = LENIENT_TEXTS
    if kind == "date" and int(spark.version.split(".")[0]) < 4:
        # Spark 3.5 fails the job on a date that does not exist, PERMISSIVE or not
        texts = [t for t in texts if t not in ("2024-02-30", "24-01-02")]
    if fmt == "json":
        write(path, [{"id": i, "x": t} for i, t in enumerate(texts)])
        theirs = spark.read.schema(f"id int, x {kind}").json(path)
    else:
        with open(path, "w") as f:
            f.write("id,x\n" + "".join(f'{i},"{t}"\n' for i, t in enumerate(texts)))
        theirs = spark.read.schema(f"id int, x {kind}").option("header", True).csv(path)
    reference = {r["id"]: r["x"] for r in theirs.collect()}
    ours = bls.read(
        spark,
        path,
        schema=f"id int, x {kind}",
        columns=["id", "x"],
        on_error="skip",
        header=fmt == "csv",
    )
    got = {r["id"]: r["x"] for r in ours.collect()}
    assert got == {i: x for i, x in reference.items() if x is not None}
    # the forms beyond ISO-8601 were read (not only refused alike)
    assert len(got) >= 9
    if HAS_PYTHON_DATA_SOURCES:
        bls.register(spark)
        source = (
            spark.read.format("batchloader")
            .schema(f"id int, x {kind}")
            .options(format=fmt, header="true", on_error="skip", timeZone=session_zone)
            .load(path)
        )
        assert {r["id"]: r["x"] for r in source.collect()} == got


MIXED_ROWS = [
    [
        {"id": 1, "x": 1, "s": {"a": 1, "b": "k"}, "l": [1, 2], "f": 1.5, "v": {"p": 1}},
        {"id": 2, "x": "two", "s": {"a": "one", "b": "k"}, "l": ["t", 3], "f": True, "v": [1]},
        # a float, or a number past int64, then a string a declared float column takes
        {"id": 4, "n": 1.5, "g": 12345678901234567890123},
        {"id": 5, "n": "NaN", "g": "Infinity"},
    ],
    [{"id": 3, "x": 3.5, "s": {"a": 2}, "l": [{"k": 1}], "f": 2, "v": "w", "n": 2}],
]


def _typed_rows(df):
    """A DataFrame's column types by name and its rows, the file columns left out (Spark
    orders inferred columns by name, the scan as met)."""
    names = sorted(c for c in df.columns if c not in ("fqn", "filepath", "filename", "suffix"))
    types = {f.name: f.dataType.simpleString() for f in df.schema.fields if f.name in names}
    return types, rows_of(df.select(*(f"`{n}`" for n in names)))  # (`a.b` is a name)


@pytest.mark.parametrize("mode", ["PERMISSIVE", "DROPMALFORMED"])
def test_mixed_types_after_a_malformed_line_are_strings_as_spark_infers_them(spark, tmp_path, mode):
    """A malformed line ahead of the mixed types in the sample: in permissive and skip
    mode (Spark's PERMISSIVE and DROPMALFORMED) it is a bad line, and the fields of mixed
    types after it are still strings, as Spark infers them (the bad line's row aside)."""
    os.makedirs(f"{tmp_path}/data", exist_ok=True)
    for i, rows in enumerate(MIXED_ROWS):
        lines = [json.dumps(r, separators=(",", ":")) for r in rows]
        if i == 0:
            lines.insert(0, '{"id": oops')
        with open(f"{tmp_path}/data/{i}.json", "w") as f:
            f.write("".join(line + "\n" for line in lines))
    data = f"{tmp_path}/data"
    reference = _typed_rows(spark.read.option("mode", mode).json(data))
    assert reference[0]["x"] == "string"
    on_error = {"PERMISSIVE": "permissive", "DROPMALFORMED": "skip"}[mode]
    assert _typed_rows(bls.read(spark, data, on_error=on_error)) == reference
    if HAS_PYTHON_DATA_SOURCES:
        bls.register(spark)
        source = spark.read.format("batchloader").option("mode", mode)
        assert _typed_rows(source.load(data)) == reference


#: files of empty strings beside other values: the types and values Spark gives them
EMPTY_STRING_FILES = {
    "bigint": ['{"a": 1, "b": "x"}', '{"a": "", "b": "y"}', '{"a": 2, "b": "z"}'],
    "string": ['{"a": ""}', '{"a": null}'],
    "double": ['{"a": ""}', '{"a": 1.5}'],
    "struct": ['{"a": {"b": 1}}', '{"a": ""}'],
    "list": ['{"a": [1, ""]}', '{"a": [2]}'],
    "conflict": ['{"a": true}', '{"a": ""}', '{"a": [1]}'],
}


@pytest.mark.parametrize("name", list(EMPTY_STRING_FILES))
def test_empty_strings_type_no_column_as_spark_infers_them(spark, tmp_path, name):
    """Spark's JSON inference takes `""` for a null: beside numbers, structs or lists it is
    no string, and the column is what the rest make it; reading it there is then bad input
    (a null in its row, the line in the corrupt record column), as Spark reads it. Alone,
    or beside other types, the column is a string."""
    path = tmp_path / "f.json"
    path.write_text("\n".join(EMPTY_STRING_FILES[name]) + "\n")
    theirs = spark.read.json(str(path))
    ours = bls.read(spark, str(path), on_error="permissive")
    data = ours.drop(*FILE_COLUMNS)
    assert data.drop("_corrupt_record").schema == theirs.schema
    assert rows_of(data.drop("_corrupt_record")) == rows_of(theirs)
    corrupt = [r["_corrupt_record"] for r in data.collect() if r["_corrupt_record"]]
    full = theirs.schema.add("_corrupt_record", "string")
    with_corrupt = spark.read.schema(full).json(str(path)).collect()
    assert sorted(corrupt) == sorted(r["_corrupt_record"] for r in with_corrupt if r[-1])
    assert (len(corrupt) > 0) == (name not in ("string", "conflict"))


@pytest.mark.parametrize("mode", ["PERMISSIVE", "DROPMALFORMED"])
def test_a_malformed_line_types_no_column_as_spark_infers_them(spark, tmp_path, mode):
    """A line that is no JSON types nothing in Spark's inference, even where a value in it
    would conflict with the others' type (`"s2"` beside ints, in a line cut short): the
    sample learnt a string from the value refused (found by a differential fuzz)."""
    path = tmp_path / "f.json"
    path.write_text('{"a": 0}\n{"a":"s2",\n"b":2}\n{"a": 1, "c": [{"d": "x"}, }\n')
    theirs = spark.read.options(mode=mode).json(str(path))
    on_error = {"PERMISSIVE": "permissive", "DROPMALFORMED": "skip"}[mode]
    ours = bls.read(spark, str(path), on_error=on_error)
    columns = [c for c in theirs.columns if c != "_corrupt_record"]
    assert ours.select(*columns).schema == theirs.select(*columns).schema
    assert rows_of(ours.select(*columns)) == rows_of(theirs.select(*columns))
    assert theirs.schema["a"].dataType.simpleString() == "bigint"


def test_fields_of_mixed_types_are_strings_as_spark_infers_them(spark, tmp_path):
    """A field whose values have types no one type holds (a number and a string, in one
    file or in two; a struct member; list elements; a struct, a list and a string) is a
    string where the sample met the conflict, each value its JSON text, as
    `spark.read.json` infers and reads it; on the data source too. A column the user typed
    keeps its type: a value it cannot take is bad input, named."""
    for i, rows in enumerate(MIXED_ROWS):
        # compact: Spark 3.5 writes a value's text anew so (Spark 4 and the scan keep it)
        os.makedirs(f"{tmp_path}/data", exist_ok=True)
        with open(f"{tmp_path}/data/{i}.json", "w") as f:
            f.write("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in rows))
    data = f"{tmp_path}/data"
    reference = _typed_rows(spark.read.json(data))
    assert reference[0]["x"] == "string" and reference[0]["s"] == "struct<a:string,b:string>"
    assert reference[0]["n"] == reference[0]["g"] == "string"
    assert _typed_rows(bls.read(spark, data)) == reference
    # permissive: the same (the search samples strictly, then reads in the user's mode)
    permissive = bls.read(spark, data, on_error="permissive").drop("_corrupt_record")
    assert _typed_rows(permissive) == reference
    if HAS_PYTHON_DATA_SOURCES:
        bls.register(spark)
        assert _typed_rows(spark.read.format("batchloader").load(data)) == reference
    with pytest.raises(Exception, match=r"0\.json, line 2.*column 'x'.*does not fit"):
        bls.read(spark, data, schema="x long").collect()
    # Arrow's conventions: the conflict is bad input, as in a local scan
    with pytest.raises(Exception, match=r"column 'x'.*does not fit Int64"):
        bls.read(spark, data, json_conventions="arrow")

    # a reader of the user's own writes its own types: its conflict says so, as before
    def rows(file, writer):
        yield from ({"x": 1}, {"x": "two"})

    with pytest.raises(Exception, match=r"column 'x'.*str value \"two\" does not fit Int64"):
        bls.read(spark, data, format=rows)


@pytest.mark.parametrize("mode", ["PERMISSIVE", "DROPMALFORMED"])
def test_a_schema_maps_onto_a_headerless_csv_by_position_as_in_spark(spark, tmp_path, mode):
    """A CSV file without a header read with a schema: its fields are the schema's
    columns by position, as `spark.read.schema(...).csv` reads them (a short record, a long
    one and a field its type refuses are bad records, kept with partial results or
    dropped); with `inferSchema` and no schema, Spark's `_c0`, `_c1`... typed from the
    sample. Through `read` and the data source. (They read all-null columns beside Drill's
    `columns` list, and ignored `inferSchema`.)"""
    folder = tmp_path / "csv"
    folder.mkdir()
    (folder / "p.csv").write_text("1,a,1.5\n2,b\n3,c,2.5,extra\nx,d,3\n4,,5\n")
    ddl = "a int, b string, c double"
    theirs = spark.read.schema(f"{ddl}, _corrupt_record string").option("mode", mode)
    reference = rows_of(theirs.csv(str(folder)))
    assert len(reference) == (5 if mode == "PERMISSIVE" else 2)
    on_error = {"PERMISSIVE": "permissive", "DROPMALFORMED": "skip"}[mode]
    ours = bls.read(spark, str(folder), format="csv", schema=ddl, on_error=on_error)
    names = ["a", "b", "c"] + (["_corrupt_record"] if mode == "PERMISSIVE" else [])
    assert rows_of(ours.select(*names)) == _without(reference, names)
    inferred = _typed_rows(spark.read.option("inferSchema", True).csv(str(folder)))
    assert inferred[0] == {"_c0": "string", "_c1": "string", "_c2": "double"}
    typed = bls.read(spark, str(folder), format="csv", infer_schema=True, on_error="permissive")
    assert _typed_rows(typed.drop("_corrupt_record")) == inferred
    if HAS_PYTHON_DATA_SOURCES:
        bls.register(spark)
        source = spark.read.format("batchloader").option("format", "csv")
        loaded = source.schema(f"{ddl}, _corrupt_record string").option("mode", mode)
        assert rows_of(loaded.load(str(folder)).select(*names)) == _without(reference, names)
        source = spark.read.format("batchloader").options(format="csv", mode="PERMISSIVE")
        loaded = source.option("inferSchema", True).load(str(folder))
        assert _typed_rows(loaded.drop("_corrupt_record")) == inferred


def _without(rows, names):
    """`rows` (dicts) with only the keys `names`."""
    return sorted(({k: r[k] for k in names} for r in rows), key=repr)


def test_empty_csv_fields_are_nulls_as_spark_reads_them(spark, tmp_path):
    """Spark's CSV reader reads an empty field, quoted or not, as a null in a string column
    too (its `nullValue`, "", by default); so do `read` and the data source (Spark's CSV
    conventions) with a schema (`test_csv_null_values_give_sparks_nulls`: without one)."""
    folder = tmp_path / "csv"
    folder.mkdir()
    (folder / "e.csv").write_text('id,s,n\n1,,\n2,"",""\n3,x,4\n')
    ddl = "id int, s string, n int"
    theirs = spark.read.option("header", True).schema(ddl).csv(str(folder))
    reference = rows_of(theirs)
    assert {"id": 2, "s": None, "n": None} in reference
    ours = bls.read(spark, str(folder), header=True, schema=ddl, columns=["id", "s", "n"])
    assert rows_of(ours) == reference
    if HAS_PYTHON_DATA_SOURCES:
        bls.register(spark)
        source = spark.read.format("batchloader").schema(ddl).option("header", "true")
        assert rows_of(source.load(str(folder))) == reference


#: the file columns `read` adds after the data columns
FILE_COLUMNS = ("fqn", "filepath", "filename", "suffix")


def _data_schema(df) -> str:
    """The DataFrame's schema without the file columns, as Spark spells it."""
    return df.drop(*FILE_COLUMNS).schema.simpleString()


def test_inferred_json_columns_come_in_sparks_order(spark, tmp_path):
    """Spark's JSON inference orders a struct's members by name (Java's order: upper case
    before `_` before lower case, then the rest by code unit), at every depth and at the top
    level, the corrupt record column among them; so does `read` (file columns after them),
    on both paths. The columns the user typed come first, as given; a projection keeps its
    own order, and a struct it takes whole has its members in Spark's."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "a.json").write_text(
        '{"zeta": 1, "Beta": {"y": 1, "x": [{"q": 1, "p": 2}]}, "alpha": "s", "_id": 3, '
        '"\u00dcmlaut": 1, "\u00e9mile": 2}\n{"mid": true, "alpha": "t"}\n{bad\n'
    )
    theirs = spark.read.json(str(data))
    want = theirs.schema.simpleString()
    assert want.startswith("struct<Beta:struct<x:array<struct<p:bigint,q:bigint>>,y:bigint>")
    ours = bls.read(spark, str(data), on_error="permissive")
    assert _data_schema(ours) == want
    assert ours.columns[-len(FILE_COLUMNS) :] == list(FILE_COLUMNS)
    assert rows_of(ours.drop(*FILE_COLUMNS)) == rows_of(theirs)
    if HAS_PYTHON_DATA_SOURCES:
        bls.register(spark)
        source = spark.read.format("batchloader").option("mode", "PERMISSIVE").load(str(data))
        assert _data_schema(source) == want
    typed = bls.read(spark, str(data), schema="zeta long, Beta string", on_error="skip")
    inferred = ["_id", "alpha", "mid", "\u00dcmlaut", "\u00e9mile"]
    assert typed.drop(*FILE_COLUMNS).columns == ["zeta", "Beta", *inferred]
    projected = bls.read(spark, str(data), columns=["zeta", "filename", "Beta"], on_error="skip")
    assert projected.columns == ["zeta", "filename", "Beta"]
    assert _data_schema(projected) == (
        "struct<zeta:bigint,Beta:struct<x:array<struct<p:bigint,q:bigint>>,y:bigint>>"
    )
    assert [r["filename"] for r in projected.collect()] == ["a.json"] * 2


def test_whole_numbers_past_int64_are_decimals_as_spark_infers_them(spark, tmp_path):
    """A column (a struct member, list elements) with whole numbers past int64 (a uint64
    id) is a `decimal(p,0)` that keeps every digit, as Spark infers it, not a double that
    loses them: `p` is the most digits (20 at least beside a long; 19 for 2^63 alone, which
    a double holds exactly; 23 past uint64); one with fractions, an exponent or 39 digits
    is a double, as in Spark."""
    rows = [
        {"id": 1, "h": 12345678901234567890, "f": 1, "s": {"big": 1}, "l": [1]},
        {"id": 2, "h": 5, "f": 18446744073709551615, "s": {"big": 18446744073709551615}},
        {"id": 3, "f": 1.5, "l": [2, 9223372036854775809], "p": 2**63, "w": 10**22 + 7},
        {"id": 4, "w": -5, "n": int("9" * 39), "e": 1e19, "m": {"x": [[-(2**64)]]}},
    ]
    write(f"{tmp_path}/big/b.json", rows)
    path = f"{tmp_path}/big"
    reference = _typed_rows(spark.read.json(path))
    assert reference[0]["h"] == "decimal(20,0)" and reference[0]["f"] == "double"
    assert reference[0]["p"] == "decimal(19,0)" and reference[0]["w"] == "decimal(23,0)"
    assert reference[0]["n"] == reference[0]["e"] == "double"
    assert _typed_rows(bls.read(spark, path)) == reference
    if HAS_PYTHON_DATA_SOURCES:
        bls.register(spark)
        assert _typed_rows(spark.read.format("batchloader").load(path)) == reference


#: keys with dots and brackets, as logs have them (`http.status`), whose columns Spark's
#: inference rules type: a mixed-type field and member, whole numbers past int64, a field
#: only ever null; struct members in Spark's order (it sorts them; the scan puts the members
#: it learnt strings for first, then those it learnt decimals for)
DOTTED_ROWS = [
    {"a.b": 12345678901234567890, "http.status": 200, "id": 1, "l[]": [1], "n.x": None},
    {"a.b": 5, "http.status": "ok", "id": 2, "l[]": ["a"], "n.x": None, "": 1},
    {"id": 3, "s": {"k.v": 1, "plain": 1, "z.big": 1}, "t": {"u.v": {"w.x": 1}}, "e": {"": 2}},
    {"id": 4, "s": {"": 3, "k.v": "t", "plain": "p", "z.big": 2**64}, "t": {"u.v": {"w.x": "y"}}},
]


@pytest.mark.parametrize("options", [{}, {"dropFieldIfAllNull": "true"}])
def test_dotted_keys_are_names_to_sparks_inference(spark, tmp_path, options):
    """A key holding a dot or brackets (`http.status`, `l[]`) is one column to Spark's
    inference rules, not a struct's member: its mixed types make a string, its whole numbers
    past int64 a decimal, and `dropFieldIfAllNull` drops it if only nulls, as
    `spark.read.json` types and reads them; so does a struct that has both a string learnt
    from mixed types and a decimal learnt from whole numbers (each member keeps its rule:
    the string reads any value as its text). An empty key is no column or member (Spark
    drops them; a struct of only that is empty, and dropped too)."""
    write(f"{tmp_path}/d/d.json", DOTTED_ROWS)
    path = f"{tmp_path}/d"
    reference = _typed_rows(spark.read.options(**options).json(path))
    types = reference[0]
    assert types["http.status"] == "string" and types["a.b"] == "decimal(20,0)"
    assert types["s"] == "struct<k.v:string,plain:string,z.big:decimal(20,0)>"
    assert ("n.x" in types) == (not options)
    assert "" not in types and "e" not in types
    named = {"drop_field_if_all_null": True} if options else {}
    assert _typed_rows(bls.read(spark, path, **named)) == reference
    if HAS_PYTHON_DATA_SOURCES:
        bls.register(spark)
        loaded = spark.read.format("batchloader").options(**options).load(path)
        assert _typed_rows(loaded) == reference


#: lines of two files, as written (`1.50`, `1e2`, `-0.0` kept), for Spark's JSON inference
#: options: empty structs (top-level, members, list elements, after a null), fields only
#: nulls and empty lists typed, and every kind of value
INFERENCE_OPTION_LINES = [
    [
        '{"id": 1, "e": {}, "m": {"n": {}, "c": 1, "z": null}, "l": [{}], "i": 7, "f": 1.50,'
        ' "b": true, "s": "x", "d": null, "a": [], "an": [null], "aa": [[]], "h": [1.25, 2],'
        ' "k": 1e2, "w": 12345678901234567890}',
        '{"id": 2, "e": {}, "m": {"n": {}, "c": 2.5}, "l": [], "i": -0, "f": -0.0,'
        ' "b": false, "s": 5, "ne": null, "h": [3], "k": 0.000123, "g": {"x": null}}',
    ],
    [
        '{"id": 3, "ne": {}, "m": {"c": null, "z": null}, "i": 12, "s": {"q":1}, "g": {}}',
        '{"id": 4, "l": [{}, {}], "a": [], "f": 3}',
    ],
]


@pytest.mark.parametrize(
    "options", [{}, {"dropFieldIfAllNull": "true"}, {"primitivesAsString": "true"}]
)
def test_sparks_json_inference_options_type_as_spark_does(spark, tmp_path, options):
    """Spark's JSON inference leaves out structs with no members (`{}`, in lists and
    structs too); `dropFieldIfAllNull` also the fields only nulls and empty lists typed;
    `primitivesAsString` makes every value that is neither a struct nor a list a string,
    its text as written (`1.50`, `1e2`). `read` (`drop_field_if_all_null=`,
    `primitives_as_string=`) and the data source type and read the columns as
    `spark.read.json` does with those options."""
    for i, lines in enumerate(INFERENCE_OPTION_LINES):
        (tmp_path / f"{i}.json").write_text("".join(line + "\n" for line in lines))
    reference = _typed_rows(spark.read.options(**options).json(str(tmp_path)))
    all_null = {"d", "a", "an", "aa", "g"}
    dropped = {"e", "l", "ne"} | (all_null if "dropFieldIfAllNull" in options else set())
    assert dropped.isdisjoint(reference[0]), reference[0]
    assert all_null <= set(reference[0]) or "dropFieldIfAllNull" in options
    arguments = {
        "dropFieldIfAllNull": {"drop_field_if_all_null": True},
        "primitivesAsString": {"primitives_as_string": True},
    }
    named = next((arguments[k] for k in options), {})
    # Spark 3.5 writes a number it keeps as a string anew (`1.50` is `1.5`): types only
    texts_anew = "primitivesAsString" in options and not HAS_PYTHON_DATA_SOURCES
    ours = _typed_rows(bls.read(spark, str(tmp_path), **named))
    assert ours[0] == reference[0] and (texts_anew or ours == reference)
    if HAS_PYTHON_DATA_SOURCES:
        bls.register(spark)
        loaded = spark.read.format("batchloader").options(**options).load(str(tmp_path))
        assert _typed_rows(loaded) == reference


def test_prefers_decimal_types_fractions_as_spark_does(spark, tmp_path):
    """Spark's `prefersDecimal`: a JSON fraction is a decimal of its digits and scale
    (`1.50` `decimal(3,2)`, `0.000123` `decimal(6,6)`, `1.5e-3` `decimal(4,4)`), merged
    with longs (`decimal(21,1)`), big whole numbers and other fractions as Spark merges
    decimals, a double past 38 digits; `read(prefers_decimal=True)` and the data source's
    `prefersDecimal` type and read the columns as `spark.read.json` does. A number of
    negative scale (`1e2`) fails the read in both, named."""
    lines = [
        '{"frac": 1.5, "small": 0.000123, "negz": -0.0, "withlong": 1.5, "withbig": 1.5,'
        ' "wide": 123456789012345678901234567890.5, "toowide": 1234567890123456789012345678'
        '9012345678.5, "expneg": 1.5e-3, "exppos": 1.5e1, "s": 1.5, "l": [1.25, 2.5],'
        ' "m": {"x": 0.25}, "i": 3}',
        '{"frac": 1.50, "withlong": 2, "withbig": 12345678901234567890123,'
        ' "wide": 0.00000001, "s": "x", "l": [0.5], "m": {"x": 10}, "i": 4}',
    ]
    (tmp_path / "d.json").write_text("".join(line + "\n" for line in lines))
    reference = _typed_rows(spark.read.option("prefersDecimal", True).json(str(tmp_path)))
    types = reference[0]
    assert types["frac"] == "decimal(3,2)" and types["withlong"] == "decimal(21,1)"
    assert types["toowide"] == "double" and types["i"] == "bigint" and types["s"] == "string"
    assert _typed_rows(bls.read(spark, str(tmp_path), prefers_decimal=True)) == reference
    if HAS_PYTHON_DATA_SOURCES:
        bls.register(spark)
        source = spark.read.format("batchloader").option("prefersDecimal", "true")
        assert _typed_rows(source.load(str(tmp_path))) == reference
    (tmp_path / "d.json").write_text('{"a": 1.5}\n{"a": 1e2}\n')
    with pytest.raises(Exception, match=r"(?i)negative scale"):
        spark.read.option("prefersDecimal", True).json(str(tmp_path)).collect()
    with pytest.raises(ValueError, match=r"column 'a': 1e2 is a decimal of negative scale"):
        bls.read(spark, str(tmp_path), prefers_decimal=True)


@pytest.mark.parametrize("through", ["data source", "mapInArrow"])
def test_fields_spark_leaves_out_are_counted_past_the_sample_only_with_data(
    spark, tmp_path, through
):
    """A field Spark's inference leaves out of the sample's schema (an empty struct; with
    `dropFieldIfAllNull`, one only nulls typed) and that still holds nothing past the
    sample (nulls, empty objects and lists) loses nothing: not counted as left out; one
    that holds data there is counted in `ignored_columns`, as any column the sample
    missed."""
    (tmp_path / "a.json").write_text('{"id": 1, "e": {}, "n": null, "m": {"c": 1, "z": null}}\n')
    (tmp_path / "b.json").write_text(
        '{"id": 2, "e": {"x": [null, {}]}, "n": [], "m": {"c": 2, "z": [{}]}}\n'
        '{"id": 3, "e": {}, "n": null, "m": {"c": 3, "z": {"y": null}}}\n'
    )
    (tmp_path / "c.json").write_text('{"id": 4, "e": {"x": 1}, "n": 5, "m": {"c": 4, "z": "w"}}\n')
    ignored = bls.ignored_columns_accumulator(spark)
    if through == "data source":
        if not HAS_PYTHON_DATA_SOURCES:
            pytest.skip("Python data sources arrived in Spark 4")
        df = bls.read(
            spark,
            str(tmp_path),
            sample_rows=1,
            drop_field_if_all_null=True,
            ignored_columns=ignored,
        )
    else:
        plan = bls.ScanPlan(
            str(tmp_path),
            sample_rows=1,
            drop_field_if_all_null=True,
            **bls.SPARK_READ_DEFAULTS,
        )
        plan.ignored_columns = ignored
        df = bls._read_with_map_in_arrow(spark, plan)
    assert [c for c in df.columns if c in ("id", "e", "n", "m")] == ["id", "m"]
    assert sorted((r.id, r.m.c) for r in df.collect()) == [(1, 1), (2, 2), (3, 3), (4, 4)]
    assert ignored.value == {"e": 1, "n": 1, "m.z": 1}


def test_sparks_json_inference_options_need_sparks_conventions(tmp_path):
    """`primitives_as_string`, `drop_field_if_all_null` and `prefers_decimal` are rules of
    Spark's JSON inference: under Arrow's conventions, or over CSV files, they are refused,
    not ignored."""
    write(f"{tmp_path}/j.json", [{"n": 1}])
    for option in ("primitives_as_string", "drop_field_if_all_null", "prefers_decimal"):
        with pytest.raises(ValueError, match="json_conventions='spark'"):
            bls.ScanPlan(str(tmp_path), json_conventions="arrow", **{option: True})
    # nor applied to CSV, whose inference has rules of its own
    (tmp_path / "c.csv").write_text("x\n1.5\n")
    for option in ("primitives_as_string", "drop_field_if_all_null", "prefers_decimal"):
        with pytest.raises(ValueError, match=r"c\.csv is CSV \(its types: infer_schema=True\)"):
            bls.ScanPlan(str(tmp_path), json_conventions="spark", **{option: True})
    assert bls.scan_options_from({"primitivesAsString": "TRUE", "dropfieldifallnull": "0"}) == {
        "primitives_as_string": True,
        "drop_field_if_all_null": False,
    }
    with pytest.raises(ValueError, match="true or false"):
        bls.scan_options_from({"primitivesAsString": "yes"})


def test_csv_header_names_are_sparks(spark, tmp_path):
    """A header's empty names and names given twice (in any case) are named as Spark's CSV
    reader names them (`_c1`; `a0`, `a3`, `A4`) by `read` and the data source, where a
    local scan under Arrow's conventions calls the first `column2` and refuses the second."""
    folder = tmp_path / "h"
    folder.mkdir()
    (folder / "h.csv").write_text("a,,b,a,A,\n1,2,3,4,5,6\n")
    theirs = spark.read.option("header", True).csv(str(folder))
    assert theirs.columns == ["a0", "_c1", "b", "a3", "A4", "_c5"]
    ours = bls.read(spark, str(folder), header=True)
    data = [c for c in ours.columns if c not in ("fqn", "filepath", "filename", "suffix")]
    assert data == theirs.columns
    assert rows_of(ours.select(*data)) == rows_of(theirs)
    if HAS_PYTHON_DATA_SOURCES:
        bls.register(spark)
        source = spark.read.format("batchloader").option("header", "true").load(str(folder))
        assert rows_of(source.select(*data)) == rows_of(theirs)
    with pytest.raises(InputError, match="the header names 'a' twice"):
        list(bl.Scan(folder, header=True))


def test_numbers_and_binary_of_a_schema_read_as_sparks_json_reader_reads_them(spark, tmp_path):
    """Spark's JSON reader takes a whole number into a `timestamp` as seconds since the
    epoch (Arrow's rule, the loader's, counted microseconds: 1700000000 was
    1970-01-01T00:28:20) and a `binary` value from its base64 text, which Spark's JSON
    writer writes (the text's own bytes were kept): `read` follows Spark's reader, on both
    paths, and what Spark writes reads back. A number Spark's reader refuses (into a `date`)
    is an error naming the rule."""
    data = tmp_path / "data"
    payload = base64.b64encode(b"\x00\xffhi").decode()
    write(f"{data}/t.json", [{"ts": 1_700_000_000, "b": payload}, {"ts": -5, "b": ""}])
    ddl = "ts timestamp, b binary"
    reference = rows_of(spark.read.schema(ddl).json(str(data)))
    assert reference[1] == {"ts": dt.datetime.fromtimestamp(1_700_000_000), "b": b"\x00\xffhi"}
    df = bls.read(spark, str(data), columns=["ts", "b"], schema=ddl)
    assert rows_of(df) == reference
    plan = bls.ScanPlan(
        str(data),
        schema=bls.arrow_schema_of(spark, ddl),
        columns=["ts", "b"],
        json_conventions="spark",
    )
    assert rows_of(bls._read_with_map_in_arrow(spark, plan)) == reference
    if HAS_PYTHON_DATA_SOURCES:
        bls.register(spark)
        source = spark.read.format("batchloader").schema(ddl).load(str(data))
        assert rows_of(source) == reference
        arrow = spark.read.format("batchloader").option("json_conventions", "arrow")
        kept = rows_of(arrow.schema(ddl).load(str(data)))
        assert [r["b"] for r in kept] == [b"", payload.encode()]  # the texts' bytes

    written = str(tmp_path / "written")
    spark.read.schema(ddl).json(str(data)).write.json(written)
    assert rows_of(bls.read(spark, written, columns=["ts", "b"], schema=ddl)) == reference

    write(f"{tmp_path}/dates/d.json", [{"d": "2024-01-02"}, {"d": 19000}])
    with pytest.raises(Exception, match=r"d\.json, line 2.*reads a date from a string only"):
        bls.read(spark, f"{tmp_path}/dates", schema="d date").collect()
    # a wall clock with an offset: Spark's timestamp_ntz has no value for it (a null)
    write(f"{tmp_path}/ntz/n.json", [{"n": "2024-01-02T03:04:05"}, {"n": "2024-01-02T03:04:05Z"}])
    assert rows_of(spark.read.schema("n timestamp_ntz").json(f"{tmp_path}/ntz"))[0] == {"n": None}
    with pytest.raises(Exception, match=r"n\.json, line 2.*has a UTC offset.*no time zone"):
        bls.read(spark, f"{tmp_path}/ntz", schema="n timestamp_ntz").collect()


@needs_data_sources
def test_the_data_source_reads_timestamps_in_its_time_zone_option(spark, tmp_path):
    """`.schema(...)` with a `timestamp`: the data source reads texts without an offset in
    the zone of its `timeZone` option, as Spark's JSON reader does with the same option."""
    write(f"{tmp_path}/t.json", [{"ts": t} for t in TIMESTAMP_TEXTS])
    bls.register(spark)
    for zone in ["Asia/Tokyo", "-03:30", "PST"]:
        ours = spark.read.format("batchloader").option("timeZone", zone).schema("ts timestamp")
        theirs = spark.read.option("timeZone", zone).schema("ts timestamp")
        assert rows_of(ours.load(str(tmp_path))) == rows_of(theirs.json(str(tmp_path))), zone


@needs_data_sources
def test_the_data_source_registered_again_reads_in_the_sessions_zone_now(spark, tmp_path):
    """Without a `timeZone` option the data source reads a text without an offset in the
    session's zone at `register`: registered before the zone changes and again after it, it
    reads in the new zone, as Spark's JSON reader does."""
    write(f"{tmp_path}/t.json", [{"ts": t} for t in TIMESTAMP_TEXTS])
    key = "spark.sql.session.timeZone"
    before = spark.conf.get(key)
    bls.register(spark)
    try:
        for zone in ["Asia/Tokyo", "America/New_York"]:
            spark.conf.set(key, zone)
            bls.register(spark)
            ours = spark.read.format("batchloader").schema("ts timestamp").load(str(tmp_path))
            theirs = spark.read.schema("ts timestamp").json(str(tmp_path))
            assert rows_of(ours) == rows_of(theirs), zone
            # the values themselves, not only their display in the session's zone
            assert (
                ours.selectExpr("cast(ts as long) s").collect()
                == theirs.selectExpr("cast(ts as long) s").collect()
            ), zone
    finally:
        spark.conf.set(key, before)
        bls.register(spark)


#: patterns, and texts each reads or not as Spark 3.5 and 4.3 do (a probe of 200 texts in
#: CSV and JSON, dates and timestamps, found no other difference)
PATTERN_TEXTS = [
    ("dd/MM/yyyy HH:mm", ["02/01/2024 03:04", "2/1/2024 03:04", "02/01/2024 03:04:05"]),
    ("d/M/yyyy H:m", ["2/1/2024 3:4", "002/01/2024 03:04"]),
    ("yyyyMMddHHmmss", ["20240102030405", "2024010203040"]),
    ("MM/dd/yy hh:mm a", ["01/02/24 03:04 PM", "01/02/24 12:04 am", "01/02/24 13:04 PM"]),
    ("dd-MMM-yyyy", ["02-jan-2024", "02-January-2024"]),
    (
        "yyyy-MM-dd'T'HH:mm:ssXXX",
        ["2024-07-02T03:04:05+01:00", "2024-07-02T03:04:05+0100", "2024-07-02T03:04:05z"],
    ),
    # zone names as Java's zone text parser maps them (EST is New York's time, with its
    # summer time; IST is GMT, BST Bougainville's), in any case; VV takes ids only
    (
        "yyyy-MM-dd HH:mm z",
        [
            "2024-07-02 03:04 PST",
            "2024-07-02 03:04 Europe/Paris",
            "2024-07-02 03:04 europe/paris",
            "2024-07-02 03:04 EST",
            "2024-01-02 03:04 est",
            "2024-07-02 03:04 IST",
            "2024-07-02 03:04 BST",
            "2024-07-02 03:04 CEST",
            "2024-07-02 03:04 ACT",
            "2024-07-02 03:04 utc",
        ],
    ),
    (
        "yyyy-MM-dd HH:mm VV",
        ["2024-07-02 03:04 EST", "2024-07-02 03:04 PST", "2024-07-02 03:04 AMERICA/NEW_YORK"],
    ),
    ("yyyy-MM-dd[ HH:mm]", ["2024-07-02", "2024-07-02 03:04", "2024-07-02 03"]),
    ("yyyy-MM-dd", ["2024-02-30", "2024-01-02 ", "2024-01-02T00:00", "+2024-01-02"]),
    ("HH:mm:ss.SSS", ["00:00:01.5", "00:00:01.1234"]),
    ("hh:mm", ["03:04", "12:04", "+2024"]),
    ("yMMdd", ["20240102", "2024010"]),
]


@pytest.fixture
def corrected_time_parser(spark):
    """The shared session with Spark's time parser policy CORRECTED for one test: Spark
    4's default (3.5's, EXCEPTION, fails the job on a text its pre-3.0 parser would have
    read otherwise)."""
    policy = "spark.sql.legacy.timeParserPolicy"
    before = spark.conf.get(policy)
    spark.conf.set(policy, "CORRECTED")
    yield
    spark.conf.set(policy, before)


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_dates_and_timestamps_read_by_sparks_patterns_as_spark_reads_them(
    spark, tmp_path, session_zone, corrected_time_parser, fmt
):
    """`dateFormat` and `timestampFormat` (`date_format=`, `timestamp_format=` on `read`;
    Spark's names on the data source): each text read or refused as Spark's reader reads
    it with the same pattern, a local time in the session's zone (New York's here)."""
    _compare_pattern_reads(spark, tmp_path, fmt)


def _compare_pattern_reads(spark, tmp_path, fmt):
    for n, (pattern, texts) in enumerate(PATTERN_TEXTS):
        folder = tmp_path / str(n)
        folder.mkdir()
        if fmt == "csv":
            (folder / "a.csv").write_text(
                "i,t\n" + "".join(f'{i},"{t}"\n' for i, t in enumerate(texts))
            )
        else:
            write(str(folder / "a.json"), [{"i": i, "t": t} for i, t in enumerate(texts)])
        for kind, option, ours in [
            ("timestamp", "timestampFormat", "timestamp_format"),
            ("date", "dateFormat", "date_format"),
        ]:
            ddl = f"i int, t {kind}"
            theirs = spark.read.schema(ddl).option(option, pattern).option("header", True)
            want = rows_of(getattr(theirs, fmt)(str(folder)))
            options = {ours: pattern, "header": fmt == "csv", "on_error": "permissive"}
            got = bls.read(spark, str(folder), schema=ddl, **options).select("i", "t")
            assert rows_of(got) == want, (pattern, kind)
            if HAS_PYTHON_DATA_SOURCES:
                bls.register(spark)
                source = spark.read.format("batchloader").schema(ddl).option(option, pattern)
                loaded = source.option("header", "true").option("mode", "PERMISSIVE")
                assert rows_of(loaded.load(str(folder))) == want, (pattern, kind)


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_signed_years_read_by_sparks_patterns_as_spark_reads_them(
    spark, tmp_path, corrected_time_parser, fmt
):
    """A `-` before a pattern's year (not `-0000`), a `+` before more digits than `yyyy`
    takes: read as Spark reads them (compared as texts: Python has no year before 1)."""
    texts = ["-1975-11-14", "+12345-01-02", "+1975-01-02", "-0000-01-01", "-001-01-01"]
    texts += ["12345-01-02", "1975-11-14"]
    if fmt == "csv":
        (tmp_path / "a.csv").write_text(
            "i,t\n" + "".join(f"{i},{t}\n" for i, t in enumerate(texts))
        )
    else:
        write(str(tmp_path / "a.json"), [{"i": i, "t": t} for i, t in enumerate(texts)])
    ddl, pattern = "i int, t date", "yyyy-MM-dd"
    theirs = spark.read.schema(ddl).option("dateFormat", pattern).option("header", True)
    ours = bls.read(
        spark,
        str(tmp_path),
        schema=ddl,
        date_format=pattern,
        header=fmt == "csv",
        on_error="permissive",
    )
    as_text = ["i", "cast(t as string) t"]
    want = rows_of(getattr(theirs, fmt)(str(tmp_path)).selectExpr(*as_text))
    assert [r["t"] for r in want][:2] == ["-1975-11-14", "+12345-01-02"]
    assert rows_of(ours.selectExpr(*as_text)) == want


def test_json_numbers_past_a_doubles_range_are_infinities_as_spark_reads_them(spark, tmp_path):
    """`1E400` (or 400 digits) is infinity to Spark's JSON reader (Java's parseDouble),
    inferred a double; a column of another type refuses it as a bad value (the row's other
    values kept)."""
    lines = [
        '{"a": 1E400, "b": 1.5, "c": [1e999], "d": {"x": -1E400}}',
        '{"a": -1e999, "b": 1e-400, "c": [2], "d": {"x": 1}}',
        '{"a": 2, "b": 2, "c": [], "d": {"x": 2.5}}',
        '{"a": ' + "9" * 400 + ', "b": 3, "c": [-' + "1" * 320 + '], "d": {"x": 3}}',
    ]
    (tmp_path / "a.json").write_text("\n".join(lines) + "\n")
    path = str(tmp_path)
    inferred = spark.read.json(path)
    ours = bls.read(spark, path)
    assert ours.schema["a"].dataType.simpleString() == "double"
    for column in "abcd":
        assert ours.schema[column].dataType == inferred.schema[column].dataType, column
    assert rows_of(ours.select(*"abcd")) == rows_of(inferred)
    for ddl in ["a float, b double", "a decimal(10,2), b double", "a bigint, b float"]:
        ddl += ", _corrupt_record string"
        theirs = spark.read.schema(ddl).json(path)
        told = bls.read(spark, path, schema=ddl, on_error="permissive")
        assert rows_of(told.select(*theirs.columns)) == rows_of(theirs), ddl


def test_time_zones_as_spark_spells_them_become_arrows():
    for spark_name, arrow in [
        ("America/New_York", "America/New_York"),
        ("Z", "UTC"),
        ("GMT", "UTC"),
        ("+8", "+08:00"),
        ("UTC+08:00", "+08:00"),
        ("GMT-0530", "-05:30"),
        ("PST", "America/Los_Angeles"),
        ("EST", "-05:00"),
    ]:
        assert bls.arrow_time_zone(spark_name) == arrow, spark_name
        assert pa.timestamp("us", arrow).tz == arrow


def test_sparks_variant_type_is_refused_by_name(spark, events):
    """Spark 4's `variant` maps to an Arrow struct of binaries no JSON value fits: each row
    failed as bad input naming that struct; it is refused when the read is made."""
    types = pytest.importorskip("pyspark.sql.types")
    if not hasattr(types, "VariantType"):
        pytest.skip("variant arrived in Spark 4")
    root, _ = events
    schema = types.StructType(
        [
            types.StructField("id", types.LongType()),
            types.StructField(
                "address", types.StructType([types.StructField("city", types.VariantType())])
            ),
        ]
    )
    with pytest.raises(ValueError, match=r"'address\.city' Spark's variant type"):
        bls.read(spark, str(root), schema=schema)


def test_the_map_in_arrow_path_gives_the_same_result(spark, events):
    """read() uses the data source on Spark 4 and mapInArrow on 3.5: both, here."""
    root, _ = events
    cols = ["id", "tags", "address.city", "dir1"]
    plan = bls.ScanPlan(str(root), columns=cols, parallelism=2)
    by_map = bls._read_with_map_in_arrow(spark, plan)
    assert by_map.schema == bls.read(spark, str(root), columns=cols).schema
    assert rows_of(by_map) == rows_of(bls.read(spark, str(root), columns=cols))
    assert by_map.rdd.getNumPartitions() == 2


@needs_data_sources
def test_the_data_source_scans_with_a_schema_the_user_sets(spark, events):
    root, rows = events
    bls.register(spark)
    ddl = "id int, address struct<city: string>, score double"
    df = spark.read.format("batchloader").schema(ddl).load(str(root))
    assert df.schema.simpleString() == "struct<id:int,address:struct<city:string>,score:double>"
    expected = [
        {"id": r["id"], "address": {"city": r["address"]["city"]}, "score": r["score"]}
        for r in rows
    ]
    assert rows_of(df) == sorted(expected, key=repr)


@needs_data_sources
def test_a_schema_the_user_sets_is_not_second_guessed_by_discovery(spark, tmp_path):
    """With .schema(...) the files are read with it: a column the user leaves out may even
    change type between files (discovering it would fail)."""
    (tmp_path / "a.json").write_text('{"id": 1, "junk": 1}\n')
    (tmp_path / "b.json").write_text('{"id": 2, "junk": {"x": [1]}}\n')
    bls.register(spark)
    df = spark.read.format("batchloader").schema("id long").load(str(tmp_path))
    assert rows_of(df) == [{"id": 1}, {"id": 2}]


@needs_data_sources
def test_a_string_column_the_user_sets_takes_numbers_as_their_text_as_spark_does(spark, tmp_path):
    """An id that is a number in some lines and a string in others: with `id string` each
    is read as its text, as Spark's own JSON reader reads it."""
    lines = ['{"id": 1}', '{"id": "a2"}', '{"id": 30000000000}', '{"id": null}', '{"id": -4}']
    (tmp_path / "ids.json").write_text("\n".join(lines) + "\n")
    bls.register(spark)
    ours = spark.read.format("batchloader").schema("id string").load(str(tmp_path))
    theirs = spark.read.schema("id string").json(str(tmp_path))
    assert rows_of(ours) == rows_of(theirs)
    assert sorted(r["id"] for r in rows_of(ours) if r["id"]) == ["-4", "1", "30000000000", "a2"]


def test_nested_projection_and_implicit_columns(spark, events):
    root, rows = events
    df = bls.read(spark, str(root), columns=["id", "address.city", "dir1", "filename"])
    got = {r["id"]: r for r in rows_of(df)}
    assert len(got) == len(rows)
    for row in rows:
        month = f"month={row['id'] // 100:02d}"
        assert got[row["id"]] == {
            "id": row["id"],
            "address": {"city": row["address"]["city"]},
            "dir1": month,
            "filename": "part-0.json",
        }
    spark.createDataFrame([], "x int")  # the session stays usable
    by_city = {
        r["city"]: r["n"]
        for r in df.groupBy("address.city").count().withColumnRenamed("count", "n").collect()
    }
    assert by_city == {"Lyon": 40, "Oslo": 40}


def test_schema_drift_across_files(spark, tmp_path):
    write(f"{tmp_path}/1.json", [{"a": 1, "b": "x", "c": 1.5}])
    write(f"{tmp_path}/2.json", [{"a": 2, "b": "y"}])
    write(f"{tmp_path}/3.json", [{"b": "z", "c": 2.5}])
    df = bls.read(spark, str(tmp_path), columns=["a", "b", "c"])
    assert rows_of(df) == sorted(
        [
            {"a": 1, "b": "x", "c": 1.5},
            {"a": 2, "b": "y", "c": None},
            {"a": None, "b": "z", "c": 2.5},
        ],
        key=repr,
    )


def test_the_sampled_schema_has_the_columns_of_every_sampled_file(spark, tmp_path):
    """Without `columns`, the schema is the union of what the sample saw, not the first
    file's columns (a later file's new column would be dropped in every task)."""
    write(f"{tmp_path}/1.json", [{"a": 1}])
    write(f"{tmp_path}/2.json", [{"a": 2, "n": "new"}])
    df = bls.read(spark, str(tmp_path))
    assert [c for c in df.columns if c in ("a", "n")] == ["a", "n"]
    got = sorted((r["a"], r["n"]) for r in df.collect())
    assert got == [(1, None), (2, "new")]


def test_an_input_without_rows_still_has_the_projected_columns(spark, tmp_path):
    """A query over empty files can name the columns it asked for: they are there, with the
    types a file lacking them gives, and there are no rows."""
    (tmp_path / "empty.json").write_text("\n")
    df = bls.read(spark, str(tmp_path), columns=["id", "address.city"])
    assert df.columns == ["id", "address"]
    assert df.schema["address"].dataType.simpleString() == "struct<city:string>"
    assert df.select("id", "address.city").count() == 0


def test_executor_input_error_reaches_the_driver(spark, tmp_path):
    write(f"{tmp_path}/ok.json", [{"a": 1}])
    with open(f"{tmp_path}/bad.json", "w") as f:
        f.write('{"a": 1}\n{"a": oops}\n')
    df = bls.read(spark, str(tmp_path / "ok.json"), columns=["a"])  # schema from a good file
    bad = bls.read(
        spark, [str(tmp_path / "ok.json"), str(tmp_path / "bad.json")], columns=["a"], sample_rows=1
    )
    assert rows_of(df) == [{"a": 1}]
    with pytest.raises(Exception, match=r"bad\.json, line 2, column \d+: malformed JSON"):
        bad.collect()


def test_headerless_csv_columns_in_spark_sql(spark, tmp_path):
    path = tmp_path / "amount.csv"
    path.write_text(
        '"1","Bob","200","false"\n"2","Kate","150","true"\n'
        '"3","Tim","20","false"\n"4","Roger","500","true"\n'
    )
    bls.read(spark, str(path)).createOrReplaceTempView("amount")
    totals = spark.sql(
        "SELECT cast(columns[3] AS boolean) AS discount, "
        "sum(cast(columns[2] AS double)) AS total_amount FROM amount "
        "GROUP BY columns[3] ORDER BY discount"
    ).collect()
    assert [(r.discount, r.total_amount) for r in totals] == [(False, 220.0), (True, 650.0)]


@needs_data_sources
def test_data_source_format_and_sql(spark, events):
    root, rows = events
    bls.register(spark)
    df = (
        spark.read.format("batchloader")
        .option("columns", "id, address.city, dir1")
        .option("batch_byte_limit", "65536")
        .load(str(root))
    )
    assert df.columns == ["id", "address", "dir1"]
    assert df.count() == len(rows)
    assert {r.dir1 for r in df.select("dir1").distinct().collect()} == {"month=01", "month=02"}
    spark.sql(
        f"CREATE OR REPLACE TEMPORARY VIEW ev USING batchloader OPTIONS (path '{root}', "
        "columns 'id,dir1')"
    )
    counts = {
        r.dir1: r.n for r in spark.sql("SELECT dir1, count(*) AS n FROM ev GROUP BY dir1").collect()
    }
    assert counts == {"month=01": 40, "month=02": 40}


def test_data_source_options_from_spark(tmp_path):
    """Spark hands `load([p1, p2])` over as a JSON array in `paths`; `path` is split at its
    commas, unless it names a local file as it is (`load(path)` takes one path); an option
    the data source does not know (a typo) is an error, not ignored."""
    got = bls.scan_options_from(
        {"paths": json.dumps(["/d/a,1.json", "/d/b.json"]), "Columns": "id, m.x", "header": "true"}
    )
    assert got == {"paths": ["/d/a,1.json", "/d/b.json"], "columns": ["id", "m.x"], "header": True}
    assert bls.scan_options_from({"path": "/d/a.json,/d/b.json"})["paths"] == [
        "/d/a.json",
        "/d/b.json",
    ]
    named = tmp_path / "a,1.json"
    named.write_text('{"id": 1}\n')
    assert bls.scan_options_from({"path": str(named)})["paths"] == [str(named)]
    split = bls.scan_options_from({"path": f"{named},{tmp_path}/b.json"})["paths"]
    assert split == [str(tmp_path / "a"), "1.json", f"{tmp_path}/b.json"]
    # a comma in braces separates alternatives of one path (Hadoop's glob), not paths
    assert bls.scan_options_from({"path": "/d/{2024,2025}/*.json,/e"})["paths"] == [
        "/d/{2024,2025}/*.json",
        "/e",
    ]
    assert bls.scan_options_from({"sample_rows": "All"}) == {"sample_rows": None}
    # a comma in backquotes is part of a name
    columns = bls.scan_options_from({"columns": "`a,b`, `x``,y`.z ,, m.`p, q`[1]"})["columns"]
    assert columns == ["`a,b`", "`x``,y`.z", "m.`p, q`[1]"]
    assert bl.parse_projection(columns).names == ["a,b", "x`,y", "m"]
    with pytest.raises(ValueError, match=r"no option 'on_eror'.*on_error"):
        bls.scan_options_from({"path": "/d/a.json", "on_eror": "skip"})
    # Spark's own spellings of the mode and the delimiter
    for mode, on_error in [("DROPMALFORMED", "skip"), ("failFast", "error")]:
        assert bls.scan_options_from({"mode": mode}) == {"on_error": on_error}
    assert bls.scan_options_from({"mode": "PERMISSIVE", "on_error": "permissive"}) == {
        "on_error": "permissive"
    }
    assert bls.scan_options_from({"sep": ";"}) == {"delimiter": ";"}
    with pytest.raises(ValueError, match="PERMISSIVE, DROPMALFORMED and FAILFAST"):
        bls.scan_options_from({"mode": "lenient"})
    with pytest.raises(ValueError, match=r"'mode' says 'skip' .* said 'error'"):
        bls.scan_options_from({"on_error": "error", "mode": "DROPMALFORMED"})
    with pytest.raises(ValueError, match=r"'sep' says ';' .* said ','"):
        bls.scan_options_from({"delimiter": ",", "sep": ";"})
    assert bls.scan_options_from({"nullValue": "NA"}) == {"null_values": "NA"}
    with pytest.raises(ValueError, match=r"'nullvalue' says '' .* said 'NA'"):
        bls.scan_options_from({"null_values": "NA", "nullValue": ""})


def test_data_source_flags_and_numbers_are_read_strictly():
    """A flag is true or false (Spark's spellings, any case, and 1/0): a misspelt `true`
    read a CSV's header as a row, silently; a number that is not one names its option."""
    for text, flag in [
        ("true", True),
        (" TRUE ", True),
        ("1", True),
        ("False", False),
        ("0", False),
    ]:
        assert bls.scan_options_from({"header": text}) == {"header": flag}
    assert bls.scan_options_from({"inferSchema": "True"}) == {"infer_schema": True}
    # the readers read UTF-8 (nothing to say), ISO-8859-1 and US-ASCII: Spark's encoding
    # option may name those, and nothing else
    assert bls.scan_options_from({"encoding": "UTF-8", "charset": "utf-8"}) == {}
    assert bls.scan_options_from({"charset": "ISO-8859-1"}) == {"encoding": "iso-8859-1"}
    with pytest.raises(ValueError, match=r"'encoding' is \"windows-1252\".*read utf-8, iso"):
        bls.scan_options_from({"encoding": "windows-1252"})
    for option in ["header", "multiLine", "allow_schema_change", "inferSchema"]:
        with pytest.raises(
            ValueError, match=rf"option '{option.lower()}' is true or false, not 'ture'"
        ):
            bls.scan_options_from({option: "ture"})
    assert bls.scan_options_from({"row_limit": " 100 "}) == {"row_limit": 100}
    with pytest.raises(ValueError, match=r"option 'row_limit' is a whole number, not 'abc'"):
        bls.scan_options_from({"row_limit": "abc"})
    with pytest.raises(ValueError, match=r"option 'split_bytes' is a whole number, not '1.5'"):
        bls.scan_options_from({"split_bytes": "1.5"})


def test_a_sample_that_cannot_give_a_schema_is_refused(tmp_path):
    """No row sampled and nothing else naming a data column would leave every data column
    out; a negative count means nothing. With a schema or a projection, no sample is fine."""
    write(f"{tmp_path}/a.json", [{"a": 1, "b": "x"}])
    with pytest.raises(ValueError, match=r"sample_rows must be None \(every row\) or >= 0"):
        bls.ScanPlan(str(tmp_path), sample_rows=-1)
    with pytest.raises(ValueError, match="sample_rows=0 samples no row"):
        bls.ScanPlan(str(tmp_path), sample_rows=0)
    schema = pa.schema([("a", pa.int64())])
    # the projection alone guesses utf8, and keeps the number as its text
    for options, want in (({"schema": schema}, 1), ({"columns": ["a"]}, "1")):
        plan = bls.ScanPlan(str(tmp_path), sample_rows=0, **options)
        rows = [r for t in plan.tasks for b in plan.scan_task(t) for r in b.to_pylist()]
        assert [r["a"] for r in rows] == [want]


def test_a_full_sample_sees_a_column_a_small_sample_misses(tmp_path):
    write(f"{tmp_path}/1.json", [{"a": 1}, {"a": 2}])
    write(f"{tmp_path}/2.json", [{"a": 3}, {"a": 4, "late": "x"}])
    assert "late" not in bls.ScanPlan(str(tmp_path), sample_rows=2).schema.names
    assert "late" in bls.ScanPlan(str(tmp_path), sample_rows=None).schema.names


def test_the_sample_spreads_over_the_files(tmp_path):
    """A column the later files brought (a field added one day) is in the sample, not
    only in the first files' rows: the sample reads its rows from the files spread over
    the list (the first, the last, the middle...), as many from each as its size allows
    (at least 100), rather than the first rows it meets; it reads no more rows than
    `sample_rows`."""
    for day in range(1, 31):
        rows = [{"day": day, "n": i} for i in range(500)]
        if day >= 25:
            rows = [{**r, "added": f"d{day}"} for r in rows]
        write(f"{tmp_path}/2024-06-{day:02d}.json", rows)
    plan = bls.ScanPlan(str(tmp_path), sample_rows=1000)
    assert "added" in plan.schema.names
    # 10 files of 100 rows: the first, the last and eight between
    assert bls.spread([1, 2, 3, 4, 5]) == [1, 5, 3, 2, 4]
    assert sorted(bls.spread(list(range(30)))) == list(range(30))
    # one big file: its first rows, as before
    write(f"{tmp_path}/big/1.json", [{"a": i} for i in range(300)] + [{"a": 0, "b": 1}])
    assert "b" not in bls.ScanPlan(f"{tmp_path}/big", sample_rows=300).schema.names


def test_a_sample_of_whole_numbers_and_fractions_infers_float64(tmp_path):
    """The driver's sample widens across files as a file widens within itself."""
    write(f"{tmp_path}/1.json", [{"a": 1, "m": {"x": 1}}])
    write(f"{tmp_path}/2.json", [{"a": 2.5, "m": {"x": 0.5}}])
    plan = bls.ScanPlan(str(tmp_path), columns=["a", "m"])
    assert plan.schema == pa.schema([("a", pa.float64()), ("m", pa.struct([("x", pa.float64())]))])
    assert [b.to_pylist() for b in plan.scan(f"{tmp_path}/1.json")] == [
        [{"a": 1.0, "m": {"x": 1.0}}]
    ]


def test_a_sample_types_columns_a_first_file_had_only_as_nulls_or_empty_lists(tmp_path):
    """Spark's own JSON inference types such columns from the files that have values; so
    does the driver's sample, and the first file is then read with those types."""
    write(f"{tmp_path}/1.json", [{"n": None, "l": []}])
    write(f"{tmp_path}/2.json", [{"n": 5, "l": [1]}])
    plan = bls.ScanPlan(str(tmp_path), columns=["n", "l"])
    assert plan.schema == pa.schema([("n", pa.int64()), ("l", pa.list_(pa.int64()))])
    assert [b.to_pylist() for b in plan.scan(f"{tmp_path}/1.json")] == [[{"n": None, "l": []}]]


def test_a_number_past_the_sample_in_a_sampled_string_column_is_still_refused(tmp_path):
    """A string column the sample typed is the data's reading, not the user's word: a number
    past the sample is bad input (with the sample's note), not silently text; given in
    schema=, the column reads it as its text."""
    write(f"{tmp_path}/1.json", [{"id": "a1"}])
    write(f"{tmp_path}/2.json", [{"id": 2}])
    plan = bls.ScanPlan(str(tmp_path), sample_rows=1, columns=["id"])
    assert plan.schema.field("id").type == pa.utf8()
    with pytest.raises(InputError, match=r"'id' is string as the driver inferred it"):
        list(plan.scan(f"{tmp_path}/2.json"))
    given = bls.ScanPlan(str(tmp_path), columns=["id"], schema=pa.schema([("id", pa.utf8())]))
    assert [b.to_pylist() for b in given.scan(f"{tmp_path}/2.json")] == [[{"id": "2"}]]


def test_a_value_past_the_sample_where_the_sample_guessed_the_type_is_kept_as_text(tmp_path):
    """A column only null in the sample, a list only empty, a projected column the sample
    never met: the sample guessed their types (utf8, list<utf8>), and an executor keeps a
    value past the sample there as its JSON text, as a local scan does with the guesses its
    first batch fixed (it failed the task)."""
    write(f"{tmp_path}/1.json", [{"n": None, "l": []}])
    write(f"{tmp_path}/2.json", [{"n": {"a": 1}, "l": [2, "s"], "gone": 3.5}])
    plan = bls.ScanPlan(str(tmp_path), sample_rows=1, columns=["n", "l", "gone"])
    assert plan.schema == pa.schema(
        [("n", pa.utf8()), ("l", pa.list_(pa.utf8())), ("gone", pa.utf8())]
    )
    rows = [r for b in plan.scan(f"{tmp_path}/2.json") for r in b.to_pylist()]
    assert rows == [{"n": '{"a": 1}', "l": ["2", "s"], "gone": "3.5"}]


def test_guesses_and_inferred_types_of_a_dotted_key_reach_the_executors(tmp_path):
    """A key `a.b` is one column, not member b of a, in what the sample tells the executors:
    only null in the sample, a later value is kept as its text (it failed the task); typed
    by the sample, a value that does not fit says why the column has its type."""
    write(f"{tmp_path}/1.json", [{"a.b": None, "x.y": 1, "k": 0}])
    write(f"{tmp_path}/2.json", [{"a.b": 5, "x.y": 1, "k": 1}])
    write(f"{tmp_path}/3.json", [{"a.b": [1], "x.y": 2.5, "k": 2}])
    plan = bls.ScanPlan(str(tmp_path), sample_rows=1)
    assert plan.schema.field("a.b").type == pa.utf8()
    rows = [r for b in plan.scan(f"{tmp_path}/2.json") for r in b.to_pylist()]
    assert [(r["a.b"], r["x.y"]) for r in rows] == [("5", 1)]
    with pytest.raises(InputError, match=r"'x\.y' is int64 as the driver inferred it"):
        list(plan.scan(f"{tmp_path}/3.json"))


def test_a_fraction_past_the_sample_says_the_type_came_from_the_sample(tmp_path):
    """An executor meeting a value the sampled type cannot take says why the column has that
    type and how to widen the sample; sample_rows=None reads it as float64."""
    write(f"{tmp_path}/1.json", [{"a": 1}, {"a": 2}])
    write(f"{tmp_path}/2.json", [{"a": 2.5}])
    plan = bls.ScanPlan(str(tmp_path), sample_rows=2, columns=["a"])
    assert plan.schema.field("a").type == pa.int64()
    with pytest.raises(InputError) as caught:
        list(plan.scan(f"{tmp_path}/2.json"))
    message = str(caught.value)
    assert "2.json, line 1" in message
    assert "'a' is int64 as the driver inferred it from the first 2 rows (sample_rows)" in message
    full = bls.ScanPlan(str(tmp_path), sample_rows=None, columns=["a"])
    assert [b.to_pylist() for b in full.scan(f"{tmp_path}/2.json")] == [[{"a": 2.5}]]


@needs_data_sources
def test_the_data_source_loads_a_list_of_paths(spark, tmp_path):
    write(f"{tmp_path}/1.json", [{"a": 1}])
    write(f"{tmp_path}/2.json", [{"a": 2, "n": "new"}])
    bls.register(spark)
    df = spark.read.format("batchloader").load([f"{tmp_path}/1.json", f"{tmp_path}/2.json"])
    assert sorted((r["a"], r["n"]) for r in df.collect()) == [(1, None), (2, "new")]


def _big_ndjson(path, n=3000):
    rows = [
        {"id": i, "s": "x" * (i % 13), "m": {"k": i % 5}, "l": list(range(i % 4))} for i in range(n)
    ]
    write(str(path), rows)
    return rows


def test_permissive_keeps_a_bad_line_past_the_sample_in_corrupt_record(spark, tmp_path):
    """The driver's sample holds only good lines, yet it plans for permissive mode's
    column: a malformed line an executor meets later is kept there, not an error."""
    lines = [json.dumps({"a": i}) for i in range(300)]
    lines[250] = '{"a": oops'
    (tmp_path / "p.json").write_text("\n".join(lines) + "\n")
    df = bls.read(spark, str(tmp_path), sample_rows=100, on_error="permissive")
    assert "_corrupt_record" in df.columns
    bad = df.where("_corrupt_record is not null").select("a", "_corrupt_record").collect()
    assert [r.asDict() for r in bad] == [{"a": None, "_corrupt_record": '{"a": oops'}]
    assert df.count() == 300


@needs_data_sources
def test_the_data_source_fills_corrupt_record_when_the_users_schema_names_it(spark, tmp_path):
    """Spark's own convention: `_corrupt_record string` in the schema asks for the text of
    malformed lines."""
    (tmp_path / "p.json").write_text('{"a": 1}\n{"a": oops\n{"a": 3}\n')
    bls.register(spark)
    df = (
        spark.read.format("batchloader")
        .schema("a long, _corrupt_record string")
        .option("on_error", "permissive")
        .load(str(tmp_path))
    )
    assert sorted(map(tuple, df.collect()), key=repr) == [
        (1, None),
        (3, None),
        (None, '{"a": oops'),
    ]


def test_bad_lines_go_to_the_column_spark_names_for_them(spark, tmp_path):
    """Spark's `columnNameOfCorruptRecord`, the option or the session's setting: the
    column malformed lines are kept in, on `read` and the data source, as Spark's JSON
    reader keeps them."""
    (tmp_path / "p.json").write_text('{"a": 1}\n{"a": oops\n{"a": 3}\n')
    ddl = "a long, bad string"
    want = rows_of(
        spark.read.schema(ddl).option("columnNameOfCorruptRecord", "bad").json(str(tmp_path))
    )
    assert {"a": None, "bad": '{"a": oops'} in want
    ours = bls.read(
        spark, str(tmp_path), schema="a long", on_error="permissive", corrupt_record_column="bad"
    )
    assert rows_of(ours.select("a", "bad")) == want
    key = "spark.sql.columnNameOfCorruptRecord"
    spark.conf.set(key, "bad")
    try:
        ours = bls.read(spark, str(tmp_path), schema="a long", on_error="permissive")
        assert rows_of(ours.select("a", "bad")) == want
    finally:
        spark.conf.unset(key)
    if HAS_PYTHON_DATA_SOURCES:
        bls.register(spark)
        source = spark.read.format("batchloader").schema(ddl).option("mode", "PERMISSIVE")
        loaded = source.option("columnNameOfCorruptRecord", "bad").load(str(tmp_path))
        assert rows_of(loaded) == want


@needs_data_sources
@pytest.mark.parametrize("mode", ["PERMISSIVE", "DROPMALFORMED"])
def test_the_data_source_takes_sparks_mode_option_as_spark_does(spark, tmp_path, mode):
    """Spark's `mode` option spelled as Spark's readers take it: the rows Spark's JSON reader
    gives for the same file, schema and mode."""
    # (a line of white space is blank, a form feed is not JSON's: that line is malformed)
    (tmp_path / "p.json").write_text('{"a": 1}\n{"a": oops\n \t\r\n\f\n{"a": 3}\n')
    bls.register(spark)
    ddl = "a long, _corrupt_record string"
    ours = spark.read.format("batchloader").schema(ddl).option("mode", mode).load(str(tmp_path))
    theirs = spark.read.schema(ddl).option("mode", mode).json(str(tmp_path))
    assert rows_of(ours) == rows_of(theirs)
    assert len(rows_of(theirs)) == (4 if mode == "PERMISSIVE" else 2)


def test_permissive_json_keeps_a_bad_lines_values_as_sparks_json_reader_does(spark, tmp_path):
    """Spark's JSON reader keeps a bad line's values that convert (partial results: a value
    that does not null, or the array or map holding it), beside the line in
    `_corrupt_record`; so do `read` and the data source (Spark's conventions)."""
    from test_ndjson import PARTIAL_LINES

    (tmp_path / "p.json").write_text("".join(line + "\n" for line, _ in PARTIAL_LINES))
    ddl = (
        "a int, b int, s struct<p: int, q: int>, l array<int>, "
        "ls array<struct<x: int, y: int>>, ll array<array<int>>, m map<string, int>, "
        "d decimal(5,1), ms map<string, struct<x: int, y: int>>"
    )
    theirs = spark.read.schema(f"{ddl}, _corrupt_record string").option("mode", "PERMISSIVE")
    want = rows_of(theirs.json(str(tmp_path)))
    # Spark kept the member that converts beside the one that did not
    assert {"a": 1, "s": {"p": 1, "q": None}} in [{"a": r["a"], "s": r["s"]} for r in want]
    ours = bls.read(spark, str(tmp_path), schema=ddl, on_error="permissive")
    names = ["a", "b", "s", "l", "ls", "ll", "m", "d", "ms", "_corrupt_record"]
    assert rows_of(ours.select(*names)) == want
    if HAS_PYTHON_DATA_SOURCES:
        bls.register(spark)
        source = spark.read.format("batchloader").schema(f"{ddl}, _corrupt_record string")
        assert rows_of(source.option("mode", "PERMISSIVE").load(str(tmp_path))) == want


def test_permissive_csv_keeps_a_bad_records_values_as_sparks_csv_reader_does(spark, tmp_path):
    """Spark's CSV reader keeps a bad record's fields that convert (partial results), a
    field that does not null, beside the record in `_corrupt_record`; so does `read` (its
    Spark conventions), a record with more fields than the header or fewer included (Spark
    takes both as malformed when it reads every column)."""
    (tmp_path / "p.csv").write_text("a,b,c\n1,x,p\n2,3,q\n4,5,r,extra\n6,7\n8,9.5,s\n,,\n")
    ddl = "a int, b int, c string"
    theirs = spark.read.schema(f"{ddl}, _corrupt_record string").option("header", True)
    want = rows_of(theirs.option("mode", "PERMISSIVE").csv(str(tmp_path)))
    assert {"a": 4, "b": 5, "c": "r", "_corrupt_record": "4,5,r,extra"} in want
    assert {"a": 6, "b": 7, "c": None, "_corrupt_record": "6,7"} in want
    ours = bls.read(spark, str(tmp_path), schema=ddl, header=True, on_error="permissive")
    assert rows_of(ours.select("a", "b", "c", "_corrupt_record")) == want
    if HAS_PYTHON_DATA_SOURCES:
        bls.register(spark)
        source = spark.read.format("batchloader").schema(f"{ddl}, _corrupt_record string")
        loaded = source.option("header", "true").option("mode", "PERMISSIVE")
        assert rows_of(loaded.load(str(tmp_path))) == want


DECIMAL_TEXTS = ["1.2", "1.234", "1.235", "-1.235", "999.994", "999.995", "0.005", "1.5e-3"]


@pytest.mark.parametrize("mode", ["DROPMALFORMED", "FAILFAST"])
def test_csv_records_short_or_long_of_fields_are_malformed_as_to_spark(spark, tmp_path, mode):
    """A CSV record with fewer or more fields than the header is malformed to Spark's CSV
    reader when it reads every column: DROPMALFORMED drops it, FAILFAST fails; so do `read`
    and the data source (Spark's conventions; `on_error` "skip" and "error")."""
    (tmp_path / "s.csv").write_text("a,b,c\n1,2,3\n4,5\n6\n7,8,9\n\n10,11,12,13\n")
    ddl = "a int, b int, c int"
    on_error = {"DROPMALFORMED": "skip", "FAILFAST": "error"}[mode]
    theirs = spark.read.schema(ddl).option("header", True).option("mode", mode)

    def ours() -> Any:
        return bls.read(spark, str(tmp_path), schema=ddl, header=True, on_error=on_error)

    def source() -> Any:
        bls.register(spark)
        source = spark.read.format("batchloader").schema(ddl).option("header", "true")
        return source.option("mode", mode).load(str(tmp_path))

    readers = [ours, source] if HAS_PYTHON_DATA_SOURCES else [ours]
    if mode == "DROPMALFORMED":
        want = rows_of(theirs.csv(str(tmp_path)))
        assert want == [{"a": 1, "b": 2, "c": 3}, {"a": 7, "b": 8, "c": 9}]
        for read in readers:
            assert rows_of(read().select("a", "b", "c")) == want
    else:
        with pytest.raises(Exception, match="Malformed CSV record"):
            theirs.csv(str(tmp_path)).collect()
        for read in readers:
            with pytest.raises(Exception, match="the record has 2 fields, the schema 3"):
                read().collect()


def test_single_quoted_json_strings_read_as_sparks_json_reader_reads_them(spark, tmp_path):
    """Spark's JSON reader takes strings in single quotes (its `allowSingleQuotes`, on by
    default), as keys and values, and so do `read` and the data source (Spark's
    conventions), inferring the schema or given it; a line still bad to Spark is bad here
    too."""
    lines = [
        "{'a': 1, 'b': 'x'}",
        '{"a": 2, \'b\': "y"}',
        "{'a': 3, \"b\": \"it's\", 'c': 'NaN'}",
        '{"a": 4, "b": \'caf\\u00e9\'}',
        "{'a': 05}",
    ]
    (tmp_path / "q.json").write_text("".join(line + "\n" for line in lines))
    ddl = "a int, b string, c string"
    theirs = spark.read.schema(f"{ddl}, _corrupt_record string").json(str(tmp_path))
    want = rows_of(theirs)
    assert {"a": 1, "b": "x", "c": None, "_corrupt_record": None} in want
    ours = bls.read(spark, str(tmp_path), schema=ddl, on_error="permissive")
    assert rows_of(ours.select("a", "b", "c", "_corrupt_record")) == want
    inferred = bls.read(spark, str(tmp_path), on_error="permissive")
    names = spark.read.json(str(tmp_path)).columns
    assert sorted(names) == ["_corrupt_record", "a", "b", "c"]
    assert rows_of(inferred.select(*names)) == rows_of(spark.read.json(str(tmp_path)))
    if HAS_PYTHON_DATA_SOURCES:
        bls.register(spark)
        source = spark.read.format("batchloader").schema(f"{ddl}, _corrupt_record string")
        assert rows_of(source.option("mode", "PERMISSIVE").load(str(tmp_path))) == want


@pytest.mark.parametrize("mode", ["PERMISSIVE", "DROPMALFORMED"])
def test_array_lines_are_a_row_per_object_as_sparks_json_reader_reads_them(spark, tmp_path, mode):
    """Spark's JSON reader reads a line that is an array of objects as a row per object
    (an empty array as none; an array of anything else is a malformed line); so do `read`
    and the data source (Spark's conventions), with a schema or inferring one."""
    lines = [
        '{"a": 0}',
        '[{"a": 1}, {"a": 2, "b": "x"}]',
        "[]",
        '  [ {"a": 3, "c": [1]} ]  ',
        "[1, 2]",
        '{"a": 4}',
    ]
    (tmp_path / "a.json").write_text("".join(line + "\n" for line in lines))
    ddl = "a int, b string, _corrupt_record string"
    on_error = {"PERMISSIVE": "permissive", "DROPMALFORMED": "skip"}[mode]
    theirs = rows_of(spark.read.schema(ddl).option("mode", mode).json(str(tmp_path)))
    assert {"a": 2, "b": "x", "_corrupt_record": None} in theirs
    ours = bls.read(spark, str(tmp_path), schema="a int, b string", on_error=on_error)
    names = ["a", "b", "_corrupt_record"] if mode == "PERMISSIVE" else ["a", "b"]
    want = [{k: r[k] for k in names} for r in theirs]
    assert rows_of(ours.select(*names)) == want
    inferred = spark.read.option("mode", mode).json(str(tmp_path))
    ours = bls.read(spark, str(tmp_path), on_error=on_error)
    assert rows_of(ours.select(*inferred.columns)) == rows_of(inferred)
    if HAS_PYTHON_DATA_SOURCES:
        bls.register(spark)
        source = spark.read.format("batchloader").schema(ddl).option("mode", mode)
        assert rows_of(source.load(str(tmp_path))) == theirs


INFER_COLUMNS = {
    "i": ["1", "2", ""],
    "l": ["3000000000", "4", "5"],
    "d": ["1.5", "2", ""],
    "f": ["1e3", "2.5", "-Inf"],
    "b": ["true", "False", "TRUE"],
    "t": ["2024-01-02 03:04:05", "2024-01-02T03:04:05.123", ""],
    "dt": ["2024-01-02", "2024-1-2", "2024-01-02T03:04:05Z"],
    "da": ["2024-01-02", "2024-02-29", ""],  # dates (Spark's preferDate)
    "dd": ["2024-01-02", "2024", "0024-01-02"],  # a date and a timestamp: a timestamp
    "s": ["x", "y", "z"],
    "e": ["", "", ""],
    "mix": ["1", "a", "2"],
    "big": ["12345678901234567890", "1", ""],
    "neg": ["-5", "+7", "0"],
    "tn": ["2024-01-02", "1", ""],
    "nt": ["1", "2024-01-02", ""],
    "sp": [" 7 ", "8", "9.5"],
    "ty": ["2024-01-02", "2024", "2025"],  # a year after a timestamp is one
    "yt": ["2024", "2024-01-02", ""],  # a timestamp after an int is not
}


def test_csv_types_inferred_as_sparks_infer_schema_infers_them(spark, tmp_path):
    """`infer_schema=True` (the data source's `inferSchema`): the CSV columns get the types
    Spark's `inferSchema` gives (an int, a long, a whole-number decimal, a double, a
    timestamp in the session's zone, a boolean, else a string; a column of timestamps
    tries a field as a timestamp first), and the rows Spark reads with them."""
    names = list(INFER_COLUMNS)
    rows = zip(*INFER_COLUMNS.values(), strict=True)
    text = ",".join(names) + "\n" + "".join(",".join(r) + "\n" for r in rows)
    (tmp_path / "i.csv").write_text(text)
    theirs = spark.read.option("header", True).option("inferSchema", True).csv(str(tmp_path))
    assert theirs.schema["big"].dataType.simpleString() == "decimal(20,0)"
    ours = bls.read(spark, str(tmp_path), header=True, infer_schema=True).select(*names)
    assert ours.schema.simpleString() == theirs.schema.simpleString()
    assert rows_of(ours) == rows_of(theirs)
    plain = bls.read(spark, str(tmp_path), header=True).select(*names)
    assert {f.dataType.simpleString() for f in plain.schema} == {"string"}
    if HAS_PYTHON_DATA_SOURCES:
        bls.register(spark)
        source = spark.read.format("batchloader").option("header", "true")
        loaded = source.option("inferSchema", "true").load(str(tmp_path)).select(*names)
        assert loaded.schema.simpleString() == theirs.schema.simpleString()
        assert rows_of(loaded) == rows_of(theirs)


@pytest.mark.parametrize(
    "options",
    [
        {"dateFormat": "dd/MM/yyyy"},
        {"dateFormat": "dd/MM/yyyy", "preferDate": "false"},
        {"dateFormat": "yyyy-MM-dd", "timestampFormat": "yyyy-MM-dd HH:mm:ss"},
        {"preferDate": "false"},
    ],
)
def test_csv_dates_inferred_as_sparks_prefer_date_infers_them(spark, tmp_path, options):
    """Spark's `preferDate` (on by default): a column of dates by `dateFormat` (else
    `yyyy-MM-dd`) is a date; off, they are timestamps or strings. With a `timestampFormat`,
    dates and timestamps together are strings."""
    columns = {
        "dmy": ["02/01/2024", "31/12/2023", ""],
        "iso": ["2024-01-02", "2024-02-29", "2023-12-31"],
        "mixed": ["2024-01-02", "2024-01-02 03:04:05", ""],
    }
    rows = zip(*columns.values(), strict=True)
    (tmp_path / "d.csv").write_text("dmy,iso,mixed\n" + "".join(",".join(r) + "\n" for r in rows))
    reader = spark.read.options(header="true", inferSchema="true", **options)
    theirs = reader.csv(str(tmp_path))
    named = bls.scan_options_from(options)
    ours = bls.read(spark, str(tmp_path), header=True, infer_schema=True, **named)
    ours = ours.select(*columns)
    assert ours.schema.simpleString() == theirs.schema.simpleString()
    assert rows_of(ours) == rows_of(theirs)


def test_infer_schema_leaves_json_to_its_own_inference(tmp_path):
    """Spark's JSON reader ignores `inferSchema`: a plan of NDJSON files has the same
    schema with it as without (their numbers numbers, their strings strings)."""
    write(f"{tmp_path}/j.json", [{"n": 1, "s": "2", "t": "2024-01-02"}])
    inferred = bls.ScanPlan(str(tmp_path), infer_schema=True, json_conventions="spark")
    plain = bls.ScanPlan(str(tmp_path), json_conventions="spark")
    assert inferred.schema == plain.schema
    assert inferred.schema.field("s").type == pa.utf8()


def test_a_field_past_the_sample_its_inferred_type_refuses_is_bad_input(spark, tmp_path):
    """The types are inferred from the sample (`sample_rows`), as Spark's from its
    `samplingRatio`: a field past it that its column's type does not take is bad input,
    as with a schema (`on_error`), named; a whole-number decimal is not rounded."""
    lines = ["n,w", *(f"{i},{10**19 + i}" for i in range(20)), "x,1.5"]
    (tmp_path / "p.csv").write_text("\n".join(lines) + "\n")
    df = bls.read(spark, str(tmp_path), header=True, infer_schema=True, sample_rows=5)
    assert df.schema["n"].dataType.simpleString() == "int"
    assert df.schema["w"].dataType.simpleString() == "decimal(20,0)"
    with pytest.raises(Exception, match=r"line 22.*'n' is int32 as the driver inferred it"):
        df.collect()
    kept = bls.read(
        spark, str(tmp_path), header=True, infer_schema=True, sample_rows=5, on_error="permissive"
    )
    last = [r for r in kept.collect() if r["_corrupt_record"] is not None]
    assert [(r["n"], r["w"], r["_corrupt_record"]) for r in last] == [(None, None, "x,1.5")]


def test_csv_fields_with_spaces_read_as_sparks_csv_reader_reads_them(spark, tmp_path):
    """Spark's CSV reader refuses a boolean, integer or decimal field with white space
    around it (`" 7 "`: partial results null it) and trims a float's, a date's and a
    timestamp's; so do `read` and the data source (Spark's conventions)."""
    ddl = "i int, l bigint, b boolean, n decimal(5,2), d double, t date, s timestamp"
    row = ["7", "8", "true", "1.5", "2.5", "2024-01-02", "2024-01-02 03:04:05"]
    text = "i,l,b,n,d,t,s\n" + ",".join(row) + "\n"
    text += ",".join(f" {v} " for v in row) + "\n"
    text += ",".join(f'" {v} "' for v in row) + "\n"
    text += ",".join(f"\t{v}" for v in row) + "\n"
    (tmp_path / "w.csv").write_text(text)
    theirs = spark.read.schema(f"{ddl}, _corrupt_record string").option("header", True)
    want = rows_of(theirs.option("mode", "PERMISSIVE").csv(str(tmp_path)))
    spaced = [r for r in want if r["_corrupt_record"] is not None]
    assert len(spaced) == 3 and all(r["i"] is None and r["d"] == 2.5 for r in spaced)
    ours = bls.read(spark, str(tmp_path), schema=ddl, header=True, on_error="permissive")
    names = ["i", "l", "b", "n", "d", "t", "s", "_corrupt_record"]
    assert rows_of(ours.select(*names)) == want
    if HAS_PYTHON_DATA_SOURCES:
        bls.register(spark)
        source = spark.read.format("batchloader").schema(f"{ddl}, _corrupt_record string")
        loaded = source.option("header", "true").option("mode", "PERMISSIVE")
        assert rows_of(loaded.load(str(tmp_path))) == want


#: float texts in CSV: Java's spellings (`NaN`, `+Infinity`, suffixes, hexadecimal),
#: Spark's `Inf` and `-Inf`, and Rust's and C's that Spark refuses (`inf`, `nan`, `+Inf`)
CSV_FLOAT_TEXTS = [
    "NaN", "NAN", "+NaN", "-NaN", "Nan", "nan", "Inf", "-Inf", "+Inf", "inf", "INF", "-inf",
    "Infinity", "+Infinity", "-Infinity", "infinity", " NaN", "NaN ", " Inf", "1.5d", "1e5f",
    "-2F", "1.5 d", "1.5dd", "0x1p3", "0x1.8p1", "0X10", "0x10p0", " 1.5 ", "1.", ".5",
    "+.5e1", "1e", "1e+", "d", "1.5e3D", "1_0", "0.1f",
]  # fmt: skip


def test_csv_multiline_reads_quoted_line_breaks_as_spark_does(spark, tmp_path):
    """Spark's `multiLine` on CSV: quoted fields hold line breaks, the file read whole.
    `read(multiline=True)` and the data source's `multiLine` read the rows Spark reads,
    however small `split_bytes` (without it, the read fails: the split that starts such a
    record refuses it by name)."""
    rows = "".join(f'{i},"line {i}\nand {i}\r\nend"\n' for i in range(40))
    (tmp_path / "m.csv").write_text("id,s\n" + rows)
    theirs = spark.read.option("header", True).option("multiLine", True).csv(str(tmp_path))
    want = rows_of(theirs)
    assert len(want) == 40 and want[0]["s"].count("\n") == 2
    ours = bls.read(
        spark, str(tmp_path), header=True, multiline=True, split_bytes=64, columns=["id", "s"]
    )
    assert rows_of(ours) == want
    # split: the range that starts such a record refuses it, naming multiline=True; one
    # that starts inside it misreads a record (short of fields): either fails the read
    with pytest.raises(Exception, match=r"m\.csv, line \d+.*(multiline=True|short of)"):
        bls.read(spark, str(tmp_path), header=True, split_bytes=64).collect()
    if HAS_PYTHON_DATA_SOURCES:
        bls.register(spark)
        source = spark.read.format("batchloader").option("header", "true")
        source = source.option("multiLine", "true").option("split_bytes", "64")
        assert rows_of(source.option("columns", "id,s").load(str(tmp_path))) == want


def test_csv_comment_lines_are_skipped_as_spark_skips_them(spark, tmp_path):
    """Spark's `comment` option: the lines starting with it are skipped, before the header
    too; a line starting with a space, a field starting with it, are data. `read`
    (`comment=`) and the data source read the rows Spark reads."""
    text = '#c0 "open\na,b\n1,x\n#c1,2\n  #c2,3\n#\n3,#w\n\n4,"#q"\n#last'
    (tmp_path / "c.csv").write_text(text)
    theirs = spark.read.option("header", True).option("comment", "#").csv(str(tmp_path))
    want = rows_of(theirs)
    assert len(want) == 4 and {"a": "  #c2", "b": "3"} in want
    ours = bls.read(spark, str(tmp_path), header=True, comment="#", columns=["a", "b"])
    assert rows_of(ours) == want
    if HAS_PYTHON_DATA_SOURCES:
        bls.register(spark)
        source = spark.read.format("batchloader").option("header", "true")
        loaded = source.option("comment", "#").option("columns", "a,b").load(str(tmp_path))
        assert rows_of(loaded) == want


@pytest.mark.parametrize("ddl", ["x double", "x float"])
def test_csv_float_texts_read_as_sparks_csv_reader_reads_them(spark, tmp_path, ddl):
    """A CSV float field is what Java's parser reads (`NaN` and `Infinity` in that case,
    signed or not; `f`/`d` suffixes; hexadecimal floats), or Spark's `Inf` and `-Inf`;
    `inf`, `nan` and `+Inf` are bad records, as in Spark; `inferSchema` takes the same
    texts for doubles. So `read` and the data source (Spark's conventions) read them."""
    text = "k,x\n" + "".join(f"{k},{t}\n" for k, t in enumerate(CSV_FLOAT_TEXTS))
    (tmp_path / "f.csv").write_text(text)

    def rows(df):
        # NaN as a text, which compares equal to itself
        return sorted(
            (r.k, "NaN" if r.x is not None and math.isnan(r.x) else r.x, r._corrupt_record)
            for r in df.collect()
        )

    schema = f"k int, {ddl}, _corrupt_record string"
    theirs = spark.read.schema(schema).option("header", True).csv(str(tmp_path))
    want = rows(theirs)
    bad = {CSV_FLOAT_TEXTS[k] for k, _, corrupt in want if corrupt is not None}
    assert {"inf", "nan", "+Inf", " Inf"} <= bad and not {"1.5d", "0x1p3", "-Inf"} & bad
    ours = bls.read(
        spark, str(tmp_path), schema=f"k int, {ddl}", header=True, on_error="permissive"
    )
    assert rows(ours) == want
    if HAS_PYTHON_DATA_SOURCES:
        bls.register(spark)
        source = spark.read.format("batchloader").schema(schema).option("header", "true")
        assert rows(source.option("mode", "PERMISSIVE").load(str(tmp_path))) == want
    # a column per text (once): inferred a double or a string, as Spark infers it
    if ddl == "x double":
        wide = tmp_path / "wide"
        wide.mkdir()
        names = [f"c{k}" for k in range(len(CSV_FLOAT_TEXTS))]
        (wide / "w.csv").write_text(",".join(names) + "\n" + ",".join(CSV_FLOAT_TEXTS) + "\n")
        inferred = spark.read.option("header", True).option("inferSchema", True).csv(str(wide))
        kinds = {f.dataType.simpleString() for f in inferred.schema}
        assert {"double", "string"} <= kinds
        ours = bls.read(spark, str(wide), header=True, infer_schema=True).select(*names)
        assert ours.schema == inferred.schema


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_decimals_past_the_scale_round_as_spark_rounds_them(spark, tmp_path, fmt):
    """A decimal with more fractional digits than its column's scale: Spark's readers round
    it half up (a JSON number or string, a CSV field), null where that passes the
    precision; so do `read` and the data source (Spark's conventions), where Arrow's
    conventions refuse it."""
    folder = tmp_path / fmt
    folder.mkdir()
    if fmt == "json":
        lines = [f'{{"d": {t}}}' for t in DECIMAL_TEXTS] + [f'{{"d": "{DECIMAL_TEXTS[2]}"}}']
        (folder / "d.json").write_text("".join(line + "\n" for line in lines))
        theirs = spark.read.schema("d decimal(5,2)").json(str(folder))
    else:
        (folder / "d.csv").write_text("d\n" + "".join(t + "\n" for t in DECIMAL_TEXTS))
        theirs = spark.read.schema("d decimal(5,2)").option("header", True).csv(str(folder))
    want = rows_of(theirs)
    assert {"d": decimal.Decimal("1.24")} in want and {"d": None} in want
    options = {"header": True} if fmt == "csv" else {}
    ours = bls.read(spark, str(folder), schema="d decimal(5,2)", on_error="permissive", **options)
    assert rows_of(ours.select("d")) == want
    if HAS_PYTHON_DATA_SOURCES:
        bls.register(spark)
        source = spark.read.format("batchloader").schema("d decimal(5,2)")
        source = source.option("mode", "PERMISSIVE")
        if fmt == "csv":
            source = source.option("header", "true")
        assert rows_of(source.load(str(folder))) == want


def test_an_empty_projection_counts_every_row_on_both_paths(spark, tmp_path):
    """`columns=[]` is COUNT(*): no column, yet as many rows as the files hold, through the
    data source and through mapInArrow, with a file split in several byte ranges too."""
    path = tmp_path / "big.json"
    rows = _big_ndjson(path)
    write(f"{tmp_path}/small.json", [{"id": i} for i in range(3)])
    split = os.path.getsize(path) // 5
    df = bls.read(spark, str(tmp_path), columns=[], split_bytes=split)
    assert df.columns == [] and df.rdd.getNumPartitions() > 2
    assert df.count() == len(rows) + 3
    plan = bls.ScanPlan(str(tmp_path), columns=[], split_bytes=split)
    assert bls._read_with_map_in_arrow(spark, plan).count() == len(rows) + 3


def test_lines_skipped_in_the_executors_are_counted_in_an_accumulator(spark, tmp_path):
    """`on_error="skip"` through Spark: each task adds what it skipped to the accumulator
    the caller passes (a file split in byte ranges too), on both paths; the rows are the
    good lines, none lost or read twice."""
    lines = [json.dumps({"id": i}) if i % 7 else '{"id": oops}' for i in range(2000)]
    (tmp_path / "big.json").write_text("\n".join(lines) + "\n")
    (tmp_path / "small.json").write_text('{"id": -1}\nnot json\n')
    bad = sum(1 for line in lines if "oops" in line) + 1
    split = os.path.getsize(tmp_path / "big.json") // 4
    skipped = spark.sparkContext.accumulator(0)
    df = bls.read(spark, str(tmp_path), on_error="skip", split_bytes=split, skipped_lines=skipped)
    assert df.rdd.getNumPartitions() > 2
    assert sorted(r.id for r in df.select("id").collect()) == sorted(
        [-1] + [i for i in range(2000) if i % 7]
    )
    assert skipped.value == bad
    plan = bls.ScanPlan(str(tmp_path), on_error="skip", split_bytes=split)
    plan.skipped_lines = spark.sparkContext.accumulator(0)
    assert bls._read_with_map_in_arrow(spark, plan).count() == 2000 + 1 - (bad - 1)
    assert plan.skipped_lines.value == bad


def _read_sampling_one_row(spark, path: str, through: str, **accumulators):
    """`path` read with a schema sampled from one row, through the data source (skipped
    before Spark 4) or `mapInArrow`, the executors adding to `accumulators` (`read`'s
    `ignored_columns=`, `text_kept=`)."""
    if through == "data source":
        if not HAS_PYTHON_DATA_SOURCES:
            pytest.skip("Python data sources arrived in Spark 4")
        return bls.read(spark, path, sample_rows=1, **accumulators)
    plan = bls.ScanPlan(path, sample_rows=1, parallelism=1)
    for name, accumulator in accumulators.items():
        setattr(plan, name, accumulator)
    return bls._read_with_map_in_arrow(spark, plan)


@pytest.mark.parametrize("through", ["data source", "mapInArrow"])
def test_columns_the_sample_missed_are_counted_in_an_accumulator(spark, tmp_path, through):
    """A column (and a struct member) the driver's sample did not meet cannot reach the
    DataFrame: the executors add each to the `ignored_columns` accumulator with the number
    of files that had it, so the driver can tell what was left out; nothing when the
    sample met everything."""
    write(f"{tmp_path}/a.json", [{"id": 1, "m": {"k": 1}}])
    write(f"{tmp_path}/b.json", [{"id": 2, "late": "x", "m": {"k": 2, "x": 1.5}}])
    write(f"{tmp_path}/c.json", [{"id": 3, "late": "y"}])
    ignored = bls.ignored_columns_accumulator(spark)
    df = _read_sampling_one_row(spark, str(tmp_path), through, ignored_columns=ignored)
    assert sorted(r.id for r in df.select("id").collect()) == [1, 2, 3]
    assert ignored.value == {"late": 2, "m.x": 1}
    complete = bls.ignored_columns_accumulator(spark)
    df = bls.read(spark, str(tmp_path), sample_rows=None, ignored_columns=complete)
    assert df.count() == 3
    assert complete.value == {}


@pytest.mark.parametrize("through", ["data source", "mapInArrow"])
def test_values_kept_as_text_past_the_sample_are_counted_in_an_accumulator(
    spark, tmp_path, through
):
    """A column the sample saw only as null is utf8 by guess: the executors keep a later
    number or list there as its JSON text and add each such value to the `text_kept`
    accumulator by column (a string is no such value)."""
    write(f"{tmp_path}/a.json", [{"id": 1, "n": None}])
    write(f"{tmp_path}/b.json", [{"id": 2, "n": 5}, {"id": 3, "n": "s"}])
    write(f"{tmp_path}/c.json", [{"id": 4, "n": [1, {"k": True}]}])
    kept = bls.text_kept_accumulator(spark)
    df = _read_sampling_one_row(spark, str(tmp_path), through, text_kept=kept)
    got = sorted((r.id, r.n) for r in df.collect())
    assert got == [(1, None), (2, "5"), (3, "s"), (4, '[1, {"k": true}]')]
    assert kept.value == {"n": 2}


@pytest.mark.parametrize("through", ["data source", "mapInArrow"])
def test_names_a_projection_must_quote_reach_the_dataframe(spark, tmp_path, through):
    """Keys such as `a.b` (not member b of a), `c[1]` or x`y are columns of their own in the
    executors too, whose scans take the sampled schema as fixed."""
    rows = [{"a.b": i, "a b": -i, "c[1]": [i], "x`y": {"p.q": i}} for i in range(3)]
    write(f"{tmp_path}/a.json", rows[:1])
    write(f"{tmp_path}/b.json", rows[1:])
    ignored = bls.ignored_columns_accumulator(spark)
    df = _read_sampling_one_row(spark, str(tmp_path), through, ignored_columns=ignored)
    names = ["a.b", "a b", "c[1]", "x`y"]
    got = rows_of(df.select(*(f"`{n.replace('`', '``')}`" for n in names)))
    assert got == sorted(rows, key=repr)
    assert ignored.value == {}


def test_a_large_file_is_split_at_line_boundaries_and_read_once(spark, tmp_path):
    path = tmp_path / "big.json"
    rows = _big_ndjson(path)
    size = os.path.getsize(path)
    cols = ["id", "s", "m", "l"]
    df = bls.read(spark, str(path), columns=cols, split_bytes=size // 7 + 1)  # 7, mid-line
    assert df.rdd.getNumPartitions() == 7
    got = rows_of(df)
    assert len(got) == len(rows)  # nothing twice
    assert got == rows_of(spark.read.schema(df.schema).json(str(path)))
    assert sorted(r["id"] for r in got) == list(range(len(rows)))


@needs_data_sources
def test_the_data_source_splits_the_same_way(spark, tmp_path):
    path = tmp_path / "big.json"
    rows = _big_ndjson(path)
    size = os.path.getsize(path)
    cols = ["id", "s", "m", "l"]
    via_source = (
        spark.read.format("batchloader")
        .option("split_bytes", str(size // 5 + 1))
        .option("columns", ",".join(cols))
        .load(str(path))
    )
    assert via_source.rdd.getNumPartitions() == 5
    got = rows_of(via_source)
    assert sorted(r["id"] for r in got) == list(range(len(rows)))
    assert got == rows_of(spark.read.schema(via_source.schema).json(str(path)))


def test_a_split_csv_with_a_header_keeps_its_column_names(spark, tmp_path):
    path = tmp_path / "big.csv"
    lines = ["id,name,amount"] + [f"{i},n{i % 17},{i * 1.5}" for i in range(2000)]
    path.write_text("\n".join(lines) + "\n")
    df = bls.read(spark, str(path), header=True, columns=["id", "name", "amount"], split_bytes=4096)
    assert df.rdd.getNumPartitions() == -(-os.path.getsize(path) // 4096)
    reference = spark.read.option("header", "true").schema(df.schema).csv(str(path))
    assert rows_of(df) == rows_of(reference)
    assert df.count() == 2000


def test_an_error_in_a_later_split_names_its_line_in_the_file(spark, tmp_path):
    path = tmp_path / "late.json"
    rows = _big_ndjson(path, n=500)
    with open(path, "a") as f:
        f.write('{"id": oops}\n')
    df = bls.read(spark, str(path), split_bytes=2048, sample_rows=10)
    with pytest.raises(Exception, match=rf"late\.json, line {len(rows) + 1}, column \d+"):
        df.collect()


def test_compressed_files_and_split_bytes_0_are_not_split(tmp_path):
    import gzip

    path = tmp_path / "big.json"
    _big_ndjson(path)
    gz = tmp_path / "big2.json.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    plan = bls.ScanPlan([str(path), str(gz)], split_bytes=1024)
    assert [s for s in plan.splits if s[0] == str(gz)] == [(str(gz), None, None)]
    assert len([s for s in plan.splits if s[0] == str(path)]) > 10
    assert bls.ScanPlan(str(path), split_bytes=0).splits == [(str(path), None, None)]


@pytest.mark.parametrize("codec", ["bzip2", "deflate", "snappy", "lz4", "gzip"])
def test_files_spark_wrote_compressed_read_as_spark_reads_them(spark, events, tmp_path, codec):
    """Spark's own output in every compression it writes text in (`.bz2`, `.deflate`, and
    Hadoop's block framing for `.snappy` and `.lz4`), JSON and CSV, read as Spark reads it
    back; a file is one task, however large."""
    root, _ = events
    df = spark.read.json(str(root)).selectExpr("id", "user", "score", "address", "events")
    big = df.crossJoin(spark.range(60).withColumnRenamed("id", "copy"))  # 4,800 rows
    out = str(tmp_path / f"out-{codec}")
    big.repartition(2).write.option("compression", codec).json(out)
    names = [n for n in os.listdir(out) if n.startswith("part-")]
    assert len(names) == 2 and all(n.endswith(bl.COMPRESSED_SUFFIXES) for n in names)
    ours = bls.read(spark, out, columns=big.columns, schema=big.schema, split_bytes=4096)
    assert ours.rdd.getNumPartitions() == 2
    assert rows_of(ours) == rows_of(spark.read.schema(big.schema).json(out))
    assert ours.count() == 4800

    # (no nulls: Spark writes them as empty fields, which CSV readers take as "", as Drill and
    # pyarrow do, and Spark's own as null)
    flat = big.selectExpr("id", "user", "coalesce(score, -1) AS score", "copy")
    csv_out = str(tmp_path / f"csv-{codec}")
    flat.write.option("compression", codec).option("header", True).csv(csv_out)
    ours = bls.read(spark, csv_out, header=True, columns=["id", "user", "score", "copy"])
    theirs = spark.read.option("header", True).csv(csv_out)  # every column a string
    assert rows_of(ours) == rows_of(theirs.select("id", "user", "score", "copy"))


def test_json_documents_read_as_sparks_multiline_reads_them(spark, events, tmp_path):
    """Files that are one indented JSON array, or indented objects one after the other
    (`multiline=True`, Spark's `multiLine`): Spark's rows for the array; every object of
    the other (Spark's `multiLine` reads the first only; these are its rows as lines). A
    file is one task, however small `split_bytes` is."""
    _, rows = events
    folder, lines = tmp_path / "docs", tmp_path / "lines"
    folder.mkdir()
    lines.mkdir()
    (folder / "array.json").write_text(json.dumps(rows[:50], indent=2))
    (folder / "objects.json").write_text("\n".join(json.dumps(r, indent=1) for r in rows[50:]))
    (lines / "objects.json").write_text("\n".join(json.dumps(r) for r in rows[50:]))
    cols = ["id", "user", "score", "tags", "address", "events"]
    theirs = (
        spark.read.option("multiLine", True)
        .json(str(folder / "array.json"))
        .select(*cols)
        .unionByName(spark.read.json(str(lines)).select(*cols))
    )
    ours = bls.read(spark, str(folder), multiline=True, columns=cols, split_bytes=256)
    assert ours.rdd.getNumPartitions() <= 2
    assert rows_of(ours) == rows_of(theirs)
    assert ours.count() == len(rows)
    first_only = spark.read.option("multiLine", True).json(str(folder / "objects.json"))
    assert first_only.count() == 1  # Spark's own multiLine, for the record
    if HAS_PYTHON_DATA_SOURCES:  # the data source takes Spark's spelling of the option
        bls.register(spark)
        by_option = (
            spark.read.format("batchloader")
            .option("multiLine", "true")
            .option("columns", ",".join(cols))
            .load(str(folder))
        )
        assert rows_of(by_option) == rows_of(theirs)


def test_an_array_with_a_comma_missing_or_extra_fails_as_it_fails_spark(spark, tmp_path):
    """Spark's multiLine takes an array whose commas are wrong for a malformed file (no row
    of it in DROPMALFORMED mode); `bls.read` fails on it, saying where, not reading rows."""
    faults = {
        "missing": ('[\n {"a": 1}\n {"a": 2}\n]\n', "line 3, column 2: no `,` between"),
        "trailing": ('[\n {"a": 1},\n {"a": 2},\n]\n', "line 4, column 1: a `,` before"),
        "doubled": ('[\n {"a": 1},,\n {"a": 2}\n]\n', "line 2, column 11: a `,` where"),
    }
    for name, (text, says) in faults.items():
        path = tmp_path / f"{name}.json"
        path.write_text(text)
        dropping = spark.read.option("multiLine", True).option("mode", "DROPMALFORMED")
        assert dropping.schema("a long").json(str(path)).collect() == [], name
        with pytest.raises(Exception, match=re.escape(says)):
            bls.read(spark, str(path), multiline=True, on_error="skip").collect()


def test_csv_quotes_as_sparks_writer_escapes_them_and_as_rfc_4180_doubles_them(spark, tmp_path):
    """Spark's CSV writer escapes a quote in a field with a backslash (`"say \\"hi\\""`),
    and its reader unescapes it; read with RFC 4180's doubled quotes only, the field was
    mangled (`say \\hi\\""`) without a word. `read` (and the data source) take Spark's
    escape, and a doubled quote (Python's csv module, pandas) still reads as one."""
    import csv

    values = ['say "hi"', "a,b", '{"k": "v"}', "back\\slash", "plain", 'end"']
    df = spark.createDataFrame([(i, v) for i, v in enumerate(values)], "i int, v string")
    written = str(tmp_path / "spark")
    df.write.option("header", True).csv(written)
    theirs = rows_of(spark.read.option("header", True).schema("i int, v string").csv(written))
    assert [r["v"] for r in sorted(theirs, key=lambda r: r["i"])][:5] == values[:5]
    ours = bls.read(spark, written, header=True, schema="i int, v string", columns=["i", "v"])
    assert rows_of(ours) == theirs
    rfc = tmp_path / "rfc" / "r.csv"
    rfc.parent.mkdir()
    with open(rfc, "w", newline="") as f:
        csv.writer(f).writerows([("i", "v"), *enumerate(values)])
    assert '"say ""hi"""' in rfc.read_text()
    ours = bls.read(
        spark, str(rfc.parent), header=True, schema="i int, v string", columns=["i", "v"]
    )
    assert {r["i"]: r["v"] for r in ours.collect()} == dict(enumerate(values))
    if HAS_PYTHON_DATA_SOURCES:
        bls.register(spark)
        source = spark.read.format("batchloader").option("header", "true").schema("i int, v string")
        assert rows_of(source.option("columns", "i,v").load(written)) == theirs


def test_csv_null_values_give_sparks_nulls(spark, tmp_path):
    """Spark reads an empty CSV field, quoted or not, as null (its `nullValue` is ""), and a
    field equal to a `nullValue` it is given as null: `null_values` gives the same rows, and
    the data source takes Spark's option name; without it, Spark's CSV conventions (the
    default) read empty fields as nulls too. Under Arrow's, empty strings stay "" (Drill)."""
    path = tmp_path / "n.csv"
    path.write_text('a,b,c\n1,,x\n,2,""\n"",3,NA\nNA,,"NA"\n')
    cols = ["a", "b", "c"]
    theirs = spark.read.option("header", True).csv(str(path))
    ours = bls.read(spark, str(path), header=True, columns=cols, null_values="")
    assert rows_of(ours) == rows_of(theirs)
    assert rows_of(bls.read(spark, str(path), header=True, columns=cols)) == rows_of(theirs)
    assert any(r["b"] is None for r in rows_of(theirs))  # the file has what the test says
    drills = bls.read(spark, str(path), header=True, columns=cols, csv_conventions="arrow")
    assert [r["b"] for r in rows_of(drills) if r["a"] == "1"] == [""]
    # another null text: Spark still makes every unquoted empty field null, whatever its
    # nullValue, and `""` an empty string; so does `null_values="NA"` (Spark's conventions)
    theirs_na = spark.read.option("header", True).option("nullValue", "NA").csv(str(path))
    ours_na = bls.read(spark, str(path), header=True, columns=cols, null_values="NA")
    rows = [("1", None, "x"), (None, "2", ""), ("", "3", None), (None, None, None)]
    want = rows_of_dicts([dict(zip(cols, r, strict=True)) for r in rows])
    assert rows_of(theirs_na) == want
    assert rows_of(ours_na) == want
    if HAS_PYTHON_DATA_SOURCES:
        bls.register(spark)
        by_option = (
            spark.read.format("batchloader")
            .option("header", "true")
            .option("nullValue", "")
            .option("columns", ",".join(cols))
            .load(str(path))
        )
        assert rows_of(by_option) == rows_of(theirs)


EXTRA, EXTRA_READ = ["+Infinity", "+INF", "-INF"], ["inf", "inf", "-inf"]


def test_non_numeric_numbers_read_as_spark_reads_them(spark, tmp_path):
    """`NaN`, `Infinity`, `-Infinity` (Python's json.dumps writes them) and `+Infinity`,
    `+INF`, `-INF` (Spark's reader takes them all by default): the same doubles as Spark's."""
    values = [float("nan"), float("inf"), float("-inf"), 1.5, None]
    rows = [{"id": i, "x": v, "m": {"y": v}} for i, v in enumerate(values)]
    path = tmp_path / "nan.json"
    lines = [json.dumps(r) for r in rows]
    # the spellings Spark takes beyond Python's
    lines += [f'{{"id": {5 + k}, "x": {t}, "m": {{"y": {t}}}}}' for k, t in enumerate(EXTRA)]
    path.write_text("\n".join(lines) + "\n")
    ddl = "id long, x double, m struct<y: double>"
    ours = bls.read(spark, str(path), schema=ddl, columns=["id", "x", "m"])
    theirs = spark.read.schema(ddl).json(str(path))

    def spelled(value):  # floats by repr: NaN equals nothing
        if isinstance(value, dict):
            return {k: spelled(v) for k, v in value.items()}
        return repr(value) if isinstance(value, float) else value

    def by_id(df):
        return sorted(
            (spelled(r.asDict(recursive=True)) for r in df.collect()), key=lambda r: r["id"]
        )

    assert by_id(ours) == by_id(theirs)
    assert [r["x"] for r in by_id(ours)] == ["nan", "inf", "-inf", "1.5", None, *EXTRA_READ]


@pytest.fixture
def partitioned(tmp_path):
    """A tree of good files under 2023/, 2024/ (one a level deeper) and a malformed one under
    2025/: a scan that reads it fails. The schema comes from 2023/ (sample_rows=2)."""
    good = {
        "2023/f.json": [{"a": 1}, {"a": 2}],
        "2024/g.json": [{"a": 3}],
        "2024/q1/f.json": [{"a": 4}, {"a": 5}],
    }
    for name, rows in good.items():
        write(f"{tmp_path}/{name}", rows)
    os.makedirs(tmp_path / "2025")
    (tmp_path / "2025" / "bad.json").write_text('{"a": 6}\n{"a": \n')
    return tmp_path, [str(tmp_path / name) for name in good]


@pytest.mark.parametrize(
    "where",
    [
        "dir0 = '2024'",
        "dir0 IN ('2023', '2024') AND filename = 'f.json'",
        "dir1 IS NULL AND dir0 < '2025'",
        "NOT (dir0 >= '2025')",
        "dir0 <=> '2023' AND a > 1",
        "(filename LIKE 'g%' OR dir1 = 'q1') AND a >= 3",
        "dir0 = '1999'",
    ],
)
def test_files_the_where_condition_rules_out_are_never_read(spark, partitioned, where):
    """`read(..., where=...)` leaves out of the plan the files whose file columns (`dir0`,
    `filename`...) make the condition false or null whatever their data: the malformed file
    under 2025/ is never read, and the rows are those of a scan of the good files only,
    filtered by the whole condition; the plan's tasks hold exactly the files with rows."""
    root, good = partitioned
    df = bls.read(spark, str(root), sample_rows=2, where=where)
    oracle = bls.read(spark, good, root=str(root), sample_rows=2).where(where)
    columns = ["a", "filename", "dir0", "dir1"]
    assert rows_of(df.select(columns)) == rows_of(oracle.select(columns))
    if "a >" not in where:  # only file columns: the files kept are those with rows
        files = {r.fqn for r in oracle.select("fqn").collect()}
        plan = bls.ScanPlan(str(root), sample_rows=2, where=where)
        assert {path for task in plan.tasks for path, _, _ in task} == files


def test_a_condition_that_cannot_rule_the_file_out_reads_it(spark, partitioned):
    """The control: `dir0 LIKE '202_'` holds for 2025/ too, and a condition on data decides
    nothing about a file: the malformed file is read and its error reaches the driver."""
    root, _ = partitioned
    for where in ["dir0 LIKE '202_'", "a = 1"]:
        with pytest.raises(Exception, match=r"bad\.json, line 2"):
            bls.read(spark, str(root), sample_rows=2, where=where).collect()


@needs_data_sources
def test_a_query_after_a_filtered_one_on_the_same_dataframe_sees_every_file(spark, partitioned):
    """Spark 4.1+ keeps the partitions a Python data source planned for a query with pushed
    filters, and gives them to a later query on the same DataFrame that pushes none: a data
    source that pruned files in `pushFilters` would lose rows there. batchloader prunes only
    by `where`, fixed when the DataFrame is made: every query sees every file it planned."""
    root, good = partitioned
    df = bls.read(spark, good, root=str(root), sample_rows=2)
    assert df.where("dir0 = '2024'").count() == 3
    assert df.count() == 5
    df.createOrReplaceTempView("partitioned")
    assert spark.sql("SELECT count(*) FROM partitioned WHERE dir0 = '2023'").first()[0] == 2
    assert spark.sql("SELECT count(*) FROM partitioned").first()[0] == 5


@given(
    sizes=st.lists(st.integers(0, 6 * 2**20), max_size=40),
    split_bytes=st.sampled_from([0, 4096, 2**20, 8 * 2**20, bls.SPLIT_BYTES]),
    parallelism=st.integers(1, 8),
)
@settings(max_examples=60)
def test_small_files_are_packed_into_tasks_as_spark_packs_them(
    tmp_path_factory, sizes, split_bytes, parallelism
):
    """`plan_tasks` keeps every split once, in order; a byte range is a task alone; whole
    files fill a task up to the target (a file alone may pass it), and the next file would
    have passed it where a task ends. The target is `split_bytes` (128 MiB if 0), lowered
    so that every core gets work, never below one file's open cost."""
    folder = tmp_path_factory.mktemp("pack")
    files = []
    for i, size in enumerate(sizes):
        path = folder / f"f{i:02d}.json"
        with open(path, "wb") as f:
            f.truncate(size)  # sparse: only the size matters here
        files.append(str(path))
    splits = bls.plan_splits(files, split_bytes, lambda p: True)
    tasks = bls.plan_tasks(splits, split_bytes, parallelism)
    assert [s for task in tasks for s in task] == splits
    whole = {p: os.path.getsize(p) for p, start, _ in splits if start is None}
    total = sum(size + bls.OPEN_COST for size in whole.values())
    target = min(split_bytes or bls.SPLIT_BYTES, max(bls.OPEN_COST, total // parallelism))
    for i, task in enumerate(tasks):
        if any(start is not None for _, start, _ in task):
            assert len(task) == 1
            continue
        costs = [whole[p] + bls.OPEN_COST for p, _, _ in task]
        assert len(task) == 1 or sum(costs[:-1]) + whole[task[-1][0]] <= target
        following = tasks[i + 1][0] if i + 1 < len(tasks) else None
        if following is not None and following[1] is None:
            assert sum(costs) + whole[following[0]] > target


@pytest.mark.parametrize("through", ["data source", "mapInArrow"])
def test_many_small_files_take_few_tasks_and_every_row(spark, tmp_path, through):
    """300 one-line files: a few tasks (not 300), every row once, on both paths."""
    rows = [{"id": i, "s": f"v{i}"} for i in range(300)]
    for i, row in enumerate(rows):
        write(f"{tmp_path}/p{i % 3}/f{i:03d}.json", [row])
    if through == "data source":
        if not HAS_PYTHON_DATA_SOURCES:
            pytest.skip("Python data sources arrived in Spark 4")
        df = bls.read(spark, str(tmp_path), columns=["id", "s"])
    else:
        plan = bls.ScanPlan(str(tmp_path), columns=["id", "s"], parallelism=2)
        df = bls._read_with_map_in_arrow(spark, plan)
    assert 2 <= df.rdd.getNumPartitions() <= 20
    assert sorted((r.asDict() for r in df.collect()), key=lambda r: r["id"]) == rows


@pytest.mark.parametrize("through", ["data source", "mapInArrow"])
def test_a_file_named_like_a_pattern_is_read_as_itself(spark, tmp_path, through):
    """`x[1].json` beside `x1.json`: the driver lists both, and the sample and the executors
    read each as itself (a file name is not matched as a glob again: `x[1].json` would read
    `x1.json`, its rows twice and its own never)."""
    write(f"{tmp_path}/x1.json", [{"id": 1}])
    write(f"{tmp_path}/x[1].json", [{"id": 2, "only_here": "y"}])
    write(f"{tmp_path}/a*b.json", [{"id": 3}])
    if through == "data source":
        if not HAS_PYTHON_DATA_SOURCES:
            pytest.skip("Python data sources arrived in Spark 4")
        df = bls.read(spark, str(tmp_path), columns=["id", "only_here", "filename"])
    else:
        plan = bls.ScanPlan(str(tmp_path), columns=["id", "only_here", "filename"])
        df = bls._read_with_map_in_arrow(spark, plan)
    assert rows_of(df) == rows_of_dicts(
        [
            {"id": 1, "only_here": None, "filename": "x1.json"},
            {"id": 2, "only_here": "y", "filename": "x[1].json"},
            {"id": 3, "only_here": None, "filename": "a*b.json"},
        ]
    )


def rows_of_dicts(rows):
    return sorted(rows, key=repr)


@needs_data_sources
def test_the_data_source_packs_small_files_for_the_sessions_cores(spark, tmp_path):
    """`format("batchloader")` plans in a worker without a session: it packs small files
    for the cores the session had when the source was registered (local[2]: 20 tiny files,
    80 MiB of open costs, make 2 tasks, not the single task one core would take), or for the
    `parallelism` option; every row once either way."""
    rows = [{"id": i} for i in range(20)]
    for row in rows:
        write(f"{tmp_path}/f{row['id']:02d}.json", [row])
    bls.register(spark)
    cores = spark.sparkContext.defaultParallelism
    assert cores == 2  # the fixture's local[2]
    for option, tasks in [({}, cores), ({"parallelism": "5"}, 5), ({"parallelism": "1"}, 1)]:
        df = spark.read.format("batchloader").options(**option).load(str(tmp_path))
        assert df.rdd.getNumPartitions() == tasks, option
        assert sorted(r.id for r in df.collect()) == [r["id"] for r in rows]


@needs_data_sources
def test_the_data_source_where_option_leaves_files_out(spark, partitioned):
    """`format("batchloader").option("where", ...)` and the same in SQL's OPTIONS: files the
    condition rules out are never read and the rest are read whole, which is exact for a
    condition on file columns only; one that tests data (which the data source cannot
    filter) is refused, naming the way that can."""
    root, _ = partitioned
    bls.register(spark)
    df = (
        spark.read.format("batchloader")
        .option("sample_rows", "2")
        .option("where", "dir0 = '2024' OR filename LIKE 'x%'")
        .load(str(root))
    )
    assert sorted(r.a for r in df.collect()) == [3, 4, 5]
    spark.sql(
        f"CREATE OR REPLACE TEMPORARY VIEW pruned USING batchloader OPTIONS (path '{root}', "
        "sample_rows '2', where 'dir1 IS NOT NULL')"
    )
    assert [r.a for r in spark.sql("SELECT a FROM pruned ORDER BY a").collect()] == [4, 5]
    for where in ["dir0 = '2024' AND a > 3", "dir0 = '2023' OR a = 1"]:
        source = spark.read.format("batchloader").option("where", where).option("sample_rows", 2)
        with pytest.raises(Exception, match=r"must test file columns only.*read\(\.\.\., where="):
            source.load(str(root)).collect()


def test_sampling_ratio_one_infers_from_every_row_as_spark_does(spark, tmp_path):
    """Spark's `samplingRatio` of 0.99 or more (its default) infers from every row: so does
    the data source, where its own sample (here 10 rows) would miss a late row's column; a
    smaller ratio, a random sample this library cannot repeat, is refused saying what to
    give instead."""
    write(f"{tmp_path}/a.json", [{"a": i} for i in range(50)] + [{"a": 50, "late": "x"}])
    assert bls.scan_options_from({"samplingRatio": "1.0"}) == {"sample_rows": None}
    with pytest.raises(ValueError, match=r"'samplingRatio' is 0\.5: .*give sample_rows"):
        bls.scan_options_from({"samplingRatio": "0.5"})
    with pytest.raises(ValueError, match=r"fraction in \(0, 1\], not '0'"):
        bls.scan_options_from({"samplingRatio": "0"})
    with pytest.raises(ValueError, match="another spelling"):
        bls.scan_options_from({"samplingRatio": "1", "sample_rows": "10"})
    plan = bls.source_plan({"path": str(tmp_path), "samplingRatio": "1"})
    assert "late" in plan.schema.names
    assert "late" in spark.read.option("samplingRatio", "1").json(str(tmp_path)).columns
    assert "late" not in bls.source_plan({"path": str(tmp_path), "sample_rows": "10"}).schema.names


GROUPED_DECIMAL_TEXTS = ["1,000", " 1", "1 ", "1,5", "+1", "1.5e1", ",1,", "1,234.56", "12"]


def test_decimal_texts_read_as_sparks_readers_read_them(spark, tmp_path):
    """Spark's readers parse a decimal from text as its en-US decimal parser does: every
    `,` left out (`1,000` is 1000, `1,5` is 15), nothing trimmed (` 1` is a bad record); a
    JSON string into a decimal column, a CSV field. Under Arrow's conventions a text is
    trimmed and a comma refused."""
    (tmp_path / "j").mkdir()
    (tmp_path / "c").mkdir()
    lines = [json.dumps({"k": i, "d": t}) for i, t in enumerate(GROUPED_DECIMAL_TEXTS)]
    (tmp_path / "j" / "d.json").write_text("".join(line + "\n" for line in lines))
    records = [f'{i},"{t}"' for i, t in enumerate(GROUPED_DECIMAL_TEXTS)]
    (tmp_path / "c" / "d.csv").write_text("k,d\n" + "".join(r + "\n" for r in records))
    ddl = "k int, d decimal(10,2)"

    def values(df):
        return sorted((r.k, None if r.d is None else str(r.d)) for r in df.collect())

    json_theirs = spark.read.schema(ddl).json(str(tmp_path / "j"))
    csv_theirs = spark.read.schema(ddl).option("header", "true").csv(str(tmp_path / "c"))
    assert values(json_theirs) == values(csv_theirs)
    assert (0, "1000.00") in values(json_theirs) and (1, None) in values(json_theirs)
    json_ours = bls.read(spark, str(tmp_path / "j"), schema=ddl, on_error="permissive")
    assert values(json_ours) == values(json_theirs)
    csv_ours = bls.read(spark, str(tmp_path / "c"), schema=ddl, header=True, on_error="permissive")
    assert values(csv_ours) == values(csv_theirs)
    # Arrow's conventions: trimmed, and no comma
    schema = pa.schema([("k", pa.int32()), ("d", pa.decimal128(10, 2))])
    scan = bl.Scan(str(tmp_path / "j"), schema=schema, on_error="permissive", columns=["k", "d"])
    arrow = pa.Table.from_batches(list(scan)).column("d").to_pylist()  # in line order
    kept = [t for t, d in zip(GROUPED_DECIMAL_TEXTS, arrow, strict=True) if d is not None]
    assert kept == [" 1", "1 ", "+1", "1.5e1", "12"]


def test_backslashes_in_quoted_csv_fields_read_as_sparks_csv_reader_reads_them(spark, tmp_path):
    """Spark's escape `\\` escapes a quote and itself in a quoted field; before any other
    character it stays (Windows paths, `\\n` written as two characters), as Spark reads
    it: nothing is dropped. An unquoted field is as it is. Arrow's conventions (pyarrow's
    escape_char) take the character after an escape alone."""
    fields = ["C:\\Users\\x", "line\\nnext", 'say \\"hi\\"', "a\\\\b", "tab\\t", "\\d+"]
    records = [f'{i},"{f}",C:\\plain' for i, f in enumerate(fields)]
    (tmp_path / "b.csv").write_text("k,p,u\n" + "".join(r + "\n" for r in records))
    ddl = "k int, p string, u string"
    theirs = spark.read.schema(ddl).option("header", "true").csv(str(tmp_path))
    want = sorted(tuple(r) for r in theirs.collect())
    assert (0, "C:\\Users\\x", "C:\\plain") in want and (3, "a\\b", "C:\\plain") in want
    ours = bls.read(spark, str(tmp_path), schema=ddl, header=True)
    assert sorted(tuple(r) for r in ours.select("k", "p", "u").collect()) == want
    arrow = bl.Scan(str(tmp_path), header=True, escape="\\", columns=["p"])
    assert pa.Table.from_batches(list(arrow)).column("p")[0].as_py() == "C:Usersx"


@pytest.mark.parametrize("null_value", [None, "NA", ""])
def test_empty_csv_fields_read_as_sparks_csv_reader_reads_them(spark, tmp_path, null_value):
    """Spark's CSV reader reads an empty field without quotes as null whatever its
    `nullValue`, and `""` as an empty string unless the null text is `""` (its default);
    split records and parsed ones (a quoted line break) alike."""
    text = 'a,b,c\n,"",x\n"",,"l\nm"\nNA,"NA",\n'
    (tmp_path / "e.csv").write_text(text)
    ddl = "a string, b string, c string"
    options = {} if null_value is None else {"nullValue": null_value}
    reader = spark.read.schema(ddl).options(header="true", multiLine="true", **options)
    want = sorted(map(repr, (tuple(r) for r in reader.csv(str(tmp_path)).collect())))
    named = bls.scan_options_from(options)
    ours = bls.read(spark, str(tmp_path), schema=ddl, header=True, split_bytes=0, **named)
    got = sorted(map(repr, (tuple(r) for r in ours.select("a", "b", "c").collect())))
    assert got == want
    if null_value == "NA":
        assert "(None, '', 'x')" in want  # the two kinds of empty told apart
