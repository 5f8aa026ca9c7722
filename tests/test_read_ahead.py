"""A remote file's bytes read a chunk ahead (batchloader.read_ahead): the same bytes as a
plain read, in order, whatever the chunk and read sizes; an error where the stream has it."""

from __future__ import annotations

import io
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from batchloader.read_ahead import ReadAhead


class Store(io.BytesIO):
    """A stream that gives at most `most` bytes a read, fails once `fail_at` bytes were
    read (if given), and counts its reads and whether it was closed."""

    def __init__(self, data: bytes, most: int, fail_at: int | None = None) -> None:
        super().__init__(data)
        self.most, self.fail_at, self.reads = most, fail_at, 0

    def read(self, n: int | None = -1) -> bytes:
        self.reads += 1
        if self.fail_at is not None and self.tell() >= self.fail_at:
            raise OSError("the store hung up")
        limit = self.most if self.fail_at is None else min(self.most, self.fail_at - self.tell())
        return super().read(limit if n is None or n < 0 else min(n, limit))


def drain(stream: ReadAhead, sizes: list[int]) -> bytes:
    out = bytearray()
    k = 0
    while chunk := stream.read(sizes[k % len(sizes)]):
        out += chunk
        k += 1
    return bytes(out)


@given(
    data=st.binary(max_size=5000),
    first=st.integers(1, 700),
    chunk=st.integers(1, 900),
    most=st.integers(1, 1000),
    sizes=st.lists(st.integers(1, 600), min_size=1, max_size=5),
)
def test_read_ahead_gives_every_byte_once_in_order(data, first, chunk, most, sizes):
    stream = ReadAhead(Store(data, most), first=first, chunk=chunk)
    assert drain(stream, sizes) == data
    assert stream.read(10) == b""  # the end stays the end


def test_reads_are_a_small_first_chunk_then_large_ones():
    store = Store(bytes(range(256)) * 400, most=10**9)
    stream = ReadAhead(store, first=1000, chunk=30_000)
    assert stream.read(10) == bytes(range(10))
    assert len(stream.read(5000)) == 990  # the rest of the first chunk, no more
    assert drain(stream, [4096]) == (bytes(range(256)) * 400)[1000:]
    # 1,000 then 30,000 a read: 4 reads of data, and the one that found the end
    assert store.reads == 1 + 4 + 1
    assert stream.read(-1) == b""


def test_an_error_comes_after_the_bytes_before_it():
    data = bytes(range(256)) * 40
    stream = ReadAhead(Store(data, most=100, fail_at=3000), first=64, chunk=256)
    got = bytearray()
    with pytest.raises(OSError, match="hung up"):
        while chunk := stream.read(77):
            got += chunk
    assert bytes(got) == data[:3000]
    with pytest.raises(OSError, match="hung up"):  # not an end of input: the error again
        stream.read(1)


def test_closing_closes_the_stream():
    store = Store(b"x" * 100, most=10)
    with ReadAhead(store, first=10, chunk=10) as stream:
        assert stream.read(5) == b"xxxxx"
    # closed once the chunk in flight has come (by the thread that fetched it)
    deadline = time.monotonic() + 10
    while not store.closed and time.monotonic() < deadline:
        time.sleep(0.01)
    assert store.closed and stream.read(1) == b""


def test_the_next_chunk_is_asked_for_at_the_second_read_from_one():
    """What reads a file's start once (a CSV header for a split) makes one request; a
    second read from the chunk starts fetching the next while the reader parses."""
    store = Store(bytes(300), most=10**9)
    stream = ReadAhead(store, first=100, chunk=100)
    assert stream.read(10) == bytes(10)
    time.sleep(0.2)  # time enough for a fetch on the pool's thread
    assert store.reads == 1
    assert stream.read(10) == bytes(10)
    deadline = time.monotonic() + 10
    while store.reads < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert store.reads == 2  # the second chunk, fetched ahead of the reader
    assert drain(stream, [7]) == bytes(280)
