"""File pruning by pushed filters on implicit columns, against SQL's own answer.

The oracle is SQLite: a row holding a file's implicit values is kept by
`WHERE <the filter in SQL>` exactly when Spark would keep it (three-valued logic, `IN` with
a null, strings compared by code point), so `pruning.keeps` must say False only where SQLite
keeps no row.
"""

from __future__ import annotations

import os
import sqlite3

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from batchloader import pruning

datasource = pytest.importorskip("pyspark.sql.datasource")
if not hasattr(datasource, "EqualTo"):
    pytest.skip("filter pushdown arrived in Spark 4.1", allow_module_level=True)

COLUMNS = ["dir0", "dir1", "filename"]
# a few values, often prefixes, suffixes or parts of one another, so that filters often
# match; code points around and past ASCII
TEXT = st.sampled_from(["", "2", "20", "24", "202", "024", "2024", "2025", "Z", "é2", "\U0001f600"])
VALUE = st.one_of(st.none(), TEXT)

COMPARISONS = {
    "EqualTo": "{c} = ?",
    "GreaterThan": "{c} > ?",
    "GreaterThanOrEqual": "{c} >= ?",
    "LessThan": "{c} < ?",
    "LessThanOrEqual": "{c} <= ?",
    "EqualNullSafe": "{c} IS ?",
    # the value as often as the condition has `?`
    "StringStartsWith": "substr({c}, 1, length(?)) = ?",
    "StringEndsWith": "substr({c}, -length(?)) = ? OR length(?) = 0 AND {c} IS NOT NULL",
    "StringContains": "instr({c}, ?) > 0",
}


@st.composite
def filters(draw):
    """A pushed filter on one of COLUMNS (or, now and then, a data column `a`), under zero
    to two `Not`s, and its SQL with the parameters it takes."""
    f, sql, params = draw(comparisons())
    for _ in range(draw(st.sampled_from([0, 0, 1, 1, 2]))):
        f, sql = datasource.Not(f), f"NOT ({sql})"
    return f, sql, params


@st.composite
def comparisons(draw):
    """A filter on one column, its SQL and the parameters it takes."""
    kind = draw(st.sampled_from([*COMPARISONS, "In", "IsNull", "IsNotNull"]))
    column = draw(st.sampled_from([*COLUMNS, "a"]))
    attribute = (column.upper() if draw(st.booleans()) else column,)
    if kind in ("IsNull", "IsNotNull"):
        sql = f"{column} IS {'NOT ' if kind == 'IsNotNull' else ''}NULL"
        return getattr(datasource, kind)(attribute), sql, []
    if kind == "In":
        options = tuple(draw(st.lists(VALUE, min_size=1, max_size=3)))
        marks = ", ".join("?" * len(options))
        return datasource.In(attribute, options), f"{column} IN ({marks})", list(options)
    value = draw(TEXT if kind != "EqualNullSafe" else VALUE)
    sql = COMPARISONS[kind].format(c=column)
    return getattr(datasource, kind)(attribute, value), f"({sql})", [value] * sql.count("?")


def sqlite_keeps(values, conditions):
    """Whether SQLite's WHERE (the conditions ANDed) keeps a row holding the file's
    `values`; column `a` is data, a row for each of a few values (a filter on it may be
    true for one row, false for another)."""
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE TABLE t ({', '.join(COLUMNS)}, a)")
    row = [values[c] for c in COLUMNS]
    db.executemany("INSERT INTO t VALUES (?, ?, ?, ?)", [[*row, x] for x in (None, "", "2024")])
    where = " AND ".join(sql for sql, _ in conditions)
    params = [p for _, ps in conditions for p in ps]
    return db.execute(f"SELECT count(*) FROM t WHERE {where}", params).fetchone()[0] > 0


FILE = {"dir0": "2024", "dir1": None, "filename": "a.json"}


@settings(max_examples=max(2000, settings.default.max_examples))
# SQL's nulls: `NOT (v IN ('x', NULL))` is null, not true, where v is not 'x'
@example(
    FILE,
    [(datasource.Not(datasource.In(("dir0",), ("x", None))), "NOT (dir0 IN (?, ?))", ["x", None])],
)
@example(FILE, [(datasource.Not(datasource.EqualTo(("dir1",), "x")), "NOT (dir1 = ?)", ["x"])])
@example(FILE, [(datasource.EqualNullSafe(("dir1",), None), "dir1 IS ?", [None])])
@given(
    values=st.fixed_dictionaries({c: VALUE for c in COLUMNS}),
    pushed=st.lists(filters(), min_size=1, max_size=3),
)
def test_a_file_is_pruned_only_where_sql_keeps_none_of_its_rows(values, pushed):
    """`keeps` on the filters that test implicit columns (the others keep every file) is
    False only if SQL drops every row of a file with those values, and for a single
    filter it is exactly SQL's answer."""
    prunable = pruning.prunable([f for f, _, _ in pushed], {c: None for c in COLUMNS})
    keeps = pruning.keeps(prunable, values)
    on_files = [(sql, p) for f, sql, p in pushed if any(f is g for g in prunable)]
    if not keeps:
        assert not sqlite_keeps(values, [(sql, p) for _, sql, p in pushed])
    if len(on_files) == 1:
        assert keeps == sqlite_keeps(values, on_files)


def test_a_filter_that_cannot_be_decided_keeps_every_file():
    """Another column, a number compared with a file column, a nested column: no pruning."""
    values = {"dir0": "2024"}
    undecided = [
        datasource.EqualTo(("a",), "x"),
        datasource.EqualTo(("dir0",), 2024),
        datasource.In(("dir0",), (2023, "1")),
        datasource.EqualTo(("dir0", "x"), "2023"),
        datasource.Not(datasource.EqualTo(("dir0",), 2024)),
    ]
    for f in undecided:
        assert pruning.evaluate(f, values) is pruning.UNKNOWN
        assert pruning.keeps([f], values)
    assert pruning.prunable(undecided[:1] + undecided[3:4], values) == []


def test_the_plan_prunes_by_file_columns_only(tmp_path):
    """`ScanPlan.splits_kept` decides by the values of the output's implicit columns, under
    their own names (renamed, another partition prefix), and never by a data column that
    took a file column's name (the data wins it, as in a wildcard scan)."""
    from batchloader.spark import ScanPlan

    for folder, name in [("2023", "a.json"), ("2024", "b.json"), ("2024", "c.json")]:
        (tmp_path / folder).mkdir(exist_ok=True)
        (tmp_path / folder / name).write_text('{"x": 1, "filename": "data"}\n')
    plan = ScanPlan(str(tmp_path), partition_prefix="part", implicit_names={"fqn": "path"})
    assert set(plan.implicit_columns) == {"path", "filepath", "suffix", "part0"}
    kept = plan.splits_kept([datasource.EqualTo(("part0",), "2024")])
    assert sorted(os.path.basename(p) for p, _, _ in kept) == ["b.json", "c.json"]
    by_path = plan.splits_kept([datasource.EqualTo(("PATH",), str(tmp_path / "2023" / "a.json"))])
    assert [p for p, _, _ in by_path] == [str(tmp_path / "2023" / "a.json")]
    # `filename` is the data's column here: a filter on it prunes nothing
    assert (
        pruning.prunable([datasource.EqualTo(("filename",), "a.json")], plan.implicit_columns) == []
    )
    assert len(plan.splits_kept([datasource.IsNull(("part0",))])) == 0
