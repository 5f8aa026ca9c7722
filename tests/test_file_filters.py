"""Spark's file source options that choose files: `pathGlobFilter`, `modifiedBefore`,
`modifiedAfter`, `recursiveFileLookup`; against Spark's own JSON reader on the same files."""

from __future__ import annotations

import datetime as dt
import json
import os

import pytest

import batchloader.spark as bls
from batchloader.file_filters import FileFilter, name_matches

NAMES = ["a.json", "b.json", "part-0.json", "part-7.json", "a.jsonl", "x{y}.json", "A.JSON"]


def test_hadoop_globs_match_names_as_hadoop_does():
    cases = {
        "*.json": {"a.json", "b.json", "part-0.json", "part-7.json", "x{y}.json"},
        "part-[0-4]*": {"part-0.json"},
        "part-[^0-4]*": {"part-7.json"},
        "{a,b}.json": {"a.json", "b.json"},
        "?.json*": {"a.json", "b.json", "a.jsonl"},
        "x\\{y\\}.json": {"x{y}.json"},
        "*.JSON": {"A.JSON"},  # case-sensitive
    }
    for glob, want in cases.items():
        assert {n for n in NAMES if name_matches(glob, n)} == want, glob


def test_times_are_read_in_the_time_zone_given():
    ny = FileFilter.of(modified_after="2020-06-01T13:00:00", time_zone="America/New_York")
    assert ny.modified_after == dt.datetime(2020, 6, 1, 17, tzinfo=dt.timezone.utc)
    utc = FileFilter.of(modified_before=dt.datetime(2020, 6, 1))
    assert utc.modified_before == dt.datetime(2020, 6, 1, tzinfo=dt.timezone.utc)
    with pytest.raises(ValueError, match=r"modified_before is '06/01/2020'.*YYYY-MM-DDTHH"):
        FileFilter.of(modified_before="06/01/2020")
    assert not FileFilter.of() and FileFilter.of("*.json")


@pytest.fixture
def aged(tmp_path):
    """Files a day apart (their modification times), some in a subfolder."""
    t0 = dt.datetime(2024, 3, 1, 12, tzinfo=dt.timezone.utc).timestamp()
    for i, name in enumerate([*NAMES[:-1], "sub/c.json", "sub/part-3.json"]):
        path = tmp_path / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps({"v": i, "name": name}) + "\n")
        os.utime(path, (t0 + i * 86400, t0 + i * 86400))
    return tmp_path


def _names(df):
    return sorted(r.name for r in df.select("name").collect())


def test_files_are_chosen_as_sparks_options_choose_them(spark, aged):
    """In UTC: in another session time zone, Spark 3.5 and 4 shift a file's time by the
    zone's offset after reading the option's time in that zone (twice the offset in all),
    where its documentation, and this library, read the option's time in the zone."""
    key = "spark.sql.session.timeZone"
    zone = spark.conf.get(key)
    spark.conf.set(key, "UTC")
    try:
        bls.register(spark)  # the data source keeps the session's time zone
        sources = True
    except ImportError:  # Spark 3.5: no Python data sources
        sources = False
    try:
        for options in [
            {"pathGlobFilter": "*.json"},
            {"pathGlobFilter": "part-[^0-4]*"},
            {"pathGlobFilter": "{a,c}.json*"},
            {"modifiedBefore": "2024-03-03T12:00:00"},  # the third file's time: not before
            {"modifiedAfter": "2024-03-03T12:00:00"},
            {"modifiedBefore": "2024-03-03T12:00:01"},
            {"modifiedAfter": "2024-03-02T00:00:00", "pathGlobFilter": "*.json"},
            {},
        ]:
            # a scan reads the folders below its paths (Drill's dir0...), as Spark does
            # with recursiveFileLookup (without it, only the paths' own files, where their
            # folders make no partitions)
            options = {**options, "recursiveFileLookup": "true"}
            theirs = spark.read.options(**options).json(str(aged))
            named = bls.scan_options_from(options)  # Spark's names as `read` takes them
            assert _names(bls.read(spark, str(aged), **named)) == _names(theirs), options
            assert _names(theirs), options
            if sources:
                ours = spark.read.format("batchloader").options(**options).load(str(aged))
                assert _names(ours) == _names(theirs), options
    finally:
        spark.conf.set(key, zone)
        if sources:
            bls.register(spark)


def test_spark_recursive_lookup_goes_without_hive_partitions(spark, aged):
    with pytest.raises(ValueError, match="cannot go with partition_style='hive'"):
        bls.read(spark, str(aged), recursive_file_lookup=True, partition_style="hive")


def test_a_file_gone_since_listing_is_passed_over_only_when_told(tmp_path, caplog):
    """Spark's `ignoreMissingFiles`: a file deleted between the listing and its read is
    passed over with a warning and named in `missing_files`; the other files' rows are all
    there, those of small files sharing a batch with it too. Otherwise it is an error."""
    import logging

    import pyarrow as pa

    from batchloader import InputError
    from batchloader.scan import Scan

    for i in range(4):
        (tmp_path / f"f{i}.json").write_text(json.dumps({"v": i}) + "\n")
    scan = Scan(str(tmp_path), ignore_missing_files=True)
    strict = Scan(str(tmp_path))
    (tmp_path / "f2.json").unlink()
    with caplog.at_level(logging.WARNING, logger="batchloader"):
        table = pa.Table.from_batches(list(scan))
    assert sorted(table.column("v").to_pylist()) == [0, 1, 3]
    assert scan.missing_files == [str(tmp_path / "f2.json")]
    assert "f2.json was listed but is gone: passed over (ignore_missing_files)" in caplog.text
    with pytest.raises(InputError, match=r"f2\.json: cannot open"):
        list(strict)


def test_spark_tasks_pass_over_a_file_gone_since_planning(spark, tmp_path):
    for i in range(3):
        (tmp_path / f"f{i}.json").write_text(json.dumps({"v": i}) + "\n")
    told = bls.read(spark, str(tmp_path), ignore_missing_files=True)
    untold = bls.read(spark, str(tmp_path))
    spark.conf.set("spark.sql.files.ignoreMissingFiles", "true")
    try:
        by_session = bls.read(spark, str(tmp_path))  # the session's default, as Spark's
    finally:
        spark.conf.unset("spark.sql.files.ignoreMissingFiles")
    (tmp_path / "f1.json").unlink()
    assert sorted(r.v for r in told.collect()) == [0, 2]
    assert sorted(r.v for r in by_session.collect()) == [0, 2]
    with pytest.raises(Exception, match=r"no such file or directory: .*f1\.json"):
        untold.collect()
    assert bls.scan_options_from({"ignoreMissingFiles": "true"}) == {"ignore_missing_files": True}
