"""Where JSON lines and CSV records end. Spark's JSON reader reads Hadoop's text lines, which
end at `\\n`, `\\r` or `\\r\\n` (a file saved with old Mac line breaks is one row a line, and a
`\\r` inside an object cuts it in two bad records), or, with its `lineSep` option, at exactly
that text (where a `\\n` is white space between tokens). Its CSV reader with `lineSep` ends a
record at the separator whatever the quotes, line breaks being text. `batchloader.spark.read`
and the data source read so, checked against Spark's own readers on the same files; `Scan`
does under Spark's conventions and keeps JSON Lines' `\\n` under Arrow's."""

from __future__ import annotations

import itertools

import pyarrow as pa
import pytest

import batchloader.spark as bls
from batchloader import FileReader
from batchloader._core import line_sep_splits
from batchloader.scan import Scan

try:
    import pyspark.sql.datasource  # noqa: F401

    HAS_PYTHON_DATA_SOURCES = True
except ImportError:  # Spark 3.5
    HAS_PYTHON_DATA_SOURCES = False

#: files of JSON lines ended in the ways Spark's reader ends them by default
BREAKS = {
    "lone returns": b'{"a":1}\r{"a":2}\r{"a":3}',
    "returns and feeds": b'{"a":1}\r\n{"a":2}\n{"a":3}\r{"a":4,"b":[1,2]}\r\n',
    "a return inside an object": b'{"a":1,\r"b":[2]}\n{"a":5}\n',
    "blank lines of returns": b'{"a":1}\r\r\n\r{"a":2}\n\r',
}

#: (lineSep, the file's bytes): lines Spark ends at exactly the separator
SEPARATED = {
    "a bar": ("|", b'{"a":1}|{"a":\n2,\r\n"b":[3]}||\n|{"a":4}|'),
    "a control character": ("\u0001", b'{"a":1}\x01{"a":2}\n\x01{"a":3}'),
    # (the separator inside a string cuts it too, as Hadoop's line reader cuts it)
    "two letters": ("ab", b'{"a":1}ab{"a":2,"s":"xaby"}ab{"a":3}ab'),
    "a character of two bytes": ("\u00e9", '{"a":1}é{"a":2}é'.encode()),
    "a Windows line break": ("\r\n", b'{"a":1}\r\n{"a":\r2,\n"b":[3]}\r\n\r\n{"a":4}'),
}


def write(folder, files: dict[str, bytes]) -> str:
    folder.mkdir()
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return str(folder)


def rows(df, columns: list[str]) -> list[tuple]:
    return sorted((tuple(r[c] for c in columns) for r in df.collect()), key=repr)


def their_rows(spark, path: str, **options) -> tuple[list[str], list[tuple]]:
    """Spark's rows of the JSON files under `path`, permissive, and its columns (its own
    corrupt record column among them where a line is bad)."""
    df = spark.read.options(mode="PERMISSIVE", **options).json(path)
    return df.columns, rows(df, df.columns)


@pytest.mark.parametrize("case", list(BREAKS))
@pytest.mark.parametrize("split_bytes", [0, 8])
def test_json_lines_end_where_sparks_reader_ends_them(spark, tmp_path, case, split_bytes):
    path = write(tmp_path / "f", {"f.json": BREAKS[case]})
    columns, want = their_rows(spark, path)
    ours = bls.read(spark, path, on_error="permissive", split_bytes=split_bytes)
    if split_bytes:
        assert ours.rdd.getNumPartitions() > 1
    assert rows(ours, columns) == want
    # a row (good or bad) for each line that is not blank, the lines ended as Spark ends them
    lines = BREAKS[case].replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
    assert len(want) == sum(1 for line in lines if line.strip())


@pytest.mark.parametrize("case", list(SEPARATED))
def test_line_sep_ends_lines_as_sparks_line_sep(spark, tmp_path, case):
    sep, data = SEPARATED[case]
    path = write(tmp_path / "f", {"f.json": data})
    columns, want = their_rows(spark, path, lineSep=sep)
    assert rows(bls.read(spark, path, on_error="permissive", line_sep=sep), columns) == want
    # the same options through the data source's option names
    named = bls.scan_options_from({"lineSep": sep, "mode": "PERMISSIVE"})
    assert rows(bls.read(spark, path, **named), columns) == want


def test_spark_ends_a_line_comment_at_a_line_break_inside_a_separated_line(spark, tmp_path):
    data = b'{"a":1 // c\n, "b":[2]}|{"a":3 /* x\n y */}|{"a":4, // c\r"b":[5]}|'
    path = write(tmp_path / "f", {"f.json": data})
    options = {"lineSep": "|", "allowComments": "true"}
    columns, want = their_rows(spark, path, **options)
    ours = bls.read(spark, path, on_error="permissive", **bls.scan_options_from(options))
    assert rows(ours, columns) == want == [(1, [2]), (3, None), (4, [5])]


@pytest.mark.parametrize("sep", ["\u0001", "<>", "\r\n", "\u00e9", "||", "aba"])
def test_spark_splits_a_file_by_a_line_sep_that_cannot_overlap_itself(spark, tmp_path, sep):
    """A range finds the lines of a separator none of whose matches can start inside
    another; one that begins as it ends (`||`, `aba`) has its file read whole."""
    records = [f'{{"i":{i},"s":"{"x" * (i % 9)}"}}' for i in range(2000)]
    path = write(tmp_path / "f", {"f.json": (sep.join(records) + sep).encode()})
    ours = bls.read(spark, path, line_sep=sep, split_bytes=4096)
    assert (ours.rdd.getNumPartitions() > 1) == (sep not in ("||", "aba"))
    theirs = spark.read.options(lineSep=sep).json(path)
    got = rows(ours, ["i", "s"])
    assert got == rows(theirs, ["i", "s"]) and len(got) == 2000


def test_multiline_reads_documents_whatever_the_line_sep_as_spark(spark, tmp_path):
    path = write(tmp_path / "f", {"f.json": b'[{"a": 1},\n {"a": 2}]\n'})
    theirs = spark.read.options(multiLine="true", lineSep="|").json(path)
    ours = bls.read(spark, path, multiline=True, line_sep="|")
    assert rows(ours, ["a"]) == rows(theirs, ["a"]) == [(1,), (2,)]


#: (lineSep, header, the file's bytes): CSV records Spark ends at exactly the separator
CSV_SEPARATED = {
    "quotes do not protect it": (";", True, b'a,b;1,"x;y";2,q\r;;\n;3,  z ;'),
    "line breaks are text": (";", True, b'a,b;1,"x\ny";\n3,z\r\n;'),
    "no header": (";", False, b"1,2;3"),
    "a Windows line break": ("\r\n", True, b'a,b\r\n1,"x\r\ny"\r\n2,q'),
    "two letters": ("ab", True, b"x,yab1,2ab"),
    "a character of two bytes": ("\u00e9", True, "a,bé1,xé2,y".encode()),
    "a NUL": ("\x00", True, b"a,b\x001,2\x00"),
}


@pytest.mark.parametrize("case", list(CSV_SEPARATED))
def test_csv_line_sep_ends_records_as_sparks_line_sep(spark, tmp_path, case):
    sep, header, data = CSV_SEPARATED[case]
    path = write(tmp_path / "f", {"f.csv": data})
    # (a file without a header by Spark's column names: `read` gives Drill's `columns`)
    ddl = None if header else "_c0 string, _c1 string"
    theirs = spark.read.options(lineSep=sep, header=str(header).lower()).csv(path, schema=ddl)
    ours = bls.read(spark, path, header=header, line_sep=sep, on_error="permissive", schema=ddl)
    assert set(theirs.columns) <= set(ours.columns)
    assert rows(ours, theirs.columns) == rows(theirs, theirs.columns)


@pytest.mark.parametrize("sep", ["\u0001", "\r\n"])
def test_csv_line_sep_types_and_splits_as_spark(spark, tmp_path, sep):
    """Inferred types, a schema's, comments, and a file split into byte ranges at a
    separator (each record read once, the header once)."""
    records = [f'{i},{i / 4},"t\nx"' for i in range(3000)]
    data = (sep.join(["id,score,text", "#a comment", *records])).encode()
    path = write(tmp_path / "f", {"f.csv": data})
    options = {"lineSep": sep, "header": "true", "comment": "#", "inferSchema": "true"}
    theirs = spark.read.options(**options).csv(path)
    ours = bls.read(spark, path, split_bytes=8192, **bls.scan_options_from(options))
    assert ours.rdd.getNumPartitions() > 1
    assert ours.schema.fields[:3] == theirs.schema.fields  # (then the file columns)
    got = rows(ours, theirs.columns)
    assert got == rows(theirs, theirs.columns) and len(got) == 3000
    ddl = "id int, score double, text string"
    theirs = spark.read.options(**options).schema(ddl).csv(path)
    ours = bls.read(spark, path, schema=ddl, **bls.scan_options_from(options))
    assert rows(ours, theirs.columns) == rows(theirs, theirs.columns)


def test_spark_read_refuses_a_csv_line_sep_with_multiline(spark, tmp_path):
    path = write(tmp_path / "f", {"a.csv": b"a,b;1,2;"})
    with pytest.raises(ValueError, match=r"line_sep \(Spark's lineSep\) with multiline: .*a\.csv"):
        bls.read(spark, path, header=True, line_sep=";", multiline=True)


@pytest.mark.skipif(not HAS_PYTHON_DATA_SOURCES, reason="Python data sources arrived in Spark 4")
def test_the_spark_data_source_takes_line_sep(spark, tmp_path):
    sep, data = SEPARATED["a bar"]
    path = write(tmp_path / "f", {"f.json": data})
    columns, want = their_rows(spark, path, lineSep=sep)
    bls.register(spark)
    reader = spark.read.format("batchloader").options(lineSep=sep, mode="PERMISSIVE")
    assert (
        rows(reader.schema("a long, b array<long>, _corrupt_record string").load(path), columns)
        == want
    )
    csv = write(tmp_path / "c", {"a.csv": b"a,b;1,x;2,y"})
    theirs = spark.read.options(lineSep=";", header="true").csv(csv)
    ours = spark.read.format("batchloader").options(lineSep=";", header="true").load(csv)
    assert rows(ours, theirs.columns) == rows(theirs, theirs.columns) == [("1", "x"), ("2", "y")]


def scan_rows(path: str, columns: list[str], **options) -> list[dict]:
    scan = Scan([path], columns=columns, **options)
    return pa.Table.from_batches(list(scan), schema=scan.schema).to_pylist()


def test_scan_ends_lines_by_its_conventions_or_its_line_sep(tmp_path):
    """`Scan` keeps JSON Lines' rule under Arrow's conventions (a lone `\\r` is white space,
    as pyarrow.json takes it inside a line); Spark's ends a line at it."""
    path = str(tmp_path / "f.json")
    (tmp_path / "f.json").write_bytes(b'{"a":1,\r"b":2}\r\n{"a":3}\n')
    both = ["a", "b", "_corrupt_record"]
    assert scan_rows(path, both, on_error="permissive") == [
        {"a": 1, "b": 2, "_corrupt_record": None},
        {"a": 3, "b": None, "_corrupt_record": None},
    ]
    assert scan_rows(path, both, on_error="permissive", json_conventions="spark") == [
        {"a": None, "b": None, "_corrupt_record": '{"a":1,'},
        {"a": None, "b": None, "_corrupt_record": '"b":2}'},
        {"a": 3, "b": None, "_corrupt_record": None},
    ]
    (tmp_path / "f.json").write_bytes(b'{"a":1}|{"a":\n2}\r\n|')
    for conventions in ("arrow", "spark"):
        got = scan_rows(path, ["a"], line_sep="|", json_conventions=conventions)
        assert got == [{"a": 1}, {"a": 2}]


def test_line_sep_is_checked_where_it_is_given(tmp_path):
    path = str(tmp_path / "f.json")
    (tmp_path / "f.json").write_bytes(b'{"a":1}|{"a":2}|')
    for bad in ("", 5):
        with pytest.raises(ValueError, match="line_sep is the text that ends lines and records"):
            Scan([path], line_sep=bad)
    with pytest.raises(ValueError, match="with multiline=True a file is read whole"):
        Scan([path], line_sep="|", multiline=True)
    with pytest.raises(ValueError, match="a reader of your own reads its own"):
        Scan([path], line_sep="|", reader=lambda file, writer: iter(()))
    with pytest.raises(ValueError, match="a range cannot find where its lines start"):
        Scan([path], line_sep="||", byte_range=(0, 4))
    with pytest.raises(ValueError, match="it needs csv_conventions"):
        FileReader(path, format="csv", line_sep="|")
    with pytest.raises(ValueError, match="holds the delimiter"):
        FileReader(path, format="csv", line_sep=",", csv_conventions="spark")
    with pytest.raises(ValueError, match=r"line_sep is the text .* it cannot be empty"):
        FileReader(path, line_sep="")
    with pytest.raises(ValueError, match="a range cannot find where its lines start"):
        FileReader(path, line_sep="aba", byte_range=(0, 4))
    assert line_sep_splits("<>") and line_sep_splits("\r\n") and not line_sep_splits("||")
    with pytest.raises(ValueError, match="with multiline=True a file is read whole"):
        FileReader(path, line_sep="|", multiline=True)
    (tmp_path / "a.csv").write_bytes(b"a|1|")
    with pytest.raises(ValueError, match="it needs csv_conventions"):
        scan_rows(str(tmp_path / "a.csv"), ["a"], header=True, line_sep="|")
    got = scan_rows(
        str(tmp_path / "a.csv"), ["a"], header=True, line_sep="|", csv_conventions="spark"
    )
    assert got == [{"a": "1"}]
    # the byte ranges of a one-byte separator read each line once, wherever the cuts
    for cuts in ([0, 3, 9, 16], [0, 7, 8, 16], [0, 16]):
        got = [
            row
            for start, end in itertools.pairwise(cuts)
            for row in scan_rows(path, ["a"], line_sep="|", byte_range=(start, end))
        ]
        assert got == [{"a": 1}, {"a": 2}], cuts
