"""Spark's inference rules for JSON that a driver's sample applies beyond the loader's
discovery (`ScanPlan`, under Spark's JSON conventions): a field whose values have types no
one type holds (a number and a string, a struct and a list) is a string, each value its
JSON text; a field of whole numbers with one past int64 is a `decimal(p, 0)` of their
digits, not a double that loses them, unless it has fractions too (Spark: a double). Each
rule is a type declared at a column path (`x`, a struct member `x.a`, list elements
`x[]`), the rest of the column left to the data; the sample is read again after each one
is learnt."""

from __future__ import annotations

import decimal
import re

import pyarrow as pa
import pyarrow.compute as pc

from batchloader.column_paths import member_path, path_step, path_steps

#: what a column of whole numbers past int64 is, as Spark infers it when it has longs too
#: (a long merges into a `decimal(20, 0)`); its precision is its most digits, if more
WHOLE_DECIMAL = pa.decimal128(20, 0)

#: a JSON integer's text
_INTEGER = re.compile(r"-?(0|[1-9][0-9]*)")

#: a JSON number's text
_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")


def type_at(path: str, leaf: pa.DataType) -> tuple[str, pa.DataType] | None:
    """The top-level name of column path `path` (`x.a[]`) and the type that makes the
    value at the path a `leaf`, the rest of the column left to the data (`struct<a:
    list<leaf>>`); None for a path these steps do not spell."""
    found = path_steps(path)
    if found is None:
        return None
    top, steps = found
    t = leaf
    for member in reversed(steps):
        t = pa.list_(t) if member is None else pa.struct([(member, t)])
    return top, t


def float_paths(batch: pa.RecordBatch, least: float = 2.0**63) -> set[str]:
    """The paths (`x`, `m.x`, `l[]`) of `batch`'s float64 values with a finite one at least
    `least` in magnitude (by default past int64: a whole number past int64 the loader read
    as a float, as a float that large is whole, or a fraction written so, `1e19`; their
    texts tell which)."""
    found: set[str] = set()

    def walk(values: pa.Array, path: str) -> None:
        t = values.type
        if pa.types.is_struct(t):
            for i, f in enumerate(t):
                walk(values.field(i), member_path(path, f.name))
        elif pa.types.is_list(t) or pa.types.is_large_list(t):
            walk(values.flatten(), f"{path}[]")
        elif pa.types.is_float64(t):
            big = pc.and_(pc.is_finite(values), pc.greater_equal(pc.abs(values), least))
            if pc.any(big).as_py():
                found.add(path)

    for name, column in zip(batch.schema.names, batch.columns, strict=True):
        walk(column, path_step(name))
    return found


def preferred_decimal(texts: list[str]) -> pa.DataType | None:
    """The type Spark's inference with `prefersDecimal` gives JSON numbers `texts` (a
    fraction among them): each a decimal of its digits and scale (`1.50` `decimal(3,2)`,
    `0.001` `decimal(3,3)`; a long `decimal(20,0)`), merged as Spark merges decimals (the
    most integer digits, the most fraction digits); None (a double) past 38 digits. Texts
    that are not numbers (`NaN`) are left out: a decimal column refuses them, as Spark's
    does. ValueError for a number of negative scale (`1e2`), which Spark's decimals refuse
    (its read fails so)."""
    integers = scale = 0
    numbers = [t for t in texts if _NUMBER.fullmatch(t)]
    if not numbers:
        return None
    for text in numbers:
        if _INTEGER.fullmatch(text):
            long = -(2**63) <= int(text) < 2**63
            p, s = (20, 0) if long else (len(text.lstrip("-")), 0)
        else:
            _, digits, exponent = decimal.Decimal(text).as_tuple()
            s = -int(exponent)
            if s < 0:
                raise ValueError(
                    f"{text} is a decimal of negative scale ({s}), which Spark's decimals "
                    "refuse (its prefersDecimal fails the read so)"
                )
            p = max(len(digits), s)
        if p > 38:
            return None
        integers, scale = max(integers, p - s), max(scale, s)
    return pa.decimal128(integers + scale, scale) if integers + scale <= 38 else None


def whole_decimal(texts: list[str]) -> pa.DataType | None:
    """The type Spark's inference gives JSON numbers `texts` (one past int64 among them),
    if a decimal: whole numbers only, `decimal(p, 0)` of their most digits (20 at least if
    one is within int64, a long, which merges so), 38 at most; None (a double) for a
    fraction, an exponent or a non-numeric number among them, or more digits."""
    if not texts or not all(_INTEGER.fullmatch(t) for t in texts):
        return None
    digits = max(len(t.lstrip("-")) for t in texts)
    if any(-(2**63) <= int(t) < 2**63 for t in texts):
        digits = max(digits, 20)
    return pa.decimal128(digits, 0) if digits <= 38 else None


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


def spark_canonical_field(
    f: pa.Field, parent: str | None, all_null: frozenset[str], as_strings: bool
) -> pa.Field | None:
    """Field `f` (a top-level column's if `parent` is None, else a member of the struct at
    path `parent`) as Spark's JSON inference leaves it (`spark_canonical_type`): None for
    one with an empty name (`{"": 1}`), which Spark drops, or a type it drops."""
    if not f.name:
        return None
    t = spark_canonical_type(f.type, member_path(parent, f.name), all_null, as_strings)
    return None if t is None else f.with_type(t)


def spark_canonical_type(
    t: pa.DataType, path: str, all_null: frozenset[str], as_strings: bool
) -> pa.DataType | None:
    """Type `t` of the column at `path` (`x`, `m.x`, `l[]`) as Spark's JSON inference
    leaves an inferred type: None (no column) for a struct with no members, as every
    struct member (`spark_canonical_field`) and list element is canonical (Spark drops
    empty structs), or for a path in `all_null` (lower-case: the paths only nulls and
    empty lists typed, which Spark's `dropFieldIfAllNull` drops); with `as_strings`
    (`primitivesAsString`) every value that is neither a struct nor a list is a string,
    its JSON text."""
    if path.lower() in all_null:
        return None
    if pa.types.is_struct(t):
        members = [spark_canonical_field(f, path, all_null, as_strings) for f in t]
        kept = [m for m in members if m is not None]
        return pa.struct(kept) if kept else None
    if pa.types.is_list(t):
        element = spark_canonical_type(t.value_type, f"{path}[]", all_null, as_strings)
        return None if element is None else pa.list_(t.value_field.with_type(element))
    return pa.utf8() if as_strings and not pa.types.is_map(t) else t


def java_name_order(name: str) -> bytes:
    """A sort key ordering names as Java's `String.compareTo` does (by UTF-16 code unit),
    which Spark's JSON inference orders struct members by."""
    return name.encode("utf-16-be", "surrogatepass")


def members_in_sparks_order(t: pa.DataType) -> pa.DataType:
    """Type `t` with the members of every struct in it (through lists) in the order Spark's
    JSON inference gives them: by name (`java_name_order`)."""
    if pa.types.is_struct(t):
        members = sorted(t, key=lambda f: java_name_order(f.name))
        return pa.struct([f.with_type(members_in_sparks_order(f.type)) for f in members])
    if pa.types.is_list(t):
        return pa.list_(t.value_field.with_type(members_in_sparks_order(t.value_type)))
    return t


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

    def __init__(self, typed: list[str], prefers_decimal: bool = False) -> None:
        self.typed = {n.lower() for n in typed}
        #: Spark's `prefersDecimal`: fractions are decimals too (`preferred_decimal`)
        self.prefers_decimal = prefers_decimal
        #: paths of decimals `prefers_decimal` gave: a value they refuse is bad input
        self.preferred: set[str] = set()
        #: the leaf type declared at each path: a string or a decimal of whole numbers
        self.leaves: dict[str, pa.DataType] = {}
        #: paths whose numbers past int64 are doubles to Spark (fractions beside them...)
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
        as to Spark's inference, not a value rounded to a declared scale); in such a column,
        the paths of the strings learnt (each part declared alone)."""
        wholes = {
            found[0].lower()
            for path, leaf in self.leaves.items()
            if pa.types.is_decimal(leaf) and (found := path_steps(path)) is not None
        }
        strings = [
            path
            for path, leaf in self.leaves.items()
            if pa.types.is_string(leaf)
            and (found := path_steps(path)) is not None
            and found[0].lower() in wholes
        ]
        return [n for n in self.schema().names if n.lower() not in wholes] + sorted(strings)

    def learn_conflict(self, path: str | None) -> bool:
        """A value at `path` did not fit its column's type: True if that teaches a type
        (a decimal that met a fraction is a double again; any other column a string), False
        if nothing is left to learn there (the conflict is bad input)."""
        found = None if path is None else type_at(path, pa.utf8())
        if path is None or found is None:
            return False
        if path in self.preferred:
            return False  # (`NaN`: a bad record in Spark's decimal too)
        if pa.types.is_decimal(self.leaves.get(path, pa.utf8())):
            del self.leaves[path]
            self.doubles.add(path)
            return True
        if found[0].lower() in self.typed:
            return False
        before = self.schema()
        self.leaves[path] = pa.utf8()
        return not self.schema().equals(before)

    def may_learn_decimal(self, path: str) -> bool:
        """Whether the numbers at `path` may teach a decimal: nothing is learnt there
        yet, and the user did not type its column."""
        found = type_at(path, WHOLE_DECIMAL)
        return (
            path not in self.leaves
            and path not in self.doubles
            and found is not None
            and found[0].lower() not in self.typed
        )

    def learn_decimals(self, texts: dict[str, list[str]]) -> bool:
        """The JSON texts of the sample's numbers at paths where one is past int64 (a float
        to the loader), or any float with `prefers_decimal`: each path a `whole_decimal`
        of them (a `preferred_decimal`), or a double (noted, not tried again); True if any
        decimal is new. ValueError (naming the path) for a number `preferred_decimal`
        refuses."""
        new = False
        for path, values in texts.items():
            if not self.may_learn_decimal(path):
                continue
            try:
                learnt = (preferred_decimal if self.prefers_decimal else whole_decimal)(values)
            except ValueError as e:
                raise ValueError(f"column '{path}': {e}; give it a type in schema=") from None
            if learnt is None:
                self.doubles.add(path)
            else:
                self.leaves[path] = learnt
                self.preferred |= {path} if self.prefers_decimal else set()
                new = True
        return new
