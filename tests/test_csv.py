"""The Rust CSV reader through the scan: pyarrow.csv oracle, Drill's `columns` list, dialects,
ragged rows, bad input."""

from __future__ import annotations

import csv
import gzip

import pyarrow as pa
import pyarrow.csv as pcsv
import pytest
from float_texts import f32_midpoint_texts
from hypothesis import assume, given
from hypothesis import strategies as st
from reading import read_to_end

import batchloader as bl
from batchloader.bench import FLAT_SCHEMA, flat_rows

from arrow_bytes import batch_buffer_sizes

IMPLICIT = ["fqn", "filepath", "filename", "suffix"]


def table_of(scan):
    t = pa.Table.from_batches(list(scan), schema=scan.schema)
    return t.drop_columns([c for c in IMPLICIT if c in t.column_names])


def test_header_file_equals_pyarrow_csv(tmp_path):
    data = pa.Table.from_pylist(flat_rows(2000), schema=FLAT_SCHEMA)
    path = tmp_path / "flat.csv"
    pcsv.write_csv(data, path)
    schema = pa.schema([f.with_nullable(True) for f in FLAT_SCHEMA])
    want = pcsv.read_csv(path, convert_options=pcsv.ConvertOptions(column_types=schema))
    scan = bl.Scan(path, header=True, schema=schema, batch_byte_limit=32 * 1024)
    got = table_of(scan)
    assert got.equals(want.select(got.column_names).cast(got.schema))
    assert got.num_rows == 2000


def test_untyped_header_columns_are_strings_like_pyarrow(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text('a,b\n1,"x ""q"" y"\n2,\n,"multi\nline"\n')
    got = table_of(bl.Scan(path, header=True))
    strings = pa.schema([("a", pa.utf8()), ("b", pa.utf8())])
    want = pcsv.read_csv(
        path,
        convert_options=pcsv.ConvertOptions(column_types=strings, strings_can_be_null=False),
    )
    assert got.equals(want)


def test_a_schema_names_a_headerless_files_fields_by_position(tmp_path):
    """A file without a header read with schema=: its fields go to the schema's columns
    by position (as pyarrow.csv's `column_names` and Spark's CSV reader map them), not to
    Drill's `columns` list beside all-null columns; the corrupt-record column is not one
    of them. A schema that has `columns` keeps Drill's list."""
    path = tmp_path / "p.csv"
    path.write_text("1,a,1.5\n2,b,2.5\n3,,x\n")
    schema = pa.schema([("n", pa.int64()), ("s", pa.utf8()), ("f", pa.float64())])
    names = pcsv.ReadOptions(column_names=schema.names)
    typed = pcsv.ConvertOptions(column_types=schema, strings_can_be_null=False)
    with pytest.raises(bl.InputError, match=r"line 3, column 4: field 3 \(f\) is not a number"):
        table_of(bl.Scan(path, format="csv", schema=schema))
    path.write_text("1,a,1.5\n2,b,2.5\n3,,7\n")
    want = pcsv.read_csv(path, read_options=names, convert_options=typed)
    assert table_of(bl.Scan(path, format="csv", schema=schema)).equals(want)
    # permissive: a bad field's record kept whole, the columns still by position
    path.write_text("1,a,1.5\nx,b,2.5\n")
    got = table_of(bl.Scan(path, format="csv", schema=schema, on_error="permissive"))
    assert got.column_names == ["n", "s", "f", "_corrupt_record"]
    assert got.column("n").to_pylist() == [1, None]
    assert got.column("_corrupt_record").to_pylist() == [None, "x,b,2.5"]
    drills = pa.schema([("columns", pa.list_(pa.utf8()))])
    got = table_of(bl.Scan(path, format="csv", schema=drills))
    assert got.column("columns").to_pylist() == [["1", "a", "1.5"], ["x", "b", "2.5"]]


def test_headerless_file_gives_drills_columns_list(tmp_path):
    path = tmp_path / "amount.csv"
    path.write_text('"1","Bob","200","false"\n"2","Kate","150","true"\n"3"\n')
    whole = bl.Scan(path, columns=["columns", "filename"])
    t = pa.Table.from_batches(list(whole), schema=whole.schema)
    assert t.schema.field("columns").type == pa.list_(pa.utf8())
    assert t.column("columns").to_pylist() == [
        ["1", "Bob", "200", "false"],
        ["2", "Kate", "150", "true"],
        ["3"],
    ]
    # Indexes are pushed into the reader: positions stay, fields not asked for are null,
    # fields after the last index are not read (so columns[i] is the same either way).
    scan = bl.Scan(path, columns=["columns[2]", "columns[0]", "filename"])
    assert scan.projection["columns"].indexes == [0, 2]
    t = pa.Table.from_batches(list(scan), schema=scan.schema)
    assert t.schema.field("columns").type == pa.list_(pa.utf8())
    assert t.column("columns").to_pylist() == [["1", None, "200"], ["2", None, "150"], ["3"]]


def test_fields_not_projected_by_index_are_never_decoded(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_bytes(b"a,\xff\xfe,c,d\n")
    with pytest.raises(bl.InputError, match="UTF-8"):
        list(bl.Scan(path, columns=["columns"]))
    t = pa.Table.from_batches(list(bl.Scan(path, columns=["columns[2]"])))
    assert t.column("columns").to_pylist() == [[None, None, "c"]]


@pytest.mark.parametrize(
    ("text", "kw", "want"),
    [
        ("a;b\n1;x\n", {"delimiter": ";"}, [{"a": "1", "b": "x"}]),
        ("a,b,c\n'1,2',x\n", {}, [{"a": "'1", "b": "2'", "c": "x"}]),
        ("a,b\n'1,2',x\n", {"quote": "'"}, [{"a": "1,2", "b": "x"}]),
        ('a,b\n"1\\"2",x\n', {"escape": "\\"}, [{"a": '1"2', "b": "x"}]),
        # the quote as its own escape is the doubled quote (Spark's `escape='"'`)
        (
            'a,b\n"1""2",x\n"3",""""\n',
            {"escape": '"'},
            [{"a": '1"2', "b": "x"}, {"a": "3", "b": '"'}],
        ),
        ("a,b\n'1''2',x\n", {"quote": "'", "escape": "'"}, [{"a": "1'2", "b": "x"}]),
    ],
)
def test_dialects(tmp_path, text, kw, want):
    path = tmp_path / "d.csv"
    path.write_text(text)
    assert table_of(bl.Scan(path, header=True, **kw)).to_pylist() == want
    # in byte ranges too (a split of a large file), and with a projection
    for columns in (None, ["b"]):
        scan = bl.Scan(path, header=True, byte_range=(0, len(text)), columns=columns, **kw)
        assert table_of(scan).to_pylist() == [{k: r[k] for k in columns or r} for r in want]


@pytest.mark.parametrize(
    ("kw", "why"),
    [
        ({"delimiter": "\n"}, "delimiter"),
        ({"delimiter": "\r"}, "delimiter"),
        ({"quote": "\n"}, "quote"),
        ({"escape": "\r"}, "escape"),
        ({"delimiter": "|", "quote": "|"}, "delimiter and the quote"),
        ({"delimiter": ";", "escape": ";"}, "delimiter and the escape"),
    ],
)
def test_a_dialect_that_cannot_be_read_is_refused(tmp_path, kw, why):
    """A line break for a delimiter, quote or escape, or one byte for two of them, would
    read the file some other way than it was written (a delimiter of \\n read no row)."""
    path = tmp_path / "d.csv"
    path.write_text("a|b\n1|2\n")
    with pytest.raises(ValueError, match=why):
        list(bl.Scan(path, header=True, **kw))


def test_tsv_by_suffix(tmp_path):
    path = tmp_path / "t.tsv"
    path.write_text("a\tb\n1\t2\n")
    assert table_of(bl.Scan(path, header=True)).to_pylist() == [{"a": "1", "b": "2"}]


def test_ragged_rows(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("a,b,c\n1,2,3\n4\n5,6,7,8\n9,10,11\n")
    with pytest.raises(
        bl.InputError, match=r"r\.csv, line 4, column 7: the record has 4 fields, the header 3"
    ):
        list(bl.Scan(path, header=True))
    scan = bl.Scan(path, header=True, on_error="skip")
    assert table_of(scan).to_pylist() == [
        {"a": "1", "b": "2", "c": "3"},
        {"a": "4", "b": None, "c": None},
        {"a": "9", "b": "10", "c": "11"},
    ]
    assert scan.skipped_lines == 1


@pytest.mark.parametrize("header", [True, False])
@pytest.mark.parametrize("end", ["\n", ""])
def test_a_quote_never_closed_is_an_error_not_the_rest_of_the_file(tmp_path, header, end):
    """A quote opened and never closed takes every later line into one field: the record is
    bad input (named by the line it starts on, under every on_error), not a silent loss of
    the rows after it."""
    head = "a,b\n" if header else ""
    path = tmp_path / "q.csv"
    path.write_text(head + '1,2\n3,"open\n4,5\n6,7' + end)
    line = 3 if header else 2
    with pytest.raises(bl.InputError, match=rf"q\.csv, line {line}: .*quote.* never closed"):
        list(bl.Scan(path, header=header))
    skip = bl.Scan(path, header=header, on_error="skip")
    rows = table_of(skip).to_pylist()
    assert rows == ([{"a": "1", "b": "2"}] if header else [{"columns": ["1", "2"]}])
    assert skip.skipped_lines == 1
    permissive = table_of(bl.Scan(path, header=header, on_error="permissive"))
    assert permissive.column("_corrupt_record").to_pylist() == [None, '3,"open\n4,5\n6,7']


@pytest.mark.parametrize(
    "last", ['3,"x"', '3,"two\nlines"', '3,ab"c', '3,"say ""hi"""', '3,""', "3,"]
)
def test_a_last_record_without_a_line_break_is_read_whole(tmp_path, last):
    """The file's last record ends at the end of the input: closed quotes, quotes inside an
    unquoted field and doubled quotes are not taken for a quote left open."""
    path = tmp_path / "l.csv"
    path.write_text("a,b\n1,2\n" + last)
    want = pcsv.read_csv(
        path,
        convert_options=pcsv.ConvertOptions(
            column_types={"a": pa.utf8(), "b": pa.utf8()}, strings_can_be_null=False
        ),
    )
    assert table_of(bl.Scan(path, header=True)).equals(want)


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize("header", [True, False])
def test_errors_name_the_records_own_line_whatever_the_line_breaks(tmp_path, newline, header):
    """After `\r\n` or lone `\r` line breaks and blank lines, an error still names the line
    its record starts on (a record starts before the `\n` of the last one's `\r\n`; a lone
    `\r` ends a line as it ends a record)."""
    lines = ["a,b"] if header else []
    lines += ["1,2", "", "", "3,4", "x,5", "", "6,7,8,9"]
    path = tmp_path / "l.csv"
    path.write_bytes(newline.join(lines).encode() + newline.encode())
    bad_int, ragged = lines.index("x,5") + 1, lines.index("6,7,8,9") + 1
    if header:
        schema = pa.schema([("a", pa.int64())])
        with pytest.raises(
            bl.InputError, match=rf"l\.csv, line {bad_int}, column 1: field 1 \(a\)"
        ):
            list(bl.Scan(path, header=True, schema=schema))
        with pytest.raises(
            bl.InputError, match=rf"l\.csv, line {ragged}, column 5: the record has 4"
        ):
            list(bl.Scan(path, header=True))
    lines = [*lines[:-1], "", '1,"open', "2"]
    path.write_bytes(newline.join(lines).encode())
    opened = len(lines) - 1
    with pytest.raises(bl.InputError, match=rf"l\.csv, line {opened}: a quote .* 2 lines"):
        list(bl.Scan(path, header=header))
    path.write_bytes(newline.join(lines[:-1]).encode() + newline.encode())
    with pytest.raises(bl.InputError, match=rf"line {opened}: a quote .* taking in 1 line \("):
        list(bl.Scan(path, header=header))


def test_conversion_errors_name_line_and_field(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text("n,s\n1,a\nxx,b\n3,c\n")
    schema = pa.schema([("n", pa.int32())])
    with pytest.raises(
        bl.InputError, match=r"line 3, column 1: field 1 \(n\) is not an integer: \"xx\""
    ):
        list(bl.Scan(path, header=True, schema=schema))
    scan = bl.Scan(path, header=True, schema=schema, on_error="permissive")
    t = table_of(scan)
    assert t.column("n").to_pylist() == [1, None, 3]
    assert t.column("_corrupt_record").to_pylist() == [None, "xx,b", None]


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_permissive_keeps_the_record_exactly_as_written(tmp_path, newline):
    """`_corrupt_record` holds the record's own text: quotes, doubled quotes, a delimiter and
    a line break inside quotes, spaces; the line terminator is not part of it."""
    bad = ['"x,x",  "say ""hi""" ', '"two\nlines",b']
    lines = ["n,s", "1,a", bad[0], "2,b", bad[1], "3,c"]
    path = tmp_path / "q.csv"
    path.write_bytes(newline.join(lines).encode() + b"\n")
    scan = bl.Scan(path, header=True, schema=pa.schema([("n", pa.int32())]), on_error="permissive")
    t = table_of(scan)
    assert t.column("n").to_pylist() == [1, None, 2, None, 3]
    assert t.column("_corrupt_record").to_pylist() == [None, bad[0], None, bad[1], None]


def test_permissive_raw_records_across_read_buffers(tmp_path):
    """Records far apart in a file larger than the reader's buffers keep their exact text."""
    rows = [f'{i},"v{i}"' if i % 997 else f'x{i},"q ""{i}"""' for i in range(1, 20_000)]
    path = tmp_path / "big.csv"
    path.write_text("n,s\n" + "\n".join(rows) + "\n")
    scan = bl.Scan(path, header=True, schema=pa.schema([("n", pa.int64())]), on_error="permissive")
    t = table_of(scan)
    kept = [r for r in t.column("_corrupt_record").to_pylist() if r is not None]
    assert kept == [r for r in rows if r.startswith("x")]
    assert t.num_rows == len(rows)


def test_gzip_csv_and_empty_file(tmp_path):
    with gzip.open(tmp_path / "g.csv.gz", "wt") as f:
        f.write("a\n1\n2\n")
    (tmp_path / "empty.csv").write_text("")
    scan = bl.Scan(tmp_path, header=True, columns=["a", "filename"])
    t = pa.Table.from_batches(list(scan), schema=scan.schema)
    assert t.to_pylist() == [{"a": "1", "filename": "g.csv.gz"}, {"a": "2", "filename": "g.csv.gz"}]
    assert scan.files_read == 2


def test_a_header_without_records_still_names_the_columns(tmp_path):
    """A CSV file holding only its header is an empty table with the header's columns, as
    pyarrow.csv reads it (not a table without them), alone or with typed columns."""
    path = tmp_path / "only_header.csv"
    path.write_text("a,b\n")
    types = {"a": pa.int64(), "b": pa.utf8()}
    want = pcsv.read_csv(path, convert_options=pcsv.ConvertOptions(column_types=types))
    got = table_of(bl.Scan(path, header=True, schema=pa.schema([("a", pa.int64())])))
    assert got.schema == want.schema and got.num_rows == 0
    assert table_of(bl.Scan(path, header=True, columns=["b"])).column_names == ["b"]


def test_invalid_utf8_field(tmp_path):
    path = tmp_path / "u.csv"
    path.write_bytes(b"a\nok\n\xff\n")
    with pytest.raises(bl.InputError, match=r"line 3, column 1: field 1 is not valid UTF-8"):
        list(bl.Scan(path, header=True))


@pytest.mark.parametrize("header", [True, False])
def test_a_character_split_between_fields_is_invalid(tmp_path, header):
    """The record is validated whole, then cut into fields: a two-byte character whose bytes
    fall in two fields makes the record valid UTF-8 but neither field; it must still fail."""
    path = tmp_path / "split.csv"
    path.write_bytes(b"a,b\nx\xc3,\xa9y\n")
    if header:
        with pytest.raises(bl.InputError, match=r"line 2, column 1: field 1 is not valid UTF-8"):
            list(bl.Scan(path, header=True))
    else:
        with pytest.raises(bl.InputError, match=r"line 2, column 1: field 1 is not valid UTF-8"):
            list(bl.Scan(path, header=False))


def test_non_ascii_fields_are_kept_exactly(tmp_path):
    path = tmp_path / "u.csv"
    path.write_text('a,b,c\nü,"é,ß",日本\n,"",x\n', encoding="utf-8")
    t = pa.Table.from_batches(list(bl.Scan(path, header=True, columns=["a", "b", "c"])))
    assert t.to_pylist() == [{"a": "ü", "b": "é,ß", "c": "日本"}, {"a": "", "b": "", "c": "x"}]


@pytest.mark.parametrize(
    ("header", "second"), [("a,b,A", "A"), ("É,x,é", "é"), ("id,,column2", "column2")]
)
def test_a_header_naming_a_column_twice_is_refused_at_the_header(tmp_path, header, second):
    """Names are case-insensitive (Unicode lowercase, as the loader compares them), and an
    empty header field is named `column<n>`: a second name for one column is an error on
    line 1, not a loader error on the first record."""
    path = tmp_path / "h.csv"
    path.write_text(f"{header}\n1,2,3\n", encoding="utf-8")
    column = header.encode().rindex(b",") + 2  # the second name, the header's last field
    with pytest.raises(
        bl.InputError, match=rf"line 1, column {column}: the header names '{second}' twice"
    ):
        list(bl.Scan(path, header=True))


def quoted_csv(rows: list[list[str]], delimiter: str, newline: str) -> str:
    """RFC 4180 text of `rows`: a field is quoted if it holds the delimiter, a quote or a line
    break (Python's csv writer leaves a lone \r unquoted), or is a row's only field and
    empty (else the line would be blank)."""

    return "".join(
        delimiter.join(quoted_field(f, delimiter, len(r) == 1) for f in r) + newline for r in rows
    )


def quoted_field(f: str, delimiter: str, alone: bool) -> str:
    """`f` as `quoted_csv` writes it."""
    if any(c in f for c in (delimiter, '"', "\r", "\n")) or (alone and f == ""):
        return '"' + f.replace('"', '""') + '"'
    return f


@given(
    rows=st.lists(
        st.tuples(st.integers(0, 99), st.text(alphabet=list('ab,"\n\r é'), max_size=5)),
        min_size=1,
        max_size=5,
    ),
    bad=st.data(),
    newline=st.sampled_from(["\n", "\r\n", "\r"]),
)
def test_a_refused_field_is_named_by_its_own_line_and_column(tmp_path_factory, rows, bad, newline):
    """A field the column cannot take (or the first field past the header's) is named by
    the line and byte column where it starts as the file has it: at its quote if quoted,
    on the line it starts on after line breaks quoted earlier in the record, whatever the
    line breaks. The expected place is counted while the text is written."""
    records = [[str(n), text, str(n)] for n, text in rows]
    at = bad.draw(st.integers(0, len(records) - 1))
    field = bad.draw(st.sampled_from([0, 2, 3]))
    spelled = bad.draw(st.sampled_from(["x", '"x"', '"1\n2"', "é"]))
    if field == 3:
        records[at].append("")
    text, line, column, want = "n,s,m" + newline, 2, 1, None
    for k, record in enumerate(records):
        for i, f in enumerate(record):
            if i:
                text += ","
                column += 1
            if (k, i) == (at, field):
                want = (line, column)
                f = spelled if field < 3 else f
            else:
                f = quoted_field(f, ",", False)
            text += f
            breaks = f.replace("\r\n", "\n").replace("\r", "\n")
            line += breaks.count("\n")
            column = len(breaks.rsplit("\n", 1)[-1].encode()) + (1 if "\n" in breaks else column)
        text += newline
        line, column = line + 1, 1
    path = tmp_path_factory.mktemp("csv") / "f.csv"
    path.write_bytes(text.encode())
    schema = pa.schema([("n", pa.int64()), ("s", pa.utf8()), ("m", pa.int64())])
    with pytest.raises(bl.InputError) as e:
        list(bl.Scan(path, header=True, schema=schema))
    assert (e.value.line, e.value.column) == want, (text, str(e.value))


@given(
    rows=st.lists(
        st.lists(st.text(alphabet=list('ab,;|"\n\r \té'), max_size=6), min_size=1, max_size=4),
        min_size=1,
        max_size=8,
    ),
    delimiter=st.sampled_from([",", ";", "\t", "|"]),
    newline=st.sampled_from(["\n", "\r\n"]),
    final_newline=st.booleans(),
)
def test_random_records_read_back_as_written(
    tmp_path_factory, rows, delimiter, newline, final_newline
):
    """Fields with delimiters, quotes, line breaks and spaces, quoted as RFC 4180 says, come
    back exactly in Drill's `columns` list. A line that is empty or only whitespace is
    skipped (as Spark skips it); a quoted field is a value, even `""`."""
    text = quoted_csv(rows, delimiter, newline)
    if not final_newline:
        text = text[: -len(newline)]
    path = tmp_path_factory.mktemp("csv") / "f.csv"
    path.write_bytes(text.encode())
    # skipped: a line of one unquoted field of spaces and tabs
    blank = {" ", "\t"} - {delimiter}
    want = [r for r in rows if not (len(r) == 1 and r[0] and set(r[0]) <= blank)]
    scan = bl.Scan(path, format="csv", delimiter=delimiter, columns=["columns"])
    assert table_of(scan).column("columns").to_pylist() == want


@given(
    rows=st.lists(
        st.lists(st.text(alphabet=list('ab,"\n é'), max_size=4), min_size=1, max_size=5),
        min_size=1,
        max_size=10,
    ),
    data=st.data(),
)
def test_random_records_projected_read_as_pythons_csv_module_reads_them(
    tmp_path_factory, rows, data
):
    """Ragged records projected by index (`columns[i]`) or, with a header, by name, in small
    batches: the values are what Python's csv module reads, each element or field not asked
    for left out (an index keeps the positions before it as nulls; a header column a record
    lacks is null)."""
    # a line of spaces is blank: no record (test_random_records_read_back_as_written)
    rows = [r for r in rows if not (len(r) == 1 and r[0] and not r[0].strip(" "))]
    assume(rows)
    header = data.draw(st.booleans(), label="header")
    path = tmp_path_factory.mktemp("csv") / "f.csv"
    if header:
        width = max(len(r) for r in rows)
        names = [f"h{i}" for i in range(width)]
        path.write_bytes(quoted_csv([names, *rows], ",", "\n").encode())
        chosen = data.draw(st.lists(st.sampled_from(names), min_size=1, max_size=3, unique=True))
        scan = bl.Scan(path, header=True, columns=chosen, row_limit=3)
        got = table_of(scan).to_pylist()
        want = [
            {n: r[names.index(n)] if names.index(n) < len(r) else None for n in chosen}
            for r in rows
        ]
    else:
        path.write_bytes(quoted_csv(rows, ",", "\n").encode())
        indexes = sorted(data.draw(st.sets(st.integers(0, 5), min_size=1, max_size=3)))
        scan = bl.Scan(path, columns=[f"columns[{i}]" for i in indexes], row_limit=3)
        got = table_of(scan).to_pylist()
        want = [
            {"columns": [v if i in indexes else None for i, v in enumerate(r[: indexes[-1] + 1])]}
            for r in rows
        ]
    with open(path, newline="", encoding="utf-8") as f:
        records = [r for r in csv.reader(f) if r]
    assert records[header:] == rows  # the text says what the test thinks it says
    assert got == want


@given(
    files=st.lists(
        st.tuples(
            st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=1, max_size=4, unique=True),
            st.lists(st.lists(st.text(alphabet=list('xy,"\n é'), max_size=3)), max_size=5),
        ),
        min_size=1,
        max_size=3,
    ),
    data=st.data(),
)
def test_files_with_different_headers_read_by_name(tmp_path_factory, files, data):
    """Files whose headers name other columns, in other orders, scanned together with a
    projection or a wildcard and small batches: each record's fields land in the columns
    its own file's header names (a column a file lacks, or a short record, is null)."""
    folder = tmp_path_factory.mktemp("headers")
    want = []
    for k, (names, records) in enumerate(files):
        # records as wide as the header, none of them blank
        records = [(r + [""] * len(names))[: len(names)] for r in records]
        records = [r for r in records if not (len(r) == 1 and not r[0].strip(" "))]
        (folder / f"f{k}.csv").write_bytes(quoted_csv([names, *records], ",", "\n").encode())
        want += [dict(zip(names, r, strict=True)) for r in records]
    every = sorted({n for names, _ in files for n in names})
    columns = data.draw(
        st.one_of(st.none(), st.lists(st.sampled_from([*every, "z"]), min_size=1, unique=True))
    )
    scan = bl.Scan(folder, header=True, columns=columns, allow_schema_change=True, row_limit=2)
    got = [r for b in scan for r in b.to_pylist()]
    for r in got:
        for name in IMPLICIT:
            r.pop(name, None)
    wanted = every if columns is None else columns
    assert [{n: r.get(n) for n in wanted} for r in got] == [
        {n: w.get(n) for n in wanted} for w in want
    ]


DIGITS = st.text(alphabet="0123456789", min_size=0, max_size=21)

# numbers as a CSV field may spell them: each part present or not, so that the plain forms
# (`-`, digits, `.digits`) are as common as the others
NUMBER_TEXT = st.builds(
    lambda pad, sign, whole, fraction, exponent: f"{pad}{sign}{whole}{fraction}{exponent}{pad}",
    st.sampled_from(["", "", "", " "]),
    st.sampled_from(["", "-", "-", "+"]),
    DIGITS,
    st.one_of(st.just(""), DIGITS.map(lambda d: "." + d)),
    st.one_of(
        st.just(""),
        st.just(""),
        st.builds("e{}{}".format, st.sampled_from(["", "-", "+"]), st.integers(0, 400)),
    ),
)


def python_number(text):
    """What Python makes of `text` as a float and as an int64 (`None`: it is not one)."""
    try:
        x = float(text)
    except ValueError:
        return None, None
    try:
        n = int(text)
    except ValueError:
        return x, None
    return x, n if -(2**63) <= n < 2**63 else None


INT_RANGES = [
    (pa.int8(), -(2**7), 2**7),
    (pa.int16(), -(2**15), 2**15),
    (pa.int32(), -(2**31), 2**31),
    (pa.uint8(), 0, 2**8),
    (pa.uint16(), 0, 2**16),
    (pa.uint32(), 0, 2**32),
    (pa.uint64(), 0, 2**64),
]


@given(
    texts=st.lists(
        st.one_of(NUMBER_TEXT, st.integers(-(2**33), 2**33).map(str)), min_size=1, max_size=12
    ),
    int_range=st.sampled_from(INT_RANGES),
)
def test_narrow_and_unsigned_int_fields_take_only_what_fits(tmp_path_factory, texts, int_range):
    """An int8 to uint64 column takes every whole number Python reads that fits its range,
    signs, leading zeros and spaces as for int64; one out of range (or not whole) makes
    its record a corrupt one, whole, and a record is never half written."""
    int_type, low, high = int_range
    texts = [t for t in texts if t.strip()]  # an empty field is null, not a number
    path = tmp_path_factory.mktemp("csv") / "n.csv"
    path.write_text("n,s\n" + "".join(f"{t},{i}\n" for i, t in enumerate(texts)))
    schema = pa.schema([("n", int_type), ("s", pa.int64())])
    scan = bl.Scan(path, header=True, schema=schema, on_error="permissive")
    got = table_of(scan).to_pylist()
    want = []
    for i, t in enumerate(texts):
        try:
            n = int(t)
        except ValueError:
            n = None
        if n is not None and low <= n < high:
            want.append({"n": n, "s": i, "_corrupt_record": None})
        else:
            want.append({"n": None, "s": None, "_corrupt_record": f"{t},{i}"})
    assert got == want


@given(texts=st.lists(NUMBER_TEXT, min_size=1, max_size=12))
def test_typed_number_fields_read_as_python_reads_them(tmp_path_factory, texts):
    """Every spelling of a number a typed column meets (signs, leading zeros, 1 to 42
    digits, a point with digits on one side, exponents, spaces around) is the float and
    int64 Python reads: the usual ones take a path of their own, the rest `str::parse`.
    A field that is not an int64 makes its record a corrupt one, whole."""
    texts = [t for t in texts if t.strip()]  # an empty field is null, not a number
    path = tmp_path_factory.mktemp("csv") / "n.csv"
    path.write_text("f,i\n" + "".join(f"{t},{t}\n" for t in texts))
    schema = pa.schema([("f", pa.float64()), ("i", pa.int64())])
    scan = bl.Scan(path, header=True, schema=schema, on_error="permissive")
    got = table_of(scan).to_pylist()
    want = []
    for t in texts:
        x, n = python_number(t)
        if x is None or n is None:
            want.append({"f": None, "i": None, "_corrupt_record": f"{t},{t}"})
        else:
            want.append({"f": x, "i": n, "_corrupt_record": None})
    assert [{k: repr(v) for k, v in r.items()} for r in got] == [
        {k: repr(v) for k, v in w.items()} for w in want
    ]


def test_float32_fields_are_rounded_once_as_pyarrow_rounds_them(tmp_path):
    """A float32 column rounds the text straight to f32, not through an f64 (which would
    make each of these texts a midpoint between two f32s, rounded to the even one)."""
    texts = f32_midpoint_texts(300)
    path = tmp_path / "f.csv"
    path.write_text("x\n" + "\n".join(texts) + "\n")
    schema = pa.schema([("x", pa.float32())])
    want = pcsv.read_csv(path, convert_options=pcsv.ConvertOptions(column_types=schema))
    got = table_of(bl.Scan(path, header=True, schema=schema))
    assert got.column("x").equals(want.column("x"))
    twice = pa.array([float(t) for t in texts]).cast(pa.float32())
    assert not got.column("x").combine_chunks().equals(twice)  # the texts do tell apart


LIMITED_SCHEMA = pa.schema(
    [("s", pa.utf8()), ("n", pa.int64()), ("x", pa.float64()), ("t", pa.utf8())]
)


@given(
    rows=st.lists(
        st.fixed_dictionaries(
            {
                "s": st.text(alphabet=list('ab,"\né'), max_size=12),
                "n": st.none() | st.integers(-(2**63), 2**63 - 1),
                "x": st.none() | st.floats(allow_nan=False, allow_infinity=False),
                "t": st.text(alphabet="xyz", max_size=30),
            }
        ),
        max_size=30,
    ),
    row_limit=st.integers(1, 6),
    vector_byte_limit=st.sampled_from([24, 64, 256, 16 << 20]),
    batch_byte_limit=st.sampled_from([None, 120, 400]),
)
def test_header_records_fill_batches_within_every_limit(
    tmp_path_factory, rows, row_limit, vector_byte_limit, batch_byte_limit
):
    """Records are written with the limits checked once a record (and again write by write
    if one broke): whatever the limits, every batch keeps them, the batches concatenate to
    the records that fit an empty batch, in order, and exactly the others are skipped."""
    path = tmp_path_factory.mktemp("limits") / "l.csv"
    pcsv.write_csv(pa.Table.from_pylist(rows, schema=LIMITED_SCHEMA), path)
    limits = {
        "row_limit": row_limit,
        "vector_byte_limit": vector_byte_limit,
        "batch_byte_limit": batch_byte_limit,
    }
    loader = bl.ResultSetLoader(LIMITED_SCHEMA, **limits)
    reader = bl.FileReader(str(path), format="csv", header=True, on_error="skip")
    batches: list[pa.RecordBatch] = []
    read_to_end(reader, loader, batches)

    def fits(sizes: list[int]) -> bool:
        return max(sizes, default=0) <= vector_byte_limit and (
            batch_byte_limit is None or sum(sizes) <= batch_byte_limit
        )

    for batch in batches:
        assert batch.num_rows <= row_limit
        assert fits(batch_buffer_sizes(batch)), batch_buffer_sizes(batch)
    alone = [pa.RecordBatch.from_pylist([r], schema=LIMITED_SCHEMA) for r in rows]
    kept = [r for r, b in zip(rows, alone, strict=True) if fits(batch_buffer_sizes(b))]
    got = pa.Table.from_batches(batches, schema=LIMITED_SCHEMA)
    assert got.equals(pa.Table.from_pylist(kept, schema=LIMITED_SCHEMA)), got.to_pylist()
    assert reader.skipped_lines == len(rows) - len(kept)


@pytest.mark.parametrize("header", [True, False])
def test_a_byte_order_mark_before_the_first_record_is_not_data(tmp_path, header):
    """Files saved by Windows tools start with a UTF-8 byte order mark: it is not part of
    the first field (pyarrow.csv drops it too); one anywhere else is data."""
    path = tmp_path / "bom.csv"
    path.write_bytes("\ufeffid,name\n1,\ufeffa\n".encode())
    if header:
        got = table_of(bl.Scan(path, header=True)).to_pylist()
        assert got == [{"id": "1", "name": "\ufeffa"}]
        assert list(got[0]) == pcsv.read_csv(path).column_names
    else:
        got = table_of(bl.Scan(path, columns=["columns"])).column("columns").to_pylist()
        assert got == [["id", "name"], ["1", "\ufeffa"]]


def test_booleans_are_read_whatever_their_case_and_surrounding_spaces(tmp_path):
    """A typed boolean column takes `true`/`false` in any case (the lower-case spelling
    read on a path of its own), spaces around them trimmed, an empty field (`""`: an empty
    line is skipped) as null; anything else is bad input naming line and field."""
    path = tmp_path / "b.csv"
    path.write_text('b\nTRUE\n False \ntRuE\n""\nfalse\ntrue\n')
    schema = pa.schema([("b", pa.bool_())])
    got = table_of(bl.Scan(path, header=True, schema=schema)).column("b").to_pylist()
    assert got == [True, False, True, None, False, True]
    path.write_text("b\ntrue\nyes\n")
    with pytest.raises(
        bl.InputError, match=r'line 3, column 1: field 1 \(b\) is not a boolean: "yes"'
    ):
        list(bl.Scan(path, header=True, schema=schema))


@pytest.mark.parametrize(("column", "bad_line"), [("a", 3), ("c", 2), ("b", None)])
def test_a_narrow_projection_checks_the_utf8_of_the_fields_it_keeps(tmp_path, column, bad_line):
    """A projection keeping few of a record's fields checks each kept field's UTF-8 on its
    own (not the whole record's): a bad byte in a kept field is bad input naming its line
    and column; one in a field left out is never decoded."""
    path = tmp_path / "bad.csv"
    path.write_bytes(b"a,b,c,d,e\n1,2,\xff,4,5\n\xfe,2,3,4,5\n")
    scan = bl.Scan(path, header=True, columns=[column])
    if bad_line is None:
        assert table_of(scan).column(column).to_pylist() == ["2", "2"]
        return
    with pytest.raises(bl.InputError, match=rf"line {bad_line}, column \d+: field \d+ is not"):
        list(scan)


NULL_TEXTS = ["", "NA", "null", "-"]


@given(
    rows=st.lists(
        st.tuples(
            st.one_of(st.integers(-99, 99).map(str), st.sampled_from(NULL_TEXTS[1:])),
            st.one_of(st.text(alphabet=list('ab,"\n é'), max_size=4), st.sampled_from(NULL_TEXTS)),
            st.booleans(),  # quote every field of the row
        ),
        min_size=1,
        max_size=12,
    ),
    null_values=st.lists(st.sampled_from(NULL_TEXTS), unique=True, max_size=3),
    row_limit=st.integers(1, 5),
)
def test_null_values_read_as_pyarrow_csv_reads_them(tmp_path_factory, rows, null_values, row_limit):
    """Fields whose text (quoted or not) is one of `null_values` are nulls in a string and
    an int column, as pyarrow.csv reads them with the same `null_values`; other fields keep
    their text (an empty one stays "" unless `""` is a null value)."""
    # the int column holds a number or a null text: one pyarrow reads as a number is refused
    assume(all(n.lstrip("-").isdigit() or n in null_values for n, _, _ in rows))
    path = tmp_path_factory.mktemp("csv") / "n.csv"
    lines = ["n,s"]
    for n, text, quote_all in rows:
        fields = [n, text]
        if quote_all:
            lines.append(",".join('"' + f.replace('"', '""') + '"' for f in fields))
        else:
            lines.append(",".join(quoted_field(f, ",", False) for f in fields))
    path.write_text("\n".join(lines) + "\n")
    schema = pa.schema([("n", pa.int64()), ("s", pa.utf8())])
    want = pcsv.read_csv(
        path,
        convert_options=pcsv.ConvertOptions(
            column_types=schema,
            null_values=null_values,
            strings_can_be_null=True,
            quoted_strings_can_be_null=True,
        ),
    )
    scan = bl.Scan(path, header=True, schema=schema, null_values=null_values, row_limit=row_limit)
    assert table_of(scan).equals(want)
    # untyped, the same strings
    untyped = table_of(bl.Scan(path, header=True, null_values=null_values))
    assert untyped.column("s").equals(want.column("s"))


def test_null_values_in_drills_columns_list_and_one_text_alone(tmp_path):
    """Without a header the `columns` list gets null elements; `null_values="NA"` is the list
    of that one text."""
    path = tmp_path / "n.csv"
    path.write_text('a,,NA\n"NA","",b\n')
    plain = table_of(bl.Scan(path, columns=["columns"])).column("columns").to_pylist()
    assert plain == [["a", "", "NA"], ["NA", "", "b"]]
    na = table_of(bl.Scan(path, columns=["columns"], null_values="NA"))
    assert na.column("columns").to_pylist() == [["a", "", None], [None, "", "b"]]
    both = table_of(bl.Scan(path, columns=["columns[1]", "columns[2]"], null_values=["", "NA"]))
    assert both.column("columns").to_pylist() == [[None, None, None], [None, None, "b"]]


def test_a_null_text_in_a_column_that_takes_no_null_is_refused_at_its_field(tmp_path):
    path = tmp_path / "n.csv"
    path.write_text("a,b\n1,x\n2,NA\n3,y\n")
    schema = pa.schema([("a", pa.int64()), pa.field("b", pa.utf8(), nullable=False)])
    with pytest.raises(bl.InputError, match=r"n\.csv, line 3, column 3: .*'b'"):
        list(bl.Scan(path, header=True, schema=schema, null_values=["NA"]))
    skipping = bl.Scan(path, header=True, schema=schema, null_values=["NA"], on_error="skip")
    assert table_of(skipping).column("a").to_pylist() == [1, 3]
    assert skipping.skipped_lines == 1


def test_null_values_are_refused_where_they_cannot_apply(tmp_path):
    path = tmp_path / "a.json"
    path.write_text('{"a": 1}\n')
    with pytest.raises(ValueError, match="JSON has its own null"):
        bl.Scan(path, format="ndjson", null_values=["NA"])
    with pytest.raises(TypeError, match="a string or a list of strings"):
        bl.Scan(path, null_values=[1])
    # a scan of JSON and CSV files by suffix: the option is the CSV files' (the JSON file
    # typed `a` int64, which the CSV's null text does not break)
    csv_path = tmp_path / "b.csv"
    csv_path.write_text("a\nNA\n")
    got = table_of(bl.Scan([path, csv_path], header=True, null_values="NA", columns=["a"]))
    assert got.column("a").to_pylist() == [1, None] and got.schema.field("a").type == pa.int64()


def test_comment_lines_are_skipped_where_a_record_could_start(tmp_path):
    """`comment="#"` (Spark's `comment`): lines starting with it are skipped before the
    header (after a byte order mark too), between records and at the end, whatever they
    hold (quotes, delimiters); `  #x` and a field `#x` are data. The rows are those of the
    file without its comment lines, a bad record's error keeps the file's line number, and
    without `comment` the lines are records."""
    text = '#c0 "open\na,b\n1,x\n#c1,2\n  #c2,3\r\n#\n3,#w\n\n4,"#q"\n#last'
    path = tmp_path / "c.csv"
    path.write_text(text, encoding="utf-8")
    plain = tmp_path / "plain.csv"
    kept = [line for line in text.splitlines() if not line.startswith("#")]
    plain.write_text("\n".join(kept) + "\n")
    got = table_of(bl.Scan(path, header=True, comment="#"))
    assert got.to_pylist() == table_of(bl.Scan(plain, header=True)).to_pylist()
    assert got.column("a").to_pylist() == ["1", "  #c2", "3", "4"]
    # a byte order mark before the first comment goes with it
    bom = tmp_path / "bom.csv"
    bom.write_bytes(b"\xef\xbb\xbf#c\n" + text.encode())
    assert table_of(bl.Scan(bom, header=True, comment="#")).to_pylist() == got.to_pylist()
    # a record with a field too many after the comments: its own line in the file
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n#one\n#two\n1,2\n#three\n1,2,3\n")
    with pytest.raises(bl.InputError, match=r"bad\.csv, line 6"):
        list(bl.Scan(bad, header=True, comment="#"))
    # without comment=, the lines are data: the first one the header, of one field
    with pytest.raises(bl.InputError, match=r"line 2, .*has 2 fields, the header 1"):
        list(bl.Scan(path, header=True))
    with pytest.raises(ValueError, match="JSON has no comments"):
        bl.Scan(path, format="ndjson", comment="#")
    with pytest.raises(ValueError, match="comment byte ',' is also the delimiter"):
        list(bl.Scan(path, comment=","))
