"""The string a field of mixed types becomes where a sample met it (`mixed_types`)."""

from __future__ import annotations

import pyarrow as pa
import pytest

from batchloader.mixed_types import declare_text, merged_type, text_type_at


@pytest.mark.parametrize(
    "path, top, t",
    [
        ("x", "x", pa.utf8()),
        ("x.a", "x", pa.struct([("a", pa.utf8())])),
        ("x[]", "x", pa.list_(pa.utf8())),
        ("x[].k", "x", pa.list_(pa.struct([("k", pa.utf8())]))),
        ("x.a[][]", "x", pa.struct([("a", pa.list_(pa.list_(pa.utf8())))])),
        ("é b.c d", "é b", pa.struct([("c d", pa.utf8())])),
    ],
)
def test_a_path_becomes_a_string_where_it_ends(path, top, t):
    assert text_type_at(path) == (top, t)


@pytest.mark.parametrize("path", ["", ".a", "x.", "x[", "x[0]", "x..a"])
def test_paths_these_steps_do_not_spell_have_none(path):
    assert text_type_at(path) is None


def test_declarations_of_one_column_merge():
    member = pa.struct([("a", pa.utf8())])
    other = pa.struct([("b", pa.list_(pa.utf8()))])
    assert merged_type(member, other) == pa.struct([("a", pa.utf8()), ("b", pa.list_(pa.utf8()))])
    # a string covers what is below it, on either side
    assert merged_type(member, pa.utf8()) == pa.utf8()
    assert merged_type(pa.utf8(), other) == pa.utf8()
    deeper = pa.list_(pa.struct([("k", pa.utf8())]))
    assert merged_type(deeper, pa.list_(pa.struct([("j", pa.utf8())]))) == pa.list_(
        pa.struct([("k", pa.utf8()), ("j", pa.utf8())])
    )
    # a struct met as a list too: the value itself is text
    assert merged_type(member, pa.list_(pa.utf8())) == pa.utf8()


def test_a_schema_takes_each_declaration_once_by_name_in_any_case():
    schema = declare_text(pa.schema([]), "X", pa.struct([("a", pa.utf8())]))
    schema = declare_text(schema, "x", pa.struct([("b", pa.utf8())]))
    schema = declare_text(schema, "y", pa.utf8())
    assert schema == pa.schema(
        [("X", pa.struct([("a", pa.utf8()), ("b", pa.utf8())])), ("y", pa.utf8())]
    )
    assert declare_text(schema, "y", pa.list_(pa.utf8())).equals(schema)
