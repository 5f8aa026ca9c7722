"""The scan framework: projection, schema tracking, missing and implicit columns (seeds 001,
004), with a small Python reader until the built-in readers land."""

from __future__ import annotations

import itertools
import json
import logging
import os
import subprocess
import sys

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import batchloader as bl
from batchloader.schema import folders_below

from strategies import expected, rows, schemas


def json_lines(file, writer):
    """A minimal user reader: one JSON object per line, rows handed to the scan."""
    with open(file.path) as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def write(path, rows):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(json.dumps(r) for r in rows))


def scan_all(*args, **kw):
    scan = bl.Scan(*args, reader=json_lines, **kw)
    batches = list(scan)
    for b in batches:
        assert b.schema == scan.schema
    table = pa.Table.from_batches(batches, schema=scan.schema)
    return scan, table


def test_seed_004_select_a_b_dir0_filename_c_d(tmp_path):
    """The table has (c, e, a); dir0 and filename are implicit; b and d are null."""
    write(f"{tmp_path}/2024/a.json", [{"c": 1, "e": "x", "a": "A"}, {"c": 2, "a": "B"}])
    scan, table = scan_all(tmp_path, columns=["a", "b", "dir0", "filename", "c", "d"])
    assert scan.schema == pa.schema(
        [
            ("a", pa.utf8()),
            ("b", pa.utf8()),
            ("dir0", pa.utf8()),
            ("filename", pa.utf8()),
            ("c", pa.int64()),
            ("d", pa.utf8()),
        ]
    )
    assert table.to_pylist() == [
        {"a": "A", "b": None, "dir0": "2024", "filename": "a.json", "c": 1, "d": None},
        {"a": "B", "b": None, "dir0": "2024", "filename": "a.json", "c": 2, "d": None},
    ]


def test_wildcard_order_reader_then_file_then_partition_columns(tmp_path):
    write(f"{tmp_path}/2024/01/x.json", [{"b": 1, "a": "q"}])
    root = str(tmp_path)
    scan, table = scan_all(root)
    assert scan.schema.names == ["b", "a", "fqn", "filepath", "filename", "suffix", "dir0", "dir1"]
    (row,) = table.to_pylist()
    path = os.path.join(root, "2024", "01", "x.json")
    assert row == {
        "b": 1,
        "a": "q",
        "fqn": path,
        "filepath": os.path.dirname(path),
        "filename": "x.json",
        "suffix": "json",
        "dir0": "2024",
        "dir1": "01",
    }


@given(schema=schemas(max_columns=4, depth=2), data=st.data())
@settings(max_examples=150, deadline=None)
def test_the_coalescers_byte_bound_never_undercounts(schema, data):
    """`byte_bound` is at least what the loader counts for a batch: of random nested data,
    of arrays of nulls (`pa.nulls` gives all the buffers of an array one zero buffer,
    which pyarrow's total counts once), and of slices of either."""
    from batchloader.coalesce import byte_bound

    from arrow_bytes import batch_buffer_sizes

    drawn = data.draw(rows(schema))
    # repeated, for batches whose bitmaps pass the 8 bytes a bound adds per array anyway
    drawn = drawn * data.draw(st.integers(1, 12))
    table = pa.Table.from_pylist([expected(r, schema) for r in drawn], schema).combine_chunks()
    (batch,) = table.to_batches() or [pa.RecordBatch.from_pylist([], schema=schema)]
    n = batch.num_rows
    nullable = pa.schema([f.with_nullable(True) for f in schema])
    nulls = pa.RecordBatch.from_arrays([pa.nulls(n, f.type) for f in schema], schema=nullable)
    start = data.draw(st.integers(0, n))
    length = data.draw(st.integers(0, n - start))
    for b in (batch, nulls, batch.slice(start, length), nulls.slice(start, length)):
        assert byte_bound(b) >= sum(batch_buffer_sizes(b)), b.schema


def test_the_byte_bound_counts_bitmaps_pyarrow_leaves_out():
    """A nullable column with no nulls has no validity bitmap in pyarrow, but the loader
    counts one: the bound does too, however many rows."""
    from batchloader.coalesce import byte_bound

    from arrow_bytes import batch_buffer_sizes

    for n in (1, 64, 1000):
        batch = pa.RecordBatch.from_pydict(
            {"i": pa.array(range(n), pa.int64()), "s": pa.array(["ab"] * n)}
        )
        assert all(c.buffers()[0] is None for c in batch.columns)
        assert byte_bound(batch) >= sum(batch_buffer_sizes(batch))


FOLDER = st.sampled_from(["a", "ab", "b", "2024", "x.y", "..", "."])


@given(
    root=st.lists(FOLDER, max_size=3),
    directory=st.lists(FOLDER, max_size=5),
    slash=st.booleans(),
)
def test_partition_folders_are_those_relpath_gives(root, directory, slash):
    """The `dirN` values of a file are the folders from the root to its directory, as
    `os.path.relpath` names them: below the root (cut by prefix, with a sibling such as
    `/ab` against a root `/a` not taken for a child), the root itself, and outside it."""
    root_path = os.path.abspath(os.sep + os.sep.join(root)) + (os.sep if slash else "")
    directory_path = os.path.abspath(os.sep + os.sep.join(directory))
    rel = os.path.relpath(directory_path, root_path)
    want = [] if rel == "." else rel.split(os.sep)
    assert folders_below(directory_path, root_path) == want


def test_partition_columns_deeper_than_a_file_are_null(tmp_path):
    write(f"{tmp_path}/top.json", [{"a": 1}])
    write(f"{tmp_path}/x/y/deep.json", [{"a": 2}])
    _, table = scan_all(tmp_path, columns=["a", "dir0", "dir1", "dir2"])
    assert table.to_pylist() == [
        {"a": 2, "dir0": "x", "dir1": "y", "dir2": None},
        {"a": 1, "dir0": None, "dir1": None, "dir2": None},
    ] or table.to_pylist() == [
        {"a": 1, "dir0": None, "dir1": None, "dir2": None},
        {"a": 2, "dir0": "x", "dir1": "y", "dir2": None},
    ]


def three_files(tmp_path):
    write(f"{tmp_path}/1.json", [{"a": 1, "b": "x", "c": 1.5}])
    write(f"{tmp_path}/2.json", [{"a": 2, "b": "y"}])
    write(f"{tmp_path}/3.json", [{"b": "z", "c": 2.5}])


@pytest.mark.parametrize("allow", [False, True])
def test_schema_drift_across_three_files_keeps_one_schema(tmp_path, allow):
    three_files(tmp_path)
    scan, table = scan_all(tmp_path, columns=["a", "b", "c"], allow_schema_change=allow)
    assert scan.schema == pa.schema([("a", pa.int64()), ("b", pa.utf8()), ("c", pa.float64())])
    assert table.to_pylist() == [
        {"a": 1, "b": "x", "c": 1.5},
        {"a": 2, "b": "y", "c": None},
        {"a": None, "b": "z", "c": 2.5},
    ]


@pytest.mark.parametrize("reader", ["python", "ndjson", "csv"])
def test_wildcard_drift_without_schema_change_ignores_new_columns(tmp_path, caplog, reader):
    """Said in a warning naming the column and the file, whichever reader skipped it."""
    if reader == "csv":
        (tmp_path / "1.csv").write_text("a\n1\n")
        (tmp_path / "2.csv").write_text("a,n\n2,new\n")
        files = [tmp_path / "1.csv", tmp_path / "2.csv"]
    else:
        write(f"{tmp_path}/1.json", [{"a": 1}])
        write(f"{tmp_path}/2.json", [{"a": 2, "n": "new"}, {"n": "again", "a": 3}])
        files = [tmp_path / "1.json", tmp_path / "2.json"]
    with caplog.at_level(logging.WARNING, logger="batchloader"):
        if reader == "python":
            scan, table = scan_all(files)
        else:
            scan = bl.Scan(files, header=True)
            table = pa.Table.from_batches(list(scan), schema=scan.schema)
    assert caplog.text.count("ignoring new column 'n'") == 1, caplog.text
    assert str(files[1]) in caplog.text
    assert "n" not in scan.schema.names
    assert [str(a) for a in table.column("a").to_pylist()] == ["1", "2", "3"][: table.num_rows]


@pytest.mark.parametrize("format", ["json", "csv"])
def test_a_path_that_spells_a_dotted_key_unquoted_says_how_to_quote_it(tmp_path, caplog, format):
    """`a.b` is member b of a, as in Spark; when the data has no `a` but a key "a.b", the
    projection's column is all null: said once, with the quoted spelling that reads the key
    (which then does)."""
    if format == "csv":
        (tmp_path / "d.csv").write_text("a.b,c[1],k\n1,2,3\n4,5,6\n")
        path, options = tmp_path / "d.csv", {"header": True}
    else:
        write(f"{tmp_path}/d.json", [{"a.b": 1, "c[1]": 2, "k": 3}, {"a.b": 4, "c[1]": 5, "k": 6}])
        path, options = tmp_path / "d.json", {}

    def rows_of(columns: list[str]) -> list[dict]:
        return [r for b in bl.Scan(path, columns=columns, **options) for r in b.to_pylist()]

    with caplog.at_level(logging.WARNING, logger="batchloader"):
        rows = rows_of(["a.b", "c[1]", "k"])
    assert [r["k"] for r in rows] in ([3, 6], ["3", "6"])
    assert all(r["a"] is None and r["c"] is None for r in rows)
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 2, said
    assert "the projection's a.b names member 'b' of column 'a'" in said[0]
    assert "has a column 'a.b': write `a.b` to read it" in said[0]
    assert "the projection's c[1] names element 1 of column 'c'" in said[1]
    assert "has a column 'c[1]': write `c[1]` to read it" in said[1]
    quoted = rows_of(["`a.b`", "`c[1]`"])
    assert [r["a.b"] for r in quoted] in ([1, 4], ["1", "4"])


#: top-level names a projection path must quote (and a struct member that does too)
AWKWARD_NAMES = ["a.b", "a b", "c[1]", "`q`", "x`y", ""]


@pytest.mark.parametrize("how", ["files", "strict", "schema"])
def test_names_a_path_must_quote_keep_their_values_when_the_schema_is_fixed(tmp_path, how):
    """A fixed wildcard's columns are handed to the reader as a projection: a name such as
    `a.b` reads as that column, not as member `b` of `a`, in a later file (`files`), in
    Spark's executors (`strict`) and with a schema given for it."""
    rows = [
        {**{n: 10 * k + i for i, n in enumerate(AWKWARD_NAMES)}, "m": {"x.y": k}} for k in (0, 1)
    ]
    write(f"{tmp_path}/0.json", rows[:1])
    write(f"{tmp_path}/1.json", rows[1:])
    options: dict = {"columns": [*(f"`{n.replace('`', '``')}`" for n in AWKWARD_NAMES), "m"]}
    if how != "files":
        member = pa.struct([("x.y", pa.int64())])
        options["schema"] = pa.schema([*((n, pa.int64()) for n in AWKWARD_NAMES), ("m", member)])
        options["strict_schema"] = how == "strict"
    for columns in (None, options["columns"]):
        scan = bl.Scan(tmp_path, **{**options, "columns": columns})
        table = pa.Table.from_batches(list(scan), schema=scan.schema)
        assert table.select([*AWKWARD_NAMES, "m"]).to_pylist() == rows, columns
        assert scan.ignored_columns == {}


@pytest.mark.parametrize("builtin", [False, True], ids=["python-reader", "ndjson-reader"])
def test_a_column_ignored_in_many_files_is_said_once_then_counted(tmp_path, caplog, builtin):
    """A column the fixed schema lacks is named with the first file that has it; the files
    after it are counted and said in one line at the scan's end (a thousand small files
    would otherwise log a thousand lines a column); `scan.ignored_columns` counts them."""
    write(f"{tmp_path}/f0.json", [{"a": 0}])
    for i in (1, 2, 3):
        write(f"{tmp_path}/f{i}.json", [{"a": i, "n": "x", **({"o": 1} if i == 3 else {})}])
    options = {} if builtin else {"reader": json_lines}
    with caplog.at_level(logging.WARNING, logger="batchloader"):
        scan = bl.Scan(tmp_path, **options)
        rows = [r for b in scan for r in b.to_pylist()]
    assert [r["a"] for r in rows] == [0, 1, 2, 3]
    assert "n" not in scan.schema.names
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 3, said
    assert said[0].startswith(f"ignoring new column 'n' in file {tmp_path}/f1.json")
    assert said[1].startswith(f"ignoring new column 'o' in file {tmp_path}/f3.json")
    assert said[2] == (
        f"ignoring new column 'n' in 2 more file(s) as well (the last: file {tmp_path}/f3.json)"
    )
    assert scan.ignored_columns == {"n": 3, "o": 1}


@pytest.mark.parametrize("declared", [False, True])
def test_a_data_column_named_like_a_file_column_keeps_its_data_in_a_wildcard_scan(
    tmp_path, caplog, declared
):
    """A wildcard scan adds the file columns; data with a column of one's name (`filename`,
    `Suffix`, `dir0`: names are case-insensitive) keeps its values, and the file column of
    that name is left out, with a warning saying how to rename the file columns: the output
    never has two columns of one name, and no data is lost."""
    rows = [{"filename": "from the data", "a": 1, "Suffix": 7, "dir0": "d"}]
    write(f"{tmp_path}/x/1.json", rows)
    schema = pa.schema([("filename", pa.utf8())]) if declared else None
    with caplog.at_level(logging.WARNING, logger="batchloader"):
        scan = bl.Scan(tmp_path, schema=schema)
        table = pa.Table.from_batches(list(scan), schema=scan.schema)
    names = [n.lower() for n in scan.schema.names]
    assert len(names) == len(set(names)), scan.schema.names
    assert table.to_pylist() == [
        {
            "filename": "from the data",
            "a": 1,
            "Suffix": 7,
            "dir0": "d",
            "fqn": str(tmp_path / "x" / "1.json"),
            "filepath": str(tmp_path / "x"),
        }
    ]
    for name in ["filename", "suffix", "dir0"]:
        assert f"file column '{name}' is left out" in caplog.text, caplog.text
    assert "implicit_names" in caplog.text
    # renamed, the file columns come back beside the data's
    scan = bl.Scan(tmp_path, schema=schema, implicit_names={"filename": "file_name"})
    got = pa.Table.from_batches(list(scan), schema=scan.schema).to_pylist()[0]
    assert (got["filename"], got["file_name"]) == ("from the data", "1.json")


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_a_projected_file_column_says_it_hides_a_data_column_of_its_name(tmp_path, caplog, fmt):
    """An explicit projection naming a file column (`filename`, `DIR0`) reads the file
    column, as Drill does; a data column of that name is then left out, and the scan says
    so once, with the way to read it (the file columns renamed): its values are not lost
    without a word. A name no file column has says nothing."""
    rows = [{"filename": "from the data", "dir0": "d", "a": 1}]
    path = f"{tmp_path}/p/1.{fmt}"
    if fmt == "json":
        write(path, rows)
    else:
        os.makedirs(os.path.dirname(path))
        with open(path, "w") as f:
            f.write("filename,dir0,a\nfrom the data,d,1\nagain,e,2\n")
    with caplog.at_level(logging.WARNING, logger="batchloader"):
        scan = bl.Scan(tmp_path, columns=["filename", "DIR0", "a"], header=True)
        table = pa.Table.from_batches(list(scan), schema=scan.schema)
    assert table.column("filename").to_pylist()[0] == f"1.{fmt}"
    assert table.column("DIR0").to_pylist()[0] == "p"
    for name in ["filename", "dir0"]:
        assert caplog.text.lower().count(f"file {path.lower()} also has a column '{name}'") == 1
    assert "implicit_names" in caplog.text
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="batchloader"):
        scan = bl.Scan(tmp_path, columns=["a", "fqn"], header=True)
        list(scan)
    assert "also has a column" not in caplog.text, caplog.text


@pytest.mark.parametrize("builtin", [False, True], ids=["python-reader", "ndjson-reader"])
def test_a_column_first_seen_after_the_first_batch_keeps_every_batch_on_one_schema(
    tmp_path, caplog, builtin
):
    rows = [{"a": i} for i in range(7)] + [{"a": 7, "x": 1.5}, {"a": 8, "x": 2.5}, {"a": 9}]
    write(f"{tmp_path}/1.json", rows)
    options = {} if builtin else {"reader": json_lines}
    with caplog.at_level(logging.WARNING, logger="batchloader"):
        scan = bl.Scan(f"{tmp_path}/1.json", columns=["*"], row_limit=4, **options)
        batches = list(scan)
    assert [b.num_rows for b in batches] == [4, 4, 2]
    assert all(b.schema == scan.schema for b in batches)
    assert "x" not in scan.schema.names
    assert caplog.text.count("ignoring new column 'x'") == 1, caplog.text
    # allowed to change: the column comes in from the batch that has it
    scan = bl.Scan(
        f"{tmp_path}/1.json", row_limit=4, allow_schema_change=True, columns=["*"], **options
    )
    batches = list(scan)
    assert "x" not in batches[0].schema.names
    assert batches[1].column("x").to_pylist() == [None, None, None, 1.5]


def _placed(at: str, i: int, value: object = None, *, present: bool = True) -> dict:
    """Row `i` with `value` at `at` (`y`, `m.y`, `ev[].y`) if `present`; `m` and `ev` are
    always there, so only `y` is new."""
    row: dict = {"a": i, "m": {"k": i}, "ev": [{"k": i}]}
    if present:
        if at == "y":
            row["y"] = value
        elif at == "m.y":
            row["m"]["y"] = value
        else:
            row["ev"][0]["y"] = value
    return row


@pytest.mark.parametrize("at", ["y", "m.y", "ev[].y"])
def test_a_field_of_mixed_types_the_fixed_wildcard_leaves_out_fails_nothing(tmp_path, caplog, at):
    """A column, a struct member or a member of a list's structs first met after the first
    batch fixed a wildcard scan's schema is left out of the batches (with a warning): its
    values, of mixed types, are read past, in the file whose batch fixed the schema as in a
    later one (a list then an object there failed the line: the reader made a column the
    scan then dropped)."""
    values = [[], {}, 1]
    rows = [_placed(at, i, present=False) for i in range(2)]
    rows += [_placed(at, 2 + i, v) for i, v in enumerate(values)]
    write(f"{tmp_path}/1.json", rows)
    write(f"{tmp_path}/2.json", rows[2:])
    for coalesce in [True, False]:
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="batchloader"):
            scan = bl.Scan(tmp_path, row_limit=2, coalesce=coalesce)
            got = [(r["a"], r["m"], r["ev"]) for b in scan for r in b.to_pylist()]
        want = [(r["a"], {"k": r["a"]}, [{"k": r["a"]}]) for r in rows + rows[2:]]
        assert got == want
        assert scan.schema.names[:3] == ["a", "m", "ev"] and "y" not in scan.schema.names
        said = f"ignoring new column '{at}' in file {tmp_path}/1.json"
        assert caplog.text.count(said) == 1, caplog.text
        assert scan.ignored_columns == {at: 2}


@pytest.mark.parametrize("at", ["m.y", "ev[].y"])
def test_a_member_only_null_the_fixed_wildcard_leaves_out_goes_unsaid(tmp_path, caplog, at):
    """A struct member first met after the first batch, only ever null, loses nothing when
    the scan leaves it out: no warning, nothing in `ignored_columns`, in the file whose
    batch fixed the schema and in a later one."""
    rows = [_placed(at, i, present=i > 1) for i in range(6)]
    write(f"{tmp_path}/1.json", rows)
    write(f"{tmp_path}/2.json", rows[2:])
    with caplog.at_level(logging.WARNING, logger="batchloader"):
        scan = bl.Scan(tmp_path, row_limit=2)
        got = [r["a"] for b in scan for r in b.to_pylist()]
    assert got == [0, 1, 2, 3, 4, 5, 2, 3, 4, 5]
    assert "ignoring" not in caplog.text
    assert scan.ignored_columns == {}


@pytest.mark.parametrize("columns", [None, ["a", "m"]], ids=["wildcard", "whole-struct"])
def test_a_struct_member_first_seen_after_the_first_batch_is_never_dropped_unsaid(
    tmp_path, caplog, columns
):
    """The first batch fixes `m` as struct<k>; a later batch's `m.x` with values cannot
    reach the batches: a wildcard scan says so (as of a new column), a projection that
    asked for all of `m` is refused. Nulls in `m.x` lose nothing, and with the schema
    allowed to change the member comes in."""
    rows = [{"a": i, "m": {"k": i}} for i in range(4)]
    write(f"{tmp_path}/nulls.json", [*rows, {"a": 4, "m": {"k": 4, "x": None}}])
    write(f"{tmp_path}/values.json", [*rows, {"a": 4, "m": {"k": 4, "x": 1.5}}])
    for name in ["nulls", "values"]:
        for reader in [{}, {"reader": json_lines}]:
            path = f"{tmp_path}/{name}.json"
            caplog.clear()
            with caplog.at_level(logging.WARNING, logger="batchloader"):
                scan = bl.Scan(path, columns=columns, row_limit=4, **reader)
                if name == "values" and columns is not None:
                    with pytest.raises(bl.SchemaConflictError, match=r"'m\.x' in the schema an"):
                        list(scan)
                    continue
                got = [r["m"] for b in scan for r in b.to_pylist()]
            assert got == [{"k": i} for i in range(5)]
            said = caplog.text.count("ignoring new column 'm.x'")
            assert said == (name == "values"), caplog.text
            scan = bl.Scan(path, columns=columns, row_limit=4, allow_schema_change=True)
            batches = list(scan)
            assert batches[1].column("m").to_pylist() == [
                {"k": 4, "x": None if name == "nulls" else 1.5}
            ]


@pytest.mark.parametrize("columns", [None, ["a", "m", "ev"]], ids=["wildcard", "whole-structs"])
def test_a_member_a_strict_schema_lacks_is_named_in_a_warning(tmp_path, caplog, columns):
    """With a strict schema (what Spark's executors scan with: the driver's sample), a
    struct member the schema lacks is skipped by the reader; when the projection wants it
    (the struct whole), the scan says so, naming it and the file, as of a column. A member
    the projection leaves out is skipped without a word, and so is one only null (`m.n`:
    nulls lose nothing)."""
    write(f"{tmp_path}/a.json", [{"a": 1, "m": {"k": 1}, "ev": [{"k": 1}]}])
    rows = [{"a": 2, "m": {"k": 2, "x": 1.5, "n": None}, "ev": [{"k": 2, "y": "s"}]}] * 3
    write(f"{tmp_path}/b.json", rows)
    member = pa.struct([("k", pa.int64())])
    schema = pa.schema([("a", pa.int64()), ("m", member), ("ev", pa.list_(member))])
    with caplog.at_level(logging.WARNING, logger="batchloader"):
        scan = bl.Scan(tmp_path, schema=schema, columns=columns, strict_schema=True)
        got = [(r["m"], r["ev"]) for b in scan for r in b.to_pylist()]
    assert got == [({"k": 1}, [{"k": 1}])] + [({"k": 2}, [{"k": 2}])] * 3
    for path in ["m.x", "ev[].y"]:
        assert caplog.text.count(f"ignoring new column '{path}' in file {tmp_path}/b.json") == 1
    assert "'m.n'" not in caplog.text
    assert scan.ignored_columns == {"m.x": 1, "ev[].y": 1}
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="batchloader"):
        scan = bl.Scan(tmp_path, schema=schema, columns=["a", "m.k"], strict_schema=True)
        assert [r["m"] for b in scan for r in b.to_pylist()] == [{"k": 1}] + [{"k": 2}] * 3
    assert "ignoring" not in caplog.text


def test_wildcard_drift_with_schema_change_adds_columns(tmp_path):
    write(f"{tmp_path}/1.json", [{"a": 1}])
    write(f"{tmp_path}/2.json", [{"a": 2, "n": "new"}])
    scan = bl.Scan(
        [tmp_path / "1.json", tmp_path / "2.json"], reader=json_lines, allow_schema_change=True
    )
    batches = list(scan)
    assert "n" not in batches[0].schema.names
    assert batches[1].column("n").to_pylist() == ["new"]
    assert scan.tracker.schema_version > 0


def test_map_projection_against_files_without_a_member(tmp_path):
    write(f"{tmp_path}/1.json", [{"m": {"a": 1, "z": 0}}])
    write(f"{tmp_path}/2.json", [{"m": {"a": 2, "b": "two"}}])
    _scan, table = scan_all(tmp_path, columns=["m.a", "m.b"])
    assert table.to_pylist() == [{"m": {"a": 1, "b": None}}, {"m": {"a": 2, "b": "two"}}]


def test_map_projection_missing_everywhere_is_a_struct_of_nulls(tmp_path):
    write(f"{tmp_path}/1.json", [{"x": 1}])
    scan, table = scan_all(tmp_path, columns=["x", "m.a", "m.b"])
    assert scan.schema.field("m").type == pa.struct([("a", pa.utf8()), ("b", pa.utf8())])
    assert table.column("m").to_pylist() == [None]


def test_array_projection_of_a_missing_column_is_a_list(tmp_path):
    write(f"{tmp_path}/1.json", [{"x": 1}])
    scan, _ = scan_all(tmp_path, columns=["x", "c[1]"], null_type=pa.int64())
    assert scan.schema.field("c").type == pa.list_(pa.int64())


def test_missing_column_takes_the_shape_of_an_indexed_member_projection(tmp_path):
    write(f"{tmp_path}/1.json", [{"x": 1}])
    scan, table = scan_all(tmp_path, columns=["x", "c[1].m", "c[0].n"], null_type=pa.int64())
    want = pa.list_(pa.struct([("m", pa.int64()), ("n", pa.int64())]))
    assert scan.schema.field("c").type == want
    assert table.column("c").to_pylist() == [None]


def test_members_of_a_list_of_structs_are_projected_in_each_element(tmp_path):
    rows = [{"ev": [{"k": "a", "v": 1}, {"k": "b", "v": 2}]}, {"ev": None}, {"ev": [{"v": 3}]}]
    write(f"{tmp_path}/1.json", rows)
    scan, table = scan_all(tmp_path, columns=["ev.v"])
    assert scan.schema.field("ev").type == pa.list_(pa.struct([("v", pa.int64())]))
    assert table.column("ev").to_pylist() == [[{"v": 1}, {"v": 2}], None, [{"v": 3}]]


@pytest.mark.parametrize("builtin", [False, True], ids=["python-reader", "ndjson-reader"])
def test_a_column_seen_only_as_null_takes_its_projected_shape(tmp_path, builtin):
    write(f"{tmp_path}/1.json", [{"c": None, "m": None}, {"c": None, "m": None}])
    if builtin:
        scan = bl.Scan(f"{tmp_path}/1.json", columns=["c[1]", "m.x"])
        table = pa.Table.from_batches(list(scan), schema=scan.schema)
    else:
        scan, table = scan_all(tmp_path, columns=["c[1]", "m.x"])
    assert scan.schema.field("c").type == pa.list_(pa.utf8())
    assert scan.schema.field("m").type == pa.struct([("x", pa.utf8())])
    assert table.to_pylist() == [{"c": None, "m": None}] * 2


def test_array_index_on_a_scalar_column_is_a_conflict(tmp_path):
    write(f"{tmp_path}/1.json", [{"c": 5}])
    with pytest.raises(bl.SchemaConflictError, match=r"'c' is projected as an array.*int64"):
        scan_all(tmp_path, columns=["c[1]"])


def test_member_of_a_scalar_column_is_a_conflict(tmp_path):
    write(f"{tmp_path}/1.json", [{"m": "text"}])
    with pytest.raises(bl.SchemaConflictError, match=r"'m' is projected as a map"):
        scan_all(tmp_path, columns=["m.x"])


def test_a_missing_column_the_first_batch_guessed_keeps_a_later_files_values_as_text(tmp_path):
    """`b`, projected, is in no row of the first file: the first batch fills it with nulls
    of the null type, a guess it fixes. A later file's values are kept as their JSON text
    (they were a type conflict); a null type that is not utf8 takes only its own values."""
    write(f"{tmp_path}/1.json", [{"a": 1}])
    write(f"{tmp_path}/2.json", [{"a": 2, "b": 7}, {"a": 3, "b": {"c": [1.5]}}])
    table = pa.Table.from_batches(bl.Scan(tmp_path, columns=["a", "b"]))
    assert table.column("b").to_pylist() == [None, "7", '{"c": [1.5]}']
    # a reader of Python values gives them as they are: the error says why `b` is utf8
    with pytest.raises(bl.SchemaConflictError, match=r"2\.json, row 0.*'b'.*a guess"):
        scan_all(tmp_path, columns=["a", "b"])
    write(f"{tmp_path}/2.json", [{"a": 2, "b": 7}, {"a": 3, "b": "x"}])
    with pytest.raises(bl.InputError, match=r"2\.json, line 2.*'b'.*a guess"):
        list(bl.Scan(tmp_path, columns=["a", "b"], null_type=pa.int64()))


def test_a_concrete_type_change_names_column_types_and_file(tmp_path):
    write(f"{tmp_path}/1.json", [{"a": 1}])
    write(f"{tmp_path}/2.json", [{"a": 2}, {"a": "one"}])
    with pytest.raises(
        bl.SchemaConflictError, match=r"2\.json, row 1: column 'a' \(Int64\).* str value 'one'"
    ):
        scan_all(tmp_path, columns=["a"])


def _whole_then_fractions(tmp_path):
    """Numbers that are whole in the first file and not in the second, at the top, in a
    struct member and in list elements; the third file has none of them."""
    write(f"{tmp_path}/1.json", [{"a": 1, "m": {"x": 2}, "l": [3]}, {"a": 4, "m": None, "l": []}])
    write(f"{tmp_path}/2.json", [{"a": 2.5, "m": {"x": 0.5}, "l": [1, 1.5]}])
    write(f"{tmp_path}/3.json", [{"a": 7}])


@pytest.mark.parametrize("builtin", [False, True], ids=["python-reader", "ndjson-reader"])
def test_whole_numbers_then_fractions_in_a_later_file_widen_when_the_schema_may_change(
    tmp_path, builtin
):
    """Within a file an int64 column meeting a float widens to float64; across files it does
    too when the scan allows schema changes: the first file's batches keep int64, later ones
    are float64, and a later file of whole numbers is read into float64."""
    _whole_then_fractions(tmp_path)
    options = {} if builtin else {"reader": json_lines}
    scan = bl.Scan(tmp_path, columns=["a", "m", "l"], allow_schema_change=True, **options)
    batches = list(scan)
    first, rest = batches[0], pa.Table.from_batches(batches[1:])
    assert first.schema == pa.schema(
        [("a", pa.int64()), ("m", pa.struct([("x", pa.int64())])), ("l", pa.list_(pa.int64()))]
    )
    assert first.to_pylist() == [{"a": 1, "m": {"x": 2}, "l": [3]}, {"a": 4, "m": None, "l": []}]
    widened = pa.schema(
        [
            ("a", pa.float64()),
            ("m", pa.struct([("x", pa.float64())])),
            ("l", pa.list_(pa.float64())),
        ]
    )
    assert rest.schema == widened == scan.schema
    assert rest.to_pylist() == [
        {"a": 2.5, "m": {"x": 0.5}, "l": [1.0, 1.5]},
        {"a": 7.0, "m": None, "l": None},
    ]


@pytest.mark.parametrize("builtin", [False, True], ids=["python-reader", "ndjson-reader"])
def test_fractions_after_a_first_batch_of_whole_numbers_say_why_the_column_is_int64(
    tmp_path, builtin
):
    """By default the first batch fixes the schema: a fraction in a later file is refused,
    and the error says where, why the column is int64 and what to do."""
    _whole_then_fractions(tmp_path)
    options = {} if builtin else {"reader": json_lines}
    error = bl.InputError if builtin else bl.SchemaConflictError
    with pytest.raises(error) as caught:
        list(bl.Scan(tmp_path, columns=["a", "m", "l"], **options))
    message = str(caught.value)
    assert "2.json" in message and "2.5" in message
    assert "'a' is int64 as the scan's first batch fixed it from the data" in message
    assert "schema=" in message and "allow_schema_change=True" in message
    if builtin:  # the explained error keeps its place
        assert caught.value.path.endswith("2.json") and caught.value.line == 1


def test_a_declared_int64_column_never_widens(tmp_path):
    """A type the user gave is not a guess from the data: a fraction there is bad input,
    schema changes allowed or not, and no hint about inference is added."""
    _whole_then_fractions(tmp_path)
    schema = pa.schema([("a", pa.int64())])
    for allow in (False, True):
        with pytest.raises(bl.InputError, match=r"2\.json.*'a'.*2\.5") as caught:
            list(bl.Scan(tmp_path, columns=["a"], schema=schema, allow_schema_change=allow))
        assert "first batch" not in str(caught.value)


def _guesses_then_values(tmp_path):
    """A first file whose columns show no type (only nulls, empty lists, a struct member
    only null), a second that shows them all."""
    write(f"{tmp_path}/1.json", [{"n": None, "l": [], "m": {"a": None, "b": "x"}}])
    write(f"{tmp_path}/2.json", [{"n": 5, "l": [1, 2], "m": {"a": 1.5, "b": "y"}}])


@pytest.mark.parametrize("builtin", [False, True], ids=["python-reader", "ndjson-reader"])
def test_types_guessed_from_nulls_and_empty_lists_give_way_to_a_later_files_values(
    tmp_path, builtin
):
    """A type no value showed is a guess (null_type, list<null_type>): with schema changes
    allowed, a later file types the column from its values, and a member the values showed
    keeps its type."""
    _guesses_then_values(tmp_path)
    options = {} if builtin else {"reader": json_lines}
    scan = bl.Scan(tmp_path, columns=["n", "l", "m"], allow_schema_change=True, **options)
    batches = list(scan)
    # members keep the order the reader met them in (the Python path waits for a value)
    m = scan.schema.field("m").type
    assert {f.name: f.type for f in m} == {"a": pa.float64(), "b": pa.utf8()}
    assert scan.schema == pa.schema([("n", pa.int64()), ("l", pa.list_(pa.int64())), ("m", m)])
    assert batches[-1].schema == scan.schema
    rows = [r for b in batches for r in b.to_pylist()]
    rows[0]["m"].setdefault("a", None)  # the Python path's first batch has no `a` yet
    assert rows == [
        {"n": None, "l": [], "m": {"a": None, "b": "x"}},
        {"n": 5, "l": [1, 2], "m": {"a": 1.5, "b": "y"}},
    ]


@pytest.mark.parametrize("one_file", [True, False], ids=["batches", "files"])
def test_a_member_first_met_as_null_stays_a_guess_after_its_struct_had_values(tmp_path, one_file):
    """`s` has a value ({}) before its member `q` appears, only null: `q`'s type is still
    a guess, which a later value replaces while types may change (found by hypothesis)."""
    rows = [{"s": {}}, {"s": {"q": None}}, {"s": {"q": 0}}]
    if one_file:
        write(f"{tmp_path}/a.json", rows)
    else:
        for i, row in enumerate(rows):
            write(f"{tmp_path}/{i}.json", [row])
    scan = bl.Scan(tmp_path, columns=["s"], row_limit=1, allow_schema_change=True)
    got = [r["s"] for b in scan for r in b.to_pylist()]
    assert got == [{}, {"q": None}, {"q": 0}]
    assert scan.schema.field("s").type == pa.struct([("q", pa.int64())])


def test_a_guess_the_first_batch_fixed_keeps_later_values_as_text(tmp_path):
    """By default the first batch fixes even a guessed type: a later file's values there
    are kept as their JSON text (they were bad input), where the values showed a type
    they are checked against it (`m.b`)."""
    _guesses_then_values(tmp_path)
    scan = bl.Scan(tmp_path, columns=["n", "l", "m"])
    rows = [r for b in scan for r in b.to_pylist()]
    assert scan.schema.field("l").type == pa.list_(pa.utf8())
    assert [(r["n"], r["l"], r["m"]) for r in rows] == [
        (None, [], {"a": None, "b": "x"}),
        ("5", ["1", "2"], {"a": "1.5", "b": "y"}),
    ]


def test_a_guess_of_another_type_than_utf8_is_explained(tmp_path):
    """A guess that is not utf8 (here the null type given, for a column no row of the
    first batch had) takes no text: a value that does not fit is bad input, and the error
    says the type was a guess and what to do."""
    write(f"{tmp_path}/1.json", [{"a": 1}])
    write(f"{tmp_path}/2.json", [{"a": 2, "n": 5}, {"a": 3, "n": "x"}])
    with pytest.raises(bl.InputError) as caught:
        list(bl.Scan(tmp_path, columns=["a", "n"], null_type=pa.int64()))
    message = str(caught.value)
    assert "2.json, line 2" in message
    assert "(or no row had it), so its type was a guess" in message
    assert "allow_schema_change=True" in message


@pytest.mark.parametrize(
    ("values", "unconfirmed"),
    [
        (pa.array([None, None], pa.int64()), {"c"}),
        (pa.array([1, None]), set()),
        (pa.array([[], None, []], pa.list_(pa.utf8())), {"c[]"}),
        (pa.array([[], [None]], pa.list_(pa.utf8())), {"c[]"}),
        (pa.array([[], ["x"]]), set()),
        (
            pa.array(
                [{"a": None, "b": [], "c": {"d": None}}, None, {"a": None, "b": [1], "c": None}],
                pa.struct(
                    [
                        ("a", pa.utf8()),
                        ("b", pa.list_(pa.int64())),
                        ("c", pa.struct([("d", pa.utf8())])),
                    ]
                ),
            ),
            {"c.a", "c.c.d"},
        ),
        (
            pa.array([[{"k": None}], []], pa.list_(pa.struct([("k", pa.int64())]))),
            {"c[].k"},
        ),
        (pa.array([[1, 2], [3]]).slice(1), set()),
        (pa.array([[1, 2], []]).slice(1), {"c[]"}),
    ],
)
def test_no_value_paths_are_the_parts_no_value_shows(values, unconfirmed):
    from batchloader.schema import no_value_paths

    assert no_value_paths(values, "c") == unconfirmed


def test_a_struct_member_type_change_is_a_conflict(tmp_path):
    write(f"{tmp_path}/1.json", [{"m": {"a": 1}}])
    write(f"{tmp_path}/2.json", [{"m": {"a": [1]}}])
    with pytest.raises(bl.SchemaConflictError, match=r"2\.json.*'m.a'"):
        scan_all(tmp_path, columns=["m"])


def test_provided_schema_types_columns_and_missing_columns(tmp_path):
    write(f"{tmp_path}/1.json", [{"a": 1}])
    provided = pa.schema([("a", pa.int16()), ("x", pa.int32())])
    scan, table = scan_all(tmp_path, columns=["a", "x"], schema=provided)
    assert scan.schema == provided
    assert table.to_pylist() == [{"a": 1, "x": None}]


def test_provided_schema_non_nullable_missing_column_gets_its_default(tmp_path):
    write(f"{tmp_path}/1.json", [{"a": 1}, {"a": 2}])
    provided = pa.schema([pa.field("x", pa.int32(), nullable=False, metadata={"default": "7"})])
    _, table = scan_all(tmp_path, columns=["a", "x"], schema=provided)
    assert table.column("x").to_pylist() == [7, 7]


def test_strict_provided_schema_ignores_extra_reader_columns(tmp_path):
    write(f"{tmp_path}/1.json", [{"a": 1, "extra": "e"}])
    provided = pa.schema([("a", pa.int64())])
    scan, table = scan_all(tmp_path, schema=provided, strict_schema=True)
    assert "extra" not in scan.schema.names
    assert table.column("a").to_pylist() == [1]


def test_defined_schema_must_match_the_projection():
    with pytest.raises(bl.SchemaConflictError, match="does not match the projection"):
        bl.ScanSchemaTracker(
            bl.parse_projection(["a", "b"]), defined_schema=pa.schema([("b", pa.int8())])
        )


def test_implicit_names_are_configurable_and_case_insensitive(tmp_path):
    write(f"{tmp_path}/1.json", [{"filename": {"a": 5}}])
    _scan, table = scan_all(
        tmp_path, columns=["FILENAME", "file_name"], implicit_names={"filename": "file_name"}
    )
    # FILENAME is now a data column (a struct); file_name is the implicit one
    assert table.to_pylist() == [{"FILENAME": {"a": 5}, "file_name": "1.json"}]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        # a key that is no file column would name no column: a typo made the data's
        # column `x` an all-null file column of no kind
        ({"implicit_names": {"fname": "x"}}, r"'fname'.*fqn, filepath, filename, suffix"),
        ({"implicit_names": {"dir0": "x"}}, r"'dir0'.*partition_prefix"),
        # two file columns of one name (case aside), or one named like a partition column
        ({"implicit_names": {"filename": "FQN"}}, r"'FQN'.*two file columns"),
        ({"implicit_names": {"filename": "dir2"}}, r"'dir2'.*partition column"),
        ({"implicit_names": {"filename": "p7"}, "partition_prefix": "P"}, r"'p7'.*partition"),
        ({"implicit_names": {"filename": ""}}, r"'filename'.*empty"),
        ({"implicit_names": {"filename": 3}}, r"'filename'.*text"),
        # no prefix: every data column named by digits would be a partition column
        ({"partition_prefix": ""}, r"partition_prefix.*empty"),
    ],
)
def test_implicit_names_that_cannot_name_the_file_columns_are_refused(tmp_path, options, message):
    write(f"{tmp_path}/1.json", [{"x": 5}])
    with pytest.raises(ValueError, match=message):
        bl.Scan(tmp_path, **options)


def test_a_projected_partition_column_that_hides_a_data_column_says_how_to_rename(tmp_path, caplog):
    write(f"{tmp_path}/p/1.json", [{"dir0": "data", "a": 1}])
    with caplog.at_level(logging.WARNING, logger="batchloader"):
        _scan, table = scan_all(tmp_path, columns=["dir0", "a"])
    assert table.to_pylist() == [{"dir0": "p", "a": 1}]
    assert "also has a column 'dir0'" in caplog.text
    assert "partition_prefix=" in caplog.text and "implicit_names" not in caplog.text
    # the wildcard keeps the data's, and says so the same way
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="batchloader"):
        _scan, table = scan_all(tmp_path)
    assert table.column("dir0").to_pylist() == ["data"]
    assert "file column 'dir0' is left out" in caplog.text
    assert "partition_prefix=" in caplog.text and "implicit_names" not in caplog.text


def test_projected_member_of_an_implicit_name_is_a_data_column(tmp_path):
    write(f"{tmp_path}/1.json", [{"filename": {"a": 5, "b": 1}}])
    _, table = scan_all(tmp_path, columns=["filename.a"])
    assert table.to_pylist() == [{"filename": {"a": 5}}]


def test_directories_globs_and_hidden_files(tmp_path):
    write(f"{tmp_path}/d/1.json", [{"a": 1}])
    write(f"{tmp_path}/d/.hidden.json", [{"a": 99}])
    write(f"{tmp_path}/d/_SUCCESS", [{"a": 98}])
    write(f"{tmp_path}/e/2.json", [{"a": 2}])
    _, table = scan_all(str(tmp_path / "*" / "*.json"), columns=["a"])
    assert sorted(table.column("a").to_pylist()) == [1, 2]
    _, table = scan_all(tmp_path / "d", columns=["a"])
    assert table.column("a").to_pylist() == [1]
    with pytest.raises(FileNotFoundError, match="nope"):
        bl.Scan(tmp_path / "nope", reader=json_lines)


@pytest.mark.parametrize("builtin", [False, True], ids=["python-reader", "ndjson-reader"])
def test_a_path_that_exists_is_itself_even_with_glob_characters(tmp_path, builtin):
    """`x[1].json` names that file when it exists (as a pattern it would match `x1.json`:
    another file's rows, silently); a pattern no file is named after still matches."""
    write(f"{tmp_path}/x1.json", [{"a": 1}])
    write(f"{tmp_path}/x2.json", [{"a": 2}])
    write(f"{tmp_path}/x[1].json", [{"a": 3}])
    options = {} if builtin else {"reader": json_lines}

    def rows(path, columns):
        return [r for b in bl.Scan(path, columns=columns, **options) for r in b.to_pylist()]

    assert rows(f"{tmp_path}/x[1].json", ["a", "filename"]) == [{"a": 3, "filename": "x[1].json"}]
    assert rows(f"{tmp_path}/x[12].json", ["a"]) == [{"a": 1}, {"a": 2}]


def test_file_uris_name_local_paths_however_spelt(tmp_path):
    """`Path.as_uri()` (a space as %20), Hadoop's `file:/path` and `file://localhost/path`
    name the same files, for the scan and for the Rust reader alike; a directory's URI is
    the root its dirN columns count from. Another host is refused, saying why."""
    root = tmp_path / "my data"
    write(f"{root}/2024/a b.json", [{"a": 1}])
    want = [{"a": 1, "dir0": "2024", "filename": "a b.json"}]
    for spelt in (root.as_uri(), f"file:{root}", f"file://localhost{root}"):
        _, table = scan_all(spelt, columns=["a", "dir0", "filename"])
        assert table.to_pylist() == want, spelt
    uri = (root / "2024" / "a b.json").as_uri()
    assert "%20" in uri
    reader = bl.FileReader(uri)
    loader = bl.ResultSetLoader()
    loader.start_batch()
    assert not reader.fill(loader)
    assert loader.harvest().to_pylist() == [{"a": 1}]
    with pytest.raises(ValueError, match="'server': only local files"):
        bl.Scan("file://server/share/a.json")
    with pytest.raises(bl.InputError, match="only local files"):
        bl.FileReader("file://server/share/a.json")


def test_limit_across_files(tmp_path):
    for i in range(3):
        write(f"{tmp_path}/{i}.json", [{"a": i * 10 + j} for j in range(4)])
    scan, table = scan_all(tmp_path, columns=["a"], limit=6, row_limit=3)
    assert table.column("a").to_pylist() == [0, 1, 2, 3, 10, 11]
    assert scan.files_read == 2


@pytest.mark.parametrize(
    ("options", "error", "says"),
    [
        ({"limit": -1}, ValueError, r"limit must be None or >= 0, got -1"),
        ({"byte_range": (5, 2)}, ValueError, r"byte_range .* 0 <= start <= end, got \(5, 2\)"),
        ({"byte_range": (-1, 2)}, ValueError, r"0 <= start <= end"),
        ({"split_bytes": 10}, TypeError, r"Scan\(\) got an unexpected keyword argument 'split"),
        ({"row_limt": 10}, TypeError, r"'row_limt'.*row_limit, vector_byte_limit"),
    ],
)
def test_options_that_cannot_mean_anything_are_refused_when_the_scan_is_made(
    tmp_path, options, error, says
):
    """Not read as "no rows" (a negative limit, a range ending before it starts), nor left
    to the first batch's loader to refuse in its own words."""
    write(f"{tmp_path}/a.json", [{"a": 1}])
    with pytest.raises(error, match=says):
        bl.Scan(tmp_path / "a.json", **options)
    assert sum(b.num_rows for b in bl.Scan(tmp_path / "a.json", limit=0)) == 0
    with pytest.raises(ValueError, match=r"start <= end, got \(5, 2\)"):
        bl.FileReader(str(tmp_path / "a.json"), byte_range=(5, 2))


@pytest.mark.parametrize("t", [pa.null(), pa.string_view(), pa.time64("us"), pa.float16()])
@pytest.mark.parametrize("given_as", ["schema", "defined_schema", "null_type", "member"])
def test_a_type_the_loader_does_not_write_is_refused_when_the_scan_is_made(tmp_path, t, given_as):
    """Named with the argument that gave it, before any file is read (a null type crashed
    the scan's batch budget with pyarrow's "Non-fixed width type")."""
    write(f"{tmp_path}/a.json", [{"a": None, "m": {"x": None}}])
    options = {
        "schema": {"schema": pa.schema([("a", t)])},
        "defined_schema": {"defined_schema": pa.schema([("a", t)])},
        "null_type": {"null_type": t},
        "member": {"schema": pa.schema([("m", pa.struct([("x", pa.list_(t))]))])},
    }[given_as]
    argument = "schema" if given_as == "member" else given_as
    said = "has type .*, which" if argument != "null_type" else "is a type which"
    with pytest.raises(ValueError, match=rf"{argument}=.*{said} the loader does not write"):
        bl.Scan(tmp_path / "a.json", **options)


@pytest.mark.parametrize("builtin", [True, False])
def test_a_batch_cut_by_the_limit_joins_the_small_ones_before_it(tmp_path, builtin):
    """The limit's last batch is small like a file's last: it joins its neighbours."""
    for i in range(3):
        write(f"{tmp_path}/{i}.json", [{"a": i * 10 + j} for j in range(5)])
    kw = {} if builtin else {"reader": json_lines}
    batches = list(bl.Scan(tmp_path, columns=["a"], limit=12, **kw))
    assert [b.column("a").to_pylist() for b in batches] == [
        [0, 1, 2, 3, 4, 10, 11, 12, 13, 14, 20, 21]
    ]


@pytest.mark.parametrize("builtin", [True, False])
@pytest.mark.parametrize("coalesce", [True, False])
@pytest.mark.parametrize("limit", [None, 11])
def test_an_empty_projection_still_counts_the_rows(tmp_path, builtin, coalesce, limit):
    """`columns=[]` is Drill's COUNT(*) case: no column is read, but every row is still
    there, in batches of no columns that keep the batch limits."""
    sizes = [7, 0, 5, 9]
    for i, n in enumerate(sizes):
        write(f"{tmp_path}/{i}.json", [{"a": j, "b": {"c": "x" * j}} for j in range(n)])
    kw = {} if builtin else {"reader": json_lines}
    scan = bl.Scan(tmp_path, columns=[], row_limit=4, coalesce=coalesce, limit=limit, **kw)
    batches = list(scan)
    expected = sum(sizes) if limit is None else limit
    assert sum(b.num_rows for b in batches) == expected == scan.rows_read
    assert all(b.num_columns == 0 and 0 < b.num_rows <= 4 for b in batches)
    assert pa.Table.from_batches(batches, schema=scan.schema).num_rows == expected


def test_reader_writing_through_the_row_writer_across_batches(tmp_path):
    write(f"{tmp_path}/1.json", [{}])

    def counter(file, w):
        w.add_column(pa.field("i", pa.int64()))
        for i in range(10):
            while not w.start():
                yield  # the batch is full: let the scan hand it on
            w["i"].set(i)
            w.save()

    scan = bl.Scan(tmp_path, reader=counter, columns=["i", "filename"], row_limit=4)
    batches = list(scan)
    assert [b.num_rows for b in batches] == [4, 4, 2]
    assert pa.Table.from_batches(batches).column("i").to_pylist() == list(range(10))
    assert scan.rows_read == 10 and scan.files_read == 1


def test_unknown_formats_are_refused_early(tmp_path):
    write(f"{tmp_path}/1.parquet", [{"a": 1}])
    with pytest.raises(ValueError, match="built-in readers"):
        bl.Scan(tmp_path, format="parquet")
    with pytest.raises(ValueError, match="cannot tell the format"):
        bl.Scan(tmp_path)


@pytest.mark.parametrize("columns", [None, ["a", "s", "missing", "m.x", "dir0", "filename", "fqn"]])
def test_scan_batches_respect_the_limits_with_added_columns(tmp_path, columns):
    """File and null columns are added after the loader: it keeps room for them."""
    from arrow_bytes import batch_buffer_sizes, exported_buffer_sizes

    deep = tmp_path / ("d" * 40) / ("e" * 40)
    write(
        f"{deep}/data-file-with-a-long-name.json",
        [{"a": i, "s": "v" * (i % 13), "m": {"y": i}} for i in range(3000)],
    )
    scan = bl.Scan(
        tmp_path, columns=columns, reader=json_lines, batch_byte_limit=6000, vector_byte_limit=2500
    )
    batches = list(scan)
    assert sum(b.num_rows for b in batches) == 3000
    for b in batches:
        for sizes in (batch_buffer_sizes(b), exported_buffer_sizes(b)):
            assert sum(sizes) <= 6000, sum(sizes)
            assert max(sizes) <= 2500, max(sizes)


def test_an_empty_first_file_does_not_fix_an_empty_schema(tmp_path):
    (tmp_path / "0.json").write_text("")
    write(f"{tmp_path}/1.json", [{"a": 1}])
    write(f"{tmp_path}/2.json", [{"a": 2, "b": "late"}])
    scan, table = scan_all(tmp_path, columns=None)
    assert scan.schema.names[:1] == ["a"]
    assert table.column("a").to_pylist() == [1, 2]
    assert "b" not in scan.schema.names  # fixed by the first file with data


def test_list_of_structs_whose_members_differ_between_files(tmp_path):
    write(f"{tmp_path}/1.json", [{"ev": [{"kind": "a", "v": 1}]}])
    write(f"{tmp_path}/2.json", [{"ev": [{"kind": "b"}, None]}, {"ev": None}])
    scan, table = scan_all(tmp_path, columns=["ev"])
    assert scan.schema.field("ev").type == pa.list_(
        pa.struct([("kind", pa.utf8()), ("v", pa.int64())])
    )
    assert table.column("ev").to_pylist() == [
        [{"kind": "a", "v": 1}],
        [{"kind": "b", "v": None}, None],
        None,
    ]


def test_new_members_inside_a_list_of_structs_with_schema_change(tmp_path):
    write(f"{tmp_path}/1.json", [{"ev": [{"kind": "a"}]}])
    write(f"{tmp_path}/2.json", [{"ev": [{"kind": "b", "extra": 2}]}])
    scan = bl.Scan(
        [tmp_path / "1.json", tmp_path / "2.json"], reader=json_lines, allow_schema_change=True
    )
    batches = list(scan)
    assert batches[1].column("ev").to_pylist() == [[{"kind": "b", "extra": 2}]]
    assert scan.schema.field("ev").type == pa.list_(
        pa.struct([("kind", pa.utf8()), ("extra", pa.int64())])
    )


@pytest.mark.parametrize("value", [None, "", "part-0.json", "dir0=ü", "x" * 1000])
@pytest.mark.parametrize("n", [0, 1, 7, 4096])
def test_implicit_column_values(value, n):
    from batchloader.schema import implicit_column

    got = implicit_column(value, n)
    assert got.type == pa.utf8()
    assert got.to_pylist() == [value] * n
    got.validate(full=True)


def test_implicit_columns_do_not_import_pandas():
    """pyarrow imports pandas (half a second) when it converts Python values; file columns
    are built from buffers so a scan never pays for that."""
    code = (
        "import sys; from batchloader.schema import implicit_column; "
        "implicit_column('a.json', 100); implicit_column(None, 3); "
        "assert 'pandas' not in sys.modules, 'pandas imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_file_columns_are_right_in_every_batch_of_every_file(tmp_path):
    """File columns are built once per file and sliced per batch: batches of different
    lengths, and a second file with a longer first batch, each get their own file's values."""
    write(f"{tmp_path}/a.json", [{"x": i} for i in range(7)])
    write(f"{tmp_path}/bb.json", [{"x": i} for i in range(12)])
    batches = list(bl.Scan(tmp_path, columns=["x", "filename"], row_limit=5))
    lengths = [b.num_rows for b in batches]
    assert lengths == [5, 2, 5, 5, 2]
    names = [name for b in batches for name in b.column("filename").to_pylist()]
    assert names == ["a.json"] * 7 + ["bb.json"] * 12
    for b in batches:
        b.validate(full=True)


def test_a_scan_does_not_import_pandas(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "year=2024" / "a.json"
    path.parent.mkdir()
    path.write_text('{"a": 1}\n{"a": 2}\n')
    code = (
        "import sys\nfrom batchloader import Scan\n"
        f"rows = [r for b in Scan({str(tmp_path)!r}) for r in b.to_pylist()]\n"
        "assert [r['filename'] for r in rows] == ['a.json'] * 2, rows\n"
        "print('pandas' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def _small_files(root, sizes):
    for f, n in enumerate(sizes):
        write(
            f"{root}/p{f % 3}/f{f:03d}.json", [{"i": f * 100 + k, "s": "x" * k} for k in range(n)]
        )


@given(
    sizes=st.lists(st.integers(0, 12), min_size=1, max_size=25),
    row_limit=st.integers(1, 40),
    byte_limit=st.sampled_from([None, 400, 2000]),
    vector_limit=st.sampled_from([1500, 2**20]),
    builtin=st.booleans(),
)
@settings(max_examples=150, deadline=None)
def test_small_files_share_batches_within_the_limits(
    tmp_path_factory, sizes, row_limit, byte_limit, vector_limit, builtin
):
    """Batches of small files are joined up to the limits: the same rows in the same order,
    with their own files' columns, and no batch over a limit."""
    from batchloader.coalesce import byte_bound

    from arrow_bytes import batch_buffer_sizes

    root = tmp_path_factory.mktemp("small")
    _small_files(root, sizes)
    kw = dict(row_limit=row_limit, batch_byte_limit=byte_limit, vector_byte_limit=vector_limit)
    if not builtin:
        kw["reader"] = json_lines
    joined = list(bl.Scan(root, **kw))
    apart = list(bl.Scan(root, coalesce=False, **kw))
    if not apart:
        assert joined == []
        return
    schema = apart[0].schema
    assert pa.Table.from_batches(joined, schema).equals(pa.Table.from_batches(apart, schema))
    # what joining relies on: the bound never undercounts a part
    assert all(byte_bound(b) >= sum(batch_buffer_sizes(b)) for b in apart)
    for b in joined:
        sizes_ = batch_buffer_sizes(b)
        assert b.num_rows <= row_limit
        assert max(sizes_) <= vector_limit
        assert byte_limit is None or sum(sizes_) <= byte_limit
    if byte_limit is None and vector_limit == 2**20:
        # only the row limit binds: two neighbours never both fit in one batch
        rows = [b.num_rows for b in joined]
        assert all(a + b > row_limit for a, b in itertools.pairwise(rows)), rows


def test_a_scans_batches_stay_within_16_mib_unless_told_otherwise(tmp_path):
    """A scan's `batch_byte_limit` defaults to 16 MiB (Drill's output batch size; the
    loader's own default is none): a wide sparse file (2,200 columns, a value a row) gives
    several batches of at most 16 MiB as the loader counts them, not one of ~38 MiB;
    `batch_byte_limit=None` lifts it. The same rows either way."""
    from arrow_bytes import batch_buffer_sizes

    write(f"{tmp_path}/wide.json", [{f"c{i}": i} for i in range(2200)])
    bounded = list(bl.Scan(tmp_path, allow_schema_change=True, columns=["*"]))
    whole = list(bl.Scan(tmp_path, allow_schema_change=True, batch_byte_limit=None))
    assert len(whole) == 1 and sum(batch_buffer_sizes(whole[0])) > 32 * 2**20
    assert len(bounded) >= 2
    assert all(sum(batch_buffer_sizes(b)) <= 16 * 2**20 for b in bounded)
    # later batches have columns the first lacked (the schema may change): nulls before
    joined = pa.concat_tables(
        [pa.Table.from_batches([b]) for b in bounded], promote_options="default"
    )
    assert joined.select(whole[0].schema.names).equals(pa.Table.from_batches(whole))


def test_many_small_files_make_one_batch(tmp_path):
    _small_files(tmp_path, [3] * 40)
    scan = bl.Scan(tmp_path, columns=["i", "filename", "dir0"])
    (batch,) = list(scan)
    assert batch.num_rows == 120
    in_order = sorted(range(40), key=lambda f: (f % 3, f))  # p0/, p1/, p2/
    want = [f"f{f:03d}.json" for f in in_order for _ in "abc"]
    assert batch.column("filename").to_pylist() == want
    assert batch.column("dir0").to_pylist() == [f"p{f % 3}" for f in in_order for _ in "abc"]
    assert scan.files_read == 40
    assert len(list(bl.Scan(tmp_path, coalesce=False))) == 40


def test_a_full_batch_is_handed_out_before_more_is_read(tmp_path):
    """Only small batches wait to be joined: a full one costs no extra batch of memory."""
    write(f"{tmp_path}/a.json", [{"i": i} for i in range(10)])
    write(f"{tmp_path}/b.json", [{"i": 10 + i} for i in range(5)])
    write(f"{tmp_path}/c.json", [{"i": 15 + i} for i in range(2)])
    read = []

    def logging_reader(file, writer):
        for row in json_lines(file, writer):
            read.append(row["i"])
            yield row

    it = iter(bl.Scan(tmp_path, reader=logging_reader, row_limit=5, columns=["i"]))
    assert next(it).column("i").to_pylist() == [0, 1, 2, 3, 4]
    assert read == list(range(6))  # the row that found the batch full, no further
    assert next(it).column("i").to_pylist() == [5, 6, 7, 8, 9]
    assert next(it).column("i").to_pylist() == [10, 11, 12, 13, 14]  # a file's last, full
    assert read == list(range(15))
    assert [b.column("i").to_pylist() for b in it] == [[15, 16]]


@pytest.mark.parametrize("when", ["first", "later", "call"])
def test_an_error_in_a_user_reader_keeps_its_type_and_names_the_file(tmp_path, when):
    write(f"{tmp_path}/a.json", [{"i": 1}])

    def failing_reader(file, writer):
        if when == "call":
            raise KeyError("no such field")
        return rows()

    def rows():
        if when == "later":
            yield {"i": 1}
        raise KeyError("no such field")

    with pytest.raises(KeyError, match="no such field") as info:
        list(bl.Scan(tmp_path, reader=failing_reader))
    if sys.version_info >= (3, 11):
        note = f"raised by the scan's reader while reading {tmp_path}/a.json"
        assert info.value.__notes__ == [note]


@pytest.mark.parametrize("builtin", [True, False])
def test_names_with_dots_and_brackets_are_projected_quoted(tmp_path, builtin):
    """`a.b` (backquoted) is the column named "a.b", a.b is member b of a: flattened keys
    such as "user.id" are common in JSON."""
    write(f"{tmp_path}/f.json", [{"a.b": 1, "a": {"b": 2, "c.d": 3}, "x[1]": 4, "y": 5}])
    kw = {} if builtin else {"reader": json_lines}
    cols = ["`a.b`", "a.b", "a.`c.d`", "`x[1]`"]
    (batch,) = list(bl.Scan(tmp_path, columns=cols, **kw))
    assert batch.to_pylist() == [{"a.b": 1, "a": {"b": 2, "c.d": 3}, "x[1]": 4}]


def test_the_loader_projects_quoted_names():
    schema = pa.schema([("a.b", pa.int64()), ("a", pa.struct([("b", pa.int64())]))])
    loader = bl.ResultSetLoader(schema, projection=["`A.B`"])
    (batch,) = list(loader.write_rows([{"a.b": 1, "a": {"b": 2}}]))
    assert batch.to_pylist() == [{"a.b": 1}]


@pytest.mark.parametrize("builtin", [True, False])
def test_names_in_any_script_are_projected_bare(tmp_path, builtin):
    write(f"{tmp_path}/f.json", [{"Città": 1, "größe": {"Ωmega": 2, "x": 3}, "y": 4}])
    kw = {} if builtin else {"reader": json_lines}
    (batch,) = list(bl.Scan(tmp_path, columns=["città", "größe.ωmega"], **kw))
    assert [name.lower() for name in batch.schema.names] == ["città", "größe"]
    assert batch.column(0).to_pylist() == [1]
    assert [list(v.values()) for v in batch.column(1).to_pylist()] == [[2]]


@pytest.mark.parametrize(
    "options",
    [
        dict(columns=["a", "m.b", "c[1]", "filename"]),
        dict(columns=["a", "z"], schema=pa.schema([("a", pa.int64()), ("q", pa.float64())])),
        dict(columns=["a", "z"], null_type=pa.int32()),
        dict(columns=None, schema=pa.schema([("a", pa.int64())])),
        dict(columns=None),
        dict(columns=[]),
    ],
)
@pytest.mark.parametrize("content", ["", "\n \n", '{"a": ]\n'])
def test_a_scan_that_reads_no_row_has_the_schema_a_row_without_the_columns_gives(
    tmp_path, options, content
):
    """No row read (an empty file, blank lines, every line skipped): the projected columns
    still have their types, as they would for rows that lack them, so a query over an empty
    input can still name them."""
    (tmp_path / "no_rows.json").write_text(content)
    (tmp_path / "other").mkdir()
    write(f"{tmp_path}/other/lacking.json", [{"unrelated": 1}])
    empty = bl.Scan(tmp_path / "no_rows.json", on_error="skip", **options)
    assert list(empty) == []
    lacking = bl.Scan(tmp_path / "other" / "lacking.json", **options)
    list(lacking)
    expected = [f for f in lacking.schema if f.name != "unrelated"]
    assert list(empty.schema) == expected


def batches_until_error(scan) -> tuple[list[pa.RecordBatch], BaseException | None]:
    """The batches `scan` hands out before it raises, and what it raised."""
    got = []
    try:
        for batch in scan:
            got.append(batch)
    except Exception as e:
        return got, e
    return got, None


@pytest.mark.parametrize("row_limit", [2, 1000])
@pytest.mark.parametrize("coalesce", [True, False])
@pytest.mark.parametrize("builtin", [True, False])
def test_every_row_before_an_error_is_handed_out_before_it(tmp_path, builtin, coalesce, row_limit):
    """A scan stopped by bad input hands out every row before the bad one, earlier files'
    too (which may share its batch, or wait to be joined with it), and then raises: a
    consumer writing batches as they come has all of them, each once."""
    write(f"{tmp_path}/a.json", [{"i": 0}, {"i": 1}])
    write(f"{tmp_path}/b.json", [{"i": 2}, {"i": 3}])
    (tmp_path / "c.json").write_text('{"i": 4}\n{"i": 5}\n{"i": }\n{"i": 6}\n')
    kw = {} if builtin else {"reader": json_lines}
    scan = bl.Scan(
        tmp_path, columns=["i", "filename"], coalesce=coalesce, row_limit=row_limit, **kw
    )
    batches, error = batches_until_error(scan)
    got = [(r["i"], r["filename"]) for b in batches for r in b.to_pylist()]
    names = ["a.json"] * 2 + ["b.json"] * 2 + ["c.json"] * 2
    assert got == list(zip(range(6), names, strict=True))
    assert all(b.num_rows <= row_limit for b in batches)
    if builtin:
        assert isinstance(error, bl.InputError)
        assert (error.path, error.line) == (str(tmp_path / "c.json"), 3)
    else:
        assert isinstance(error, json.JSONDecodeError)


def test_a_row_moved_to_the_next_batch_is_handed_out_before_an_error(tmp_path):
    """A row that did not fit its batch waits in the next one: a reader failing right
    after it still has it handed out, with the rows before it."""
    write(f"{tmp_path}/a.json", [{"i": 0}])

    def reader(file, writer):
        for i in range(4):
            yield {"i": i, "s": "x" * 300}  # the 4th does not fit 1000 bytes
        raise KeyError("the reader failed")

    scan = bl.Scan(tmp_path, reader=reader, batch_byte_limit=1000, columns=["i", "s"])
    batches, error = batches_until_error(scan)
    assert isinstance(error, KeyError)
    assert [r["i"] for b in batches for r in b.to_pylist()] == [0, 1, 2, 3]
    assert len(batches) == 2  # the row that did not fit in its own


@pytest.mark.parametrize("limit", [None, 5])
def test_each_pass_over_a_scan_reads_its_files_again_and_counts_afresh(tmp_path, limit):
    """A Scan is iterable more than once: each pass reads the files again, in the schema
    the first fixed (a second pass with a limit read no row at all), and the counters tell
    of the pass that ran last, not of every pass added up; a pass left off midway leaves
    nothing behind."""
    write(f"{tmp_path}/1.json", [{"a": i, "x": None} for i in range(4)])
    with open(f"{tmp_path}/2.json", "w") as f:
        f.write('{"a": 4, "x": 7, "late": 1}\nnot json\n{"a": 5}\n')
    scan = bl.Scan(tmp_path, on_error="skip", limit=limit, row_limit=2)
    first = pa.Table.from_batches(list(scan), schema=scan.schema)
    counts = (scan.rows_read, scan.files_read, scan.skipped_lines, scan.text_kept)
    assert first.num_rows == (limit or 6)
    assert counts == (first.num_rows, 2, 1 if limit is None else 0, {"x": 1})
    assert scan.ignored_columns == {"late": 1}
    for _ in range(2):
        again = pa.Table.from_batches(list(scan), schema=scan.schema)
        assert again.equals(first)
        assert (scan.rows_read, scan.files_read, scan.skipped_lines, scan.text_kept) == counts
        assert scan.ignored_columns == {"late": 1}
    # left off after one batch: the next pass is whole
    next(iter(scan))
    assert pa.Table.from_batches(list(scan), schema=scan.schema).equals(first)


def test_a_file_the_paths_name_twice_is_read_once(tmp_path, caplog):
    """A folder and a file in it, a path given twice or spelled two ways: the file's rows
    came twice, silently; it is read once (as Spark's file index lists it), where the paths
    first name it, with a warning."""
    write(f"{tmp_path}/d/a.json", [{"x": 1}, {"x": 2}])
    write(f"{tmp_path}/d/b.json", [{"x": 3}])
    a = f"{tmp_path}/d/a.json"
    relative = os.path.relpath(a)
    for paths in ([f"{tmp_path}/d", a], [a, a], [a, relative], [a, f"{tmp_path}/d/*.json"]):
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="batchloader"):
            scan = bl.Scan(paths, columns=["x"])
            got = sorted(r["x"] for b in scan for r in b.to_pylist())
        assert got == ([1, 2, 3] if len(scan.files) == 2 else [1, 2]), paths
        assert len(scan.files) == len({os.path.abspath(f) for f in scan.files})
        assert scan.files[0] == (paths[0] if paths[0].endswith(".json") else a)
        assert "named more than once by the paths, each read once" in caplog.text, paths


@pytest.mark.parametrize("builtin", [True, False], ids=["ndjson-reader", "python-reader"])
def test_file_limit_reads_the_first_rows_of_each_file(tmp_path, builtin):
    """`file_limit=n`: at most n rows of each file (small files do not pool their rows past
    it), `limit` still bounding the whole; 0 reads no row of any file."""
    for f, n in enumerate([5, 1, 3]):
        write(f"{tmp_path}/{f}.json", [{"f": f, "i": i} for i in range(n)])
    options = {} if builtin else {"reader": json_lines}
    got = [
        (r["f"], r["i"])
        for b in bl.Scan(tmp_path, file_limit=2, columns=["f", "i"], **options)
        for r in b.to_pylist()
    ]
    assert got == [(0, 0), (0, 1), (1, 0), (2, 0), (2, 1)]
    scan = bl.Scan(tmp_path, file_limit=2, limit=3, columns=["f", "i"], **options)
    assert [(r["f"], r["i"]) for b in scan for r in b.to_pylist()] == [(0, 0), (0, 1), (1, 0)]
    assert sum(b.num_rows for b in bl.Scan(tmp_path, file_limit=0, **options)) == 0
    with pytest.raises(ValueError, match="file_limit must be None or >= 0"):
        bl.Scan(tmp_path, file_limit=-1)


def test_braces_in_a_path_name_alternatives_as_in_spark(tmp_path):
    """`{a,b}` in a path names either (Hadoop's glob, which Spark paths use), nested and
    with other patterns; an alternative naming nothing is passed over when another names
    files; a path that exists is itself, braces and all."""
    for year in ("2024", "2025", "2026"):
        write(f"{tmp_path}/{year}/a.json", [{"y": year}])
    write(f"{tmp_path}/2026/b.json", [{"y": "2026b"}])
    write(f"{tmp_path}/{{x,y}}.json", [{"y": "braces"}])

    def years(path):
        return [r["y"] for b in bl.Scan(path, columns=["y"]) for r in b.to_pylist()]

    assert years(f"{tmp_path}/{{2024,2026}}") == ["2024", "2026", "2026b"]
    assert years(f"{tmp_path}/{{2024,2026}}/a.json") == ["2024", "2026"]
    assert years(f"{tmp_path}/20{{24,2{{5,6}}}}/a.*") == ["2024", "2025", "2026"]
    assert years(f"{tmp_path}/{{2024,1999}}/*.json") == ["2024"]
    assert years(f"{tmp_path}/{{x,y}}.json") == ["braces"]
    with pytest.raises(FileNotFoundError, match=r"\{1998,1999\}"):
        bl.Scan(f"{tmp_path}/{{1998,1999}}")
    assert bl.locations.brace_alternatives("a{b,c{d,e}}f{,g}") == [
        "abf",
        "abfg",
        "acdf",
        "acdfg",
        "acef",
        "acefg",
    ]
    assert bl.locations.brace_alternatives("no{braces") == ["no{braces"]
