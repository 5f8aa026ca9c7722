"""Spark's `ignoreCorruptFiles`: a file the readers cannot read on (cut or corrupt
compression, not compressed at all under a compressed name, unreadable) ends where it failed,
its rows before kept, and the scan goes on; bad text in a readable file is still `on_error`'s.
Checked against Spark's own reader on the same files."""

from __future__ import annotations

import gzip
import json
import logging
import os
import zlib

import pyarrow as pa
import pytest

import batchloader.spark as bls
from batchloader import InputError
from batchloader.scan import Scan

ROWS = [{"a": i, "s": "x" * (i % 50)} for i in range(20_000)]
SCHEMA = pa.schema([("a", pa.int64()), ("s", pa.utf8())])


def json_lines(rows: list[dict]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def decodable_lines(cut: bytes) -> int:
    """The whole lines zlib gets out of a cut gzip stream: the rows a reader can keep."""
    return zlib.decompressobj(31).decompress(cut).count(b"\n")


@pytest.fixture
def folder(tmp_path):
    """Good files around a cut gzip file and a plain one named `.gz`, in name order."""
    packed = gzip.compress(json_lines(ROWS))
    cut = packed[: len(packed) // 2]
    (tmp_path / "a.json").write_bytes(json_lines([{"a": -1, "s": "first"}]))
    (tmp_path / "b.json.gz").write_bytes(cut)
    (tmp_path / "c.json.gz").write_bytes(json_lines([{"a": -2, "s": "not gzip"}]))
    (tmp_path / "d.json").write_bytes(json_lines([{"a": -3, "s": "last"}]))
    kept = decodable_lines(cut)
    assert 0 < kept < len(ROWS)
    want = [(-1, "first"), *((r["a"], r["s"]) for r in ROWS[:kept]), (-3, "last")]
    return tmp_path, sorted(want)


def rows_of(table: pa.Table) -> list[tuple]:
    return sorted(zip(table.column("a").to_pylist(), table.column("s").to_pylist(), strict=True))


def test_an_unreadable_file_ends_where_it_failed_and_the_scan_goes_on(folder, caplog):
    path, want = folder
    scan = Scan(str(path), schema=SCHEMA, ignore_corrupt_files=True)
    with caplog.at_level(logging.WARNING, logger="batchloader"):
        table = pa.Table.from_batches(list(scan))
    assert rows_of(table) == want
    assert [(os.path.basename(e.path), e.unreadable) for e in scan.corrupt_files] == [
        ("b.json.gz", True),
        ("c.json.gz", True),
    ]
    cut, not_gzip = scan.corrupt_files
    assert cut.line == len(want) - 2 + 1  # the line the stream broke in
    assert "truncated" in cut.reason and "invalid gzip header" in not_gzip.reason
    assert scan.files_read == 2  # the two read to their end
    assert caplog.text.count("passed over, its rows before kept (ignore_corrupt_files)") == 2
    # a second pass reads alike, its own list of files cut short
    assert rows_of(pa.Table.from_batches(list(scan))) == want
    assert len(scan.corrupt_files) == 2


def test_without_the_option_an_unreadable_file_is_an_error(folder):
    path, _ = folder
    with pytest.raises(InputError, match=r"b\.json\.gz, line \d+: the file is truncated") as e:
        list(Scan(str(path), schema=SCHEMA))
    assert e.value.unreadable


def test_rows_sharing_a_batch_with_the_cut_file_are_kept(tmp_path):
    """Small files fill one batch together: the rows of the files before the cut one, and
    of its part read, go out with the batch; so do the rows of files after it, in their own
    batches, with a limit small enough that batches fill mid-file."""
    for i in range(5):
        (tmp_path / f"f{i}.json").write_bytes(json_lines([{"a": i, "s": "small"}]))
    packed = gzip.compress(json_lines(ROWS[:3000]))
    (tmp_path / "f5.json.gz").write_bytes(packed[: len(packed) * 2 // 3])
    (tmp_path / "f6.json").write_bytes(json_lines([{"a": 6, "s": "after"}]))
    kept = decodable_lines(packed[: len(packed) * 2 // 3])
    for limits in ({}, {"row_limit": 100}):
        scan = Scan(str(tmp_path), schema=SCHEMA, ignore_corrupt_files=True, **limits)
        batches = list(scan)
        assert all(b.num_rows <= limits.get("row_limit", 1 << 30) for b in batches)
        got = rows_of(pa.Table.from_batches(batches))
        want = [(i, "small") for i in range(5)] + [(r["a"], r["s"]) for r in ROWS[:kept]]
        assert got == sorted([*want, (6, "after")])


def test_bad_text_in_a_readable_file_is_not_passed_over(tmp_path):
    """A malformed line is the data's fault, not the file's: `on_error` decides, whatever
    `ignore_corrupt_files` says (as Spark's `mode` does)."""
    (tmp_path / "bad.json").write_text('{"a": 1, "s": "x"}\n{"a": 2, "s": \n{"a": 3, "s": "z"}\n')
    with pytest.raises(InputError, match=r"bad\.json, line 2") as e:
        list(Scan(str(tmp_path), schema=SCHEMA, ignore_corrupt_files=True))
    assert not e.value.unreadable
    scan = Scan(str(tmp_path), schema=SCHEMA, ignore_corrupt_files=True, on_error="skip")
    assert rows_of(pa.Table.from_batches(list(scan))) == [(1, "x"), (3, "z")]
    assert scan.corrupt_files == [] and scan.skipped_lines == 1


def test_a_missing_file_is_not_a_corrupt_one(tmp_path):
    """A file gone since the listing is `ignore_missing_files`' case, as in Spark."""
    for i in range(3):
        (tmp_path / f"f{i}.json").write_bytes(json_lines([{"a": i, "s": "v"}]))
    scan = Scan(str(tmp_path), schema=SCHEMA, ignore_corrupt_files=True)
    (tmp_path / "f1.json").unlink()
    with pytest.raises(InputError, match=r"f1\.json: cannot open") as e:
        list(scan)
    assert not e.value.unreadable


def test_a_cut_csv_file_keeps_its_whole_records(tmp_path):
    text = "a,s\n" + "".join(f"{r['a']},{r['s']}\n" for r in ROWS)
    packed = gzip.compress(text.encode())
    cut = packed[: len(packed) // 3]
    (tmp_path / "cut.csv.gz").write_bytes(cut)
    scan = Scan(str(tmp_path), header=True, schema=SCHEMA, ignore_corrupt_files=True)
    got = rows_of(pa.Table.from_batches(list(scan)))
    kept = decodable_lines(cut) - 1  # the header's line
    assert got == sorted((r["a"], r["s"]) for r in ROWS[:kept])
    assert [os.path.basename(e.path) for e in scan.corrupt_files] == ["cut.csv.gz"]


def test_spark_reads_the_files_sparks_reader_reads(spark, folder):
    """`read(ignore_corrupt_files=True)`, the data source's `ignoreCorruptFiles` and the
    session's `spark.sql.files.ignoreCorruptFiles` give the rows Spark's JSON reader gives
    with the same option; the driver's sample passes over the unreadable files too."""
    path, want = folder
    theirs = spark.read.option("ignoreCorruptFiles", "true").schema("a long, s string")
    assert sorted(tuple(r) for r in theirs.json(str(path)).collect()) == want
    told = bls.read(spark, str(path), ignore_corrupt_files=True, sample_rows=None)
    assert sorted((r.a, r.s) for r in told.collect()) == want
    try:
        bls.register(spark)
    except ImportError:  # Spark 3.5: no Python data sources
        pass
    else:
        source = spark.read.format("batchloader").option("ignoreCorruptFiles", "true")
        got = source.schema("a long, s string").load(str(path))
        assert sorted(tuple(r) for r in got.collect()) == want
    spark.conf.set("spark.sql.files.ignoreCorruptFiles", "true")
    try:
        by_session = bls.read(spark, str(path), schema="a long, s string")
    finally:
        spark.conf.unset("spark.sql.files.ignoreCorruptFiles")
    assert sorted((r.a, r.s) for r in by_session.collect()) == want
    unread = r"(b\.json\.gz, line \d+: the file is truncated|c\.json\.gz, line 1: the compressed)"
    with pytest.raises(Exception, match=unread):
        bls.read(spark, str(path), schema="a long, s string").collect()
    assert bls.scan_options_from({"ignoreCorruptFiles": "true"}) == {"ignore_corrupt_files": True}
