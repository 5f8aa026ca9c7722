"""Hive-style partition folders (`year=2024/month=01`) as typed columns, as Spark finds them.

`partition_style="hive"` on a scan turns the `key=value` folders between its root and its
files into columns named by the keys (where Drill's `dir0`, `dir1`... hold the folder names),
typed as Spark's partition discovery types them: every file's value of a key is tried as an
int, a long, a decimal without fraction digits, a double, a timestamp (`yyyy-MM-dd
HH:mm:ss[.S]`), a date (`yyyy-MM-dd`), else a string, and the column takes the type that
holds all of them by Spark's rules (an int and a double make a double; a long and a double, or
a date and an int, a string). `__HIVE_DEFAULT_PARTITION__` is null; `%XX` escapes are decoded.

The layout is found once for all of a scan's files (`HiveLayout.of`), so that a scan of some
of them (a Spark task's) types them the same way (`HiveLayout.typed`).
"""

from __future__ import annotations

import datetime as dt
import math
import os
import re
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation, localcontext
from typing import Any

import pyarrow as pa

from batchloader import locations

#: the folder value Hive and Spark write for a null partition value
DEFAULT_PARTITION_NAME = "__HIVE_DEFAULT_PARTITION__"

#: the precision of Spark's widest decimal
_MAX_PRECISION = 38

# Java's Integer.parseInt/Long.parseLong (any Unicode decimal digits, as Java takes them)
_WHOLE = re.compile(r"[+-]?\d+")
# Java's BigDecimal(String)
_BIG_DECIMAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
# Java's Double.parseDouble, after it trims what is at most a space from both ends
_JAVA_DOUBLE = re.compile(
    r"[+-]?(NaN|Infinity|(?P<dec>(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)[fFdD]?"
    r"|(?P<hex>0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?\d+)[fFdD]?)",
    re.ASCII,
)
# Spark's partition timestamp (`yyyy-MM-dd HH:mm:ss[.S]`) and date (`yyyy-MM-dd`) patterns
_TIMESTAMP = re.compile(r"(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d))?", re.ASCII)
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})", re.ASCII)
_ESCAPE = re.compile(r"%([0-9a-fA-F]{2})")

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


def unescape(text: str) -> str:
    """A folder name's `%XX` escapes decoded, one character each, as Spark decodes them."""
    return _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)


def split_folder(folder: str) -> tuple[str, str] | None:
    """(key, raw value) of a `key=value` folder name (split at its first `=`; the key
    unescaped, the value not yet), else None."""
    key, eq, raw = folder.partition("=")
    return (unescape(key), raw) if eq else None


@dataclass(frozen=True)
class PartitionValue:
    """A partition column's value for one file, with its column's type: a file column of
    the scan (`batchloader.schema.implicit_column` repeats it for a batch's rows)."""

    value: Any
    type: pa.DataType

    def column(self, n: int) -> pa.Array:
        """`n` copies of the value."""
        if self.value is None or pa.types.is_null(self.type):
            return pa.nulls(n, self.type)
        if isinstance(self.value, str):
            from batchloader.schema import implicit_column

            text = implicit_column(self.value, n)
            return text if text.type == self.type else text.cast(self.type)
        if isinstance(self.value, bool):
            bits = b"\xff" if self.value else b"\x00"
            return pa.Array.from_buffers(self.type, n, [None, pa.py_buffer(bits * (n // 8 + 1))])
        one = _physical(self.value, self.type)
        return pa.Array.from_buffers(self.type, n, [None, pa.py_buffer(one * n)])

    def room(self) -> tuple[int, int, int]:
        """What a column of it adds to a batch: bytes per row, per batch, per row of its
        largest buffer (see `batchloader.schema.null_column_bytes`)."""
        from batchloader.schema import implicit_column_bytes, null_column_bytes

        if isinstance(self.value, str):
            return implicit_column_bytes(self.value)
        if self.value is None or pa.types.is_null(self.type):
            return null_column_bytes(self.type)
        width = max(self.type.bit_width // 8, 1)
        return width + 1, 1, width


def _physical(value: Any, t: pa.DataType) -> bytes:
    """The bytes Arrow keeps for `value` of fixed-width type `t`."""
    if pa.types.is_decimal(t):
        with localcontext() as exact:
            exact.prec = 2 * _MAX_PRECISION
            unscaled = int(value.scaleb(t.scale))
        return unscaled.to_bytes(t.byte_width, "little", signed=True)
    if pa.types.is_date32(t):
        return struct.pack("<i", (value - dt.date(1970, 1, 1)).days)
    if pa.types.is_timestamp(t):
        per_second = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}[t.unit]
        micros = (value - _EPOCH) // dt.timedelta(microseconds=1)
        return struct.pack("<q", micros * per_second // 1_000_000)
    if pa.types.is_floating(t):
        return struct.pack({16: "<e", 32: "<f", 64: "<d"}[t.bit_width], value)
    if pa.types.is_integer(t):
        return value.to_bytes(t.bit_width // 8, "little", signed=pa.types.is_signed_integer(t))
    raise TypeError(f"not a fixed-width type: {t}")


def java_double(text: str) -> float | None:
    """`text` as Java's `Double.parseDouble` reads it (`1.5`, `2d`, `NaN`, `-Infinity`,
    `0x1p3`, space around it), else None."""
    i, j = 0, len(text)
    while i < j and text[i] <= " ":
        i += 1
    while j > i and text[j - 1] <= " ":
        j -= 1
    m = _JAVA_DOUBLE.fullmatch(text, i, j)
    if m is None:
        return None
    body = text[i:j]
    sign = -1.0 if body.startswith("-") else 1.0
    if "NaN" in body:
        return math.nan
    if "Infinity" in body:
        return sign * math.inf
    if m.group("hex") is not None:
        return sign * float.fromhex(m.group("hex"))
    return sign * float(m.group("dec"))


def _big_decimal(raw: str) -> Decimal | None:
    """`raw` as Spark's partition inference takes a decimal: Java's BigDecimal with no digit
    after the point once its exponent applies (`1e3`, `12345678901234567890`), at most 38
    digits; else None."""
    if _BIG_DECIMAL.fullmatch(raw) is None:
        return None
    try:
        d = Decimal(raw)
    except InvalidOperation:
        return None
    return d if 0 <= _scale_free_precision(d) <= _MAX_PRECISION else None


def _scale_free_precision(d: Decimal) -> int:
    """The digits of finite `d` written without a point (`1e3`: 4), or -1 if it has a
    digit after the point."""
    _, digits, exponent = d.as_tuple()
    assert isinstance(exponent, int), "a finite decimal"
    if exponent < 0:
        return -1
    significant = len("".join(map(str, digits)).lstrip("0")) or 1
    return significant + exponent


def _wall_clock(m: re.Match[str]) -> dt.datetime | None:
    """The date and time a `_TIMESTAMP` match spells, if it is one."""
    year, month, day, hour, minute, second, tenth = m.groups()
    try:
        return dt.datetime(
            int(year), int(month), int(day), int(hour), int(minute), int(second),
            int(tenth or 0) * 100_000,
        )  # fmt: skip
    except ValueError:
        return None


def _calendar_date(m: re.Match[str]) -> dt.date | None:
    try:
        return dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None


def infer_type(raw: str, time_zone: str) -> pa.DataType:
    """The type Spark's partition discovery gives one folder value (`raw`, escapes and
    all): null for `__HIVE_DEFAULT_PARTITION__`."""
    if raw == DEFAULT_PARTITION_NAME:
        return pa.null()
    if _WHOLE.fullmatch(raw):
        n = int(raw)
        if -(2**31) <= n < 2**31:
            return pa.int32()
        if -(2**63) <= n < 2**63:
            return pa.int64()
    d = _big_decimal(raw)
    if d is not None:
        return pa.decimal128(_scale_free_precision(d), 0)
    if java_double(raw) is not None:
        return pa.float64()
    m = _TIMESTAMP.fullmatch(unescape(raw))
    if m is not None and _wall_clock(m) is not None:
        return pa.timestamp("us", tz=time_zone)
    m = _DATE.fullmatch(raw)
    if m is not None and _calendar_date(m) is not None:
        return pa.date32()
    return pa.utf8()


def wider_type(a: pa.DataType, b: pa.DataType) -> pa.DataType:
    """The type two values' types make together, by Spark's rules for partition columns."""
    if a == b:
        return a
    if pa.types.is_null(a) or pa.types.is_null(b):
        return b if pa.types.is_null(a) else a
    exact = (pa.int32(), pa.int64())
    if a in exact and b in exact:
        return pa.int64()
    if _whole(a) and _whole(b):
        return pa.decimal128(min(max(_precision(a), _precision(b)), _MAX_PRECISION), 0)
    if pa.float64() in (a, b) and pa.int32() in (a, b):
        return pa.float64()
    temporal = {str(t): t for t in (a, b) if pa.types.is_timestamp(t) or pa.types.is_date32(t)}
    if len(temporal) == 2:
        return a if pa.types.is_timestamp(a) else b
    return pa.utf8()  # a long or a decimal with a double too: neither holds the other


def _whole(t: pa.DataType) -> bool:
    return t in (pa.int32(), pa.int64()) or (pa.types.is_decimal(t) and t.scale == 0)


def _precision(t: pa.DataType) -> int:
    if t == pa.int32():
        return 10
    if t == pa.int64():
        return 20
    return int(t.precision)


def convert(raw: str, t: pa.DataType) -> Any:
    """Folder value `raw` as a value of column type `t` (inferred, or given by a schema);
    ValueError if it is none."""
    if raw == DEFAULT_PARTITION_NAME or pa.types.is_null(t):
        return None
    text = unescape(raw)
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return text
    if pa.types.is_integer(t):
        if _WHOLE.fullmatch(text.strip()):
            n = int(text)
            lowest = -(2 ** (t.bit_width - 1)) if pa.types.is_signed_integer(t) else 0
            if lowest <= n < lowest + 2**t.bit_width:
                return n
    elif pa.types.is_decimal(t):
        try:
            d = Decimal(text.strip())
        except InvalidOperation:
            d = None
        if d is not None and d.is_finite() and _BIG_DECIMAL.fullmatch(text.strip()):
            with localcontext() as exact:
                exact.prec = 2 * _MAX_PRECISION
                scaled = d.quantize(Decimal(1).scaleb(-t.scale))
            if scaled == d and len(scaled.as_tuple().digits) <= t.precision:
                return scaled
    elif pa.types.is_floating(t):
        x = java_double(text)
        if x is not None:
            return x
    elif pa.types.is_boolean(t):
        flag = {"true": True, "false": False}.get(text.strip().lower())
        if flag is not None:
            return flag
    elif pa.types.is_date32(t):
        m = _DATE.fullmatch(text.strip())
        day = _calendar_date(m) if m else None
        if day is not None:
            return day
    elif pa.types.is_timestamp(t):
        clock = _timestamp_text(text.strip())
        if clock is not None:
            return instant_in_zone(clock, t.tz)
    else:
        raise ValueError(f"a partition column cannot be {t} (a schema gave it)")
    raise ValueError(f"folder value {raw!r} is no {t}")


def _timestamp_text(text: str) -> dt.datetime | None:
    """A date and time (`2024-01-05 10:00:00`, `T` too, any fraction) or a date (midnight)."""
    m = _DATE.fullmatch(text)
    if m is not None:
        day = _calendar_date(m)
        return None if day is None else dt.datetime(day.year, day.month, day.day)
    return iso_clock(text)


# a date and time as ISO-8601 writes it (what Python 3.11's fromisoformat reads, and 3.10's
# does not: any number of fraction digits, `Z`)
_ISO_CLOCK = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?"
    r"(Z|[+-]\d{2}(?::?\d{2})?)?",
    re.ASCII,
)


def iso_clock(text: str) -> dt.datetime | None:
    """`2024-01-05T10:00`, `2024-01-05 10:00:00.5`, `...+02:00`, `...Z` as a datetime (aware
    where the text has an offset), else None."""
    m = _ISO_CLOCK.fullmatch(text)
    if m is None:
        return None
    year, month, day, hour, minute, second, fraction, zone = m.groups()
    micros = int((fraction or "0")[:6].ljust(6, "0"))
    tz = None
    if zone == "Z":
        tz = dt.timezone.utc
    elif zone:
        digits = zone[1:].replace(":", "")
        minutes = int(digits[:2]) * 60 + int(digits[2:] or 0)
        tz = dt.timezone(dt.timedelta(minutes=-minutes if zone[0] == "-" else minutes))
    try:
        return dt.datetime(
            int(year), int(month), int(day), int(hour), int(minute), int(second or 0), micros,
            tzinfo=tz,
        )  # fmt: skip
    except ValueError:
        return None


def instant_in_zone(clock: dt.datetime, tz: str | None) -> dt.datetime:
    """A wall clock (or an instant) as an instant: in zone `tz` (UTC for a type without)."""
    if clock.tzinfo is not None:
        return clock
    if tz is None or tz.upper() in ("UTC", "Z", "+00:00"):
        return clock.replace(tzinfo=dt.timezone.utc)
    from zoneinfo import ZoneInfo

    offset = re.fullmatch(r"([+-])(\d{2}):(\d{2})", tz)
    if offset is not None:
        sign = -1 if offset.group(1) == "-" else 1
        minutes = sign * (int(offset.group(2)) * 60 + int(offset.group(3)))
        return clock.replace(tzinfo=dt.timezone(dt.timedelta(minutes=minutes)))
    return clock.replace(tzinfo=ZoneInfo(tz))


@dataclass(frozen=True)
class HiveLayout:
    """The partition columns of a scan's `key=value` folders: their names (as the first
    file spells them; keys are case-insensitive) and types."""

    names: tuple[str, ...] = ()
    types: tuple[pa.DataType, ...] = ()

    @classmethod
    def of(
        cls,
        files: Sequence[str],
        root: str | None,
        time_zone: str = "UTC",
        declared: Mapping[str, pa.DataType] | None = None,
    ) -> HiveLayout:
        """The layout of `files` below `root`, each column typed from all their values (or
        by `declared`, by lower-cased name: a schema's types). ValueError, naming the
        files, where they disagree (other keys, or partition folders under other folders)
        or a folder has an empty key or value."""
        if root is None or not files:
            return cls()
        found = [(f, _partition_folders(f, root)) for f in files]
        first_file, (first_above, first_pairs) = found[0]
        for f, (above, pairs) in found[1:]:
            keys = [k.lower() for k, _ in pairs]
            if above != first_above and (pairs or first_pairs):
                raise ValueError(
                    f"files {first_file} and {f} have their partition folders under other "
                    f"folders ({'/'.join(first_above) or 'the root'} and "
                    f"{'/'.join(above) or 'the root'}): name the folder above the "
                    "key=value folders with root=, or read with partition_style='drill'"
                )
            if keys != [k.lower() for k, _ in first_pairs]:
                raise ValueError(
                    f"files {first_file} and {f} have other partition columns "
                    f"({_keys(first_pairs)} and {_keys(pairs)}): every file of a hive-style "
                    "scan lies in folders of the same keys, in the same order"
                )
        names = tuple(k for k, _ in first_pairs)
        declared = declared or {}
        types: list[pa.DataType] = []
        for i, name in enumerate(names):
            given = declared.get(name.lower())
            if given is not None:
                types.append(given)
                continue
            merged = pa.null()
            for raw in dict.fromkeys(pairs[i][1] for _, (_, pairs) in found):
                merged = wider_type(merged, infer_type(raw, time_zone))
            types.append(merged)
        for i, name in enumerate(names):
            if name.lower() in declared:  # a type every value of the folders must take
                for f, (_, pairs) in found:
                    _convert_in(f, pairs[i], types[i])
        return cls(names, tuple(types))

    @classmethod
    def typed(cls, fields: pa.Schema) -> HiveLayout:
        """The layout whose columns are `fields` (found by `of` for a scan of more files)."""
        return cls(tuple(fields.names), tuple(fields.types))

    def schema(self) -> pa.Schema:
        """The partition columns as fields."""
        return pa.schema([pa.field(n, t) for n, t in zip(self.names, self.types, strict=True)])

    def index(self, name: str) -> int | None:
        """The position of partition column `name` (any case), if it is one."""
        low = name.lower()
        return next((i for i, n in enumerate(self.names) if n.lower() == low), None)

    def values(self, path: str, root: str) -> list[PartitionValue]:
        """File `path`'s partition values, in column order."""
        _, pairs = _partition_folders(path, root)
        if [k.lower() for k, _ in pairs] != [n.lower() for n in self.names]:
            raise ValueError(
                f"file {path} lies in partition folders of {_keys(pairs)}, not of the "
                f"scan's partition columns {list(self.names)}"
            )
        return [
            PartitionValue(_convert_in(path, pair, t), t)
            for pair, t in zip(pairs, self.types, strict=True)
        ]


def _convert_in(path: str, pair: tuple[str, str], t: pa.DataType) -> Any:
    """`convert` of a (key, raw value) folder of file `path`, whose error names both."""
    key, raw = pair
    try:
        return convert(raw, t)
    except ValueError as e:
        raise ValueError(f"file {path}: partition column {key!r}: {e}") from None


def _keys(pairs: list[tuple[str, str]]) -> list[str]:
    return [k for k, _ in pairs]


def _partition_folders(path: str, root: str) -> tuple[list[str], list[tuple[str, str]]]:
    """The folders from `root` down to file `path` that lie above its partition folders,
    and the (key, raw value) of those: the `key=value` folders nearest the file, past
    folders of other names right above the file (which Spark passes over too)."""
    from batchloader.schema import folders_below

    folders = folders_below(os.path.dirname(locations.absolute(path)), root)
    while folders and split_folder(folders[-1]) is None:
        folders.pop()
    pairs: list[tuple[str, str]] = []
    while folders and (pair := split_folder(folders[-1])) is not None:
        key, raw = pair
        if not key or not raw:
            where = "column name" if not key else "value"
            raise ValueError(
                f"file {path} lies in partition folder {folders[-1]!r}, whose {where} is "
                "empty (a key=value folder names both)"
            )
        pairs.insert(0, pair)
        folders.pop()
    return folders, pairs
