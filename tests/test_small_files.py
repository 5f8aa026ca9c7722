"""Small files share batches: a scan goes on filling the batch a small file left unfilled
with the next file's rows (one loader for many files, as one file would be read), instead
of a batch per file joined afterwards. What it hands out must be what reading each file
alone gives (`coalesce=False` reads them so), within the same limits, each row with its
own file's columns."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

import batchloader as bl

from arrow_bytes import batch_buffer_sizes

#: values each key takes: ints meeting floats (widening), strings or nulls (a column only
#: null for a while), structs gaining members, lists first empty (a guessed element type)
VALUES = {
    "a": st.one_of(st.integers(-5, 5), st.floats(-2, 2, allow_nan=False)),
    "b": st.one_of(st.none(), st.text(alphabet="xyé", max_size=3)),
    "m": st.one_of(
        st.none(),
        st.fixed_dictionaries({"x": st.integers(0, 9)}, optional={"y": st.booleans()}),
    ),
    "l": st.lists(st.integers(0, 9), max_size=3),
}

row_values = st.fixed_dictionaries({}, optional=VALUES)

PROJECTIONS = [
    None,
    ["id", "filename"],
    ["id", "fqn", "filename"],
    ["id", "a", "m.x"],
    ["l", "id", "dir0"],
    [],
]


def table_of(batches: list[pa.RecordBatch]) -> pa.Table:
    """The batches as one table, their schemas (which may grow) joined."""
    tables = [pa.Table.from_batches([b]) for b in batches]
    return pa.concat_tables(tables, promote_options="permissive") if tables else pa.table({})


def rows_of(batches: list[pa.RecordBatch], schema: pa.Schema) -> list[dict]:
    """The batches' rows in the terms of `schema` (the scan's at its end): every column and
    struct member it has, None where a batch from before the column or member was met
    lacks it. Batches whose schemas grew (allowed to change) compare by their values."""
    return [
        {f.name: normalized(row.get(f.name), f.type) for f in schema}
        for b in batches
        for row in b.to_pylist()
    ]


def normalized(value, t: pa.DataType):
    """`value` with the members of struct type `t` it lacks as None (lists element-wise)."""
    if value is None:
        return None
    if pa.types.is_struct(t):
        return {f.name: normalized(value.get(f.name), f.type) for f in t}
    if pa.types.is_list(t):
        return [normalized(v, t.value_type) for v in value]
    return value


def read(folder, **options):
    """The batches a scan of `folder` hands out, the scan, and the error it raised (the
    batches are then those before it)."""
    scan = bl.Scan(folder, **options)
    batches: list[pa.RecordBatch] = []
    try:
        batches.extend(scan)
    except bl.BatchLoaderError as e:
        return batches, scan, f"{type(e).__name__}: {e}"
    return batches, scan, None


@given(
    files=st.lists(
        st.tuples(st.lists(row_values, max_size=6), st.integers(0, 40)), min_size=2, max_size=12
    ),
    allow_schema_change=st.booleans(),
    projection=st.sampled_from(PROJECTIONS),
    row_limit=st.integers(1, 40),
    batch_byte_limit=st.sampled_from([None, 700, 4000]),
    limit=st.one_of(st.none(), st.integers(0, 40)),
)
@settings(max_examples=200, deadline=None)
def test_small_files_read_as_each_file_read_alone(
    tmp_path_factory, files, allow_schema_change, projection, row_limit, batch_byte_limit, limit
):
    folder = tmp_path_factory.mktemp("small")
    file_names = {}  # a file's name by its number: longer or shorter than the last one's, so a
    # batch files share must keep room for the longest file columns among them
    for k, (rows, longer) in enumerate(files):
        sub = folder / f"p={k % 2}"
        sub.mkdir(exist_ok=True)
        file_names[k] = f"{k:03}{'x' * longer}.json"
        lines = [json.dumps({"id": k * 100 + i, **row}) for i, row in enumerate(rows)]
        (sub / file_names[k]).write_text("".join(line + "\n" for line in lines))
    options = dict(
        allow_schema_change=allow_schema_change,
        columns=projection,
        row_limit=row_limit,
        batch_byte_limit=batch_byte_limit,
        limit=limit,
    )
    shared, scan, error = read(folder, **options)
    alone, oracle, oracle_error = read(folder, coalesce=False, **options)
    assert error == oracle_error  # the same error, at the same file and line
    if error is not None:
        event(error.partition(":")[0])
        # bad input, or a file whose types conflict with the scan's: the rows before it
        # were handed out, each once (earlier files' rows in a batch it shared too)
        assert rows_of(shared, scan.schema) == rows_of(alone, scan.schema)
        return
    several = any(
        len({i // 100 for i in b.column("id").to_pylist()}) > 1
        for b in shared
        if "id" in b.schema.names
    )
    event(f"a batch holds several files' rows: {several}")
    assert scan.schema.equals(oracle.schema)
    assert rows_of(shared, scan.schema) == rows_of(alone, scan.schema)
    assert (scan.rows_read, scan.files_read) == (oracle.rows_read, oracle.files_read)
    for batch in shared:
        assert batch.num_rows <= row_limit
        if batch_byte_limit is not None:
            assert sum(batch_buffer_sizes(batch)) <= batch_byte_limit
        if "filename" in batch.schema.names and "id" in batch.schema.names:
            # each row has its own file's name
            ids = batch.column("id").to_pylist()
            assert batch.column("filename").to_pylist() == [file_names[i // 100] for i in ids]


@pytest.mark.parametrize(
    ("columns", "earlier", "last"),
    [
        # a struct asked for whole, then a member the schema lacks
        (["id", "m"], {"m": {"x": 1}}, {"m": {"x": 1, "y": 2}}),
        # the same, deeper
        (["id", "m"], {"m": {"n": {"x": 1}}}, {"m": {"n": {"x": 1, "y": [2]}}}),
    ],
)
def test_a_file_whose_types_conflict_fails_after_the_rows_of_files_before_it(
    tmp_path, columns, earlier, last
):
    """Files 1 and 2 share a batch (file 0's fixed the schema); file 2 has a member the
    schema lacks. The rows of files 0 and 1 go out, each once, in the scan's schema; then
    the error names file 2."""
    files = [[{"id": 0, **earlier}], [{"id": 100, **earlier}, {"id": 101}], [{"id": 200, **last}]]
    for k, rows in enumerate(files):
        (tmp_path / f"{k:03}.json").write_text("".join(json.dumps(r) + "\n" for r in rows))
    scan = bl.Scan(tmp_path, columns=columns)
    batches = []
    with pytest.raises(bl.SchemaConflictError, match=r"002\.json"):
        batches.extend(scan)
    assert all(b.schema.equals(scan.schema) for b in batches)
    alone = bl.Scan(tmp_path, columns=columns, coalesce=False)
    oracle = []  # a loader per file: the shared batch's rows go out before file 2 fails
    with pytest.raises(bl.SchemaConflictError, match=r"002\.json"):
        oracle.extend(alone)
    assert [b.num_rows for b in oracle] == [1, 2]
    assert table_of(batches).to_pylist() == table_of(oracle).to_pylist()


@pytest.mark.parametrize(
    ("columns", "last", "kept"),
    [
        # a column no file had, filled with nulls of the guessed type, then an int
        (["id", "b"], {"b": 1}, {"b": "1"}),
        # the same, the column made a list by the projection
        (["id", "b[1]"], {"b": [1, {"c": 2}]}, {"b": [None, '{"c": 2}']}),
        # the same, the column made a struct by the projection
        (["id", "m.x"], {"m": {"x": [1]}}, {"m": {"x": "[1]"}}),
    ],
)
def test_a_later_files_value_where_the_schema_fixed_a_guess_is_kept_as_text(
    tmp_path, columns, last, kept
):
    """Files 1 and 2 share a batch (file 0's fixed the schema, guessing the types of
    columns no file had so far); file 2's value there is kept as its JSON text, as it is
    with a loader per file."""
    files = [[{"id": 0}], [{"id": 100}, {"id": 101}], [{"id": 200, **last}]]
    for k, rows in enumerate(files):
        (tmp_path / f"{k:03}.json").write_text("".join(json.dumps(r) + "\n" for r in rows))
    scan = bl.Scan(tmp_path, columns=columns)
    batches = list(scan)
    alone = list(bl.Scan(tmp_path, columns=columns, coalesce=False))
    assert len(batches) < len(alone)  # files shared batches
    rows = table_of(batches).select(list(kept)).to_pylist()
    assert rows == table_of(alone).select(list(kept)).to_pylist()
    assert rows[-1] == kept


def test_many_small_files_fill_batches_together(tmp_path):
    """200 files of 3 rows: the rows go out in batches of the row limit, each row with its
    own file's columns, in file order (the first file's batch alone: it fixes the schema).
    A file that brings a new column (file 120) or widens one (150) ends the batch it
    shares: the next file starts a loader that has the column as the scan learnt it."""
    for k in range(200):
        rows = [{"id": k * 3 + i} for i in range(3)]
        if k == 120:
            rows[0]["late"] = 1
        if k == 150:
            rows[0]["late"] = 2.5
        (tmp_path / f"{k:03}.json").write_text("".join(json.dumps(r) + "\n" for r in rows))
    scan = bl.Scan(tmp_path, row_limit=100, allow_schema_change=True)
    batches = list(scan)
    assert [b.num_rows for b in batches] == [3, 100, 100, 100, 60, 90, 100, 47]
    late = [str(b.schema.field("late").type) if "late" in b.schema.names else None for b in batches]
    assert late == [None, None, None, None, "int64", "double", "double", "double"]
    got = table_of([b.drop_columns(["late"]) if "late" in b.schema.names else b for b in batches])
    assert got.column("id").to_pylist() == list(range(600))
    assert got.column("filename").to_pylist() == [f"{i // 3:03}.json" for i in range(600)]
    values = rows_of(batches, pa.schema([("late", pa.float64())]))
    assert values[360]["late"] == 1 and values[450]["late"] == 2.5
    assert sum(v["late"] is not None for v in values) == 2
    assert scan.files_read == 200


@pytest.mark.parametrize("header", [True, False])
def test_csv_files_with_other_headers_share_batches_by_name(tmp_path, header):
    """CSV files whose headers order the columns differently (or headerless files of
    different widths) read into shared batches by name (by position in `columns`)."""
    texts = ["a,b\n1,x\n2,y\n", "b,a\nz,3\n", "a,b\n4,w\n"]
    for k, text in enumerate(texts):
        (tmp_path / f"{k}.csv").write_text(text if header else text.split("\n", 1)[1])
    got = table_of(list(bl.Scan(tmp_path, header=header)))
    if header:
        assert got.column("a").to_pylist() == ["1", "2", "3", "4"]
        assert got.column("b").to_pylist() == ["x", "y", "z", "w"]
    else:
        assert got.column("columns").to_pylist() == [["1", "x"], ["2", "y"], ["z", "3"], ["4", "w"]]
    assert got.column("filename").to_pylist() == ["0.csv", "0.csv", "1.csv", "2.csv"]
