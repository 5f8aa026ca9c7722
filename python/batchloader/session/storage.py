"""How a temporary table's data is written and read back.

Parquet, JSON or CSV under the table folder, written with Hadoop's umask 077 (folders 700,
files 600) and read back with the exact schema the query produced, so JSON and CSV tables keep
their types. `PARTITION BY` (parquet) writes one folder per value of hidden copies of the
partition columns and keeps the columns themselves in the files: the table reads back with its
columns unchanged (no partition discovery), even when every column is a partition column.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from batchloader.errors import ValidationError

FORMATS = ("parquet", "json", "csv")

_TEXT_TIMES = {
    # Spark's defaults keep milliseconds only; a temporary table must not lose precision.
    "timestampFormat": "yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX",
    "timestampNTZFormat": "yyyy-MM-dd'T'HH:mm:ss.SSSSSS",
}
_WRITE_OPTIONS: dict[str, dict[str, str]] = {
    "parquet": {},
    "json": dict(_TEXT_TIMES),
    # Spark's CSV writer trims white space around values by default: a value must read
    # back as it was
    "csv": {
        **_TEXT_TIMES,
        "header": "true",
        "ignoreLeadingWhiteSpace": "false",
        "ignoreTrailingWhiteSpace": "false",
    },
}
#: a CSV null marker no stored value is
_NO_VALUE = "\u0000batchloader: no value\u0000"
_READ_OPTIONS: dict[str, dict[str, str]] = {
    "parquet": {},
    "json": dict(_TEXT_TIMES),
    # Spark writes null as an empty field and "" as `""`; reading with a null marker no
    # value holds keeps the two apart (the default marker, "", reads `""` as null; a NUL
    # alone, the marker before, read a value "\0" as null). Quoted values may hold line
    # breaks.
    "csv": {**_TEXT_TIMES, "header": "true", "nullValue": _NO_VALUE, "multiLine": "true"},
}
PARTITION_SUFFIX = "__partition"


@dataclass
class TempTable:
    """A temporary table of a session: the name the user gave, where its files are, and the
    temp views it is reached through (the user's name, and an internal alias that qualified
    references are rewritten to)."""

    name: str
    location: str
    format: str
    schema: Any  # pyspark StructType
    alias: str


def check_storable(schema: Any, fmt: str) -> None:
    """Refuse columns `fmt` cannot store and read back unchanged."""
    from pyspark.sql.types import ArrayType, BinaryType, MapType, StringType, StructType

    def walk(dtype: Any, column: str) -> None:
        if fmt == "csv" and isinstance(dtype, (ArrayType, MapType, StructType, BinaryType)):
            raise ValidationError(
                f"Csv format cannot store column [{column}] of type "
                f"{dtype.simpleString()}: use store.format 'parquet' or 'json'"
            )
        if isinstance(dtype, MapType):
            if fmt == "json" and not isinstance(dtype.keyType, StringType):
                raise ValidationError(
                    f"Json format cannot store column [{column}] of type "
                    f"{dtype.simpleString()}: JSON map keys are strings; use store.format "
                    "'parquet'"
                )
            walk(dtype.valueType, column)
        elif isinstance(dtype, ArrayType):
            walk(dtype.elementType, column)
        elif isinstance(dtype, StructType):
            for f in dtype.fields:
                walk(f.dataType, f"{column}.{f.name}")

    for f in schema.fields:
        walk(f.dataType, f.name)


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def write_table(df: Any, location: str, fmt: str, partition_by: list[str], scheme: str) -> None:
    """Write `df` under `location` (which must not exist yet), owner-only."""
    from pyspark.sql import functions as F

    writer_df = df
    copies: list[str] = []
    if partition_by:
        taken = {c.lower() for c in df.columns}
        for column in partition_by:
            copy = column + PARTITION_SUFFIX
            while copy.lower() in taken:
                copy += "_"
            taken.add(copy.lower())
            copies.append(copy)
        writer_df = df.select(
            *[F.col(_quoted(c)) for c in df.columns],
            *[F.col(_quoted(c)).alias(k) for c, k in zip(partition_by, copies, strict=True)],
        )
    writer = (
        writer_df.write.format(fmt)
        .options(**_WRITE_OPTIONS[fmt])
        .option("fs.permissions.umask-mode", "077")
        # The umask is read when a FileSystem instance is made: a cached one keeps its own.
        .option(f"fs.{scheme}.impl.disable.cache", "true")
        .mode("errorifexists")
    )
    if copies:
        writer = writer.partitionBy(*copies)
    writer.save(location)


def read_table(spark: Any, table: TempTable) -> Any:
    """The DataFrame of a temporary table's files, with the table's own schema."""
    return (
        spark.read.format(table.format)
        .schema(table.schema)
        .options(**_READ_OPTIONS[table.format])
        .option("recursiveFileLookup", "true")
        .load(table.location)
    )


def fragments(df: Any) -> list[tuple[str, int]]:
    """`(fragment, records)` per write task of a freshly written table, Drill's `0_<task>`
    naming; counted from the files, so they add up to what a reader of the table sees."""
    from pyspark.sql import functions as F

    per_file = df.groupBy(F.col("_metadata.file_name").alias("file")).count().collect()
    per_task: dict[int, int] = defaultdict(int)
    for index, row in enumerate(sorted(per_file, key=lambda r: r["file"])):
        name = row["file"]
        parts = name.split("-")
        task = int(parts[1]) if name.startswith("part-") and parts[1].isdigit() else index
        per_task[task] += int(row["count"])
    if not per_task:
        return [("0_0", 0)]
    return [(f"0_{task}", count) for task, count in sorted(per_task.items())]
