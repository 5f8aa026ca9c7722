"""File pruning by a `where` condition on file columns, against SQL's own answer.

The oracle is SQLite: rows holding a file's column values, and a data column `a` with a few
values, are kept by `WHERE <the condition>` exactly as Spark would keep them (three-valued
logic, `IN` with a null, strings compared by code point, case-sensitive LIKE). So
`pruning.keeps` must say False only where SQLite keeps no row, and, for a condition on file
columns only, exactly what SQLite says.
"""

from __future__ import annotations

import os
import sqlite3

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from batchloader import pruning

pytest.importorskip("sqlglot")

COLUMNS = ["dir0", "dir1", "filename"]
# a few values, often prefixes, suffixes or parts of one another, so that conditions often
# match; code points around and past ASCII
TEXT = st.sampled_from(
    ["", "2", "20", "24", "202", "024", "2024", "2025", "Z", "z", "é2", "\U0001f600"]
)
VALUE = st.one_of(st.none(), TEXT)
PATTERN = st.text(alphabet=["2", "0", "4", "%", "_", "é", "z", "Z"], max_size=4)


def quoted(text):
    return "NULL" if text is None else "'" + text.replace("'", "''") + "'"


@st.composite
def conditions(draw, depth=0):
    """A condition as (Spark SQL, SQLite SQL, whether it tests the data column): comparisons,
    IN, IS [NOT] NULL, LIKE and `<=>` on the file columns (any case) or, now and then, on a
    data column `a`, under AND, OR and NOT."""
    if depth < 2 and draw(st.integers(0, 2)) == 0:
        op = draw(st.sampled_from(["AND", "OR", "NOT"]))
        left = draw(conditions(depth + 1))
        if op == "NOT":
            return f"NOT ({left[0]})", f"NOT ({left[1]})", left[2]
        right = draw(conditions(depth + 1))
        both = f"({left[0]}) {op} ({right[0]})", f"({left[1]}) {op} ({right[1]})"
        return (*both, left[2] or right[2])
    column = draw(st.sampled_from([*COLUMNS, "a"]))
    return (*draw(comparison_of(column)), column == "a")


@st.composite
def comparison_of(draw, column):
    """One test of `column`, as (Spark SQL, SQLite SQL)."""
    spelled = column.upper() if draw(st.booleans()) else column
    kind = draw(st.sampled_from(["cmp", "cmp", "in", "null", "like", "nullsafe"]))
    if kind == "cmp":
        op = draw(st.sampled_from(["=", "!=", "<>", "<", "<=", ">", ">="]))
        value = quoted(draw(TEXT))
        if draw(st.booleans()):  # the literal first: '2024' < dir0
            flipped = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}.get(op, op)
            return f"{value} {flipped} {spelled}", f"{value} {flipped} {column}"
        return f"{spelled} {op} {value}", f"{column} {op} {value}"
    if kind == "in":
        options = ", ".join(quoted(v) for v in draw(st.lists(VALUE, min_size=1, max_size=3)))
        return f"{spelled} IN ({options})", f"{column} IN ({options})"
    if kind == "null":
        negated = "NOT " if draw(st.booleans()) else ""
        return f"{spelled} IS {negated}NULL", f"{column} IS {negated}NULL"
    if kind == "like":
        pattern = quoted(draw(PATTERN))
        return f"{spelled} LIKE {pattern}", f"{column} LIKE {pattern}"
    value = quoted(draw(VALUE))
    return f"{spelled} <=> {value}", f"{column} IS {value}"


def sqlite_keeps(values, condition):
    """Whether SQLite's WHERE keeps a row holding the file's `values`, for any of a few
    values of the data column `a`."""
    db = sqlite3.connect(":memory:")
    db.execute("PRAGMA case_sensitive_like = ON")  # Spark's LIKE is case-sensitive
    db.execute(f"CREATE TABLE t ({', '.join(COLUMNS)}, a)")
    row = [values[c] for c in COLUMNS]
    db.executemany("INSERT INTO t VALUES (?, ?, ?, ?)", [[*row, x] for x in (None, "", "2024")])
    return db.execute(f"SELECT count(*) FROM t WHERE {condition}").fetchone()[0] > 0


FILE = {"dir0": "2024", "dir1": None, "filename": "a.json"}


@settings(max_examples=max(2000, settings.default.max_examples))
# SQL's nulls: `NOT (v IN ('x', NULL))` is null, not true, where v is not 'x'
@example(FILE, ("NOT (dir0 IN ('x', NULL))", "NOT (dir0 IN ('x', NULL))", False))
@example(FILE, ("NOT (dir1 = 'x')", "NOT (dir1 = 'x')", False))
@example(FILE, ("dir1 <=> NULL", "dir1 IS NULL", False))
@example({**FILE, "dir0": "Z"}, ("dir0 LIKE 'z%'", "dir0 LIKE 'z%'", False))  # case-sensitive
@example(FILE, ("(a = 'x') OR NOT (dir0 = '2024')", "(a = 'x') OR NOT (dir0 = '2024')", True))
@given(values=st.fixed_dictionaries({c: VALUE for c in COLUMNS}), condition=conditions())
def test_a_file_is_pruned_only_where_sql_keeps_none_of_its_rows(values, condition):
    """`keeps` is False only if SQL drops every row of a file with those values, and, for a
    condition on file columns only, it is exactly SQL's answer."""
    spark_sql, sqlite_sql, tests_data = condition
    keeps = pruning.keeps(pruning.parse(spark_sql), values)
    want = sqlite_keeps(values, sqlite_sql)
    if not keeps:
        assert not want, spark_sql
    if not tests_data:
        assert keeps == want, spark_sql


def test_what_cannot_be_decided_keeps_every_file():
    """A data column, a number compared with `dir0`, a qualified or nested column, a
    function, a literal with a backslash escape, LIKE with an ESCAPE clause: no pruning,
    unless another part rules the file out whatever they are."""
    values = {"dir0": "2024"}
    for condition in [
        "a = 'x'",
        "dir0 = 2024",
        "t.dir0 = '2023'",
        "upper(dir0) = '2023'",
        "dir0 = '20\\\\23'",
        "dir0 LIKE '2023' ESCAPE '!'",
        "dir0 IN (SELECT x FROM t)",
    ]:
        assert pruning.outcomes(pruning.parse(condition), values) == pruning.ANY, condition
        assert pruning.keeps(pruning.parse(condition), values)
    assert not pruning.keeps(pruning.parse("a = 'x' AND dir0 = '2023'"), values)
    assert pruning.keeps(pruning.parse("a = 'x' OR dir0 = '2023'"), values)
    with pytest.raises(ValueError, match="is not a SQL condition"):
        pruning.parse("dir0 = = '2023'")


def test_the_plan_prunes_by_file_columns_only(tmp_path):
    """`ScanPlan(where=...)` decides by the values of the output's implicit columns, under
    their own names (renamed, another partition prefix), and never by a data column that
    took a file column's name (the data wins it, as in a wildcard scan)."""
    from batchloader.spark import ScanPlan

    for folder, name in [("2023", "a.json"), ("2024", "b.json"), ("2024", "c.json")]:
        (tmp_path / folder).mkdir(exist_ok=True)
        (tmp_path / folder / name).write_text('{"x": 1, "filename": "data"}\n')

    def kept(where):
        plan = ScanPlan(
            str(tmp_path), partition_prefix="part", implicit_names={"fqn": "path"}, where=where
        )
        assert set(plan.implicit_columns) == {"path", "filepath", "suffix", "part0"}
        return sorted(os.path.basename(p) for p, _, _ in plan.splits)

    assert kept("part0 = '2024'") == ["b.json", "c.json"]
    assert kept(f"PATH = '{tmp_path / '2023' / 'a.json'}'") == ["a.json"]
    # `filename` is the data's column here: a condition on it prunes nothing
    assert kept("filename = 'a.json'") == ["a.json", "b.json", "c.json"]
    assert kept("part0 IS NULL") == []


def test_a_condition_decides_files_whole_only_where_data_cannot_matter(tmp_path):
    """`where_decides_files`: the condition is true, false or null for each file as a whole
    (so the data source may apply it by leaving files out), also with a data column that
    cannot change the outcome (`OR` of what is true for every file)."""
    from batchloader.spark import ScanPlan

    for folder in ("2023", "2024"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "f.json").write_text('{"x": 1}\n')
    for where, decides in [
        ("dir0 = '2024'", True),
        ("dir0 = '2024' AND x > 1", False),
        ("dir0 LIKE '20%' OR x = 1", True),
        ("dir0 = '2023' OR x = 1", False),
        ("dir0 = '1999' AND x = 1", True),
    ]:
        assert ScanPlan(str(tmp_path), where=where).where_decides_files == decides, where


def test_the_drivers_sample_skips_the_files_the_condition_rules_out(tmp_path):
    """The schema sample reads files in order; one `where` rules out is not among them, so a
    malformed file there fails nothing, and its folder still counts for the dirN columns."""
    from batchloader import InputError
    from batchloader.spark import ScanPlan

    (tmp_path / "2022" / "deep").mkdir(parents=True)
    (tmp_path / "2022" / "deep" / "bad.json").write_text('{"x": \n')
    (tmp_path / "2024").mkdir()
    (tmp_path / "2024" / "f.json").write_text('{"x": 1}\n')
    with pytest.raises(InputError, match=r"bad\.json, line 1"):
        ScanPlan(str(tmp_path), sample_rows=5)
    plan = ScanPlan(str(tmp_path), sample_rows=5, where="dir0 = '2024'")
    assert [os.path.basename(p) for task in plan.tasks for p, _, _ in task] == ["f.json"]
    assert plan.schema.names == ["x", "fqn", "filepath", "filename", "suffix", "dir0", "dir1"]
