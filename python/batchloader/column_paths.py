"""Column paths as errors, warnings and the readers spell them: a top-level name, then
`.member` for a struct's member and `[]` for a list's elements (`m.x`, `l[]`, `l[].x`). A
name holding `.`, `[`, `]` or a backtick, or an empty one, is written between backticks (a
backtick inside doubled), as Spark quotes such names: the key `http.status` is the path
`` `http.status` ``, never member `status` of `http` (the Rust loader spells paths so too,
`loader::path`)."""

from __future__ import annotations

import re

import pyarrow as pa

#: what makes a name need backticks
_SPECIAL = re.compile(r"[.\[\]`]")

#: a name at the start of a step: between backticks, or plain
_NAME = re.compile(r"`((?:[^`]|``)*)`|([^.\[\]`]+)")


def path_step(name: str) -> str:
    """`name` as a step of a path: as it is, or between backticks if it needs them."""
    if name and not _SPECIAL.search(name):
        return name
    return "`" + name.replace("`", "``") + "`"


def member_path(parent: str | None, name: str) -> str:
    """The path of member `name` of the struct at path `parent` (None: a top-level
    column's)."""
    return path_step(name) if parent is None else f"{parent}.{path_step(name)}"


def path_steps(path: str) -> tuple[str, list[str | None]] | None:
    """The top-level name of `path` and its steps after it: a member's name, or None for
    a list's elements; None if `path` is not spelled as a path."""
    names: list[str | None] = []
    i = 0
    while i < len(path) or not names:
        if names:
            if path.startswith("[]", i):
                names.append(None)
                i += 2
                continue
            if path[i] != ".":
                return None
            i += 1
        found = _NAME.match(path, i)
        if found is None:
            return None
        quoted, plain = found.groups()
        names.append(quoted.replace("``", "`") if quoted is not None else plain)
        i = found.end()
    top = names[0]
    assert top is not None
    return top, names[1:]


def top_name(path: str) -> str:
    """The top-level column's name of `path` (`m.x`, `l[]`: `m`, `l`); `path` itself if it
    is not spelled as a path."""
    found = path_steps(path)
    return path if found is None else found[0]


def type_at_path(schema: pa.Schema, path: str) -> pa.DataType | None:
    """The type of the part of `schema` at `path` (names in any case); None if `schema`
    has no such part."""
    found = path_steps(path)
    if found is None:
        return None
    top, after = found

    def named(fields: list[pa.Field], name: str) -> pa.DataType | None:
        return next((f.type for f in fields if f.name.lower() == name.lower()), None)

    t = named(list(schema), top)
    for name in after:
        if t is None:
            return None
        if name is None:
            t = t.value_type if pa.types.is_list(t) or pa.types.is_large_list(t) else None
        else:
            t = named(list(t), name) if pa.types.is_struct(t) else None
    return t
