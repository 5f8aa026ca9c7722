"""The main job (`python -m batchloader demo`) checks its own results; so does this test."""

from __future__ import annotations

import re

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
