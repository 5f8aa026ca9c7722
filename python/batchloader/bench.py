"""Comparison harness: Python rows -> Arrow, batchloader against pyarrow and polars.

Run as ``python -m batchloader bench`` (or ``python benches/compare.py``). It generates two
deterministic datasets (nested and flat, 1M rows by default), then times, alternating, in one
process, several rounds of each writer on the same rows and prints median seconds, rows/s,
ns/row, the ratio of each competitor's time to batchloader's, and the peak RSS each call added
above what the process held before it. A benchmark, not a test: nothing here asserts speed.
"""

from __future__ import annotations

import datetime as dt
import gc
import json
import os
import random
import statistics
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from functools import partial
from typing import Any

import pyarrow as pa

from batchloader import ResultSetLoader

NESTED_SCHEMA = pa.schema(
    [
        pa.field("id", pa.int64(), nullable=False),
        ("ts", pa.timestamp("us")),
        ("user", pa.utf8()),
        ("score", pa.float64()),
        ("tags", pa.list_(pa.utf8())),
        (
            "address",
            pa.struct(
                [
                    ("city", pa.utf8()),
                    ("zip", pa.utf8()),
                    ("geo", pa.struct([("lat", pa.float64()), ("lon", pa.float64())])),
                ]
            ),
        ),
        ("events", pa.list_(pa.struct([("kind", pa.utf8()), ("value", pa.int64())]))),
        ("coupon", pa.utf8()),  # present in ~10% of rows
    ]
)
FLAT_SCHEMA = pa.schema(
    [
        pa.field("id", pa.int64(), nullable=False),
        ("user", pa.utf8()),
        ("score", pa.float64()),
        ("qty", pa.int32()),
        ("flag", pa.bool_()),
        ("ts", pa.timestamp("us")),
    ]
)
CITIES = ["Lyon", "Oslo", "Lima", "Pune", "Kyiv", "Cork", "Nice", "Rome", "Bern", "Graz"]
KINDS = ["click", "view", "buy", "scroll", "share"]
T0 = dt.datetime(2024, 1, 1)


def nested_rows(n: int, seed: int = 1) -> list[dict[str, Any]]:
    """The nested dataset: deterministic for a given `n` and `seed`."""
    rnd = random.Random(seed)
    rows = []
    for i in range(n):
        row: dict[str, Any] = {
            "id": i,
            "ts": T0 + dt.timedelta(seconds=i, microseconds=rnd.randrange(1_000_000)),
            "user": f"user{rnd.randrange(100_000)}",
            "score": None if rnd.random() < 0.05 else rnd.random() * 100,
            "tags": [rnd.choice(KINDS) for _ in range(rnd.randrange(4))],
            "address": {
                "city": rnd.choice(CITIES),
                "zip": f"{rnd.randrange(10_000, 99_999)}",
                "geo": {"lat": rnd.uniform(-90, 90), "lon": rnd.uniform(-180, 180)},
            },
            "events": [
                {"kind": rnd.choice(KINDS), "value": rnd.randrange(1000)}
                for _ in range(rnd.randrange(5))
            ],
        }
        if rnd.random() < 0.1:
            row["coupon"] = f"C{rnd.randrange(1000):03d}"
        rows.append(row)
    return rows


def sparse_rows(n: int, seed: int = 3) -> list[dict[str, Any]]:
    """The sparse dataset: an id and 8 of 500 optional properties a row (ints, floats,
    strings, booleans by the property's number), as event or API dumps hold them."""
    rnd = random.Random(seed)
    makers: list[Callable[[], Any]] = [
        lambda: rnd.randrange(1_000_000),
        lambda: rnd.random() * 1000,
        lambda: rnd.choice(KINDS) + str(rnd.randrange(100)),
        lambda: rnd.random() < 0.5,
    ]
    rows = []
    for i in range(n):
        row: dict[str, Any] = {"id": i}
        for k in sorted(rnd.sample(range(500), 8)):
            row[f"p{k:03d}"] = makers[k % 4]()
        rows.append(row)
    return rows


def flat_rows(n: int, seed: int = 2) -> list[dict[str, Any]]:
    """The flat dataset (6 scalar columns)."""
    rnd = random.Random(seed)
    return [
        {
            "id": i,
            "user": f"user{rnd.randrange(100_000)}",
            "score": rnd.random() * 100,
            "qty": rnd.randrange(1000),
            "flag": rnd.random() < 0.5,
            "ts": T0 + dt.timedelta(seconds=i),
        }
        for i in range(n)
    ]


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class _PeakRss:
    """Samples the resident set size while a call runs; `added` is the peak above the start."""

    def __init__(self) -> None:
        self.start = _rss()
        self.peak = self.start
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(0.002):
            self.peak = max(self.peak, _rss())

    def __enter__(self) -> _PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, _rss())

    @property
    def added(self) -> int:
        return self.peak - self.start


def _polars_schema(schema: pa.Schema) -> Any:
    """`schema` in polars' types (polars must be installed)."""
    import polars as pl

    frame = pl.from_arrow(schema.empty_table())
    assert isinstance(frame, pl.DataFrame)
    return frame.schema


def writers(schema: pa.Schema, byte_limit: int) -> dict[str, Callable[[list], int]]:
    """The contenders: each takes the rows and returns the number of rows it produced."""
    struct = pa.struct(list(schema))

    def batchloader(rows: list) -> int:
        loader = ResultSetLoader(schema, batch_byte_limit=byte_limit)
        return sum(b.num_rows for b in loader.write_rows(rows))

    def from_pylist(rows: list) -> int:
        return pa.RecordBatch.from_pylist(rows, schema=schema).num_rows

    def array_struct(rows: list) -> int:
        return pa.RecordBatch.from_struct_array(pa.array(rows, type=struct)).num_rows

    out: dict[str, Callable[[list], int]] = {
        "batchloader.write_rows": batchloader,
        "pa.RecordBatch.from_pylist": from_pylist,
        "pa.array(struct)+from_struct_array": array_struct,
    }
    try:
        import polars as pl

        pl_schema = _polars_schema(schema)

        def polars_from_dicts(rows: list) -> int:
            return pl.from_dicts(rows, schema=pl_schema).height

        out["polars.from_dicts"] = polars_from_dicts
    except ImportError:  # polars is optional
        pass
    return out


@dataclass
class Result:
    """The figures of one writer on one dataset."""

    dataset: str
    writer: str
    rows: int
    seconds: list[float] = field(default_factory=list)
    peak_rss_added: int = 0
    #: input size, for readers
    bytes: int = 0

    @property
    def median(self) -> float:
        """The median round, in seconds."""
        return statistics.median(self.seconds)

    @property
    def best(self) -> float:
        """The fastest round: the time least inflated by the machine's slow spells (shared
        machines here run the same code 1.7x slower for seconds at a time)."""
        return min(self.seconds)


def run(rows: int, rounds: int, byte_limit: int) -> list[Result]:
    """Time every writer on both datasets, alternating writers within each round."""
    results = []
    for name, make, schema in (
        ("nested", nested_rows, NESTED_SCHEMA),
        ("flat", flat_rows, FLAT_SCHEMA),
    ):
        data = make(rows)
        contenders = {w: partial(fn, data) for w, fn in writers(schema, byte_limit).items()}
        results += time_contenders(name, contenders, rows, rounds)
        del data, contenders
    return results


def time_contenders(
    dataset: str, contenders: Mapping[str, Callable[[], int]], rows: int, rounds: int
) -> list[Result]:
    """Call each contender `rounds` times, alternating within a round and rotating the order
    from round to round (no one always runs first, on cold caches); check each gives `rows`
    rows; keep its times and the peak RSS it added."""
    results = {name: Result(dataset, name, rows) for name in contenders}
    names = list(contenders)
    for r in range(rounds):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            gc.collect()
            with _PeakRss() as rss:
                start = time.perf_counter()
                produced = contenders[name]()
                elapsed = time.perf_counter() - start
            if produced != rows:
                raise AssertionError(f"{name} gave {produced} rows, not {rows}")
            result = results[name]
            result.seconds.append(elapsed)
            result.peak_rss_added = max(result.peak_rss_added, rss.added)
    return list(results.values())


def round_ratios(result: Result, base: Result) -> list[float]:
    """`result`'s time over `base`'s, round by round: the two ran side by side in each
    round, so a slow spell of the machine hits both."""
    return [a / b for a, b in zip(result.seconds, base.seconds, strict=True)]


def ratio_quartiles(result: Result, base: Result) -> tuple[float, float]:
    """First and third quartiles of `round_ratios`."""
    ratios = round_ratios(result, base)
    if len(ratios) < 2:
        return ratios[0], ratios[0]
    q1, _, q3 = statistics.quantiles(ratios, n=4, method="inclusive")
    return q1, q3


def table(results: list[Result]) -> str:
    """The results as a text table, one block per dataset."""
    lines = []
    header = (
        f"{'dataset':<8} {'writer':<36} {'median s':>9} {'rows/s':>12} {'ns/row':>8} "
        f"{'x batchloader':>13} {'round ratios':>12} {'best x':>6} {'peak RSS +MB':>12}"
    )
    lines.append(header)
    lines.append("-" * len(header))
    for dataset in dict.fromkeys(r.dataset for r in results):
        group = [r for r in results if r.dataset == dataset]
        ours = next(r for r in group if r.writer.startswith("batchloader"))
        for r in group:
            low, high = ratio_quartiles(r, ours)
            lines.append(
                f"{r.dataset:<8} {r.writer:<36} {r.median:>9.3f} {r.rows / r.median:>12,.0f} "
                f"{r.median / r.rows * 1e9:>8.0f} {r.median / ours.median:>13.2f} "
                f"{f'{low:.2f}-{high:.2f}':>12} {r.best / ours.best:>6.2f} "
                f"{r.peak_rss_added / 2**20:>12.1f}"
            )
    lines.append("x batchloader: the writer's median time / batchloader's (above 1: slower)")
    lines.append(
        "round ratios: quartiles of the same ratio taken round by round (the spread the"
        " machine's noise gives it)"
    )
    lines.append("best x: the writer's fastest round / batchloader's fastest round")
    return "\n".join(lines)


def plot(results: list[Result], path: str) -> None:
    """Bar chart of the time ratios (needs matplotlib: pip install batchloader[plot])."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    datasets = list(dict.fromkeys(r.dataset for r in results))
    fig, axes = plt.subplots(1, len(datasets), figsize=(6 * len(datasets), 4), squeeze=False)
    for ax, dataset in zip(axes[0], datasets, strict=True):
        group = [r for r in results if r.dataset == dataset]
        base = next(r for r in group if r.writer.startswith("batchloader")).median
        ax.barh([r.writer for r in group], [r.median / base for r in group])
        ax.axvline(1.0, color="black", linewidth=0.8)
        ax.set_title(f"{dataset}: time / batchloader's")
    fig.tight_layout()
    fig.savefig(path)


NARROW = ["id", "address.city", "events"]


def _json_ready(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for r in rows:
        r = dict(r)
        if "ts" in r:
            r["ts"] = r["ts"].isoformat()
        out.append(r)
    return out


def _top_level(columns: list[str]) -> list[str]:
    """The top-level columns of a projection (what readers without pushdown select)."""
    return list(dict.fromkeys(c.split(".")[0] for c in columns))


def _keep(row: dict[str, Any], paths: list[str]) -> dict[str, Any]:
    """The parts of `row` a projection of dotted `paths` keeps, nested as in `row`."""
    out: dict[str, Any] = {}
    for path in paths:
        head, _, rest = path.partition(".")
        if head not in row:
            continue
        if rest and isinstance(row[head], dict):
            out[head] = {**out.get(head, {}), **_keep(row[head], [rest])}
        else:
            out[head] = row[head]
    return out


def _scan_reader(byte_limit: int, **scan_options: Any) -> Callable[[str, list[str] | None], int]:
    """batchloader's Scan as a contender: reads a file, returns its rows."""
    from batchloader.scan import Scan

    def read(path: str, columns: list[str] | None) -> int:
        scan = Scan(path, columns=columns, batch_byte_limit=byte_limit, **scan_options)
        return sum(b.num_rows for b in scan)

    return read


def csv_readers(
    byte_limit: int, schema: pa.Schema | None = None
) -> dict[str, Callable[[str, list[str] | None], int]]:
    """CSV readers (files with a header): each reads a file and returns its rows. Without
    `schema`, batchloader reads strings and the others infer types; with it, every reader
    is given the column types."""
    import pyarrow.csv as pcsv

    def pyarrow_csv(threads: bool) -> Callable[[str, list[str] | None], int]:
        def read(path: str, columns: list[str] | None) -> int:
            options = pcsv.ReadOptions(use_threads=threads)
            convert = pcsv.ConvertOptions(
                column_types=None if schema is None else {f.name: f.type for f in schema}
            )
            return pcsv.read_csv(path, read_options=options, convert_options=convert).num_rows

        return read

    out = {
        "batchloader.Scan (1 thread)": _scan_reader(byte_limit, header=True, schema=schema),
        "pyarrow.csv (1 thread)": pyarrow_csv(False),
        "pyarrow.csv (threads)": pyarrow_csv(True),
    }
    try:
        import polars as pl

        types = None if schema is None else _polars_schema(schema)
        out["polars.read_csv"] = lambda path, columns: (
            pl.read_csv(path, schema_overrides=types).height
        )
    except ImportError:
        pass
    return out


def file_readers(byte_limit: int) -> dict[str, Callable[[str, list[str] | None], int]]:
    """NDJSON readers: each reads a file (optionally only some columns) and returns rows."""
    import pyarrow.json as pj

    def pyarrow_json(threads: bool) -> Callable[[str, list[str] | None], int]:
        def read(path: str, columns: list[str] | None) -> int:
            table = pj.read_json(path, read_options=pj.ReadOptions(use_threads=threads))
            if columns:
                table = table.select(_top_level(columns))
            return table.num_rows

        return read

    out = {
        "batchloader.Scan (1 thread)": _scan_reader(byte_limit),
        "pyarrow.json (1 thread)": pyarrow_json(False),
        "pyarrow.json (threads)": pyarrow_json(True),
    }
    try:
        import polars as pl

        def polars_ndjson(path: str, columns: list[str] | None) -> int:
            df = pl.read_ndjson(path)
            if columns:
                df = df.select(_top_level(columns))
            return df.height

        out["polars.read_ndjson"] = polars_ndjson
    except ImportError:
        pass
    _add_duckdb(out, lambda path: f"'{path}', format='newline_delimited'")
    return out


def document_readers(byte_limit: int) -> dict[str, Callable[[str, list[str] | None], int]]:
    """Readers of a file that is one JSON array of objects (pyarrow.json reads none)."""
    out = {"batchloader.Scan multiline (1 thread)": _scan_reader(byte_limit, multiline=True)}
    try:
        import polars as pl

        out["polars.read_json"] = lambda path, columns: pl.read_json(path).height
    except ImportError:
        pass
    _add_duckdb(out, lambda path: f"'{path}', format='array'")
    return out


def _add_duckdb(
    out: dict[str, Callable[[str, list[str] | None], int]], arguments: Callable[[str], str]
) -> None:
    """Add duckdb's `read_json` with 1 and 2 threads to `out`, if duckdb is installed
    (optional: pip install duckdb); `arguments(path)` gives read_json's arguments."""
    try:
        import duckdb
    except ImportError:
        return

    def duckdb_json(threads: int) -> Callable[[str, list[str] | None], int]:
        def read(path: str, columns: list[str] | None) -> int:
            con = duckdb.connect(config={"threads": threads})
            select = ", ".join(_top_level(columns)) if columns else "*"
            query = f"SELECT {select} FROM read_json({arguments(path)})"
            return con.sql(query).to_arrow_table().num_rows

        return read

    out["duckdb read_json (1 thread)"] = duckdb_json(1)
    out["duckdb read_json (2 threads)"] = duckdb_json(2)


#: rows per file of the `-files` datasets (a folder of small files)
SMALL_FILE_ROWS = 200


def folder_readers(byte_limit: int) -> dict[str, Callable[[str, list[str] | None], int]]:
    """NDJSON readers of a folder of small files whose columns differ from file to file:
    each reads every file, keeps the union of their columns and returns the rows (pyarrow
    and polars read file by file, as a user of theirs would, and join the tables)."""
    import pyarrow.json as pj

    def files(folder: str) -> list[str]:
        return sorted(os.path.join(folder, name) for name in os.listdir(folder))

    def pyarrow_json(folder: str, columns: list[str] | None) -> int:
        options = pj.ReadOptions(use_threads=False)
        tables = [pj.read_json(path, read_options=options) for path in files(folder)]
        return pa.concat_tables(tables, promote_options="permissive").num_rows

    out = {
        "batchloader.Scan (1 thread)": _scan_reader(byte_limit, allow_schema_change=True),
        "pyarrow.json (1 thread, file by file)": pyarrow_json,
    }
    try:
        import polars as pl

        out["polars.read_ndjson (file by file)"] = lambda folder, columns: (
            pl.concat([pl.read_ndjson(p) for p in files(folder)], how="diagonal_relaxed").height
        )
    except ImportError:
        pass
    _add_duckdb(
        out,
        lambda folder: f"'{folder}/*.json', format='newline_delimited', union_by_name=true",
    )
    return out


def _write_ndjson(path: str, rows: list[dict[str, Any]]) -> None:
    with open(path, "w") as f:
        for r in _json_ready(rows):
            f.write(json.dumps(r))
            f.write("\n")


def run_readers(rows: int, rounds: int, byte_limit: int, workdir: str) -> list[Result]:
    """Time the NDJSON readers on the datasets written as files (full and narrow), then
    batchloader's narrow scan against its full scan (`narrow_target`)."""
    results = []
    cases = [
        ("nested", nested_rows, None),
        ("nested-narrow", nested_rows, NARROW),
        ("nested-array", nested_rows, None),
        ("flat", flat_rows, None),
        ("sparse", sparse_rows, None),
        ("sparse-files", sparse_rows, None),
        ("flat-csv", flat_rows, None),
        ("flat-csv-typed", flat_rows, None),
    ]
    written: dict[str, str] = {}
    for name, make, columns in cases:
        base = name.split("-")[0]
        is_csv = "-csv" in name
        key = f"{base}-csv" if is_csv else base
        in_files = name.endswith("-files")
        if name.endswith(("-files", "-array")):
            base = key = name
        if key not in written:
            if is_csv:
                import pyarrow.csv as pcsv

                path = os.path.join(workdir, f"{base}.csv")
                pcsv.write_csv(pa.Table.from_pylist(make(rows), schema=FLAT_SCHEMA), path)
            elif in_files:
                path = os.path.join(workdir, base)
                os.makedirs(path)
                data = make(rows)
                for k in range(0, len(data), SMALL_FILE_ROWS):
                    part = data[k : k + SMALL_FILE_ROWS]
                    _write_ndjson(os.path.join(path, f"part-{k:08d}.json"), part)
            elif name.endswith("-array"):
                path = os.path.join(workdir, f"{base}.json")
                with open(path, "w") as f:
                    json.dump(_json_ready(make(rows)), f, indent=2)
            else:
                path = os.path.join(workdir, f"{base}.json")
                _write_ndjson(path, make(rows))
            written[key] = path
        path = written[key]
        if in_files:
            size = sum(os.path.getsize(os.path.join(path, n)) for n in os.listdir(path))
        else:
            size = os.path.getsize(path)
        if in_files:
            readers = folder_readers(byte_limit)
        elif name.endswith("-array"):
            readers = document_readers(byte_limit)
        elif is_csv:
            typed = FLAT_SCHEMA if name.endswith("-typed") else None
            readers = csv_readers(byte_limit, typed)
        else:
            readers = file_readers(byte_limit)
        contenders = {w: partial(fn, path, columns) for w, fn in readers.items()}
        # a folder of small files takes every reader several times as long: fewer rounds
        for result in time_contenders(
            name, contenders, rows, min(rounds, 3) if in_files else rounds
        ):
            result.bytes = size
            results.append(result)
    return results + narrow_target(rows, rounds, byte_limit, written["nested"], workdir)


def narrow_target(
    rows: int, rounds: int, byte_limit: int, nested: str, workdir: str
) -> list[Result]:
    """batchloader's scan of the nested file whole, with the narrow projection, and of a
    file of only the projected fields (the narrow scan's cost before it skips anything),
    side by side in every round: the target is a ratio of the first two, and timed apart
    (minutes apart, as the datasets above are) a slow spell of the machine moves it by a
    third."""
    projected = os.path.join(workdir, "nested-projected.json")
    _write_ndjson(projected, [_keep(r, NARROW) for r in nested_rows(rows)])
    scan = _scan_reader(byte_limit)
    trio = {
        "batchloader.Scan full": (partial(scan, nested, None), nested),
        "batchloader.Scan narrow": (partial(scan, nested, NARROW), nested),
        "batchloader.Scan projected file": (partial(scan, projected, None), projected),
    }
    results = time_contenders(
        "narrow-target", {name: call for name, (call, _) in trio.items()}, rows, rounds
    )
    for result in results:
        result.bytes = os.path.getsize(trio[result.writer][1])
    return results


def narrow_report(full: Result, narrow: Result, projected: Result) -> str:
    """How many times faster than the full scan the narrow one is, from rounds that ran
    both: the median and quartiles of the round-by-round ratios."""
    ratios = round_ratios(full, narrow)
    low, high = ratio_quartiles(full, narrow)
    return (
        f"batchloader's narrow projection: {statistics.median(ratios):.2f}x faster than its"
        f" full scan (median of {len(ratios)} rounds that ran both; quartiles {low:.2f}x-"
        f"{high:.2f}x)\n" + narrow_floor(full, narrow, projected)
    )


def narrow_floor(full: Result, narrow: Result, projected: Result) -> str:
    """What the narrow scan spends skipping, against what 2x its full scan leaves for it:
    `projected` scans a file of only the projected fields (the writes, the rows, no skip)."""
    skipped_bytes = full.bytes - projected.bytes
    skip = narrow.median - projected.median
    budget = full.median / 2 - projected.median
    line = (
        f"narrow projection: its fields alone (a {projected.bytes / 2**20:.0f} MB file of only"
        f" them) take {projected.median * 1000:.1f} ms, {projected.median / full.median:.0%} of"
        f" the full scan; skipping the other {skipped_bytes / 2**20:.0f} MB takes"
        f" {skip * 1000:.1f} ms ({skipped_bytes / skip / 2**30:.2f} GB/s)"
    )
    if budget <= 0:
        return line + "; 2x the full scan would leave nothing for the skip"
    return (
        line + f"; 2x the full scan leaves {budget * 1000:.1f} ms for it"
        f" ({skipped_bytes / budget / 2**30:.1f} GB/s)"
    )


def not_compared(readers: bool, spark: bool) -> str | None:
    """The line saying which comparisons a run leaves out because their optional packages
    are not installed (polars; duckdb for the readers), and how to add them; None if none."""
    import importlib.util

    wanted = [] if spark else ["polars", "duckdb"] if readers else ["polars"]
    missing = [name for name in wanted if importlib.util.find_spec(name) is None]
    if not missing:
        return None
    return (
        f"not compared (not installed): {', '.join(missing)}; pip install -e '.[bench]' adds them"
    )


def main(
    rows: int,
    rounds: int,
    byte_limit: int,
    json_path: str | None,
    plot_path: str | None,
    readers: bool = False,
    spark: bool = False,
):
    """Entry point of ``python -m batchloader bench``."""
    print(f"rows={rows:,} rounds={rounds} batch_byte_limit={byte_limit:,}")
    missing = not_compared(readers, spark)
    if missing:
        print(missing)
    if spark:
        import tempfile

        with tempfile.TemporaryDirectory() as workdir:
            results = run_spark(rows, rounds, workdir)
        print(table(results))
        return 0
    if readers:
        import tempfile

        with tempfile.TemporaryDirectory() as workdir:
            results = run_readers(rows, rounds, byte_limit, workdir)
        print(table(results))
        for dataset in dict.fromkeys(r.dataset for r in results):
            group = [r for r in results if r.dataset == dataset]
            print(
                f"{dataset}: "
                + ", ".join(f"{r.writer} {r.bytes / r.median / 2**20:,.0f} MB/s" for r in group)
            )
        ours = {r.dataset: r for r in results if r.writer.startswith("batchloader")}
        if "nested" in ours and "nested-array" in ours:
            lines, array = ours["nested"], ours["nested-array"]
            print(
                f"batchloader's multiline read of the nested rows as one indented array:"
                f" {array.median / lines.median:.2f}x the time of its read of them as lines"
                f" ({array.bytes / lines.bytes:.2f}x the bytes)"
            )
        trio = [r for r in results if r.dataset == "narrow-target"]
        if trio:
            print(narrow_report(*trio))
        if json_path:
            with open(json_path, "w") as f:
                json.dump([asdict(r) for r in results], f, indent=2)
        return 0
    results = run(rows, rounds, byte_limit)
    print(table(results))
    if json_path:
        with open(json_path, "w") as f:
            json.dump([asdict(r) for r in results], f, indent=2)
        print(f"raw figures written to {json_path}")
    if plot_path:
        plot(results, plot_path)
        print(f"chart written to {plot_path}")
    return 0


def run_spark(rows: int, rounds: int, workdir: str) -> list[Result]:
    """Scan + aggregation on local Spark over the nested dataset written as NDJSON (2 files):
    batchloader.spark.read vs spark.read.schema(ddl).json vs spark.read.json (inferred) vs a
    hand-written mapInArrow (orjson, else json, + RecordBatch.from_pylist); also read()'s
    mapInArrow path (Spark 3.5's; on Spark 4 read() uses the data source)."""
    from batchloader.spark import (
        ScanPlan,
        _read_with_map_in_arrow,
        local_session,
        read,
        spark_struct_type,
    )

    loads: Callable[[str], Any]
    try:
        import orjson

        loads, parser = orjson.loads, "orjson"
    except ImportError:
        loads, parser = json.loads, "json.loads"

    spark = local_session(**{"spark.ui.showConsoleProgress": "false"})
    spark.sparkContext.setLogLevel("ERROR")
    data = _json_ready(nested_rows(rows))
    folder = os.path.join(workdir, "nested")
    os.makedirs(folder)
    half = len(data) // 2
    for i, part in enumerate((data[:half], data[half:])):
        with open(os.path.join(folder, f"part-{i}.json"), "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in part)
    del data
    schema = pa.schema([f.with_nullable(True) for f in NESTED_SCHEMA])
    struct_type = spark_struct_type(schema)
    files = sorted(os.path.join(folder, f) for f in os.listdir(folder))

    def query(df: Any) -> int:
        out = df.groupBy("address.city").agg({"score": "avg", "id": "count"}).collect()
        return sum(r["count(id)"] for r in out)

    def by_hand(batches: Any) -> Any:
        for batch in batches:
            for path in batch.column(0).to_pylist():
                with open(path) as f:
                    chunk: list[dict[str, Any]] = []
                    for line in f:
                        row = loads(line)
                        row["ts"] = dt.datetime.fromisoformat(row["ts"])
                        chunk.append(row)
                        if len(chunk) == 10_000:
                            yield pa.RecordBatch.from_pylist(chunk, schema=schema)
                            chunk = []
                    if chunk:
                        yield pa.RecordBatch.from_pylist(chunk, schema=schema)

    def hand_written() -> int:
        tasks = spark.createDataFrame(spark.sparkContext.parallelize([(f,) for f in files], 2))
        return query(tasks.mapInArrow(by_hand, struct_type))

    contenders: dict[str, Callable[[], int]] = {
        "batchloader.spark.read": lambda: query(
            read(spark, folder, schema=NESTED_SCHEMA, columns=["id", "score", "address.city"])
        ),
        "spark.read.schema(ddl).json": lambda: query(spark.read.schema(struct_type).json(folder)),
        "spark.read.json (inferred)": lambda: query(spark.read.json(folder)),
        f"mapInArrow {parser}+from_pylist": hand_written,
    }
    # the path Spark 3.5 takes (on Spark 4, read() goes through the data source)
    contenders["batchloader via mapInArrow"] = lambda: query(
        _read_with_map_in_arrow(
            spark, ScanPlan(folder, schema=NESTED_SCHEMA, columns=["id", "score", "address.city"])
        )
    )
    try:
        return time_contenders("spark-nested", contenders, rows, rounds)
    finally:
        spark.stop()
