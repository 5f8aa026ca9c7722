"""Projection lists (seed 004): `a`, `m.b`, `m1.m2.c[3]`, `*`, or empty, parsed into a tree.

`parse_projection(["a", "m.b", "m.c.d", "c[2]", "c[0]"])` gives kind "some", columns a, m, c;
`p["m"].members` is the projection inside m (b, c(d)); `p["c"].indexes` is [0, 2].
Names are case-insensitive; duplicates merge, keeping the first spelling.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from batchloader.errors import ProjectionError

#: A bare name: a letter (any script) or `_`, then letters, digits, `_` or `$`; any other
#: name goes in backquotes.
_NAME = re.compile(r"[^\W\d][\w$]*")
#: A name in backquotes: any characters, a backquote among them doubled (as in Spark SQL)
_BACKQUOTED = re.compile(r"`((?:[^`]|``)*)`(?!`)")
#: the largest element index a projection may name (the loader's indexes are 64-bit; no
#: Arrow list has more elements)
_MAX_INDEX = 2**63 - 1


@dataclass
class ProjectedColumn:
    """One projected column: its name, the array indexes asked for, and its member projection.

    `indexes` is None when the whole array (or a non-array) is wanted; `members` is None when
    the column is projected whole, else the projection of its members (a map/struct).
    """

    name: str
    indexes: list[int] | None = None
    members: Projection | None = None
    #: the projection asked for array elements (`c[1]`): the column must be a list
    wants_array: bool = False
    #: the projection named members (`m.x`): the column must be a struct or map
    wants_members: bool = False
    _whole: bool = field(default=False, repr=False)

    def merge(self, other: ProjectedColumn) -> None:
        """Fold a second mention of the same column into this one: `c[2], c[0]` -> [0, 2],
        `c[1], c` -> all elements, `m.a, m` -> all members (a still listed)."""
        self.wants_array |= other.wants_array
        self.wants_members |= other.wants_members
        self._whole |= other.indexes is None
        if self._whole:
            self.indexes = None
        else:
            self.indexes = sorted(set(self.indexes or []) | set(other.indexes or []))
        if self.members is None and other.members is None:
            return
        if self.members is None or other.members is None:
            named = self.members or other.members
            assert named is not None
            named.kind = "all"  # the whole map was named too
            self.members = named
        else:
            for c in other.members.columns:
                self.members._add(c)

    @property
    def projects_all_members(self) -> bool:
        """Whether every member is wanted (`m` alone, or `m.a, m`)."""
        return self.members is None or self.members.kind == "all"


class Projection:
    """A parsed projection list, at the row level or inside a map."""

    def __init__(self, kind: str = "none") -> None:
        self.kind = kind  # "all" | "some" | "none"
        self.columns: list[ProjectedColumn] = []
        self._by_name: dict[str, ProjectedColumn] = {}
        #: the paths given without backquotes that name a part of a column (`a.b`, `c[1]`),
        #: lower-cased, each with its column's name and the part: a key spelled the same
        #: (`"a.b"`) is another column, which such a path does not read
        self.unquoted_parts: dict[str, tuple[str, str]] = {}

    @property
    def names(self) -> list[str]:
        """Top-level names in first-seen order (first spelling)."""
        return [c.name for c in self.columns]

    def __getitem__(self, name: str) -> ProjectedColumn:
        return self._by_name[name.lower()]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._by_name

    def __iter__(self) -> Iterator[ProjectedColumn]:
        return iter(self.columns)

    def __len__(self) -> int:
        return len(self.columns)

    def get(self, name: str) -> ProjectedColumn | None:
        """The column named `name` (any case), or None."""
        return self._by_name.get(name.lower())

    def is_projected(self, name: str) -> bool:
        """Whether a column of this name is wanted (always, for a wildcard)."""
        return self.kind == "all" or name in self

    def _add(self, column: ProjectedColumn) -> None:
        existing = self._by_name.get(column.name.lower())
        if existing is None:
            self.columns.append(column)
            self._by_name[column.name.lower()] = column
            if self.kind == "none":
                self.kind = "some"
        else:
            existing.merge(column)

    def loader_paths(self, exclude: AbstractSet[str] = frozenset()) -> list[str] | None:
        """The projection as the loader takes it (None = all); `exclude`: lower-cased names
        the reader does not produce (implicit columns)."""
        if self.kind == "all":
            return None
        return self._paths(exclude)

    def _paths(self, exclude: AbstractSet[str] = frozenset()) -> list[str]:
        """Each column's paths, whatever the kind: what it asks for, and the shape its
        mentions give it (the loader gives that shape to a column it sees only as null)."""
        out: list[str] = []
        for c in self.columns:
            if c.name.lower() in exclude:
                continue
            # `c[1]`: the loader keeps only the elements asked for (positions kept)
            name = spelled(c.name)
            heads = [f"{name}[{i}]" for i in c.indexes] if c.indexes else [name]
            if c.wants_array and not c.indexes:
                heads.append(f"{name}[0]")  # every element, and a list's shape (`c[1], c`)
            members = c.members._paths() if c.members is not None else []
            if c.projects_all_members:
                # the whole column, and its members' shapes (`m.l[1], m`)
                out += heads + [f"{name}.{p}" for p in members]
            else:
                out += [f"{head}.{p}" for head in heads for p in members or ["*"]]
        return out

    def __repr__(self) -> str:
        return f"Projection(kind={self.kind!r}, columns={self.columns!r})"


def spelled(name: str) -> str:
    """`name` as a projection path spells it: in backquotes if it holds `.`, `[`... (a
    backquote in it doubled)."""
    return name if _NAME.fullmatch(name) else "`" + name.replace("`", "``") + "`"


def _quote_hint(path: str) -> str:
    example = f"`{path}`" if "." not in path and "`" not in path else "`user-id`"
    return f"(a name holding other characters goes in backquotes: {example})"


def _error(path: str, pos: int, why: str) -> ProjectionError:
    return ProjectionError(f"malformed projection {path!r} at position {pos}: {why}")


def _parse_path(path: str) -> ProjectedColumn:
    """`m1.m2.c[3]` -> m1(members: m2(members: c[3]))."""
    segments: list[tuple[str, list[int]]] = []
    i = 0
    while True:
        if i < len(path) and path[i] == "`":
            quoted = _BACKQUOTED.match(path, i)
            if not quoted:
                raise _error(path, i, "unclosed backquote")
            # may be empty: `` is the key ""
            name, i = quoted.group(1).replace("``", "`"), quoted.end()
        else:
            m = _NAME.match(path, i)
            if not m:
                if i >= len(path) or path[i] in ".[":
                    raise _error(path, i, "empty name")
                raise _error(path, i, f"invalid name {_quote_hint(path)}")
            name, i = m.group(), m.end()
        indexes: list[int] = []
        while i < len(path) and path[i] == "[":
            m = re.compile(r"\[(\d+)\]").match(path, i)
            if not m:
                raise _error(path, i, "an array index is a non-negative integer in [ ]")
            if int(m.group(1)) > _MAX_INDEX:
                raise _error(path, i, f"an array index is at most {_MAX_INDEX}")
            indexes.append(int(m.group(1)))
            i = m.end()
        segments.append((name, indexes))
        if i == len(path):
            break
        if path[i] != ".":
            hint = "" if path[i] in "]`" else f" {_quote_hint(path)}"
            raise _error(path, i, f"unexpected {path[i]!r}{hint}")
        i += 1
    column: ProjectedColumn | None = None
    for name, indexes in reversed(segments):
        members = None
        if column is not None:
            members = Projection("some")
            members._add(column)
        column = ProjectedColumn(
            name,
            indexes=sorted(set(indexes[:1])) if indexes else None,
            members=members,
            wants_array=bool(indexes),
            wants_members=members is not None,
            _whole=not indexes,
        )
    assert column is not None
    return column


def split_paths(text: str) -> list[str]:
    """Comma-separated projection paths (a Spark option's `id, m.x`) as a list: a comma in
    backquotes is part of a name (`` `a,b` ``); blank items are left out."""
    items: list[str] = []
    start, quoted = 0, False
    for i, ch in enumerate(text):
        if ch == "`":  # a doubled backquote flips twice: still quoted
            quoted = not quoted
        elif ch == "," and not quoted:
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return [item.strip() for item in items if item.strip()]


def parse_projection(columns: Sequence[str] | str | None) -> Projection:
    """Parse a projection list: None or ["*"] projects all, [] none, else the named paths."""
    if columns is None:
        return Projection("all")
    if isinstance(columns, str):
        paths = split_paths(columns)
        if len(paths) > 1:  # `columns="a, b"`: a list was meant
            raise ProjectionError(
                f"the projection {columns!r} is one text of {len(paths)} paths: pass them as a "
                f"list, {paths!r}"
            )
        columns = [columns]
    result = Projection("none")
    stars = 0
    for raw in columns:
        if not isinstance(raw, str):
            raise ProjectionError(f"projection entries are strings, got {raw!r}")
        path = raw.strip()
        if path == "*":
            stars += 1
            if stars > 1:
                raise ProjectionError("the projection has a second '*'")
            result.kind = "all"
            continue
        column = _parse_path(path)
        part = None
        if "`" in path:
            pass  # quoted: the user chose what it names
        elif column.indexes:
            part = f"element {column.indexes[0]}"
        elif column.members is not None:
            part = f"member '{column.members.names[0]}'"
        if part is not None:
            result.unquoted_parts[path.lower()] = (column.name, part)
        result._add(column)
    if stars and result.kind != "all":
        result.kind = "all"
    return result
