"""The scan: files -> reader -> loader -> one schema for every batch (DESIGN.md section 3).

`Scan(paths, columns=..., reader=fn)` expands directories and globs (local, or remote URIs:
`batchloader.locations`), runs one reader per file
through a `ResultSetLoader` (the projection pushed down, so unprojected columns cost
nothing), and merges reader, missing (null) and implicit file columns into the output order.

Built-in: NDJSON (`format="ndjson"`, or `"auto"` for `.json`, `.ndjson`, `.jsonl`) and CSV
(`"csv"`, `"tsv"`; with `header=True` columns by name, else Drill's `columns` list), plain or
compressed (`COMPRESSED_SUFFIXES`: what Spark writes), parsed in Rust with the GIL released.
A user reader is a callable `reader(file, writer)` given a `ScanFile` and the loader's
`RowWriter`. It may write rows itself through the writer and `yield None` whenever
`writer.start()` returns False (the scan then hands the full batch on and the reader carries
on), or simply yield rows (dicts or tuples), which the scan writes for it.
"""

from __future__ import annotations

import contextlib
import glob
import os
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import pyarrow as pa

from batchloader import locations
from batchloader._core import (
    BAD_LINES_KEPT,
    COMPRESSED_SUFFIXES,
    BatchLoaderError,
    FileReader,
    ResultSetLoader,
    RowWriter,
    SchemaConflictError,
    charset_named,
    check_line_sep,
    check_time_formats,
    local_path,
)
from batchloader.coalesce import BatchLimits, coalesce, columns_bound, type_arrays
from batchloader.column_paths import path_steps, type_at_path
from batchloader.errors import InputError
from batchloader.hive_partitions import HiveLayout
from batchloader.projection import Projection, parse_projection
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
    memo_holds,
    null_column_bytes,
)

#: suffixes (without the dot) of compressed files the built-in readers do not read
UNREAD_COMPRESSIONS = ("xz", "lzma", "br", "lzo", "zip", "7z")

#: a scan's default `batch_byte_limit` (the loader's is None): Drill's default for its
#: operators' output batches (`drill.exec.memory.operator.output_batch_size`)
SCAN_BATCH_BYTE_LIMIT = 16 * 2**20

#: the loader's limits a scan passes on (its other keyword arguments are the scan's own)
LOADER_LIMITS = ("row_limit", "vector_byte_limit", "batch_byte_limit")


def _check_types(**given: pa.Schema | pa.DataType | None) -> None:
    """Refuse, when the scan is made, a type the loader does not write (in a schema or as
    `null_type`), naming the argument that gave it."""
    for argument, types in given.items():
        if types is None:
            continue
        if isinstance(types, pa.Schema):
            schema, said = types, f"in {argument}=, {{}}"
        else:
            schema = pa.schema([("null_type", types)])
            said = f"{argument}={types} is a type which the loader does not write"
        try:
            ResultSetLoader(schema=schema).close()
        except SchemaConflictError as e:
            raise ValueError(said.format(e)) from None


def _check_limits(
    limit: int | None,
    byte_range: tuple[int, int] | None,
    loader_limits: dict[str, Any],
    file_limit: int | None = None,
) -> None:
    """Refuse, when the scan is made, a limit or range that cannot mean anything (rather
    than read no rows) and a keyword argument that is no loader limit."""
    unknown = [k for k in loader_limits if k not in LOADER_LIMITS]
    if unknown:
        raise TypeError(
            f"Scan() got an unexpected keyword argument {unknown[0]!r} (besides its own, it "
            f"takes the loader's limits: {', '.join(LOADER_LIMITS)})"
        )
    if limit is not None and limit < 0:
        raise ValueError(f"limit must be None or >= 0, got {limit}")
    if file_limit is not None and file_limit < 0:
        raise ValueError(f"file_limit must be None or >= 0, got {file_limit}")
    if byte_range is not None:
        start, end = byte_range
        if not 0 <= start <= end:
            raise ValueError(f"byte_range is (start, end) with 0 <= start <= end, got {byte_range}")


#: the column that keeps malformed lines whole (on_error="permissive")
CORRUPT_RECORD = "_corrupt_record"

Reader = Callable[["ScanFile", RowWriter], Iterable[Any] | None]


@dataclass(frozen=True)
class _Conform:
    """A step of an output batch's plan: reader column `reader` conformed to `field`'s
    type, or, if the reader lacks the column (None), nulls of it."""

    reader: int | None
    field: pa.Field


#: a step of `Scan._plan`: a reader column taken as it is, a file column's key, a conform
_Step = int | tuple[str, int] | _Conform

#: up to this many columns made by the scan, an output batch is the reader's with them
#: added one by one (each copies the column list: many are cheaper all at once)
_FEW_MADE = 16


class _Plan:
    """How a batch of a reader with `columns` columns becomes an output batch: a step per
    output column."""

    def __init__(self, steps: list[_Step], columns: int) -> None:
        self.steps = steps
        #: the reader columns taken as they are, in output order
        self.taken = [step for step in steps if isinstance(step, int)]
        #: whether they are all the reader's columns, in order
        self.takes_all = self.taken == list(range(columns))
        #: (output position, step) of the columns the scan makes
        self.made = [(at, step) for at, step in enumerate(steps) if not isinstance(step, int)]


@dataclass
class _Carried:
    """A loader whose batch the next file may go on filling (small files share batches):
    what it reserved for the scan's columns (`_reserve`), the implicit values and rows of
    each earlier file whose rows its batch holds, and its schema version when made."""

    loader: ResultSetLoader
    room: tuple[int, int, int]
    files: list[tuple[dict, int]]
    version: int


def _within(room: tuple[int, int, int], kept: tuple[int, int, int]) -> bool:
    """Whether `room` asks no more than `kept` reserved, in every part."""
    return all(r <= k for r, k in zip(room, kept, strict=True))


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

    def open(self) -> Any:
        """The file's bytes as stored (compressed or not), as a binary file object: a local
        file, or a remote one's stream (`pyarrow.fs`). For a user reader; close it."""
        return locations.open_binary(self.path)


def expand_paths(
    paths: str | os.PathLike | Sequence[str | os.PathLike], afresh: bool = False
) -> list[str]:
    """Files named by `paths` (local paths, `file:` URIs, or URIs of other file systems,
    see `batchloader.locations`): files as given, directories walked (hidden and `_` files
    skipped, as Spark does), globs matched; sorted within each entry. A path that exists is
    taken as it is, glob characters or not (`x[1].json` is that file, not `x1.json`).
    `afresh`: a remote file this process listed before is asked about again (its size may
    have changed since). A file two entries name (a folder and a file in it) is read once,
    where the first names it, as Spark reads it (with a warning)."""
    kept: dict[str, str] = {}
    repeated: list[str] = []
    for f in _expand(paths, afresh):
        key = locations.absolute(f)
        if key in kept:
            repeated.append(f)
        else:
            kept[key] = f
    if repeated:
        log.warning(
            "%d file(s) named more than once by the paths, each read once (the first: %s)",
            len(repeated),
            repeated[0],
        )
    return list(kept.values())


def _expand(paths: str | os.PathLike | Sequence[str | os.PathLike], afresh: bool) -> list[str]:
    """`expand_paths`, a file named twice listed twice."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    out: list[str] = []
    for p in (local_path(os.fspath(p)) for p in paths):
        out += _expand_braces(p, afresh) if "{" in p else _expand_one(p, afresh)
    return out


def _expand_one(p: str, afresh: bool) -> list[str]:
    """The files one path names, braces taken as they are."""
    if locations.is_remote(p):
        return locations.expand_remote(p, afresh)
    if any(ch in p for ch in locations.GLOB_CHARS) and not os.path.exists(p):
        matches = sorted(glob.glob(p, recursive=True))
        if not matches:
            raise FileNotFoundError(f"no file matches {p!r}")
        out: list[str] = []
        for m in matches:
            out += _expand_one(m, afresh) if os.path.isdir(m) else [m]
        return out
    if os.path.isdir(p):
        out = []
        for dirpath, dirnames, filenames in os.walk(p):
            dirnames[:] = sorted(d for d in dirnames if not locations.hidden(d))
            out += [os.path.join(dirpath, f) for f in sorted(filenames) if not locations.hidden(f)]
        return out
    if os.path.exists(p):
        return [p]
    raise FileNotFoundError(f"no such file or directory: {p!r}")


def _expand_braces(path: str, afresh: bool) -> list[str]:
    """The files of a path with braces: those it names as written (a file `{x,y}.json`), or
    else those its `{a,b}` alternatives name (one naming nothing passed over, unless all
    do: then FileNotFoundError naming the path)."""
    alternatives = locations.brace_alternatives(path)
    if len(alternatives) == 1:
        return _expand_one(path, afresh)
    if locations.is_remote(path) or os.path.exists(path):
        with contextlib.suppress(FileNotFoundError):
            return _expand_one(path, afresh)
    found: list[str] = []
    for alternative in alternatives:
        with contextlib.suppress(FileNotFoundError):
            found += _expand_one(alternative, afresh)
    if not found:
        raise FileNotFoundError(f"no file matches {path!r}")
    return found


def scan_root(root: str | os.PathLike | None, paths: Any, files: list[str]) -> str | None:
    """The folder the partition columns (`dir0`...) count from: `root` as an absolute path
    (or a URI) if given, else the folder `paths` names, else the files' common folder."""
    if root:
        return locations.absolute(local_path(os.fspath(root))).rstrip("/") or "/"
    return _default_root(paths, files)


#: the NDJSON reader's options of the JSON it takes beyond the standard's, with Spark's
#: names of them (`allowComments`...) and their defaults
JSON_SYNTAX: dict[str, tuple[str, bool | None]] = {
    "allow_comments": ("allowComments", False),
    "allow_numeric_leading_zeros": ("allowNumericLeadingZeros", False),
    "allow_non_numeric_numbers": ("allowNonNumericNumbers", True),
    "allow_single_quotes": ("allowSingleQuotes", None),
}


#: `JSON_SYNTAX`'s keys by Spark's names of them, lower-cased
SPARK_JSON_SYNTAX = {spark.lower(): name for name, (spark, _) in JSON_SYNTAX.items()}


def json_syntax_of(given: Mapping[str, bool] | None, multiline: bool) -> dict[str, bool]:
    """`json_syntax=` as the NDJSON reader's options: keys of `JSON_SYNTAX` (or Spark's
    names, any case), flags; ValueError for another key or a value that is no flag."""
    out: dict[str, bool] = {}
    for key, value in (given or {}).items():
        name = SPARK_JSON_SYNTAX.get(key.lower(), key.lower())
        if name not in JSON_SYNTAX:
            raise ValueError(
                f"json_syntax has no {key!r}: it takes {', '.join(JSON_SYNTAX)} (or Spark's "
                f"{', '.join(spark for spark, _ in JSON_SYNTAX.values())})"
            )
        if not isinstance(value, bool):
            raise ValueError(f"json_syntax's {key!r} is True or False, not {value!r}")
        out[name] = value
    if multiline and out.get("allow_comments"):
        raise ValueError(
            "json_syntax's allow_comments reads comments in JSON lines, not with multiline=True"
        )
    return out


def present_files(paths: Sequence[str]) -> list[str]:
    """The listed files of `paths` that are still there; each one gone is said in a warning
    (`ignore_missing_files`, Spark's `ignoreMissingFiles`)."""
    present = []
    for path in paths:
        if locations.exists(path):
            present.append(path)
        else:
            log.warning("file %s was listed but is gone: passed over (ignore_missing_files)", path)
    return present


def hive_layout(
    style: str,
    fields: pa.Schema | None,
    files: list[str],
    root: str | None,
    schema: pa.Schema | None,
    time_zone: str = "UTC",
) -> HiveLayout | None:
    """The partition columns of a scan with `partition_style` `style`: None for Drill's
    `dirN`; for "hive", `fields` if given (a driver found them for all the files), else
    those of `files`' `key=value` folders below `root`, typed by `schema` where it names
    them, else from their values (timestamps in `time_zone`)."""
    if style not in ("drill", "hive"):
        raise ValueError(
            f"partition_style must be 'drill' (dir0, dir1... hold folder names) or 'hive' "
            f"(key=value folders are columns named by their keys), not {style!r}"
        )
    if style == "drill":
        if fields is not None:
            raise ValueError("partition_fields are the columns of partition_style='hive'")
        return None
    if fields is not None:
        return HiveLayout.typed(fields)
    declared = {f.name.lower(): f.type for f in schema} if schema is not None else None
    return HiveLayout.of(files, root, time_zone, declared)


def partition_depth_of(files: list[str], root: str | None) -> int:
    """How many folders below `root` the deepest of `files` is (its dirN columns)."""
    if root is None:
        return 0
    folders = (os.path.dirname(locations.absolute(f)) for f in files)
    return max((len(folders_below(folder, root)) for folder in folders), default=0)


def _default_root(paths: Any, files: list[str]) -> str | None:
    if isinstance(paths, (list, tuple)) and len(paths) == 1:
        paths = paths[0]
    if isinstance(paths, (str, os.PathLike)):
        folder = local_path(os.fspath(paths))
        if locations.is_dir(folder):
            return locations.absolute(folder).rstrip("/") or "/"
    if not files:
        return None
    return locations.common_folder(files)


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


def _total_room(parts: Iterable[tuple[int, int, int]]) -> tuple[int, int, int]:
    """What columns reserving (bytes per row, per batch, largest buffer per row) each
    `parts` take together."""
    per_row = per_batch = largest = 0
    for r, b, big in parts:
        per_row, per_batch, largest = per_row + r, per_batch + b, max(largest, big)
    return per_row, per_batch, largest


def _harvest(loader: ResultSetLoader) -> tuple[pa.RecordBatch, int]:
    """The loader's batch and its bytes as the loader counts them."""
    size = loader.batch_bytes
    return loader.harvest(), size


def _hand_on(loader: ResultSetLoader) -> tuple[pa.RecordBatch, bool, int]:
    """The loader's full batch, whether it started another (a batch the scan's `limit` cut
    short is the last one, and counts as not full: it may be small) and its bytes."""
    batch, size = _harvest(loader)
    return batch, loader.start_batch(), size


def _null_texts(null_values: str | Sequence[str] | None, format: Any) -> list[str] | None:
    """`null_values=` as the CSV reader takes it: a list of texts (one text alone is a list
    of it); refused where no CSV file is read."""
    if null_values is None:
        return None
    texts = [null_values] if isinstance(null_values, str) else list(null_values)
    if not all(isinstance(t, str) for t in texts):
        raise TypeError(f"null_values= takes a string or a list of strings, not {null_values!r}")
    if format in ("ndjson", "json"):
        raise ValueError("null_values= reads CSV fields as nulls: JSON has its own null")
    return texts


def _csv_field_options(format: Any, **options: Any) -> dict[str, Any]:
    """The options only the CSV reader takes, those given (not None or False) as it takes
    them: the texts of its floats (`nan_value=`, `positive_inf=`, `negative_inf=`) and
    `empty_value=`, each a string; `ignore_leading_whitespace=` and
    `ignore_trailing_whitespace=`, flags. Refused where no CSV file is read."""
    given = {name: value for name, value in options.items() if value is not None}
    for name, value in given.items():
        flag = name.startswith("ignore_")
        if not isinstance(value, bool if flag else str):
            wanted = "True or False" if flag else "a string"
            raise TypeError(f"{name}= takes {wanted}, not {value!r}")
    given = {name: value for name, value in given.items() if value is not False}
    if given and format in ("ndjson", "json"):
        raise ValueError(f"{', '.join(given)}= shape CSV fields: JSON has its own syntax")
    return given


def builtin_format(path: str, format: Any = "auto") -> str:
    """The built-in reader's format for file `path` ("ndjson", "csv" or "tsv"): `format`
    if it names one, else by the name's suffix (a compression suffix aside); ValueError for
    a name that tells none."""
    if format in ("ndjson", "json", "csv", "tsv"):
        return "ndjson" if format == "json" else str(format)
    name = path.lower()
    for suffix in COMPRESSED_SUFFIXES:
        name = name.removesuffix(suffix)
    if name.endswith((".json", ".ndjson", ".jsonl")):
        return "ndjson"
    if name.endswith(".csv"):
        return "csv"
    if name.endswith(".tsv"):
        return "tsv"
    unread = name.rpartition(".")[2]
    if unread in UNREAD_COMPRESSIONS:
        raise ValueError(
            f"{path!r} is compressed (.{unread}), which the built-in readers do not read (they"
            f" read {', '.join(COMPRESSED_SUFFIXES)}): decompress it, or pass a reader"
        )
    raise ValueError(f"cannot tell the format of {path!r} from its name; pass format= or a reader")


#: the column a CSV file without a header or a schema is read into (Drill's `columns`)
CSV_COLUMNS = "columns"


def _line_sep(
    line_sep: str | None,
    multiline: bool,
    byte_range: tuple[int, int] | None,
    reader: Reader | None,
) -> str | None:
    """`line_sep` checked (`_core.check_line_sep` says what it must be): for the built-in
    readers' lines and records only."""
    if line_sep is None:
        return None
    if reader is not None:
        raise ValueError(
            "line_sep ends the built-in readers' lines: a reader of your own reads its own"
        )
    if not isinstance(line_sep, str):
        raise ValueError(f"line_sep is the text that ends lines and records: not {line_sep!r}")
    check_line_sep(line_sep, multiline, byte_range is not None)
    return line_sep


def _positional_names(
    header: bool,
    schema: pa.Schema | None,
    left_out: Sequence[str],
    enforce_schema: bool | None,
    given: Sequence[str] | None = None,
) -> list[str] | None:
    """The names a CSV file's fields take by position: `given`, else those of `schema` but
    the columns `left_out` (the corrupt-record column, hive partition keys: as Spark's data
    schema leaves them out), for a file without a header, or with one and `enforce_schema`
    (not None); else None (the header's names, or Drill's `columns` list: no schema, or one
    that has `columns`)."""
    if header and enforce_schema is None:
        return None
    if given is not None:
        return list(given) or None
    if schema is None or not len(schema):
        return None
    out = {n.lower() for n in left_out}
    names = [n for n in schema.names if n.lower() not in out]
    if not names or any(n.lower() == CSV_COLUMNS for n in names):
        return None
    return names


def _checked_fields(
    header: bool, enforce_schema: bool | None, names: list[str] | None, projection: Projection
) -> list[int] | None:
    """The header fields `enforce_schema=False` checks against the schema's `names`, by
    position, where a projection keeps only some of them (as Spark checks those it reads);
    None: all of them, and their count (or nothing to check)."""
    if not header or enforce_schema is not False or names is None:
        return None
    kept = [i for i, name in enumerate(names) if projection.is_projected(name)]
    return None if len(kept) == len(names) else kept


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
        comment: str | None = None,
        reader: Reader | None = None,
        strict_schema: bool = False,
        defined_schema: pa.Schema | None = None,
        implicit_names: dict[str, str] | None = None,
        partition_prefix: str = "dir",
        partition_depth: int | None = None,
        partition_style: Literal["drill", "hive"] = "drill",
        partition_fields: pa.Schema | None = None,
        limit: int | None = None,
        file_limit: int | None = None,
        byte_range: tuple[int, int] | None = None,
        coalesce: bool = True,
        declared_columns: Sequence[str] | None = None,
        text_guesses: Sequence[str] | None = None,
        multiline: bool = False,
        null_values: str | Sequence[str] | None = None,
        json_conventions: Literal["arrow", "spark"] = "arrow",
        csv_conventions: Literal["arrow", "spark"] = "arrow",
        date_format: str | None = None,
        timestamp_format: str | None = None,
        timestamp_ntz_format: str | None = None,
        corrupt_record_column: str = CORRUPT_RECORD,
        json_syntax: Mapping[str, bool] | None = None,
        ignore_missing_files: bool = False,
        ignore_corrupt_files: bool = False,
        nan_value: str | None = None,
        positive_inf: str | None = None,
        negative_inf: str | None = None,
        empty_value: str | None = None,
        ignore_leading_whitespace: bool = False,
        ignore_trailing_whitespace: bool = False,
        enforce_schema: bool | None = None,
        positional_names: Sequence[str] | None = None,
        empty_strings_as_nulls: bool = False,
        line_sep: str | None = None,
        encoding: str | None = None,
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
        for option, value in [
            ("json_conventions", json_conventions),
            ("csv_conventions", csv_conventions),
        ]:
            if value not in ("arrow", "spark"):
                raise ValueError(f"{option} must be 'arrow' or 'spark', not {value!r}")
        #: how the NDJSON reader converts declared types where Arrow and Spark differ
        self.json_conventions = json_conventions
        #: how the CSV reader reads date and timestamp texts ("spark": Spark's forms too)
        #: and empty fields ("spark" and no null_values=: nulls, as Spark reads them)
        self.csv_conventions = csv_conventions
        check_time_formats(date_format, timestamp_format, timestamp_ntz_format)
        #: Java patterns (as Spark's dateFormat, timestampFormat, timestampNTZFormat) the
        #: built-in readers read date and timestamp texts by instead: date32 columns,
        #: timestamps with a time zone, timestamps without one
        self.time_formats = {
            "date_format": date_format,
            "timestamp_format": timestamp_format,
            "timestamp_ntz_format": timestamp_ntz_format,
        }
        _check_limits(limit, byte_range, loader_limits, file_limit)
        _check_types(schema=schema, defined_schema=defined_schema, null_type=null_type)
        self.reader = reader
        self.format = format
        self.files = expand_paths(paths)
        if byte_range is not None and (reader is not None or len(self.files) != 1):
            raise ValueError("byte_range= reads a part of one file with a built-in reader")
        if multiline and byte_range is not None:
            raise ValueError("multiline= reads files whole: not a byte_range")
        self.byte_range = byte_range
        self.multiline = multiline
        self.null_values = _null_texts(null_values, format)
        #: the CSV reader's own options, those given: the texts its float fields spell NaN
        #: and the infinities with (Spark's `nanValue`, `positiveInf`, `negativeInf`), the
        #: text of a quoted empty field (`emptyValue`), whitespace around fields dropped
        #: (`ignoreLeadingWhiteSpace`, `ignoreTrailingWhiteSpace`)
        self.csv_field_options = _csv_field_options(
            format,
            nan_value=nan_value,
            positive_inf=positive_inf,
            negative_inf=negative_inf,
            empty_value=empty_value,
            ignore_leading_whitespace=ignore_leading_whitespace,
            ignore_trailing_whitespace=ignore_trailing_whitespace,
        )
        if reader is None:
            for f in self.files:
                self._builtin_format(f)  # fail early on a file no reader can read
        if not corrupt_record_column:
            raise ValueError("corrupt_record_column names the column bad lines are kept in")
        #: the column permissive mode keeps bad lines in (Spark's columnNameOfCorruptRecord)
        self.corrupt_column = corrupt_record_column
        named = [f for f in schema or [] if f.name.lower() == corrupt_record_column.lower()]
        if on_error == "permissive" and named and not pa.types.is_string(named[0].type):
            raise ValueError(
                f"schema= has {named[0].name!r} as {named[0].type}: permissive mode keeps "
                "malformed lines there, so it must be a string (utf8) column"
            )
        if on_error == "permissive" and reader is None and columns is None and not named:
            # malformed lines are kept whole: the column exists from the start (where the
            # schema puts it, if it names it, as Spark's readers are asked for it)
            corrupt = pa.field(corrupt_record_column, pa.utf8())
            schema = pa.schema([*(schema or []), corrupt])
        self.root = scan_root(root, paths, self.files)
        self.on_error, self.header, self.delimiter = on_error, header, delimiter
        self.quote, self.escape = quote, escape
        if comment is not None and format in ("ndjson", "json"):
            raise ValueError("comment= skips CSV lines that start with it: JSON has no comments")
        #: CSV lines starting with this character are skipped (Spark's `comment`)
        self.comment = comment
        self.limit = limit
        #: at most this many rows of each file (its loader's limit: files do not share one)
        self.file_limit = file_limit
        # batches of at most 16 MiB unless told otherwise (None: no limit), as Drill's
        # operators' output batches: a wide schema's 65,536 rows would take hundreds of MB
        self.loader_limits = {"batch_byte_limit": SCAN_BATCH_BYTE_LIMIT, **loader_limits}
        self.coalesce = coalesce
        # the columns of schema= whose types the user gave (None: all), by name, or parts of
        # the others by path (`m.x`: that member); the rest were taken from data (a driver's
        # sample), so a string there still refuses a number
        self.declared_columns = (
            None if declared_columns is None else {n.lower() for n in declared_columns}
        )
        #: the hive-style partition columns (`partition_style="hive"`), else None
        self.hive = hive_layout(
            partition_style, partition_fields, self.files, self.root, defined_schema or schema
        )
        #: a file gone since it was listed is passed over, with a warning (Spark's
        #: `ignoreMissingFiles`), where otherwise it is an InputError
        self.ignore_missing_files = ignore_missing_files
        #: a file a built-in reader cannot read on (open, decompress, fetch: an `InputError`
        #: that is `unreadable`) ends there, with a warning: its rows read before are kept,
        #: and the scan goes on with the next file (Spark's `ignoreCorruptFiles`); bad text
        #: in a file is `on_error`'s, not this
        self.ignore_corrupt_files = ignore_corrupt_files
        #: the JSON the NDJSON reader takes beyond the standard's (`JSON_SYNTAX`)
        self.json_syntax = json_syntax_of(json_syntax, multiline)
        #: the NDJSON reader reads `""` as a null wherever it is: it types no column, as
        #: Spark's JSON inference takes it (`batchloader.spark`'s sample)
        self.empty_strings_as_nulls = empty_strings_as_nulls
        #: the text that ends NDJSON lines and CSV records, exactly (Spark's `lineSep`; CSV
        #: under `csv_conventions="spark"`); None: NDJSON's `\n`, or under
        #: `json_conventions="spark"` `\n`, `\r` and `\r\n`, as CSV's
        self.line_sep = _line_sep(line_sep, multiline, byte_range, reader)
        #: the charset of the files' text (Spark's `encoding`): "utf-8", "iso-8859-1" or
        #: "us-ascii", read as Java decodes it
        self.encoding = "utf-8" if encoding is None else charset_named(encoding, "encoding")
        if reader is not None and self.encoding != "utf-8":
            raise ValueError(
                "encoding is the built-in readers' charset: a reader of your own decodes "
                "file.open()'s bytes itself"
            )
        implicit = ImplicitColumns.renamed(implicit_names, partition_prefix, self.hive)
        self.projection = parse_projection(columns)
        if enforce_schema not in (None, True, False):
            raise ValueError(f"enforce_schema must be True, False or None, not {enforce_schema!r}")
        #: the columns of a CSV file's fields, by position: schema= mapped onto them as
        #: Spark's CSV reader maps it (or `positional_names=`, where schema= is a projection
        #: of them), for a file without a header, or with one and `enforce_schema` (None:
        #: the header's names, or Drill's `columns` list, without a schema or with one that
        #: has `columns`)
        self.positional_names = _positional_names(
            header,
            defined_schema or schema,
            [corrupt_record_column, *(self.hive.names if self.hive else ())],
            enforce_schema,
            positional_names,
        )
        #: Spark's `enforceSchema` (CSV with a header and a schema): None, the header's names
        #: find the columns; True, the schema's take the fields by position (the header read
        #: past); False, the same once the header is found to name them so (`InputError`
        #: otherwise)
        self.enforce_schema = enforce_schema if self.positional_names and header else None
        #: the header fields `enforce_schema=False` checks (None: all)
        self.checked_fields = _checked_fields(
            header, self.enforce_schema, self.positional_names, self.projection
        )
        if self.hive is not None:
            partition_depth = len(self.hive.names)
        elif partition_depth is None:
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
        # the parts of schema= whose types a driver's sample guessed (`guessed_paths`): the
        # NDJSON reader keeps any value there as its JSON text, as a scan does with the
        # guesses its own first batch fixed
        self.tracker.take_text_guesses(text_guesses or [])
        self._start_pass()
        # (schema version, reader schema, plan): how `_assemble` makes an output batch
        # from a reader batch with that schema, while the output schema is that version's
        self._plan_cache: tuple[int, pa.Schema, _Plan] | None = None
        # (schema version, room): what `_reserve` keeps for null columns, as of that version
        self._null_room_cache: tuple[int, tuple[int, int, int]] | None = None

    def _start_pass(self) -> None:
        """Counters at zero for a pass over the files (each pass reads them again, in the
        schema the first fixed; the counters tell of the last pass)."""
        #: rows handed out by this pass
        self.rows_read = 0
        #: files this pass has read to their end
        self.files_read = 0
        #: malformed lines skipped (on_error="skip")
        self.skipped_lines = 0
        #: bad lines kept as rows (on_error="permissive"), their text in `_corrupt_record`
        #: if the projection has it
        self.corrupt_lines = 0
        #: files passed over because they were gone when their turn came
        #: (`ignore_missing_files`)
        self.missing_files: list[str] = []
        #: files whose read stopped early, each as the `InputError` that stopped it (path,
        #: line, why), its rows read before it kept (`ignore_corrupt_files`)
        self.corrupt_files: list[InputError] = []
        #: the first `BAD_LINES_KEPT` lines skipped or kept as bad by the built-in readers,
        #: each as the InputError it would have raised (why, and where)
        self.bad_lines: list[InputError] = []
        # a loader whose batch the next file goes on filling (small files share batches),
        # with what it reserved and the files whose rows it holds (none at a pass's start:
        # one an abandoned pass left goes)
        self._carried: _Carried | None = None
        self.tracker.start_pass()

    @property
    def ignored_columns(self) -> dict[str, int]:
        """The columns (and struct members, `m.x`) met after the schema was fixed without
        them, whose values the scan could not keep, each with the number of files that had
        it: logged for the first such file, and at the scan's end for the others."""
        return self.tracker.ignored_columns()

    @property
    def text_kept(self) -> dict[str, int]:
        """The values kept as their JSON text, by column path (`m.x`, `l[]`), because the
        column's utf8 type was a guess the first batch fixed (it held only nulls, or empty
        lists) and a later value was of another type: logged for the first file that had
        any in a column."""
        return self.tracker.text_kept()

    @property
    def wholes_rounded(self) -> dict[str, int]:
        """The whole numbers past int64 (and within uint64) the NDJSON reader rounded to
        float64 in columns the data typed (pyarrow.json's rule), digits lost, by column
        path: logged for the first file that had any in a column."""
        return self.tracker.wholes_rounded()

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
        coalescer: the loader's count of the reader's batch plus a bound of the arrays the
        scan made (asking the output batch would wrap every column again)."""
        self._start_pass()
        try:
            yield from self._each_file()
        finally:
            self.tracker.log_ignored_files()
        self.tracker.resolve_without_rows()

    def _each_file(self) -> Iterator[tuple[pa.RecordBatch, bool, int | None]]:
        """`_file_batches` of every file in turn."""
        path = None
        for index, path in enumerate(self.files):
            if self.limit is not None and self.rows_read >= self.limit:
                break
            if self.ignore_missing_files and not present_files([path]):
                self.missing_files.append(path)
                continue
            file = ScanFile(path, self.root, index)
            values = self.tracker.implicit.file_values(path, self.root)
            # per file: built once, sliced per batch
            implicit: dict[tuple[str, int], pa.Array] = {}
            with explaining_type_conflicts(self.tracker.why_fixed):
                for batch, full, size, files in self._read(file, values):
                    # (a batch of earlier files only keeps its arrays to itself)
                    cache = implicit if files[-1][0] is values else {}
                    try:
                        out = self._hand_out(batch, full, size, files, path, cache)
                    except SchemaConflictError:
                        yield from self._before_conflict(batch, size, files, path)
                        raise
                    yield out
            if not self._cut_short(path):
                self.files_read += 1
        shared, self._carried = self._carried, None
        if shared is not None:
            assert path is not None, "a loader is carried from a file read"
            # the last files' rows, in the batch they shared
            with explaining_type_conflicts(self.tracker.why_fixed):
                for batch, full, size, files in self._let_go(shared, path):
                    yield self._hand_out(batch, full, size, files, path, {})

    def _before_conflict(
        self, batch: pa.RecordBatch, size: int, files: list[tuple[dict, int]], path: str
    ) -> Iterator[tuple[pa.RecordBatch, bool, int | None]]:
        """The rows of the earlier files in a batch that failed to go out for the types of
        its last file (`path`), as `_file_batches` gives them; nothing if the batch holds
        one file's rows, or if those rows cannot go out either. What the last file brought
        is null in them (a column it added, a guessed type it typed), so the scan's schema
        takes them as it took those files' rows alone."""
        before = sum(rows for _, rows in files[:-1])
        if not before:
            return
        try:
            out = self._hand_out(batch.slice(0, before), False, size, files[:-1], path, {})
        except SchemaConflictError:
            return  # the earlier rows hold a value of the conflicting type too
        yield out

    def _hand_out(
        self,
        batch: pa.RecordBatch,
        full: bool,
        size: int,
        files: list[tuple[dict, int]],
        path: str | None,
        implicit: dict[tuple[str, int], pa.Array],
    ) -> tuple[pa.RecordBatch, bool, int | None]:
        """The output batch of a reader batch holding the rows of `files` (each file's
        implicit values and rows, in order; `path` the file being read), as `_file_batches`
        gives it."""
        self.tracker.apply_reader_schema(batch.schema, path, batch)
        self.tracker.note_values(batch)
        self.tracker.missing_columns(batch.schema)
        out, made = self._assemble(batch, full, files, implicit)
        self.rows_read += out.num_rows
        # The first batch handed out fixes the schema (every batch has scan.schema); an
        # empty file says nothing.
        self.tracker.mark_resolved()
        bound = None
        if not full and self.coalesce:
            arrays = sum(type_arrays(a.type) for a in made)
            bound = size + columns_bound(made, out.num_rows, arrays)
        return out, full, bound

    def _builtin_format(self, path: str) -> str:
        return builtin_format(path, self.format)

    def _builtin_reader(self, path: str) -> FileReader:
        fmt = self._builtin_format(path)
        delimiter = "\t" if fmt == "tsv" and self.delimiter == "," else self.delimiter
        return FileReader(
            path,
            opener=locations.opener(path),
            format="ndjson" if fmt == "ndjson" else "csv",
            on_error=self.on_error,
            discover=not self.tracker.strict,
            header=self.header,
            delimiter=delimiter,
            quote=self.quote,
            escape=self.escape,
            comment=None if fmt == "ndjson" else self.comment,
            names=None if fmt == "ndjson" else self.positional_names,
            enforce_schema=None if fmt == "ndjson" else self.enforce_schema,
            checked_fields=None if fmt == "ndjson" else self.checked_fields,
            byte_range=self.byte_range,
            multiline=self.multiline and fmt == "ndjson",
            null_values=None if fmt == "ndjson" else self.null_values,
            # a column null in a whole batch is not fixed by it when types may change
            retype_nulls=self.tracker.allow_schema_change,
            null_type=self.tracker.null_type if fmt == "ndjson" else None,
            json_conventions=self.json_conventions,
            csv_conventions=self.csv_conventions,
            date_format=self.time_formats["date_format"],
            timestamp_format=self.time_formats["timestamp_format"],
            timestamp_ntz_format=self.time_formats["timestamp_ntz_format"],
            corrupt_record_column=self.corrupt_column,
            encoding=self.encoding,
            **self._format_options(fmt),
        )

    def _format_options(self, fmt: str) -> dict[str, Any]:
        """The reader options only one format takes: JSON's syntax and empty strings, CSV's
        field options."""
        if fmt == "ndjson":
            return dict(
                self.json_syntax,
                empty_strings_as_nulls=self.empty_strings_as_nulls,
                line_sep=self.line_sep,
            )
        return dict(self.csv_field_options, line_sep=self.line_sep)

    def _reserve(self, values: dict) -> tuple[int, int, int]:
        """Room to keep in each loader batch for the columns the scan adds to it: the file
        columns (values known per file) and, at most, a null column per reader column."""
        files = self.tracker.implicit_columns()
        return _total_room(
            [self._null_room(), *(implicit_column_bytes(values.get(key)) for _, key in files)]
        )

    def _null_room(self) -> tuple[int, int, int]:
        """`_reserve`'s room for a null column per reader column, once per schema version
        (a wide schema's small files would otherwise walk every type per file)."""
        version = self.tracker.schema_version
        if self._null_room_cache is None or self._null_room_cache[0] != version:
            null_type = self.tracker.null_type
            room = _total_room(
                null_column_bytes(col.field.type if col.field is not None else null_type)
                for col in self.tracker.output_columns()
                if col.implicit is None
            )
            self._null_room_cache = (version, room)
        return self._null_room_cache[1]

    def _reader_declared(self) -> list[str]:
        """What of the reader's schema has types the user gave, for its loader: the
        columns `declared_columns` names (all of the schema's, without it), and the parts of
        the others it names by path (`m.x`)."""
        names = self.tracker.reader_declared()
        if self.declared_columns is None:
            return names
        kept = [n for n in names if n.lower() in self.declared_columns]
        others = {n.lower() for n in names} - {n.lower() for n in kept}
        schema = self.tracker.reader_input_schema()
        parts = [
            path
            for path in self.declared_columns
            if (found := path_steps(path)) is not None
            and found[1]
            and found[0].lower() in others
            and type_at_path(schema, path) is not None
        ]
        return kept + sorted(parts)

    def _read(
        self, file: ScanFile, values: dict
    ) -> Iterator[tuple[pa.RecordBatch, bool, int, list[tuple[dict, int]]]]:
        """The loader's batches of one file, each with whether it is full, its bytes as the
        loader counted them, and the files whose rows it holds (implicit values, rows). A
        built-in reader's small file may leave its rows in the loader for the next file
        (`_carried`): many small files then fill batches together, as one file would."""
        room = self._reserve(values)
        shared, self._carried = self._carried, None
        if shared is not None and not _within(room, shared.room):
            # this file's values need more room than the shared batch kept: it ends here
            yield from self._let_go(shared, file.path)
            shared = None
        if shared is None:
            limits = dict(self.loader_limits)
            if self.limit is not None:
                limits["limit"] = self.limit - self.rows_read
            if self.file_limit is not None:
                limits["limit"] = min(limits.get("limit", self.file_limit), self.file_limit)
            loader = ResultSetLoader(
                schema=self.tracker.reader_input_schema(),
                projection=self.tracker.reader_projection(),
                discover=not self.tracker.strict,
                inferred=self.tracker.reader_inferred(),
                declared=self._reader_declared(),
                text_guesses=self.tracker.reader_text_guesses(),
                reserve=room,
                **limits,
            )
            shared = _Carried(loader, room, [], loader.schema_version)
            if not loader.start_batch():
                return
        loader = shared.loader

        def rows_of_this_file(batch_rows: int) -> list[tuple[dict, int]]:
            """The files of the batch of `batch_rows` rows just harvested: the earlier ones,
            then this one (the next batch starts with this file's rows only)."""
            before = sum(rows for _, rows in shared.files)
            files, shared.files = [*shared.files, (values, batch_rows - before)], []
            return files

        def last_batches() -> Iterator[tuple[pa.RecordBatch, bool, int, list[tuple[dict, int]]]]:
            """The batch being filled, and the next holding a row that overflowed it."""
            batch, size = _harvest(loader)
            tail = _harvest(loader) if loader.start_batch() and loader.row_count else None
            if batch.num_rows:
                yield batch, tail is not None, size, rows_of_this_file(batch.num_rows)
            elif batch.num_columns:
                # no rows, yet the reader named columns (a CSV header): the schema learns them
                self.tracker.apply_reader_schema(batch.schema, file.path)
            if tail is not None:
                yield tail[0], False, tail[1], [(values, tail[0].num_rows)]

        try:
            if (yield from self._fill(file, loader, rows_of_this_file)):
                return
        except Exception as e:
            # Every row before the failing one is handed out before the error: the batches
            # hold them (earlier files' too), and the loader took the failing row back.
            with contextlib.suppress(BatchLoaderError):  # a user reader left a row open
                yield from last_batches()
            if not self._passes_over(e):
                raise
            self.tracker.note_ignored(loader.ignored_columns, file.path)
            loader.close()
            return
        if self._may_carry(shared):
            # a small file's rows wait in the batch for the next file's
            shared.files = rows_of_this_file(loader.row_count)
            self._carried = shared
            return
        yield from last_batches()
        self.tracker.note_ignored(loader.ignored_columns, file.path)
        loader.close()

    def _fill(
        self,
        file: ScanFile,
        loader: ResultSetLoader,
        rows_of_this_file: Callable[[int], list[tuple[dict, int]]],
    ) -> Generator[tuple[pa.RecordBatch, bool, int, list[tuple[dict, int]]], None, bool]:
        """Fill `loader` with the rows of `file`, yielding each batch that fills up (as
        `_read` gives them); whether the loader's limit was reached (nothing more to read
        in any file)."""
        if self.reader is None:
            reader = self._builtin_reader(file.path)
            fixed_at = None  # the schema version the loader last learnt the guesses of
            try:
                while True:
                    if self._wildcard_fixed():
                        # columns (and members) the file brings from now on are left out of
                        # the batches: read past them (a value of mixed types in one would
                        # fail its line for nothing)
                        reader.stop_adding_columns()
                    if not reader.fill(loader):
                        break
                    batch, more, size = _hand_on(loader)
                    yield batch, more, size, rows_of_this_file(batch.num_rows)
                    if not more:
                        return True
                    fixed_at = self._fix_text_guesses(loader, fixed_at)
            finally:
                self.skipped_lines += reader.skipped_lines
                self._count_corrupt(reader.corrupt_lines, file.path)
                room = BAD_LINES_KEPT - len(self.bad_lines)
                if room > 0 and (reader.skipped_lines or reader.corrupt_lines):
                    self.bad_lines += reader.bad_lines[:room]
                self.tracker.note_ignored(reader.ignored_columns, file.path)
                self.tracker.note_ignored_members(reader.ignored_members, file.path)
                self.tracker.note_text_kept(loader.take_text_kept(), file.path)
                self.tracker.note_wholes_rounded(loader.take_wholes_rounded(), file.path)
            return False
        with _naming_the_file(file.path):
            result = self.reader(file, loader.writer)
        if result is None:
            return False
        for row_index, item in enumerate(_items_of(result, file.path)):
            if loader.is_full():
                batch, more, size = _hand_on(loader)
                yield batch, more, size, rows_of_this_file(batch.num_rows)
                if not more:
                    return True
            if item is not None:
                try:
                    loader.write_row(item)
                except BatchLoaderError as e:
                    raise type(e)(f"{file.path}, row {row_index}: {e}") from e
        return False

    def _passes_over(self, error: Exception) -> bool:
        """Whether the scan goes on past `error`, which stopped a file's read: an
        unreadable file under `ignore_corrupt_files` (noted, and said in a warning)."""
        if not (self.ignore_corrupt_files and isinstance(error, InputError) and error.unreadable):
            return False
        self.corrupt_files.append(error)
        log.warning(
            "%s; the rest of the file was passed over, its rows before kept (ignore_corrupt_files)",
            error,
        )
        return True

    def _cut_short(self, path: str) -> bool:
        """Whether the read of `path` just made stopped early (`_passes_over`)."""
        return bool(self.corrupt_files) and self.corrupt_files[-1].path == path

    def _wildcard_fixed(self) -> bool:
        """Whether the scan takes every column and a batch handed out fixed which: columns
        met later are left out (with a warning), as the loader of a later file leaves them."""
        tracker = self.tracker
        return (
            self.projection.kind == "all"
            and tracker.handed_out
            and not tracker.allow_schema_change
            and not tracker.strict
        )

    def _fix_text_guesses(self, loader: ResultSetLoader, fixed_at: int | None) -> int | None:
        """Tell the loader of a file being read the types the first batch fixed by guess
        (`reader_text_guesses`), once per schema version: the columns no row of it had, the
        members the projection asked for, which the loader lacks. Its reader then keeps a
        later value there as its JSON text, as a later file's reader does."""
        version = self.tracker.schema_version
        if not self.tracker.handed_out or fixed_at == version:
            return fixed_at
        guesses = self.tracker.reader_text_guesses()
        if guesses:
            loader.fix_text_guesses(self.tracker.reader_input_schema(), guesses)
        return version

    def _let_go(
        self, shared: _Carried, path: str
    ) -> Iterator[tuple[pa.RecordBatch, bool, int, list[tuple[dict, int]]]]:
        """The batch a loader files shared holds (as `_read` gives batches), and the loader
        closed: the batch ends before file `path`, or with the scan."""
        batch, size = _harvest(shared.loader)
        yield batch, False, size, shared.files
        self.tracker.note_ignored(shared.loader.ignored_columns, path)
        shared.loader.close()

    def _may_carry(self, shared: _Carried) -> bool:
        """Whether the rows of a file just read may wait in `shared`'s batch for the next
        file's: with a built-in reader, batches joined
        anyway (`coalesce`), once the first batch fixed what it fixes (the first file alone
        decides what the first batch decides), in a batch not full, and while no reader
        added a column to the loader: a reader's discoveries (a column it may widen, a type
        it guessed) are its own, so the next file starts a loader that has them as the scan
        learnt them, as it did before files shared batches."""
        loader = shared.loader
        return (
            self.reader is None
            and self.file_limit is None
            and self.coalesce
            and self.tracker.handed_out
            and not loader.is_full()
            and loader.row_count > 0
            and loader.schema_version == shared.version
        )

    def _count_corrupt(self, kept: int, path: str) -> None:
        """Count `kept` bad lines of `path` kept as rows; say so if the projection leaves
        their text out (as in Spark, such rows are nulls: nothing would tell them apart)."""
        if not kept:
            return
        self.corrupt_lines += kept
        if not self.projection.is_projected(self.corrupt_column):
            log.warning(
                "%d malformed line(s) of %s were kept as rows of nulls: add '%s' to "
                "columns= to keep their text",
                kept,
                path,
                self.corrupt_column,
            )

    def _plan(self, reader: pa.Schema) -> _Plan:
        """How to make an output batch from a reader batch with schema `reader`. Made once
        per reader schema and schema version: a wide schema's batches, and small files,
        would otherwise match every name afresh."""
        version = self.tracker.schema_version
        cached = self._plan_cache
        if memo_holds(cached, version, reader):
            return cached[2]  # type: ignore[index]
        lower = {name.lower(): i for i, name in enumerate(reader.names)}
        known = [c for c in self.tracker.output_columns() if c.field is not None]
        steps: list[_Step] = []
        for f, col in zip(self.tracker.output_schema(), known, strict=True):
            i = lower.get(f.name.lower())
            if col.implicit is not None:
                steps.append(col.implicit)
            elif i is not None and reader.field(i).equals(f, check_metadata=True):
                steps.append(i)
            else:
                steps.append(_Conform(i, f))
        plan = _Plan(steps, len(reader))
        self._plan_cache = (version, reader, plan)
        return plan

    def _assemble(
        self,
        batch: pa.RecordBatch,
        full: bool,
        files: list[tuple[dict, int]],
        implicit: dict[tuple[str, int], pa.Array],
    ) -> tuple[pa.RecordBatch, list[pa.Array]]:
        """The output batch (`full`: the loader filled it) and the arrays the scan made for
        it (the reader's columns it did not take as they are: file columns, filled ones,
        conformed ones). `files`: the implicit values and rows of the files whose rows the
        batch holds, in order; `implicit` keeps the last one's file columns between its
        batches."""
        n = batch.num_rows
        values = files[-1][0]
        schema = self.tracker.output_schema()
        plan = self._plan(batch.schema)

        def make(step: tuple[str, int] | _Conform) -> pa.Array:
            if isinstance(step, _Conform):
                if step.reader is None:
                    return fill_column(n, step.field)
                return conform(batch.column(step.reader), step.field.type)
            if len(files) > 1:
                # a batch small files share: each file's values for its rows
                parts = [implicit_column(v.get(step), rows) for v, rows in files if rows]
                return pa.concat_arrays(parts)
            # a file column: built once per file for its longest batch so far; a full batch
            # takes a slice of it, a small one (its last) its own array: the coalescer
            # bounds a small batch's bytes, and a slice holds the whole buffers
            built = implicit.get(step)
            if built is None or len(built) < n:
                built = implicit[step] = implicit_column(values.get(step), n)
            if len(built) != n:
                built = built.slice(0, n) if full else implicit_column(values.get(step), n)
            return built

        made = [(at, make(step)) for at, step in plan.made]
        if not plan.steps:
            # an empty projection (COUNT(*)): the batch is only its row count
            empty = pa.StructArray.from_buffers(pa.struct([]), n, [None])
            return pa.RecordBatch.from_struct_array(empty), []
        if len(made) <= _FEW_MADE:
            # the reader's columns taken whole, in C++: wrapping each in Python costs a
            # wide schema's small batches more than reading them
            out = batch if plan.takes_all else batch.select(plan.taken)
            for at, array in made:
                out = out.add_column(at, schema.field(at), array)
            if out.schema.equals(schema, check_metadata=True):
                return out, [array for _, array in made]
        arrays: list[pa.Array] = [None] * len(plan.steps)
        for at, array in made:
            arrays[at] = array
        for at, step in enumerate(plan.steps):
            if isinstance(step, int):
                arrays[at] = batch.column(step)
        return pa.RecordBatch.from_arrays(arrays, schema=schema), [a for _, a in made]
