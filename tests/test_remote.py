"""Files on a remote file system (S3 here, served by moto on localhost): a scan of URIs reads
what a scan of the same files on disk reads, file columns aside, which show the URIs."""

from __future__ import annotations

import bz2
import contextlib
import datetime as dt
import gzip
import itertools
import json
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

import batchloader as bl
from batchloader import locations

moto_server = pytest.importorskip("moto.server", reason="moto[server] serves S3 for these tests")

BUCKET = "bucket"
#: what the scan reads about the files themselves: the columns whose values name them
FILE_COLUMNS = ("fqn", "filepath")


class S3:
    """A moto S3 server on localhost, reached through pyarrow as any S3 endpoint is (the
    environment: AWS_ENDPOINT_URL and credentials)."""

    def __init__(self) -> None:
        import pyarrow.fs as pafs

        logging.getLogger("werkzeug").setLevel(logging.ERROR)
        self.server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        self.server.start()
        host, port = self.server.get_host_and_port()
        self.env = {
            "AWS_ENDPOINT_URL": f"http://{host}:{port}",
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_DEFAULT_REGION": "us-east-1",
        }
        self.saved = {name: os.environ.get(name) for name in self.env}
        os.environ.update(self.env)
        self.fs = pafs.S3FileSystem(
            endpoint_override=f"{host}:{port}", scheme="http", allow_bucket_creation=True
        )
        self.fs.create_dir(BUCKET)

    def put(self, key: str, data: bytes) -> str:
        """Store `data` at `key`; its URI."""
        with self.fs.open_output_stream(f"{BUCKET}/{key}", compression=None) as f:
            f.write(data)
        return f"s3://{BUCKET}/{key}"

    def mirror(self, folder: Path, prefix: str) -> str:
        """Every file below local `folder` stored below `prefix`; the prefix's URI."""
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                self.put(f"{prefix}/{path.relative_to(folder).as_posix()}", path.read_bytes())
        return f"s3://{BUCKET}/{prefix}"

    def close(self) -> None:
        self.server.stop()
        for name, value in self.saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@pytest.fixture(scope="module")
def s3():
    store = S3()
    yield store
    store.close()


#: how the tree's compressed files are compressed, by suffix
COMPRESS = {"": lambda text: text, ".gz": gzip.compress, ".bz2": bz2.compress}


def write_lines(path: Path, rows: list[dict[str, Any]]) -> None:
    """`rows` as NDJSON at `path`, compressed as its suffix says."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(r) + "\n" for r in rows).encode()
    path.write_bytes(COMPRESS.get(path.suffix, COMPRESS[""])(text))


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Partition folders of NDJSON files, plain, gzip and bzip2, with drifting columns, a file
    named like a pattern, and the files a listing leaves out (`_SUCCESS`, `.crc`)."""
    root = tmp_path_factory.mktemp("tree")
    n = 0
    for year in ("2024", "2025"):
        for part in range(3):
            rows = [
                {"id": (n := n + 1), "m": {"k": f"{year}-{part}", "x": i}, "tags": ["a"] * i}
                for i in range(50 + part)
            ]
            if part == 2:
                rows[7]["late"] = 1.5
            suffix = {"2024": ".gz", "2025": ".bz2"}[year] if part == 1 else ""
            write_lines(root / year / f"part-{part}.json{suffix}", rows)
    write_lines(root / "2025" / "x[1].json", [{"id": -1}])
    # listed before the folders' files, as os.walk lists a folder's own files first
    write_lines(root / "top.json", [{"id": -2, "m": {"k": "top"}}])
    (root / "_SUCCESS").write_bytes(b"")
    (root / "2024" / ".part-0.json.crc").write_bytes(b"\x00junk")
    return root


def as_local(batch: pa.RecordBatch, uri: str, local: str) -> pa.RecordBatch:
    """`batch` with the URIs in its file columns turned back into the local paths."""
    for name in FILE_COLUMNS:
        if name in batch.schema.names:
            values = [v.replace(uri, local, 1) for v in batch.column(name).to_pylist()]
            at = batch.schema.get_field_index(name)
            batch = batch.set_column(at, batch.schema.field(at), pa.array(values, pa.utf8()))
    return batch


def scanned(paths: Any, **options: Any) -> tuple[pa.Table, bl.Scan]:
    scan = bl.Scan(paths, **options)
    return pa.Table.from_batches(list(scan), schema=scan.schema), scan


@pytest.mark.parametrize("scheme", ["s3", "s3a"])
@pytest.mark.parametrize("columns", [None, ["id", "m.k", "late", "dir0", "filename", "fqn"]])
def test_a_remote_folder_scans_as_its_local_copy(s3, tree, scheme, columns):
    uri = s3.mirror(tree, "tree").replace("s3://", f"{scheme}://", 1)
    local_scan = bl.Scan(str(tree), columns=columns, allow_schema_change=True)
    remote_scan = bl.Scan(uri, columns=columns, allow_schema_change=True)
    local, remote = list(local_scan), list(remote_scan)
    assert remote_scan.files == [f.replace(str(tree), uri, 1) for f in local_scan.files]
    assert [b.schema for b in remote] == [b.schema for b in local]
    assert all(as_local(r, uri, str(tree)).equals(x) for r, x in zip(remote, local, strict=True))
    assert sum(b.num_rows for b in remote) == 6 * 51 + 2
    if columns is None:
        fqns = {v for b in remote for v in b.column("fqn").to_pylist()}
        assert fqns == set(remote_scan.files)


def test_small_batches_from_remote_files_equal_the_local_ones(s3, tree):
    """Batches cut by the limits (rows moving to the next batch) fall where they fall on
    disk: the reading underneath changes nothing the loader sees."""
    uri = s3.mirror(tree, "limits")
    options = {"columns": ["id", "m", "tags"], "allow_schema_change": True, "row_limit": 7}
    local = list(bl.Scan(str(tree), coalesce=False, **options))
    remote = list(bl.Scan(uri, coalesce=False, **options))
    assert [b.num_rows for b in remote] == [b.num_rows for b in local]
    assert all(r.equals(x) for r, x in zip(remote, local, strict=True))


def test_byte_ranges_of_a_remote_file_read_every_line_once(s3, tmp_path):
    rows = [{"i": i, "s": "x" * (i % 13)} for i in range(300)]
    write_lines(tmp_path / "lines.json", rows)
    text = (tmp_path / "lines.json").read_bytes()
    uri = s3.put("ranges/lines.json", text)
    for step in (1000, 777, len(text) // 3 + 1):
        cuts = [*range(0, len(text), step), len(text)]
        got = []
        for start, end in itertools.pairwise(cuts):
            table, _ = scanned(uri, columns=["i", "s"], byte_range=(start, end))
            local, _ = scanned(tmp_path / "lines.json", columns=["i", "s"], byte_range=(start, end))
            assert table.equals(local), (start, end)
            got += table.to_pylist()
        assert got == rows, step


@contextlib.contextmanager
def requests_seen() -> Iterator[list[str]]:
    """The requests the S3 server answers meanwhile, as its log lines (`GET /b/k HTTP/1.1`)."""
    seen: list[str] = []

    class Seen(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record.getMessage())

    log, handler = logging.getLogger("werkzeug"), Seen()
    level = log.level
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    try:
        yield seen
    finally:
        log.removeHandler(handler)
        log.setLevel(level)


def test_a_remote_file_is_read_in_few_requests(s3):
    """Each read of an object store is a request: a file is read 1 MiB, then 8 MiB at a time
    (a chunk ahead of the reader), not at the readers' 256 KiB (a 1 GB file would take
    4,000 GETs)."""
    line = json.dumps({"s": "x" * 1000}) + "\n"
    text = line * (20 * 2**20 // len(line))
    uri = s3.put("big/big.json", text.encode())
    whole = f"GET /{BUCKET}/big/big.json "
    with requests_seen() as seen:
        rows = sum(b.num_rows for b in bl.Scan(uri, columns=[]))
    assert rows == text.count("\n")
    # 20 MiB: 1 + 8 + 8 + 3 MiB, and maybe one at the end
    assert 4 <= sum(whole in r for r in seen) <= 5, seen
    start, end = 2**20, 9 * 2**20
    with requests_seen() as seen:
        ranged = sum(b.num_rows for b in bl.Scan(uri, columns=[], byte_range=(start, end)))
    assert ranged == sum(start <= k * len(line) < end for k in range(rows))
    # 1 + 8 MiB from its start, maybe 8 more fetched ahead, and none before it (the lines
    # before a range are counted for an error message only)
    assert 2 <= sum(whole in r for r in seen) <= 3, seen


def test_a_csv_range_of_a_remote_file_takes_the_header_from_its_start(s3):
    text = "id,name\n" + "".join(f"{i},n{i}\n" for i in range(100))
    uri = s3.put("csv/people.csv", text.encode())
    middle = len(text) // 2
    first, _ = scanned(uri, header=True, byte_range=(0, middle), columns=["id", "name"])
    second, _ = scanned(uri, header=True, byte_range=(middle, len(text)), columns=["id", "name"])
    got = first.to_pylist() + second.to_pylist()
    assert got == [{"id": str(i), "name": f"n{i}"} for i in range(100)]
    assert second.num_rows > 0 and first.num_rows > 0


def test_a_scan_of_a_remote_folder_asks_about_it_once(s3, tmp_path):
    """Expanding the folder tells it is one: the scan's root (where dir0 counts from) asks
    the store no more than the expansion did."""
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.json").write_text('{"i": 1}\n')
    uri = s3.mirror(tmp_path, "once") + "/a"

    def asked(make):
        locations._listed_sizes.clear()
        locations._expanded_folders.clear()
        with requests_seen() as seen:
            make()
        return len(seen)

    expanding = asked(lambda: locations.expand_remote(uri))
    assert expanding > 0
    assert asked(lambda: bl.Scan(uri, columns=["i", "dir0"])) == expanding


def test_a_csv_splits_header_costs_one_request(s3):
    """A split of a large remote CSV reads the header from the file's start: one request of
    the first chunk, not that and the next chunk fetched ahead for nothing."""
    row = "x" * 200 + "\n"
    text = "name\n" + row * (12 * 2**20 // len(row))
    uri = s3.put("csv/big.csv", text.encode())
    start, end = 5 * 2**20, 7 * 2**20

    def gets(header: bool) -> int:
        with requests_seen() as seen:
            rows = sum(b.num_rows for b in bl.Scan(uri, header=header, byte_range=(start, end)))
        assert rows > 0
        return sum(f"GET /{BUCKET}/csv/big.csv " in r for r in seen)

    assert gets(header=True) - gets(header=False) == 1


def test_an_error_in_a_remote_file_names_its_uri_and_line(s3):
    lines = [json.dumps({"a": i}) for i in range(40)]
    lines[33] = '{"a": oops}'
    text = "\n".join(lines) + "\n"
    uri = s3.put("bad/bad.json", text.encode())
    # read whole, and from a range starting past the first lines (the line is counted by
    # reading the file's start again)
    for byte_range in (None, (len(text) // 2, len(text))):
        with pytest.raises(bl.InputError) as e:
            list(bl.Scan(uri, byte_range=byte_range))
        assert (e.value.path, e.value.line) == (uri, 34)
        assert uri in str(e.value) and "oops" in str(e.value)
    skipping = bl.Scan(uri, on_error="skip")
    assert [r["a"] for b in skipping for r in b.to_pylist()] == [*range(33), *range(34, 40)]
    assert skipping.skipped_lines == 1


def test_remote_patterns_match_as_local_ones_do(s3, tree):
    uri = s3.mirror(tree, "globs")
    patterns = [
        "20*/part-*.json",
        "*/part-[02].json",
        "**/*.json",
        "2025/x[[]1].json",
        "202?",
        "{2025,2024}/part-{0,2}.json",
    ]
    for pattern in patterns:
        local = bl.Scan(f"{tree}/{pattern}").files
        remote = bl.Scan(f"{uri}/{pattern}").files
        assert remote == [f.replace(str(tree), uri, 1) for f in local], pattern
    # a name that exists is itself, not a pattern
    assert bl.Scan(f"{uri}/2025/x[1].json").files == [f"{uri}/2025/x[1].json"]
    # the files' common folder is the root their dirN count from, as on disk
    for pattern in ("20*/part-*.json", "2024/part-[02].json"):
        by_root = {"columns": ["id", "dir0", "dir1"], "allow_schema_change": True}
        local = [b.to_pylist() for b in bl.Scan(f"{tree}/{pattern}", **by_root)]
        assert [b.to_pylist() for b in bl.Scan(f"{uri}/{pattern}", **by_root)] == local


def test_remote_paths_that_name_nothing_say_which(s3):
    for uri in (f"s3://{BUCKET}/nothing/here.json", "s3://no-such-bucket/x.json"):
        with pytest.raises(FileNotFoundError, match=uri):
            bl.Scan(uri)
    with pytest.raises(FileNotFoundError, match="no file matches"):
        bl.Scan(f"s3://{BUCKET}/nothing/*.json")
    with pytest.raises(ValueError, match="'nofs://host': no file system to read it"):
        bl.Scan("nofs://host/a.json")
    with pytest.raises(ValueError, match="AWS_ENDPOINT_URL"):
        bl.Scan(f"s3://{BUCKET}/x.json?endpoint_override=elsewhere")


def test_uris_map_to_file_system_paths_and_back(s3):
    """The URI of a file system path is the URI the user wrote, scheme and all."""
    s3.put("map/a.json", b'{"a": 1}\n')
    for scheme in ("s3", "s3a", "s3n"):
        uri = f"{scheme}://{BUCKET}/map"
        assert locations.is_remote(uri) and locations.is_dir(uri)
        assert locations.expand_remote(uri) == [f"{uri}/a.json"]
        assert locations.size(f"{uri}/a.json") == 9
    assert locations.expand_remote(f"s3://{BUCKET}/map/") == [f"s3://{BUCKET}/map/a.json"]
    # file systems whose paths start elsewhere in the URI (made, not reached)
    for uri, path in [
        ("abfs://box@account.dfs.core.windows.net/d/a.json", "box/d/a.json"),
        ("gs://bkt/d/a.json", "bkt/d/a.json"),
    ]:
        _, got = locations._resolve(uri)
        assert got == path
        assert locations._uri(uri, path) == uri
    assert not locations.is_remote("file:///tmp/a.json")
    assert not locations.is_remote("/tmp/s3://a.json")


def test_a_user_reader_opens_remote_files_as_local_ones(s3, tree):
    """`file.open()` gives a user reader the file's bytes wherever it is."""

    def first_bytes(file: bl.ScanFile, writer: Any) -> Any:
        with file.open() as f:
            head = f.read(2)
        yield {"head": head.hex(), "name": file.name}

    uri = s3.mirror(tree, "custom")
    local = pa.Table.from_batches(list(bl.Scan(str(tree), reader=first_bytes, columns=["head"])))
    remote = pa.Table.from_batches(list(bl.Scan(uri, reader=first_bytes, columns=["head"])))
    assert remote.equals(local)
    # the compressed files' magic numbers: the bytes as stored, not decompressed
    heads = local.column("head").to_pylist()
    assert heads.count("1f8b") == 1 and heads.count(b"BZ".hex()) == 1


def test_a_listing_tells_the_sizes_of_its_files(s3, tree, monkeypatch):
    """Planning Spark's splits asks each file's size, and the driver's sample scans the
    listed files: a folder's listing already said what they are, so thousands of files cost
    no request each."""
    uri = s3.mirror(tree, "sizes")
    files = locations.expand_remote(uri)

    def asked(path: str) -> None:
        raise AssertionError(f"the store was asked about {path}")

    monkeypatch.setattr(locations, "_file_info", asked)
    sizes = [locations.size(f) for f in files]
    local_files = bl.Scan(str(tree)).files
    assert sizes == [os.path.getsize(f) for f in local_files]
    # nor does a scan of the listed files ask about each again (the driver's sample)
    assert bl.Scan(files).files == files


def test_an_executors_scan_asks_nothing_of_the_files_the_driver_listed(s3, tree, monkeypatch):
    """The plan carries the listing: an executor (a process that listed nothing) reads the
    files without asking the store what each is, and a name like `x[1].json` is itself."""
    import batchloader.spark as bls

    uri = s3.mirror(tree, "executor")
    plan = bls.ScanPlan(uri, columns=["id", "filename"], parallelism=2)
    want = sorted(
        r["id"] for task in plan.tasks for b in plan.scan_task(task) for r in b.to_pylist()
    )
    monkeypatch.setattr(locations, "_listed_sizes", {})  # what an executor knows

    def asked(path: str) -> None:
        raise AssertionError(f"the store was asked about {path}")

    monkeypatch.setattr(locations, "_file_info", asked)
    got = sorted(
        r["id"] for task in plan.tasks for b in plan.scan_task(task) for r in b.to_pylist()
    )
    assert got == want and -1 in got and len(got) == 6 * 51 + 2


@pytest.mark.parametrize("through", ["data source", "mapInArrow"])
def test_spark_reads_remote_files_as_local_ones(spark, s3, tree, through):
    from test_spark import HAS_PYTHON_DATA_SOURCES

    import batchloader.spark as bls

    if HAS_PYTHON_DATA_SOURCES:
        # registered before the store's environment is given, as an earlier read would have:
        # `read` and `register` register the data source anew with the environment now
        bls.register(spark)
    # the executors' Python workers reach the store as the driver does
    environment = spark.sparkContext.environment
    saved = {name: environment.get(name) for name in s3.env}
    environment.update(s3.env)
    try:
        check_spark_reads_remote_files_as_local_ones(spark, s3, tree, through)
    finally:
        for name, value in saved.items():
            if value is None:
                environment.pop(name, None)
            else:
                environment[name] = value


def check_spark_reads_remote_files_as_local_ones(spark, s3, tree, through):
    from test_spark import HAS_PYTHON_DATA_SOURCES, rows_of

    import batchloader.spark as bls

    uri = s3.mirror(tree, "spark")
    columns = ["id", "m.k", "tags", "late", "dir0", "filename"]
    # split_bytes small enough that the plain files are read in several byte ranges
    options = {"columns": columns, "split_bytes": 1500, "sample_rows": None}
    if through == "data source":
        if not HAS_PYTHON_DATA_SOURCES:
            pytest.skip("Python data sources arrived in Spark 4")
        remote, local = bls.read(spark, uri, **options), bls.read(spark, str(tree), **options)
        # the data source planned from its options alone, in a Python worker
        bls.register(spark)
        loaded = spark.read.format("batchloader").option("columns", "id,dir0,filename")
        by_options = loaded.option("split_bytes", "1500").load(uri)
        assert rows_of(by_options) == rows_of(local.select("id", "dir0", "filename"))
    else:
        remote_plan = bls.ScanPlan(uri, parallelism=2, **options)
        assert any(start is not None for _, start, _ in remote_plan.splits)
        remote = bls._read_with_map_in_arrow(spark, remote_plan)
        local = bls._read_with_map_in_arrow(spark, bls.ScanPlan(str(tree), **options))
    assert remote.schema == local.schema
    assert rows_of(remote) == rows_of(local)
    assert remote.count() == 6 * 51 + 2


def test_a_plan_reads_a_remote_file_as_it_is_now(s3):
    """A file rewritten between two plans in one process (a job run again on new data) is
    planned by its size now: the second plan's byte ranges cover all of it, lines the first
    plan never saw included."""
    import batchloader.spark as bls

    def ids(plan: bls.ScanPlan) -> list[int]:
        return sorted(r["i"] for t in plan.tasks for b in plan.scan_task(t) for r in b.to_pylist())

    def lines(n: int) -> bytes:
        return "".join(json.dumps({"i": i, "s": "x" * 20}) + "\n" for i in range(n)).encode()

    uri = s3.put("rewritten/lines.json", lines(40))
    assert ids(bls.ScanPlan(uri, columns=["i"], split_bytes=500)) == list(range(40))
    s3.put("rewritten/lines.json", lines(400))
    plan = bls.ScanPlan(uri, columns=["i"], split_bytes=500)
    assert len(plan.splits) > 30  # the new size's byte ranges
    assert ids(plan) == list(range(400))


def test_hive_partitions_and_file_filters_of_remote_files_as_of_local_ones(s3, tmp_path):
    """`key=value` folders of a bucket make the same typed columns as on disk; a file's
    name and modification time choose it alike (the store's time, not the local copy's)."""
    from batchloader.file_filters import FileFilter

    for day in ("2024-01-05", "2024-01-06"):
        for n in (1, 2):
            write_lines(tmp_path / f"day={day}/n={n}/part.json", [{"v": n}, {"v": -n}])
    write_lines(tmp_path / "day=2024-01-06/n=3/part.csv.json", [{"v": 3}])
    uri = s3.mirror(tmp_path, "hive")
    local, _ = scanned(str(tmp_path), partition_style="hive", columns=["v", "day", "n"])
    remote, scan = scanned(uri, partition_style="hive", columns=["v", "day", "n"])
    assert remote.schema.field("day").type == pa.date32()
    assert remote.equals(local)
    chosen = FileFilter.of("part.json", modified_after=dt.datetime(2000, 1, 1))
    assert [f.rsplit("/", 1)[1] for f in chosen.apply(scan.files)] == ["part.json"] * 4
    assert not FileFilter.of(modified_before=dt.datetime(2000, 1, 1)).apply(scan.files)
