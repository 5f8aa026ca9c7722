"""Files whose text is ISO-8859-1 or US-ASCII (Spark's `encoding` option, which takes those
besides UTF-8 and the UTF-16/32 ones): read as Java decodes them (every Latin-1 byte the
character of its value, `0x80` U+0080; a byte past ASCII U+FFFD in US-ASCII), checked
against Spark's own readers on the same bytes, whole and split into byte ranges."""

from __future__ import annotations

import pyarrow as pa
import pytest

import batchloader.spark as bls
from batchloader._core import FileReader
from batchloader.scan import Scan

try:
    import pyspark.sql.datasource  # noqa: F401

    HAS_PYTHON_DATA_SOURCES = True
except ImportError:  # Spark 3.5
    HAS_PYTHON_DATA_SOURCES = False

#: every byte past ASCII but the line breaks' and the delimiter's, in Latin-1 fields
HIGH = bytes(range(0x80, 0x100))
LATIN1_CSV = b"name,v\nJos\xe9,1\n" + b"".join(
    b"x" + HIGH[i : i + 16] + b",%d\n" % i for i in range(0, 128, 16)
)


def write(folder, name: str, data: bytes) -> str:
    folder.mkdir()
    (folder / name).write_bytes(data)
    return str(folder)


def rows(df, columns: list[str]) -> list[tuple]:
    return sorted((tuple(r[c] for c in columns) for r in df.collect()), key=repr)


@pytest.mark.parametrize("charset", ["ISO-8859-1", "US-ASCII"])
def test_csv_in_a_single_byte_charset_reads_as_in_spark(spark, tmp_path, charset):
    path = write(tmp_path / "f", "a.csv", LATIN1_CSV)
    options = {"encoding": charset, "header": "true"}
    theirs = spark.read.options(**options).csv(path)
    ours = bls.read(spark, path, **bls.scan_options_from(options))
    want = rows(theirs, ["name", "v"])
    assert rows(ours, ["name", "v"]) == want and len(want) == 9
    decoded = [name for name, _ in want]
    if charset == "ISO-8859-1":
        assert "José" in decoded and "x\x80\x81" + HIGH[2:16].decode("latin-1") in decoded
    else:
        assert "Jos\ufffd" in decoded


@pytest.mark.parametrize("charset", ["ISO-8859-1", "US-ASCII"])
def test_spark_reads_a_file_opening_with_a_utf16_mark_as_text_in_a_single_byte_charset(
    spark, tmp_path, charset
):
    """`ÿþ` (the bytes of UTF-16LE's byte order mark) opening a Latin-1 file are its
    text, as Spark reads them; in UTF-8 they say the file is UTF-16."""
    path = write(tmp_path / "f", "a.csv", b"\xff\xfex,v\n\xe9,1\n")
    options = {"encoding": charset, "header": "true"}
    theirs = spark.read.options(**options).csv(path)
    ours = bls.read(spark, path, split_bytes=4, **bls.scan_options_from(options))
    assert theirs.columns == ours.columns[:2]
    assert rows(ours, theirs.columns) == rows(theirs, theirs.columns)
    if charset == "ISO-8859-1":
        assert theirs.columns[0] == "\xff\xfex"
    with pytest.raises(Exception, match="UTF-16LE"):
        bls.read(spark, path, header=True).collect()


def test_spark_reads_a_latin1_file_split_into_byte_ranges_once(spark, tmp_path):
    lines = b"".join(b"%d,caf\xe9 %d,\xff\n" % (i, i) for i in range(3000))
    path = write(tmp_path / "f", "a.csv", b"id,s,t\n" + lines)
    options = {"encoding": "ISO-8859-1", "header": "true"}
    theirs = spark.read.options(**options).csv(path)
    ours = bls.read(spark, path, split_bytes=4096, **bls.scan_options_from(options))
    assert ours.rdd.getNumPartitions() > 1
    got = rows(ours, ["id", "s", "t"])
    assert got == rows(theirs, ["id", "s", "t"]) and len(got) == 3000
    assert got[0][1:] == ("café 0", "ÿ")


@pytest.mark.parametrize("multiline", [False, True])
def test_json_in_latin1_reads_as_in_spark(spark, tmp_path, multiline):
    """Spark reads JSON lines in ISO-8859-1 with an explicit `lineSep` only; `read` takes
    them either way."""
    data = b'{"name": "Jos\xe9", "n": 1}\n{"name": "\x80\xff", "n": 2}\n'
    if multiline:
        data = b"[" + data.replace(b"}\n{", b"},\n{").rstrip(b"\n") + b"]\n"
    path = write(tmp_path / "f", "a.json", data)
    options = {"encoding": "ISO-8859-1", "multiLine": str(multiline).lower()}
    if not multiline:
        options["lineSep"] = "\n"
    theirs = spark.read.options(**options).json(path)
    ours = bls.read(spark, path, **bls.scan_options_from(options))
    assert rows(ours, ["name", "n"]) == rows(theirs, ["name", "n"]) == [("José", 1), ("\x80ÿ", 2)]
    assert rows(bls.read(spark, path, encoding="iso-8859-1", multiline=multiline), ["name"]) == [
        ("José",),
        ("\x80ÿ",),
    ]


@pytest.mark.skipif(not HAS_PYTHON_DATA_SOURCES, reason="Python data sources arrived in Spark 4")
def test_the_spark_data_source_takes_the_encoding(spark, tmp_path):
    path = write(tmp_path / "f", "a.csv", LATIN1_CSV)
    bls.register(spark)
    theirs = spark.read.options(encoding="ISO-8859-1", header="true").csv(path)
    reader = spark.read.format("batchloader").options(charset="ISO-8859-1", header="true")
    assert rows(reader.load(path), ["name", "v"]) == rows(theirs, ["name", "v"])
    with pytest.raises(Exception, match="read utf-8, iso-8859-1, us-ascii"):
        spark.read.format("batchloader").options(encoding="UTF-16").load(path).collect()


def test_scan_reads_a_charset_and_refuses_others(tmp_path):
    path = tmp_path / "a.csv"
    path.write_bytes(b"s\nJos\xe9\n\x80\n")
    scan = Scan([str(path)], header=True, columns=["s"], encoding="Iso-8859-1")
    got = pa.Table.from_batches(list(scan), schema=scan.schema)
    assert got.equals(pa.Table.from_pylist([{"s": "José"}, {"s": "\x80"}]))
    with pytest.raises(ValueError, match="a reader of your own decodes"):
        Scan([str(path)], encoding="us-ascii", reader=lambda file, writer: iter(()))
    # Spark 4.3 takes its names in any case, and no alias (probed: `utf8`, `latin1`,
    # `ISO_8859_1` and a name with blanks around it are refused)
    for name in ("utf-16", "windows-1252", "latin1", "utf8", "ISO_8859_1", " us-ascii"):
        with pytest.raises(ValueError, match=r"encoding is .*: the built-in readers read utf-8"):
            Scan([str(path)], encoding=name)
        with pytest.raises(ValueError, match=r"encoding is .*: the built-in readers read utf-8"):
            FileReader(str(path), format="csv", encoding=name)
    # UTF-8 by name, as without it: the bytes are not valid UTF-8, so the file is bad input
    with pytest.raises(Exception, match="UTF-8"):
        list(Scan([str(path)], header=True, encoding="UTF-8"))
