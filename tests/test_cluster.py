"""The documented way to ship batchloader to a cluster, on a real multi-process Spark.

`scripts/pack_env.sh` builds the wheel, installs it into a fresh virtualenv and packs that
with venv-pack; a Spark application on `local-cluster[2,1,1024]` (a master, two workers with
their own executor JVMs and Python workers) gets it through `spark.archives` with
`PYSPARK_PYTHON=./environment/bin/python`, and scans split files with `batchloader.spark.read`.
The test checks the scan's result and that the executors ran the packed environment."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

JOB = textwrap.dedent(
    """
    import json, os, sys
    import pyspark
    from pyspark.sql import SparkSession
    import batchloader.spark as bls

    archive, data = sys.argv[1], sys.argv[2]
    spark = (
        SparkSession.builder.master("local-cluster[2,1,1024]")
        .config("spark.archives", archive + "#environment")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.executor.memory", "1g")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    df = bls.read(spark, data, columns=["id", "a.city", "dir0"], split_bytes=4096)
    rows = [r.asDict(recursive=True) for r in df.collect()]

    def where(batches):
        import pyarrow as pa
        import batchloader
        for _ in batches:
            yield pa.RecordBatch.from_pylist(
                [{"exe": sys.executable, "pkg": batchloader.__file__}]
            )

    envs = spark.range(0, 4, numPartitions=4).mapInArrow(where, "exe string, pkg string")
    print(json.dumps({
        "rows": rows,
        "partitions": df.rdd.getNumPartitions(),
        "envs": [r.asDict() for r in envs.collect()],
    }))
    spark.stop()
    """
)


@pytest.fixture(scope="module")
def packed_env(tmp_path_factory):
    out = tmp_path_factory.mktemp("env") / "environment.tar.gz"
    env = dict(os.environ, BATCHLOADER_PROFILE="dev")
    subprocess.run(
        ["bash", os.path.join(ROOT, "scripts", "pack_env.sh"), str(out)],
        check=True,
        env=env,
        capture_output=True,
    )
    return out


def test_scan_on_a_local_cluster_with_a_packed_virtualenv(packed_env, tmp_path):
    import pyspark

    expected = []
    for month in (1, 2):
        folder = tmp_path / "data" / f"month={month:02d}"
        folder.mkdir(parents=True)
        rows = [
            {"id": month * 1000 + i, "a": {"city": ["Lyon", "Oslo"][i % 2]}} for i in range(500)
        ]
        (folder / "part.json").write_text("".join(json.dumps(r) + "\n" for r in rows))
        expected += [
            {"id": r["id"], "a": {"city": r["a"]["city"]}, "dir0": f"month={month:02d}"}
            for r in rows
        ]
    # SPARK_HOME is the pip package; a local-cluster worker keeps its work folder in
    # SPARK_HOME/work, so give it a home of links to the package's folders.
    home = tmp_path / "spark_home"
    home.mkdir()
    package = os.path.dirname(pyspark.__file__)
    for entry in ("bin", "sbin", "jars", "python", "conf", "data"):
        if os.path.exists(os.path.join(package, entry)):
            os.symlink(os.path.join(package, entry), home / entry)
    env = dict(
        os.environ,
        SPARK_HOME=str(home),
        PYSPARK_PYTHON="./environment/bin/python",  # relative to each executor's folder
        PYSPARK_DRIVER_PYTHON=sys.executable,
    )
    job = subprocess.run(
        [sys.executable, "-c", JOB, str(packed_env), str(tmp_path / "data")],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert job.returncode == 0, job.stderr[-4000:]
    result = json.loads(job.stdout.strip().splitlines()[-1])
    assert sorted(result["rows"], key=lambda r: r["id"]) == expected
    size = os.path.getsize(tmp_path / "data" / "month=01" / "part.json")
    assert result["partitions"] == 2 * -(-size // 4096)  # both files split
    work = str(home / "work")
    for where in result["envs"]:
        # executors ran the packed interpreter and the packed batchloader, in their own folders
        assert where["exe"].startswith(work) and where["exe"].endswith("environment/bin/python")
        assert where["pkg"].startswith(work) and "/environment/lib/" in where["pkg"]
