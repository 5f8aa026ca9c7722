"""How session statements are read (sqlglot, no Spark needed)."""

from __future__ import annotations

import pytest

from batchloader.errors import ValidationError
from batchloader.session import statements as st


def test_split_keeps_original_text_and_ignores_semicolons_in_strings_and_names():
    script = "select ';' as a;\n  SELECT `x;y` FROM t -- c\n;; ALTER SESSION RESET ALL ;"
    assert st.split_statements(script) == [
        "select ';' as a",
        "SELECT `x;y` FROM t -- c",
        "ALTER SESSION RESET ALL",
    ]


def test_statements_sqlglot_keeps_as_commands_pass_without_a_warning(capsys, caplog):
    statement = st.classify("SHOW TABLES IN tmp")
    assert st.is_show(statement.expression)
    assert not st.is_show(st.classify("SELECT 1").expression)
    assert "unsupported syntax" not in capsys.readouterr().err + caplog.text


def test_statements_of_only_comments_are_left_out():
    """A piece holding only a comment is no statement (it was handed to the parser, which
    failed with an empty message)."""
    script = "-- setup\nSELECT 1; /* nothing */ ;\n-- the end"
    assert st.split_statements(script) == ["-- setup\nSELECT 1"]
    assert st.split_statements("-- only a comment") == []
    assert st.split_statements("/* a */ ; -- b") == []


@pytest.mark.parametrize(
    ("text", "option", "value"),
    [
        ("ALTER SESSION SET `store.format` = 'json'", "store.format", "json"),
        ("alter session set `store.format`='csv'", "store.format", "csv"),
        ("ALTER SESSION SET store.format = parquet", "store.format", "parquet"),
        ("ALTER SESSION RESET `store.format`", "store.format", None),
        ("ALTER SESSION RESET ALL", None, None),
    ],
)
def test_alter_session(text, option, value):
    assert st.classify(text) == st.AlterSession(option, value)


def test_alter_session_without_value_is_refused():
    with pytest.raises(ValidationError, match="ALTER SESSION SET expects"):
        st.classify("ALTER SESSION SET `store.format`")


def test_create_temporary_table_with_everything():
    stmt = st.classify(
        "CREATE TEMPORARY TABLE IF NOT EXISTS tmp.`/Out` (x, y) PARTITION BY (x) "
        "AS SELECT a, b FROM s"
    )
    assert isinstance(stmt, st.CreateTemporaryTable)
    assert stmt.table == st.TableName("Out", "tmp", None, plain=False)
    assert stmt.columns == ["x", "y"]
    assert stmt.partition_by == ["x"]
    assert stmt.if_not_exists
    assert st.to_sql(stmt.query) == "SELECT a, b FROM s"
    assert stmt.query_text == "SELECT a, b FROM s"


def test_create_temporary_table_with_a_parenthesised_query():
    stmt = st.classify("create temporary table source as (select 1 as id union all select 2)")
    assert isinstance(stmt, st.CreateTemporaryTable)
    assert stmt.query_text == "(select 1 as id union all select 2)"
    assert stmt.columns is None and stmt.partition_by == [] and not stmt.if_not_exists


def test_the_query_text_is_kept_as_written_after_the_first_top_level_as():
    stmt = st.classify(
        "CREATE TEMPORARY TABLE t (a, b) PARTITION BY (a) AS\n"
        "  SELECT cast(x AS int) AS a, /*+ keep */ `y` AS b FROM s"
    )
    assert stmt.query_text == "SELECT cast(x AS int) AS a, /*+ keep */ `y` AS b FROM s"


def test_typed_column_list_is_refused():
    with pytest.raises(ValidationError, match="without types"):
        st.classify("CREATE TEMPORARY TABLE t (a INT) AS SELECT 1")


def test_other_creates_drops_and_inserts():
    view = st.classify("CREATE OR REPLACE VIEW tmp.v AS SELECT * FROM t")
    assert isinstance(view, st.CreateObject)
    assert (view.kind, view.temporary, view.table.name) == ("VIEW", False, "v")
    temp_view = st.classify("CREATE TEMPORARY VIEW v AS SELECT 1")
    assert isinstance(temp_view, st.CreateObject) and temp_view.temporary
    table = st.classify("CREATE TABLE x USING parquet AS SELECT 1")
    assert isinstance(table, st.CreateObject) and table.kind == "TABLE"
    assert st.classify("DROP TABLE IF EXISTS tmp.t") == st.DropTable(
        st.TableName("t", "tmp", plain=False), True
    )
    assert st.classify("drop view v") == st.DropView(st.TableName("v"), False)
    insert = st.classify("INSERT INTO tmp.t SELECT 1")
    assert isinstance(insert, st.Change) and insert.tables == (
        st.TableName("t", "tmp", plain=False),
    )
    assert insert.verb == "INSERT"
    assert isinstance(st.classify("SELECT 1"), st.Other)


@pytest.mark.parametrize(
    ("text", "verb", "names", "renamed_to"),
    [
        ("INSERT OVERWRITE TABLE t SELECT 1", "INSERT", ["t"], None),
        ("ALTER TABLE t RENAME TO u", "ALTER TABLE", ["t"], "u"),
        ("ALTER TABLE tmp.t ADD COLUMNS (x INT)", "ALTER TABLE", ["tmp.t"], None),
        ("ALTER TABLE t SET TBLPROPERTIES ('a' = 'b')", "ALTER TABLE", ["t"], None),
        ("ALTER VIEW t AS SELECT 2", "ALTER VIEW", ["t"], None),
        ("ALTER VIEW t RENAME TO tmp.u", "ALTER VIEW", ["t"], "tmp.u"),
        ("TRUNCATE TABLE t", "TRUNCATE TABLE", ["t"], None),
        ("DELETE FROM t WHERE a = 1", "DELETE", ["t"], None),
        ("UPDATE t SET a = 1", "UPDATE", ["t"], None),
        ("MERGE INTO t USING s ON t.a = s.a WHEN MATCHED THEN DELETE", "MERGE", ["t"], None),
        ("LOAD DATA INPATH '/x' INTO TABLE t", "LOAD DATA", ["t"], None),
        ("COMMENT ON TABLE t IS 'x'", "COMMENT ON TABLE", ["t"], None),
    ],
)
def test_statements_that_change_a_table_name_it(text, verb, names, renamed_to):
    change = st.classify(text)
    assert isinstance(change, st.Change)
    assert change.verb == verb
    assert [str(t) for t in change.tables] == names
    assert (str(change.renamed_to) if change.renamed_to else None) == renamed_to


@pytest.mark.parametrize(
    "text", ["CACHE TABLE t", "REFRESH TABLE t", "UNCACHE TABLE t", "SELECT * FROM t"]
)
def test_statements_that_only_read_a_table_are_not_changes(text):
    assert isinstance(st.classify(text), st.Other)


def test_unreadable_statement_goes_to_spark_untouched():
    stmt = st.classify("SELECT FROM WHERE ((")
    assert stmt == st.Other(None)


def test_table_references_skip_ctes_but_not_qualified_names():
    stmt = st.classify(
        "WITH t AS (SELECT 1 AS a) SELECT * FROM t JOIN tmp.t u ON 1 = 1 "
        "WHERE a IN (SELECT a FROM `/w`)"
    )
    names = [name for _, name in st.table_references(stmt.expression)]
    assert names == [
        st.TableName("t", "tmp", plain=False),
        st.TableName("w", plain=False),
    ]


def test_rewrite_redirects_only_what_the_target_names():
    stmt = st.classify("SELECT * FROM tmp.t JOIN spark_catalog.other.t USING (a)")
    mapping = {("t", "tmp"): "__alias"}
    rewritten, changed = st.rewrite_tables(
        stmt.expression, lambda n: mapping.get((n.name, n.workspace))
    )
    assert changed
    assert st.to_sql(rewritten) == "SELECT * FROM `__alias` JOIN spark_catalog.other.t USING (a)"
    # the statement itself is left as it was
    assert st.to_sql(stmt.expression) == "SELECT * FROM tmp.t JOIN spark_catalog.other.t USING (a)"
    _, unchanged = st.rewrite_tables(stmt.expression, lambda n: None)
    assert not unchanged
