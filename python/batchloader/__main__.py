"""Command line: ``python -m batchloader demo`` and ``python -m batchloader bench``.

``demo`` writes a generated nested dataset through the loader with a byte limit, shows the
bounded batches it gets back, checks them against ``pyarrow.Table.from_pylist`` and prints
how long each took.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Iterator
from typing import Any

import pyarrow as pa

from batchloader import ResultSetLoader
from batchloader.session.lease import STALE_AFTER

DEMO_SCHEMA = pa.schema(
    [
        pa.field("id", pa.int64(), nullable=False),
        ("user", pa.utf8()),
        ("score", pa.float64()),
        ("tags", pa.list_(pa.utf8())),
        ("address", pa.struct([("city", pa.utf8()), ("zip", pa.int32())])),
        ("events", pa.list_(pa.struct([("kind", pa.utf8()), ("value", pa.int64())]))),
    ]
)
CITIES = ["Lyon", "Oslo", "Lima", "Pune", "Kyiv", "Cork", "Nice", "Rome"]
KINDS = ["click", "view", "buy", "scroll"]


def demo_rows(n: int, seed: int = 7) -> Iterator[dict[str, Any]]:
    """Deterministic nested rows; some values missing, some null."""
    rnd = random.Random(seed)
    for i in range(n):
        row: dict[str, Any] = {
            "id": i,
            "user": f"user{rnd.randrange(10_000)}",
            "tags": [rnd.choice(KINDS) for _ in range(rnd.randrange(4))],
            "address": {"city": rnd.choice(CITIES), "zip": rnd.randrange(10_000, 99_999)},
            "events": [
                {"kind": rnd.choice(KINDS), "value": rnd.randrange(100)}
                for _ in range(rnd.randrange(5))
            ],
        }
        if rnd.random() > 0.05:
            row["score"] = rnd.random() * 100
        yield row


def _table(headers: list[str], rows: list[list[Any]]) -> str:
    cells = [headers, *[[str(c) for c in r] for r in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    line = "+".join("-" * (w + 2) for w in widths)
    out = [line]
    for k, r in enumerate(cells):
        out.append("|".join(f" {c:>{w}} " for c, w in zip(r, widths, strict=True)))
        if k == 0:
            out.append(line)
    out.append(line)
    return "\n".join(out)


def demo(rows: int, batch_byte_limit: int) -> int:
    """The `demo` command: `rows` generated nested rows into bounded batches; exit status."""
    print(f"batchloader demo: {rows:,} nested rows, batch_byte_limit={batch_byte_limit:,} bytes")
    data = list(demo_rows(rows))

    start = time.perf_counter()
    loader = ResultSetLoader(DEMO_SCHEMA, batch_byte_limit=batch_byte_limit)
    batches = list(loader.write_rows(data))
    loaded = time.perf_counter() - start

    start = time.perf_counter()
    reference = pa.Table.from_pylist(data, schema=DEMO_SCHEMA)
    pyarrow_time = time.perf_counter() - start

    shown = batches[:5] + ([batches[-1]] if len(batches) > 5 else [])
    table_rows = []
    for i, b in enumerate(shown):
        index = i if i < 5 else len(batches) - 1
        table_rows.append([index, f"{b.num_rows:,}", f"{b.nbytes:,}"])
    print(_table(["batch", "rows", "bytes"], table_rows))
    largest = max(b.nbytes for b in batches)
    print(f"{len(batches)} batches, largest {largest:,} bytes (limit {batch_byte_limit:,})")
    same = pa.Table.from_batches(batches, schema=DEMO_SCHEMA).equals(reference)
    print(f"equal to pyarrow.Table.from_pylist: {same}")
    print(
        _table(
            ["writer", "seconds", "rows/s"],
            [
                ["batchloader write_rows", f"{loaded:.3f}", f"{rows / loaded:,.0f}"],
                ["pa.Table.from_pylist", f"{pyarrow_time:.3f}", f"{rows / pyarrow_time:,.0f}"],
            ],
        )
    )
    print(f"from_pylist / write_rows time ratio: {pyarrow_time / loaded:.2f}x (one run)")
    scanned_ok = demo_scan(data, batch_byte_limit)
    return 0 if same and largest <= batch_byte_limit and scanned_ok else 1


def demo_scan(data: list[dict[str, Any]], batch_byte_limit: int) -> bool:
    """Write the rows as a partitioned NDJSON dataset plus a headerless CSV, scan them with a
    nested projection and implicit columns, aggregate, and compare with pyarrow's reader."""
    import json
    import os
    import tempfile

    import pyarrow.compute as pc
    import pyarrow.json as pj

    from batchloader import Scan

    with tempfile.TemporaryDirectory() as root:
        parts: dict[str, list[dict]] = {}
        for i, row in enumerate(data):
            month = f"{1 + i % 3:02d}"
            parts.setdefault(month, []).append(row)
        for month, rows in parts.items():
            folder = os.path.join(root, "events", "year=2024", f"month={month}")
            os.makedirs(folder)
            with open(os.path.join(folder, "part-0.json"), "w") as f:
                f.writelines(json.dumps(r) + "\n" for r in rows)
        csv_path = os.path.join(root, "amount.csv")
        with open(csv_path, "w") as f:
            f.write('"1","Bob","200","false"\n"2","Kate","150","true"\n')
            f.write('"3","Tim","20","false"\n"4","Roger","500","true"\n')

        columns = ["id", "address.city", "events", "dir1", "filename"]
        print(f"\nscan of {len(parts)} NDJSON files under {root}/events, columns={columns}")
        start = time.perf_counter()
        scan = Scan(
            os.path.join(root, "events"), columns=columns, batch_byte_limit=batch_byte_limit
        )
        table = pa.Table.from_batches(list(scan), schema=scan.schema)
        scanned = time.perf_counter() - start
        by_month = (
            table.append_column("city", pc.struct_field(table.column("address"), [0]))
            .append_column("n_events", pc.list_value_length(table.column("events")))
            .group_by(["dir1", "city"])
            .aggregate([("id", "count"), ("n_events", "sum")])
            .sort_by([("dir1", "ascending"), ("city", "ascending")])
        )
        print(
            _table(
                ["dir1", "city", "rows", "events"],
                [list(r.values()) for r in by_month.to_pylist()[:8]],
            )
        )
        start = time.perf_counter()
        reference = 0
        for month in parts:
            path = os.path.join(root, "events", "year=2024", f"month={month}", "part-0.json")
            reference += pj.read_json(path).select(["id", "address", "events"]).num_rows
        pyarrow_time = time.perf_counter() - start
        print(
            f"{scan.rows_read:,} rows from {scan.files_read} files in {scanned:.3f} s; "
            f"pyarrow.json.read_json + select: {pyarrow_time:.3f} s "
            f"(ratio {pyarrow_time / scanned:.2f}x, one run)"
        )

        csv = pa.Table.from_batches(list(Scan(csv_path, columns=["columns", "filename"])))
        amounts = pa.table(
            {
                "discount": pc.list_element(csv.column("columns"), 3),
                "amount": pc.cast(pc.list_element(csv.column("columns"), 2), pa.float64()),
            }
        )
        totals = amounts.group_by("discount").aggregate([("amount", "sum")]).sort_by("discount")
        print("\nheaderless CSV through Drill's `columns` list:")
        print(_table(["discount", "total_amount"], [list(r.values()) for r in totals.to_pylist()]))
        spark_ok = demo_spark(os.path.join(root, "events"), csv_path, scan.rows_read)
        return reference == scan.rows_read and spark_ok


class _Step:
    """Progress display for a long step: a ticking timer on a terminal, one line otherwise."""

    def __init__(self, label: str) -> None:
        self.label = label

    def __enter__(self) -> _Step:
        import threading

        self._start = time.perf_counter()
        self._done = threading.Event()
        self._ticker = None
        if sys.stdout.isatty():
            self._ticker = threading.Thread(target=self._tick, daemon=True)
            self._ticker.start()
        else:
            print(f"{self.label} ...", flush=True)
        return self

    def _tick(self) -> None:
        frames = "|/-\\"
        i = 0
        while not self._done.wait(0.2):
            elapsed = time.perf_counter() - self._start
            print(f"\r{frames[i % 4]} {self.label} {elapsed:5.1f} s", end="", flush=True)
            i += 1

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self._start
        self._done.set()
        if self._ticker is not None:
            self._ticker.join()
            print("\r", end="")
        print(f"done  {self.label} ({self.seconds:.2f} s)", flush=True)


def demo_spark(events: str, amount_csv: str, expected_rows: int) -> bool:
    """The scan on local Spark (`batchloader.spark.read`), inside a temporary-table
    session: aggregate into a CREATE TEMPORARY TABLE, read it back, redo seed 000's example,
    and time the scan + aggregation next to spark.read.json on the same files."""
    try:
        from pyspark.sql import functions as F

        from batchloader.session import Session
        from batchloader.spark import local_session, read
    except ImportError:
        print("\npyspark or sqlglot is not installed: the Spark part of the demo is skipped")
        return True
    import os
    import tempfile

    print("\non local Spark, in a batchloader.Session with temporary tables:")
    with _Step("start local Spark"):
        spark = local_session(**{"spark.ui.showConsoleProgress": "false"})
        spark.sparkContext.setLogLevel("ERROR")
    workspace = tempfile.mkdtemp(prefix="batchloader-demo-tmp-")
    spark.sql(f"CREATE DATABASE IF NOT EXISTS batchloader_demo_tmp LOCATION '{workspace}'")
    columns = ["id", "address.city", "events", "dir1", "filename"]
    aggregate = (
        "SELECT dir1, address.city AS city, count(*) AS rows, sum(size(events)) AS events "
        "FROM events GROUP BY dir1, address.city"
    )
    try:
        with Session(spark, temporary_workspace="batchloader_demo_tmp") as session:
            # batchloader.spark.read works on Spark 3.5 and 4 (on 4, so does
            # CREATE TEMPORARY VIEW events USING batchloader OPTIONS (path ..., columns ...))
            read(session.spark, events, columns=columns).createOrReplaceTempView("events")
            with _Step("CREATE TEMPORARY TABLE city_counts AS <scan + aggregate>"):
                written = session.sql(f"CREATE TEMPORARY TABLE city_counts AS {aggregate}")
                fragments = [list(r) for r in written.collect()]
            print(_table(["Fragment", "Number of records written"], fragments))
            result = session.sql("SELECT * FROM city_counts ORDER BY dir1, city").collect()
            print(_table(["dir1", "city", "rows", "events"], [list(r) for r in result[:6]]))
            rows = sum(r["rows"] for r in result)

            # Drill's partition pruning: files the condition rules out by their folder alone
            # are not read (one task a file)
            january = "dir1 = 'month=01'"
            pruned = read(session.spark, events, columns=columns, where=january)
            pruned_rows = pruned.count()
            every = session.spark.table("events").rdd.getNumPartitions()
            print(
                f'read(..., where="{january}"): {pruned_rows:,} rows from '
                f"{pruned.rdd.getNumPartitions()} of {every} files"
            )
            pruned_right = pruned_rows == sum(r["rows"] for r in result if r["dir1"] == "month=01")
            # Spark's partition discovery instead: the year=/month= folders as typed columns
            hive = read(
                session.spark,
                events,
                columns=["id", "year", "month"],
                partition_style="hive",
                where="month = 1",
            )
            hive_rows, month_type = hive.count(), dict(hive.dtypes)["month"]
            print(
                f'read(..., partition_style="hive", where="month = 1"): {hive_rows:,} rows '
                f"from {hive.rdd.getNumPartitions()} of {every} files, month {month_type}"
            )
            pruned_right = pruned_right and hive_rows == pruned_rows

            read(session.spark, amount_csv).createOrReplaceTempView("amount")
            session.sql(
                "CREATE TEMPORARY TABLE total_amount_by_discount AS "
                "SELECT cast(columns[3] AS boolean) discount, "
                "sum(cast(columns[2] AS double)) total_amount FROM amount GROUP BY columns[3]"
            )
            totals = session.sql("SELECT * FROM total_amount_by_discount ORDER BY discount")
            print("seed 000's example, as a temporary table:")
            print(_table(["discount", "total_amount"], [list(r) for r in totals.collect()]))
            folders = list(session.locations)

            def ours() -> None:
                session.sql(aggregate).collect()

            def theirs() -> int:
                df = spark.read.json(events)  # infers the schema, as a user without one would
                counts = df.groupBy("month", F.col("address.city")).agg(F.count("*").alias("n"))
                return counts.agg(F.sum("n")).collect()[0][0]

            with _Step("warm up (JVM, Python workers, file cache)"):
                ours()
                theirs()
            with _Step("batchloader.spark.read: scan + aggregate") as mine:
                ours()
            with _Step("spark.read.json (inferred): scan + aggregate") as spark_json:
                theirs_rows = theirs()
        cleaned = not any(os.path.exists(f.removeprefix("file:")) for f in folders)
        print(f"session closed: its temporary tables' folders deleted: {cleaned}")
    finally:
        spark.sql("DROP DATABASE IF EXISTS batchloader_demo_tmp CASCADE")
    print(
        f"{rows:,} rows: batchloader {mine.seconds:.2f} s, spark.read.json (inferred) "
        f"{spark_json.seconds:.2f} s (ratio {spark_json.seconds / mine.seconds:.2f}x, "
        "one warm run each)"
    )
    return rows == expected_rows == theirs_rows and cleaned and pruned_right


def _positive_int(text: str) -> int:
    """An argparse type: an integer of at least 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def main(argv: list[str] | None = None) -> int:
    """The command line (`argv`, else `sys.argv`); the exit status."""
    parser = argparse.ArgumentParser(prog="python -m batchloader", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p_demo = sub.add_parser("demo", help="write a generated dataset into bounded batches")
    p_demo.add_argument("--rows", type=_positive_int, default=200_000)
    p_demo.add_argument("--batch-byte-limit", type=_positive_int, default=4 * 2**20)
    p_bench = sub.add_parser("bench", help="compare Python rows -> Arrow writers")
    p_bench.add_argument("--rows", type=_positive_int, default=1_000_000)
    p_bench.add_argument("--rounds", type=_positive_int, default=3)
    p_bench.add_argument("--batch-byte-limit", type=_positive_int, default=64 * 2**20)
    p_bench.add_argument("--json", metavar="FILE", help="write the raw figures as JSON")
    p_bench.add_argument("--plot", metavar="FILE.png", help="draw the ratios (matplotlib)")
    p_bench.add_argument(
        "--readers", action="store_true", help="compare NDJSON file readers instead"
    )
    p_bench.add_argument(
        "--spark", action="store_true", help="compare scans + aggregation on local Spark"
    )
    p_clean = sub.add_parser(
        "cleanup", help="delete temporary-table session folders whose owner is gone"
    )
    p_clean.add_argument("locations", nargs="+", metavar="LOCATION", help="workspace folder")
    p_clean.add_argument(
        "--stale-after",
        type=float,
        default=STALE_AFTER,
        help="seconds without a heartbeat after which a session counts as gone",
    )
    p_clean.add_argument("--dry-run", action="store_true", help="list, do not delete")
    args = parser.parse_args(argv)
    if args.command == "cleanup":
        from batchloader.session.cleanup import cleanup

        swept, problems = cleanup(args.locations, args.stale_after, args.dry_run)
        verb = "would delete" if args.dry_run else "deleted"
        for folder in swept:
            print(f"{verb} {folder}")
        print(f"{len(swept)} session folder(s) {'would be deleted' if args.dry_run else verb}")
        for problem in problems:
            print(f"cleanup: {problem}", file=sys.stderr)
        return 1 if problems else 0
    if args.command == "demo":
        return demo(args.rows, args.batch_byte_limit)
    if args.command == "bench":
        from batchloader import bench

        return bench.main(
            args.rows,
            args.rounds,
            args.batch_byte_limit,
            args.json,
            args.plot,
            args.readers,
            args.spark,
        )
    parser.error(f"unknown command {args.command}")
    return 2


if __name__ == "__main__":
    sys.exit(main())
