"""Where a scan's files are: local paths (and `file:` URIs), or URIs of the other file
systems pyarrow reaches (`s3://`, `gs://`, `hdfs://`...; Hadoop's `s3a://` and `s3n://` are
read as `s3://`).

A remote file keeps its URI everywhere the scan shows a path (file columns, errors, Spark's
splits); its bytes are read through `pyarrow.fs` with the credentials and endpoint that
library finds (environment variables such as `AWS_ENDPOINT_URL`, instance profiles...).
"""

from __future__ import annotations

import datetime as dt
import fnmatch
import functools
import itertools
import os
import re
from collections.abc import Callable, Iterator
from typing import Any

from batchloader._core import local_path
from batchloader.read_ahead import ReadAhead

#: `scheme://` at the start of a URI
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")

#: Hadoop's names for S3, which pyarrow knows as s3
_S3_ALIASES = ("s3a", "s3n")

#: the characters that make a path a pattern
GLOB_CHARS = "*?["


def brace_alternatives(path: str) -> list[str]:
    """The paths Hadoop's `{a,b}` alternation in `path` stands for (Spark's paths have it;
    nested braces too), in order: `a{b,c}d` is `abd`, `acd`. `[path]` without braces (or
    with an unclosed one)."""
    start = path.find("{")
    if start < 0:
        return [path]
    depth, options, begin = 0, [], start + 1
    for end in range(start, len(path)):
        c = path[end]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                options.append(path[begin:end])
                break
        elif c == "," and depth == 1:
            options.append(path[begin:end])
            begin = end + 1
    else:
        return [path]
    head, tail = path[:start], path[end + 1 :]
    return [alt for option in options for alt in brace_alternatives(head + option + tail)]


def is_remote(path: str) -> bool:
    """Whether `path` is a URI of a file system other than the local one."""
    found = _SCHEME.match(path)
    return found is not None and found.group(1).lower() != "file"


def absolute(path: str) -> str:
    """`path` made absolute: a local path against the working folder, a URI as it is."""
    return path if is_remote(path) else os.path.abspath(path)


def hidden(name: str) -> bool:
    """Whether a file or folder name is one a folder's listing leaves out (Spark's rule)."""
    return name.startswith((".", "_"))


def _base(uri: str) -> tuple[str, str]:
    """`scheme://authority` of a URI and the rest (`/path`)."""
    found = _SCHEME.match(uri)
    assert found is not None, uri
    rest = uri[found.end() :]
    slash = rest.find("/")
    authority, path = (rest, "") if slash < 0 else (rest[:slash], rest[slash:])
    return uri[: found.end()] + authority, path


@functools.lru_cache(maxsize=64)
def _filesystem(base: str) -> tuple[Any, str]:
    """The pyarrow file system of `scheme://authority` and the path in it that `base`
    itself names: `bucket` for `s3://bucket`, `container` for Azure's
    `abfs://container@account...`, "" for `hdfs://namenode:8020` (whose paths start at
    `/`). Made once per process and base: an S3 client is costly to make."""
    import pyarrow.fs as pafs

    scheme, _, authority = base.partition("://")
    # a path below the base, which every file system names as its root's path + "/x"
    target = ("s3" if scheme.lower() in _S3_ALIASES else scheme) + "://" + authority + "/x"
    try:
        fs, path = pafs.FileSystem.from_uri(target)
    except (OSError, ValueError) as e:  # pyarrow's errors are these too
        raise ValueError(
            f"{base!r}: no file system to read it ({e}); batchloader reads local paths, "
            "file: URIs and the URIs pyarrow.fs knows (s3://, gs://, abfs://, hdfs://...)"
        ) from e
    if not path.endswith("/x"):
        raise ValueError(
            f"{base!r}: pyarrow names its files in a way batchloader cannot map back to URIs"
        )
    return fs, path[: -len("/x")]


def _resolve(uri: str) -> tuple[Any, str]:
    """The pyarrow file system of a remote URI and the URI's path in it (all of it: a `?` is
    a pattern's, as in Hadoop's paths, not the start of options)."""
    base, rest = _base(uri)
    fs, root = _filesystem(base)
    return fs, root + rest


def _uri(near: str, path: str) -> str:
    """The URI of file system path `path`, on the file system of URI `near`."""
    base, _ = _base(near)
    _, root = _filesystem(base)
    assert path.startswith(root), (path, root)
    return base + path[len(root) :]


def _file_info(uri: str) -> Any:
    fs, path = _resolve(uri)
    return fs.get_file_info(path)


def is_dir(path: str) -> bool:
    """Whether `path` (local or a URI) is a folder (a remote one this process expanded or
    listed a file of is not asked about again)."""
    if not is_remote(path):
        return os.path.isdir(path)
    if path in _expanded_folders:
        return True
    if path in _listed_sizes:
        return False
    import pyarrow.fs as pafs

    return bool(_file_info(path).type == pafs.FileType.Directory)


#: the remote folders `expand_remote` expanded (a scan then asks for its root no more)
_expanded_folders: set[str] = set()


#: the sizes of the remote files listed so far (a listing has them: planning the splits of
#: thousands of files, and the driver's sample scan of them, then ask the store nothing
#: more per file than to read it)
_listed_sizes: dict[str, int] = {}

#: past this many, the listed sizes are forgotten (and asked again if needed)
_MAX_LISTED_SIZES = 1_000_000


def _note_size(uri: str, info: Any) -> None:
    if info.size is not None:
        note_listed({uri: int(info.size)})


def note_listed(sizes: dict[str, int]) -> None:
    """Remote files listed elsewhere (the Spark driver), with their sizes: taken as files
    by this process's scans without asking the store."""
    for uri, n in sizes.items():
        if len(_listed_sizes) >= _MAX_LISTED_SIZES:
            _listed_sizes.clear()
        _listed_sizes[uri] = n


def size(path: str) -> int:
    """The bytes of file `path` (local or a URI; a remote file's as its listing said)."""
    if not is_remote(path):
        return os.path.getsize(path)
    if path in _listed_sizes:
        return _listed_sizes[path]
    info = _file_info(path)
    if info.size is None:
        raise FileNotFoundError(f"no such file: {path!r}")
    return int(info.size)


def exists(path: str) -> bool:
    """Whether file `path` (local or a URI) is there now (a remote one is asked about,
    even if listed before)."""
    if not is_remote(path):
        return os.path.exists(local_path(path))
    import pyarrow.fs as pafs

    return bool(_file_info(path).type != pafs.FileType.NotFound)


def modified(path: str) -> dt.datetime:
    """When file `path` (local or a URI) was last modified, in UTC."""
    if not is_remote(path):
        return dt.datetime.fromtimestamp(os.stat(local_path(path)).st_mtime, dt.timezone.utc)
    info = _file_info(path)
    if info.mtime is None:
        raise OSError(f"the file system tells no modification time of {path!r}")
    stamp: dt.datetime = info.mtime
    return stamp if stamp.tzinfo is not None else stamp.replace(tzinfo=dt.timezone.utc)


def _listing(folder: str) -> Iterator[tuple[str, bool]]:
    """Every file and folder below remote `folder` (URIs), with whether it is a folder,
    leaving out the hidden ones and what is below them."""
    import pyarrow.fs as pafs

    fs, path = _resolve(folder)
    top = path.rstrip("/")
    for info in fs.get_file_info(pafs.FileSelector(top, recursive=True)):
        below = info.path[len(top) :].strip("/").split("/")
        if any(hidden(part) for part in below):
            continue
        uri = _uri(folder, info.path)
        is_folder = info.type == pafs.FileType.Directory
        if not is_folder:
            _note_size(uri, info)
        yield uri, is_folder


def _walk_order(uri: str) -> tuple[tuple[int, str], ...]:
    """A sort key listing a folder's files as `os.walk` does: its own files by name, then
    each subfolder's, the subfolders by name."""
    parts = uri.split("/")
    return (*((1, p) for p in parts[:-1]), (0, parts[-1]))


def _walk(folder: str) -> list[str]:
    """The files below remote `folder`, in `os.walk`'s order."""
    files = [uri for uri, folder_ in _listing(folder) if not folder_]
    return sorted(files, key=_walk_order)


def _matches(pattern: list[str], parts: list[str]) -> bool:
    """Whether path parts match pattern parts (`**` any number of folders, as `glob`)."""
    if not pattern:
        return not parts
    if pattern[0] == "**":
        return any(_matches(pattern[1:], parts[k:]) for k in range(len(parts) + 1))
    if not parts or not fnmatch.fnmatchcase(parts[0], pattern[0]):
        return False
    return _matches(pattern[1:], parts[1:])


def _glob(pattern: str) -> list[str]:
    """The files a remote pattern names, as `expand_paths` expands a local one: its matches
    in order, each matched folder replaced by its files."""
    parts = pattern.split("/")
    fixed = next(k for k, part in enumerate(parts) if any(ch in part for ch in GLOB_CHARS))
    folder = "/".join(parts[:fixed])
    if not is_dir(folder):
        return []
    matches = {
        uri: is_folder
        for uri, is_folder in _listing(folder)
        if _matches(parts[fixed:], uri[len(folder) :].strip("/").split("/"))
    }
    out: list[str] = []
    for uri in sorted(matches):
        out += _walk(uri) if matches[uri] else [uri]
    return out


def expand_remote(path: str, afresh: bool = False) -> list[str]:
    """The files remote `path` names: a file itself, a folder's files (hidden ones left
    out) in `os.walk`'s order, or a pattern's matches; FileNotFoundError if none. A file
    this process listed is not asked about again unless `afresh` (folders and patterns are
    listed each time, which notes their files' sizes now)."""
    import pyarrow.fs as pafs

    if path in _listed_sizes and not afresh:  # a file this process listed
        return [path]
    info = _file_info(path)
    if info.type == pafs.FileType.Directory:
        if len(_expanded_folders) >= _MAX_LISTED_SIZES:
            _expanded_folders.clear()
        _expanded_folders.add(path)
        return _walk(path)
    if info.type != pafs.FileType.NotFound:
        _note_size(path, info)
        return [path]
    if any(ch in path for ch in GLOB_CHARS):
        matches = _glob(path)
        if matches:
            return matches
        if re.search(r"\?[^/]*=", path):
            raise ValueError(
                f"no file matches {path!r}: options in a URI (?name=value) are not read; "
                "configure the file system through its environment (for S3: "
                "AWS_ENDPOINT_URL, AWS_REGION, credentials...)"
            )
        raise FileNotFoundError(f"no file matches {path!r}")
    raise FileNotFoundError(f"no such file or directory: {path!r}")


def opener(path: str) -> Callable[[int], Any] | None:
    """How the readers open file `path`: None for a local file (they open it themselves),
    else `open(offset)` giving its bytes from that offset, fetched a chunk ahead of the
    reader (`batchloader.read_ahead`: 1 MiB, then 8 MiB a request) and as stored
    (decompressed by the readers, which split only uncompressed files)."""
    if not is_remote(path):
        return None
    fs, fs_path = _resolve(path)

    def open_at(offset: int) -> Any:
        if offset == 0:
            raw = fs.open_input_stream(fs_path, compression=None)
        else:
            raw = fs.open_input_file(fs_path)
            raw.seek(offset)
        return ReadAhead(raw)

    return open_at


def open_binary(path: str) -> Any:
    """File `path` (local or a URI) opened for reading its bytes as stored."""
    open_at = opener(path)
    if open_at is None:
        return open(local_path(path), "rb")
    return open_at(0)


def common_folder(files: list[str]) -> str:
    """The deepest folder holding every file of `files` (local paths or URIs)."""
    if not any(is_remote(f) for f in files):
        return os.path.commonpath([os.path.dirname(os.path.abspath(f)) for f in files])
    # by whole folder names: os.path.commonpath would fold a URI's "//"
    folders = [f.rsplit("/", 1)[0].split("/") for f in files]
    level = zip(*folders, strict=False)  # the folder names at each depth, to the shortest
    shared = itertools.takewhile(lambda names: len(set(names)) == 1, level)
    return "/".join(names[0] for names in shared)
