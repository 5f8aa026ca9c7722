"""File system access for temporary tables: the JVM's Hadoop FileSystem (any scheme Spark can
write to), and the local file system for when there is no JVM (the `cleanup` command, or an
interpreter exiting after its JVM).

Paths are URI strings as Hadoop prints them (`file:/tmp/x`, `hdfs://nn/x`).
"""

from __future__ import annotations

import os
import shutil
import uuid
from typing import Any, Protocol
from urllib.parse import urlparse

from batchloader._core import local_path as _file_uri_path


class FileSystem(Protocol):
    """What sessions and the sweep need from a file system."""

    uri: str

    def exists(self, path: str) -> bool:
        """Whether anything is at `path`."""
        ...

    def is_dir(self, path: str) -> bool:
        """Whether `path` is a folder (it must exist)."""
        ...

    def mkdirs(self, path: str, mode: str) -> None:
        """Create the folder `path` and its missing parents, with octal `mode` ("700")."""
        ...

    def delete(self, path: str) -> bool:
        """Delete `path` and all under it; `False` if nothing was there."""
        ...

    def child_dirs(self, path: str) -> list[str]:
        """The folders directly in the folder `path`, as full paths."""
        ...

    def write_text(self, path: str, text: str, mode: str) -> None:
        """Write a small file whole, with octal `mode`: readers never see a part of it."""
        ...

    def read_text(self, path: str) -> str:
        """The text of the UTF-8 file `path`."""
        ...


def join(parent: str, child: str) -> str:
    """`parent/child` for URI strings."""
    return parent.rstrip("/") + "/" + child


def local_path(uri: str) -> str:
    """The OS path of a `file:` URI (or of a plain path)."""
    if urlparse(uri).scheme not in ("", "file"):
        raise ValueError(f"[{uri}] is not on the local file system")
    return _file_uri_path(uri)


class HadoopFileSystem:
    """The Hadoop FileSystem of one location, reached through Spark's py4j gateway."""

    def __init__(self, spark: Any, location: str) -> None:
        jvm = spark.sparkContext._jvm
        self._jvm = jvm
        self._path = jvm.org.apache.hadoop.fs.Path
        self._fs = self._path(location).getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
        self.uri = str(self._fs.getUri().toString())
        self.scheme = str(self._fs.getScheme())

    def qualify(self, path: str) -> str:
        """The fully qualified form of `path` on this file system."""
        return str(self._fs.makeQualified(self._path(path)).toString())

    def exists(self, path: str) -> bool:
        return bool(self._fs.exists(self._path(path)))

    def is_dir(self, path: str) -> bool:
        return bool(self._fs.getFileStatus(self._path(path)).isDirectory())

    def mkdirs(self, path: str, mode: str) -> None:
        permission = self._jvm.org.apache.hadoop.fs.permission.FsPermission(mode)
        if not self._fs.mkdirs(self._path(path), permission):
            raise OSError(f"could not create the folder [{path}]")

    def delete(self, path: str) -> bool:
        return bool(self._fs.delete(self._path(path), True))

    def child_dirs(self, path: str) -> list[str]:
        return [
            str(status.getPath().toString())
            for status in self._fs.listStatus(self._path(path))
            if status.isDirectory()
        ]

    def write_text(self, path: str, text: str, mode: str) -> None:
        """Write a small file whole: readers see the old text, the new one, or no file (a
        file system rename does not replace), never a part."""
        target = self._path(path)
        staged = self._path(f"{path}.{uuid.uuid4().hex}.tmp")
        stream = self._fs.create(staged, True)
        try:
            stream.write(bytearray(text.encode("utf-8")))
        finally:
            stream.close()
        permission = self._jvm.org.apache.hadoop.fs.permission.FsPermission(mode)
        self._fs.setPermission(staged, permission)
        self._fs.delete(target, False)
        if not self._fs.rename(staged, target):
            self._fs.delete(staged, False)
            raise OSError(f"could not write [{path}]")

    def read_text(self, path: str) -> str:
        stream = self._fs.open(self._path(path))
        try:
            return str(self._jvm.org.apache.commons.io.IOUtils.toString(stream, "UTF-8"))
        finally:
            stream.close()

    def check_writable(self, path: str) -> None:
        """Raise OSError unless a file can be created in the folder `path`."""
        probe = join(path, f".batchloader-probe-{uuid.uuid4().hex}")
        try:
            self._fs.create(self._path(probe), False).close()
        except Exception as err:  # py4j wraps the JVM's IOException
            raise OSError(error_text(err)) from None
        self._fs.delete(self._path(probe), False)

    def delete_on_exit(self, path: str) -> None:
        """Have the JVM delete `path` when it shuts down (Hadoop's deleteOnExit)."""
        self._fs.deleteOnExit(self._path(path))

    def cancel_delete_on_exit(self, path: str) -> None:
        """Undo `delete_on_exit` (the path was deleted, or is to be kept)."""
        self._fs.cancelDeleteOnExit(self._path(path))


class LocalFileSystem:
    """The local file system through `os` (no JVM needed)."""

    uri = "file:///"

    def exists(self, path: str) -> bool:
        return os.path.exists(local_path(path))

    def is_dir(self, path: str) -> bool:
        return os.path.isdir(local_path(path))

    def mkdirs(self, path: str, mode: str) -> None:
        os.makedirs(local_path(path), mode=int(mode, 8), exist_ok=True)

    def delete(self, path: str) -> bool:
        target = local_path(path)
        if not os.path.exists(target):
            return False
        shutil.rmtree(target)
        return True

    def child_dirs(self, path: str) -> list[str]:
        root = local_path(path)
        entries = os.scandir(root)
        return [join(path, e.name) for e in entries if e.is_dir(follow_symlinks=False)]

    def write_text(self, path: str, text: str, mode: str) -> None:
        """Write a small file whole (readers never see a part of it)."""
        target = local_path(path)
        staged = f"{target}.{uuid.uuid4().hex}.tmp"
        fd = os.open(staged, os.O_WRONLY | os.O_CREAT | os.O_EXCL, int(mode, 8))
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(staged, target)

    def read_text(self, path: str) -> str:
        with open(local_path(path), encoding="utf-8") as src:
            return src.read()


def error_text(err: BaseException) -> str:
    """One line saying what went wrong, the JVM's exception when py4j carries one."""
    java = getattr(err, "java_exception", None)
    text = str(java.toString()) if java is not None else str(err)
    return text.strip().splitlines()[0] if text.strip() else type(err).__name__
