"""Byte ranges of one file (the splits Spark tasks read): every line exactly once."""

from __future__ import annotations

import itertools
import json

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from batchloader import InputError, Scan


@given(
    lines=st.lists(
        st.one_of(
            st.builds(
                lambda i, s: json.dumps({"i": i, "s": s}),
                st.integers(min_value=-(2**63), max_value=2**63 - 1),
                st.text(),
            ),
            st.just(""),  # blank lines are skipped, wherever a range starts
        ),
        min_size=1,
        max_size=40,
    ),
    cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=8),
    trailing_newline=st.booleans(),
)
def test_ranges_at_random_offsets_read_each_line_once(
    tmp_path_factory, lines, cuts, trailing_newline
):
    path = tmp_path_factory.mktemp("ranges") / "f.json"
    text = "\n".join(lines) + ("\n" if trailing_newline else "")
    path.write_text(text, encoding="utf-8")
    size = path.stat().st_size
    bounds = sorted({0, size, *(c % (size + 1) for c in cuts)})
    schema = pa.schema([("i", pa.int64()), ("s", pa.utf8())])
    cols = ["i", "s"]
    whole = pa.Table.from_batches(list(Scan(str(path), schema=schema, columns=cols)), schema=schema)
    parts = []
    for start, end in itertools.pairwise(bounds):
        scan = Scan(str(path), schema=schema, columns=cols, byte_range=(start, end))
        parts += list(scan)
    assert pa.Table.from_batches(parts, schema=schema).equals(whole)


def test_byte_range_needs_one_uncompressed_file(tmp_path):
    (tmp_path / "a.json").write_text('{"a": 1}\n')
    (tmp_path / "b.json.gz").write_bytes(b"")
    with pytest.raises(ValueError, match="one file"):
        Scan(str(tmp_path), byte_range=(0, 4))
    with pytest.raises(ValueError, match="compressed"):
        list(Scan(str(tmp_path / "b.json.gz"), byte_range=(0, 4)))


def _csv_text(multiline: bool) -> str:
    lines = ["n,s"]
    for i in range(30):
        s = f'"v{i}, quoted ""{i}"""'
        if multiline and i % 7 == 3:
            s = f'"two\nlines {i}"'
        lines.append(f"{i},{s}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("on_error", ["error", "skip", "permissive"])
def test_csv_ranges_read_each_record_once_or_refuse_quoted_line_breaks(tmp_path, on_error):
    """A record whose quoted field holds a line break cannot be found from a range that starts
    inside it: rather than read it wrong, the range that starts it refuses it, whatever the
    error policy, and says how to read the file (whole, split_bytes=0)."""
    for multiline in (False, True):
        path = tmp_path / f"m{multiline}.csv"
        path.write_text(_csv_text(multiline))
        size = path.stat().st_size
        whole = pa.Table.from_batches(list(Scan(str(path), header=True, on_error=on_error)))
        assert whole.num_rows == 30
        for cut in range(1, size, 7):
            parts, refused = [], []
            for start, end in ((0, cut), (cut, size)):
                scan = Scan(str(path), header=True, on_error=on_error, byte_range=(start, end))
                try:
                    parts += list(scan)
                except InputError as e:
                    refused.append(str(e))
            if multiline:
                assert refused, f"cut at {cut}: a quoted line break was read from a range"
                assert all("split_bytes=0" in m for m in refused)
                assert "line 5" in refused[0]  # the first multi-line record
            else:
                assert not refused
                got = pa.Table.from_batches(parts, schema=whole.schema)
                assert got.equals(whole), f"cut at {cut}"


def test_a_csv_range_starting_at_u_feff_keeps_it_as_text(tmp_path):
    """Only the file's first bytes can be its byte order mark: a U+FEFF starting a line
    inside the file is a field's text, whichever range starts at that line."""
    text = "\ufeffn,s\n1,a\n\ufeff2,b\n3,\ufeffc\n"
    path = tmp_path / "marks.csv"
    path.write_text(text, encoding="utf-8")
    whole = pa.Table.from_batches(list(Scan(str(path), header=True, columns=["n", "s"])))
    assert whole.to_pydict() == {"n": ["1", "\ufeff2", "3"], "s": ["a", "b", "\ufeffc"]}
    data = text.encode()
    for cut in [k + 1 for k, b in enumerate(data) if b == ord("\n")][:-1]:
        parts = []
        for start, end in ((0, cut), (cut, len(data))):
            parts += Scan(str(path), header=True, columns=["n", "s"], byte_range=(start, end))
        assert pa.Table.from_batches(parts, schema=whole.schema).equals(whole), f"cut at {cut}"


def test_a_csv_header_after_blank_lines_is_no_row_of_any_range(tmp_path):
    """The header is the first record, after any blank lines: a range that starts among
    them or at the header's line reads it as the header, not as a row (found by fuzzing)."""
    # (a lone \r ends a line of CSV, not a line of the range's input)
    for k, text in enumerate(['\n\r\n\n"id",name\n1,x\n\n2,y\n', "\r\n\rid,name\r1,x\n2,y"]):
        path = tmp_path / f"blank_first{k}.csv"
        path.write_text(text, encoding="utf-8", newline="")
        cols = ["id", "name"]
        whole = pa.Table.from_batches(list(Scan(str(path), header=True, columns=cols)))
        assert whole.to_pydict() == {"id": ["1", "2"], "name": ["x", "y"]}
        size = len(text.encode())
        for cut in range(1, size):
            parts = []
            for start, end in ((0, cut), (cut, size)):
                parts += Scan(str(path), header=True, columns=cols, byte_range=(start, end))
            got = pa.Table.from_batches(parts, schema=whole.schema)
            assert got.equals(whole), f"{text!r} cut at {cut}"


def test_a_csv_range_names_lines_as_the_whole_file_does_whatever_the_line_breaks(tmp_path):
    """A range of a CSV file whose lines end in lone `\\r`s as well as `\\n`s: an error in it
    names the same line as reading the file whole (a lone `\\r` ends a line before the range
    as inside it)."""
    records = ["a,b", "1,2", "3,4", "5,6", "7,8", "9,10", "x,11", "12,13"]
    breaks = ["\r", "\r", "\n", "\r\n", "\r", "\n", "\n", "\n"]
    text = "".join(r + b for r, b in zip(records, breaks, strict=True))
    path = tmp_path / "mixed.csv"
    path.write_bytes(text.encode())
    schema = pa.schema([("a", pa.int64())])
    bad_line = records.index("x,11") + 1
    with pytest.raises(InputError, match=rf"line {bad_line}, column 1: field 1 \(a\)"):
        list(Scan(str(path), header=True, schema=schema))
    # every range that starts after a line break and holds the bad record
    size = len(text)
    starts = [k + 1 for k, c in enumerate(text) if c == "\n" and k + 1 <= text.index("x,11")]
    assert len(starts) >= 2
    for start in starts:
        with pytest.raises(InputError, match=rf"line {bad_line}, column 1: field 1 \(a\)"):
            list(Scan(str(path), header=True, schema=schema, byte_range=(start, size)))
