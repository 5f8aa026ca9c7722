"""Compressed inputs: every compression Spark writes text files in, read as its plain text
reads; cut or misnamed files are errors that say so, never fewer lines."""

from __future__ import annotations

import bz2
import functools
import gzip
import itertools
import json
import zlib
from collections.abc import Callable

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import batchloader as bl
from batchloader.bench import nested_rows

DATA_COLUMNS = ("fqn", "filepath", "filename", "suffix")


def hadoop_blocks(compress: Callable[[bytes], bytes], block: int, chunk: int):
    """Hadoop's `BlockCompressorStream` framing (Spark's `compression="snappy"` / `"lz4"`):
    blocks of `block` bytes, each a big-endian length and chunks of `chunk` bytes compressed
    by `compress`, each a big-endian length and its bytes."""

    def frame(data: bytes) -> bytes:
        out = bytearray()
        for b in range(0, len(data), block):
            piece = data[b : b + block]
            out += len(piece).to_bytes(4, "big")
            for c in range(0, len(piece), chunk):
                packed = compress(piece[c : c + chunk])
                out += len(packed).to_bytes(4, "big") + packed
        return bytes(out)

    return frame


def pyarrow_codec(codec: str) -> Callable[[bytes], bytes]:
    return lambda data: pa.compress(data, codec=codec, asbytes=True)


#: suffix -> how a piece of text is compressed as one stream (member, frame) of it
ENCODERS: dict[str, Callable[[bytes], bytes]] = {
    "gz": gzip.compress,
    "bz2": bz2.compress,
    "zst": pyarrow_codec("zstd"),
    "deflate": zlib.compress,
    "snappy": hadoop_blocks(pyarrow_codec("snappy"), 256 << 10, 256 << 10),
    "lz4": hadoop_blocks(pyarrow_codec("lz4_raw"), 256 << 10, 64 << 10),
    "lz4-frame": pyarrow_codec("lz4"),
}


def compressed_name(stem: str, codec: str) -> str:
    return f"{stem}.{codec.split('-')[0]}"


def data_table(scan: bl.Scan) -> pa.Table:
    table = pa.Table.from_batches(list(scan), schema=scan.schema)
    return table.drop_columns([c for c in DATA_COLUMNS if c in table.column_names])


@functools.cache
def nested_text(n: int) -> bytes:
    rows = nested_rows(n)
    for r in rows:
        r["ts"] = r["ts"].isoformat()
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def test_the_suffixes_are_the_ones_the_readers_decompress():
    assert set(bl.COMPRESSED_SUFFIXES) == {
        ".gz",
        ".bz2",
        ".zst",
        ".zstd",
        ".deflate",
        ".snappy",
        ".lz4",
    }
    assert {compressed_name("", c) for c in ENCODERS} <= set(bl.COMPRESSED_SUFFIXES)


@pytest.mark.parametrize("codec", sorted(ENCODERS))
@settings(max_examples=12)  # each compresses a megabyte (bzip2: 0.1 s)
@given(cuts=st.lists(st.integers(0, 3000), max_size=3))
def test_a_compressed_file_of_several_streams_reads_as_its_text(tmp_path_factory, codec, cuts):
    """The nested dataset compressed as streams cut at random lines, one after the other
    (`cat a.gz b.gz`, Hadoop's blocks of 256 KiB, LZ4 frames): the scan equals the plain
    file's, projected or not."""
    folder = tmp_path_factory.mktemp(codec)
    text = nested_text(3000)
    lines = text.splitlines(keepends=True)
    plain = folder / "plain.json"
    plain.write_bytes(text)
    packed = folder / compressed_name("packed.json", codec)
    edges = [0, *sorted(cuts), len(lines)]
    packed.write_bytes(
        b"".join(ENCODERS[codec](b"".join(lines[a:b])) for a, b in itertools.pairwise(edges))
    )
    for columns in (None, ["id", "address.city", "events"]):
        want = data_table(bl.Scan(plain, columns=columns))
        got = data_table(bl.Scan(packed, columns=columns, batch_byte_limit=100_000))
        assert got.equals(want)


@pytest.mark.parametrize("codec", sorted(ENCODERS))
def test_compressed_csv_reads_as_its_text(tmp_path, codec):
    text = "a,b\n" + "".join(f"{i},x{i}\n" for i in range(5000))
    (tmp_path / "plain.csv").write_text(text)
    packed = tmp_path / compressed_name("packed.csv", codec)
    packed.write_bytes(ENCODERS[codec](text.encode()))
    want = data_table(bl.Scan(tmp_path / "plain.csv", header=True))
    assert data_table(bl.Scan(packed, header=True)).equals(want)


@pytest.mark.parametrize("codec", sorted(ENCODERS))
@pytest.mark.parametrize("on_error", ["error", "skip", "permissive"])
def test_a_cut_compressed_file_is_an_error_whatever_on_error_says(tmp_path, codec, on_error):
    """Cut inside a stream (a quarter, half, all but its last byte), a file is an error that
    names it, in every `on_error` mode: no line of it is lost or made up silently."""
    text = nested_text(2000)
    data = ENCODERS[codec](text)
    for cut in (len(data) // 4, len(data) // 2, len(data) - 1):
        path = tmp_path / compressed_name(f"cut{cut}.json", codec)
        path.write_bytes(data[:cut])
        scan = bl.Scan(path, on_error=on_error)
        with pytest.raises(
            bl.InputError,
            match=rf"cut{cut}\.json\.\w+, line \d+: the (file is"
            r" truncated|compressed stream is corrupt)",
        ):
            list(scan)
        assert scan.skipped_lines == scan.corrupt_lines == 0


@pytest.mark.parametrize("codec", ["gz", "bz2", "zst", "lz4-frame"])
def test_compressed_bytes_under_a_plain_name_are_an_error_that_says_so(tmp_path, codec):
    """A gzip file named `x.json` is not lines of text: reading it is an error naming the
    compression and the suffix to give it, in every mode and in a split that starts the file
    (not a line of garbage per compressed line, or a `_corrupt_record` of them)."""
    path = tmp_path / "hidden.json"
    path.write_bytes(ENCODERS[codec](b'{"a": 1}\n' * 10))
    suffix = compressed_name("", codec)
    for on_error in ("error", "skip", "permissive"):
        with pytest.raises(
            bl.InputError,
            match=rf"hidden\.json: .*compressed, but its name does"
            rf" not end in \{suffix}",
        ):
            list(bl.Scan(path, on_error=on_error))
    with pytest.raises(bl.InputError, match="-compressed, but its name"):
        list(bl.Scan(path, byte_range=(0, 5)))
    plain = tmp_path / "plain.json"
    plain.write_text('{"a": 1}\n' * 10)  # text is text
    assert data_table(bl.Scan(plain)).column("a").to_pylist() == [1] * 10


@pytest.mark.parametrize("suffix", ["xz", "br", "zip"])
def test_a_compression_the_readers_do_not_read_is_named_in_the_error(tmp_path, suffix):
    path = tmp_path / f"x.json.{suffix}"
    path.write_bytes(b"\xfd7zXZ\x00\x00")
    with pytest.raises(ValueError, match=rf"compressed \(\.{suffix}\).*\.bz2.*decompress it"):
        list(bl.Scan(path))
    # read as text when told its format: the bytes say what it is
    with pytest.raises(bl.InputError, match="xz-compressed, which the readers do not read"):
        list(bl.Scan(path, format="ndjson"))


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32"])
def test_text_in_another_unicode_encoding_is_an_error_that_says_which(tmp_path, encoding):
    """Excel's "Unicode Text" export (UTF-16 with a byte order mark, tab-separated) and
    UTF-32 files: an error naming the encoding, in every mode, not lines of garbage."""
    bom = {"utf-16-be": "\ufeff"}.get(encoding, "")  # Python writes the BOM for the others
    tsv = tmp_path / "export.tsv"
    tsv.write_bytes((bom + "a\tb\n1\tx\n").encode(encoding))
    name = {"utf-16": "UTF-16LE", "utf-16-be": "UTF-16BE", "utf-32": "UTF-32LE"}[encoding]
    for on_error in ("error", "skip", "permissive"):
        with pytest.raises(bl.InputError, match=rf"export\.tsv: .*is {name} .*read UTF-8"):
            list(bl.Scan(tsv, header=True, on_error=on_error))
    doc = tmp_path / "doc.json"
    doc.write_bytes((bom + '{"a": 1}\n').encode(encoding))
    with pytest.raises(bl.InputError, match=name):
        list(bl.Scan(doc))
    with pytest.raises(bl.InputError, match=name):
        list(bl.Scan(doc, multiline=True))
