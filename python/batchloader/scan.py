"""The scan: files -> reader -> loader -> one schema for every batch (DESIGN.md section 3).

`Scan(paths, columns=..., reader=fn)` expands directories and globs, runs one reader per file
through a `ResultSetLoader` (the projection pushed down, so unprojected columns cost
nothing), and merges reader, missing (null) and implicit file columns into the output order.

Built-in: NDJSON (`format="ndjson"`, or `"auto"` for `.json`, `.ndjson`, `.jsonl`) and CSV
(`"csv"`, `"tsv"`; with `header=True` columns by name, else Drill's `columns` list), plain or
`.gz` / `.zst`, parsed in Rust with the GIL released. A user reader is a callable
`reader(file, writer)` given a `ScanFile` and the loader's
`RowWriter`. It may write rows itself through the writer and `yield None` whenever
`writer.start()` returns False (the scan then hands the full batch on and the reader carries
on), or simply yield rows (dicts or tuples), which the scan writes for it.
"""

from __future__ import annotations

import contextlib
import glob
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import pyarrow as pa

from batchloader._core import (
    BatchLoaderError,
    FileReader,
    ResultSetLoader,
    RowWriter,
    local_path,
)
from batchloader.coalesce import BatchLimits, coalesce, columns_bound, schema_arrays
from batchloader.projection import parse_projection
from batchloader.schema import (
    DEFAULT_NULL_TYPE,
    ImplicitColumns,
    ScanSchemaTracker,
    conform,
    explaining_type_conflicts,
    fill_column,
    folders_below,
    implicit_column,
    implicit_column_bytes,
    log,
    null_column_bytes,
)

#: suffixes of the compressed files the built-in readers decompress (and cannot split)
COMPRESSED_SUFFIXES = (".gz", ".zst", ".zstd")

#: the column that keeps malformed lines whole (on_error="permissive")
CORRUPT_RECORD = "_corrupt_record"

Reader = Callable[["ScanFile", RowWriter], Iterable[Any] | None]


@dataclass(frozen=True)
class ScanFile:
    """One input file of a scan."""

    path: str
    root: str | None
    index: int

    @property
    def name(self) -> str:
        """The file's name, without its folder."""
        return os.path.basename(self.path)


def _hidden(name: str) -> bool:
    return name.startswith((".", "_"))


def expand_paths(paths: str | os.PathLike | Sequence[str | os.PathLike]) -> list[str]:
    """Files named by `paths` (local paths or `file:` URIs): files as given, directories
    walked (hidden and `_` files skipped, as Spark does), globs matched; sorted within each
    entry."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    out: list[str] = []
    for p in (local_path(os.fspath(p)) for p in paths):
        if any(ch in p for ch in "*?["):
            matches = sorted(glob.glob(p, recursive=True))
            if not matches:
                raise FileNotFoundError(f"no file matches {p!r}")
            for m in matches:
                out += expand_paths(m) if os.path.isdir(m) else [m]
        elif os.path.isdir(p):
            for dirpath, dirnames, filenames in os.walk(p):
                dirnames[:] = sorted(d for d in dirnames if not _hidden(d))
                out += [os.path.join(dirpath, f) for f in sorted(filenames) if not _hidden(f)]
        elif os.path.exists(p):
            out.append(p)
        else:
            raise FileNotFoundError(f"no such file or directory: {p!r}")
    return out


def scan_root(root: str | os.PathLike | None, paths: Any, files: list[str]) -> str | None:
    """The folder the partition columns (`dir0`...) count from: `root` as a local absolute
    path if given, else the folder `paths` names, else the files' common folder."""
    if root:
        return os.path.abspath(local_path(os.fspath(root)))
    return _default_root(paths, files)


def partition_depth_of(files: list[str], root: str | None) -> int:
    """How many folders below `root` the deepest of `files` is (its dirN columns)."""
    if root is None:
        return 0
    folders = (os.path.dirname(os.path.abspath(f)) for f in files)
    return max((len(folders_below(folder, root)) for folder in folders), default=0)


def _default_root(paths: Any, files: list[str]) -> str | None:
    if isinstance(paths, (list, tuple)) and len(paths) == 1:
        paths = paths[0]
    if isinstance(paths, (str, os.PathLike)) and os.path.isdir(local_path(os.fspath(paths))):
        return os.path.abspath(local_path(os.fspath(paths)))
    if not files:
        return None
    return os.path.commonpath([os.path.dirname(os.path.abspath(f)) for f in files])


@contextlib.contextmanager
def _naming_the_file(path: str) -> Iterator[None]:
    """Let an error of the user's reader through unchanged, with a note naming the file it
    was reading (Python 3.11+ shows notes under the traceback)."""
    try:
        yield
    except BatchLoaderError:
        raise  # ours already name the file
    except Exception as e:
        if hasattr(e, "add_note"):
            e.add_note(f"raised by the scan's reader while reading {path}")
        raise


def _items_of(result: Iterable[Any], path: str) -> Iterator[Any]:
    """The items a user reader yields; an error it raises names the file."""
    with _naming_the_file(path):
        yield from result


def _hand_on(loader: ResultSetLoader) -> tuple[pa.RecordBatch, bool]:
    """The loader's full batch, and whether it started another: a batch the scan's `limit`
    cut short is the last one, and counts as not full (it may be small)."""
    batch = loader.harvest()
    return batch, loader.start_batch()


class Scan:
    """Iterate the batches of a scan of files; every batch has `scan.schema`."""

    def __init__(
        self,
        paths: str | os.PathLike | Sequence[str | os.PathLike],
        format: str | Reader = "auto",
        columns: Sequence[str] | None = None,
        schema: pa.Schema | None = None,
        root: str | None = None,
        null_type: pa.DataType = DEFAULT_NULL_TYPE,
        allow_schema_change: bool = False,
        on_error: Literal["error", "skip", "permissive"] = "error",
        header: bool = False,
        delimiter: str = ",",
        *,
        quote: str = '"',
        escape: str | None = None,
        reader: Reader | None = None,
        strict_schema: bool = False,
        defined_schema: pa.Schema | None = None,
        implicit_names: dict[str, str] | None = None,
        partition_prefix: str = "dir",
        partition_depth: int | None = None,
        limit: int | None = None,
        byte_range: tuple[int, int] | None = None,
        coalesce: bool = True,
        declared_columns: Sequence[str] | None = None,
        **loader_limits: Any,
    ) -> None:
        if callable(format):
            reader, format = format, "custom"
        if reader is None and format not in ("auto", "ndjson", "json", "csv", "tsv"):
            raise ValueError(
                f"format {format!r}: the built-in readers are 'ndjson', 'csv' and 'auto'; "
                "for anything else pass reader=callable(file, writer)"
            )
        if on_error not in ("error", "skip", "permissive"):
            raise ValueError(f"on_error must be 'error', 'skip' or 'permissive', not {on_error!r}")
        self.reader = reader
        self.format = format
        self.files = expand_paths(paths)
        if byte_range is not None and (reader is not None or len(self.files) != 1):
            raise ValueError("byte_range= reads a part of one file with a built-in reader")
        self.byte_range = byte_range
        if reader is None:
            for f in self.files:
                self._builtin_format(f)  # fail early on a file no reader can read
        named = [f for f in schema or [] if f.name.lower() == CORRUPT_RECORD]
        if on_error == "permissive" and named and not pa.types.is_string(named[0].type):
            raise ValueError(
                f"schema= has {named[0].name!r} as {named[0].type}: permissive mode keeps "
                "malformed lines there, so it must be a string (utf8) column"
            )
        if on_error == "permissive" and reader is None and columns is None and not named:
            # malformed lines are kept whole: the column exists from the start (where the
            # schema puts it, if it names it, as Spark's readers are asked for it)
            corrupt = pa.field(CORRUPT_RECORD, pa.utf8())
            schema = pa.schema([*(schema or []), corrupt])
        self.root = scan_root(root, paths, self.files)
        self.on_error, self.header, self.delimiter = on_error, header, delimiter
        self.quote, self.escape = quote, escape
        self.limit = limit
        self.loader_limits = loader_limits
        self.coalesce = coalesce
        # the columns of schema= whose types the user gave (None: all); the others were
        # taken from data (a driver's sample), so a string one still refuses a number
        self.declared_columns = (
            None if declared_columns is None else {n.lower() for n in declared_columns}
        )
        implicit = ImplicitColumns.renamed(implicit_names, partition_prefix)
        self.projection = parse_projection(columns)
        if partition_depth is None:
            partition_depth = partition_depth_of(self.files, self.root)
        depth = partition_depth
        self.partition_depth = depth
        self.tracker = ScanSchemaTracker(
            self.projection,
            defined_schema=defined_schema,
            provided_schema=schema,
            strict=strict_schema,
            allow_schema_change=allow_schema_change,
            null_type=null_type,
            implicit=implicit,
            partition_depth=depth,
        )
        self.rows_read = 0
        self.files_read = 0
        self.skipped_lines = 0
        #: bad lines kept as rows (on_error="permissive"), their text in `_corrupt_record`
        #: if the projection has it
        self.corrupt_lines = 0
        self._arrays_cache: tuple[int, int] | None = None

    @property
    def schema(self) -> pa.Schema:
        """The output schema (complete once the first file with data was read, or, if no
        file had any, once the scan has ended)."""
        return self.tracker.output_schema()

    def __iter__(self) -> Iterator[pa.RecordBatch]:
        if not self.coalesce:
            yield from (out for out, _, _ in self._file_batches())
            return
        yield from coalesce(self._file_batches(), BatchLimits.of(self.loader_limits))

    def _file_batches(self) -> Iterator[tuple[pa.RecordBatch, bool, int | None]]:
        """The output batches file by file, each with whether the loader filled it (else it
        ends its file, and may be small) and, if not, an upper bound of its bytes for the
        coalescer (from the arrays the batch was made of: asking the batch would wrap every
        column again, and hash its schema)."""
        for index, path in enumerate(self.files):
            if self.limit is not None and self.rows_read >= self.limit:
                break
            file = ScanFile(path, self.root, index)
            values = ImplicitColumns.values(path, self.root)
            # per file: built once, sliced per batch
            implicit: dict[tuple[str, int], pa.Array] = {}
            with explaining_type_conflicts(self.tracker.why_fixed):
                for batch, full in self._read(file, values):
                    self.tracker.apply_reader_schema(batch.schema, path, batch)
                    self.tracker.note_values(batch)
                    self.tracker.missing_columns(batch.schema)
                    out, arrays = self._assemble(batch, full, values, implicit)
                    self.rows_read += out.num_rows
                    # The first batch handed out fixes the schema (every batch has
                    # scan.schema); an empty file says nothing.
                    self.tracker.mark_resolved()
                    bound = None
                    if not full and self.coalesce:
                        bound = columns_bound(arrays, out.num_rows, self._output_arrays())
                    yield out, full, bound
            self.files_read += 1
        self.tracker.resolve_without_rows()

    def _builtin_format(self, path: str) -> str:
        if self.format in ("ndjson", "json", "csv", "tsv"):
            return "ndjson" if self.format == "json" else self.format
        name = path.lower()
        for suffix in COMPRESSED_SUFFIXES:
            name = name.removesuffix(suffix)
        if name.endswith((".json", ".ndjson", ".jsonl")):
            return "ndjson"
        if name.endswith(".csv"):
            return "csv"
        if name.endswith(".tsv"):
            return "tsv"
        raise ValueError(
            f"cannot tell the format of {path!r} from its name; pass format= or a reader"
        )

    def _builtin_reader(self, path: str) -> FileReader:
        fmt = self._builtin_format(path)
        delimiter = "\t" if fmt == "tsv" and self.delimiter == "," else self.delimiter
        return FileReader(
            path,
            format="ndjson" if fmt == "ndjson" else "csv",
            on_error=self.on_error,
            discover=not self.tracker.strict,
            header=self.header,
            delimiter=delimiter,
            quote=self.quote,
            escape=self.escape,
            byte_range=self.byte_range,
            # a column null in a whole batch is not fixed by it when types may change
            retype_nulls=self.tracker.allow_schema_change,
        )

    def _reserve(self, values: dict) -> tuple[int, int, int]:
        """Room to keep in each loader batch for the columns the scan adds to it: the file
        columns (values known per file) and, at most, a null column per reader column."""
        per_row = per_batch = largest = 0
        for col in self.tracker.output_columns():
            if col.implicit is not None:
                r, b, big = implicit_column_bytes(values.get(col.implicit))
            else:
                r, b, big = null_column_bytes(
                    col.field.type if col.field is not None else self.tracker.null_type
                )
            per_row, per_batch, largest = per_row + r, per_batch + b, max(largest, big)
        return per_row, per_batch, largest

    def _read(self, file: ScanFile, values: dict) -> Iterator[tuple[pa.RecordBatch, bool]]:
        """The loader's batches of one file, each with whether it is full."""
        limits = dict(self.loader_limits)
        if self.limit is not None:
            limits["limit"] = self.limit - self.rows_read
        loader = ResultSetLoader(
            schema=self.tracker.reader_input_schema(),
            projection=self.tracker.reader_projection(),
            discover=not self.tracker.strict,
            inferred=self.tracker.reader_inferred(),
            declared=[
                name
                for name in self.tracker.reader_declared()
                if self.declared_columns is None or name.lower() in self.declared_columns
            ],
            reserve=self._reserve(values),
            **limits,
        )
        if not loader.start_batch():
            return
        if self.reader is None:
            reader = self._builtin_reader(file.path)
            try:
                while reader.fill(loader):
                    batch, more = _hand_on(loader)
                    yield batch, more
                    if not more:
                        return
            finally:
                self.skipped_lines += reader.skipped_lines
                self._count_corrupt(reader.corrupt_lines, file.path)
                self.tracker.note_ignored(reader.ignored_columns, file.path)
                self.tracker.note_ignored_members(reader.ignored_members, file.path)
            result = None
        else:
            with _naming_the_file(file.path):
                result = self.reader(file, loader.writer)
        if result is not None:
            for row_index, item in enumerate(_items_of(result, file.path)):
                if loader.is_full():
                    batch, more = _hand_on(loader)
                    yield batch, more
                    if not more:
                        return
                if item is not None:
                    try:
                        loader.write_row(item)
                    except BatchLoaderError as e:
                        raise type(e)(f"{file.path}, row {row_index}: {e}") from e
        batch = loader.harvest()
        # a row that overflowed the last batch is the file's last batch
        tail = loader.harvest() if loader.start_batch() and loader.row_count else None
        if batch.num_rows:
            yield batch, tail is not None
        elif batch.num_columns:
            # no rows, yet the reader named columns (a CSV header): the schema learns them
            self.tracker.apply_reader_schema(batch.schema, file.path)
        if tail is not None:
            yield tail, False
        self.tracker.note_ignored(loader.ignored_columns, file.path)
        loader.close()

    def _count_corrupt(self, kept: int, path: str) -> None:
        """Count `kept` bad lines of `path` kept as rows; say so if the projection leaves
        their text out (as in Spark, such rows are nulls: nothing would tell them apart)."""
        if not kept:
            return
        self.corrupt_lines += kept
        if not self.projection.is_projected(CORRUPT_RECORD):
            log.warning(
                "%d malformed line(s) of %s were kept as rows of nulls: add '%s' to "
                "columns= to keep their text",
                kept,
                path,
                CORRUPT_RECORD,
            )

    def _output_arrays(self) -> int:
        """The arrays the output schema's columns are made of, counted once per version."""
        version = self.tracker.schema_version
        if self._arrays_cache is None or self._arrays_cache[0] != version:
            self._arrays_cache = (version, schema_arrays(self.tracker.output_schema()))
        return self._arrays_cache[1]

    def _assemble(
        self,
        batch: pa.RecordBatch,
        full: bool,
        values: dict,
        implicit: dict[tuple[str, int], pa.Array],
    ) -> tuple[pa.RecordBatch, list[pa.Array]]:
        """The output batch (`full`: the loader filled it) and the arrays it is made of: the
        reader's columns conformed to the output schema, missing ones filled, file columns
        added (`implicit` keeps their arrays between a file's batches)."""
        n = batch.num_rows
        lower = {name.lower(): i for i, name in enumerate(batch.schema.names)}
        arrays = []
        schema = self.tracker.output_schema()
        known = [c for c in self.tracker.output_columns() if c.field is not None]
        for f, col in zip(schema, known, strict=True):
            if col.implicit is not None:
                # built once per file for its longest batch so far; a full batch takes a
                # slice of it, a small one (its last) its own array: the coalescer bounds a
                # small batch's bytes, and a slice holds the whole buffers
                built = implicit.get(col.implicit)
                if built is None or len(built) < n:
                    built = implicit[col.implicit] = implicit_column(values.get(col.implicit), n)
                if len(built) != n:
                    value = values.get(col.implicit)
                    built = built.slice(0, n) if full else implicit_column(value, n)
                arrays.append(built)
                continue
            i = lower.get(f.name.lower())
            if i is None:
                arrays.append(fill_column(n, f))
            else:
                arrays.append(conform(batch.column(i), f.type))
        if not arrays:
            # an empty projection (COUNT(*)): the batch is only its row count
            empty = pa.StructArray.from_buffers(pa.struct([]), n, [None])
            return pa.RecordBatch.from_struct_array(empty), arrays
        return pa.RecordBatch.from_arrays(arrays, schema=schema), arrays
