"""Hypothesis strategies: random nested Arrow schemas, rows for them, and the back-fill oracle.

`expected(row, schema)` applies DESIGN.md's back-fill rules to a generated row (omitted
nullable values -> None, non-nullable -> zero / "" / [] / {} / struct of back-filled members),
so `pa.Table.from_pylist([expected(r) ...], schema)` is what the loader must produce.
"""

from __future__ import annotations

import datetime as dt
import decimal
from typing import Any

import pyarrow as pa
from hypothesis import strategies as st

OMIT = object()  # a struct member / column left out of the row

SCALAR_TYPES = [
    pa.bool_(),
    pa.int8(),
    pa.int32(),
    pa.int64(),
    pa.uint16(),
    pa.float64(),
    pa.float32(),
    pa.utf8(),
    pa.large_utf8(),
    pa.binary(),
    pa.date32(),
    pa.timestamp("us"),
    pa.timestamp("ms", tz="UTC"),
    pa.decimal128(10, 2),
]

EPOCH = dt.datetime(1970, 1, 1)


#: names a projection path must quote (`.`, `[`, a backquote, a space, the empty name) or
#: that differ from a plain one only by case, drawn now and then among the plain ones
AWKWARD_NAMES = ["a.b", "c[1]", "x`y", "sp ace", "", "Ünï", "C0"]


@st.composite
def _names(draw: st.DrawFn, n: int) -> list[str]:
    """`n` column names, unique case-insensitively (as the loader's are): mostly `c0`,
    `c1`..., now and then an awkward one."""
    pool = [f"c{i}" for i in range(n)]
    names = draw(
        st.lists(
            st.sampled_from(pool * 3 + AWKWARD_NAMES),
            min_size=n,
            max_size=n,
            unique_by=str.lower,
        )
    )
    return names


@st.composite
def fields(draw: st.DrawFn, depth: int = 3, name: str = "c0") -> pa.Field:
    """One random field, nested up to `depth` levels."""
    kinds = ["scalar"] * 4 + (["struct", "list", "large_list", "map"] if depth > 0 else [])
    kind = draw(st.sampled_from(kinds))
    nullable = draw(st.booleans())
    if kind == "scalar":
        t = draw(st.sampled_from(SCALAR_TYPES))
    elif kind == "struct":
        n = draw(st.integers(1, 3))
        t = pa.struct([draw(fields(depth - 1, nm)) for nm in draw(_names(n))])
    elif kind == "list":
        t = pa.list_(draw(fields(depth - 1, "item")))
    elif kind == "large_list":
        t = pa.large_list(draw(fields(depth - 1, "item")))
    else:
        value = draw(fields(depth - 1, "value"))
        t = pa.map_(pa.field("key", pa.utf8(), nullable=False), value)
    return pa.field(name, t, nullable=nullable)


@st.composite
def schemas(draw: st.DrawFn, max_columns: int = 5, depth: int = 3) -> pa.Schema:
    """A random schema of 1..max_columns columns nested up to `depth`."""
    n = draw(st.integers(1, max_columns))
    return pa.schema([draw(fields(depth, nm)) for nm in draw(_names(n))])


def _scalar_values(t: pa.DataType) -> st.SearchStrategy[Any]:
    if pa.types.is_boolean(t):
        return st.booleans()
    if pa.types.is_integer(t):
        info = {8: 2**7, 16: 2**15, 32: 2**31, 64: 2**63}[t.bit_width]
        if pa.types.is_unsigned_integer(t):
            return st.integers(0, 2 * info - 1)
        return st.integers(-info, info - 1)
    if pa.types.is_float32(t):
        return st.floats(width=32, allow_nan=False)
    if pa.types.is_floating(t):
        return st.floats(allow_nan=False)
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return st.text(max_size=12)
    if pa.types.is_binary(t):
        return st.binary(max_size=12)
    if pa.types.is_date32(t):
        return st.dates(min_value=dt.date(1, 1, 1))
    if pa.types.is_timestamp(t):
        tz = dt.timezone.utc if t.tz else None
        base = st.datetimes(min_value=dt.datetime(1800, 1, 1), max_value=dt.datetime(2200, 1, 1))
        if t.unit == "ms":
            base = base.map(lambda d: d.replace(microsecond=d.microsecond // 1000 * 1000))
        return base.map(lambda d: d.replace(tzinfo=tz)) if tz else base
    if pa.types.is_decimal(t):
        return st.decimals(min_value=-(10**7) + 1, max_value=10**7 - 1, places=2, allow_nan=False)
    raise AssertionError(f"no values for {t}")


def values(field: pa.Field, allow_omit: bool = True) -> st.SearchStrategy[Any]:
    """Random Python values for `field`: None (any field: the loader turns None into the
    back-fill value for non-nullable nested types), and OMIT where `allow_omit`."""
    t = field.type
    if pa.types.is_struct(t):
        members = [t.field(i) for i in range(t.num_fields)]
        base = st.fixed_dictionaries({m.name: values(m) for m in members}).map(
            lambda d: {k: v for k, v in d.items() if v is not OMIT}
        )
    elif pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_map(t):
        if pa.types.is_map(t):
            item = values(t.item_field, allow_omit=False)
            base = st.dictionaries(st.text(max_size=4), item, max_size=4)
        else:
            base = st.lists(values(t.value_field, allow_omit=False), max_size=4)
    else:
        base = _scalar_values(t)
    choices = [base]
    if field.nullable or not _is_scalar(t):
        choices.append(st.none())
    if allow_omit:
        choices.append(st.just(OMIT))
    return st.one_of(*choices)


def _is_scalar(t: pa.DataType) -> bool:
    return not (
        pa.types.is_struct(t)
        or pa.types.is_list(t)
        or pa.types.is_large_list(t)
        or pa.types.is_map(t)
    )


def rows(schema: pa.Schema, max_rows: int = 25) -> st.SearchStrategy[list[dict[str, Any]]]:
    """Rows (dicts; OMIT-ted columns left out) for `schema`."""
    row = st.fixed_dictionaries({f.name: values(f) for f in schema}).map(
        lambda d: {k: v for k, v in d.items() if v is not OMIT}
    )
    return st.lists(row, max_size=max_rows)


def zero(t: pa.DataType) -> Any:
    """The back-fill value of a non-nullable scalar."""
    if pa.types.is_boolean(t):
        return False
    if pa.types.is_integer(t) or pa.types.is_floating(t):
        return 0
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return ""
    if pa.types.is_binary(t):
        return b""
    if pa.types.is_date32(t):
        return dt.date(1970, 1, 1)
    if pa.types.is_timestamp(t):
        return EPOCH.replace(tzinfo=dt.timezone.utc) if t.tz else EPOCH
    if pa.types.is_decimal(t):
        return decimal.Decimal(0)
    raise AssertionError(t)


def expected_value(field: pa.Field, value: Any) -> Any:
    """What the loader stores for `value` (OMIT = not written) under the back-fill rules."""
    t = field.type
    missing = value is OMIT or value is None
    if missing and field.nullable:
        return None
    if pa.types.is_struct(t):
        given = {} if missing else value
        return {
            t.field(i).name: expected_value(t.field(i), given.get(t.field(i).name, OMIT))
            for i in range(t.num_fields)
        }
    if pa.types.is_map(t):
        if missing:
            return []
        return [(k, expected_value(t.item_field, v)) for k, v in value.items()]
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        if missing:
            return []
        return [expected_value(t.value_field, v) for v in value]
    if missing:
        return zero(t)
    return value


def expected(row: dict[str, Any], schema: pa.Schema) -> dict[str, Any]:
    """The row the loader must produce for `row`."""
    return {f.name: expected_value(f, row.get(f.name, OMIT)) for f in schema}


# JSON-like values of any type, nested in lists and dicts keyed x/y/z: few enough shapes that
# rows drawn from them keep meeting each other's keys, with types that conflict freely.
loose_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(-2, 2), st.text(max_size=3)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from("xyz"), inner, max_size=3),
    ),
    max_leaves=6,
)
