"""The main job (`python -m batchloader demo`) checks its own results; so does this test."""

from __future__ import annotations

import re

import pytest

from batchloader.__main__ import main
from batchloader.bench import Result, narrow_report, not_compared


def test_demo_checks_pass_and_reproduces_the_seed_example(capsys, spark):
    assert main(["demo", "--rows", "3000", "--batch-byte-limit", "65536"]) == 0
    out = capsys.readouterr().out
    assert "equal to pyarrow.Table.from_pylist: True" in out
    # seed 000's example: total amount by discount from the headerless amount.csv
    assert re.search(r"false \|\s+220\.0", out)
    assert re.search(r"true \|\s+650\.0", out)
    assert "3,000 rows from 3 files" in out
    hive = re.search(r'partition_style="hive", where="month = 1"\): ([\d,]+) rows from 1 of', out)
    assert hive is not None and out.rstrip().count("month int") == 1, out
    assert re.search(r"3,000 rows: batchloader [\d.]+ s, spark\.read\.json", out)
    # the Spark part: a CREATE TEMPORARY TABLE of the aggregate, its rows adding up to the
    # scan, the seed example again as a temporary table, and the session's folders gone
    fragments = re.search(r"Fragment \| Number of records written.*?\n-+\+-+\n(.*?)\n-", out, re.S)
    assert fragments and sum(int(line.split("|")[1]) for line in fragments[1].splitlines()) > 0
    spark_part = out.split("seed 000's example, as a temporary table:")[1]
    assert re.search(r"False \|\s+220\.0", spark_part)
    assert re.search(r"True \|\s+650\.0", spark_part)
    assert "session closed: its temporary tables' folders deleted: True" in out


@pytest.mark.parametrize(
    "argv", [["bench", "--rows", "0"], ["bench", "--rounds", "-1"], ["demo", "--rows", "x"]]
)
def test_sizes_must_be_positive_integers(capsys, argv):
    """A bad size is a usage error naming the argument, not a traceback after the work."""
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    assert f"argument {argv[1]}" in capsys.readouterr().err


def test_the_narrow_ratio_is_taken_round_by_round():
    """The bench reports the narrow projection's ratio from rounds that ran both scans:
    the median of the per-round ratios, which a slow spell hitting one scan's rounds only
    cannot move the way it moves a ratio of two medians (here 1x against 2x)."""
    full = Result("narrow-target", "batchloader.Scan full", 10, seconds=[1.0, 2.0, 4.0])
    narrow = Result("narrow-target", "batchloader.Scan narrow", 10, seconds=[1.0, 0.5, 4.0])
    projected = Result("narrow-target", "projected", 10, seconds=[0.5, 0.5, 0.5])
    full.bytes = narrow.bytes = 3 * 2**20
    projected.bytes = 2**20
    report = narrow_report(full, narrow, projected)
    assert report.startswith("batchloader's narrow projection: 1.00x faster than its full scan")
    assert "median of 3 rounds that ran both; quartiles 1.00x-2.50x" in report


def test_the_bench_says_which_comparisons_it_leaves_out(monkeypatch):
    """A run without the optional packages says which comparisons it leaves out (polars,
    and duckdb for the readers) and how to add them, rather than printing a shorter table
    without a word; nothing when they are there."""
    import importlib.util

    installed = {"polars"}
    real = importlib.util.find_spec

    def find_spec(name, *args):
        if name in ("polars", "duckdb"):
            return object() if name in installed else None
        return real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    assert not_compared(readers=False, spark=False) is None
    line = not_compared(readers=True, spark=False)
    assert line is not None and "duckdb" in line and "polars" not in line
    assert "pip install -e '.[bench]'" in line
    installed.clear()
    assert "polars" in (not_compared(readers=False, spark=False) or "")
    assert not_compared(readers=False, spark=True) is None
