"""Spark's CSV reading of fields where csv-core's differs: whitespace after a closing quote,
text after it, and the options `ignoreLeadingWhiteSpace`, `ignoreTrailingWhiteSpace` and
`emptyValue`; checked against Spark's own reader on the same files."""

from __future__ import annotations

import pyarrow as pa
import pytest

import batchloader.spark as bls
from batchloader import FileReader
from batchloader.scan import Scan

#: records of three fields whichever options read them (no field of whitespace alone:
#: Spark 4.3's parser fails on one with ignoreTrailingWhiteSpace)
TEXTS = [
    '  x  ,  "y z"  ," q "',
    '"",x,""',
    "\t t\t, u ,v",
    '"w"  ,  "",  x',
    '"w" x,"a"b ,c',
    ",,",
    '"",,""',
    '"a\\"b"c,"C:\\x" , "s"',
    '  "",NA, "" ',
]

#: a typed file: numbers with whitespace around them, quoted or not
TYPED = ["1,2.5,x", " 2 , 3.5 , y ", '  "3"  ,"4.5"  ,  "z"', '"",5.5,""']

OPTION_SETS = [
    {},
    {"ignoreLeadingWhiteSpace": "true"},
    {"ignoreTrailingWhiteSpace": "true"},
    {"ignoreLeadingWhiteSpace": "true", "ignoreTrailingWhiteSpace": "true"},
    {"emptyValue": "E"},
    {"emptyValue": "E", "nullValue": "NA"},
    {"emptyValue": "NA", "nullValue": "NA", "ignoreLeadingWhiteSpace": "true"},
]


def rows(df, columns: str = "abc") -> list[tuple]:
    return sorted((tuple(r[c] for c in columns) for r in df.collect()), key=repr)


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: ",".join(o) or "defaults")
def test_fields_read_as_sparks_csv_reader_reads_them(spark, tmp_path, options):
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "f.csv").write_text("a,b,c\n" + "\n".join(TEXTS) + "\n")
    (tmp_path / "n").mkdir()
    (tmp_path / "n" / "f.csv").write_text("a,b,c\n" + "\n".join(TYPED) + "\n")
    named = bls.scan_options_from(options)

    def reader():  # (a DataFrameReader keeps the schema it was given)
        return spark.read.options(header="true", mode="PERMISSIVE", **options)

    texts = str(tmp_path / "t")
    assert rows(bls.read(spark, texts, header=True, **named)) == rows(reader().csv(texts))
    typed, ddl = str(tmp_path / "n"), "a int, b double, c string"
    ours = bls.read(spark, typed, header=True, on_error="permissive", schema=ddl, **named)
    assert rows(ours) == rows(reader().schema(ddl).csv(typed))
    inferred = reader().option("inferSchema", "true").csv(typed)
    ours = bls.read(spark, typed, header=True, infer_schema=True, **named)
    for column in "abc":
        assert ours.schema[column].dataType == inferred.schema[column].dataType, column
    assert rows(ours) == rows(inferred)


def scan_texts(tmp_path, text: str, **options) -> list[tuple]:
    (tmp_path / "f.csv").write_text(text)
    scan = Scan(str(tmp_path / "f.csv"), header=True, csv_conventions="spark", **options)
    table = pa.Table.from_batches(list(scan))
    return list(zip(*(table.column(c).to_pylist() for c in ("a", "b")), strict=True))


def test_whitespace_is_trimmed_only_where_asked(tmp_path):
    text = 'a,b\n  x  , "y" \n'
    assert scan_texts(tmp_path, text) == [("  x  ", ' "y" ')]
    assert scan_texts(tmp_path, text, ignore_leading_whitespace=True) == [("x  ", "y")]
    assert scan_texts(tmp_path, text, ignore_trailing_whitespace=True) == [("  x", ' "y"')]


def test_an_empty_value_is_the_text_of_quoted_empty_fields_and_may_be_null(tmp_path):
    text = 'a,b\n"",\n'
    assert scan_texts(tmp_path, text) == [(None, None)]
    assert scan_texts(tmp_path, text, empty_value="-") == [("-", None)]
    assert scan_texts(tmp_path, text, empty_value="-", null_values="-") == [(None, None)]


def test_the_field_options_need_csv_and_its_conventions(tmp_path):
    (tmp_path / "f.csv").write_text("a\n x \n")
    path = str(tmp_path / "f.csv")
    with pytest.raises(ValueError, match='need csv_conventions="spark"'):
        FileReader(path, format="csv", header=True, ignore_leading_whitespace=True)
    with pytest.raises(ValueError, match="shape CSV fields: not JSON"):
        FileReader(path, empty_value="")
    with pytest.raises(ValueError, match="empty_value= shape CSV fields: JSON has its own"):
        Scan([], format="ndjson", empty_value="")
    with pytest.raises(TypeError, match="ignore_trailing_whitespace= takes True or False"):
        Scan([], format="csv", ignore_trailing_whitespace="yes")


@pytest.mark.parametrize("sep", [",", "\t"])
def test_lines_of_whitespace_are_skipped_as_spark_skips_them(spark, tmp_path, sep):
    """A line of whitespace, delimiters that are whitespace included (tabs in a file they
    delimit), is no record to Spark's CSV reader, before the header too; a delimiter that
    is no whitespace makes one."""
    lines = ["  ", sep.join("abc"), "\t\t", " \t ", "   ", "x", " , ", '" "']
    (tmp_path / "f.csv").write_text("\n".join(lines) + "\n")
    path = str(tmp_path)
    ddl = "a string, b string, c string"
    theirs = spark.read.options(header="true", sep=sep).schema(ddl).csv(path)
    ours = bls.read(spark, path, header=True, delimiter=sep, schema=ddl, on_error="permissive")
    want = rows(theirs)
    assert ("x", None, None) in want and len(want) == 3  # x, " , " and " "
    assert rows(ours) == want
