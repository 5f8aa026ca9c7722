"""JSON documents rather than lines (`multiline=True`, Spark's `multiLine`): a top-level array
of objects, or objects over several lines one after the other. The oracle is the same
objects one per line, read by the NDJSON reader; errors give the file's line and column."""

from __future__ import annotations

import json
import re

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import batchloader as bl
from batchloader.bench import NARROW, nested_rows

from strategies import loose_values

DATA_COLUMNS = ("fqn", "filepath", "filename", "suffix")


def data_table(scan: bl.Scan) -> pa.Table:
    table = pa.Table.from_batches(list(scan), schema=scan.schema)
    return table.drop_columns([c for c in DATA_COLUMNS if c in table.column_names])


def as_lines(tmp_path, rows, name="lines.json"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def json_rows(n):
    rows = nested_rows(n)
    for r in rows:
        r["ts"] = r["ts"].isoformat()
    return rows


@pytest.mark.parametrize("layout", ["array-indented", "array-compact", "objects-indented"])
@pytest.mark.parametrize("columns", [None, NARROW])
def test_documents_read_as_their_objects_one_per_line(tmp_path, layout, columns):
    rows = json_rows(2000)
    path = tmp_path / "docs.json"
    if layout == "array-indented":
        path.write_text(json.dumps(rows, indent=2))
    elif layout == "array-compact":
        path.write_text(json.dumps(rows))
    else:
        path.write_text("\n".join(json.dumps(r, indent="\t") for r in rows))
    want = data_table(bl.Scan(as_lines(tmp_path, rows), columns=columns))
    got = data_table(bl.Scan(path, columns=columns, multiline=True, batch_byte_limit=50_000))
    assert got.equals(want)


@given(
    docs=st.lists(
        st.tuples(
            st.dictionaries(st.sampled_from(["a", "b", "c]", 'd"{']), loose_values, max_size=4),
            st.sampled_from([None, 0, 1, 3, "\t"]),
        ),
        max_size=8,
    ),
    arrays=st.lists(st.integers(0, 8), max_size=3),
    bom=st.booleans(),
    crlf=st.booleans(),
)
@settings(max_examples=300)
def test_any_objects_in_any_layout_read_as_lines_do(tmp_path_factory, docs, arrays, bom, crlf):
    """Objects with keys holding brackets and quotes, indented or not, some of them grouped
    into top-level arrays, with a byte order mark and CRLF line ends or not: the rows, the
    schema and the errors are those of the same objects one per line."""
    folder = tmp_path_factory.mktemp("docs")
    texts = [json.dumps(d, indent=indent) for d, indent in docs]
    # group runs of the objects into arrays: `[a, b]`, then the rest as they are
    pieces, at = [], 0
    for size in arrays:
        pieces.append("[" + ",\n".join(texts[at : at + size]) + "]")
        at += size
    pieces += texts[at:]
    text = ("\ufeff" if bom else "") + "\n".join(pieces)
    if crlf:
        text = text.replace("\n", "\r\n")
    path = folder / "docs.json"
    path.write_bytes(text.encode())

    def read(p, **options):
        """The table and lines skipped, or the error without its place and excerpt (the
        record's own whitespace)."""
        scan = bl.Scan(p, **options)
        try:
            return data_table(scan), scan.skipped_lines
        except (bl.SchemaConflictError, bl.InputError) as e:  # conflicting types
            message = re.sub(r"^.*?, line \d+(, column \d+)?: ", "", str(e))
            return re.sub(r" \(near .*\)$", "", message, flags=re.S)

    lines = as_lines(folder, [d for d, _ in docs])
    for on_error in ("error", "skip"):
        want = read(lines, on_error=on_error)
        got = read(path, multiline=True, on_error=on_error)
        if isinstance(want, str):
            assert got == want
        else:
            assert got[0].equals(want[0]) and got[1] == want[1]


def test_an_error_names_the_files_line_and_column(tmp_path):
    """A bad value deep in an indented array: its line and byte column in the file, for
    every `on_error` mode's own reporting, and the other objects read."""
    rows = [{"a": i, "b": {"c": [i, i + 1]}} for i in range(50)]
    text = json.dumps(rows, indent=2).replace('"a": 31,', '"a": 31x,')
    path = tmp_path / "docs.json"
    path.write_text(text)
    lines = text.split("\n")
    line = next(k for k, t in enumerate(lines, 1) if "31x" in t)
    column = lines[line - 1].index("x") + 1
    with pytest.raises(bl.InputError, match=rf"docs\.json, line {line}, column {column}:"):
        list(bl.Scan(path, multiline=True))
    skipping = bl.Scan(path, multiline=True, on_error="skip")
    assert data_table(skipping).column("a").to_pylist() == [i for i in range(50) if i != 31]
    assert skipping.skipped_lines == 1
    keeping = bl.Scan(path, multiline=True, on_error="permissive")
    table = data_table(keeping)
    assert table.num_rows == 50 and keeping.corrupt_lines == 1
    corrupt = table.column("_corrupt_record").to_pylist()[31]
    assert corrupt is not None and '"a": 31x,' in corrupt


def test_a_type_conflict_names_the_line_of_its_value(tmp_path):
    path = tmp_path / "docs.json"
    path.write_text('[\n {"a": 1},\n {\n  "a":\n    "two"\n }\n]\n')
    with pytest.raises(bl.InputError, match=r"line 5, column 5: .*'a'"):
        list(bl.Scan(path, multiline=True, schema=pa.schema([("a", pa.int64())])))


def test_anything_but_objects_is_a_bad_record(tmp_path):
    path = tmp_path / "docs.json"
    path.write_text('[{"a": 1}, 2, [3], "x", {"a": 4}]')
    with pytest.raises(bl.InputError, match=r"line 1, column 12: .*not a number"):
        list(bl.Scan(path, multiline=True))
    scan = bl.Scan(path, multiline=True, on_error="skip")
    assert data_table(scan).column("a").to_pylist() == [1, 4]
    assert scan.skipped_lines == 3


@pytest.mark.parametrize("on_error", ["error", "skip", "permissive"])
def test_an_array_cut_short_is_an_error_in_every_mode(tmp_path, on_error):
    """Cut after a whole object, the array lacks its `]`: an error, not fewer rows."""
    text = json.dumps([{"a": i} for i in range(10)], indent=1)
    for cut in (text.index("}") + 1, len(text) - 2, len(text) - 1):
        path = tmp_path / "cut.json"
        path.write_text(text[:cut])
        with pytest.raises(bl.InputError, match=r"(truncated|EOF while parsing)"):
            list(bl.Scan(path, multiline=True, on_error=on_error))


@pytest.mark.parametrize("on_error", ["error", "skip", "permissive"])
@pytest.mark.parametrize(
    ("edit", "place", "says"),
    [
        # (line to change: its new text), the fault's (line, column), what the error says
        (None, None, None),  # no fault: the control
        ((40, "  }"), (41, 3), "no `,` between this element"),
        ((40, "  },,"), (40, 5), "a `,` where an element"),
        ((61, "  },"), (62, 1), "a `,` before the array's closing `]`"),
    ],
)
def test_a_comma_missing_or_extra_in_the_array_is_an_error_in_every_mode(
    tmp_path, on_error, edit, place, says
):
    """A top-level array whose commas are wrong is malformed JSON (Spark's multiLine fails
    the whole file on it), not rows read as if it were right. The error gives the file's
    line and column of the fault in every mode: no record is bad, so none could be skipped
    for it. The rows before it are read, none twice."""
    lines = json.dumps([{"a": i} for i in range(20)], indent=2).split("\n")
    assert lines[39] == "  }," and lines[60] == "  }"  # object 12's end; the last's
    if edit is not None:
        lines[edit[0] - 1] = edit[1]
    path = tmp_path / "docs.json"
    path.write_text("\n".join(lines))
    scan = bl.Scan(path, multiline=True, on_error=on_error, row_limit=5)
    if says is None:
        assert data_table(scan).column("a").to_pylist() == list(range(20))
        return
    got = []
    where = rf"docs\.json, line {place[0]}, column {place[1]}: {re.escape(says)}"
    with pytest.raises(bl.InputError, match=where):
        for batch in scan:
            got += batch.column("a").to_pylist()
    assert got == list(range(len(got)))


def test_a_file_of_documents_read_as_lines_says_how_to_read_it(tmp_path):
    for text in ('[{"a": 1}]', '{\n  "a": 1\n}'):
        path = tmp_path / "docs.json"
        path.write_text(text)
        with pytest.raises(bl.InputError, match=r"line 1, .*reads with multiline=True"):
            list(bl.Scan(path))
    path.write_text('{"a": 1}\n[1]\n')  # a later line is not a sign of documents
    with pytest.raises(bl.InputError, match=r"line 2, .*not an array \(near \"\[1\]\"\)$"):
        list(bl.Scan(path))


def test_multiline_is_refused_where_it_cannot_apply(tmp_path):
    path = tmp_path / "docs.json"
    path.write_text('[{"a": 1}]')
    with pytest.raises(ValueError, match="multiline"):
        bl.Scan(path, multiline=True, byte_range=(0, 4))


def test_multiline_csv_reads_quoted_line_breaks_as_csv_always_does(tmp_path):
    """`multiline=True` on CSV (Spark's `multiLine`): a file read whole, whose quoted fields
    may hold line breaks, as a CSV file read whole always may: the same table as without
    it (a byte range is what cannot read them)."""
    path = tmp_path / "m.csv"
    path.write_text('a,b\n1,"x\ny"\n2,"p\r\nq"\n3,z\n')
    whole = data_table(bl.Scan(path, header=True, multiline=True))
    assert whole.column("b").to_pylist() == ["x\ny", "p\r\nq", "z"]
    assert whole.equals(data_table(bl.Scan(path, header=True)))


def test_compressed_documents(tmp_path):
    import gzip

    rows = json_rows(300)
    path = tmp_path / "docs.json.gz"
    path.write_bytes(gzip.compress(json.dumps(rows, indent=1).encode()))
    want = data_table(bl.Scan(as_lines(tmp_path, rows)))
    assert data_table(bl.Scan(path, multiline=True)).equals(want)


@given(
    text=st.text(alphabet='{}[]",: \n\r\t\\ab1-NIaf.e', max_size=60),
    on_error=st.sampled_from(["error", "skip", "permissive"]),
)
@settings(max_examples=300)
def test_any_bytes_give_rows_or_an_input_error(tmp_path_factory, text, on_error):
    """Fragments of JSON in any order (unbalanced brackets, stray commas, cut strings and
    escapes, line breaks anywhere): rows, or an error naming the file and a line, never a
    crash; with `skip`, every record is a row or a skipped line."""
    path = tmp_path_factory.mktemp("junk") / "j.json"
    path.write_text(text)
    scan = bl.Scan(path, multiline=True, on_error=on_error, batch_byte_limit=1000)
    try:
        rows = sum(b.num_rows for b in scan)
    except bl.InputError as e:
        assert re.search(r"j\.json, line \d+", str(e)), e
        return
    except bl.SchemaConflictError:
        return  # records whose types conflict (a type change between batches)
    assert rows == scan.rows_read


def test_a_type_guessed_from_nulls_keeps_later_records_values_as_their_json_text(tmp_path):
    """JSON documents go through the lines' writer: a column null in the whole first batch
    keeps its guessed utf8 type, and a later record's value there is its JSON text (its line
    breaks as spaces: it parses back to the value)."""
    values = [5, [1, {"a": None}], "s", True]
    path = tmp_path / "a.json"
    path.write_text(json.dumps([{"x": None}, {"x": None}] + [{"x": v} for v in values], indent=2))
    scan = bl.Scan(path, multiline=True, row_limit=2)
    got = data_table(scan).column("x").to_pylist()
    assert scan.text_kept == {"x": 3}  # the string is no such value
    assert got[:3] == [None, None, "5"]
    assert [json.loads(t) for t in got[3:4]] == values[1:2]
    assert got[4:] == ["s", "true"]
