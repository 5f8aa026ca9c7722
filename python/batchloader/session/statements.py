"""What a session statement asks for, read with sqlglot (Spark dialect).

`split_statements` cuts a script at its top-level semicolons (tokens, not characters, so a `;`
inside a string or a quoted name stays put) and keeps each statement's original text, so a
statement the session does not handle reaches Spark exactly as the user wrote it.
`classify` turns one statement into one of the small records below; `table_references` and
`rewrite_tables` find and redirect the tables a query reads.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, cast

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import Token, TokenType

from batchloader.errors import ValidationError

DIALECT = "spark"


@dataclass(frozen=True)
class TableName:
    """A table name as written: `name`, optional workspace (database) and catalog."""

    name: str
    workspace: str | None = None
    catalog: str | None = None
    plain: bool = True  # written as a bare name, as Spark itself would resolve it

    @classmethod
    def of(cls, table: exp.Table) -> TableName:
        """The name of a sqlglot table node; Drill's leading `/` is dropped (`/t` is `t`)."""
        return cls(
            name=table.name.lstrip("/"),
            workspace=table.db or None,
            catalog=table.catalog or None,
            plain=not table.db and not table.catalog and not table.name.startswith("/"),
        )

    def __str__(self) -> str:
        return ".".join(p for p in (self.catalog, self.workspace, self.name) if p)


@dataclass(frozen=True)
class AlterSession:
    """``ALTER SESSION SET option = value`` or ``ALTER SESSION RESET option|ALL``."""

    option: str | None  # None: RESET ALL
    value: str | None  # None: RESET


@dataclass(frozen=True)
class CreateTemporaryTable:
    """``CREATE TEMPORARY TABLE [IF NOT EXISTS] name [(cols)] [PARTITION BY (cols)] AS query``."""

    table: TableName
    columns: list[str] | None
    partition_by: list[str]
    if_not_exists: bool
    query: exp.Expression
    query_text: str  # the query exactly as written


@dataclass(frozen=True)
class DropTable:
    """``DROP TABLE [IF EXISTS] name``."""

    table: TableName
    if_exists: bool


@dataclass(frozen=True)
class DropView:
    """``DROP VIEW [IF EXISTS] name``."""

    table: TableName
    if_exists: bool


@dataclass(frozen=True)
class CreateObject:
    """``CREATE [OR REPLACE] [TEMPORARY] VIEW|TABLE name ...`` other than CTTAS."""

    table: TableName
    kind: str  # "VIEW" or "TABLE"
    temporary: bool
    expression: exp.Expression


@dataclass(frozen=True)
class Change:
    """A statement that writes to or alters the tables it names: ``INSERT``, ``ALTER
    TABLE|VIEW``, ``TRUNCATE TABLE``, ``DELETE``, ``UPDATE``, ``MERGE``, ``LOAD DATA``,
    ``COMMENT ON TABLE``. `renamed_to`: the new name an ``ALTER ... RENAME TO`` gives."""

    tables: tuple[TableName, ...]
    verb: str  # the statement's keywords, for messages ("INSERT", "ALTER TABLE"...)
    expression: exp.Expression
    renamed_to: TableName | None = None


@dataclass(frozen=True)
class Other:
    """Anything else: a query or a statement Spark handles (`expression` is None when sqlglot
    could not read it; the text then goes to Spark untouched)."""

    expression: exp.Expression | None = field(default=None)


Statement = (
    AlterSession | CreateTemporaryTable | DropTable | DropView | CreateObject | Change | Other
)


def _tokens(text: str) -> list[Token]:
    return sqlglot.Dialect.get_or_raise(DIALECT).tokenize(text)


def split_statements(text: str) -> list[str]:
    """The statements of a script, each with its original text, empty ones (blank, or only
    comments) left out."""
    try:
        tokens = _tokens(text)
    except TokenError as err:
        raise ValidationError(f"Cannot read the SQL text: {err}") from None
    pieces, start, words = [], 0, 0
    for token in tokens:
        if token.token_type == TokenType.SEMICOLON:
            if words:
                pieces.append(text[start : token.start])
            start, words = token.end + 1, 0
        else:
            words += 1
    if words:
        pieces.append(text[start:])
    return [p.strip() for p in pieces]


def _alter_session(tokens: list[Token]) -> AlterSession:
    words = tokens[2:]
    verb = words[0].text.upper() if words else ""
    if verb == "RESET":
        rest = words[1:]
        if len(rest) == 1 and rest[0].token_type == TokenType.ALL:
            return AlterSession(option=None, value=None)
        return AlterSession(option=_option_name(rest), value=None)
    if verb == "SET":
        rest = words[1:]
        eq = next((i for i, t in enumerate(rest) if t.token_type == TokenType.EQ), None)
        if eq is None or eq + 2 != len(rest):
            raise ValidationError(
                "ALTER SESSION SET expects `option` = value, e.g. "
                "ALTER SESSION SET `store.format` = 'json'"
            )
        return AlterSession(option=_option_name(rest[:eq]), value=rest[eq + 1].text)
    raise ValidationError("ALTER SESSION expects SET `option` = value, RESET `option` or RESET ALL")


def _option_name(tokens: list[Token]) -> str:
    """`store.format` written quoted (one token) or bare (store . format)."""
    parts = [t.text for t in tokens if t.token_type != TokenType.DOT]
    if not parts:
        raise ValidationError("ALTER SESSION needs an option name, e.g. `store.format`")
    return ".".join(parts).lower()


def _names(node: exp.Expression | None) -> list[str]:
    if node is None:
        return []
    return [e.name for e in node.expressions]


def classify(text: str) -> Statement:
    """What one statement asks the session to do."""
    tokens = _tokens(text)
    if (
        len(tokens) >= 2
        and tokens[0].token_type == TokenType.ALTER
        and tokens[1].text.upper() == "SESSION"
    ):
        return _alter_session(tokens)
    try:
        with _no_fallback_warning():
            expression = sqlglot.parse_one(text, read=DIALECT)
    except ParseError:
        return Other(None)
    if isinstance(expression, exp.Create):
        return _create(expression, text, tokens)
    if isinstance(expression, exp.Drop) and expression.args.get("kind") in ("TABLE", "VIEW"):
        tables = expression.args.get("tables") or [expression.this]
        if len(tables) == 1 and isinstance(tables[0], exp.Table):
            name = TableName.of(tables[0])
            exists = bool(expression.args.get("exists"))
            if expression.args["kind"] == "TABLE":
                return DropTable(name, exists)
            return DropView(name, exists)
    # sqlglot 30 types parse_one's result as the base class of Expression
    parsed = cast(exp.Expression, expression)
    change = _change(parsed)
    if change is not None:
        return change
    return Other(parsed)


_CHANGE_VERBS: dict[type[exp.Expression], str] = {
    exp.Insert: "INSERT",
    exp.Delete: "DELETE",
    exp.Update: "UPDATE",
    exp.Merge: "MERGE",
    exp.LoadData: "LOAD DATA",
    exp.TruncateTable: "TRUNCATE TABLE",
    exp.Comment: "COMMENT ON TABLE",
    exp.Alter: "ALTER",
}


def _change(expression: exp.Expression) -> Change | None:
    """`expression` as a `Change`, if it writes to or alters tables it names."""
    verb = _CHANGE_VERBS.get(type(expression))
    if verb is None:
        return None
    if isinstance(expression, exp.TruncateTable):
        targets = list(expression.expressions)
    else:
        targets = [expression.this]
    if isinstance(expression, (exp.Alter, exp.Comment)):
        kind = expression.args.get("kind")
        if kind not in ("TABLE", "VIEW"):
            return None
        verb = f"{verb} {kind}" if isinstance(expression, exp.Alter) else verb
    if not targets or not all(isinstance(t, exp.Table) for t in targets):
        return None
    renamed_to = None
    for action in expression.args.get("actions") or []:
        if isinstance(action, exp.AlterRename) and isinstance(action.this, exp.Table):
            renamed_to = TableName.of(action.this)
    tables = tuple(TableName.of(t) for t in targets)
    return Change(tables, verb, expression, renamed_to)


@contextmanager
def _no_fallback_warning() -> Iterator[None]:
    """Without sqlglot's warning that a statement it does not model (SHOW, CACHE...) is kept
    as a command: Spark runs those as written, and the warning would print on each one."""
    logger = logging.getLogger("sqlglot")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def is_show(expression: Any) -> bool:
    """Whether a parsed statement is a SHOW (sqlglot keeps those as commands)."""
    return isinstance(expression, exp.Command) and str(expression.this).upper() == "SHOW"


def _query_text(text: str, tokens: list[Token]) -> str:
    """The text after the first `AS` outside parentheses: a CREATE's query as written."""
    depth = 0
    for token in tokens:
        if token.token_type == TokenType.L_PAREN:
            depth += 1
        elif token.token_type == TokenType.R_PAREN:
            depth -= 1
        elif token.token_type == TokenType.ALIAS and depth == 0:
            return text[token.end + 1 :].strip()
    raise ValidationError("CREATE TEMPORARY TABLE needs AS <query>")


def _create(create: exp.Create, text: str, tokens: list[Token]) -> Statement:
    kind = create.args.get("kind")
    target = create.this
    columns = None
    typed_columns = False
    if isinstance(target, exp.Schema):
        columns = _names(target)
        typed_columns = any(not isinstance(c, exp.Identifier) for c in target.expressions)
        target = target.this
    if kind not in ("TABLE", "VIEW") or not isinstance(target, exp.Table):
        return Other(create)
    properties = create.args.get("properties")
    props = properties.expressions if properties else []
    temporary = any(isinstance(p, exp.TemporaryProperty) for p in props)
    name = TableName.of(target)
    query = create.expression
    if kind == "TABLE" and temporary and query is not None:
        partition_by: list[str] = []
        for prop in props:
            if isinstance(prop, exp.PartitionedByProperty):
                partition_by = [c.name for c in prop.this.expressions]
        if typed_columns:
            raise ValidationError(
                "CREATE TEMPORARY TABLE takes a list of column names without types: "
                "the types come from the query"
            )
        return CreateTemporaryTable(
            table=name,
            columns=columns,
            partition_by=partition_by,
            if_not_exists=bool(create.args.get("exists")),
            query=query,
            query_text=_query_text(text, tokens),
        )
    return CreateObject(name, kind, temporary, create)


def _cte_names(expression: exp.Expression) -> set[str]:
    return {cte.alias_or_name.lower() for cte in expression.find_all(exp.CTE)}


def table_references(expression: exp.Expression) -> Iterator[tuple[exp.Table, TableName]]:
    """Every table a statement reads, except names that are its own CTEs (unqualified)."""
    ctes = _cte_names(expression)
    for table in expression.find_all(exp.Table):
        if not table.name:
            continue
        name = TableName.of(table)
        if name.workspace is None and name.name.lower() in ctes:
            continue
        yield table, name


def rewrite_tables(
    expression: exp.Expression, target: Callable[[TableName], str | None]
) -> tuple[exp.Expression, bool]:
    """A copy of `expression` where each table for which `target` gives a name reads that
    (unqualified, quoted) name instead; the flag says whether anything changed."""
    copy = expression.copy()
    changed = False
    for table, name in list(table_references(copy)):
        new = target(name)
        if new is None:
            continue
        table.set("this", exp.to_identifier(new, quoted=True))
        table.set("db", None)
        table.set("catalog", None)
        changed = True
    return copy, changed


def to_sql(expression: exp.Expression) -> str:
    """Spark SQL text of a sqlglot expression."""
    return expression.sql(dialect=DIALECT)
