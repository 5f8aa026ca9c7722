"""The main job (`python -m batchloader demo`) checks its own results; so does this test."""

from __future__ import annotations

import re

import pytest

from batchloader.__main__ import main


def test_demo_checks_pass_and_reproduces_the_seed_example(capsys, spark):
    assert main(["demo", "--rows", "3000", "--batch-byte-limit", "65536"]) == 0
    out = capsys.readouterr().out
    assert "equal to pyarrow.Table.from_pylist: True" in out
    # seed 000's example: total amount by discount from the headerless amount.csv
    assert re.search(r"false \|\s+220\.0", out)
    assert re.search(r"true \|\s+650\.0", out)
    assert "3,000 rows from 3 files" in out
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
