"""A scan's time and page faults when other readers run in the same process between scans:
`python benches/scan_after_others.py FILE [none|duckdb|pyarrow] [ROUNDS]`.

Each round runs the other reader on FILE (unless `none`), then times batchloader's scan of
it, counting the minor page faults the scan took. A scan that gets fresh pages from the
kernel for its buffers (glibc's malloc, once another library has moved its mmap threshold)
shows it here as thousands of faults per scan; an allocator that reuses freed pages does not.
"""

from __future__ import annotations

import gc
import resource
import statistics
import sys
import time

from batchloader import Scan


def scan(path: str) -> int:
    return sum(b.num_rows for b in Scan(path, batch_byte_limit=64 << 20))


def other_reader(name: str, path: str) -> None:
    if name == "duckdb":
        import duckdb

        con = duckdb.connect(config={"threads": 1})
        query = f"SELECT * FROM read_json('{path}', format='newline_delimited')"
        con.sql(query).to_arrow_table()
    elif name == "pyarrow":
        import pyarrow.json as pj

        pj.read_json(path, read_options=pj.ReadOptions(use_threads=False))
    elif name != "none":
        raise SystemExit(f"unknown reader {name!r}: none, duckdb or pyarrow")


def main() -> None:
    path = sys.argv[1]
    other = sys.argv[2] if len(sys.argv) > 2 else "duckdb"
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 7
    seconds, faults = [], []
    for _ in range(rounds):
        other_reader(other, path)
        gc.collect()
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        start = time.perf_counter()
        scan(path)
        seconds.append(time.perf_counter() - start)
        faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
    print(
        f"after {other}: scan median {statistics.median(seconds) * 1000:.1f} ms, "
        f"best {min(seconds) * 1000:.1f} ms; minor faults per scan {faults}"
    )


if __name__ == "__main__":
    main()
