"""Reading a remote file a chunk ahead of its reader: the next chunk is fetched on a thread
while the Rust reader parses the current one (without the GIL), so waiting for the store
and parsing overlap instead of adding up.

Python threads, not Rust ones: a Rust thread waiting for the GIL while the interpreter
shuts down aborts the process; a Python thread is one the interpreter knows to stop.
"""

from __future__ import annotations

import concurrent.futures
import threading
from typing import Any

#: the first read of a file: small, for what reads only a file's start (a CSV header, a
#: small file), each read of an object store being a request
FIRST_CHUNK = 2**20

#: the reads after it (a 1 GB file: about 120 requests)
CHUNK = 8 * 2**20

_fetchers: concurrent.futures.ThreadPoolExecutor | None = None
_fetchers_lock = threading.Lock()


def _pool() -> concurrent.futures.ThreadPoolExecutor:
    """The threads that fetch chunks, made on first use (two: a scan reads one file at a
    time, and a Spark worker runs one scan)."""
    global _fetchers
    with _fetchers_lock:
        if _fetchers is None:
            _fetchers = concurrent.futures.ThreadPoolExecutor(
                max_workers=2, thread_name_prefix="batchloader-read-ahead"
            )
        return _fetchers


class ReadAhead:
    """A binary stream's bytes (`read(n)`), fetched a chunk ahead: `FIRST_CHUNK` bytes,
    then `CHUNK` at a time, one chunk in flight while the one before is read. The chunk
    after one is asked for at the second read from it, not at the first: what reads a file's
    start once (a CSV header, for a split of the file) costs one request of `FIRST_CHUNK`,
    not that and a `CHUNK` more. An error of the stream is raised by the `read` that
    reaches it, after the bytes before it."""

    def __init__(self, raw: Any, first: int = FIRST_CHUNK, chunk: int = CHUNK) -> None:
        self._raw = raw
        self._chunk = chunk
        self._current = memoryview(b"")
        self._ended = False
        self._next: concurrent.futures.Future[bytes] | None = _pool().submit(raw.read, first)

    def _fetch_next(self) -> None:
        if self._next is None and not self._ended:
            self._next = _pool().submit(self._raw.read, self._chunk)

    def read(self, n: int = -1) -> bytes:
        """Up to `n` bytes (all that is left for -1); b"" at the end."""
        if len(self._current):
            self._fetch_next()  # a second read from this chunk: the file is being read on
        while not len(self._current):
            if self._ended:
                return b""
            self._fetch_next()
            assert self._next is not None
            data = self._next.result()  # an error of the stream is raised here
            self._next = None
            if not data:
                self._ended = True
                return b""
            self._current = memoryview(data)
        if n < 0:
            n = len(self._current)
        out, self._current = self._current[:n], self._current[n:]
        return out.tobytes()

    def close(self) -> None:
        """Stop fetching and close the stream (once the chunk in flight has come)."""
        self._ended = True
        self._current = memoryview(b"")
        if self._next is None:
            self._raw.close()
        else:
            self._next.add_done_callback(lambda _: self._raw.close())

    def __enter__(self) -> ReadAhead:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
