"""Session temporary tables on a real local Spark: seed 000's test list (§5.14), its example
(§5.1.14), and Drill's TestCTTAS cases. Each test says which item it covers."""

from __future__ import annotations

import gc
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time

import pytest

from batchloader.errors import TableNotFoundError, ValidationError, WorkspaceError
from batchloader.session import Session
from batchloader.session.filesystem import local_path

pytest.importorskip("sqlglot")
AnalysisException = pytest.importorskip("pyspark.errors").AnalysisException


def _world_traversable_dir() -> str:
    path = tempfile.mkdtemp(prefix="bl-ws-", dir="/tmp")
    os.chmod(path, 0o755)  # like /tmp itself: only the session folders are private
    return path


@pytest.fixture(scope="module")
def workspace(spark):
    """The default temporary workspace `tmp`: a Spark database on a local folder."""
    path = _world_traversable_dir()
    spark.sql(f"CREATE DATABASE IF NOT EXISTS tmp LOCATION '{path}'")
    yield path
    spark.sql("DROP DATABASE IF EXISTS tmp CASCADE")
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def session(spark, workspace):
    s = Session(spark)
    yield s
    s.close()


def rows(df) -> list[tuple]:
    return sorted(tuple(r) for r in df.collect())


def one(df) -> tuple:
    (row,) = df.collect()
    return tuple(row)


def session_folder(s: Session) -> str:
    (folder,) = s.locations
    return local_path(folder)


# 1. syntax ----------------------------------------------------------------------------


def test_1_create_with_and_without_workspace_and_a_column_list(session):
    written = session.sql("CREATE TEMPORARY TABLE t1 AS SELECT id, id * 2 AS d FROM range(10)")
    assert written.columns == ["Fragment", "Number of records written"]
    assert sum(r[1] for r in written.collect()) == 10
    assert all(r[0].startswith("0_") for r in written.collect())
    session.sql("CREATE TEMPORARY TABLE tmp.t2 (a, b) AS SELECT 'x', 1")
    assert session.sql("SELECT * FROM t2").columns == ["a", "b"]
    assert rows(session.sql("SELECT * FROM t2")) == [("x", 1)]
    assert rows(session.sql("SELECT d FROM t1 WHERE id = 4")) == [(8,)]
    assert sorted(session.tables) == ["t1", "t2"]


def test_1_fragments_add_up_to_the_rows_written(session):
    written = session.sql(
        "CREATE TEMPORARY TABLE spread AS SELECT /*+ REPARTITION(3) */ id FROM range(1000)"
    )
    counts = dict(rows(written))
    assert len(counts) == 3 and sum(counts.values()) == 1000
    assert session.sql("SELECT count(*) FROM spread").collect()[0][0] == 1000


def test_1_empty_result(session):
    written = session.sql("CREATE TEMPORARY TABLE nothing AS SELECT id, 'x' AS s FROM range(0)")
    assert rows(written) == [("0_0", 0)]
    back = session.sql("SELECT * FROM nothing")
    assert back.collect() == [] and back.columns == ["id", "s"]


def test_1_column_list_must_match_the_query(session):
    with pytest.raises(ValidationError) as err:
        session.sql("CREATE TEMPORARY TABLE bad (a, b, c) AS SELECT 1, 2")
    assert str(err.value) == (
        "Table's field list and the table's query field list have different counts."
    )
    assert session.tables == [] and session.locations == []  # nothing written


def test_1_if_not_exists_and_name_clashes(session, spark):
    session.sql("CREATE TEMPORARY TABLE dup AS SELECT 'A' AS c1")
    message = "A table or view with given name [DUP] already exists in schema [tmp]"
    with pytest.raises(ValidationError) as err:
        session.sql("CREATE TEMPORARY TABLE DUP AS SELECT 'B' AS c1")
    assert str(err.value) == message
    assert one(session.sql("CREATE TEMPORARY TABLE IF NOT EXISTS DUP AS SELECT 2")) == (
        False,
        message,
    )
    assert rows(session.sql("SELECT * FROM dup")) == [("A",)]
    spark.sql("CREATE TABLE tmp.persistent_clash USING parquet AS SELECT 1 AS a")
    spark.sql("CREATE VIEW tmp.view_clash AS SELECT 1 AS a")
    try:
        for name in ("persistent_clash", "view_clash"):
            with pytest.raises(ValidationError, match=rf"given name \[{name}\] already exists"):
                session.sql(f"CREATE TEMPORARY TABLE {name} AS SELECT 1")
    finally:
        spark.sql("DROP TABLE tmp.persistent_clash")
        spark.sql("DROP VIEW tmp.view_clash")


def test_1_show_tables_lists_temporary_tables_by_their_names_only(session):
    session.sql("CREATE TEMPORARY TABLE shown AS SELECT 1 AS a")
    for statement, column in (("SHOW TABLES", "tableName"), ("show views", "viewName")):
        names = [r[column] for r in session.sql(statement).collect()]
        assert "shown" in names, (statement, names)
        assert not [n for n in names if n.startswith("__batchloader")], (statement, names)


def test_1_no_persistent_table_or_view_takes_a_temporary_tables_name(session):
    session.sql("CREATE TEMPORARY TABLE taken AS SELECT 1 AS a")
    with pytest.raises(ValidationError, match=r"given name \[taken\] already exists in schema"):
        session.sql("CREATE TABLE tmp.taken USING parquet AS SELECT 1")
    with pytest.raises(ValidationError, match=r"A non-view table with given name \[taken\]"):
        session.sql("CREATE VIEW tmp.taken AS SELECT 1")
    with pytest.raises(ValidationError, match=r"A non-view table with given name \[taken\]"):
        session.sql("CREATE OR REPLACE TEMPORARY VIEW taken AS SELECT 2")
    assert rows(session.sql("SELECT * FROM taken")) == [(1,)]


# 2. other sessions ----------------------------------------------------------------------


def test_2_not_visible_from_another_session_which_may_use_the_same_name(session, spark):
    session.sql("CREATE TEMPORARY TABLE mine AS SELECT 'first' AS who")
    with Session(spark) as other:
        for query in ("SELECT * FROM mine", "SELECT * FROM tmp.mine"):
            with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_NOT_FOUND"):
                other.sql(query).collect()
        other.sql("CREATE TEMPORARY TABLE mine AS SELECT 'second' AS who")
        assert rows(other.sql("SELECT * FROM mine")) == [("second",)]
        assert rows(session.sql("SELECT * FROM tmp.mine")) == [("first",)]
        assert session_folder(other) != session_folder(session)
    with pytest.raises(AnalysisException):
        spark.sql("SELECT * FROM mine").collect()
    assert rows(session.sql("SELECT * FROM mine")) == [("first",)]


# 3. drop and recreate ---------------------------------------------------------------------


def test_3_drop_and_recreate(session, caplog):
    caplog.set_level(logging.INFO, logger="batchloader.session")
    session.sql("CREATE TEMPORARY TABLE again AS SELECT 1 AS v")
    first = local_path(session.table_location("again"))
    assert one(session.sql("DROP TABLE again")) == (True, "Temporary table [again] was dropped.")
    assert not os.path.exists(first)
    with pytest.raises(AnalysisException):
        session.sql("SELECT * FROM again").collect()
    session.sql("CREATE TEMPORARY TABLE again AS SELECT 2 AS v")
    assert rows(session.sql("SELECT * FROM again")) == [(2,)]
    messages = [r.getMessage() for r in caplog.records]
    assert "Temporary table [again] is being created." in messages
    assert "Temporary table [again] is being dropped." in messages


def test_3_drop_messages(session, spark):
    with pytest.raises(TableNotFoundError) as err:
        session.sql("DROP TABLE my_table")
    assert str(err.value) == "Table [my_table] is not found."
    assert one(session.sql("DROP TABLE IF EXISTS my_table")) == (
        False,
        "Table [my_table] was not found.",
    )
    with pytest.raises(ValidationError) as err:
        session.sql("DROP TABLE wk1.my_table")
    assert str(err.value) == (
        "Schema [wk1] is not valid with respect to either root schema or current default "
        "schema. Current default schema: default."
    )
    spark.sql("CREATE TABLE tmp.perm USING parquet AS SELECT 1 AS a")
    assert one(session.sql("DROP TABLE tmp.perm")) == (True, "Table [perm] was dropped.")
    assert not spark.catalog.tableExists("tmp.perm")


def test_3_drop_view_does_not_reach_a_temporary_table(session):
    session.sql("CREATE TEMPORARY TABLE not_a_view AS SELECT 1 AS a")
    assert one(session.sql("DROP VIEW IF EXISTS tmp.not_a_view")) == (
        False,
        "View [not_a_view] not found in schema [tmp].",
    )
    with pytest.raises(ValidationError, match=r"Unknown view \[not_a_view\] in schema \[tmp\]"):
        session.sql("DROP VIEW not_a_view")
    assert rows(session.sql("SELECT * FROM not_a_view")) == [(1,)]


def test_3_temporary_tables_are_read_only(session):
    session.sql("CREATE TEMPORARY TABLE frozen AS SELECT 1 AS a")
    with pytest.raises(ValidationError, match=r"Temporary table \[frozen\] cannot be written"):
        session.sql("INSERT INTO tmp.frozen SELECT 2")
    assert rows(session.sql("SELECT * FROM frozen")) == [(1,)]


@pytest.mark.parametrize(
    "statement",
    [
        "ALTER TABLE frozen RENAME TO thawed",
        "ALTER TABLE tmp.frozen ADD COLUMNS (b INT)",
        "ALTER VIEW frozen AS SELECT 2 AS a",
        "ALTER VIEW FROZEN RENAME TO thawed",
        "TRUNCATE TABLE frozen",
        "DELETE FROM frozen WHERE a = 1",
        "COMMENT ON TABLE frozen IS 'x'",
    ],
)
def test_3_temporary_tables_cannot_be_altered_or_renamed(session, statement):
    """Spark would rename or redefine the temp view behind the table (the session would
    then lose it: not found by its name, not dropped on close) or fail on it unclearly."""
    session.sql("CREATE TEMPORARY TABLE frozen AS SELECT 1 AS a")
    verb = " ".join(statement.split()[:2]) if statement.startswith("ALTER") else None
    with pytest.raises(
        ValidationError, match=r"Temporary table \[frozen\] cannot be changed"
    ) as err:
        session.sql(statement)
    if verb:
        assert f"by {verb}:" in str(err.value)
    assert rows(session.sql("SELECT * FROM frozen")) == [(1,)]
    assert session.tables == ["frozen"]
    assert not session.spark.catalog.tableExists("thawed")


def test_3_no_table_is_renamed_onto_a_temporary_tables_name(session, spark):
    session.sql("CREATE TEMPORARY TABLE kept AS SELECT 1 AS a")
    spark.sql("CREATE TABLE tmp.other USING parquet AS SELECT 2 AS b")
    try:
        with pytest.raises(ValidationError, match=r"given name \[kept\] already exists"):
            session.sql("ALTER TABLE tmp.other RENAME TO kept")
        with pytest.raises(ValidationError, match=r"given name \[KEPT\] already exists"):
            session.sql("ALTER TABLE tmp.other RENAME TO tmp.KEPT")
        assert rows(session.sql("SELECT * FROM kept")) == [(1,)]
        session.sql("ALTER TABLE tmp.other RENAME TO tmp.renamed")
        assert rows(session.sql("SELECT * FROM tmp.renamed")) == [(2,)]
    finally:
        spark.sql("DROP TABLE IF EXISTS tmp.other")
        spark.sql("DROP TABLE IF EXISTS tmp.renamed")


# 4. close ---------------------------------------------------------------------------------


def test_4_close_drops_everything(spark, workspace, caplog):
    caplog.set_level(logging.INFO, logger="batchloader.session")
    s = Session(spark)
    s.sql("CREATE TEMPORARY TABLE a AS SELECT 1 AS x; CREATE TEMPORARY TABLE b AS SELECT 2 AS x")
    folder, (uri,) = session_folder(s), s.locations
    assert len([d for d in os.listdir(folder) if not d.startswith(("_", "."))]) == 2
    inner = s.spark
    s.close()
    assert s.closed and not os.path.exists(folder)
    assert not inner.catalog.tableExists("a") and not inner.catalog.tableExists("b")
    assert f"Deleted session temporary location [{uri}] from file system [file:///]" in (
        caplog.text
    )
    with pytest.raises(ValidationError, match="closed"):
        s.sql("SELECT 1")
    s.close()  # twice is fine


def test_4_context_exit_and_garbage_collection_close_the_session(spark, workspace):
    with Session(spark) as s:
        s.sql("CREATE TEMPORARY TABLE ctx AS SELECT 1 AS x")
        folder = session_folder(s)
    assert not os.path.exists(folder)

    s = Session(spark)
    s.sql("CREATE TEMPORARY TABLE collected AS SELECT 1 AS x")
    folder, inner = session_folder(s), s.spark
    del s
    gc.collect()
    assert not os.path.exists(folder)
    assert not inner.catalog.tableExists("collected")


CHILD = textwrap.dedent(
    """
    import logging, os, sys, time
    logging.basicConfig(level=logging.INFO, format="%(name)s %(message)s")
    from batchloader.spark import local_session
    from batchloader.session import Session
    spark = local_session()
    spark.sparkContext.setLogLevel("ERROR")
    spark.sql("CREATE DATABASE IF NOT EXISTS tmp LOCATION '" + sys.argv[1] + "'")
    s = Session(spark)
    s.sql("CREATE TEMPORARY TABLE held AS SELECT 1 AS x")
    print(s.locations[0], flush=True)
    if sys.argv[2] == "hang":
        time.sleep(600)
    if sys.argv[2] == "hard-exit":
        os._exit(0)  # no atexit, no finalizers: only the JVM's delete-on-exit is left
    """
)


def _child(workspace: str, mode: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, workspace, mode],
        cwd=os.path.dirname(workspace),  # its Spark's ./spark-warehouse goes there
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its JVM too, so a kill takes both down
    )


def test_4_interpreter_exit_closes_the_session(workspace):
    child = _child(workspace, "exit")
    out, err = child.communicate(timeout=300)
    assert child.returncode == 0, err
    folder = out.strip().splitlines()[-1]
    assert not os.path.exists(local_path(folder))
    assert f"Deleted session temporary location [{folder}]" in err


def test_4_the_jvm_deletes_the_folder_when_python_dies_without_cleaning_up(workspace):
    child = _child(workspace, "hard-exit")
    out, err = child.communicate(timeout=300)
    assert child.returncode == 0, err
    folder = local_path(out.strip().splitlines()[-1])
    assert "Deleted session temporary location" not in err  # Python did not do it
    deadline = time.time() + 60  # the JVM sees its parent gone, runs its shutdown hooks
    while os.path.exists(folder) and time.time() < deadline:
        time.sleep(0.5)
    assert not os.path.exists(folder)


def test_4_a_crashed_sessions_folder_is_swept_by_the_next_session(spark, workspace):
    child = _child(workspace, "hang")
    try:
        folder = child.stdout.readline().strip()
        assert folder, child.stderr.read()
        assert os.path.isdir(local_path(folder))
    finally:
        os.killpg(child.pid, signal.SIGKILL)  # no atexit, no JVM shutdown hook
        child.communicate()
    assert os.path.isdir(local_path(folder)), "the crash left the folder behind"
    with Session(spark) as s:
        assert s.swept == [folder]
    assert not os.path.exists(local_path(folder))


# 5. formats -------------------------------------------------------------------------------

TYPES_QUERY = """
SELECT 1 AS i, CAST(2 AS TINYINT) AS b, CAST(3 AS SMALLINT) AS sm, 4L AS l,
  CAST(1.5 AS FLOAT) AS f, double('NaN') AS d, 1e300 AS d2, CAST('123.45' AS DECIMAL(10,2)) AS dec,
  true AS bo, '' AS empty, 'ü\\n"x,y' AS s, CAST(NULL AS STRING) AS n, '  pad ' AS padded,
  char(0) AS nul,
  DATE'2024-01-02' AS dt, TIMESTAMP'2024-01-02 03:04:05.123456' AS ts,
  TIMESTAMP_NTZ'2024-01-02 03:04:05.123456' AS tsn
"""
NESTED = (
    ", X'00FF' AS bin, array(1, NULL) AS arr, named_struct('a', 1, 'b', array('x')) AS st, "
    "map('k', 2) AS m"
)


@pytest.mark.parametrize(
    ("fmt", "query"),
    [
        ("parquet", TYPES_QUERY + NESTED + ", map(1, 'a') AS mi"),
        ("json", TYPES_QUERY + NESTED),
        ("csv", TYPES_QUERY),
    ],
)
def test_5_formats_keep_values_and_types(session, spark, fmt, query):
    assert one(session.sql(f"ALTER SESSION SET `store.format` = '{fmt}'")) == (
        True,
        "store.format updated.",
    )
    session.sql(f"CREATE TEMPORARY TABLE typed AS {query}")
    table = session.sql("SELECT * FROM typed")
    expected = session.spark.sql(query)
    # same types; file readers make every column nullable
    assert [(f.name, f.dataType.simpleString()) for f in table.schema] == [
        (f.name, f.dataType.simpleString()) for f in expected.schema
    ]
    assert repr(table.collect()) == repr(expected.collect())
    files = [f for f in os.listdir(local_path(session.table_location("typed"))) if "part-" in f]
    assert any(f.endswith(f".{fmt}") or f".{fmt}" in f for f in files), files


def test_5_formats_that_cannot_hold_a_column_are_refused_up_front(session):
    session.sql("ALTER SESSION SET `store.format` = 'csv'")
    with pytest.raises(ValidationError, match=r"Csv format cannot store column \[arr\]"):
        session.sql("CREATE TEMPORARY TABLE c AS SELECT array(1) AS arr")
    session.sql("ALTER SESSION SET `store.format` = 'json'")
    with pytest.raises(ValidationError, match=r"Json format cannot store column \[m\]"):
        session.sql("CREATE TEMPORARY TABLE j AS SELECT map(1, 'a') AS m")
    assert session.tables == []


def test_5_session_options(session):
    with pytest.raises(ValidationError, match=r"The option 'store\.nope' does not exist\."):
        session.sql("ALTER SESSION SET `store.nope` = 'x'")
    with pytest.raises(ValidationError, match="must be one of parquet, json, csv"):
        session.sql("ALTER SESSION SET `store.format` = 'orc'")
    session.sql("ALTER SESSION SET `store.format` = 'JSON'")
    assert session.options["store.format"] == "json"
    session.sql("ALTER SESSION RESET `store.format`")
    assert session.options["store.format"] == "parquet"
    session.sql("ALTER SESSION SET store.format = csv; ALTER SESSION RESET ALL")
    assert session.options["store.format"] == "parquet"


# 6, 7, 11. workspaces ---------------------------------------------------------------------


def test_6_only_in_the_default_temporary_workspace(session, spark):
    spark.sql("CREATE DATABASE IF NOT EXISTS tmp2")
    with pytest.raises(ValidationError) as err:
        session.sql("CREATE TEMPORARY TABLE tmp2.outside AS SELECT 'A' AS c1")
    assert str(err.value) == (
        "Temporary tables are not allowed to be created outside of default temporary "
        "workspace [tmp]."
    )


def test_7_created_under_the_workspace_location_in_the_session_folder(session, workspace):
    session.sql("CREATE TEMPORARY TABLE here AS SELECT 1 AS a")
    location = local_path(session.table_location("here"))
    assert os.path.dirname(location) == os.path.join(workspace, session.id)
    assert os.path.basename(location) != "here"  # the name is masked


def test_11_the_workspace_is_configurable(spark, workspace):
    other = _world_traversable_dir()
    spark.sql(f"CREATE DATABASE IF NOT EXISTS ws_conf LOCATION '{other}'")
    spark.conf.set("spark.batchloader.temporary.workspace", "ws_conf")
    try:
        with Session(spark) as s:
            assert s.temporary_workspace == "ws_conf"
            s.sql("CREATE TEMPORARY TABLE ws_conf.t AS SELECT 1 AS a")
            assert local_path(s.table_location("t")).startswith(other)
            assert rows(s.sql("SELECT * FROM ws_conf.t")) == [(1,)]
        with Session(spark, temporary_workspace="tmp") as s:
            assert s.temporary_workspace == "tmp"
    finally:
        spark.conf.unset("spark.batchloader.temporary.workspace")
        spark.sql("DROP DATABASE ws_conf CASCADE")
        shutil.rmtree(other, ignore_errors=True)


def test_11_opening_checks_the_workspace(spark, tmp_path):
    with pytest.raises(WorkspaceError, match=r"Schema \[no_such_db\] is not valid"):
        Session(spark, temporary_workspace="no_such_db")
    gone = tmp_path / "gone"
    spark.sql(f"CREATE DATABASE ws_gone LOCATION '{gone}'")
    a_file = tmp_path / "file"
    a_file.write_text("x")
    spark.sql(f"CREATE DATABASE ws_file LOCATION '{tmp_path}/x'")
    spark.sql(f"ALTER DATABASE ws_file SET LOCATION '{a_file}'")
    spark.sql("CREATE DATABASE ws_nofs LOCATION '/x'")
    spark.sql("ALTER DATABASE ws_nofs SET LOCATION 'nofs://bucket/x'")
    try:
        shutil.rmtree(gone, ignore_errors=True)
        with pytest.raises(WorkspaceError, match=r"location \[file:.*/gone\] does not exist"):
            Session(spark, temporary_workspace="ws_gone")
        with pytest.raises(WorkspaceError, match=r"location \[file:.*/file\] is not a folder"):
            Session(spark, temporary_workspace="ws_file")
        with pytest.raises(WorkspaceError, match=r"\[ws_nofs\] must be file-based"):
            Session(spark, temporary_workspace="ws_nofs")
    finally:
        spark.sql(f"ALTER DATABASE ws_nofs SET LOCATION '{tmp_path}/y'")
        for db in ("ws_gone", "ws_file", "ws_nofs"):
            spark.sql(f"DROP DATABASE IF EXISTS {db} CASCADE")


def test_11_a_workspace_that_cannot_be_written_is_refused(spark, tmp_path, monkeypatch):
    from batchloader.session.filesystem import HadoopFileSystem

    spark.sql(f"CREATE DATABASE ws_ro LOCATION '{tmp_path}'")

    def refuse(self, path):
        raise OSError("Permission denied")

    monkeypatch.setattr(HadoopFileSystem, "check_writable", refuse)
    try:
        with pytest.raises(WorkspaceError) as err:
            Session(spark, temporary_workspace="ws_ro")
        assert str(err.value).startswith(
            "Unable to create or drop tables/views. Schema [ws_ro] is immutable"
        )
    finally:
        spark.sql("DROP DATABASE ws_ro CASCADE")


def test_11_the_writable_probe_itself_detects_a_read_only_folder(spark, tmp_path):
    """The probe the session relies on, against a folder the OS refuses (as a non-root user
    through `chmod`; as root, through an immutable flag when the file system allows it)."""
    from batchloader.session.filesystem import HadoopFileSystem

    folder = tmp_path / "ro"
    folder.mkdir()
    fs = HadoopFileSystem(spark, str(folder))
    fs.check_writable(str(folder))  # writable now: no error
    if os.geteuid() != 0:
        folder.chmod(0o500)
    elif subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode != 0:
        pytest.skip("running as root without chattr: no way to make a folder read-only")
    try:
        with pytest.raises(OSError):
            fs.check_writable(str(folder))
    finally:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(folder)], check=False)
        folder.chmod(0o700)


# 8. usage in queries --------------------------------------------------------------------


def test_8_joins_subqueries_ctes_and_persistent_tables(session, spark):
    session.sql("CREATE TEMPORARY TABLE l AS SELECT 'A' AS c1, 'B' AS c2")
    session.sql("CREATE TEMPORARY TABLE r AS SELECT 'A' AS c1, 'C' AS c2")
    assert rows(
        session.sql("SELECT t1.c2 col1, t2.c2 col2 FROM l t1 JOIN tmp.r t2 ON t1.c1 = t2.c1")
    ) == [("B", "C")]
    session.sql("CREATE TEMPORARY TABLE source AS (SELECT 1 AS id UNION ALL SELECT 2 AS id)")
    assert rows(
        session.sql(
            "SELECT t1.id, (SELECT count(t2.id) FROM tmp.source t2 WHERE t2.id = t1.id) AS c "
            "FROM source t1"
        )
    ) == [(1, 1), (2, 1)]
    # a CTE of the same name wins over the temporary table, qualified names do not
    assert rows(
        session.sql("WITH source AS (SELECT 9 AS id) SELECT s.id, t.id FROM source s, tmp.source t")
    ) == [(9, 1), (9, 2)]
    spark.sql("CREATE TABLE default.pers_tab USING parquet AS SELECT '12312' AS c1")
    try:
        session.sql("CREATE TEMPORARY TABLE temp_tab AS SELECT '12312' AS c2")
        assert rows(session.sql("SELECT * FROM `pers_tab` a JOIN `temp_tab` b ON a.c1 = b.c2")) == [
            ("12312", "12312")
        ]
    finally:
        spark.sql("DROP TABLE default.pers_tab")


def test_8_temporary_tables_come_before_persistent_ones(session, spark):
    spark.sql("CREATE DATABASE IF NOT EXISTS tmp2")
    session.sql("CREATE TEMPORARY TABLE prio AS SELECT 'temporary_table' AS c1")
    session.sql("USE tmp2")
    try:
        session.sql("CREATE TABLE prio USING parquet AS SELECT 'persistent_table' AS c1")
        session.sql("CREATE VIEW prio_v AS SELECT 'view' AS c1")
        assert rows(session.sql("SELECT * FROM prio")) == [("temporary_table",)]
        assert rows(session.sql("SELECT * FROM tmp2.prio")) == [("persistent_table",)]
        session.sql("DROP TABLE prio")
        assert rows(session.sql("SELECT * FROM prio")) == [("persistent_table",)]
    finally:
        session.sql("USE default")
        spark.sql("DROP DATABASE tmp2 CASCADE")


# 9. partitions ----------------------------------------------------------------------------


def test_9_partition_by_lays_out_a_folder_per_value_and_keeps_the_columns(session):
    written = session.sql(
        "CREATE TEMPORARY TABLE parts PARTITION BY (c1) AS SELECT * FROM ("
        "SELECT 'A' AS c1, 1 AS n UNION ALL SELECT 'B', 2 UNION ALL SELECT '', 3 "
        "UNION ALL SELECT NULL, 4)"
    )
    assert sum(r[1] for r in written.collect()) == 4
    folders = os.listdir(local_path(session.table_location("parts")))
    # A, B, and Hive's default partition for '' and null: the values themselves stay exact
    assert sorted(f for f in folders if "=" in f) == [
        "c1__partition=A",
        "c1__partition=B",
        "c1__partition=__HIVE_DEFAULT_PARTITION__",
    ]
    back = session.sql("SELECT * FROM parts")
    assert back.columns == ["c1", "n"]
    assert rows(back.where("c1 IS NOT NULL")) == [("", 3), ("A", 1), ("B", 2)]
    assert rows(back.where("c1 IS NULL")) == [(None, 4)]


def test_9_every_column_may_be_a_partition_column(session):
    session.sql(
        "CREATE TEMPORARY TABLE allparts (x, y) PARTITION BY (x, Y) AS "
        "SELECT * FROM VALUES (1, 'a'), (2, 'b') AS v(p, q)"
    )
    assert rows(session.sql("SELECT * FROM allparts")) == [(1, "a"), (2, "b")]


def test_9_partition_rules(session):
    with pytest.raises(ValidationError) as err:
        session.sql("CREATE TEMPORARY TABLE p1 (a, b) PARTITION BY (c1) AS SELECT 1, 2")
    assert str(err.value) == "Partition column c1 is not in the SELECT list of CTAS!"
    session.sql("ALTER SESSION SET `store.format` = 'json'")
    with pytest.raises(ValidationError) as err:
        session.sql("CREATE TEMPORARY TABLE p2 PARTITION BY (a) AS SELECT 1 AS a")
    assert str(err.value) == "Json format does not support auto-partitioning."
    assert session.tables == []


# 10, 13. permissions ------------------------------------------------------------------------


def test_10_folders_700_files_600(session):
    session.sql(
        "CREATE TEMPORARY TABLE perms PARTITION BY (k) AS SELECT id, id % 2 AS k FROM range(10)"
    )
    session.sql("ALTER SESSION SET `store.format` = 'json'")
    session.sql("CREATE TEMPORARY TABLE perms_json AS SELECT 1 AS a")
    root = session_folder(session)
    seen_files = 0
    for folder, _, files in os.walk(root):
        assert os.stat(folder).st_mode & 0o777 == 0o700, folder
        for name in files:
            assert os.stat(os.path.join(folder, name)).st_mode & 0o777 == 0o600, name
            seen_files += 1
    assert seen_files >= 6


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run a command as another user")
def test_13_another_os_user_cannot_read_a_temporary_table(session, workspace):
    session.sql("CREATE TEMPORARY TABLE secret AS SELECT 'x' AS s")
    location = local_path(session.table_location("secret"))
    data = next(os.path.join(location, f) for f in os.listdir(location) if f.startswith("part-"))
    control = os.path.join(workspace, "public.txt")
    with open(control, "w") as out:
        out.write("public")
    os.chmod(control, 0o644)
    try:
        as_nobody = {"user": 65534, "group": 65534, "capture_output": True}
        assert subprocess.run(["cat", control], **as_nobody).returncode == 0  # the check works
        for target in (data, location, session_folder(session)):
            denied = subprocess.run(["ls", target], **as_nobody)
            assert denied.returncode != 0 and b"Permission denied" in denied.stderr
    finally:
        os.remove(control)


# 14, 15, 16 --------------------------------------------------------------------------------


def test_14_views_over_temporary_tables_are_refused(session):
    session.sql("CREATE TEMPORARY TABLE for_view AS SELECT 'A' AS c1")
    for statement in (
        "CREATE VIEW tmp.view_with_temp_table AS SELECT * FROM for_view",
        "CREATE VIEW v2 AS SELECT * FROM (SELECT c1 FROM tmp.FOR_VIEW)",
    ):
        with pytest.raises(ValidationError) as err:
            session.sql(statement)
        assert str(err.value) == (
            "Temporary tables usage is disallowed. Used temporary table name: [for_view]"
        )
    # a temporary view lives no longer than the session: allowed
    session.sql("CREATE TEMPORARY VIEW tv AS SELECT * FROM tmp.for_view")
    assert rows(session.sql("SELECT * FROM tv")) == [("A",)]


def test_15_names_are_case_insensitive_and_a_leading_slash_is_ignored(session):
    session.sql("CREATE TEMPORARY TABLE tEmP_InSeNSiTiVe AS SELECT 'A' AS c1")
    for name in (
        "tEmP_InSeNSiTiVe",
        "temp_insensitive",
        "TEMP_INSENSITIVE",
        "tmp.TEMP_insensitive",
    ):
        assert rows(session.sql(f"SELECT * FROM {name}")) == [("A",)]
    assert rows(session.sql("SELECT * FROM `/temp_insensitive`")) == [("A",)]
    assert rows(session.sql("SELECT * FROM tmp.`/temp_insensitive`")) == [("A",)]
    with pytest.raises(ValidationError, match="already exists"):
        session.sql("CREATE TEMPORARY TABLE `/TEMP_INSENSITIVE` AS SELECT 1")
    assert one(session.sql("DROP TABLE `/temp_insensitive`")) == (
        True,
        "Temporary table [tEmP_InSeNSiTiVe] was dropped.",
    )


def test_16_every_location_the_session_wrote_to_is_deleted(spark, workspace):
    moved = _world_traversable_dir()
    try:
        with Session(spark) as s:
            s.sql("CREATE TEMPORARY TABLE before_move AS SELECT 1 AS a")
            spark.sql(f"ALTER DATABASE tmp SET LOCATION '{moved}'")
            s.sql("CREATE TEMPORARY TABLE after_move AS SELECT 2 AS a")
            folders = [local_path(f) for f in s.locations]
            assert [os.path.dirname(f) for f in folders] == [workspace, moved]
            assert rows(s.sql("SELECT * FROM before_move UNION ALL SELECT * FROM after_move")) == [
                (1,),
                (2,),
            ]
        assert not any(os.path.exists(f) for f in folders)
    finally:
        spark.sql(f"ALTER DATABASE tmp SET LOCATION '{workspace}'")
        shutil.rmtree(moved)


# seed §5.1.14 -------------------------------------------------------------------------------


def test_seed_example_total_amount_by_discount(session, tmp_path):
    pytest.importorskip("pyspark.sql.datasource")
    csv = tmp_path / "amount.csv"
    csv.write_text(
        '"1","Bob","200","false"\n"2","Kate","150","true"\n'
        '"3","Tim","20","false"\n"4","Roger","500","true"\n'
    )
    session.sql(
        f"CREATE TEMPORARY VIEW amount USING batchloader OPTIONS (path '{csv}', format 'csv', "
        "header 'false')"
    )
    written = session.sql(
        "create temporary table total_amount_by_discount as "
        "select cast(columns[3] as boolean) discount, sum(cast(columns[2] as double)) "
        "total_amount from amount group by columns[3]"
    )
    assert sum(r[1] for r in written.collect()) == 2
    result = session.sql("select * from total_amount_by_discount")
    assert [(f.name, f.dataType.simpleString()) for f in result.schema] == [
        ("discount", "boolean"),
        ("total_amount", "double"),
    ]
    assert rows(result) == [(False, 220.0), (True, 650.0)]
    location = local_path(session.table_location("total_amount_by_discount"))
    assert [f for f in os.listdir(location) if f.endswith(".parquet")]
