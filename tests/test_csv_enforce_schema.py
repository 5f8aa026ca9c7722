"""CSV files with a header read with a schema, as Spark's `enforceSchema` reads them: on (its
default), the schema's columns take the fields by position and the header is read past
(`Customer ID` under `customer_id int` is read, not a column of nulls); off, the header must
name the fields so (in any case) or the read fails. Checked against Spark's own reader on
the same files, through `batchloader.spark.read` and the data source."""

from __future__ import annotations

import pyarrow as pa
import pytest

import batchloader.spark as bls
from batchloader import FileReader
from batchloader.scan import Scan

try:
    import pyspark.sql.datasource  # noqa: F401

    HAS_PYTHON_DATA_SOURCES = True
except ImportError:  # Spark 3.5
    HAS_PYTHON_DATA_SOURCES = False

PAYMENTS = "customer_id int, amount double"
#: records of three fields, two and four under a header of three
RAGGED = "x,y,z\n1,2,3\n4,5\n6,7,8,9\n"

#: (files, schema, Spark's options): what Spark reads, `read` must read
CASES = {
    "header renamed by the schema": (
        {"a.csv": "Customer ID,Amount\n1,2.5\n2,3.5\n"},
        PAYMENTS,
        {},
    ),
    "headers in other orders": (
        {"a.csv": "customer_id,amount\n1,2.5\n", "b.csv": "amount,customer_id\n7.5,8\n"},
        PAYMENTS,
        {},
    ),
    "checked, in another case": (
        {"a.csv": "CUSTOMER_ID,Amount\n1,2.5\n"},
        PAYMENTS,
        {"enforceSchema": "false"},
    ),
    "fewer columns than the header": (
        {"r.csv": RAGGED},
        "x int, y int, _corrupt_record string",
        {},
    ),
    "more columns than the header": (
        {"r.csv": RAGGED},
        "x int, y int, z int, w int, _corrupt_record string",
        {},
    ),
    "checked, the corrupt record column between": (
        {"r.csv": RAGGED},
        "x int, _corrupt_record string, y int, z int",
        {"enforceSchema": "false"},
    ),
    "blank lines before the header": (
        {"b.csv": "\n\nq,r\n1,2\n"},
        "a int, b int",
        {},
    ),
}


def write_files(folder, files: dict[str, str]) -> str:
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    return str(folder)


def rows(df, columns: list[str]) -> list[tuple]:
    return sorted((tuple(r[c] for c in columns) for r in df.collect()), key=repr)


def sparks(spark, path: str, ddl: str, options: dict[str, str]):
    reader = spark.read.options(header="true", mode="PERMISSIVE", **options)
    return reader.schema(ddl).csv(path)


@pytest.mark.parametrize("case", list(CASES))
def test_a_header_meets_a_schema_as_in_sparks_csv_reader(spark, tmp_path, case):
    files, ddl, options = CASES[case]
    path = write_files(tmp_path / "f", files)
    theirs = sparks(spark, path, ddl, options)
    named = bls.scan_options_from(options)
    ours = bls.read(spark, path, header=True, schema=ddl, on_error="permissive", **named)
    assert rows(ours, theirs.columns) == rows(theirs, theirs.columns)


def test_a_header_naming_other_fields_fails_spark_and_read_unless_enforced(spark, tmp_path):
    path = write_files(tmp_path / "f", {"a.csv": "Customer ID,Amount\n1,2.5\n"})
    with pytest.raises(Exception, match="CSV header does not conform to the schema"):
        sparks(spark, path, PAYMENTS, {"enforceSchema": "false"}).collect()
    # (found by the driver's sample already: `read` fails)
    with pytest.raises(Exception, match="field 1 'Customer ID' where the schema has"):
        bls.read(spark, path, header=True, schema=PAYMENTS, enforce_schema=False).collect()
    # by the header's names (enforce_schema=None), the schema's columns are not in the file
    ours = bls.read(spark, path, header=True, schema=PAYMENTS, enforce_schema=None)
    assert rows(ours, ["customer_id", "amount"]) == [(None, 2.5)]


def test_a_projection_checks_only_the_header_fields_spark_reads(spark, tmp_path):
    path = write_files(tmp_path / "f", {"r.csv": "x,y,z\n1,2,3\n"})
    ddl = "x int, q int, z int"
    theirs = sparks(spark, path, ddl, {"enforceSchema": "false"}).select("x")
    ours = bls.read(spark, path, header=True, schema=ddl, enforce_schema=False, columns=["x"])
    assert rows(ours, ["x"]) == rows(theirs, ["x"]) == [(1,)]
    with pytest.raises(Exception, match="field 2 'y' where the schema has 'q'"):
        bls.read(spark, path, header=True, schema=ddl, enforce_schema=False, columns=["q"])


def test_a_projection_of_a_schema_by_position_reads_its_fields_as_spark(spark, tmp_path):
    """The executors scan with the projection's schema: the fields keep the whole schema's
    positions (a headerless file's third field is `z`, not the projection's first)."""
    path = write_files(tmp_path / "f", {"a.csv": "1,2,3\n4,5,6\n"})
    ddl = "x int, q int, z int"
    theirs = spark.read.schema(ddl).csv(path).select("z", "x")
    ours = bls.read(spark, path, schema=ddl, columns=["z", "x"])
    assert rows(ours, ["z", "x"]) == rows(theirs, ["z", "x"]) == [(3, 1), (6, 4)]


@pytest.mark.parametrize("mode", ["PERMISSIVE", "DROPMALFORMED"])
@pytest.mark.parametrize("header", [False, True])
def test_a_projection_reads_records_of_any_length_as_spark_prunes_columns(
    spark, tmp_path, mode, header
):
    """Spark's CSV reader parses only the columns a query takes (its column pruning): a
    record longer or shorter than the schema is no malformed record then, nor is a bad
    value in a column left out, the corrupt record column asked for or not; with every
    column taken it is (found by a differential fuzz of `read` and Spark)."""
    text = ("c0,c1\n" if header else "") + "1.5,\nx,3,\n,4\n6,6\n1.5,x,7\n8\n"
    path = write_files(tmp_path / "f", {"r.csv": text})
    ddl = "c0 string, c1 double"
    on_error = {"PERMISSIVE": "permissive", "DROPMALFORMED": "skip"}[mode]
    for columns in (["c0"], ["c0", "c1"], ["c0", "_corrupt_record"]):
        full = f"{ddl}, _corrupt_record string" if "_corrupt_record" in columns else ddl
        reader = spark.read.schema(full).options(header=str(header).lower(), mode=mode)
        theirs = reader.csv(path).select(*columns)
        ours = bls.read(spark, path, header=header, schema=full, columns=columns, on_error=on_error)
        want = rows(theirs, columns)
        assert rows(ours, columns) == want, columns
        assert len(want) == (3 if columns == ["c0", "c1"] and mode == "DROPMALFORMED" else 6)


def test_hive_partition_columns_in_the_schema_take_no_field_as_in_spark(spark, tmp_path):
    """Spark's data schema leaves a schema's partition columns out: the fields go to the
    others by position, with a header or without one."""
    ddl = "a int, b string, year int"
    for header, text in [(False, "1,x\n2,y\n"), (True, "A,B\n3,z\n")]:
        root = tmp_path / f"header={header}"
        for year in (2024, 2025):
            (root / f"year={year}").mkdir(parents=True)
            (root / f"year={year}" / "a.csv").write_text(text)
        theirs = spark.read.schema(ddl).option("header", header).csv(str(root))
        ours = bls.read(spark, str(root), header=header, schema=ddl, partition_style="hive")
        want = rows(theirs, ["a", "b", "year"])
        assert rows(ours, ["a", "b", "year"]) == want and len(want) == 4 - 2 * header


def test_the_splits_of_a_file_past_its_header_take_the_schemas_names_in_spark(spark, tmp_path):
    lines = "".join(f"{i},{i / 4}\n" for i in range(3000))
    path = write_files(tmp_path / "f", {"a.csv": "Customer ID,Amount\n" + lines})
    ours = bls.read(spark, path, header=True, schema=PAYMENTS, split_bytes=4096)
    assert ours.rdd.getNumPartitions() > 1
    theirs = sparks(spark, path, PAYMENTS, {})
    got = rows(ours, ["customer_id", "amount"])
    assert got == rows(theirs, ["customer_id", "amount"]) and len(got) == 3000


@pytest.mark.skipif(not HAS_PYTHON_DATA_SOURCES, reason="Python data sources arrived in Spark 4")
@pytest.mark.parametrize("enforce", [None, "true", "false"])
def test_the_spark_data_source_takes_enforce_schema(spark, tmp_path, enforce):
    path = write_files(tmp_path / "f", {"a.csv": "customer_id,AMOUNT\n1,2.5\n"})
    (tmp_path / "g").mkdir()
    (tmp_path / "g" / "b.csv").write_text("Customer ID,Amount\n3,4.5\n")
    bls.register(spark)
    options = {} if enforce is None else {"enforceSchema": enforce}
    for folder in (path, str(tmp_path / "g")):
        reader = spark.read.format("batchloader").options(header="true", **options)
        theirs = sparks(spark, folder, PAYMENTS, options)
        if enforce == "false" and folder.endswith("g"):
            with pytest.raises(Exception, match="CSV header does not conform"):
                theirs.collect()
            with pytest.raises(Exception, match="field 1 'Customer ID' where the schema has"):
                reader.schema(PAYMENTS).load(folder).collect()
            continue
        ours = reader.schema(PAYMENTS).load(folder)
        assert rows(ours, theirs.columns) == rows(theirs, theirs.columns)


def test_scan_reads_by_the_headers_names_unless_told(tmp_path):
    """`Scan`'s own rule is Drill's (by name); `enforce_schema` makes it Spark's, for a file
    with a header and a schema only, and takes no other value."""
    path = write_files(tmp_path / "f", {"a.csv": "b,a\nx,1\n"})
    schema = pa.schema([("a", pa.int64()), ("b", pa.string())])

    def read(**options) -> list[dict]:
        scan = Scan(path, header=True, schema=schema, strict_schema=True, **options)
        table = pa.Table.from_batches(list(scan), scan.schema)
        return table.select(["a", "b"]).to_pylist()

    assert read() == [{"a": 1, "b": "x"}]
    assert read(enforce_schema=None) == [{"a": 1, "b": "x"}]
    assert read(enforce_schema=True, on_error="skip") == []  # "x" is no int64
    with pytest.raises(Exception, match="field 1 'b' where the schema has 'a'"):
        read(enforce_schema=False)
    with pytest.raises(ValueError, match="enforce_schema must be True, False or None"):
        read(enforce_schema="yes")
    headerless = Scan(path, schema=schema, enforce_schema=False)
    assert headerless.enforce_schema is None and headerless.positional_names == ["a", "b"]


def test_the_file_reader_takes_names_for_a_header_with_enforce_schema_only(tmp_path):
    path = write_files(tmp_path / "f", {"a.csv": "b,a\nx,1\n"})
    fr = str(tmp_path / "f" / "a.csv")
    with pytest.raises(ValueError, match="one with a header and enforce_schema"):
        FileReader(fr, format="csv", header=True, names=["a", "b"])
    with pytest.raises(ValueError, match="checked_fields are the header fields"):
        FileReader(
            fr, format="csv", header=True, names=["a"], enforce_schema=True, checked_fields=[0]
        )
    assert Scan(path, header=True, enforce_schema=True).positional_names is None  # no schema
    with pytest.raises(ValueError, match="empty_strings_as_nulls reads JSON's empty strings"):
        FileReader(fr, format="csv", empty_strings_as_nulls=True)
