"""JSON beyond the standard, as Spark's JSON reader options allow it: comments, leading
zeros, non-numeric numbers and single quotes (`Scan(json_syntax=...)`).

Oracles: rows written as JSON with comments between their tokens and zeros before their
integers read back as `pa.Table.from_pylist(rows)`; Spark's own JSON reader with the same
options on the same lines.
"""

from __future__ import annotations

import json
import math

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

import batchloader.spark as bls
from batchloader import FileReader, InputError
from batchloader.scan import Scan

SCHEMA = pa.schema(
    [
        ("i", pa.int64()),
        ("f", pa.float64()),
        ("s", pa.utf8()),
        ("l", pa.list_(pa.int64())),
        ("m", pa.struct([("a", pa.int64()), ("t", pa.utf8())])),
    ]
)
TEXTS = st.text(alphabet=["a", "/", "*", " ", "0", '"', "\\", "'", "é"], max_size=8)
ROWS = st.lists(
    st.fixed_dictionaries(
        {
            "i": st.integers(-(2**40), 2**40),
            "f": st.floats(allow_nan=False, allow_infinity=False),
            "s": TEXTS,
            "l": st.lists(st.integers(-50, 50), max_size=3),
            "m": st.fixed_dictionaries({"a": st.integers(0, 9), "t": TEXTS}),
        }
    ),
    min_size=1,
    max_size=20,
)


def render(value, draw, comments, zeros, added):
    """`value` as JSON text, with comments between tokens (where `comments`) and zeros
    before whole numbers (where `zeros`), as `draw` (a hypothesis draw) picks them; each
    one added is noted in `added`."""

    def gap():
        if not comments:
            return ""
        text = draw(st.sampled_from(["", " ", "/**/", " /* x, y */ "]))
        added.extend("/" * ("/" in text))
        return text

    def again(v):
        return render(v, draw, comments, zeros, added)

    if isinstance(value, dict):
        parts = [f"{gap()}{json.dumps(k)}{gap()}:{again(v)}" for k, v in value.items()]
        return gap() + "{" + ",".join(parts) + gap() + "}" + gap()
    if isinstance(value, list):
        return gap() + "[" + ",".join(again(v) for v in value) + "]" + gap()
    if isinstance(value, int) and zeros:
        sign, digits = ("-", str(-value)) if value < 0 else ("", str(value))
        padding = "0" * draw(st.integers(0, 3))
        added.extend(padding)
        return gap() + sign + padding + digits + gap()
    return gap() + json.dumps(value) + gap()


def read(path, **options):
    scan = Scan(str(path), schema=SCHEMA, strict_schema=True, columns=SCHEMA.names, **options)
    return pa.Table.from_batches(list(scan), SCHEMA)


@given(rows=ROWS, data=st.data(), comments=st.booleans(), zeros=st.booleans())
def test_comments_and_leading_zeros_read_as_the_rows_without_them(
    tmp_path_factory, rows, data, comments, zeros
):
    path = tmp_path_factory.mktemp("syntax") / "rows.json"
    added: list[str] = []
    lines = [render(r, data.draw, comments, zeros, added) for r in rows]
    if comments:
        ends = [data.draw(st.sampled_from(["", " // the end", "//"])) for _ in lines]
        added.extend(end for end in ends if end)
        lines = [line + end for line, end in zip(lines, ends, strict=True)]
    path.write_text("\n".join(lines) + "\n")
    syntax = {"allow_comments": comments, "allowNumericLeadingZeros": zeros}
    assert read(path, json_syntax=syntax).equals(pa.Table.from_pylist(rows, SCHEMA))
    if added:  # the same bytes without the options: a line with one is bad input
        with pytest.raises(InputError):
            read(path)


def test_both_paths_read_the_options_alike(tmp_path):
    """The one-pass path and the general one (`one_pass=False`) agree line by line."""
    path = tmp_path / "a.json"
    path.write_text(
        '{"i": 007, "f": NaN}\n{"i": /* c */ 1, "f": 1.5} // x\n{"i": 2, "f": -Infinity}\n'
    )
    import batchloader as bl

    def rows(**options):
        reader = FileReader(str(path), on_error="permissive", **options)
        loader = bl.ResultSetLoader(pa.schema([("i", pa.int64()), ("f", pa.float64())]))
        loader.start_batch()
        reader.fill(loader)
        return loader.harvest().to_pylist()

    for options in [
        {},
        {"allow_comments": True},
        {"allow_numeric_leading_zeros": True, "allow_non_numeric_numbers": False},
    ]:
        fast, general = rows(**options), rows(one_pass=False, **options)
        assert repr(fast) == repr(general), options
    assert [r["i"] for r in rows()] == [None, None, 2]  # 007 and the comment are bad
    assert rows()[2]["f"] == -math.inf
    assert [r["i"] for r in rows(allow_comments=True)] == [None, 1, 2]
    assert rows(allow_numeric_leading_zeros=True)[0]["i"] == 7
    assert rows(allow_non_numeric_numbers=False)[2]["_corrupt_record"] == '{"i": 2, "f": -Infinity}'


def test_options_are_checked(tmp_path):
    path = tmp_path / "a.json"
    path.write_text('{"a": 1}\n')
    with pytest.raises(ValueError, match="json_syntax has no 'allowComment'"):
        Scan(str(path), json_syntax={"allowComment": True})
    with pytest.raises(ValueError, match="is True or False, not 'true'"):
        Scan(str(path), json_syntax={"allowComments": "true"})
    with pytest.raises(ValueError, match="not with multiline=True"):
        Scan(str(path), json_syntax={"allowComments": True}, multiline=True)
    with pytest.raises(ValueError, match="not CSV"):
        FileReader(str(path), format="csv", allow_comments=True)
    with pytest.raises(ValueError, match="does not take unquoted field names"):
        bls.scan_options_from({"allowUnquotedFieldNames": "true"})


LINES = [
    '{"a": /* inner */ 2, "s": "x // not a comment /* nor */"}',
    '/* lead */ {"a": 3}',
    '{"a": 007}',
    '{"a": -01}',
    '{"a": 00.5}',
    '{"a": NaN}',
    "{'a': 4}",
    '{"a": 5, "s": \'// q\'}',
    '{"a": 1e01}',
    '{"a": 0}',
]


def test_the_options_read_as_sparks_json_reader_reads_them(spark, tmp_path):
    """Each option on Spark's reader and on `read` (Spark's names through
    `scan_options_from`): the same values, the same lines kept as corrupt."""
    path = tmp_path / "lines.json"
    path.write_text("\n".join(LINES) + "\n")
    ddl = "a double, s string, _corrupt_record string"
    for options in [
        {},
        {"allowComments": "true"},
        {"allowNumericLeadingZeros": "true"},
        {"allowNonNumericNumbers": "false"},
        {"allowSingleQuotes": "false"},
        {"allowComments": "true", "allowNumericLeadingZeros": "true"},
    ]:
        theirs = spark.read.schema(ddl).options(**options).json(str(path))
        named = bls.scan_options_from(options)
        ours = bls.read(spark, str(path), schema=ddl, columns=["a", "s", "_corrupt_record"],
                        on_error="permissive", **named)  # fmt: skip
        assert _rows(ours) == _rows(theirs), options


def _rows(df):
    return sorted(repr((r.a, r.s, r._corrupt_record)) for r in df.collect())


def test_json_documents_over_lines_take_the_options_too(tmp_path):
    """`multiline=True`: a document's numbers with leading zeros read, its `NaN` refused
    where the option says so (the record kept whole, as any bad one)."""
    path = tmp_path / "docs.json"
    path.write_text('[\n {"a": 007,\n  "b": 1},\n {"a": -0.5, "b": NaN}\n]\n')
    options = {
        "multiline": True,
        "on_error": "permissive",
        "columns": ["a", "b", "_corrupt_record"],
    }

    def rows(**syntax):
        return pa.Table.from_batches(list(Scan(str(path), json_syntax=syntax, **options)))

    zeros = rows(allow_numeric_leading_zeros=True)
    assert zeros.column("a").to_pylist() == [7.0, -0.5]
    b = zeros.column("b").to_pylist()
    assert b[0] == 1 and math.isnan(b[1])
    assert zeros.column("_corrupt_record").null_count == 2
    strict = rows(allow_numeric_leading_zeros=True, allow_non_numeric_numbers=False)
    assert strict.column("a").to_pylist() == [7, None]
    assert strict.column("_corrupt_record").to_pylist() == [None, '{"a": -0.5, "b": NaN}']
    assert rows().column("_corrupt_record")[0].as_py() == '{"a": 007,   "b": 1}'
