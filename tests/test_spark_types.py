"""Spark-facing helpers that run without Spark: type mapping and rows_to_arrow."""

from __future__ import annotations

import decimal

import pyarrow as pa
import pytest

from batchloader.spark import rows_to_arrow, spark_arrow_schema, spark_arrow_type


@pytest.mark.parametrize(
    ("given", "spark"),
    [
        (pa.large_utf8(), pa.utf8()),
        (pa.large_binary(), pa.binary()),
        (pa.uint8(), pa.int16()),
        (pa.uint32(), pa.int64()),
        (pa.uint64(), pa.decimal128(20, 0)),
        (pa.timestamp("ns", tz="UTC"), pa.timestamp("us", tz="UTC")),
        (pa.timestamp("s"), pa.timestamp("us")),
        (pa.large_list(pa.large_utf8()), pa.list_(pa.utf8())),
        (
            pa.struct([("a", pa.large_list(pa.uint16()))]),
            pa.struct([("a", pa.list_(pa.int32()))]),
        ),
        (pa.map_(pa.large_utf8(), pa.uint8()), pa.map_(pa.utf8(), pa.int16())),
        (pa.int64(), pa.int64()),
        (pa.decimal128(10, 2), pa.decimal128(10, 2)),
    ],
)
def test_spark_arrow_types(given, spark):
    assert spark_arrow_type(given) == spark


def test_schema_keeps_names_nullability_and_metadata():
    schema = pa.schema(
        [pa.field("A", pa.large_utf8(), nullable=False, metadata={"k": "v"})], metadata={"s": "1"}
    )
    out = spark_arrow_schema(schema)
    assert out.field("A") == pa.field("A", pa.utf8(), nullable=False, metadata={"k": "v"})
    assert out.metadata == {b"s": b"1"}


def test_rows_to_arrow_bounds_batches_and_converts_types():
    schema = pa.schema([("id", pa.uint64()), ("tags", pa.large_list(pa.large_utf8()))])

    def explode(batches):
        for batch in batches:
            for n in batch.column("n").to_pylist():
                for i in range(n):
                    yield {"id": 2**64 - 1 - i, "tags": ["t"] * (i % 3)}

    fn = rows_to_arrow(explode, schema, row_limit=7)
    inputs = [pa.record_batch({"n": [5, 10]}), pa.record_batch({"n": [3]})]
    out = list(fn(iter(inputs)))
    assert all(b.num_rows <= 7 for b in out)
    assert {b.schema for b in out} == {spark_arrow_schema(schema)}
    table = pa.Table.from_batches(out)
    assert table.num_rows == 18
    assert table.column("id")[0].as_py() == decimal.Decimal(2**64 - 1)
    assert table.column("tags").to_pylist()[:3] == [[], ["t"], ["t", "t"]]


def test_rows_to_arrow_reports_bad_rows():
    import batchloader as bl

    fn = rows_to_arrow(lambda batches: iter([{"id": "x"}]), pa.schema([("id", pa.int64())]))
    with pytest.raises(bl.SchemaConflictError, match="row 0: column 'id'"):
        list(fn(iter([])))
