"""Peak memory of a scan: `python benches/scan_rss.py FILE [batch_byte_limit] [--multiline]`.

Scans FILE with the given batch byte limit (default 16 MiB) and prints the rows, the time, the
interpreter's RSS before the scan and the peak RSS the scan reached (ru_maxrss), so the memory
bound can be checked on a file far larger than the limit. `--multiline` reads FILE as JSON
documents (one large array, say).
"""

from __future__ import annotations

import resource
import sys
import time

import batchloader as bl


def rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize()


def main() -> None:
    args = [a for a in sys.argv[1:] if a != "--multiline"]
    multiline = "--multiline" in sys.argv
    path = args[0]
    limit = int(args[1]) if len(args) > 1 else 16 << 20
    base = rss()
    start = time.perf_counter()
    rows = largest = 0
    for batch in bl.Scan(path, batch_byte_limit=limit, multiline=multiline):
        rows += batch.num_rows
        largest = max(largest, batch.nbytes)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(
        f"rows={rows:,} seconds={seconds:.1f} baseline_rss={base / 2**20:.0f} MB "
        f"peak_rss={peak / 2**20:.0f} MB above_baseline={(peak - base) / 2**20:.0f} MB "
        f"largest_batch={largest / 2**20:.1f} MB"
    )


if __name__ == "__main__":
    main()
