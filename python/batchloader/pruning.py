"""File pruning: the files a query's filters on implicit columns rule out, never read.

Drill prunes partitions by `dirN`; here Spark (4.1+, with
`spark.sql.python.filterPushdown.enabled`) pushes a query's filters to the data source, and
a filter on a file column (`dir0 = '2024'`, `filename LIKE 'a%'`, `dir1 IS NULL`) has one
value per file: a file it makes false or null for every row is left out of the plan. Spark
still applies every filter to the rows it gets, so pruning only ever saves reading; a filter
this module cannot evaluate exactly (another column, a value that is not a string, a filter
class it does not know) keeps every file.

Filters are pyspark's `pyspark.sql.datasource` classes (`EqualTo`, `In`, `Not`...), told
apart by class name so that this module imports no pyspark.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

#: a filter's outcome that says nothing (a file it is asked about is kept)
UNKNOWN = object()

#: comparisons of a string column with a string, by filter class name (SQL on UTF-8
#: strings orders by code point, as Python's `str` does)
_COMPARE = {
    "EqualTo": lambda v, x: v == x,
    "GreaterThan": lambda v, x: v > x,
    "GreaterThanOrEqual": lambda v, x: v >= x,
    "LessThan": lambda v, x: v < x,
    "LessThanOrEqual": lambda v, x: v <= x,
    "StringStartsWith": lambda v, x: v.startswith(x),
    "StringEndsWith": lambda v, x: v.endswith(x),
    "StringContains": lambda v, x: x in v,
}


def file_column(f: Any, columns: Mapping[str, Any]) -> str | None:
    """The lower-cased name of the implicit column filter `f` tests (`columns`: the scan's
    implicit columns by lower-cased name), or None if it tests anything else."""
    attribute = getattr(f, "attribute", None)
    if not isinstance(attribute, tuple) or len(attribute) != 1:
        return None
    name = str(attribute[0]).lower()
    return name if name in columns else None


def evaluate(f: Any, values: Mapping[str, str | None]) -> object:
    """Filter `f` for the rows of a file whose implicit columns hold `values` (by lower-cased
    name): True, False, None (SQL's null, which drops the row as False does) or `UNKNOWN`."""
    kind = type(f).__name__
    if kind == "Not":
        inner = evaluate(f.child, values)
        return inner if inner is None or inner is UNKNOWN else not inner
    name = file_column(f, values)
    if name is None:
        return UNKNOWN
    value = values[name]
    if kind == "IsNull":
        return value is None
    if kind == "IsNotNull":
        return value is not None
    if kind == "In":
        options = tuple(f.value)
        if not all(isinstance(x, str) or x is None for x in options):
            return UNKNOWN
        if value is None:
            return None
        if value in options:
            return True
        # `v IN (.., NULL)` is null, not false, where no option is equal
        return None if None in options else False
    if kind == "EqualNullSafe":
        return value == f.value if isinstance(f.value, str) or f.value is None else UNKNOWN
    compare = _COMPARE.get(kind)
    if compare is None or not isinstance(f.value, str):
        return UNKNOWN
    return None if value is None else compare(value, f.value)


def keeps(filters: Iterable[Any], values: Mapping[str, str | None]) -> bool:
    """Whether a file whose implicit columns hold `values` may have a row every filter keeps
    (the filters are ANDed): False only if one of them is false or null for the file."""
    return all(evaluate(f, values) in (True, UNKNOWN) for f in filters)


def prunable(filters: Sequence[Any], columns: Mapping[str, Any]) -> list[Any]:
    """The filters that test only implicit columns (`columns`, by lower-cased name):
    those `keeps` can decide."""
    out = []
    for f in filters:
        inner = f
        while type(inner).__name__ == "Not":
            inner = inner.child
        if file_column(inner, columns) is not None:
            out.append(f)
    return out
