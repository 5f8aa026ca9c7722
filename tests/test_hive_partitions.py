"""Hive-style partition folders (`key=value`) as typed columns: `partition_style="hive"`.

Oracles: Spark's own JSON reader on the same folders (its partition discovery), SQLite for
pruning by numeric partition values, and tables built from the rows with each file's
partition values added. The facts in `SPARK_TYPES` were read off Spark 4's reader
(`spark.read.json` on folders of those names); the Spark test below checks a set of them
against the Spark at hand.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import math
import os
import sqlite3
import struct
from decimal import Decimal
from functools import reduce

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import batchloader.spark as bls
from batchloader import pruning
from batchloader.hive_partitions import (
    HiveLayout,
    PartitionValue,
    convert,
    infer_type,
    java_double,
    unescape,
    wider_type,
)
from batchloader.scan import Scan

UTC_TS = pa.timestamp("us", tz="UTC")

#: folder values of one partition column -> the type Spark 4's reader gives the column and
#: the values it reads (escapes decoded; a string keeps the folder's spelling)
SPARK_TYPES: list[tuple[list[str], pa.DataType, list[object]]] = [
    (["1", "01", "-5", "+7", "-0"], pa.int32(), [1, 1, -5, 7, 0]),
    (["1", "3000000000"], pa.int64(), [1, 3_000_000_000]),
    (["2147483648"], pa.int64(), [2_147_483_648]),
    (["1", "1.5"], pa.float64(), [1.0, 1.5]),
    (["1", "12345678901234567890123"], pa.decimal128(23, 0), [1, 12345678901234567890123]),
    (["1e3"], pa.decimal128(4, 0), [1000]),
    (["1.5e3"], pa.decimal128(4, 0), [1500]),
    (["1e3", "2"], pa.decimal128(10, 0), [1000, 2]),
    (["3000000000", "12345678901234567890123"], pa.decimal128(23, 0), None),
    (["12345678901234567890123456789012345678"], pa.decimal128(38, 0), None),
    (["1234567890123456789012345678901234567890"], pa.float64(), [1.2345678901234568e39]),
    (["NaN", "1"], pa.float64(), [math.nan, 1.0]),
    (["Infinity", "1.5d", "0x1p3", " 7", "7\t"], pa.float64(), [math.inf, 1.5, 8.0, 7.0, 7.0]),
    (["\u0661\u0662"], pa.int32(), [12]),  # Java reads any Unicode decimal digits
    (["2024-01-05"], pa.date32(), [dt.date(2024, 1, 5)]),
    (["2024-01-05", "__HIVE_DEFAULT_PARTITION__"], pa.date32(), [dt.date(2024, 1, 5), None]),
    (["2024-01-05 10:00:00", "2024-01-05 10:00:00.5"], UTC_TS, None),
    (["2024-01-05 10%3A00%3A00"], UTC_TS, [dt.datetime(2024, 1, 5, 10, tzinfo=dt.timezone.utc)]),
    (["2024-01-05 10:00:00", "2024-01-06"], UTC_TS, None),
    (["5", "__HIVE_DEFAULT_PARTITION__"], pa.int32(), [5, None]),
    (["__HIVE_DEFAULT_PARTITION__"], pa.null(), [None]),
    # strings: no type holds them all, or none is theirs
    (["1", "x"], pa.utf8(), ["1", "x"]),
    (["01", "x"], pa.utf8(), ["01", "x"]),
    ([" 7", "x"], pa.utf8(), [" 7", "x"]),
    (["1e3", "x"], pa.utf8(), ["1e3", "x"]),
    (["1.5", "3000000000"], pa.utf8(), ["1.5", "3000000000"]),  # a double and a long
    (["1.5", "12345678901234567890123"], pa.utf8(), None),  # a double and a decimal
    (["1e3", "2.5"], pa.utf8(), None),
    (["1", "2024-01-05"], pa.utf8(), None),
    (["2024-01-05 10:00:00", "5"], pa.utf8(), None),
    (["true", "false"], pa.utf8(), ["true", "false"]),
    (["2024-1-6"], pa.utf8(), None),
    (["2024-02-30"], pa.utf8(), None),
    (["12024-01-05"], pa.utf8(), None),
    (["2024-01-05 "], pa.utf8(), None),
    (["2024-01-05T10:00:00"], pa.utf8(), None),
    (["2024-01-05 10:00:00.12"], pa.utf8(), None),  # one digit of a second's fraction
    (["2024-01-05 10:00"], pa.utf8(), None),
    (["2024-01-05 24:00:00"], pa.utf8(), None),
    (["1_000"], pa.utf8(), None),
    (["%31"], pa.utf8(), ["1"]),  # a number is read before escapes are decoded
    (["x%2Fy", "%zz", "b=c"], pa.utf8(), ["x/y", "%zz", "b=c"]),
]


@pytest.mark.parametrize(("raws", "want", "values"), SPARK_TYPES)
def test_values_are_typed_as_partition_discovery_types_them(raws, want, values):
    t = reduce(wider_type, [infer_type(raw, "UTC") for raw in raws], pa.null())
    assert t == want, raws
    got = [convert(raw, t) for raw in raws]
    if values is not None:
        # NaN equals nothing: compare what repr shows
        assert repr(got) == repr(values) or got == values, raws
    # every value makes a column of its type, the same value in every row
    for raw, value in zip(raws, got, strict=True):
        column = PartitionValue(value, t).column(3)
        assert column.type == t and len(column) == 3 and column.null_count == 3 * (value is None)
        if value is not None:
            assert {repr(x) for x in column.to_pylist()} == {repr(_arrow_value(value, t))}, raw


def _arrow_value(value, t):
    """`value` as pyarrow gives it back from a column of type `t`."""
    if pa.types.is_timestamp(t):
        return pa.array([value], t).to_pylist()[0]
    if pa.types.is_decimal(t):
        return Decimal(value)
    return value


@given(st.floats(allow_nan=False), st.sampled_from(["", "d", "D", "f"]))
def test_a_double_reads_as_javas_parser_reads_it(x, suffix):
    """Java's grammar: Python's own spelling of any double (`1e+16`; `inf` as Java spells
    it, `Infinity`), with a type suffix Java allows after a number, reads back as the same
    double; the hexadecimal one too."""
    text = repr(x).replace("inf", "Infinity")
    assert java_double(text + suffix) == (x if math.isfinite(x) or not suffix else None)
    assert java_double(x.hex()) == x if math.isfinite(x) else True
    assert java_double(" " + text + "\n") == x


def test_texts_javas_double_parser_refuses_are_no_doubles():
    for text in ["", "1_0", "inf", "nan", "1e", "--1", "0x1", "1.5dd", "\u0661.5", "Inf", "+-1"]:
        assert java_double(text) is None, text
    assert unescape("a%3Ab%2f%zz%4") == "a:b/%zz%4"


def read_table(scan):
    """A scan's batches as one table."""
    return pa.Table.from_batches(list(scan))


def write(path, rows):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("".join(json.dumps(r) + "\n" for r in rows))


@pytest.fixture
def sales(tmp_path):
    """Rows under `year=/month=/region=` folders; their partition values by file."""
    files = {}
    for year, month, region in [
        (2023, "12", "eu%2Fwest"),
        (2024, "01", "eu%2Fwest"),
        (2024, "01", "__HIVE_DEFAULT_PARTITION__"),
        (2024, "02", "us"),
    ]:
        path = f"{tmp_path}/year={year}/month={month}/region={region}/part-0.json"
        rows = [{"id": year * 100 + int(month) * 10 + i, "amount": i * 1.5} for i in range(3)]
        write(path, rows)
        files[path] = (rows, {"year": year, "month": int(month), "region": unescape(region)})
    files[f"{tmp_path}/year=2024/month=01/region=us/part-0.json"] = ([], {})
    write(f"{tmp_path}/year=2024/month=01/region=us/part-0.json", [])
    files = {k: v for k, v in files.items() if v[0]}
    return tmp_path, files


def expected(files, schema):
    rows = [
        {**row, **values} for _, (rows, values) in sorted(files.items()) for row in rows
    ]  # fmt: skip
    rows = [{**r, "region": None if r["region"] == unescape("__HIVE_DEFAULT_PARTITION__")
             else r["region"]} for r in rows]  # fmt: skip
    return pa.Table.from_pylist(rows, schema)


def test_a_wildcard_scan_adds_the_partition_columns_typed_after_the_data(sales):
    root, files = sales
    table = read_table(Scan(str(root), partition_style="hive"))
    assert table.schema.names[-3:] == ["year", "month", "region"]
    assert table.schema.types[-3:] == [pa.int32(), pa.int32(), pa.utf8()]
    schema = pa.schema(
        [("id", pa.int64()), ("amount", pa.float64()), *zip(table.schema.names[-3:],
         table.schema.types[-3:], strict=True)]
    )  # fmt: skip
    got = table.select(schema.names)
    assert got.equals(expected(files, schema)), got.to_pylist()
    assert None in got.column("region").to_pylist()  # __HIVE_DEFAULT_PARTITION__
    assert "eu/west" in got.column("region").to_pylist()  # %2F decoded
    # Drill's folder names, as before, by default
    drill = read_table(Scan(str(root)))
    assert drill.column("dir0").to_pylist()[0] == "year=2023"
    assert "year" not in drill.schema.names


def test_a_projection_names_partition_columns_as_any_column(sales):
    root, files = sales
    table = read_table(Scan(str(root), partition_style="hive", columns=["MONTH", "id", "year"]))
    assert table.schema == pa.schema(
        [("MONTH", pa.int32()), ("id", pa.int64()), ("year", pa.int32())]
    )
    want = expected(files, None)
    assert sorted(zip(*table.to_pydict().values(), strict=True)) == sorted(
        zip(want["month"].to_pylist(), want["id"].to_pylist(), want["year"].to_pylist(),
            strict=True)
    )  # fmt: skip
    # a count(*) scan reads no column, and every row
    rows = sum(len(r) for r, _ in files.values())
    assert read_table(Scan(str(root), partition_style="hive", columns=[])).num_rows == rows


def test_small_batches_and_files_sharing_a_batch_keep_each_files_values(sales):
    """Batches of 2 rows split files; coalesced small files share batches: each row keeps
    its own file's partition values."""
    root, files = sales
    schema = pa.schema(
        [("id", pa.int64()), ("year", pa.int32()), ("month", pa.int32()), ("region", pa.utf8())]
    )
    want = expected(files, schema)
    for options in ({"row_limit": 2}, {"batch_byte_limit": 1 << 20}):
        scan = Scan(str(root), partition_style="hive", columns=schema.names, **options)
        batches = list(scan)
        got = pa.Table.from_batches(batches, schema)
        assert got.equals(want), (options, got.to_pylist())
        if "row_limit" in options:
            assert max(b.num_rows for b in batches) == 2


def test_a_schema_types_a_partition_column(sales):
    """A schema naming a partition column gives its type (the folders' values converted),
    as Spark's `schema(...)` does; a value that does not convert says which folder."""
    root, _ = sales
    schema = pa.schema([("id", pa.int64()), ("month", pa.int64()), ("year", pa.utf8())])
    table = read_table(Scan(str(root), partition_style="hive", schema=schema))
    assert table.schema.field("month").type == pa.int64()
    assert table.schema.field("year").type == pa.utf8()
    assert sorted(set(table.column("year").to_pylist())) == ["2023", "2024"]
    assert table.schema.names[:2] == ["id", "amount"]  # the partition columns still last
    with pytest.raises(ValueError, match=r"region.*'us' is no int8|'eu%2Fwest' is no int8"):
        Scan(str(root), partition_style="hive", schema=pa.schema([("region", pa.int8())]))


def test_a_data_column_of_a_partition_columns_name_gives_way_as_in_spark(tmp_path, caplog):
    write(f"{tmp_path}/k=1/a.json", [{"k": 99, "v": 1}])
    write(f"{tmp_path}/k=2/a.json", [{"v": 2}])
    with caplog.at_level(logging.WARNING, logger="batchloader"):
        table = read_table(Scan(str(tmp_path), partition_style="hive", columns=["v", "k"]))
        assert table.to_pydict() == {"v": [1, 2], "k": [1, 2]}
        wild = read_table(Scan(str(tmp_path), partition_style="hive"))
    assert wild.column("k").to_pylist() == [1, 2] and wild.schema.names.count("k") == 1
    assert "'k' is the file column; file" in caplog.text
    assert "partition_style='drill'" in caplog.text


def test_folders_that_do_not_agree_are_refused_naming_the_files(tmp_path):
    def scan(*folders):
        root = tmp_path / str(len(list(tmp_path.iterdir())))
        for i, folder in enumerate(folders):
            write(f"{root}/{folder}/f{i}.json", [{"v": i}])
        return Scan(str(root), partition_style="hive")

    with pytest.raises(ValueError, match=r"other partition columns \(\['a'\] and \['b'\]\)"):
        scan("a=1", "b=2")
    with pytest.raises(ValueError, match=r"\['a', 'b'\] and \['a'\]"):
        scan("a=1/b=2", "a=3")
    with pytest.raises(ValueError, match=r"\[\] and \['a'\]"):
        scan(".", "a=1")  # Spark leaves the file beside the folders out, unsaid
    with pytest.raises(ValueError, match=r"under other folders \(x and y\).*root="):
        scan("x/a=1", "y/a=2")
    with pytest.raises(ValueError, match="'a=', whose value is empty"):
        scan("a=", "a=1")
    with pytest.raises(ValueError, match="'=1', whose column name is empty"):
        scan("=1")
    with pytest.raises(ValueError, match=r"partition_style must be 'drill'.*not 'spark'"):
        Scan(str(tmp_path), partition_style="spark")
    # what Spark takes: keys in any case; other folders below or above all of them alike
    table = read_table(scan("x/A=1/leaf", "x/a=2/other"))
    assert table.column("A").to_pylist() == [1, 2]


def test_a_scan_of_some_files_types_them_as_the_layout_of_all_says(sales):
    """A Spark task scans a few files: `partition_fields` (found for all) type them."""
    root, files = sales
    layout = HiveLayout.of(sorted(files), str(root))
    one = [f for f in sorted(files) if "year=2023" in f]
    alone = read_table(Scan(one, root=str(root), partition_style="hive"))
    typed = read_table(
        Scan(one, root=str(root), partition_style="hive", partition_fields=layout.schema())
    )
    assert alone.schema.field("region").type == pa.utf8()
    assert typed.schema.field("month").type == layout.schema().field("month").type
    assert typed.column("year").to_pylist() == [2023] * 3
    with pytest.raises(ValueError, match="partition_fields are the columns of"):
        Scan(one, root=str(root), partition_fields=layout.schema())


NUMBERS = st.sampled_from([-5, 0, 1, 2, 7, 1000, 2.5, -0.5])


@settings(max_examples=max(500, settings.default.max_examples // 4))
@given(
    value=st.one_of(st.none(), NUMBERS),
    op=st.sampled_from(["=", "<>", "<", "<=", ">", ">=", "<=>", "IN", "IS NULL"]),
    literals=st.lists(st.sampled_from(["-5", "0", "1", "2.5", "1e3", "NULL"]), min_size=1,
                      max_size=3),
)  # fmt: skip
def test_numeric_partition_values_prune_as_sql_compares_numbers(value, op, literals):
    """A hive partition column of numbers compared with number literals: pruned exactly
    where SQLite (numbers compared as numbers, SQL's nulls) keeps no row."""
    if op == "IN":
        condition = f"m IN ({', '.join(literals)})"
    elif op == "IS NULL":
        condition = "m IS NULL"
    elif op == "<=>":
        condition = f"m <=> {literals[0]}"
    else:
        if literals[0] == "NULL":
            return
        condition = f"m {op} {literals[0]}"
    sqlite = condition.replace("<=>", "IS")
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE t (m)")
    db.execute("INSERT INTO t VALUES (?)", [value])
    want = db.execute(f"SELECT count(*) FROM t WHERE {sqlite}").fetchone()[0] > 0
    got = pruning.outcomes(pruning.parse(condition), {"m": value})
    assert len(got) == 1 and (True in got) == want, condition  # decided, as SQL decides


def test_partition_values_prune_only_what_they_decide():
    """A string literal against a number, a date, LIKE on a number, NaN: unknown."""
    for condition, value in [
        ("m = '1'", 1),
        ("m > 1", math.nan),
        ("m LIKE '1%'", 1),
        ("m = '2024-01-05'", dt.date(2024, 1, 5)),
        ("m = 1", "1"),
    ]:
        assert pruning.outcomes(pruning.parse(condition), {"m": value}) == pruning.ANY
    assert pruning.outcomes(pruning.parse("m = 0.1"), {"m": 0.1}) == {True}  # as doubles
    assert pruning.outcomes(pruning.parse("m = 1"), {"m": Decimal(1)}) == {True}


def test_partition_values_are_stored_as_arrow_stores_them():
    """The bytes `PartitionValue` writes for each fixed-width type read back as pyarrow's
    own array of the value."""
    cases = [
        (-5, pa.int32()),
        (-(2**40), pa.int64()),
        (Decimal("-12345678901234567890123"), pa.decimal128(23, 0)),
        (Decimal("12.50"), pa.decimal128(6, 2)),
        (-2.25, pa.float64()),
        (-2.25, pa.float32()),
        (-2.25, pa.float16()),
        ("x/y", pa.large_utf8()),
        (200, pa.uint8()),
        (dt.date(1969, 12, 31), pa.date32()),
        (dt.datetime(1960, 1, 1, 0, 0, 0, 1, tzinfo=dt.timezone.utc), pa.timestamp("us", "UTC")),
        (dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc), pa.timestamp("ms", "UTC")),
        (True, pa.bool_()),
        (False, pa.bool_()),
    ]
    for value, t in cases:
        got = PartitionValue(value, t).column(10)
        # (pyarrow 19 makes a float16 array from numpy's float16 only)
        made_as = pa.float32() if t == pa.float16() else t
        assert got.equals(pa.array([value] * 10, made_as).cast(t)), (value, t)
    assert struct.calcsize("<q") == 8


def test_a_partition_value_reads_into_the_type_a_schema_gives(tmp_path):
    write(f"{tmp_path}/d=2024-01-05/when=2024-01-05 10%3A00%3A00/a.json", [{"v": 1}])
    schema = pa.schema(
        [
            ("d", pa.timestamp("us", tz="America/New_York")),
            ("when", pa.timestamp("us", tz="+02:00")),
        ]
    )
    table = read_table(Scan(str(tmp_path), partition_style="hive", schema=schema))
    day, when = table.column("d")[0].as_py(), table.column("when")[0].as_py()
    assert day.utcoffset() == dt.timedelta(hours=-5) and (day.day, day.hour) == (5, 0)
    assert when.astimezone(dt.timezone.utc).hour == 8


# ---------------------------------------------------------------- against Spark


SPARK_CASES = {
    "ints": ["1", "01", "-5"],
    "longs": ["1", "3000000000"],
    "doubles": ["1", "1.5", "NaN"],
    "decimals": ["1e3", "12345678901234567890123"],
    "dates": ["2024-01-05", "__HIVE_DEFAULT_PARTITION__"],
    "timestamps": ["2024-01-05 10%3A00%3A00", "2024-01-06", "2024-01-05 10%3A00%3A00.5"],
    "strings": ["1.5", "3000000000", "x%2Fy", "%zz", "b=c", " 7"],
}


def test_partition_columns_equal_sparks_own_readers(spark, tmp_path):
    """Spark's JSON reader on the same folders: the same columns, types and rows, through
    `read` and the data source (`partition_style`, `basePath`)."""
    key = "spark.sql.session.timeZone"
    zone = spark.conf.get(key)
    spark.conf.set(key, "UTC")
    try:
        for case, raws in SPARK_CASES.items():
            root = tmp_path / case
            for i, raw in enumerate(raws):
                write(f"{root}/k={raw}/g=x/f{i}.json", [{"v": i}, {"v": i + 10}])
            theirs = spark.read.json(str(root))
            ours = bls.read(spark, str(root), partition_style="hive", columns=theirs.columns)
            assert ours.schema == theirs.schema, case
            assert _spark_rows(ours) == _spark_rows(theirs), case
        one = f"{tmp_path}/ints/k=-5"
        theirs = spark.read.option("basePath", str(tmp_path / "ints")).json(one)
        ours = bls.read(spark, one, partition_style="hive", root=str(tmp_path / "ints"))
        assert _spark_rows(ours.select(*theirs.columns)) == _spark_rows(theirs)
        pruned = bls.read(spark, str(tmp_path / "ints"), partition_style="hive", where="k > 0")
        assert sorted(r.v for r in pruned.collect()) == [0, 1, 10, 11]
        # a timestamp folder is a wall clock of the session's time zone, as in Spark
        spark.conf.set(key, "America/New_York")
        root = str(tmp_path / "timestamps")
        theirs = spark.read.json(root)
        ours = bls.read(spark, root, partition_style="hive", columns=theirs.columns)
        assert _spark_rows(ours) == _spark_rows(theirs)
        spark.conf.set(key, "UTC")  # 10:00 in New York is 15:00 UTC
        assert {r.k.hour for r in ours.collect()} == {15, 5}  # 2024-01-06 00:00 too
    finally:
        spark.conf.set(key, zone)


def _spark_rows(df):
    return sorted(repr(sorted(r.asDict().items())) for r in df.collect())


def test_the_spark_data_source_takes_partition_style_and_base_path(spark, tmp_path):
    write(f"{tmp_path}/year=2024/month=1/a.json", [{"v": 1}])
    write(f"{tmp_path}/year=2024/month=2/a.json", [{"v": 2}])
    pytest.importorskip("pyspark.sql.datasource")
    bls.register(spark)
    df = (
        spark.read.format("batchloader")
        .option("partition_style", "hive")
        .option("basePath", str(tmp_path))
        .option("columns", "v,month,year")
        .load(f"{tmp_path}/year=2024/month=2")
    )
    assert df.schema.simpleString() == "struct<v:bigint,month:int,year:int>"
    assert [tuple(r) for r in df.collect()] == [(2, 2, 2024)]
