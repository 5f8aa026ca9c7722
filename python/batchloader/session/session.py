"""`Session`: Drill's session temporary tables on Spark.

A Session runs on its own `spark.newSession()`, so its temp views (one per temporary table,
under the user's name) are invisible to every other session. Its tables live under
`<temporary workspace location>/<session id>/<table id>/`; the session folder carries a lease,
is marked delete-on-exit in the JVM, and is deleted when the session closes (explicitly, on
context exit, when the Session is garbage collected, or at interpreter exit). Opening a
session sweeps the folders of sessions whose owner died.
"""

from __future__ import annotations

import logging
import threading
import uuid
import weakref
from collections.abc import Iterator, MutableMapping
from typing import Any, ClassVar

from batchloader.errors import TableNotFoundError, ValidationError, WorkspaceError
from batchloader.session import statements as st
from batchloader.session.filesystem import (
    HadoopFileSystem,
    LocalFileSystem,
    error_text,
    join,
)
from batchloader.session.lease import HEARTBEAT_EVERY, STALE_AFTER, Heartbeat, Lease, sweep
from batchloader.session.lease import write_lease as _write_lease
from batchloader.session.storage import (
    FORMATS,
    TempTable,
    check_storable,
    fragments,
    read_table,
    write_table,
)

WORKSPACE_CONF = "spark.batchloader.temporary.workspace"
DEFAULT_WORKSPACE = "tmp"
OK_SCHEMA = "ok boolean, summary string"
FRAGMENT_SCHEMA = "Fragment string, `Number of records written` bigint"

log = logging.getLogger("batchloader.session")


class SessionOptions(MutableMapping[str, str]):
    """Session options set by ``ALTER SESSION``: `store.format` (parquet, json or csv)."""

    DEFAULTS: ClassVar[dict[str, str]] = {"store.format": "parquet"}

    def __init__(self) -> None:
        self._values = dict(self.DEFAULTS)

    def __getitem__(self, key: str) -> str:
        return self._values[self._known(key)]

    def __setitem__(self, key: str, value: str) -> None:
        key = self._known(key)
        value = str(value).lower()
        if key == "store.format" and value not in FORMATS:
            raise ValidationError(
                f"Option store.format must be one of {', '.join(FORMATS)}, not [{value}]."
            )
        self._values[key] = value

    def __delitem__(self, key: str) -> None:
        key = self._known(key)
        self._values[key] = self.DEFAULTS[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def _known(self, key: str) -> str:
        key = key.lower()
        if key not in self.DEFAULTS:
            raise ValidationError(f"The option '{key}' does not exist.")
        return key

    def reset(self) -> None:
        """All options back to their defaults."""
        self._values = dict(self.DEFAULTS)


#: the start of the second, internal name each temporary table's view has
ALIAS_PREFIX = "__batchloader_tmp_"


def _without_aliases(df: Any) -> Any:
    """SHOW TABLES / SHOW VIEWS output without the internal names of temporary tables (each
    is listed under its own name already)."""
    from pyspark.sql import functions as F

    for column in ("tableName", "viewName"):
        if column in df.columns:
            return df.filter(~F.col(column).startswith(ALIAS_PREFIX))
    return df


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


class _State:
    """Everything closing a session needs, apart from the Session object itself (so a
    finalizer can close a Session that was garbage collected)."""

    def __init__(self, spark: Any, session_id: str, heartbeat_every: float) -> None:
        self.spark = spark
        self.id = session_id
        self.tables: dict[str, TempTable] = {}
        self.folders: list[tuple[HadoopFileSystem, str]] = []
        self.heartbeat = Heartbeat(heartbeat_every)
        self.lock = threading.RLock()
        self.closed = False

    def drop_views(self, table: TempTable) -> None:
        for view in (table.name, table.alias):
            try:
                self.spark.catalog.dropTempView(view)
            except Exception as err:  # the JVM may be gone at interpreter exit
                log.debug("Could not drop temp view [%s]: %s", view, err)

    def close(self) -> None:
        with self.lock:
            if self.closed:
                return
            self.closed = True
            self.heartbeat.stop()
            for table in self.tables.values():
                self.drop_views(table)
            self.tables.clear()
            for fs, folder in self.folders:
                _delete_folder(fs, folder)
            self.folders.clear()


def _delete_folder(fs: HadoopFileSystem, folder: str) -> None:
    try:
        fs.delete(folder)
        fs.cancel_delete_on_exit(folder)
        uri = fs.uri
    except Exception as err:  # no JVM any more: local folders can still go
        if fs.scheme != "file":
            log.warning(
                "Could not delete session temporary location [%s]: %s (the JVM deletes it "
                "when it exits)",
                folder,
                err,
            )
            return
        LocalFileSystem().delete(folder)
        uri = LocalFileSystem.uri
    log.info("Deleted session temporary location [%s] from file system [%s]", folder, uri)


class Session:
    """A SQL session with Drill's temporary tables, on its own `spark.newSession()`.

    `temporary_workspace` is the Spark database holding temporary tables (default: the Spark
    conf `spark.batchloader.temporary.workspace`, else `tmp`); its location must be an
    existing, writable folder on a Hadoop file system. `stale_after` (seconds without a
    heartbeat) and `heartbeat_every` tune when another process may sweep this session's
    folder should this process die.
    """

    def __init__(
        self,
        spark: Any,
        temporary_workspace: str | None = None,
        *,
        stale_after: float = STALE_AFTER,
        heartbeat_every: float = HEARTBEAT_EVERY,
    ) -> None:
        self.spark = spark.newSession()
        self.temporary_workspace = temporary_workspace or spark.conf.get(
            WORKSPACE_CONF, DEFAULT_WORKSPACE
        )
        self.id = str(uuid.uuid4())
        self.options = SessionOptions()
        _register_batchloader_source(self.spark)
        location, fs = self._workspace()
        self._state = _State(self.spark, self.id, heartbeat_every)
        self._finalizer = weakref.finalize(self, self._state.close)
        self.swept = sweep(fs, location, stale_after, keep=frozenset({self.id}))

    # -- lifecycle -------------------------------------------------------------------------

    def close(self) -> None:
        """Drop every temporary table of the session and delete its folders."""
        self._finalizer()

    @property
    def closed(self) -> bool:
        """Whether the session was closed."""
        return self._state.closed

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- what a session holds ----------------------------------------------------------------

    @property
    def tables(self) -> list[str]:
        """Names of the session's temporary tables, as created."""
        return [t.name for t in self._state.tables.values()]

    def table_location(self, name: str) -> str:
        """The folder holding a temporary table's files."""
        return self._table(name).location

    @property
    def locations(self) -> list[str]:
        """The session folders created so far (one per workspace location used)."""
        return [folder for _, folder in self._state.folders]

    def _table(self, name: str) -> TempTable:
        table = self._state.tables.get(name.lstrip("/").lower())
        if table is None:
            raise TableNotFoundError(f"Table [{name}] is not found.")
        return table

    # -- SQL -------------------------------------------------------------------------------

    def sql(self, text: str) -> Any:
        """Run one or more `;`-separated statements; the DataFrame of the last one."""
        if self._state.closed:
            raise ValidationError("The session is closed.")
        statements = st.split_statements(text)
        if not statements:
            raise ValidationError("No SQL statement to run.")
        result = None
        with self._state.lock:
            for statement in statements:
                result = self._run(statement)
        return result

    def _run(self, text: str) -> Any:
        statement = st.classify(text)
        if isinstance(statement, st.AlterSession):
            return self._alter_session(statement)
        if isinstance(statement, st.CreateTemporaryTable):
            return self._create_temporary_table(statement)
        if isinstance(statement, st.DropTable):
            return self._drop_table(statement, text)
        if isinstance(statement, st.DropView):
            return self._drop_view(statement, text)
        if isinstance(statement, st.CreateObject):
            self._check_create(statement)
            return self._pass(statement.expression, text)
        if isinstance(statement, st.Change):
            self._check_change(statement)
            return self._pass(statement.expression, text)
        result = self._pass(statement.expression, text)
        if st.is_show(statement.expression):
            return _without_aliases(result)
        return result

    def _ok(self, ok: bool, summary: str) -> Any:
        return self.spark.createDataFrame([(ok, summary)], OK_SCHEMA)

    def _pass(self, expression: Any, text: str) -> Any:
        """Hand a statement to Spark, with qualified references to temporary tables rewritten
        to their internal names; untouched text when nothing needs rewriting."""
        if expression is not None:
            rewritten, changed = st.rewrite_tables(expression, self._rewrite_target)
            if changed:
                return self.spark.sql(st.to_sql(rewritten))
        return self.spark.sql(text)

    def _rewrite_target(self, name: st.TableName) -> str | None:
        if name.plain:
            return None  # Spark finds the temp view of that name first
        table = self._temporary(name)
        return table.alias if table else None

    def _in_temporary_workspace(self, name: st.TableName) -> bool:
        if name.workspace is None:
            return True
        if name.catalog is not None and name.catalog.lower() != "spark_catalog":
            return False
        return name.workspace.lower() == self.temporary_workspace.lower()

    def _temporary(self, name: st.TableName) -> TempTable | None:
        """The temporary table a name reaches, if any."""
        if not self._in_temporary_workspace(name):
            return None
        return self._state.tables.get(name.name.lower())

    def _temporary_refs(self, expression: Any) -> list[TempTable]:
        found = []
        for _, name in st.table_references(expression):
            table = self._temporary(name)
            if table is not None and table not in found:
                found.append(table)
        return found

    # -- workspace -------------------------------------------------------------------------

    def _workspace(self) -> tuple[str, HadoopFileSystem]:
        """The temporary workspace's location, checked: database, file system, folder,
        writable."""
        name = self.temporary_workspace
        catalog = self.spark.catalog
        if not catalog.databaseExists(name):
            raise WorkspaceError(
                f"Schema [{name}] is not valid with respect to either root schema or current "
                f"default schema. Current default schema: {catalog.currentDatabase()}. "
                f"The temporary workspace must be a Spark database "
                f"(CREATE DATABASE {name} LOCATION '<folder>')."
            )
        location = catalog.getDatabase(name).locationUri
        try:
            fs = HadoopFileSystem(self.spark, location)
        except Exception as err:
            raise WorkspaceError(
                f"Temporary workspace [{name}] must be file-based: its location [{location}] "
                f"is not on a file system Spark can reach ({error_text(err)})."
            ) from None
        if not fs.exists(location):
            raise WorkspaceError(
                f"Temporary workspace [{name}] location [{location}] does not exist."
            )
        if not fs.is_dir(location):
            raise WorkspaceError(
                f"Temporary workspace [{name}] location [{location}] is not a folder."
            )
        try:
            fs.check_writable(location)
        except OSError as err:
            raise WorkspaceError(
                f"Unable to create or drop tables/views. Schema [{name}] is immutable: its "
                f"location [{location}] is not writable ({err})."
            ) from None
        return location, fs

    def _session_folder(self, location: str, fs: HadoopFileSystem) -> tuple[HadoopFileSystem, str]:
        """This session's folder under the workspace's (checked) current location, made on
        first use (700, with a lease, deleted by the JVM at exit if not before)."""
        folder = join(location, self.id)
        for known_fs, known in self._state.folders:
            if known == folder:
                return known_fs, folder
        fs.mkdirs(folder, "700")
        lease = Lease.mine(self.id)
        _write_lease(fs, folder, lease)
        fs.delete_on_exit(folder)
        self._state.folders.append((fs, folder))
        self._state.heartbeat.add(fs, folder, lease)
        return fs, folder

    # -- statements --------------------------------------------------------------------------

    def _alter_session(self, statement: st.AlterSession) -> Any:
        if statement.option is None:
            self.options.reset()
            return self._ok(True, "All session options reset.")
        if statement.value is None:
            del self.options[statement.option]
            return self._ok(True, f"{statement.option} reset.")
        self.options[statement.option] = statement.value
        return self._ok(True, f"{statement.option} updated.")

    def _exists_message(self, name: str) -> str:
        return (
            f"A table or view with given name [{name}] already exists in schema "
            f"[{self.temporary_workspace}]"
        )

    def _name_taken(self, name: str) -> bool:
        """A temporary table, a catalog table or view of the workspace, or a temp view of
        this Spark session already has the name."""
        if name.lower() in self._state.tables:
            return True
        if self.spark.catalog.tableExists(f"{_quoted(self.temporary_workspace)}.{_quoted(name)}"):
            return True
        try:
            jcatalog = self.spark._jsparkSession.sessionState().catalog()
            return bool(jcatalog.getTempView(name).isDefined())
        except Exception:  # internal API: the catalog checks above still hold
            return False

    def _create_temporary_table(self, statement: st.CreateTemporaryTable) -> Any:
        name = statement.table.name
        workspace = self.temporary_workspace
        if not self._in_temporary_workspace(statement.table):
            raise ValidationError(
                "Temporary tables are not allowed to be created outside of default temporary "
                f"workspace [{workspace}]."
            )
        location, location_fs = self._workspace()
        if self._name_taken(name):
            if statement.if_not_exists:
                return self._ok(False, self._exists_message(name))
            raise ValidationError(self._exists_message(name))
        fmt = self.options["store.format"]
        if statement.partition_by and fmt != "parquet":
            raise ValidationError(f"{fmt.capitalize()} format does not support auto-partitioning.")
        query, changed = st.rewrite_tables(statement.query, self._rewrite_target)
        df = self.spark.sql(st.to_sql(query) if changed else statement.query_text)
        if statement.columns is not None:
            if len(statement.columns) != len(df.columns):
                raise ValidationError(
                    "Table's field list and the table's query field list have different counts."
                )
            df = df.toDF(*statement.columns)
        by_name = {c.lower(): c for c in df.columns}
        partition_by = []
        for column in statement.partition_by:
            if column.lower() not in by_name:
                raise ValidationError(
                    f"Partition column {column} is not in the SELECT list of CTAS!"
                )
            partition_by.append(by_name[column.lower()])
        check_storable(df.schema, fmt)

        log.info("Temporary table [%s] is being created.", name)
        fs, folder = self._session_folder(location, location_fs)
        table = TempTable(
            name=name,
            location=join(folder, str(uuid.uuid4())),
            format=fmt,
            schema=df.schema,
            alias=f"{ALIAS_PREFIX}{uuid.uuid4().hex}",
        )
        try:
            write_table(df, table.location, fmt, partition_by, fs.scheme)
            stored = read_table(self.spark, table)
            written = fragments(stored)
        except BaseException:
            fs.delete(table.location)
            raise
        stored.createOrReplaceTempView(_quoted(table.name))
        stored.createOrReplaceTempView(_quoted(table.alias))
        self._state.tables[name.lower()] = table
        return self.spark.createDataFrame(written, FRAGMENT_SCHEMA)

    def _drop_temporary(self, table: TempTable) -> None:
        log.info("Temporary table [%s] is being dropped.", table.name)
        self._state.drop_views(table)
        del self._state.tables[table.name.lower()]
        for fs, folder in self._state.folders:
            if table.location.startswith(folder + "/"):
                fs.delete(table.location)
                return

    def _drop_table(self, statement: st.DropTable, text: str) -> Any:
        name = statement.table
        table = self._temporary(name)
        if table is not None:
            self._drop_temporary(table)
            return self._ok(True, f"Temporary table [{table.name}] was dropped.")
        catalog = self.spark.catalog
        if name.workspace is not None and not catalog.databaseExists(name.workspace):
            raise ValidationError(
                f"Schema [{name.workspace}] is not valid with respect to either root schema or "
                f"current default schema. Current default schema: {catalog.currentDatabase()}."
            )
        exists = (
            catalog.tableExists(f"{_quoted(name.workspace)}.{_quoted(name.name)}")
            if name.workspace
            else catalog.tableExists(_quoted(name.name))
        )
        if not exists:
            if statement.if_exists:
                return self._ok(False, f"Table [{name.name}] was not found.")
            raise TableNotFoundError(f"Table [{name.name}] is not found.")
        self.spark.sql(text)
        return self._ok(True, f"Table [{name.name}] was dropped.")

    def _drop_view(self, statement: st.DropView, text: str) -> Any:
        table = self._temporary(statement.table)
        if table is None:
            return self.spark.sql(text)
        if statement.if_exists:
            return self._ok(
                False, f"View [{table.name}] not found in schema [{self.temporary_workspace}]."
            )
        raise ValidationError(f"Unknown view [{table.name}] in schema [{self.temporary_workspace}]")

    def _check_create(self, statement: st.CreateObject) -> None:
        """Views never read temporary tables; nothing else takes a temporary table's name."""
        create = statement.expression
        if statement.kind == "VIEW" and not statement.temporary:
            query = create.expression
            used = self._temporary_refs(query) if query is not None else []
            if used:
                raise ValidationError(
                    "Temporary tables usage is disallowed. Used temporary table name: "
                    f"[{used[0].name}]"
                )
        name = statement.table
        in_workspace = (
            name.workspace is None
            and (statement.temporary or self._current_database_is_workspace())
        ) or (name.workspace is not None and self._in_temporary_workspace(name))
        if in_workspace and name.name.lower() in self._state.tables:
            if statement.kind == "VIEW":
                raise ValidationError(
                    f"A non-view table with given name [{name.name}] already exists in schema "
                    f"[{self.temporary_workspace}]"
                )
            raise ValidationError(self._exists_message(name.name))

    def _check_change(self, statement: st.Change) -> None:
        """Temporary tables are written once and only dropped: a statement that would write
        to, alter or rename one is refused, as is a rename onto a temporary table's name."""
        for name in statement.tables:
            table = self._temporary(name)
            if table is None:
                continue
            if statement.verb == "INSERT":
                refused = "cannot be written to"
            else:
                refused = f"cannot be changed by {statement.verb}"
            raise ValidationError(
                f"Temporary table [{table.name}] {refused}: temporary tables are written "
                "once, by CREATE TEMPORARY TABLE, and removed by DROP TABLE."
            )
        new = statement.renamed_to
        if new is None:
            return
        if new.workspace is None:
            # an unqualified new name stays in the renamed table's database
            source = statement.tables[0]
            in_workspace = (
                self._current_database_is_workspace()
                if source.workspace is None
                else self._in_temporary_workspace(source)
            )
        else:
            in_workspace = self._in_temporary_workspace(new)
        if in_workspace and new.name.lower() in self._state.tables:
            raise ValidationError(self._exists_message(new.name))

    def _current_database_is_workspace(self) -> bool:
        return self.spark.catalog.currentDatabase().lower() == self.temporary_workspace.lower()


def _register_batchloader_source(spark: Any) -> None:
    """Python data sources are registered per Spark session: give the new one `batchloader`
    (Spark 4; Spark 3.5 has no Python data sources)."""
    try:
        from batchloader.spark import register
    except ImportError:
        return
    try:
        register(spark)
    except ImportError:
        log.debug("This Spark has no Python data sources: format 'batchloader' not registered")
