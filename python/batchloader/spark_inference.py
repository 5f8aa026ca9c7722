"""Spark's inference rules for JSON that a driver's sample applies beyond the loader's
discovery (`ScanPlan`, under Spark's JSON conventions): a field whose values have types no
one type holds (a number and a string, a struct and a list) is a string, each value its
JSON text; a whole number past int64 makes its column a `decimal(20, 0)`, not a double
that loses digits, unless the column has fractions too (Spark: a double). Each rule is a
type declared at a column path (`x`, a struct member `x.a`, list elements `x[]`), the rest
of the column left to the data; the sample is read again after each one is learnt."""

from __future__ import annotations

import re

import pyarrow as pa

#: a path's steps after its top-level name: `.member` or `[]` (an element)
_STEP = re.compile(r"\.([^.\[]+)|\[\]")

#: what a column of whole numbers past int64 is, as Spark infers it
WHOLE_DECIMAL = pa.decimal128(20, 0)


def type_at(path: str, leaf: pa.DataType) -> tuple[str, pa.DataType] | None:
    """The top-level name of column path `path` (`x.a[]`) and the type that makes the
    value at the path a `leaf`, the rest of the column left to the data (`struct<a:
    list<leaf>>`); None for a path these steps do not spell."""
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
    t = leaf
    for member in reversed(steps):
        t = pa.list_(t) if member is None else pa.struct([(member, t)])
    return top.group(0), t


def merged_type(a: pa.DataType, b: pa.DataType) -> pa.DataType:
    """Two partial declarations of one column as one: a string anywhere covers what is
    below it; structs take both members' declarations, lists both elements'; two leaves
    that differ, or a struct met as a list, make a string (the value itself is text)."""
    if pa.types.is_string(a) or pa.types.is_string(b):
        return pa.utf8()
    if pa.types.is_list(a) and pa.types.is_list(b):
        return pa.list_(merged_type(a.value_type, b.value_type))
    if pa.types.is_struct(a) and pa.types.is_struct(b):
        fields = {f.name: f.type for f in a}
        for f in b:
            fields[f.name] = merged_type(fields[f.name], f.type) if f.name in fields else f.type
        return pa.struct(list(fields.items()))
    return a if a == b else pa.utf8()


def spark_canonical_type(
    t: pa.DataType, path: str, all_null: frozenset[str], as_strings: bool
) -> pa.DataType | None:
    """Type `t` of the column at `path` (`x`, `m.x`, `l[]`) as Spark's JSON inference
    leaves an inferred type: None (no column) for a struct with no members, as every
    struct member and list element is canonical (Spark drops empty structs), or for a path
    in `all_null` (lower-case: the paths only nulls and empty lists typed, which Spark's
    `dropFieldIfAllNull` drops); with `as_strings` (`primitivesAsString`) every value that
    is neither a struct nor a list is a string, its JSON text."""
    if path.lower() in all_null:
        return None
    if pa.types.is_struct(t):
        members = []
        for f in t:
            member = spark_canonical_type(f.type, f"{path}.{f.name}", all_null, as_strings)
            if member is not None:
                members.append(f.with_type(member))
        return pa.struct(members) if members else None
    if pa.types.is_list(t):
        element = spark_canonical_type(t.value_type, f"{path}[]", all_null, as_strings)
        return None if element is None else pa.list_(t.value_field.with_type(element))
    return pa.utf8() if as_strings and not pa.types.is_map(t) else t


def declare(schema: pa.Schema, top: str, t: pa.DataType) -> pa.Schema:
    """`schema` with column `top` (by name, any case) declared `t` too (`merged_type`)."""
    names = [n.lower() for n in schema.names]
    if top.lower() not in names:
        return schema.append(pa.field(top, t))
    i = names.index(top.lower())
    return schema.set(i, schema.field(i).with_type(merged_type(schema.field(i).type, t)))


class Inference:
    """The types a sample learnt by Spark's rules, by column path, for columns the user
    did not type (`typed`: their top-level names, any case)."""

    def __init__(self, typed: list[str]) -> None:
        self.typed = {n.lower() for n in typed}
        #: the leaf type declared at each path: a string or `WHOLE_DECIMAL`
        self.leaves: dict[str, pa.DataType] = {}
        #: paths whose whole numbers past int64 sit beside fractions: Spark's double
        self.doubles: set[str] = set()

    def schema(self) -> pa.Schema:
        """The declarations as columns, each with what its paths make it."""
        out = pa.schema([])
        for path, leaf in self.leaves.items():
            top, t = type_at(path, leaf) or (path, leaf)
            out = declare(out, top, t)
        return out

    def declared_names(self) -> list[str]:
        """The top-level columns whose learnt types a scan takes as declared (a string
        reads any value as its JSON text): not one holding a decimal learnt from whole
        numbers, which takes whole numbers only (a fraction past the sample is a conflict,
        as to Spark's inference, not a value rounded to a declared scale)."""
        wholes = {
            found[0].lower()
            for path, leaf in self.leaves.items()
            if leaf == WHOLE_DECIMAL and (found := type_at(path, leaf)) is not None
        }
        return [n for n in self.schema().names if n.lower() not in wholes]

    def learn_conflict(self, path: str | None) -> bool:
        """A value at `path` did not fit its column's type: True if that teaches a type
        (a decimal that met a fraction is a double again; any other column a string), False
        if nothing is left to learn there (the conflict is bad input)."""
        found = None if path is None else type_at(path, pa.utf8())
        if path is None or found is None:
            return False
        if self.leaves.get(path) == WHOLE_DECIMAL:
            del self.leaves[path]
            self.doubles.add(path)
            return True
        if found[0].lower() in self.typed:
            return False
        before = self.schema()
        self.leaves[path] = pa.utf8()
        return not self.schema().equals(before)

    def learn_wholes(self, rounded: dict[str, int]) -> bool:
        """The sample's columns with whole numbers past int64 that a float64 rounded
        (`Scan.wholes_rounded`): True if any is new to declare `WHOLE_DECIMAL`."""
        new = [
            p
            for p in rounded
            if p not in self.leaves
            and p not in self.doubles
            and (found := type_at(p, WHOLE_DECIMAL)) is not None
            and found[0].lower() not in self.typed
        ]
        self.leaves.update({p: WHOLE_DECIMAL for p in new})
        return bool(new)
