"""Spark's CSV options `nanValue`, `positiveInf` and `negativeInf`: the texts a float
field spells NaN and the infinities with, read and inferred as Spark's CSV reader reads and
infers them; checked against Spark's own reader on the same files."""

from __future__ import annotations

import math

import pyarrow as pa
import pytest

import batchloader.spark as bls
from batchloader import InputError
from batchloader._core import spark_csv_type
from batchloader.scan import Scan

#: fields of a double column and what Spark reads them as, by the options given
TEXTS = ["NaN", "Inf", "-Inf", "Infinity", "-Infinity", "nan", "+Inf", "-999", "-999.5", "1.5"]


def spelled(x: float | None) -> str | None:
    """A float as a comparable text (NaN is not equal to itself)."""
    return None if x is None else repr(x)


def write_column(tmp_path, texts: list[str]) -> str:
    (tmp_path / "f.csv").write_text("x,f\n" + "".join(f"{t},{t}\n" for t in texts))
    return str(tmp_path / "f.csv")


def scan_column(path: str, **options) -> list[str | None]:
    schema = pa.schema([("x", pa.float64()), ("f", pa.float32())])
    scan = Scan(path, header=True, schema=schema, on_error="permissive", **options)
    table = pa.Table.from_batches(list(scan))
    xs, fs = table.column("x").to_pylist(), table.column("f").to_pylist()
    assert [spelled(f) for f in fs] == [
        spelled(None if x is None else float(pa.scalar(x, pa.float32()).as_py())) for x in xs
    ], "a float column reads the texts a double one reads"
    return [spelled(x) for x in xs]


def test_the_texts_given_replace_sparks(tmp_path):
    path = write_column(tmp_path, TEXTS)
    nan, inf = spelled(math.nan), spelled(math.inf)
    defaults = scan_column(path, csv_conventions="spark")
    assert defaults == [nan, inf, "-inf", inf, "-inf", None, None, "-999.0", "-999.5", "1.5"]
    given = scan_column(
        path, csv_conventions="spark", nan_value="-999", positive_inf="+Inf", negative_inf="-Inf"
    )
    # NaN and Infinity are still Java's spellings; Inf is no longer one
    assert given == [nan, None, "-inf", inf, "-inf", None, inf, nan, "-999.5", "1.5"]
    # Arrow's conventions read what Rust reads (nan, inf in any case), and the texts given
    arrow = scan_column(path, nan_value="-999")
    assert arrow == [nan, inf, "-inf", inf, "-inf", nan, inf, nan, "-999.5", "1.5"]


def test_a_float_text_not_taken_is_bad_input_that_says_so(tmp_path):
    path = write_column(tmp_path, ["1.5", "Inf"])
    schema = pa.schema([("x", pa.float64()), ("f", pa.float64())])
    scan = Scan(path, header=True, schema=schema, csv_conventions="spark", positive_inf="+Inf")
    bad = r"f\.csv, line 3, column 1: field 1 \(x\) is not a number"
    with pytest.raises(InputError, match=bad):
        list(scan)


def test_float_texts_are_csv_options():
    with pytest.raises(ValueError, match="nan_value= shape CSV fields: JSON has its own syntax"):
        Scan([], format="ndjson", nan_value="n/a")
    with pytest.raises(TypeError, match="positive_inf= takes a string"):
        Scan([], format="csv", positive_inf=1)


def test_inference_takes_the_texts_given():
    assert spark_csv_type(["nan", "1.5"]) == "string"
    assert spark_csv_type(["nan", "1.5"], nan_value="nan") == "double"
    assert spark_csv_type(["Inf", "2"], positive_inf="+Inf") == "string"
    assert spark_csv_type(["+Inf", "2"], positive_inf="+Inf") == "double"


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"nanValue": "-999", "positiveInf": "+Inf", "negativeInf": "-Inf"},
        {"nanValue": "nan", "positiveInf": "inf", "negativeInf": "ninf"},
    ],
)
def test_spark_reads_and_infers_float_texts_as_sparks_csv_reader(spark, tmp_path, options):
    """Read with a schema (`x`: every text, in permissive mode) and inferred (`y`: the
    texts the options spell and a number, a double to Spark; `z`: `Inf`, a double only while
    it is the positive infinity's text)."""
    texts = [*TEXTS, "inf", "ninf"]
    spells = [options.get(o, d) for o, d in [("nanValue", "NaN"), ("positiveInf", "Inf")]]
    spells += [options.get("negativeInf", "-Inf"), "2.5"]
    lines = [f"{t},{i},{spells[i % 4]},Inf" for i, t in enumerate(texts)]
    (tmp_path / "f.csv").write_text("x,n,y,z\n" + "".join(line + "\n" for line in lines))
    path = str(tmp_path)

    def floats(df):
        return sorted((r.n, spelled(r.x), spelled(r.y)) for r in df.collect())

    def reader():  # (a DataFrameReader keeps the schema it was given)
        return spark.read.options(header="true", mode="PERMISSIVE", **options)

    theirs = reader().schema("x double, n int, y double").csv(path)
    named = bls.scan_options_from(options)
    told = bls.read(
        spark,
        path,
        header=True,
        on_error="permissive",
        schema="x double, n int, y double",
        **named,
    )
    assert floats(told.select("x", "n", "y")) == floats(theirs)
    inferred = reader().option("inferSchema", "true").csv(path)
    ours = bls.read(spark, path, header=True, infer_schema=True, **named)
    assert inferred.schema["y"].dataType.simpleString() == "double"
    for column in "xyz":
        assert ours.schema[column].dataType == inferred.schema[column].dataType, column
    assert floats(ours.select("x", "n", "y")) == floats(inferred.select("x", "n", "y"))
