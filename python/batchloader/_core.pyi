"""Type stubs of the native core (``batchloader._core``)."""

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from types import TracebackType
from typing import Any, Literal, Protocol, final

import pyarrow as pa
from typing_extensions import Self

from batchloader.errors import InputError

__all__ = [
    "BAD_LINES_KEPT",
    "CHARSETS",
    "COMPRESSED_SUFFIXES",
    "DEFAULT_ROW_LIMIT",
    "DEFAULT_VECTOR_BYTE_LIMIT",
    "JAVA_SHORT_IDS",
    "ArrowArrayExport",
    "BatchIterator",
    "BatchLoaderError",
    "ColumnWriter",
    "FileReader",
    "LoaderStateError",
    "ResultSetLoader",
    "RowTooLargeError",
    "RowWriter",
    "SchemaConflictError",
    "charset_named",
    "check_line_sep",
    "check_time_formats",
    "line_sep_splits",
    "local_path",
    "repeat_utf8",
    "spark_csv_type",
]

class BatchLoaderError(Exception):
    """Base class of every batchloader error."""

class LoaderStateError(BatchLoaderError):
    """The loader's lifecycle was misused (save without start, harvest twice, use after close)."""

class SchemaConflictError(BatchLoaderError):
    """A value of the wrong type, a duplicate column, a type the loader cannot write."""

class RowTooLargeError(BatchLoaderError):
    """A row that cannot fit even an empty batch; the row is discarded."""

_Row = Mapping[str, Any] | Sequence[Any]

class _Readable(Protocol):
    """A binary file object: `read(n)` gives up to `n` bytes, b"" at its end."""

    def read(self, n: int, /) -> bytes: ...

JAVA_SHORT_IDS: dict[str, str]
"""Java's `ZoneId.SHORT_IDS` (`"PST"`: `"America/Los_Angeles"`, `"EST"`: `"-05:00"`...):
the three-letter zone names Spark reads, in session time zones and timestamp texts."""

COMPRESSED_SUFFIXES: tuple[str, ...]
"""The suffixes (lower case) of the files `FileReader` decompresses (and cannot split):
`.gz`, `.bz2`, `.zst`, `.zstd`, `.deflate` (zlib), `.snappy` and `.lz4` (Hadoop's blocks,
as Spark writes them, or the codec's frame format)."""
CHARSETS: tuple[str, ...]
"""The charsets the built-in readers read a file's text in, by Spark's names:
`"utf-8"`, `"iso-8859-1"`, `"us-ascii"`."""
BAD_LINES_KEPT: int
"""How many bad lines a reader keeps the errors of (`FileReader.bad_lines`): the first."""
DEFAULT_ROW_LIMIT: int
"""The loader's `row_limit` when none is given."""
DEFAULT_VECTOR_BYTE_LIMIT: int
"""The loader's `vector_byte_limit` when none is given."""

@final
class ResultSetLoader:
    """Writes rows into Arrow buffers; hands back batches bounded by row and byte limits."""

    def __new__(
        cls,
        schema: pa.Schema | None = None,
        projection: Sequence[str] | None = None,
        row_limit: int = 65536,
        vector_byte_limit: int = 16 * 2**20,
        batch_byte_limit: int | None = None,
        limit: int | None = None,
        discover: bool | None = None,
        reserve: tuple[int, int, int] = ...,
        inferred: Sequence[str] | None = None,
        declared: Sequence[str] | None = None,
        text_guesses: Sequence[str] | None = None,
    ) -> Self:
        """`discover`: rows written with write_row/write_rows may add columns, typed from
        their first non-null value (default: True when no schema is given); a row that
        fails takes back the columns, element types and widenings it brought.
        `reserve`: (bytes per row, bytes per batch, largest buffer's bytes per row), default
        (0, 0, 0), kept free in every batch for columns added outside the loader, so they fit
        the limits too.
        `inferred`: top-level columns of `schema` typed from earlier data, not declared:
        with `discover`, their int64s (at any depth) widen to float64 when a float comes,
        as a discovered column's do.
        `declared`: columns of `schema` whose types the user gave, by top-level name or by
        path (`m.x`: that member and what it holds): the NDJSON reader writes any JSON
        value to a utf8 column in them, a non-string as its JSON text as the line has it
        (Spark's rule).
        `text_guesses`: paths (`x`, `m.x`, `l[]`, any case) of parts of `schema` whose utf8
        types were guesses a scan fixed (no value had shown them): the NDJSON reader writes
        any JSON value to their utf8 columns as a declared one's."""
    def fix_text_guesses(self, schema: pa.Schema, paths: Sequence[str]) -> None:
        """Make the parts of `schema` at `paths` (as `text_guesses` names them) take any
        JSON value as its text, adding each one the loader lacks: a scan tells the loader of
        a file being read which types its first batch fixed by guess."""
    def take_text_kept(self) -> list[tuple[str, int]]:
        """The values a reader kept as their JSON text in columns typed by a guess, by
        column path (`m.x`, `l[]`), in rows saved since the last call; the counts restart."""
    def take_wholes_rounded(self) -> list[tuple[str, int]]:
        """The whole numbers past int64 an NDJSON reader rounded to float64 in columns the
        data typed (digits lost), by column path, in rows saved since the last call; the
        counts restart."""
    def start_batch(self) -> bool:
        """Begin a batch; False once ``limit`` rows were harvested."""
    @property
    def writer(self) -> RowWriter:
        """The row writer."""
    def is_full(self) -> bool:
        """True at the row limit, or as soon as a value overflowed."""
    def harvest(self) -> pa.RecordBatch:
        """The completed batch (zero-copy); a pending overflow row stays for the next one."""
    def write_row(self, row: _Row) -> None:
        """start + set every column + save."""
    def write_rows(self, rows: Iterable[_Row]) -> BatchIterator:
        """Write every row; yield each batch when full and the last partial one at the end."""
    @property
    def row_count(self) -> int:
        """Rows of the batch being built (not counting a pending overflow row)."""
    @property
    def total_row_count(self) -> int:
        """Rows saved over the loader's life, including a pending overflow row."""
    @property
    def batch_count(self) -> int:
        """Batches harvested, plus one if the current batch has rows."""
    @property
    def batch_bytes(self) -> int:
        """Exported bytes of the batch being built."""
    @property
    def schema_version(self) -> int:
        """+1 for every projected column added, nested members too."""
    @property
    def schema(self) -> pa.Schema:
        """The schema of the projected columns as they stand now."""
    @property
    def ignored_columns(self) -> list[str]:
        """Top-level columns written but dropped by the projection (first-seen order)."""
    @property
    def closed(self) -> bool:
        """Whether the loader was closed."""
    def close(self) -> None:
        """Release the buffers; every later call raises LoaderStateError."""
    def __enter__(self) -> ResultSetLoader: ...
    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> Literal[False]: ...

@final
class RowWriter:
    """Writes one row at a time: ``start()``, set columns, ``save()``."""

    def start(self) -> bool:
        """Begin a row; False if the batch is full. An unsaved row is discarded."""
    def save(self) -> None:
        """Commit the row (columns not written are back-filled)."""
    def add_column(self, field: pa.Field) -> int:
        """Add a top-level column at any time; returns its index."""
    def __getitem__(self, key: str | int, /) -> ColumnWriter:
        """A column's writer by name (case-insensitive) or index."""
    def __len__(self) -> int: ...
    def is_full(self) -> bool:
        """Whether the batch is full."""

@final
class ColumnWriter:
    """Writes one column: scalar, struct, list or map."""

    def set(self, value: Any) -> None:
        """Write a whole Python value (None = null)."""
    def set_null(self) -> None:
        """Write NULL."""
    def append_bytes(self, data: bytes) -> None:
        """Extend the utf8/binary value being written."""
    def append(self, value: Any) -> None:
        """Append one element to a list (None = null element)."""
    def extend(self, values: Iterable[Any]) -> None:
        """Append every element of an iterable."""
    def save(self) -> None:
        """Commit the element written through ``.element``."""
    @property
    def element(self) -> ColumnWriter:
        """The element writer of a list (a map's entries: ``key``, ``value``)."""
    def __getitem__(self, key: str | int, /) -> ColumnWriter:
        """A struct member's writer by name (case-insensitive) or index."""
    def add_column(self, field: pa.Field) -> int:
        """Add a member to this struct; returns its index."""
    def __len__(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def kind(self) -> Literal["scalar", "struct", "list", "map"]: ...
    @property
    def is_projected(self) -> bool: ...

@final
class BatchIterator(Iterator[pa.RecordBatch]):
    """Pulls rows lazily, yields bounded batches."""

    def __iter__(self) -> BatchIterator: ...
    def __next__(self) -> pa.RecordBatch: ...

@final
class ArrowArrayExport:
    """A batch waiting to be imported through the Arrow PyCapsule interface."""

    def __arrow_c_array__(
        self, requested_schema: object | None = None
    ) -> tuple[object, object]: ...

def charset_named(name: str, option: str = "encoding") -> str:
    """The name of the charset `name` names among `CHARSETS` (Spark's `encoding`: one of
    them in any case; Spark 4 takes no alias); a `ValueError` naming `option` for any
    other."""

def check_line_sep(line_sep: str, multiline: bool = False, byte_range: bool = False) -> None:
    """Check `line_sep` (Spark's `lineSep`) for lines read with `multiline` or not, in a
    byte range or not: a `ValueError` says why it cannot end them (empty, with `multiline`,
    or in a byte range where `line_sep_splits` says no)."""

def line_sep_splits(line_sep: str) -> bool:
    """Whether a file of lines ended by `line_sep` can be read in byte ranges: no match of
    it can start inside another (it does not begin as it ends, as `||` or `aba` do), so a
    range finds where its lines start. `\r\n`, `<>` and any one byte can."""

def check_time_formats(
    date_format: str | None = None,
    timestamp_format: str | None = None,
    timestamp_ntz_format: str | None = None,
) -> None:
    """Check date and timestamp patterns (Java's, as Spark's `dateFormat`,
    `timestampFormat` and `timestampNTZFormat` take them): a `ValueError` names what in
    one the readers do not take."""

def spark_csv_type(
    texts: Sequence[str | None],
    timestamp_format: str | None = None,
    nan_value: str | None = None,
    positive_inf: str | None = None,
    negative_inf: str | None = None,
    date_format: str | None = None,
    prefer_date: bool = True,
) -> str:
    """The Spark DDL type (`int`, `bigint`, `decimal(p,0)`, `double`, `timestamp`,
    `boolean`, `date`, `string`) Spark's CSV inference (`inferSchema`) gives a column of
    these field texts (None or empty: no value), dates and timestamps tried by
    `date_format` (else `yyyy-MM-dd`) and `timestamp_format` where given (dates only if
    `prefer_date`, Spark's `preferDate`), NaN and the infinities spelled `nan_value`...
    (Spark's `NaN`, `Inf`, `-Inf` unless given)."""

def local_path(path: str) -> str:
    """The local path a local path or `file:` URI names (`file:///a%20b`,
    `file://localhost/a`, Hadoop's `file:/a`, %-escapes decoded); `ValueError` for another
    host or a URI of a path that is not absolute."""

def repeat_utf8(value: str, n: int) -> pa.StringArray | None:
    """`n` copies of `value` as a utf8 array, built in one pass (a scan's implicit file
    column); `None` if their bytes would pass what utf8's 32-bit offsets address."""

@final
class FileReader:
    """Reads one NDJSON or CSV file (plain, or compressed: `COMPRESSED_SUFFIXES`) into a
    loader, a batch at a time.

    CSV: with `header=True` columns by name, else one `columns` list<utf8> column.
    `byte_range=(start, end)`: only the lines of an uncompressed file that start in
    `[start, end)` (one split of a file read by several tasks). `retype_nulls=True` (NDJSON):
    a column null in a whole batch, which goes out with the null type, takes its type from a
    value in a later batch (for scans that allow schema changes). `one_pass=False` (NDJSON):
    every line goes through the general path instead of being tried on the one-pass path
    first (for checking that both read a file alike). `opener`: a callable `opener(offset)`
    returning a file object (`read(n) -> bytes`) at byte `offset` of the file `path` names
    (a remote file, say), called for each read of it; without it `path` is a local file.
    `multiline=True` (NDJSON, read whole): the file holds JSON documents rather than lines
    (Spark's `multiLine`): a top-level array of objects, or objects over several lines one
    after the other; each object is a row, and errors give the file's line and column.
    `null_values` (CSV only): field texts, quoted or not, read as nulls in any column
    (`[""]`: empty fields are null, as Spark reads them). `null_type` (NDJSON, default utf8):
    the type of a field null in a whole batch and of the elements of a list only empty (a
    guess; a utf8 one later takes any value as its JSON text). `json_conventions` (NDJSON):
    `"arrow"` (the default) converts a whole number into a timestamp column as a count of
    the column's unit since the epoch (a date: days) and keeps a string's UTF-8 bytes in a
    binary column; `"spark"` reads them as Spark's JSON reader does: seconds into a
    timestamp with a time zone, a number into a date or a zone-less timestamp refused (and a
    text with a UTC offset into the latter), a binary value from its base64 string, `"NaN"`
    and the infinities Spark spells as floats in a float column, strings in single quotes
    (Spark's `allowSingleQuotes`), a line that is an array of objects as a row per object, a
    whole number's text into a date as days, and the date and timestamp texts Spark takes
    besides ISO-8601 (`"2024-1-2 3:04"`, a date from `"2024-01-02T03:04:05Z"`, a zone after
    the clock: `"... PST"`, `"...+1"`), and rounds a decimal with more fractional digits
    than its column's scale half up (Arrow's refuse it). `csv_conventions` (CSV): `"spark"`
    reads those date and timestamp texts and decimals as Spark's CSV reader does; `"arrow"`
    (the default) ISO-8601's only, and names a header's empty names `column<n>` and refuses
    a name given twice, where `"spark"` names them as Spark does (`_c<i>`; `a0`, `a3`), and,
    without `null_values`, reads empty fields as nulls and takes a record with fewer fields
    than the header as bad (Arrow's: its missing fields null), as Spark's CSV reader
    does. `comment` (CSV, one byte): lines that start with it are skipped wherever a record
    or the header could start (Spark's `comment`); a line that starts with a space, or a
    field that starts with it, is data. `names` (CSV without a header): the columns its
    fields go to, by position, as a header's names would take them (Spark maps a schema
    onto such a file so); without them, a file without a header is Drill's `columns`
    list. With a header, `names` need `enforce_schema` (Spark's `enforceSchema`): True, they
    take the fields and the header is read past; False, the same once the header is found to
    give them, in any case, at every position and as many (or at `checked_fields` only),
    else the file is refused (an `InputError`, whatever `on_error` says); a `byte_range`
    past the header does not check it. `empty_strings_as_nulls` (NDJSON): `""` reads as a
    null wherever it is, so it types no column, as Spark's JSON inference takes it (for a
    sample that types columns). NDJSON lines end at `\\n` under
    `json_conventions="arrow"` (JSON Lines' rule: a lone `\\r` is white space) and at
    `\\n`, `\\r` or `\\r\\n` under `"spark"` (Hadoop's text lines, as Spark reads them);
    `line_sep` (Spark's `lineSep`, not empty) ends them at exactly its text, a `\\n` then
    being white space, and ends CSV records (under `csv_conventions="spark"`) as Spark's
    CSV reader with `lineSep` ends them: at the separator whatever the quotes, line breaks
    being text (not with `multiline`; with a `byte_range` only where `line_sep_splits`
    says a range finds its lines). `encoding` (Spark's): the file's text is `utf-8` (the default),
    `iso-8859-1` (each byte the character of its value) or `us-ascii` (a byte past ASCII
    read as U+FFFD), read as Java decodes it. NDJSON beyond the standard, as Spark's JSON
    reader options say:
    `allow_comments` (`allowComments`: `/* */` and `//` comments; not with `multiline`),
    `allow_numeric_leading_zeros` (`007` is 7), `allow_non_numeric_numbers` (`NaN`,
    `Infinity`...: on; off they are bad input), `allow_single_quotes` (None: under Spark's
    conventions only). `nan_value`, `positive_inf`, `negative_inf` (CSV): the texts a float
    field spells NaN and the infinities with, each matched whole (Spark's `nanValue`,
    `positiveInf`, `negativeInf`); under `csv_conventions="spark"` `NaN`, `Inf` and `-Inf`
    unless given, besides what Java's parser reads (`Infinity`...). Under
    `csv_conventions="spark"` only: `ignore_leading_whitespace` and
    `ignore_trailing_whitespace` (Spark's `ignoreLeadingWhiteSpace`...) drop the whitespace
    (bytes up to the space) before a field, where a quote then opens a quoted one, and
    after an unquoted one; `empty_value` (Spark's `emptyValue`) is the text a quoted empty
    field (`""`) reads as (a null text among `null_values` makes it null)."""

    def __new__(
        cls,
        path: str,
        format: Literal["ndjson", "csv"] = "ndjson",
        on_error: Literal["error", "skip", "permissive"] = "error",
        discover: bool = True,
        header: bool = False,
        delimiter: str = ",",
        quote: str = '"',
        escape: str | None = None,
        byte_range: tuple[int, int] | None = None,
        retype_nulls: bool = False,
        one_pass: bool = True,
        opener: Callable[[int], _Readable] | None = None,
        multiline: bool = False,
        null_values: Sequence[str] | None = None,
        null_type: pa.DataType | None = None,
        json_conventions: Literal["arrow", "spark"] = "arrow",
        csv_conventions: Literal["arrow", "spark"] = "arrow",
        date_format: str | None = None,
        timestamp_format: str | None = None,
        timestamp_ntz_format: str | None = None,
        corrupt_record_column: str = "_corrupt_record",
        comment: str | None = None,
        names: Sequence[str] | None = None,
        allow_comments: bool = False,
        allow_numeric_leading_zeros: bool = False,
        allow_non_numeric_numbers: bool = True,
        allow_single_quotes: bool | None = None,
        nan_value: str | None = None,
        positive_inf: str | None = None,
        negative_inf: str | None = None,
        ignore_leading_whitespace: bool = False,
        ignore_trailing_whitespace: bool = False,
        empty_value: str | None = None,
        enforce_schema: bool | None = None,
        checked_fields: Sequence[int] | None = None,
        empty_strings_as_nulls: bool = False,
        line_sep: str | None = None,
        encoding: str | None = None,
    ) -> Self: ...
    def fill(self, loader: ResultSetLoader) -> bool:
        """Fill the loader's current batch; True if it filled up and input remains."""
    @property
    def skipped_lines(self) -> int: ...
    @property
    def corrupt_lines(self) -> int: ...
    @property
    def bad_lines(self) -> list[InputError]:
        """The first `BAD_LINES_KEPT` records skipped or kept as bad, each as the error it
        would have raised (why, and which file, line and column)."""
    @property
    def lines_read(self) -> int: ...
    @property
    def rows_written(self) -> int: ...
    @property
    def one_pass_lines(self) -> int:
        """NDJSON lines the one-pass path wrote (0 for CSV)."""
    def stop_adding_columns(self) -> None:
        """From the next record on, NDJSON fields without a column are skipped and noted
        (`ignored_columns`, struct members in `ignored_members`) rather than made columns."""
    @property
    def ignored_columns(self) -> list[str]:
        """Top-level fields skipped because the loader's projection leaves them out."""
    @property
    def ignored_members(self) -> list[str]:
        """Struct members (by path, `m.x`) the projection wants but the loader's fixed
        schema lacks (or met after `stop_adding_columns`), skipped, in first-seen order."""
