"""The types a sample learns by Spark's inference rules (`spark_inference`)."""

from __future__ import annotations

import pyarrow as pa
import pytest

from batchloader.spark_inference import (
    WHOLE_DECIMAL,
    Inference,
    declare,
    float_paths,
    java_name_order,
    members_in_sparks_order,
    merged_type,
    preferred_decimal,
    type_at,
    whole_decimal,
)


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
    assert type_at(path, pa.utf8()) == (top, t)


@pytest.mark.parametrize("path", ["", ".a", "x.", "x[", "x[0]", "x..a"])
def test_paths_these_steps_do_not_spell_have_none(path):
    assert type_at(path, pa.utf8()) is None


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
    schema = declare(pa.schema([]), "X", pa.struct([("a", pa.utf8())]))
    schema = declare(schema, "x", pa.struct([("b", pa.utf8())]))
    schema = declare(schema, "y", pa.utf8())
    assert schema == pa.schema(
        [("X", pa.struct([("a", pa.utf8()), ("b", pa.utf8())])), ("y", pa.utf8())]
    )
    assert declare(schema, "y", pa.list_(pa.utf8())).equals(schema)


def test_leaves_of_two_kinds_merge_to_a_string():
    assert merged_type(WHOLE_DECIMAL, WHOLE_DECIMAL) == WHOLE_DECIMAL
    assert merged_type(WHOLE_DECIMAL, pa.utf8()) == pa.utf8()
    assert merged_type(WHOLE_DECIMAL, pa.struct([("a", pa.utf8())])) == pa.utf8()


def test_inference_learns_strings_decimals_and_doubles_by_path():
    learnt = Inference(["Typed"])
    big = "12345678901234567890"
    assert learnt.learn_decimals({"id": [big, "1"], "s.big": [big], "typed": [big], "f": ["1.5"]})
    assert learnt.schema() == pa.schema(
        [("id", WHOLE_DECIMAL), ("s", pa.struct([("big", WHOLE_DECIMAL)]))]
    )
    assert not learnt.learn_decimals({"id": [big + "0"]})  # nothing new
    assert not learnt.learn_decimals({"f": [big]})  # a double already: not tried again
    # a fraction in a decimal column: Spark's double, and not a decimal again
    assert learnt.learn_conflict("id")
    assert "id" not in learnt.schema().names
    assert not learnt.learn_decimals({"id": [big]})
    # the double then meets a string: a string, as any column of mixed types
    assert learnt.learn_conflict("id")
    assert learnt.schema().field("id").type == pa.utf8()
    assert learnt.learn_conflict("s.other")
    assert learnt.schema().field("s").type == pa.struct(
        [("big", WHOLE_DECIMAL), ("other", pa.utf8())]
    )
    # nothing more to learn: a string already, a column the user typed, no path
    assert not learnt.learn_conflict("id")
    assert not learnt.learn_conflict("TYPED.x")
    assert not learnt.learn_conflict(None)
    assert not learnt.learn_conflict("x[0]")


def test_only_columns_without_a_whole_number_decimal_are_declared():
    """A column holding a decimal learnt from whole numbers is not declared to the scan
    (a declared decimal rounds a fraction to its scale under Spark's conventions; a learnt
    one must refuse it, as a conflict that makes it a double); a learnt string is."""
    learnt = Inference([])
    big = ["9223372036854775808"]
    assert learnt.learn_decimals({"id": big, "s.big": big, "l[]": big})
    assert learnt.learn_conflict("mixed")
    assert learnt.declared_names() == ["mixed"]
    assert learnt.learn_conflict("id")  # a double now: nothing declared there
    assert sorted(learnt.declared_names()) == ["mixed"]
    assert learnt.learn_conflict("id")  # then a string
    assert sorted(learnt.declared_names()) == ["id", "mixed"]


@pytest.mark.parametrize(
    ("texts", "want"),
    [
        (["9223372036854775808"], pa.decimal128(19, 0)),  # no long beside it
        (["-9223372036854775809", "5"], pa.decimal128(20, 0)),  # a long merges so
        (["18446744073709551616"], pa.decimal128(20, 0)),
        (["12345678901234567890123", "0"], pa.decimal128(23, 0)),
        (["1" * 38, "-1"], pa.decimal128(38, 0)),
        (["1" * 39], None),  # past a decimal's precision: a double
        (["12345678901234567890", "1.5"], None),
        (["12345678901234567890", "1e20"], None),
        (["12345678901234567890", "NaN"], None),
        (["012345678901234567890"], None),  # not a JSON integer
        ([], None),
    ],
)
def test_whole_numbers_past_int64_make_sparks_decimal(texts, want):
    """As Spark infers JSON numbers: a whole number past int64 is a decimal of its digits,
    merged with a long's `decimal(20,0)`; a fraction, an exponent, NaN or 39 digits make
    a double."""
    assert whole_decimal(texts) == want


def test_float_paths_past_int64_are_found_at_any_depth():
    """The float64 values past int64 (finite) are found by path, through structs and lists;
    a smaller value, an infinity, another type are not."""
    big = 2.0**63
    batch = pa.RecordBatch.from_pylist(
        [
            {"x": big, "small": 1.0, "inf": float("inf"), "i": 2**62, "s": {"a": [1.0, -big]}},
            {"x": None, "small": -(2.0**62), "inf": None, "i": None, "s": None},
        ]
    )
    assert float_paths(batch) == {"x", "s.a[]"}


@pytest.mark.parametrize(
    ("texts", "want"),
    [
        (["1.5", "1.50"], pa.decimal128(3, 2)),
        (["0.000123"], pa.decimal128(6, 6)),
        (["-0.0"], pa.decimal128(1, 1)),
        (["1.5", "2"], pa.decimal128(21, 1)),  # a long merges as decimal(20,0)
        (["1.5", "12345678901234567890123"], pa.decimal128(24, 1)),
        (["123456789012345678901234567890.5", "0.00000001"], pa.decimal128(38, 8)),
        (["123456789012345678901234567890.5", "0.000000001"], None),  # 39 digits
        (["1" * 38 + ".5"], None),
        (["1.5e-3", "1.5e1"], pa.decimal128(6, 4)),
        (["1.5", "NaN"], pa.decimal128(2, 1)),  # not a number: bad input, not a type
        (["NaN"], None),
    ],
)
def test_prefers_decimal_types_fractions_as_spark_does(texts, want):
    """As Spark's inference with prefersDecimal (probed on 4.3): a number is a decimal of
    its digits and scale, and decimals merge to the most integer and fraction digits."""
    assert preferred_decimal(texts) == want


def test_prefers_decimal_refuses_a_negative_scale_as_spark_fails():
    with pytest.raises(ValueError, match="1e2 is a decimal of negative scale"):
        preferred_decimal(["1.5", "1e2"])
    learnt = Inference([], prefers_decimal=True)
    with pytest.raises(ValueError, match=r"column 'm\.x': 1E\+3 is"):
        learnt.learn_decimals({"m.x": ["1E+3"]})
    assert learnt.learn_decimals({"a": ["1.5"]}) and not learnt.learn_conflict("a")


def test_texts_at_paths_leave_out_nulls_and_the_members_of_null_structs(tmp_path):
    """The texts pass collects, by path, the values a sample read as strings: through
    structs and lists, without nulls, and nothing from under a null struct or list (the
    loader writes its members null)."""
    from batchloader.spark import _sampled_texts

    lines = [
        '{"s": {"big": 12345678901234567890123, "f": 1.50}, "l": [[1e30, null], null]}',
        '{"s": null, "l": null}',
        '{"s": {"big": null, "f": -0.0}, "l": [[2]]}',
    ]
    (tmp_path / "t.json").write_text("".join(line + "\n" for line in lines))
    paths = ["s.big", "s.f", "l[][]"]
    options = {"json_conventions": "spark", "allow_schema_change": True}
    texts = _sampled_texts([str(tmp_path / "t.json")], None, None, options, pa.schema([]), paths)
    assert texts == {
        "s.big": ["12345678901234567890123"],
        "s.f": ["1.50", "-0.0"],
        "l[][]": ["1e30", "2"],
    }


def test_names_order_as_javas_compare_to_orders_them():
    """By UTF-16 code unit, as Java's `String.compareTo`: upper case before `_` before lower
    case, and a character past the BMP (its surrogates, 0xD83D...) before U+FFFD, where
    code points would put it after."""
    names = ["b", "\U0001f600", "_x", "B", "\ufffd", "a", "\u00e9", "ab", ""]
    ordered = sorted(names, key=java_name_order)
    assert ordered == ["", "B", "_x", "a", "ab", "b", "\u00e9", "\U0001f600", "\ufffd"]
    assert sorted(names) != ordered  # code points differ at the last two


def test_struct_members_at_every_depth_take_sparks_order():
    inner = pa.struct([("q", pa.int64()), ("p", pa.utf8())])
    t = pa.struct([("y", pa.list_(inner)), ("X", pa.int64()), ("m", pa.map_(pa.utf8(), inner))])
    want = pa.struct(
        [
            ("X", pa.int64()),
            ("m", pa.map_(pa.utf8(), inner)),  # Spark infers no maps: left as it is
            ("y", pa.list_(pa.struct([("p", pa.utf8()), ("q", pa.int64())]))),
        ]
    )
    assert members_in_sparks_order(t) == want
    assert members_in_sparks_order(pa.int64()) == pa.int64()
