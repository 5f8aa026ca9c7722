"""Scan schema tracking (seed 001): one output schema for every batch of a scan.

The tracker starts from the projection and the optional defined/provided schemas, learns the
reader's columns file by file, types the columns no file has (missing columns), adds implicit
file columns, and keeps the output schema stable (or lets it grow, if allowed).
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from batchloader import locations
from batchloader._core import (
    BatchLoaderError,
    ResultSetLoader,
    SchemaConflictError,
    repeat_utf8,
)
from batchloader.column_paths import member_path, path_step, top_name
from batchloader.hive_partitions import HiveLayout, PartitionValue
from batchloader.projection import ProjectedColumn, Projection, spelled

log = logging.getLogger("batchloader")

FILE_COLUMNS = ("fqn", "filepath", "filename", "suffix")
#: the type of a column no file has and nothing else types (DESIGN.md: nullable utf8)
DEFAULT_NULL_TYPE = pa.utf8()


@dataclass
class ImplicitColumns:
    """Names of the implicit file columns and the partition prefix (`dir` -> dir0, dir1...)."""

    names: dict[str, str] = field(default_factory=lambda: {k: k for k in FILE_COLUMNS})
    partition_prefix: str = "dir"
    #: `key=value` partition folders as typed columns named by their keys (a scan's
    #: `partition_style="hive"`), where `<partition_prefix>N` hold folder names otherwise
    hive: HiveLayout | None = None

    @classmethod
    def renamed(
        cls,
        implicit_names: dict[str, str] | None = None,
        partition_prefix: str = "dir",
        hive: HiveLayout | None = None,
    ) -> ImplicitColumns:
        """The implicit columns with some file columns renamed (`{"filename": "fname"}`)
        and partition columns named `<partition_prefix>0`... (or by `hive`'s keys)."""
        if not isinstance(partition_prefix, str) or not partition_prefix:
            raise ValueError(
                f"partition_prefix must be a non-empty text (dir: dir0, dir1...), not "
                f"{partition_prefix!r}: else every column named by digits is a partition column"
            )
        implicit = cls(partition_prefix=partition_prefix, hive=hive)
        for kind, name in (implicit_names or {}).items():
            if kind not in implicit.names:
                where = (
                    f"; partition columns are renamed by partition_prefix "
                    f"('{partition_prefix}' now)"
                    if implicit.partition_index(kind) is not None
                    else ""
                )
                raise ValueError(
                    f"implicit_names has no file column {kind!r}: it renames "
                    f"{', '.join(FILE_COLUMNS)}{where}"
                )
            if not isinstance(name, str) or not name:
                raise ValueError(
                    f"implicit_names gives file column {kind!r} {name!r}: a name must be a "
                    "non-empty text"
                )
            implicit.names[kind] = name
        seen: dict[str, str] = {}
        for kind, name in implicit.names.items():
            if name.lower() in seen:
                raise ValueError(
                    f"implicit_names makes {name!r} the name of two file columns "
                    f"({seen[name.lower()]} and {kind}; names are case-insensitive)"
                )
            seen[name.lower()] = kind
            if implicit.partition_index(name) is not None:
                raise ValueError(
                    f"implicit_names names file column {kind!r} {name!r}, the name of a "
                    f"partition column (partition_prefix '{partition_prefix}')"
                )
        return implicit

    def partition_index(self, name: str) -> int | None:
        """n for a partition column's name (`dir<n>`, or the n-th key of a hive layout; case
        aside), else None."""
        if self.hive is not None:
            return self.hive.index(name)
        low, prefix = name.lower(), self.partition_prefix.lower()
        if low.startswith(prefix) and low[len(prefix) :].isdigit():
            return int(low[len(prefix) :])
        return None

    def kind_of(self, name: str) -> tuple[str, int] | None:
        """("fqn"|"filepath"|"filename"|"suffix", 0) or ("partition", n) for an implicit name."""
        low = name.lower()
        for kind, col in self.names.items():
            if col.lower() == low:
                return kind, 0
        n = self.partition_index(name)
        return None if n is None else ("partition", n)

    def partition_name(self, n: int) -> str:
        """The name of the n-th partition column."""
        return self.hive.names[n] if self.hive is not None else f"{self.partition_prefix}{n}"

    def type_of(self, kind: tuple[str, int]) -> pa.DataType:
        """The type of an implicit column: utf8, but for a hive layout's partition column."""
        if self.hive is not None and kind[0] == "partition":
            return self.hive.types[kind[1]]
        return pa.utf8()

    def renaming_hint(self, name: str) -> str:
        """How to rename implicit column `name` out of a data column's way."""
        if self.hive is not None and self.partition_index(name) is not None:
            return "partition_style='drill' (dir0, dir1...)"
        if self.partition_index(name) is not None:
            return f"partition_prefix='...' (now '{self.partition_prefix}')"
        kind = self.kind_of(name)
        return f"implicit_names={{'{kind[0] if kind else name.lower()}': '...'}}"

    @staticmethod
    def values(path: str, root: str | None) -> dict[tuple[str, int], str | None]:
        """The implicit values of one file: fqn, filepath, filename, suffix, dirN."""
        path = locations.absolute(path)
        name = os.path.basename(path)
        out: dict[tuple[str, int], str | None] = {
            ("fqn", 0): path,
            ("filepath", 0): os.path.dirname(path),
            ("filename", 0): name,
            ("suffix", 0): name.rsplit(".", 1)[1] if "." in name else None,
        }
        if root is not None:
            for i, part in enumerate(folders_below(os.path.dirname(path), root)):
                out[("partition", i)] = part
        return out

    def file_values(self, path: str, root: str | None) -> dict[tuple[str, int], Any]:
        """`values`, a hive layout's partition columns typed (`PartitionValue`s)."""
        values: dict[tuple[str, int], Any] = dict(ImplicitColumns.values(path, root))
        if self.hive is not None:
            values = {k: v for k, v in values.items() if k[0] != "partition"}
            if root is not None and self.hive.names:
                for i, value in enumerate(self.hive.values(path, root)):
                    values[("partition", i)] = value
        return values

    def named_values(self, path: str, root: str | None, depth: int) -> dict[str, Any]:
        """The implicit values of one file by lower-cased column name: the file columns and
        the partition columns up to `depth` (None past the file's own folders; a hive
        layout's typed: ints, floats, decimals, dates, datetimes)."""
        values = self.file_values(path, root)
        out = {self.names[kind].lower(): values.get((kind, 0)) for kind in FILE_COLUMNS}
        for i in range(depth):
            value = values.get(("partition", i))
            out[self.partition_name(i).lower()] = getattr(value, "value", value)
        return out


def folders_below(directory: str, root: str) -> list[str]:
    """The folder names from `root` down to `directory` (both absolute): `dir0`, `dir1`...
    of the files there. A directory under the root is cut by prefix (a scan does this per
    file); any other goes through `os.path.relpath` (`..` parts and all)."""
    root = locations.absolute(root)
    if directory == root:
        return []
    prefix = root if root.endswith(os.sep) else root + os.sep
    if directory.startswith(prefix):
        return directory[len(prefix) :].split(os.sep)
    rel = os.path.relpath(directory, root)
    return [] if rel == "." else rel.split(os.sep)


@dataclass(frozen=True)
class OutputColumn:
    """One column of the scan's output: its field (None while its type is unknown) and, for
    an implicit column, the file value it holds (`("filename", 0)`, `("partition", 2)`)."""

    name: str
    field: pa.Field | None
    implicit: tuple[str, int] | None


@dataclass
class _Column:
    """One output column: where it comes from and its type (None = not yet known)."""

    name: str
    source: str  # "reader" | "implicit"
    field: pa.Field | None = None
    implicit: tuple[str, int] | None = None
    #: the type was invented (projection shape or null_type), not seen in any file
    guessed: bool = False
    #: the type came from the provided or defined schema
    declared: bool = False
    projection: ProjectedColumn | None = None
    #: lower-case paths (`n`, `m.x`, `l[]`) whose types no value has shown yet: a reader
    #: gave them from nulls or empty lists (None: no batch had the column yet)
    unconfirmed: frozenset[str] | None = None
    #: lower-case paths the column's batches have had so far (a part first met later, only
    #: null, is unconfirmed even if the column's other parts are not)
    seen: frozenset[str] = frozenset()
    #: lower-case paths of the members the projection spliced into the last reader batch's
    #: struct (typed by guess: the reader had none)
    spliced: frozenset[str] = frozenset()
    #: (reader type, field) when a reader type was last found to change nothing: the field
    #: was that very object and already had that type (nothing spliced, merged or guessed);
    #: while both hold, the same reader type changes nothing again
    steady: tuple[pa.DataType, pa.Field] | None = None
    #: the type of a reader batch's column after which every path of it was confirmed:
    #: while none is unconfirmed, a batch with that type confirms nothing new
    settled: pa.DataType | None = None
    #: lower-case paths whose types were guesses when the first batch fixed the schema
    #: (`unconfirmed` then): for good, a reader writes any JSON value there as its text
    text_guesses: frozenset[str] = frozenset()


def no_value_paths(values: pa.Array, path: str) -> frozenset[str]:
    """The paths in `values` (`path`, `path.member`, `path[]` for list elements; lower-case)
    whose type no value in it shows: all null, or lists without an element."""
    if values.null_count == len(values):
        return frozenset([path])
    t = values.type
    if pa.types.is_struct(t):
        out: frozenset[str] = frozenset()
        for f, member in zip(t, values.flatten(), strict=True):
            out |= no_value_paths(member, member_path(path, f.name.lower()))
        return out
    if _is_list(t):
        elements = values.flatten()
        return no_value_paths(elements, f"{path}[]") if len(elements) else frozenset([f"{path}[]"])
    return frozenset()


def _guesses(col: _Column) -> frozenset[str]:
    """The lower-case paths of reader column `col` whose types no value has shown: the
    whole column if no file had it (a type invented), else its unconfirmed parts; none for
    a column the user typed."""
    if col.source != "reader" or col.declared or col.field is None:
        return frozenset()
    if col.guessed:
        return frozenset([path_step(col.name.lower())])
    return col.unconfirmed or frozenset()


def memo_holds(memo: tuple[Any, ...] | None, version: int, schema: pa.Schema) -> bool:
    """Whether `memo` (schema version, schema, ...) was noted at schema version `version`
    for a schema equal to `schema`: what it says of that schema still holds."""
    return memo is not None and memo[0] == version and memo[1].equals(schema)


def _is_settled(col: _Column, read: pa.DataType) -> bool:
    """Whether a reader batch whose column `col` has type `read` confirms nothing new of
    it: every path of that type was seen and confirmed before, and none is unconfirmed."""
    return col.unconfirmed == frozenset() and not col.spliced and col.settled == read


def _is_steady(col: _Column, read: pa.DataType) -> bool:
    """Whether a reader column of type `read` leaves `col` as it is, as the last time that
    type was applied to it (its field unchanged since)."""
    return col.steady is not None and col.steady[1] is col.field and col.steady[0] == read


def type_paths(t: pa.DataType, path: str) -> frozenset[str]:
    """Every path a value of type `t` at `path` has: itself, its members, its elements."""
    out = {path}
    if pa.types.is_struct(t):
        for f in t:
            out |= type_paths(f.type, member_path(path, f.name.lower()))
    elif _is_list(t):
        out |= type_paths(t.value_type, f"{path}[]")
    return frozenset(out)


def _within(path: str, paths: frozenset[str] | None) -> bool:
    """Whether `path` is one of `paths` or lies under one (a member or element of it)."""
    return any(path == p or path.startswith((f"{p}.", f"{p}[]")) for p in paths or ())


def _is_list(t: pa.DataType) -> bool:
    return pa.types.is_list(t) or pa.types.is_large_list(t)


def _is_struct_like(t: pa.DataType) -> bool:
    return pa.types.is_struct(t) or pa.types.is_map(t)


def _through_lists(t: pa.DataType) -> pa.DataType:
    """The element type under any lists (`m.x` on a list of structs names x of each)."""
    while _is_list(t):
        t = t.value_type
    return t


def check_kind(col: ProjectedColumn | None, f: pa.Field, file: str | None) -> None:
    """Seed 004's kind validation: `c[1]` needs an array, `m.x` a struct or map (or a list
    of them: `c[1].x`, Drill's repeated map)."""
    if col is None:
        return
    where = f" in {file}" if file else ""
    if col.wants_array and not _is_list(f.type):
        raise SchemaConflictError(
            f"column '{f.name}' is projected as an array ({col.name}[...]) but is "
            f"{f.type}{where}, not a list"
        )
    if col.wants_members and not _is_struct_like(_through_lists(f.type)):
        raise SchemaConflictError(
            f"column '{f.name}' is projected as a map ({col.name}.<member>) but is "
            f"{f.type}{where}, not a struct or map"
        )
    if col.members is not None and pa.types.is_struct(f.type):
        for member in col.members.columns:
            idx = f.type.get_field_index(member.name)
            if idx < 0:
                idx = next(
                    (i for i, m in enumerate(f.type) if m.name.lower() == member.name.lower()),
                    -1,
                )
            if idx >= 0:
                check_kind(member, f.type.field(idx), file)


@dataclass
class _Tally:
    """Something the scan says once, for the first file that has it, then counts: a column
    it drops (one a file), values kept as text in a guessed column (how many a file)."""

    name: str
    #: in every file
    total: int
    #: of it, in the files after the first, not said yet; those files, and the last one
    unsaid: int = 0
    unsaid_files: int = 0
    last: str = ""

    def add(self, count: int, where: str) -> None:
        """Count `count` more in file (or reader) `where`, after the first."""
        self.total += count
        self.unsaid += count
        self.unsaid_files += 1
        self.last = where


def _first_counts(
    tallies: dict[str, _Tally], counts: list[tuple[str, int]], file: str
) -> list[tuple[str, int]]:
    """Add `counts` (by column path) of `file` to `tallies`; the ones no earlier file had,
    which the caller says."""
    first = []
    for path, count in counts:
        tally = tallies.get(path)
        if tally is None:
            tallies[path] = _Tally(path, count)
            first.append((path, count))
        else:
            tally.add(count, file)
    return first


class ScanSchemaTracker:
    """Computes the scan's output schema from the projection, schemas and the readers."""

    def __init__(
        self,
        projection: Projection,
        defined_schema: pa.Schema | None = None,
        provided_schema: pa.Schema | None = None,
        *,
        strict: bool = False,
        allow_schema_change: bool = False,
        null_type: pa.DataType = DEFAULT_NULL_TYPE,
        implicit: ImplicitColumns | None = None,
        partition_depth: int = 0,
    ) -> None:
        self.projection = projection
        self.defined_schema = defined_schema
        self.provided_schema = provided_schema
        self.strict = strict or defined_schema is not None
        self.allow_schema_change = allow_schema_change
        self.null_type = null_type
        self.implicit = implicit or ImplicitColumns()
        self.schema_version = 0
        self._output_cache: tuple[int, list[OutputColumn], pa.Schema] | None = None
        self._resolved = False
        self._hinted: set[str] = set()  # keys an unquoted projection path was said to miss
        self._hidden: set[str] = set()  # keys a projected file column was said to hide
        self.start_pass()
        self._columns: list[_Column] = []
        declared = defined_schema or provided_schema
        if defined_schema is not None and projection.kind == "some":
            reader_names = [
                c.name for c in projection.columns if self.implicit.kind_of(c.name) is None
            ]
            if [n.lower() for n in reader_names] != [n.lower() for n in defined_schema.names]:
                raise SchemaConflictError(
                    f"the defined schema {defined_schema.names} does not match the "
                    f"projection {reader_names} (same names, same order)"
                )
        if projection.kind == "some" or projection.kind == "none":
            for pc in projection.columns:
                kind = self.implicit.kind_of(pc.name) if not pc.members else None
                if kind is not None:
                    f = pa.field(pc.name, self.implicit.type_of(kind))
                    self._columns.append(_Column(pc.name, "implicit", f, kind))
                    continue
                col = _Column(pc.name, "reader", projection=pc)
                if declared is not None:
                    i = _index_ci(declared, pc.name)
                    if i >= 0:
                        col.field = declared.field(i).with_name(pc.name)
                        col.declared = True
                        check_kind(pc, col.field, None)
                self._columns.append(col)
        else:  # wildcard: declared columns first, reader columns as they come, then implicit
            hive = self.implicit.hive
            if declared is not None:
                for f in declared:
                    if hive is not None and hive.index(f.name) is not None:
                        continue  # a partition column the schema types (`HiveLayout.of`)
                    self._columns.append(_Column(f.name, "reader", f, declared=True))
            file_columns = [(self.implicit.names[kind], (kind, 0)) for kind in FILE_COLUMNS]
            file_columns += [
                (self.implicit.partition_name(i), ("partition", i)) for i in range(partition_depth)
            ]
            for name, value in file_columns:
                partition = hive is not None and value[0] == "partition"
                if declared is not None and _index_ci(declared, name) >= 0 and not partition:
                    self._warn_file_column_left_out(name, "the schema")
                    continue
                t = self.implicit.type_of(value)
                self._columns.append(_Column(name, "implicit", pa.field(name, t), value))
        self.schema_version = sum(1 for c in self._columns if c.field is not None)
        #: the first column of each lower-case name (a file may have thousands of columns:
        #: a scan looks each of them up for every file)
        self._by_name: dict[str, _Column] = {}
        for c in self._columns:
            self._by_name.setdefault(c.name.lower(), c)
        # (schema version, reader schema) of the last call of `apply_reader_schema` or
        # `note_values` that changed nothing: the same schema at the same version changes
        # nothing again (a wide schema's batches, small files); and `missing_columns`'
        # answer for a schema at a version
        self._quiet_reader: tuple[int, pa.Schema] | None = None
        self._quiet_values: tuple[int, pa.Schema] | None = None
        self._quiet_missing: tuple[int, pa.Schema, list[pa.Field]] | None = None

    # ------------------------------------------------------------------ queries

    @property
    def projection_type(self) -> str:
        """ "all", "some" or "none"."""
        return self.projection.kind

    def column_projection(self, name: str) -> ProjectedColumn | None:
        """The projection of a column, if any."""
        return self.projection.get(name)

    @property
    def is_resolved(self) -> bool:
        """Whether every output column has a concrete type (after the first file, at the
        latest)."""
        return self._resolved or (
            all(c.field is not None for c in self._columns)
            and (self.projection.kind != "all" or self.defined_schema is not None)
        )

    def _top_of(self, path: str) -> str:
        """The top-level column `path` (`m.x`, `l[]`, `a.b`...) lies in, by name."""
        return top_name(path)

    def _find(self, name: str) -> _Column | None:
        return self._by_name.get(name.lower())

    def _insert(self, at: int, col: _Column) -> None:
        """Insert `col` (a name no column has) at position `at`."""
        self._columns.insert(at, col)
        self._by_name[col.name.lower()] = col

    def _remove(self, col: _Column) -> None:
        """Take `col` out of the columns."""
        self._columns = [c for c in self._columns if c is not col]
        del self._by_name[col.name.lower()]

    def output_columns(self) -> list[OutputColumn]:
        """Every output column in order: its field (None while unknown) and, for an implicit
        column, which file value it holds."""
        return self._output()[1]

    def _output(self) -> tuple[int, list[OutputColumn], pa.Schema]:
        """The output columns and schema as of `schema_version` (every change to a column's
        field or to the columns bumps it), built once per version: a scan asks for them
        for every batch."""
        if self._output_cache is None or self._output_cache[0] != self.schema_version:
            columns = [OutputColumn(c.name, c.field, c.implicit) for c in self._columns]
            schema = pa.schema([c.field for c in columns if c.field is not None])
            self._output_cache = (self.schema_version, columns, schema)
        return self._output_cache

    def implicit_columns(self) -> list[tuple[str, tuple[str, int]]]:
        """(output name, (kind, index)) of the implicit columns, in output order."""
        return [(c.name, c.implicit) for c in self._columns if c.implicit is not None]

    def reader_input_schema(self) -> pa.Schema:
        """The reader columns whose type is already known (the reader writes into them)."""
        return pa.schema([c.field for c in self._typed_for_readers()])

    def _typed_for_readers(self) -> list[_Column]:
        """The reader columns a reader is given typed: known, not invented (unless the
        schema fixed the invention: `text_guesses`), and, while types may change, with every
        type shown by a value (a reader retypes the rest afresh)."""
        may_change = self._may_change()
        return [
            c
            for c in self._columns
            if c.source == "reader"
            and c.field is not None
            and not (c.guessed and not c.text_guesses)
            and not (may_change and (c.unconfirmed or c.guessed))
        ]

    def reader_projection(self) -> list[str] | None:
        """The projection handed to the loader: implicit columns removed; with a wildcard and
        a fixed schema, the columns already known."""
        implicit = {c.name.lower() for c in self._columns if c.source == "implicit"}
        if self.projection.kind == "all":
            fixed = self.strict or (self._resolved and not self.allow_schema_change)
            if fixed:  # names as paths spell them: `a.b` is not member b of a
                return [spelled(c.name) for c in self._columns if c.source == "reader"]
            return None
        return self.projection.loader_paths(exclude=implicit)

    def _may_change(self) -> bool:
        """Whether column types may still change: no batch fixed them yet, or the scan
        allows schema changes."""
        return not self.strict and (not self._resolved or self.allow_schema_change)

    def _inferred(self) -> list[_Column]:
        """Reader columns typed from earlier files' data: neither declared nor guessed."""
        return [
            c
            for c in self._columns
            if c.source == "reader" and c.field is not None and not c.declared and not c.guessed
        ]

    def reader_inferred(self) -> list[str]:
        """The columns of `reader_input_schema` a reader may widen as it widens what it
        discovers itself (int64 to float64): those typed from earlier files, while types may
        still change."""
        if not self._may_change():
            return []
        return [c.name for c in self._typed_for_readers() if not c.declared]

    def reader_declared(self) -> list[str]:
        """The columns of `reader_input_schema` whose types the user gave (defined or
        provided schema): the NDJSON reader writes any value to a utf8 column among them, a
        non-string as its JSON text."""
        return [c.name for c in self._typed_for_readers() if c.declared]

    def reader_text_guesses(self) -> list[str]:
        """The parts of `reader_input_schema` (`x`, `m.x`, `l[]`, lower-case) whose types
        were guesses when the first batch fixed them (no value had shown them): the NDJSON
        reader writes any JSON value to a utf8 column among them, a non-string as its JSON
        text, as to a declared one, so a later value of another type is kept, not refused."""
        if self._may_change():
            return []
        out = []
        for c in self._typed_for_readers():
            if c.text_guesses and c.field is not None:
                present = type_paths(c.field.type, path_step(c.name.lower()))
                out += sorted(p for p in c.text_guesses if p in present)
        return out

    def inferred_types(self) -> dict[str, pa.DataType]:
        """By lower-case name, the reader columns' types taken from the data so far."""
        return {c.name.lower(): c.field.type for c in self._inferred() if c.field is not None}

    def why_fixed(self, path: str, message: str) -> str | None:
        """Why column `path` (as an error names it: `a`, `m.x`, `l[]`) refuses a value, if
        the first batch fixed its type from the data: a guess from nulls or empty lists, or
        an int64 meeting a fraction; None otherwise."""
        if self.strict or self._may_change():
            return None
        top = self._top_of(path)
        col = self._find(top)
        if col is None or col.source != "reader" or col.declared or col.field is None:
            return None
        if _within(path.lower(), col.unconfirmed) or _within(path.lower(), col.text_guesses):
            if "null type" in message:
                return None  # the reader said so already
            return (
                f"'{path}' had only nulls or empty lists before (or no row had it), so its type "
                "was a guess that the scan's first batch fixed: give its type in schema=, or "
                "pass allow_schema_change=True to let a later file retype it"
            )
        if _FRACTION_IN_INT64.search(message):
            return (
                f"'{top}' is {col.field.type} as the scan's first batch fixed it from the data: "
                "give its type in schema= or pass allow_schema_change=True"
            )
        return None

    # ------------------------------------------------------------------ resolution

    def apply_reader_schema(
        self,
        reader_schema: pa.Schema,
        file: str | None = None,
        batch: pa.RecordBatch | None = None,
    ) -> None:
        """Resolve dynamic columns with the types a reader produced; check the others. With
        the reader's `batch`, a part of a column no value of it shows (all null, or lists
        without an element) keeps the type an earlier batch gave it."""
        if memo_holds(self._quiet_reader, self.schema_version, reader_schema):
            return
        self._quiet_reader = None
        where = f"file {file}" if file else "the reader"
        last_reader = None  # where the last reader column is, found at the first insert
        names, types = reader_schema.names, reader_schema.types
        quiet = True
        for i, (name, t) in enumerate(zip(names, types, strict=True)):
            col = self._find(name)
            if col is not None:
                if _is_steady(col, t):
                    continue  # a wide schema's batches: most columns have the type they had
                col.steady = None
            quiet = False
            self._quiet_values = None  # its flags and spliced members may change
            f = reader_schema.field(i)
            if col is None or col.source == "implicit":
                if self.projection.kind != "all":
                    continue  # the loader dropped it already; nothing to do
                if col is not None and col.implicit is not None and self._partition_wins(col):
                    self._hint_hidden(f.name, file or "a reader's batch")
                    continue
                if self._resolved and not self.allow_schema_change:
                    self._warn_ignored(f.name, where)
                    continue
                if self.strict:
                    continue
                if col is not None:  # a file column's name: the data keeps it
                    self._remove(col)
                    self._warn_file_column_left_out(col.name, where)
                col = _Column(f.name, "reader", f)
                if last_reader is None:
                    last_reader = max(
                        (i for i, c in enumerate(self._columns) if c.source == "reader"),
                        default=-1,
                    )
                last_reader += 1
                self._insert(last_reader, col)
                self.schema_version += 1
                continue
            check_kind(col.projection, f, file)
            read, f = f, self._with_projected_members(col.projection, f)
            name = path_step(col.name.lower())
            col.spliced = frozenset()
            if f is not read:
                col.spliced = type_paths(f.type, name) - type_paths(read.type, name)
            if col.field is None:
                col.field = f.with_name(col.name)
                self.schema_version += 1
                continue
            merged = col.field.type
            if f.type != merged:
                # the parts no value of this batch shows, and the members spliced in (the
                # reader had none), say nothing of their types
                blank = no_value_paths(batch.column(i), name) if batch else frozenset()
                merged = self._merge_type(col, merged, f.type, where, blank=blank | col.spliced)
            if col.guessed and self._may_change():
                col.guessed = False  # a reader gave it a type: its values say how sure
            if merged != col.field.type:
                col.field = col.field.with_type(merged)
                self.schema_version += 1
            elif f is read and f.type == merged and not col.guessed:
                col.steady = (f.type, col.field)
        if quiet:
            self._quiet_reader = (self.schema_version, reader_schema)

    def note_values(self, batch: pa.RecordBatch) -> None:
        """Learn from a reader's batch (after `apply_reader_schema`) which of its columns'
        types a value has shown: the others stay guesses a later file may replace while
        types may change."""
        schema = batch.schema
        if memo_holds(self._quiet_values, self.schema_version, schema):
            return
        self._quiet_values = None
        quiet = True
        for i, (name, t) in enumerate(zip(schema.names, schema.types, strict=True)):
            col = self._find(name)
            if col is None or col.source != "reader" or col.declared or col.guessed:
                continue
            if _is_settled(col, t):
                continue  # every path it has was seen before and confirmed
            quiet = False
            values = batch.column(i)
            paths = no_value_paths(values, path_step(col.name.lower()))
            present = type_paths(values.type, path_step(col.name.lower()))
            if col.unconfirmed is None:
                col.unconfirmed = paths
            else:
                old, seen = col.unconfirmed, col.seen
                col.unconfirmed = frozenset(
                    # unconfirmed in both (a retyped part as this batch has it), or a part
                    # no earlier batch had; a part this batch lacks it says nothing of
                    [p for p in paths if _within(p, old) or p not in seen]
                    + [p for p in old if _within(p, paths) or p not in present]
                )
            col.seen = col.seen | present
            if col.spliced:
                # members the projection spliced in, typed by guess: no value showed their
                # types, unless an earlier batch had them
                col.unconfirmed = col.unconfirmed | (col.spliced - col.seen)
            col.settled = values.type if not col.unconfirmed else None
        if quiet:
            self._quiet_values = (self.schema_version, schema)

    def note_ignored(self, names: list[str], file: str) -> None:
        """Log the columns a reader met that the fixed wildcard schema left out."""
        if self.projection.kind != "all":
            # an explicit projection drops other columns by design: nothing to say, but for
            # a key its own path names unquoted (`a.b` reads member b of a, not "a.b"), and
            # a key a projected file column hides
            for name in names:
                self._hint_quoting(name, file)
                self._hint_hidden(name, file)
            return
        for name in names:
            col = self._by_name.get(name.lower())
            if col is not None and self._partition_wins(col):
                self._hint_hidden(name, file)
            else:
                self._warn_ignored(name, f"file {file}")

    def _hint_quoting(self, name: str, file: str) -> None:
        """Say (once a scan) that the projection's unquoted path spelled like column `name`
        of `file` names a part of another column, and how to read `name` instead."""
        found = self.projection.unquoted_parts.get(name.lower())
        if found is None or name.lower() in self._hinted:
            return
        self._hinted.add(name.lower())
        top, part = found
        log.warning(
            "the projection's %s names %s of column '%s', but file %s has a column '%s': "
            "write %s to read it",
            name,
            part,
            top,
            file,
            name,
            spelled(name),
        )

    def _partition_wins(self, col: _Column) -> bool:
        """Whether file column `col` keeps its place against a data column of its name in
        a wildcard scan: a hive partition column does (as in Spark); others give way."""
        return (
            self.implicit.hive is not None
            and col.implicit is not None
            and (col.implicit[0] == "partition")
        )

    def _hint_hidden(self, name: str, file: str) -> None:
        """Say (once a scan per name) that the scan reads file column `name` (as Drill does,
        where the projection names it; a hive partition column always), which hides
        `file`'s data column of that name, and how to read it."""
        col = self._by_name.get(name.lower())
        if col is None or col.source != "implicit" or name.lower() in self._hidden:
            return
        self._hidden.add(name.lower())
        log.warning(
            "'%s' is the file column; file %s also has a column '%s', "
            "left out (rename the file columns with %s to read it)",
            col.name,
            file,
            name,
            self.implicit.renaming_hint(col.name),
        )

    def note_ignored_members(self, paths: list[str], file: str) -> None:
        """Log the struct members (`m.x`) a reader skipped because the schema it was given
        lacks them while the projection wants them: whatever the projection, as they hold
        values the batches cannot take (a schema fixed by a sample, say)."""
        for path in paths:
            self._warn_ignored(path, f"file {file}")

    def _warn_file_column_left_out(self, name: str, where: str) -> None:
        """Say that a wildcard scan leaves out file column `name`: `where` has a data column
        of that name, which keeps it."""
        log.warning(
            "file column '%s' is left out: %s has a column of that name, whose values the "
            "scan keeps (rename the file columns with %s)",
            name,
            where,
            self.implicit.renaming_hint(name),
        )

    def _warn_ignored(self, name: str, where: str) -> None:
        """Note that the scan drops column (or member) `name`, met late in `where`: said
        for the first file that has it; the files after it are counted, and said at the
        scan's end (`log_ignored_files`), so that many files do not log a line each."""
        key = name.lower()
        if (key, where) in self._warned:
            return
        self._warned.add((key, where))
        ignored = self._ignored.get(key)
        if ignored is not None:
            ignored.add(1, where)
            return
        self._ignored[key] = _Tally(name, 1)
        log.warning(
            "ignoring new column '%s' in %s: the schema was fixed by the first batch (give it "
            "in schema=, or pass allow_schema_change=True); later files that have it are "
            "counted and said at the scan's end",
            name,
            where,
        )

    def start_pass(self) -> None:
        """Count ignored columns and values kept as text afresh: a scan's pass over its
        files starts (the schema stays as earlier passes fixed it)."""
        self._warned: set[tuple[str, str]] = set()  # (column, file) told about ignoring
        #: by lower-case name, the columns (and members) ignored in this pass
        self._ignored: dict[str, _Tally] = {}
        #: by column path, the values readers kept as JSON text in guessed utf8 columns
        self._text_kept: dict[str, _Tally] = {}
        #: by column path, the whole numbers past int64 readers rounded to float64
        self._rounded: dict[str, _Tally] = {}

    def log_ignored_files(self) -> None:
        """Say, once per ignored column, how many files after its first had it too; per
        guessed column, the values later files kept as text in it; per float64 column,
        the whole numbers later files rounded in it."""
        for tallies, what in (
            (self._text_kept, "value(s) of another type kept as JSON text"),
            (self._rounded, "whole number(s) past int64 rounded to float64"),
        ):
            for kept in tallies.values():
                if kept.unsaid:
                    log.warning(
                        "column '%s': %d more %s in %d more file(s) (the last: %s)",
                        kept.name,
                        kept.unsaid,
                        what,
                        kept.unsaid_files,
                        kept.last,
                    )
                    kept.unsaid = kept.unsaid_files = 0
        for ignored in self._ignored.values():
            if ignored.unsaid:
                log.warning(
                    "ignoring new column '%s' in %d more file(s) as well (the last: %s)",
                    ignored.name,
                    ignored.unsaid,
                    ignored.last,
                )
                ignored.unsaid = ignored.unsaid_files = 0

    def note_text_kept(self, counts: list[tuple[str, int]], file: str) -> None:
        """Count the values a reader of `file` kept as their JSON text in columns (by path)
        whose utf8 type the first batch fixed by guess: the first file that has any in a
        column says so, the later ones are said together at the scan's end
        (`log_ignored_files`); the counts are `text_kept`."""
        for path, count in _first_counts(self._text_kept, counts, file):
            log.warning(
                "column '%s' is utf8 by a guess: the batch that fixed the schema had no "
                "value there to show its type (only nulls, or empty lists); %d value(s) "
                "of another type in file %s were kept as their JSON text, and later ones "
                "will be too (give its type in schema=, or pass allow_schema_change=True)",
                path,
                count,
                file,
            )

    def note_wholes_rounded(self, counts: list[tuple[str, int]], file: str) -> None:
        """Count the whole numbers past int64 a reader of `file` rounded to float64 in
        columns (by path) the data typed, digits lost: said for the first file that has
        any in a column, the later ones together at the scan's end, as `note_text_kept`;
        the counts are `wholes_rounded`."""
        for path, count in _first_counts(self._rounded, counts, file):
            log.warning(
                "column '%s' is float64, as the data typed it: %d whole number(s) past "
                "int64 in file %s lost digits to float64 (give it a type in schema= that "
                "keeps them: uint64, decimal128(20, 0) or string)",
                path,
                count,
                file,
            )

    def text_kept(self) -> dict[str, int]:
        """The values readers kept as their JSON text because the column's utf8 type was a
        guess the first batch fixed, by column path (`m.x`, `l[]`)."""
        return {path: kept.total for path, kept in self._text_kept.items()}

    def wholes_rounded(self) -> dict[str, int]:
        """The whole numbers past int64 readers rounded to float64 (digits lost) in
        columns the data typed, by column path."""
        return {path: kept.total for path, kept in self._rounded.items()}

    def ignored_columns(self) -> dict[str, int]:
        """The columns (and members, `m.x`) the scan dropped because the schema was fixed
        without them, each with the number of files (or readers) that had it."""
        return {ignored.name: ignored.total for ignored in self._ignored.values()}

    def _with_projected_members(self, pc: ProjectedColumn | None, f: pa.Field) -> pa.Field:
        """Splice the projected members a reader's struct lacks into it (typed by guess), so
        `m.a, m.b` always gives m(a, b). `f` itself if it lacks none."""
        if pc is not None and _is_list(f.type):
            element = self._with_projected_members(pc, f.type.value_field)
            if element is f.type.value_field:
                return f
            make = pa.large_list if pa.types.is_large_list(f.type) else pa.list_
            return f.with_type(make(element))
        if pc is None or pc.members is None or not pa.types.is_struct(f.type):
            return f
        members = list(f.type)
        names = {m.name.lower(): i for i, m in enumerate(members)}
        spliced = False
        for member in pc.members.columns:
            i = names.get(member.name.lower())
            if i is None:
                members.append(pa.field(member.name, self._guess(member)))
                spliced = True
            else:
                inner = self._with_projected_members(member, members[i])
                spliced |= inner is not members[i]
                members[i] = inner
        return f.with_type(pa.struct(members)) if spliced else f

    def _merge_type(
        self,
        col: _Column,
        old: pa.DataType,
        new: pa.DataType,
        where: str,
        path: str = "",
        blank: frozenset[str] = frozenset(),
    ) -> pa.DataType:
        """The type of column `col` at `path` once a reader gave `new` where it had `old`;
        `blank`: the paths no value of the reader's batch shows (their type says nothing)."""
        path = path or path_step(col.name.lower())
        if old == new or _within(path, blank):
            return old
        if self._may_change() and (col.guessed or _within(path, col.unconfirmed)):
            return new  # no value showed the old type: a guess gives way
        if pa.types.is_struct(old) and pa.types.is_struct(new):
            members = {m.name.lower(): m for m in old}
            out = list(old)
            for m in new:
                have = members.get(m.name.lower())
                if have is None:
                    if self._resolved and not self.allow_schema_change and not col.guessed:
                        self._left_out_member(col, member_path(path, m.name.lower()), where, blank)
                        continue
                    out.append(m)
                elif have.type != m.type:
                    i = out.index(have)
                    member = member_path(path, m.name.lower())
                    merged = self._merge_type(col, have.type, m.type, where, member, blank)
                    out[i] = have.with_type(merged)
            return pa.struct(out)
        if pa.types.is_list(old) and pa.types.is_list(new):
            element = self._merge_type(
                col, old.value_type, new.value_type, where, f"{path}[]", blank
            )
            return pa.list_(old.value_field.with_type(element))
        if (
            pa.types.is_int64(old)
            and pa.types.is_float64(new)
            and not col.declared
            and self._may_change()
        ):
            return new  # whole numbers in an earlier file, fractions in this one
        if col.guessed:
            raise SchemaConflictError(
                f"column '{col.name}' was filled with nulls of type {old} (a guess: no earlier "
                f"file had it) but {where} has it as {new}; give its type in the scan's schema"
            )
        if _within(path, col.unconfirmed):
            raise SchemaConflictError(
                f"column '{col.name}' has '{path}' as {old}, a guess (no value had shown its "
                f"type when the first batch fixed the schema), but {where} has it as {new}; "
                "give its type in the scan's schema, or pass allow_schema_change=True"
            )
        at = f" at '{path}'" if path != path_step(col.name.lower()) else ""
        raise SchemaConflictError(
            f"column '{col.name}' changed type{at} from {old} to {new} in {where}"
        )

    def _left_out_member(self, col: _Column, path: str, where: str, blank: frozenset[str]) -> None:
        """A struct member at `path` that the schema the first batch fixed lacks: what it
        holds cannot reach the batches. Nothing is lost if no value of the batch shows it;
        a wildcard scan says so as it does of a new column; a projection that asked for
        the whole struct is refused."""
        if _within(path, blank):
            return
        if self.projection.kind == "all":
            self._warn_ignored(path, where)
            return
        raise SchemaConflictError(
            f"column '{col.name}' has no member at '{path}' in the schema an earlier batch fixed, "
            f"but {where} has values for it; give the column's type in the scan's schema, "
            "or pass allow_schema_change=True"
        )

    def missing_columns(self, reader_schema: pa.Schema) -> list[pa.Field]:
        """The projected reader columns the reader did not produce, typed: provided schema,
        else an earlier file, else the projection's shape, else `null_type`."""
        quiet = self._quiet_missing
        if memo_holds(quiet, self.schema_version, reader_schema):
            return list(quiet[2])  # type: ignore[index]
        have = {n.lower() for n in reader_schema.names}
        out = []
        for col in self._columns:
            if col.source != "reader" or col.name.lower() in have:
                continue
            if col.field is None:
                col.field = pa.field(col.name, self._guess(col.projection))
                col.guessed = True
                self.schema_version += 1
            out.append(col.field)
        self._quiet_missing = (self.schema_version, reader_schema, list(out))
        return out

    def _guess(self, pc: ProjectedColumn | None) -> pa.DataType:
        if pc is None:
            return self.null_type
        if pc.members is not None and pc.members.kind != "all":
            element = pa.struct([pa.field(m.name, self._guess(m)) for m in pc.members.columns])
        elif pc.wants_members:
            element = pa.struct([])
        else:
            element = self.null_type
        return pa.list_(element) if pc.wants_array else element

    def resolve_without_rows(self) -> None:
        """The scan ended before any batch: the projected reader columns still unknown take
        the types a file lacking them would give them, so an empty input has the schema
        its projection names."""
        if not self._resolved:
            self.missing_columns(pa.schema([]))

    def mark_resolved(self) -> None:
        """A batch was handed out: from now on the schema is fixed (unless allowed to grow),
        the types it guessed too (`reader_text_guesses`)."""
        if not self._resolved and not self.allow_schema_change and not self.strict:
            for c in self._columns:
                c.text_guesses = _guesses(c)
        self._resolved = True

    def guessed_paths(self) -> list[str]:
        """Lower-case paths (`x`, `m.x`, `l[]`) of the reader columns' types no value has
        shown (only nulls or empty lists, or no file had the column), as a driver's sample
        leaves them for the executors' scans (`take_text_guesses`)."""
        return [p for c in self._columns for p in sorted(_guesses(c))]

    def take_text_guesses(self, paths: Iterable[str]) -> None:
        """Take `paths` (as `guessed_paths` gives them) as types guessed elsewhere (by a
        driver's sample) and fixed: readers keep any value there as its JSON text
        (`reader_text_guesses`)."""
        for path in paths:
            col = self._find(self._top_of(path))
            if col is not None and col.source == "reader":
                col.text_guesses = col.text_guesses | {path.lower()}

    @property
    def handed_out(self) -> bool:
        """Whether a batch was handed out (`mark_resolved`)."""
        return self._resolved

    def output_schema(self) -> pa.Schema:
        """The schema every batch carries."""
        return self._output()[2]


_TYPE_CONFLICT = re.compile(
    r"column '([^']+)'.*(?:does not fit|cannot take)|field \d+ \((.+?)\) is not "
)
_FRACTION_IN_INT64 = re.compile(r"column '([^']+)'.*float value \S+ does not fit Int64")


@contextlib.contextmanager
def explaining_type_conflicts(why: Callable[[str, str], str | None]) -> Iterator[None]:
    """Re-raise a `BatchLoaderError` raised inside with `why`'s note (see
    `explain_type_conflict`); any other error passes unchanged."""
    try:
        yield
    except BatchLoaderError as e:
        explained = explain_type_conflict(e, why)
        if explained is None:
            raise
        raise explained from e


def type_conflict_path(error: Exception) -> str | None:
    """The path of the column (`m.k`, `l[]`) whose type a value did not fit, if `error`
    is about one (a JSON value's, or a CSV field's: `field 2 (n) is not an integer`)."""
    match = _TYPE_CONFLICT.search(str(error))
    return (match.group(1) or match.group(2)) if match else None


def explain_type_conflict(
    error: Exception, why: Callable[[str, str], str | None]
) -> Exception | None:
    """`error` again with `why(column path, message)` added, if it is about a value its
    column's type cannot take and `why` explains that type; None otherwise."""
    message = str(error)
    path = type_conflict_path(error)
    note = why(path, message) if path is not None else None
    if note is None:
        return None
    explained = type(error)(f"{message} ({note})")
    explained.__dict__.update(error.__dict__)  # an InputError's place (path, line, ...)
    return explained


def _index_ci(schema: pa.Schema, name: str) -> int:
    low = name.lower()
    return next((i for i, n in enumerate(schema.names) if n.lower() == low), -1)


def conform(array: pa.Array, target: pa.DataType) -> pa.Array:
    """`array` shaped as `target`: struct members reordered, missing ones null-filled."""
    if array.type == target:
        return array
    if array.null_count == len(array):
        return pa.nulls(len(array), target)  # no value: nulls of any type say the same
    if pa.types.is_struct(target) and pa.types.is_struct(array.type):
        children, fields = [], []
        for i in range(target.num_fields):
            tf = target.field(i)
            j = next(
                (
                    k
                    for k in range(array.type.num_fields)
                    if array.type.field(k).name.lower() == tf.name.lower()
                ),
                -1,
            )
            child = array.field(j) if j >= 0 else None
            children.append(
                conform(child, tf.type) if child is not None else fill_column(len(array), tf)
            )
            fields.append(tf)
        # a struct without members gets its length from the mask alone
        mask = array.is_null() if array.null_count or not children else None
        return pa.StructArray.from_arrays(children, fields=fields, mask=mask)
    if pa.types.is_list(target) and pa.types.is_list(array.type):
        if array.offset and array.null_count:
            # a slice with nulls: from_arrays takes no sliced offsets with a mask, copy it
            array = pa.concat_arrays([array])
        values = conform(array.values, target.value_type)
        mask = array.is_null() if array.null_count else None
        return pa.ListArray.from_arrays(array.offsets, values, type=target, mask=mask)
    return array.cast(target)


def fill_column(n: int, f: pa.Field) -> pa.Array:
    """`n` values of a column no file had: nulls, or the back-fill value if non-nullable."""
    if f.nullable:
        return pa.nulls(n, f.type)
    loader = ResultSetLoader(pa.schema([f]))
    batches = list(loader.write_rows({} for _ in range(n)))
    return pa.concat_arrays([b.column(0) for b in batches]) if batches else pa.array([], f.type)


def implicit_column(value: str | PartitionValue | None, n: int) -> pa.Array:
    """`n` copies of an implicit column's value (utf8, or a hive partition column's typed
    value), built in Rust: `pa.scalar` and `pa.array` would import pandas on first use
    (0.5 s), and offsets made by pyarrow's running sum cost more than the rest of a flat
    file's batch assembly."""
    if isinstance(value, PartitionValue):
        return value.column(n)
    if value is None:
        return pa.nulls(n, pa.utf8())
    built = repeat_utf8(value, n)
    if built is None:  # past what utf8 offsets address: pyarrow says so (ArrowCapacityError)
        return pa.repeat(pa.scalar(value, pa.utf8()), n)
    return built


def null_column_bytes(t: pa.DataType) -> tuple[int, int, int]:
    """Upper bounds of what a column of nulls of type `t` adds to a batch: (bytes per row,
    bytes per batch, bytes per row of its largest buffer). Validity is counted as a byte."""
    if pa.types.is_struct(t):
        per_row, per_batch, largest = 1, 1, 1
        for member in t:
            r, b, big = null_column_bytes(member.type)
            per_row, per_batch, largest = per_row + r, per_batch + b, max(largest, big)
        return per_row, per_batch, largest
    if pa.types.is_boolean(t):
        return 2, 2, 1
    if pa.types.is_large_string(t) or pa.types.is_large_binary(t) or pa.types.is_large_list(t):
        return 9, 9, 8
    if pa.types.is_string(t) or pa.types.is_binary(t) or pa.types.is_list(t):
        return 5, 5, 4
    if pa.types.is_map(t):
        return 5, 5, 4
    width = max(t.bit_width // 8, 1)
    return width + 1, 1, width


def implicit_column_bytes(value: str | PartitionValue | None) -> tuple[int, int, int]:
    """What a column repeating `value` adds to a batch (same triple as above)."""
    if isinstance(value, PartitionValue):
        return value.room()
    size = len(value.encode()) if value is not None else 0
    return size + 5, 5, max(size, 4)
