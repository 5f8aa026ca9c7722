"""File pruning: the files a condition on file columns rules out, never read.

Drill prunes partitions by `dirN`. Here `batchloader.spark.read(..., where=...)` takes a SQL
condition; each file has one value per file column (`dir0`, `filename`..., or a hive-style
partition column, `month = 3`, compared as a number where it is one), and a file for
which the condition is false or null whatever its data columns hold is left out of the plan.
The DataFrame is still filtered by the whole condition, so pruning only ever saves reading.

The condition is read with sqlglot (Spark's dialect) and evaluated in SQL's three-valued
logic over the set of outcomes each part may have: a part this module cannot evaluate
exactly (a data column, a function, a number compared with `dir0`, a string literal with a
backslash escape) may be true, false or null, so it keeps every file unless another part
rules the file out for any of its outcomes.

(Spark 4.1 can push a query's filters to a Python data source, but it keeps the partitions
planned for one query and reuses them for a later query on the same DataFrame that has no
filter to push: pruned files would go missing from that query. Hence an explicit condition.)
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

#: a condition's possible outcomes: True, False and None (SQL's null)
Outcomes = frozenset[bool | None]
ANY: Outcomes = frozenset({True, False, None})

#: comparisons of a string with a string (SQL on UTF-8 strings orders by code point, as
#: Python's `str` does), and the comparison with its sides swapped
_COMPARE: dict[str, tuple[Callable[[str, str], bool], str]] = {
    "EQ": (lambda v, x: v == x, "EQ"),
    "NEQ": (lambda v, x: v != x, "NEQ"),
    "GT": (lambda v, x: v > x, "LT"),
    "GTE": (lambda v, x: v >= x, "LTE"),
    "LT": (lambda v, x: v < x, "GT"),
    "LTE": (lambda v, x: v <= x, "GTE"),
}


class _Unknown(Exception):
    """A part of the condition this module does not evaluate exactly."""


def parse(where: str) -> Any:
    """The condition `where` as a sqlglot expression (ValueError if it is not SQL)."""
    import sqlglot
    from sqlglot.errors import ParseError, TokenError

    try:
        return sqlglot.parse_one(where, read="spark")
    except (ParseError, TokenError) as e:
        raise ValueError(f"where={where!r} is not a SQL condition: {e}") from None


def keeps(condition: Any, values: Mapping[str, Any]) -> bool:
    """Whether a file whose file columns hold `values` (by lower-cased name) may have a row
    `condition` (from `parse`) keeps: False only if it is false or null for every row."""
    return True in outcomes(condition, values)


def outcomes(e: Any, values: Mapping[str, Any]) -> Outcomes:
    """What condition `e` may be for the rows of a file whose file columns hold `values`."""
    from sqlglot import exp

    if isinstance(e, exp.Paren):
        return outcomes(e.this, values)
    if isinstance(e, exp.Not):
        return frozenset(_not(x) for x in outcomes(e.this, values))
    if isinstance(e, (exp.And, exp.Or)):
        both = _and if isinstance(e, exp.And) else _or
        left, right = outcomes(e.this, values), outcomes(e.expression, values)
        return frozenset(both(a, b) for a in left for b in right)
    try:
        return frozenset({_leaf(e, values)})
    except _Unknown:
        return ANY


def _not(a: bool | None) -> bool | None:
    return None if a is None else not a


def _and(a: bool | None, b: bool | None) -> bool | None:
    if a is False or b is False:
        return False
    return None if a is None or b is None else True


def _or(a: bool | None, b: bool | None) -> bool | None:
    if a is True or b is True:
        return True
    return None if a is None or b is None else False


def _leaf(e: Any, values: Mapping[str, Any]) -> bool | None:
    """A comparison, `IN`, `IS NULL` or `LIKE` of a file column with literals: strings, or
    numbers for a hive partition column of numbers."""
    from sqlglot import exp

    kind = type(e).__name__
    if kind in _COMPARE:
        compare, swapped = _COMPARE[kind]
        if isinstance(e.this, exp.Literal):  # '2024' < dir0 is dir0 > '2024'
            compare = _COMPARE[swapped][0]
            column, literal = e.expression, e.this
        else:
            column, literal = e.this, e.expression
        value = _file_value(column, values)
        if value is None:
            return None  # null, whatever it is compared with
        return compare(*_comparable(value, literal))
    if isinstance(e, exp.NullSafeEQ):
        value = _file_value(e.this, values)
        if isinstance(e.expression, exp.Null) or value is None:
            return value is None and isinstance(e.expression, exp.Null)
        mine, other = _comparable(value, e.expression)
        return mine == other
    if isinstance(e, exp.Is) and isinstance(e.expression, exp.Null):
        return _file_value(e.this, values) is None
    if isinstance(e, exp.In) and not e.args.get("query"):
        value = _file_value(e.this, values)
        options = [x for x in e.expressions if not isinstance(x, exp.Null)]
        if value is None:
            return None
        if any(mine == other for mine, other in (_comparable(value, x) for x in options)):
            return True
        # `v IN ('a', NULL)` is null, not false, where v is not 'a'
        return None if len(options) < len(e.expressions) else False
    if isinstance(e, exp.Like) and not e.args.get("escape"):
        value = _file_value(e.this, values)
        pattern = _like(_text(e.expression))
        if value is not None and not isinstance(value, str):
            raise _Unknown
        return None if value is None else pattern.fullmatch(value) is not None
    raise _Unknown


def _comparable(value: Any, literal: Any) -> tuple[Any, Any]:
    """A file column's value and a literal as two values of one kind, compared as SQL
    compares them: strings with string literals; a hive partition column's numbers with
    number literals (a double as a double, others exactly); anything else is unknown."""
    if isinstance(value, str):
        return value, _text(literal)
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
        raise _Unknown  # a date, a timestamp: Spark's casts are not taken on here
    number = _number(literal)
    if isinstance(value, float):
        if math.isnan(value):
            raise _Unknown  # NaN orders above every number in Spark
        return value, float(number)
    return Decimal(value), number


def _number(e: Any) -> Decimal:
    """The number a literal spells (`-5` too), exactly."""
    from sqlglot import exp

    sign = 1
    if isinstance(e, exp.Neg):
        e, sign = e.this, -1
    if not isinstance(e, exp.Literal) or e.is_string:
        raise _Unknown
    try:
        return sign * Decimal(str(e.this))
    except InvalidOperation:
        raise _Unknown from None


def _file_value(e: Any, values: Mapping[str, Any]) -> Any:
    """The value of the file column `e` names (unqualified, any case)."""
    from sqlglot import exp

    if not isinstance(e, exp.Column) or e.table:
        raise _Unknown
    name = e.name.lower()
    if name not in values:
        raise _Unknown
    return values[name]


def _text(e: Any) -> str:
    """The string a literal spells; a backslash (an escape Spark decodes) is left unknown."""
    from sqlglot import exp

    if not isinstance(e, exp.Literal) or not e.is_string or "\\" in e.this:
        raise _Unknown
    return str(e.this)


def _like(pattern: str) -> re.Pattern[str]:
    """A LIKE pattern (`%` any run of characters, `_` any one) as a regular expression."""
    parts = ("." if c == "_" else ".*" if c == "%" else re.escape(c) for c in pattern)
    return re.compile("".join(parts), re.DOTALL)
