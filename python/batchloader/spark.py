"""Spark-side helpers that need no running Spark: the Arrow types Spark accepts, and
`rows_to_arrow`, which turns a row-yielding function into a bounded `mapInArrow` function.

Spark's Arrow conversion takes utf8 (not large_utf8), binary, list (not large_list), signed
integers only and timestamps in microseconds. `spark_arrow_type` maps every type the loader
writes to the one Spark takes, in one place; batches are cast to it before Spark sees them.
"""

from __future__ import annotations

import base64
import collections
import datetime as dt
import functools
import glob
import inspect
import json
import math
import os
import pickle
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

import pyarrow as pa

from batchloader import locations, pruning
from batchloader._core import (
    COMPRESSED_SUFFIXES,
    JAVA_SHORT_IDS,
    ResultSetLoader,
    charset_named,
    line_sep_splits,
)
from batchloader.column_paths import member_path, path_steps, top_name
from batchloader.errors import BatchLoaderError
from batchloader.file_filters import FileFilter
from batchloader.hive_partitions import HiveLayout
from batchloader.projection import Projection, split_paths
from batchloader.scan import JSON_SYNTAX, SPARK_JSON_SYNTAX
from batchloader.schema import (
    ImplicitColumns,
    explaining_type_conflicts,
    type_conflict_path,
)
from batchloader.spark_inference import (
    Inference,
    declare,
    float_paths,
    java_name_order,
    members_in_sparks_order,
    spark_canonical_field,
    type_at,
)

T = TypeVar("T")

#: unsigned integers widen to the next signed type Spark has (uint64 needs a decimal)
_UNSIGNED = {
    pa.uint8(): pa.int16(),
    pa.uint16(): pa.int32(),
    pa.uint32(): pa.int64(),
    pa.uint64(): pa.decimal128(20, 0),
}


def spark_arrow_type(t: pa.DataType) -> pa.DataType:
    """The Arrow type Spark accepts for `t` (identical when Spark takes `t` as is)."""
    if pa.types.is_large_string(t):
        return pa.utf8()
    if pa.types.is_large_binary(t):
        return pa.binary()
    if t in _UNSIGNED:
        return _UNSIGNED[t]
    if pa.types.is_timestamp(t):
        # an instant (Spark's timestamp) crosses in UTC, the zone Spark's Python workers
        # expect (the same instants: only the label changes); a wall clock has none
        return pa.timestamp("us", tz=None if t.tz is None else "UTC")
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return pa.list_(spark_arrow_field(t.value_field))
    if pa.types.is_map(t):
        return pa.map_(spark_arrow_field(t.key_field), spark_arrow_field(t.item_field))
    if pa.types.is_struct(t):
        return pa.struct([spark_arrow_field(t.field(i)) for i in range(t.num_fields)])
    return t


def spark_arrow_field(f: pa.Field) -> pa.Field:
    """`f` with its type mapped by `spark_arrow_type` (name, nullability, metadata kept)."""
    return f.with_type(spark_arrow_type(f.type))


def spark_arrow_schema(schema: pa.Schema) -> pa.Schema:
    """`schema` in the Arrow types Spark accepts."""
    return pa.schema([spark_arrow_field(f) for f in schema], metadata=schema.metadata)


def to_spark_batch(batch: pa.RecordBatch, schema: pa.Schema | None = None) -> pa.RecordBatch:
    """`batch` cast to `schema` (default: `spark_arrow_schema(batch.schema)`); a cast that
    would lose data raises instead of truncating."""
    target = schema if schema is not None else spark_arrow_schema(batch.schema)
    if batch.schema == target:
        return batch
    return batch.cast(target, safe=True)


def rows_to_arrow(
    fn: Callable[[Iterator[pa.RecordBatch]], Iterable[Any]],
    schema: pa.Schema,
    **limits: Any,
) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """Wrap `fn` (input batches -> dict or tuple rows) into a `mapInArrow` function that
    yields batches bounded by `limits` (`row_limit`, `vector_byte_limit`,
    `batch_byte_limit`...), in the Arrow types Spark accepts for `schema`.

    Use: ``df.mapInArrow(rows_to_arrow(fn, schema), spark_struct_type(schema))``.
    """
    target = spark_arrow_schema(schema)

    def map_in_arrow(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        loader = ResultSetLoader(schema, **limits)
        try:
            for batch in loader.write_rows(fn(batches)):
                yield to_spark_batch(batch, target)
        finally:
            loader.close()

    return map_in_arrow


class ColumnCounts:
    """A Spark accumulator parameter: counts by column name, added name by name (what
    `ignored_columns_accumulator` makes)."""

    def zero(self, value: dict[str, int]) -> dict[str, int]:
        """The empty counts."""
        return {}

    def addInPlace(self, counts: dict[str, int], more: dict[str, int]) -> dict[str, int]:
        """`counts` with `more` added to it."""
        for name, n in more.items():
            counts[name] = counts.get(name, 0) + n
        return counts


def ignored_columns_accumulator(spark: Any) -> Any:
    """An accumulator for `read(..., ignored_columns=...)`: after an action, its `value`
    maps each column the executors left out (the sampled schema lacks it) to the number of
    splits that had it; empty when nothing was lost."""
    return _column_counts(spark)


def text_kept_accumulator(spark: Any) -> Any:
    """An accumulator for `read(..., text_kept=...)`: after an action, its `value` maps
    each column (by path, `m.x`, `l[]`) whose utf8 type the sample guessed (it held only
    nulls there, or only empty lists) to the number of values of another type the
    executors kept there as their JSON text; empty when every value was a string."""
    return _column_counts(spark)


def _column_counts(spark: Any) -> Any:
    """A new accumulator of counts by column (`ColumnCounts`)."""
    return spark.sparkContext.accumulator({}, ColumnCounts())


def local_session(**conf: Any) -> Any:
    """A local SparkSession that works out of the box: `local[2]`, UI off, workers on this
    interpreter (PYSPARK_PYTHON set unless the user set it). `conf` adds Spark settings
    (`master=` picks another master)."""
    import os
    import sys

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master(str(conf.pop("master", "local[2]")))
        .appName(str(conf.pop("app_name", "batchloader")))
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "2g")
        .config("spark.sql.shuffle.partitions", "4")
    )
    for key, value in conf.items():
        builder = builder.config(key, str(value))
    return builder.getOrCreate()


def spark_struct_type(schema: pa.Schema) -> Any:
    """The Spark StructType of an Arrow schema (types mapped by `spark_arrow_schema`)."""
    from pyspark.sql.pandas.types import from_arrow_schema

    # a timestamp without a zone is a wall clock: timestamp_ntz (PySpark 3.5 would say
    # timestamp, an instant, and Spark would read its wall clock as UTC)
    return from_arrow_schema(spark_arrow_schema(schema), prefer_timestamp_ntz=True)


#: the data source option through which `read` passes its ScanPlan (not for users)
PLAN_OPTION = "batchloader_plan"

#: default size of the byte ranges a large uncompressed file is split into (Spark's
#: `spark.sql.files.maxPartitionBytes` default)
SPLIT_BYTES = 128 * 2**20


#: what opening a file costs, counted as bytes read, when small files are packed into tasks
#: (Spark's `spark.sql.files.openCostInBytes` default)
OPEN_COST = 4 * 2**20

#: a part of a task's input: a whole file (start and end None) or the lines starting in
#: [start, end)
Split = tuple[str, int | None, int | None]


#: the fewest rows the driver's sample reads of a file it reads (unless the sample is
#: smaller): enough to type its columns, few enough to reach many files
SAMPLE_FILE_ROWS = 100


def spread(items: list[T]) -> list[T]:
    """`items` in an order that spreads over them: the first, the last, the middle, the
    middles of the two halves, and so on (any start of it samples the whole range)."""
    n = len(items)
    if n <= 2:
        return list(items)
    order, halves = [0, n - 1], collections.deque([(0, n - 1)])
    while halves:
        lo, hi = halves.popleft()
        if hi - lo >= 2:
            mid = (lo + hi) // 2
            order.append(mid)
            halves.extend([(lo, mid), (mid, hi)])
    return [items[i] for i in order]


def _exactly(files: list[str]) -> list[str]:
    """Files already listed, as paths a scan takes as they are: a name such as `x[1].json`
    would otherwise be a pattern again (matching `x1.json`). Remote files are not escaped:
    a scan takes a file its process listed as it is (`ScanPlan.scan` tells the executors
    which files the driver listed)."""
    return [f if locations.is_remote(f) else glob.escape(f) for f in files]


def _spent_sample(
    sampled: list[str],
    root: str | None,
    sample_rows: int | None,
    options: dict[str, Any],
    each_batch: Callable[[pa.RecordBatch], None] | None = None,
) -> Any:
    """The driver's sample: a Scan of up to `sample_rows` rows of the `sampled` files with
    `options`, read through (its schema fixed and its counters set), each batch given to
    `each_batch` if any."""
    from batchloader.scan import Scan

    probe = Scan(_exactly(sampled), root=root, limit=sample_rows, **options)
    for batch in probe:
        if each_batch is not None:
            each_batch(batch)
    return probe


def _sampled_texts(
    sampled: list[str],
    root: str | None,
    sample_rows: int | None,
    options: dict[str, Any],
    declared: pa.Schema,
    paths: list[str],
) -> dict[str, list[str]]:
    """The JSON texts of the sample's values at `paths` (`x`, `m.x`, `l[]`), by path, nulls
    left out: the sample read once more with those paths declared strings (a declared
    string reads any value as its text as written) beside the types `declared` gives."""
    as_text = declared
    for path in paths:
        as_text = declare(as_text, *(type_at(path, pa.utf8()) or (path, pa.utf8())))
    options = dict(options, schema=as_text, declared_columns=as_text.names)
    texts: dict[str, list[str]] = {path: [] for path in paths}
    _spent_sample(sampled, root, sample_rows, options, functools.partial(_add_texts_at, texts))
    return texts


def _add_positional_texts(columns: dict[str, list[Any]], records: list[Any]) -> None:
    """Add to `columns` (`_c0`, `_c1`... by position, as Spark names a headerless file's
    fields) the fields of `records` (each a list of texts, or None), up to as many as the
    first record has (Spark's count; a longer record's extra fields are not its columns)."""
    for fields in records:
        if fields is None:
            continue
        if not columns:
            columns.update((f"_c{i}", []) for i in range(len(fields)))
        for i, text in enumerate(fields[: len(columns)]):
            columns[f"_c{i}"].append(text)


def _add_float_paths(found: set[str], least: float, batch: pa.RecordBatch) -> None:
    """Add to `found` the paths of `batch`'s float64 values at least `least` in magnitude
    (`float_paths`)."""
    found.update(float_paths(batch, least))


def _add_texts_at(texts: dict[str, list[str]], batch: pa.RecordBatch) -> None:
    """Add to `texts` (by column path: `x`, `m.x`, `l[]`) the values `batch` has at each
    path, nulls left out."""
    for path, found in texts.items():
        top, steps = path_steps(path) or (path, [])
        names = [n for n in batch.schema.names if n.lower() == top.lower()]
        if not names:
            continue
        values: Any = batch.column(names[0])
        for step in steps:
            values = values.flatten() if step is None else values.field(step)
        found.extend(v for v in values.to_pylist() if v is not None)


def plan_splits(
    files: list[str], split_bytes: int, splittable: Callable[[str], bool]
) -> list[Split]:
    """One split per file, or per `split_bytes` of a large file `splittable` allows."""
    splits: list[Split] = []
    for path in files:
        size = locations.size(path)
        if split_bytes <= 0 or size <= split_bytes or not splittable(path):
            splits.append((path, None, None))
            continue
        for start in range(0, size, split_bytes):
            splits.append((path, start, min(start + split_bytes, size)))
    return splits


def plan_tasks(splits: list[Split], split_bytes: int, parallelism: int = 1) -> list[list[Split]]:
    """The splits grouped into tasks, as Spark's file sources pack small files: whole files,
    each counted as its size plus OPEN_COST, fill a task in order up to
    `min(split_bytes, max(OPEN_COST, total / parallelism))` (so that every core gets work);
    a byte range of a split file is a task of its own. A thousand small files make a few
    dozen tasks, not a thousand (each task costs Spark tens of milliseconds)."""
    target = split_bytes if split_bytes > 0 else SPLIT_BYTES
    sizes = {path: locations.size(path) for path, start, _ in splits if start is None}
    total = sum(size + OPEN_COST for size in sizes.values())
    target = min(target, max(OPEN_COST, total // max(parallelism, 1)))
    tasks: list[list[Split]] = []
    packing: list[Split] = []
    packed = 0
    for split in splits:
        path, start, _ = split
        if start is not None:  # a byte range: sized by split_bytes already
            if packing:
                tasks.append(packing)
                packing, packed = [], 0
            tasks.append([split])
            continue
        if packing and packed + sizes[path] > target:
            tasks.append(packing)
            packing, packed = [], 0
        packing.append(split)
        packed += sizes[path] + OPEN_COST
    if packing:
        tasks.append(packing)
    return tasks


def _custom_reader(scan_options: dict[str, Any]) -> bool:
    """Whether the scan reads with a reader of the user's own (which writes its own types)."""
    return scan_options.get("reader") is not None or callable(scan_options.get("format"))


def _csv_files(files: list[str], scan_options: dict[str, Any]) -> list[str]:
    """The files among `files` the built-in readers read as CSV (or TSV)."""
    from batchloader.scan import builtin_format

    fmt = scan_options.get("format", "auto")
    return [f for f in files if builtin_format(f, fmt) in ("csv", "tsv")]


def _sparks_json_rules(scan_options: dict[str, Any]) -> bool:
    """Whether a sample types JSON by Spark's inference rules: under Spark's JSON
    conventions, with a built-in reader."""
    return scan_options.get("json_conventions") == "spark" and not _custom_reader(scan_options)


def _json_rules_on_json_only(files: list[str], scan_options: dict[str, Any], asked: bool) -> None:
    """Refuse Spark's JSON inference options (`asked`) where a file is CSV, whose
    inference has rules of its own (`infer_schema`), rather than apply them there."""
    csv = _csv_files(files, scan_options) if asked else []
    if csv:
        raise ValueError(
            "primitives_as_string, drop_field_if_all_null and prefers_decimal are Spark's JSON "
            f"inference options; {csv[0]} is CSV (its types: infer_schema=True)"
        )


def _line_sep_rules(files: list[str], scan_options: dict[str, Any]) -> None:
    """Spark's `lineSep` (`line_sep`) with `multiline`: dropped for JSON, whose documents
    Spark reads whatever it says; refused where a file is CSV, as Spark's multi-line CSV
    parser lets quotes protect the separator, which this library does not read."""
    if scan_options.get("line_sep") is None or not scan_options.get("multiline"):
        return
    csv = _csv_files(files, scan_options)
    if csv:
        raise ValueError(
            f"line_sep (Spark's lineSep) with multiline: {csv[0]} is CSV, whose records "
            "Spark's multiLine parser reads with quoted separators, which this library "
            "does not take (read it without multiline, or without line_sep)"
        )
    del scan_options["line_sep"]


def _check_sample_rows(sample_rows: int | None, scan_options: dict[str, Any]) -> None:
    """Refuse a sample that cannot give a schema: a negative count, or no row when nothing
    else names a data column (no `schema=`, every column projected), which would leave
    every data column out in the executors."""
    if sample_rows is None:
        return
    if sample_rows < 0:
        raise ValueError(f"sample_rows must be None (every row) or >= 0, got {sample_rows}")
    if sample_rows == 0 and not scan_options.get("schema") and scan_options.get("columns") is None:
        raise ValueError(
            "sample_rows=0 samples no row, and no schema= or columns= names a data column: "
            "the executors would read every data column as one the schema lacks and leave it "
            "out; give schema=, or sample at least a row (sample_rows=None: every row)"
        )


class ScanPlan:
    """What the executors need to scan files with the schema fixed on the driver: the schema,
    the scan options, the splits (`where` leaves out the files it rules out) and the tasks
    they are packed into."""

    def __init__(
        self,
        paths: Any,
        sample_rows: int | None = 10_000,
        split_bytes: int = SPLIT_BYTES,
        where: str | None = None,
        parallelism: int = 1,
        infer_schema: bool = False,
        prefer_date: bool = True,
        time_zone: str = "UTC",
        primitives_as_string: bool = False,
        drop_field_if_all_null: bool = False,
        prefers_decimal: bool = False,
        path_glob_filter: str | None = None,
        modified_before: str | dt.datetime | None = None,
        modified_after: str | dt.datetime | None = None,
        recursive_file_lookup: bool = False,
        enforce_schema: bool | None = True,
        **scan_options: Any,
    ) -> None:
        from batchloader.scan import expand_paths, hive_layout, partition_depth_of, scan_root

        _check_sample_rows(sample_rows, scan_options)
        #: Spark's JSON inference options: the sample's non-struct, non-list values are
        #: strings (`primitivesAsString`); the fields only nulls and empty lists typed are
        #: left out (`dropFieldIfAllNull`)
        self.primitives_as_string = primitives_as_string
        self.drop_field_if_all_null = drop_field_if_all_null
        #: Spark's `prefersDecimal`: the sample's fractions are decimals of their digits
        self.prefers_decimal = prefers_decimal
        options = (primitives_as_string, drop_field_if_all_null, prefers_decimal)
        if any(options) and not _sparks_json_rules(scan_options):
            raise ValueError(
                "primitives_as_string, drop_field_if_all_null and prefers_decimal are Spark's "
                "JSON inference rules: they need json_conventions='spark' and a built-in reader"
            )
        #: CSV columns the user did not type get the types Spark's `inferSchema` gives the
        #: sample's fields (`_infer_csv_types`), their timestamps in `time_zone`
        self.infer_schema = infer_schema
        if scan_options.get("schema") is not None:
            # Spark's `enforceSchema` (on by default): the schema the user gave takes a CSV
            # file's fields by position, its header read past (False: once it is found to
            # name them so); None: by the header's names. A schema the sample found is the
            # header's own names: by name.
            scan_options["enforce_schema"] = enforce_schema
        #: CSV inference types a column of dates (by `date_format`, else `yyyy-MM-dd`)
        #: date, where otherwise they are timestamps (Spark's `preferDate`, on by default)
        self.prefer_date = prefer_date
        self.time_zone = time_zone
        #: the types CSV inference gave, by lower-case column name
        self.csv_inferred: dict[str, pa.DataType] = {}
        # planned by what the files are now: one listed by an earlier plan may have grown
        chosen = FileFilter.of(path_glob_filter, modified_before, modified_after, time_zone)
        if recursive_file_lookup and scan_options.get("partition_style") == "hive":
            raise ValueError(
                "recursive_file_lookup (Spark's recursiveFileLookup) reads the files below the "
                "paths without finding partitions in their folders: it cannot go with "
                "partition_style='hive'"
            )
        self.files = chosen.apply(expand_paths(paths, afresh=True))
        _json_rules_on_json_only(self.files, scan_options, any(options))
        _line_sep_rules(self.files, scan_options)
        #: the remote files listed, with their sizes: an executor's scan takes them as
        #: files without asking the store (a request per file) or matching their names
        self.listed = {f: locations.size(f) for f in self.files if locations.is_remote(f)}
        root = scan_root(scan_options.pop("root", None), paths, self.files)
        if scan_options.get("partition_style") == "hive":
            # typed once from every file's folders: a task's scan of a few types them alike
            given = scan_options.get("defined_schema") or scan_options.get("schema")
            fields = scan_options.get("partition_fields")
            hive = hive_layout("hive", fields, self.files, root, given, time_zone)
            assert hive is not None, "a hive-style scan has a layout"
            scan_options["partition_fields"] = hive.schema()
        elif scan_options.get("partition_depth") is None:
            scan_options["partition_depth"] = partition_depth_of(self.files, root)
        condition = None if where is None else pruning.parse(where)
        # each file's file column values by name, computed once for `where`
        named: dict[str, dict[str, Any]] = {}
        if condition is not None:
            fields = scan_options.get("partition_fields")
            implicit = ImplicitColumns.renamed(
                scan_options.get("implicit_names"),
                scan_options.get("partition_prefix", "dir"),
                None if fields is None else HiveLayout.typed(fields),
            )
            depth = len(fields) if fields is not None else scan_options["partition_depth"]
            named = {f: implicit.named_values(f, root, depth) for f in self.files}
        probe = self._sample(root, sample_rows, condition, named, scan_options)
        self.splits = plan_splits(self.files, split_bytes, self._splittable(probe))
        #: whether `where` (if any) is true or not for each file as a whole, its data aside:
        #: then keeping the files it keeps filters the rows exactly
        self.where_decides_files = True
        if condition is not None:
            self._prune(condition, named)
        #: the splits as Spark's tasks will read them, small files packed together
        self.tasks = plan_tasks(self.splits, split_bytes, parallelism)
        #: a Spark accumulator the executors add the lines `on_error="skip"` skipped to
        self.skipped_lines: Any = None
        #: a Spark accumulator (`ignored_columns_accumulator`) the executors add the columns
        #: they left out to (the sample had not met them), each with its files
        self.ignored_columns: Any = None
        #: a Spark accumulator (`text_kept_accumulator`) the executors add the values they
        #: kept as JSON text to, by column (the sample guessed the column's type)
        self.text_kept: Any = None

    def _sample(
        self,
        root: str | None,
        sample_rows: int | None,
        condition: Any,
        named: dict[str, dict[str, Any]],
        scan_options: dict[str, Any],
    ) -> Any:
        """Scan up to `sample_rows` rows on the driver and fix the schema, the scan options
        and Spark's types from what it found; the sample Scan, spent."""

        sampled = self.files
        if condition is not None:
            # nor does the sample read the files `where` rules out (their file column names
            # taken for file columns: a data column of the same name shows in the sample)
            sampled = [f for f in self.files if pruning.keeps(condition, named[f])]
            sampled = sampled or self.files  # none kept: the schema still comes from the files
        # the sample may grow the schema (a column of a later file): the union is the schema
        sampling = dict(scan_options, allow_schema_change=True)
        if _sparks_json_rules(scan_options):
            # Spark's JSON inference takes `""` for a null: it types no field (`1` and `""`
            # make a bigint, in which the executors then find `""` bad, as Spark's reader does)
            sampling["empty_strings_as_nulls"] = True
        if sample_rows is not None and len(sampled) > 1:
            # rows from files spread over the list (a column later files brought is met),
            # as many from each as the sample's size allows
            sampling["file_limit"] = max(-(-sample_rows // len(sampled)), SAMPLE_FILE_ROWS)
            sampled = spread(sampled)
        if self.infer_schema:
            # (declared to the sample, not as the user's: a decimal inferred from whole
            # numbers takes whole numbers only, see `Conventions::decimal_of_text`)
            sampling = self._infer_csv_types(sampled, root, sample_rows, sampling)
        learnt, probe = self._sample_by_sparks_rules(
            sampled, root, sample_rows, sampling, self.prefers_decimal
        )
        if probe is None:
            probe = _spent_sample(sampled, root, sample_rows, sampling)
        reader_schema = pa.schema(
            [c.field for c in probe.tracker.output_columns() if c.implicit is None and c.field]
        )
        self.schema = probe.schema
        guessed = probe.tracker.guessed_paths()
        if _sparks_json_rules(scan_options):
            typed = {f.name.lower() for f in scan_options.get("schema") or []}
            reader_schema, learnt = self._as_spark_infers(reader_schema, typed, learnt, guessed)
            # (Spark's CSV reader keeps the header's order)
            ordered = not _csv_files(self.files, scan_options)
            if ordered:
                reader_schema = _in_sparks_order(reader_schema, typed, probe.projection)
            if self.drop_field_if_all_null:
                guessed = []  # every guessed type is of a field left out
            kept = {f.name.lower(): f for f in reader_schema}
            readers = {c.name.lower() for c in probe.tracker.output_columns() if not c.implicit}
            if ordered and probe.projection.kind == "all":
                # the reader columns first, in their new order, as the executors' scans give
                # them (a wildcard's file columns come after them)
                others = [f for f in probe.schema if f.name.lower() not in readers]
                fields = [*reader_schema, *others]
            else:
                # the projection's order, file columns among the others
                fields = [
                    kept.get(f.name.lower(), f)
                    for f in probe.schema
                    if f.name.lower() in kept or f.name.lower() not in readers
                ]
            self.schema = pa.schema(fields, metadata=probe.schema.metadata)
        #: the implicit columns of the output, by lower-cased name: what they hold
        self.implicit_columns = {
            c.name.lower(): c.implicit
            for c in probe.tracker.output_columns()
            if c.implicit is not None
        }
        # types the sample inferred (not given in schema=): a value past the sample may not
        # fit them, and the executor's error then says why the column has its type
        self.inferred = probe.tracker.inferred_types() if sample_rows is not None else {}
        if sample_rows is not None:
            self.inferred.update(self.csv_inferred)
        self.sample_rows = sample_rows
        self.target = spark_arrow_schema(self.schema)
        self.options = dict(
            scan_options,
            root=root,
            schema=reader_schema,
            # only the user's own types read any value into a string column as its text (and
            # those Spark's rules gave), and the types the sample guessed (no value showed
            # them), as a local scan's
            declared_columns=[f.name for f in scan_options.get("schema") or []] + learnt,
            text_guesses=guessed,
            strict_schema=True,
        )
        if probe.positional_names is not None:
            # a CSV file's fields by position: the whole schema's, where the executors'
            # `schema` is the projection's
            self.options["positional_names"] = probe.positional_names
        self.options.pop("limit", None)
        return probe

    def _as_spark_infers(
        self, reader_schema: pa.Schema, typed: set[str], learnt: list[str], guessed: list[str]
    ) -> tuple[pa.Schema, list[str]]:
        """The sample's reader columns as Spark's JSON inference ends (`spark_canonical_field`:
        no empty structs; strings for `primitives_as_string`; no all-null fields for
        `drop_field_if_all_null`), the user's own types as they are, and the top-level
        columns declared by what was learnt (with `primitives_as_string`, every column the
        data typed: a declared string reads any value as its JSON text); `typed`: the
        lower-case names of the columns the user typed."""
        all_null = frozenset(guessed) if self.drop_field_if_all_null else frozenset()
        fields = []
        for f in reader_schema:
            if f.name.lower() in typed:
                fields.append(f)
                continue
            kept = spark_canonical_field(f, None, all_null, self.primitives_as_string)
            if kept is not None:
                fields.append(kept)
        declared = [f.name for f in fields if f.name.lower() not in typed]
        return pa.schema(fields), declared if self.primitives_as_string else learnt

    def _infer_csv_types(
        self,
        sampled: list[str],
        root: str | None,
        sample_rows: int | None,
        sampling: dict[str, Any],
    ) -> dict[str, Any]:
        """`sampling` with the CSV columns the user did not type declared the types Spark's
        `inferSchema` gives their fields in the sample (`_core.spark_csv_type`: an int, a
        long, a whole-number decimal, a double, a date (`prefer_date`), a timestamp in
        `time_zone`, a boolean, else a string), as Spark infers them over its
        `samplingRatio`. A field past the sample that its column's type does not take is
        bad input (`on_error`), as with a schema.
        Files other than CSV are left to their own inference (Spark's JSON reader ignores
        `inferSchema`)."""
        from batchloader import _core
        from batchloader.scan import CSV_COLUMNS, Scan

        if _custom_reader(sampling) or len(_csv_files(sampled, sampling)) < len(sampled):
            return sampling  # JSON: Spark infers its types whatever inferSchema says
        given = sampling.get("schema") or pa.schema([])
        typed = {n.lower() for n in given.names}
        options = dict(sampling, schema=given if len(given) else None)
        scan = Scan(_exactly(sampled), root=root, limit=sample_rows, **options)
        columns: dict[str, list[Any]] = {}
        # without a header or a schema, Spark names the fields `_c0`, `_c1`... by position,
        # as many as the first record has
        headerless = not sampling.get("header") and not len(given)
        for batch in scan:
            if headerless and CSV_COLUMNS in batch.schema.names:
                _add_positional_texts(columns, batch.column(CSV_COLUMNS).to_pylist())
                continue
            for field in batch.schema:
                if field.name.lower() not in typed and pa.types.is_string(field.type):
                    texts = batch.column(field.name).to_pylist()
                    columns.setdefault(field.name, []).extend(texts)
        data = {c.name for c in scan.tracker.output_columns() if c.implicit is None}
        columns = {name: texts for name, texts in columns.items() if name in data or headerless}
        fields = list(given)
        for name, texts in columns.items():
            ddl = _core.spark_csv_type(
                texts,
                sampling.get("timestamp_format"),
                sampling.get("nan_value"),
                sampling.get("positive_inf"),
                sampling.get("negative_inf"),
                sampling.get("date_format"),
                self.prefer_date,
            )
            fields.append(pa.field(name, _inferred_arrow_type(ddl, self.time_zone)))
            self.csv_inferred[name.lower()] = fields[-1].type
        return dict(sampling, schema=pa.schema(fields))

    @staticmethod
    def _sample_by_sparks_rules(
        sampled: list[str],
        root: str | None,
        sample_rows: int | None,
        sampling: dict[str, Any],
        prefers_decimal: bool = False,
    ) -> tuple[list[str], Any]:
        """Under Spark's JSON conventions, the types the sample learns by Spark's inference
        rules (`spark_inference`: a field of mixed types is a string, whole numbers past
        int64 a decimal, and with `prefers_decimal` fractions too, told from the texts of
        the sample's floats, read once more as strings), each learnt by sampling again: the
        top-level columns they declare (`Inference.declared_names`), and the last sample
        Scan, spent
        (None: Arrow's conventions or a reader of the user's own, which writes its own
        types). In the user's `on_error`: "error" raises at the first bad line, a conflict
        learnt from; "skip" and "permissive" go past bad lines, and the conflicts among the
        first `BAD_LINES_KEPT` of them are learnt from (a malformed line before a conflict
        does not hide it). Columns the user typed keep their types (a value they do not take
        stays bad input)."""
        if not _sparks_json_rules(sampling):
            return [], None  # nothing learnt
        given = sampling.get("schema") or pa.schema([])
        learnt = Inference(given.names, prefers_decimal)
        # the floats whose texts may make decimals: past int64 (whole numbers), or any
        least = 0.0 if prefers_decimal else 2.0**63
        while True:
            declared = pa.schema([*given, *learnt.schema()])
            options = dict(
                sampling,
                schema=declared if len(declared) else None,
                declared_columns=given.names + learnt.declared_names(),
            )
            big: set[str] = set()
            try:
                probe = _spent_sample(
                    sampled,
                    root,
                    sample_rows,
                    options,
                    functools.partial(_add_float_paths, big, least),
                )
            except BatchLoaderError as e:
                if learnt.learn_conflict(type_conflict_path(e)):
                    continue
                raise
            bad = (type_conflict_path(line) for line in probe.bad_lines)
            if any(learnt.learn_conflict(path) for path in bad):
                continue
            fresh = sorted(p for p in big if learnt.may_learn_decimal(p))
            if not fresh:
                return learnt.declared_names(), probe
            # the numbers' texts tell whole numbers (Spark's decimals) from fractions
            texts = _sampled_texts(sampled, root, sample_rows, options, declared, fresh)
            if not learnt.learn_decimals(texts):
                return learnt.declared_names(), probe

    @staticmethod
    def _splittable(probe: Any) -> Callable[[str], bool]:
        """Which files may be split into byte ranges: by a built-in reader, uncompressed, not
        JSON documents (`multiline`; a CSV split refuses quoted line breaks), their lines
        ended by line breaks or a `line_sep` a range can find (`_core.line_sep_splits`)."""

        line_sep = probe.line_sep

        def splittable(path: str) -> bool:
            return (
                probe.reader is None
                and not probe.multiline
                and not path.lower().endswith(COMPRESSED_SUFFIXES)
                and (line_sep is None or line_sep_splits(line_sep))
            )

        return splittable

    def _prune(self, condition: Any, named: dict[str, dict[str, Any]]) -> None:
        """Leave out the splits of the files `condition` is never true for, judged by the
        file columns the output has (a data column may have taken one's name)."""
        outcomes = {
            f: pruning.outcomes(
                condition, {n: v for n, v in named[f].items() if n in self.implicit_columns}
            )
            for f in self.files
        }
        self.where_decides_files = all(len(o) == 1 for o in outcomes.values())
        self.splits = [split for split in self.splits if True in outcomes[split[0]]]

    def scan(
        self, path: str | list[str], start: int | None = None, end: int | None = None
    ) -> Iterator[pa.RecordBatch]:
        """The batches of one split (or of whole files, one after the other), in the Arrow
        types Spark was told."""
        from batchloader.scan import Scan, present_files

        byte_range = None if start is None or end is None else (start, end)
        listed = [path] if isinstance(path, str) else path
        if self.options.get("ignore_missing_files"):
            # gone since the driver listed them: passed over, as the scan passes over one
            # gone since its own listing (Spark's ignoreMissingFiles)
            listed = present_files(listed)
            if not listed:
                return
        paths = _exactly(listed)
        locations.note_listed({p: self.listed[p] for p in paths if p in self.listed})
        scan = Scan(paths, byte_range=byte_range, **self.options)
        with explaining_type_conflicts(self._why_sampled):
            for out in scan:
                yield to_spark_batch(out, self.target)
        if scan.skipped_lines and self.skipped_lines is not None:
            self.skipped_lines.add(scan.skipped_lines)
        if scan.ignored_columns and self.ignored_columns is not None:
            self.ignored_columns.add(scan.ignored_columns)
        if scan.text_kept and self.text_kept is not None:
            self.text_kept.add(scan.text_kept)

    def scan_task(self, task: list[Split]) -> Iterator[pa.RecordBatch]:
        """The batches of one task's splits: its whole files in one scan (small files share
        batches, and the schema work is done once, not per file), a byte range alone."""
        files = [path for path, start, _ in task if start is None]
        if files and len(files) == len(task):
            yield from self.scan(files)
            return
        for split in task:
            yield from self.scan(*split)

    def _why_sampled(self, path: str, message: str) -> str | None:
        """Why column `path` has the type a value did not fit: the driver's sample gave it."""
        top = top_name(path)
        found = self.inferred.get(top.lower())
        if found is None:
            return None
        return (
            f"'{top}' is {found} as the driver inferred it from the first {self.sample_rows:,} "
            "rows (sample_rows): pass sample_rows=None to infer it from every row, or give its "
            "type in schema="
        )

    def encode(self) -> str:
        """The plan as a data source option (`read` hands its plan to the data source)."""
        return base64.b64encode(pickle.dumps(self)).decode("ascii")

    @staticmethod
    def decode(text: str) -> ScanPlan:
        """The plan `encode` wrote."""
        plan = pickle.loads(base64.b64decode(text))
        if not isinstance(plan, ScanPlan):
            raise TypeError(f"the {PLAN_OPTION} option does not hold a ScanPlan")
        return plan


def arrow_schema_of(spark: Any, schema: Any, time_zone: str | None = None) -> pa.Schema:
    """`schema` as an Arrow schema: a `pyarrow.Schema` as it is, a Spark `StructType` or a DDL
    string (`"id long, tags array<string>"`, parsed by `spark`) by Spark's own mapping, its
    `timestamp`s in `time_zone` (by default the session's, `session_time_zone`): a text
    without a UTC offset is a local time there, as Spark reads it."""
    if isinstance(schema, pa.Schema):
        return schema
    from pyspark.sql.types import StructType

    if isinstance(schema, str):
        schema = spark.createDataFrame([], schema).schema
    if not isinstance(schema, StructType):
        raise TypeError(
            f"schema= takes a pyarrow.Schema, a Spark StructType or a DDL string, not"
            f" {type(schema).__name__}"
        )
    return arrow_schema_in_zone(schema, time_zone or session_time_zone(spark))


def _refuse_variants(t: Any, path: str = "") -> None:
    """Spark 4's `variant` (anywhere in Spark type `t`) is refused by name: Arrow sees a
    struct of binaries, which no JSON value would fit."""
    from pyspark.sql.types import ArrayType, MapType, StructType

    if type(t).__name__ == "VariantType":
        raise ValueError(
            f"schema= gives column '{path}' Spark's variant type, which batchloader does not "
            "read: type it as a string to keep its JSON text, or as a struct, map or array"
        )
    if isinstance(t, StructType):
        for f in t.fields:
            _refuse_variants(f.dataType, member_path(path or None, f.name))
    elif isinstance(t, ArrayType):
        _refuse_variants(t.elementType, f"{path}[]")
    elif isinstance(t, MapType):
        _refuse_variants(t.keyType, f"{path}.key")
        _refuse_variants(t.valueType, f"{path}.value")


def arrow_schema_in_zone(schema: Any, time_zone: str) -> pa.Schema:
    """Spark `StructType` `schema` as an Arrow schema, its `timestamp`s (Spark's
    TimestampType) in `time_zone` (PySpark 4 needs one; 3.5 says UTC)."""
    from pyspark.sql.pandas.types import to_arrow_schema

    _refuse_variants(schema)
    if "timezone" in inspect.signature(to_arrow_schema).parameters:
        return to_arrow_schema(schema, timezone=time_zone)
    arrow = to_arrow_schema(schema)  # PySpark 3.5: in UTC, relabelled
    return pa.schema(
        [f.with_type(_in_zone(f.type, time_zone)) for f in arrow], metadata=arrow.metadata
    )


def _in_zone(t: pa.DataType, time_zone: str) -> pa.DataType:
    """`t` with each timestamp that has a time zone in `time_zone` instead."""
    if pa.types.is_timestamp(t):
        return pa.timestamp(t.unit, tz=time_zone) if t.tz is not None else t
    if pa.types.is_list(t):
        return pa.list_(t.value_field.with_type(_in_zone(t.value_type, time_zone)))
    if pa.types.is_map(t):
        key, item = t.key_field, t.item_field
        return pa.map_(
            key.with_type(_in_zone(key.type, time_zone)),
            item.with_type(_in_zone(item.type, time_zone)),
        )
    if pa.types.is_struct(t):
        return pa.struct([f.with_type(_in_zone(f.type, time_zone)) for f in t])
    return t


def corrupt_record_column(spark: Any) -> str:
    """The column the session's readers keep malformed records in
    (`spark.sql.columnNameOfCorruptRecord`, `_corrupt_record` by default)."""
    return str(spark.conf.get("spark.sql.columnNameOfCorruptRecord", "_corrupt_record"))


def session_file_options(spark: Any) -> dict[str, bool]:
    """The session's defaults of Spark's file options `ignoreMissingFiles` and
    `ignoreCorruptFiles` (`spark.sql.files.ignoreMissingFiles`...), as `Scan` arguments."""
    return {
        option: str(spark.conf.get(f"spark.sql.files.{conf}", "false")).strip().lower() == "true"
        for option, conf in [
            ("ignore_missing_files", "ignoreMissingFiles"),
            ("ignore_corrupt_files", "ignoreCorruptFiles"),
        ]
    }


def session_time_zone(spark: Any) -> str:
    """The session's time zone (`spark.sql.session.timeZone`) as Arrow names zones
    (`arrow_time_zone`)."""
    return arrow_time_zone(spark.conf.get("spark.sql.session.timeZone"))


_JAVA_OFFSET = re.compile(r"(?:UTC|GMT|UT)?([+-])(\d{1,2})(?::?(\d{2}))?")


def arrow_time_zone(text: str) -> str:
    """A time zone as Spark (Java) spells it, as Arrow spells it: an IANA name as it is,
    UTC's names (`Z`, `GMT`, `UT`) as `UTC`, an offset with or without a prefix (`+8`,
    `UTC+08:00`, `GMT-0530`) as `+08:00`, Java's short ids (`PST`) as what they stand for."""
    name = text.strip()
    if name.upper() in ("Z", "UTC", "GMT", "UT"):
        return "UTC"
    if name in JAVA_SHORT_IDS:
        return JAVA_SHORT_IDS[name]
    offset = _JAVA_OFFSET.fullmatch(name)
    if offset:
        sign, hours, minutes = offset.groups()
        return f"{sign}{int(hours):02d}:{minutes or '00'}"
    return name


def read(
    spark: Any,
    paths: Any,
    sample_rows: int | None = 10_000,
    split_bytes: int = SPLIT_BYTES,
    skipped_lines: Any = None,
    where: str | None = None,
    ignored_columns: Any = None,
    text_kept: Any = None,
    **scan_options: Any,
) -> Any:
    """Scan `paths` in Spark's executors: a task per `split_bytes` byte range of a large
    uncompressed NDJSON/CSV file (split at line boundaries: every line is read once; a CSV
    record with a quoted line break fails its split with an `InputError`: read such files
    with `split_bytes=0`, which turns splitting off), and small files packed into tasks as
    Spark packs them (see `plan_tasks`). On Spark 4 through the `batchloader` Python data
    source, on Spark 3.5 through `mapInArrow` over a DataFrame of the tasks.

    The schema is discovered on the driver by scanning up to `sample_rows` rows (None: every
    row, a full pass as Spark's own JSON inference makes; the union of the columns they have,
    across files; or taken from `schema=`), then fixed: every executor
    scans with it, so every batch Spark receives has exactly the schema Spark was told. Scan
    options are `Scan`'s (`columns`, `format`, `on_error`, limits...).

    `path_glob_filter`, `modified_before`, `modified_after` (Spark's `pathGlobFilter`...,
    see `batchloader.file_filters`) leave out the files whose names do not match, or that
    were modified at or after, at or before, a time in the session's zone;
    `partition_style="hive"` makes `key=value` folders typed columns as Spark's partition
    discovery does (`batchloader.hive_partitions`). `ignore_missing_files` and
    `ignore_corrupt_files` (see `Scan`) default to the session's
    `spark.sql.files.ignoreMissingFiles` and `spark.sql.files.ignoreCorruptFiles`.

    `where`: a SQL condition (Spark's syntax) the DataFrame is filtered by; the files it rules
    out by their file columns alone (`dir0 = '2024'`, `filename LIKE 'a%'`: false or null
    whatever the data) are not read at all, as Drill prunes partitions (see
    `batchloader.pruning`).

    `skipped_lines`: a Spark accumulator (`spark.sparkContext.accumulator(0)`) to which each
    task adds the lines `on_error="skip"` skipped in its split; read its `value` after an
    action. As for any accumulator updated in a transformation, every computation of the
    DataFrame adds again (two actions count twice; `cache()` it, or use a new accumulator).

    `ignored_columns`: an accumulator from `ignored_columns_accumulator(spark)`, to which
    each task adds the columns (and struct members, `m.x`) it met that the sampled schema
    lacks, whose values the DataFrame cannot have, each with the number of splits that had
    it (the executors' logs name the files); counted as `skipped_lines` is.

    `text_kept`: an accumulator from `text_kept_accumulator(spark)`, to which each task adds
    the values it kept as their JSON text, by column: where the sample saw only nulls (or
    only empty lists) it guessed utf8, and a later value of another type (`5`, `{"a": 1}`)
    is kept as its text, not refused (the executors' logs name the files); counted as
    `skipped_lines` is.

    `schema=` (types for the columns it names, as in `Scan`) may also be a Spark
    `StructType` or a DDL string (`"id long, address struct<city: string>"`). A CSV file with
    a header reads as Spark reads it under a schema (`enforce_schema=True`, Spark's
    `enforceSchema` default): the schema's columns take its fields by position, the header
    read past (`enforce_schema=False`: once the header is found to name them so, in any
    case; None: by the header's names, `Scan`'s rule). JSON is read
    with `json_conventions="spark"` unless told otherwise: a whole number into a timestamp
    is seconds since the epoch, a binary value base64, as Spark's JSON reader reads them;
    CSV with Spark's escape, a backslash, and `csv_conventions="spark"`; both take the date
    and timestamp texts Spark takes besides ISO-8601 (`"2024-1-2 3:04"`, a date from a
    timestamp's text) and round a decimal with more fractional digits than its column's
    scale half up, as Spark does (`SPARK_READ_DEFAULTS`). `infer_schema=True` gives the CSV
    columns `schema=` does not type the types Spark's `inferSchema` infers from the sample
    (`ScanPlan._infer_csv_types`), timestamps in the session's zone. The JSON columns the
    sample types are typed by Spark's inference rules (`ScanPlan`): a struct with no members
    is no column; `drop_field_if_all_null=True`, `primitives_as_string=True` and
    `prefers_decimal=True` are Spark's `dropFieldIfAllNull`, `primitivesAsString` and
    `prefersDecimal`. JSON lines and CSV records end at `\\n`, `\\r` or `\\r\\n`, as
    Spark's readers end them; `line_sep` (Spark's `lineSep`) ends them at exactly its text
    instead (a file whose separator begins as it ends, as `||`, is read by one task).
    """
    if scan_options.get("schema") is not None:
        scan_options["schema"] = arrow_schema_of(spark, scan_options["schema"])
    scan_options = {
        **SPARK_READ_DEFAULTS,
        "corrupt_record_column": corrupt_record_column(spark),
        "time_zone": session_time_zone(spark),
        **session_file_options(spark),
        **scan_options,
    }
    parallelism = spark.sparkContext.defaultParallelism
    plan = ScanPlan(paths, sample_rows, split_bytes, where, parallelism, **scan_options)
    plan.skipped_lines = skipped_lines
    plan.ignored_columns = ignored_columns
    plan.text_kept = text_kept
    df = _dataframe(spark, plan)
    return df if where is None else df.where(where)


def _in_sparks_order(schema: pa.Schema, typed: set[str], projection: Projection) -> pa.Schema:
    """A JSON sample's reader columns in the order Spark's JSON inference gives them, where
    the projection does not order them: the columns the user typed (`typed`, lower-case
    names) first, as given; the inferred ones by name (`java_name_order`, for a wildcard
    projection), each struct's members by name at every depth (for a column projected
    whole)."""
    ordered = []
    for f in schema:
        column = projection.get(f.name)
        whole = projection.kind == "all" or (column is not None and column.projects_all_members)
        if f.name.lower() not in typed and whole:
            f = f.with_type(members_in_sparks_order(f.type))
        ordered.append(f)
    if projection.kind == "all":
        inferred = [f for f in ordered if f.name.lower() not in typed]
        inferred.sort(key=lambda f: java_name_order(f.name))
        ordered = [f for f in ordered if f.name.lower() in typed] + inferred
    return pa.schema(ordered, metadata=schema.metadata)


def _inferred_arrow_type(ddl: str, time_zone: str) -> pa.DataType:
    """The Arrow type of a Spark type CSV inference gives (`_core.spark_csv_type`), a
    timestamp in `time_zone` as Spark's `timestamp` is."""
    if ddl.startswith("decimal("):
        return pa.decimal128(int(ddl[len("decimal(") : ddl.index(",")]), 0)
    return {
        "int": pa.int32(),
        "bigint": pa.int64(),
        "double": pa.float64(),
        "boolean": pa.bool_(),
        "date": pa.date32(),
        "timestamp": pa.timestamp("us", tz=time_zone),
        "string": pa.utf8(),
    }[ddl]


def _dataframe(spark: Any, plan: ScanPlan) -> Any:
    """The DataFrame of the plan's splits: through the data source, else mapInArrow."""
    if not _driver_runs_python_workers(spark):
        return _read_with_map_in_arrow(spark, plan)
    try:
        register(spark)
    except ImportError:  # Spark 3.5: no Python data sources
        return _read_with_map_in_arrow(spark, plan)
    return spark.read.format("batchloader").option(PLAN_OPTION, plan.encode()).load()


def _driver_runs_python_workers(spark: Any) -> bool:
    """Whether the workers' interpreter runs on the driver too. A Python data source plans in
    a worker the *driver* starts; with `PYSPARK_PYTHON=./environment/bin/python` (an archive
    only the executors unpack) it cannot, and `read` takes the mapInArrow path instead."""
    import shutil

    exe = spark.conf.get("spark.pyspark.python", None) or os.environ.get("PYSPARK_PYTHON")
    return exe is None or shutil.which(exe) is not None


def _read_with_map_in_arrow(spark: Any, plan: ScanPlan) -> Any:
    # Spark 3.5 counts no row in a batch without columns (`columns=[]`, COUNT(*)): such
    # batches go out with a column of nulls, which the DataFrame then leaves out
    counting = len(plan.schema) == 0

    def scan_splits(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            for task in batch.column("splits").to_pylist():
                for out in plan.scan_task([(s["path"], s["start"], s["end"]) for s in task]):
                    if counting:
                        out = pa.record_batch([pa.nulls(out.num_rows, pa.bool_())], [_ROWS])
                    yield out

    # one partition (Spark task) per task of the plan
    rdd = spark.sparkContext.parallelize([(t,) for t in plan.tasks], max(len(plan.tasks), 1))
    tasks = spark.createDataFrame(rdd, "splits array<struct<path: string, start: long, end: long>>")
    if counting:
        return tasks.mapInArrow(scan_splits, f"{_ROWS} boolean").select()
    return tasks.mapInArrow(scan_splits, spark_struct_type(plan.schema))


#: the column of nulls that carries the row count of batches without columns (mapInArrow)
_ROWS = "_batchloader_rows"


#: the scan options `read` and the data source take unless told otherwise, as Spark's own
#: readers read: a schema's dates, timestamps and binary as Spark's JSON and CSV readers
#: read them, and a CSV quote escaped as Spark's CSV writer escapes it, `\"` (a doubled
#: one reads too)
SPARK_READ_DEFAULTS: dict[str, Any] = {
    "json_conventions": "spark",
    "csv_conventions": "spark",
    "escape": "\\",
}

#: options of the `batchloader` data source that are numbers or flags
_INT_OPTIONS = (
    "row_limit",
    "vector_byte_limit",
    "batch_byte_limit",
    "sample_rows",
    "split_bytes",
    "parallelism",
)
_BOOL_OPTIONS = (
    "header",
    "recursive_file_lookup",
    "ignore_missing_files",
    "ignore_corrupt_files",
    "allow_schema_change",
    "multiline",
    "primitives_as_string",
    "drop_field_if_all_null",
    "prefers_decimal",
    "prefer_date",
    "ignore_leading_whitespace",
    "ignore_trailing_whitespace",
    "enforce_schema",
)
_TEXT_OPTIONS = (
    "format",
    "on_error",
    "delimiter",
    "quote",
    "escape",
    "root",
    "where",
    "null_values",
    "json_conventions",
    "csv_conventions",
    "date_format",
    "timestamp_format",
    "timestamp_ntz_format",
    "corrupt_record_column",
    "comment",
    "partition_style",
    "path_glob_filter",
    "modified_before",
    "modified_after",
    "nan_value",
    "positive_inf",
    "negative_inf",
    "empty_value",
    "line_sep",
)

#: Spark's names of options the data source knows by another (lower-cased, as they come)
_SPARK_NAMES = {
    "sep": "delimiter",
    "nullvalue": "null_values",
    "dateformat": "date_format",
    "timestampformat": "timestamp_format",
    "timestampntzformat": "timestamp_ntz_format",
    "columnnameofcorruptrecord": "corrupt_record_column",
    "primitivesasstring": "primitives_as_string",
    "dropfieldifallnull": "drop_field_if_all_null",
    "prefersdecimal": "prefers_decimal",
    "preferdate": "prefer_date",
    "basepath": "root",
    "pathglobfilter": "path_glob_filter",
    "modifiedbefore": "modified_before",
    "modifiedafter": "modified_after",
    "recursivefilelookup": "recursive_file_lookup",
    "ignoremissingfiles": "ignore_missing_files",
    "ignorecorruptfiles": "ignore_corrupt_files",
    "nanvalue": "nan_value",
    "positiveinf": "positive_inf",
    "negativeinf": "negative_inf",
    "emptyvalue": "empty_value",
    "ignoreleadingwhitespace": "ignore_leading_whitespace",
    "ignoretrailingwhitespace": "ignore_trailing_whitespace",
    "enforceschema": "enforce_schema",
    "linesep": "line_sep",
}


#: Spark's JSON reader options it does not take, with what they would let through
_UNREAD_JSON_SYNTAX = {
    "allowunquotedfieldnames": "unquoted field names",
    "allowbackslashescapinganycharacter": "a backslash before any character",
    "allowunquotedcontrolchars": "control characters in strings",
}

#: Spark's `mode` option of its file readers, as `on_error`
_SPARK_MODES = {"permissive": "permissive", "dropmalformed": "skip", "failfast": "error"}


def scan_options_from(options: dict[str, str]) -> dict[str, Any]:
    """Spark's string options as `ScanPlan` arguments: `path` (comma-separated), `paths` (the
    JSON array Spark writes for `load([...])`), `columns` (comma-separated), `nullValue` (one
    text, `null_values`), numbers, flags; Spark's spellings `mode` (`PERMISSIVE`,
    `DROPMALFORMED`, `FAILFAST`: `on_error`), `sep` (`delimiter`), `dateFormat`,
    `timestampFormat` and `timestampNTZFormat` (`date_format`...), `inferSchema`
    (`infer_schema`), `primitivesAsString`, `dropFieldIfAllNull` and `prefersDecimal`
    (flags), and
    `encoding` (or `charset`) when it names UTF-8, ISO-8859-1 or US-ASCII, the charsets the
    readers read (another is an error).
    An option the data source does not know is an error, not silently ignored."""
    out: dict[str, Any] = {}
    for key, value in options.items():
        key = key.lower()
        if key == "path":
            out.setdefault("paths", []).extend(_path_option(value))
        elif key == "paths":
            out.setdefault("paths", []).extend(_paths_option(value))
        elif key == "columns":
            out["columns"] = split_paths(value)
        elif key in ("encoding", "charset"):
            # Spark's charsets: the built-in readers read UTF-8, ISO-8859-1 and US-ASCII
            charset = charset_named(value, f"option {key!r}")
            if charset != "utf-8":
                _set_once(out, "encoding", charset, key)
        elif key in ("inferschema", "infer_schema"):
            _set_once(out, "infer_schema", _flag(key, value), key)
        elif key == "sample_rows":
            # "all": the schema from every row
            rows = None if value.strip().lower() == "all" else _whole_number(key, value)
            _set_once(out, key, rows, key)
        elif key == "samplingratio":
            _check_every_row_sampled(value)
            _set_once(out, "sample_rows", None, "samplingRatio")
        elif key in _INT_OPTIONS:
            out[key] = _whole_number(key, value)
        elif key in _BOOL_OPTIONS:
            out[key] = _flag(key, value)
        elif key in _TEXT_OPTIONS:
            _set_once(out, key, value, key)
        elif key in _SPARK_NAMES:
            name = _SPARK_NAMES[key]
            _set_once(out, name, _flag(key, value) if name in _BOOL_OPTIONS else value, key)
        elif key in SPARK_JSON_SYNTAX:
            syntax = out.setdefault("json_syntax", {})
            syntax[SPARK_JSON_SYNTAX[key]] = _flag(key, value)
        elif key in _UNREAD_JSON_SYNTAX:
            raise ValueError(
                f"option {key!r}: the batchloader data source's JSON reader does not take "
                f"{_UNREAD_JSON_SYNTAX[key]} (it takes "
                f"{', '.join(spark for spark, _ in JSON_SYNTAX.values())})"
            )
        elif key == "timezone":
            # Spark's option of its JSON and CSV readers: the zone of a schema's timestamps
            _set_once(out, "time_zone", arrow_time_zone(value), "timeZone")
        elif key == "mode":
            mode = _SPARK_MODES.get(value.strip().lower())
            if mode is None:
                raise ValueError(
                    f"mode {value!r}: Spark's modes are PERMISSIVE, DROPMALFORMED and FAILFAST"
                )
            _set_once(out, "on_error", mode, "mode")
        else:
            known = (
                "path",
                "paths",
                "columns",
                "nullValue",
                "mode",
                "sep",
                "timeZone",
                "dateFormat",
                "timestampFormat",
                "timestampNTZFormat",
                "columnNameOfCorruptRecord",
                "primitivesAsString",
                "dropFieldIfAllNull",
                "prefersDecimal",
                "preferDate",
                "inferSchema",
                "encoding",
                "basePath",
                "pathGlobFilter",
                "modifiedBefore",
                "modifiedAfter",
                "recursiveFileLookup",
                "ignoreMissingFiles",
                "ignoreCorruptFiles",
                "nanValue",
                "positiveInf",
                "negativeInf",
                "enforceSchema",
                "lineSep",
                "samplingRatio",
                *(spark for spark, _ in JSON_SYNTAX.values()),
                *_INT_OPTIONS,
                *_BOOL_OPTIONS,
                *_TEXT_OPTIONS,
            )
            raise ValueError(
                f"the batchloader data source has no option {key!r}; "
                f"it takes {', '.join(sorted(known))}"
            )
    return out


def _check_every_row_sampled(ratio: str) -> None:
    """Check Spark's `samplingRatio`, taken as `sample_rows=None`: Spark infers from every
    row at a ratio of 0.99 or more (its default, 1.0), as `sample_rows=None` does; a
    smaller one is refused, as the rows Spark's random sample picks are not this data
    source's to pick."""
    try:
        fraction = float(ratio)
    except ValueError:
        fraction = math.nan
    if not 0 < fraction <= 1:
        raise ValueError(f"option 'samplingRatio' is a fraction in (0, 1], not {ratio!r}")
    if fraction < 0.99:
        raise ValueError(
            f"option 'samplingRatio' is {ratio}: Spark infers from a random sample of that "
            "share of the rows; this data source samples sample_rows rows (10,000 by "
            "default) spread over the files: give sample_rows (or samplingRatio 1: every row)"
        )


def _flag(key: str, value: str) -> bool:
    """A flag option's text as Spark reads one (`true`/`false`, any case; also 1/0): another
    text is refused, as a misspelt `true` would otherwise read as false."""
    flag = {"true": True, "1": True, "false": False, "0": False}.get(value.strip().lower())
    if flag is None:
        raise ValueError(f"option {key!r} is true or false, not {value!r}")
    return flag


def _whole_number(key: str, value: str) -> int:
    """A number option's text as an int, or an error naming the option."""
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"option {key!r} is a whole number, not {value!r}") from None


def _set_once(out: dict[str, Any], key: str, value: Any, spelled: str) -> None:
    """`out[key] = value`, unless another spelling of the option gave it another value."""
    if key in out and out[key] != value:
        raise ValueError(
            f"option {spelled!r} says {value!r} where another spelling of {key!r} said "
            f"{out[key]!r}: give one"
        )
    out[key] = value


def source_plan(options: dict[str, str], **given: Any) -> ScanPlan:
    """The plan of the `batchloader` data source from its options (`given`: arguments that
    options do not override). Its `where` option must decide each file whole, by file
    columns only: the data source can leave files out, not filter rows."""
    # `time_zone`: the session's (see `register`) or the `timeZone` option: of the
    # timestamps CSV inference gives (a schema the user set is already in it)
    arguments = {**SPARK_READ_DEFAULTS, **given, **scan_options_from(options)}
    paths = arguments.pop("paths", None)
    if not paths:
        raise ValueError("the batchloader data source needs a path")
    plan = ScanPlan(paths, **arguments)
    if not plan.where_decides_files:
        raise ValueError(
            f"the batchloader data source's where option ({arguments['where']!r}) must "
            "test file columns only (dir0, filename...) with conditions it can decide per "
            "file: filter the rest in the query, or use batchloader.spark.read(..., where=)"
        )
    return plan


def _paths_option(value: str) -> list[str]:
    """The `paths` option: a JSON array of paths (as Spark passes `load([...])`), else a
    comma-separated list."""
    if value.lstrip().startswith("["):
        paths = json.loads(value)
        if isinstance(paths, list) and all(isinstance(p, str) for p in paths):
            return paths
        raise ValueError(f"the paths option is not a JSON array of strings: {value!r}")
    return _comma_separated_paths(value)


def _path_option(value: str) -> list[str]:
    """The `path` option: one path (as Spark's `load(path)` takes it) if it names a local
    file or folder as it is (a name with a comma: `a,1.json`), else comma-separated
    paths."""
    if "," in value and not locations.is_remote(value) and os.path.exists(value):
        return [value]
    return _comma_separated_paths(value)


def _comma_separated_paths(value: str) -> list[str]:
    """Paths separated by commas, but for a comma in braces (Hadoop's `{a,b}`
    alternatives of one path); empty items left out."""
    paths, depth, start = [], 0, 0
    for i, c in enumerate(value):
        if c == "{":
            depth += 1
        elif c == "}" and depth:
            depth -= 1
        elif c == "," and not depth:
            paths.append(value[start:i])
            start = i + 1
    paths.append(value[start:])
    return [p for p in paths if p]


#: what the data source registered in a Spark session (by its UUID) was registered with
_registered_with: dict[str, tuple[Any, ...]] = {}


def register(spark: Any) -> None:
    """Register the `batchloader` Spark Python data source (Spark 4): then
    `spark.read.format("batchloader").option("columns", "id,m.x").load(path)` and
    `CREATE TEMPORARY VIEW v USING batchloader OPTIONS (path '...')` work.

    The data source keeps what it was registered with: the Python workers' environment
    (`sparkContext.environment`: an object store's endpoint and credentials), the session's
    time zone, its `columnNameOfCorruptRecord` and its default parallelism. Calling
    `register` again after one of them changed registers it anew with them (else it does
    nothing); `read` calls it each time."""
    from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition

    # the data source plans in a Python worker, which has no SparkSession to ask: the cores
    # it packs small files for (see `plan_tasks`) are this session's now, unless an option
    # `parallelism` says otherwise
    default_parallelism = spark.sparkContext.defaultParallelism
    # and the time zone of the timestamps of a schema the user sets (`.schema(...)`), unless
    # the option `timeZone` names one, as Spark's JSON reader takes it
    default_time_zone = session_time_zone(spark)
    # and the column permissive mode keeps bad lines in, unless the option names another
    default_corrupt = corrupt_record_column(spark)

    class BatchloaderReader(DataSourceReader):
        def __init__(self, plan: ScanPlan) -> None:
            self.plan = plan

        def partitions(self) -> list[InputPartition]:
            # every file ruled out (`where`): one task that reads nothing
            return [InputPartition(task) for task in self.plan.tasks] or [InputPartition([])]

        def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
            yield from self.plan.scan_task(partition.value)

    class BatchloaderDataSource(DataSource):
        @classmethod
        def name(cls) -> str:
            return "batchloader"

        def _plan(self) -> ScanPlan:
            if getattr(self, "_cached_plan", None) is None:
                if PLAN_OPTION in self.options:
                    self._cached_plan = ScanPlan.decode(self.options[PLAN_OPTION])
                    return self._cached_plan
                self._cached_plan = source_plan(
                    dict(self.options),
                    parallelism=default_parallelism,
                    corrupt_record_column=default_corrupt,
                    time_zone=default_time_zone,
                )
            return self._cached_plan

        def schema(self) -> Any:
            return spark_struct_type(self._plan().schema)

        def reader(self, schema: Any) -> DataSourceReader:
            if PLAN_OPTION in self.options:
                return BatchloaderReader(self._plan())
            # Spark asks schema() (which plans, and the plan travels with this object) only
            # when the user set no schema: without a plan, the schema is the user's.
            plan = getattr(self, "_cached_plan", None)
            if plan is not None and (
                schema.simpleString() == spark_struct_type(plan.schema).simpleString()
            ):
                return BatchloaderReader(plan)
            # The user set .schema(...): scan with it as the provided schema, fixed.
            options = dict(self.options)
            zone = scan_options_from(options).get("time_zone", default_time_zone)
            plan = source_plan(
                options,
                parallelism=default_parallelism,
                corrupt_record_column=default_corrupt,
                columns=list(schema.names),
                schema=arrow_schema_in_zone(schema, zone),
                strict_schema=True,
            )
            ours = spark_struct_type(plan.schema)
            if schema.simpleString() != ours.simpleString():
                raise ValueError(
                    f"the batchloader data source cannot give the schema "
                    f"{schema.simpleString()} from these files: with it as the provided "
                    f"schema the scan gives {ours.simpleString()}"
                )
            return BatchloaderReader(plan)

    jsession = spark._jsparkSession
    sc = spark.sparkContext
    # the workers' environment and interpreter travel with the registered class
    registered_with = (
        default_parallelism,
        default_time_zone,
        default_corrupt,
        sc.pythonExec,
        tuple(sorted(sc.environment.items())),
    )
    session = jsession.sessionUUID()
    exists = jsession.sessionState().dataSourceManager().dataSourceExists("batchloader")
    if exists and _registered_with.get(session) == registered_with:
        return
    # Each Spark session has its own registry, but Spark checks the name against the thread's
    # *active* session, which may be another one that has it: make this one active meanwhile.
    jvm_session = spark.sparkContext._jvm.org.apache.spark.sql.SparkSession
    previous = jvm_session.getActiveSession()
    jvm_session.setActiveSession(jsession)
    try:
        spark.dataSource.register(BatchloaderDataSource)
        _registered_with[session] = registered_with
    finally:
        if previous.isDefined():
            jvm_session.setActiveSession(previous.get())
        else:
            jvm_session.clearActiveSession()
