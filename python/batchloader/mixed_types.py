"""Spark's type for a JSON field whose values have types no one type holds (a number and
a string, a struct and a list): a string, each value its JSON text. A sample that meets
such a field declares it a string where it met it (`x`, `x.a`, `x[]`: the struct member or
the list elements only) and samples again (`ScanPlan`)."""

from __future__ import annotations

import re

import pyarrow as pa

#: a path's steps after its top-level name: `.member` or `[]` (an element)
_STEP = re.compile(r"\.([^.\[]+)|\[\]")


def text_type_at(path: str) -> tuple[str, pa.DataType] | None:
    """The top-level name of column path `path` (`x.a[]`) and the type that makes the
    value at the path a string, the rest of the column left to the data (`struct<a:
    list<string>>`); None for a path these steps do not spell."""
    top = re.match(r"[^.\[]+", path)
    if top is None:
        return None
    steps = []
    rest = path[top.end() :]
    while rest:
        step = _STEP.match(rest)
        if step is None:
            return None
        steps.append(step.group(1))  # None: an element
        rest = rest[step.end() :]
    t: pa.DataType = pa.utf8()
    for member in reversed(steps):
        t = pa.list_(t) if member is None else pa.struct([(member, t)])
    return top.group(0), t


def merged_type(a: pa.DataType, b: pa.DataType) -> pa.DataType:
    """Two partial declarations of one column as one: a string anywhere covers what is
    below it; structs take both members' declarations, lists both elements'."""
    if pa.types.is_string(a) or pa.types.is_string(b):
        return pa.utf8()
    if pa.types.is_list(a) and pa.types.is_list(b):
        return pa.list_(merged_type(a.value_type, b.value_type))
    if pa.types.is_struct(a) and pa.types.is_struct(b):
        fields = {f.name: f.type for f in a}
        for f in b:
            fields[f.name] = merged_type(fields[f.name], f.type) if f.name in fields else f.type
        return pa.struct(list(fields.items()))
    return pa.utf8()  # a struct here, a list there: the value itself is text


def declare_text(schema: pa.Schema, top: str, t: pa.DataType) -> pa.Schema:
    """`schema` with column `top` (by name, any case) declared `t` too (`merged_type`)."""
    names = [n.lower() for n in schema.names]
    if top.lower() not in names:
        return schema.append(pa.field(top, t))
    i = names.index(top.lower())
    return schema.set(i, schema.field(i).with_type(merged_type(schema.field(i).type, t)))
