"""Byte ranges of one file (the splits Spark tasks read): every line exactly once."""

from __future__ import annotations

import itertools
import json

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from batchloader import Scan


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
