"""`python -m batchloader cleanup LOCATION...`: sweep session folders whose owner is gone, by
hand (a session also sweeps its workspace when it opens)."""

from __future__ import annotations

import logging
from urllib.parse import urlparse

from batchloader.session.filesystem import FileSystem, HadoopFileSystem, LocalFileSystem
from batchloader.session.lease import sweep


def _file_system(location: str) -> FileSystem:
    if urlparse(location).scheme in ("", "file"):
        return LocalFileSystem()
    from batchloader.spark import local_session

    return HadoopFileSystem(local_session(), location)


def cleanup(
    locations: list[str], stale_after: float, dry_run: bool = False
) -> tuple[list[str], list[str]]:
    """Sweep each temporary workspace location: the session folders deleted (or that would
    be, with `dry_run`), and what is wrong with each location that is not a folder (nothing
    there, or a file: a misspelt location must not pass for a clean one)."""
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    swept, problems = [], []
    for location in locations:
        fs = _file_system(location)
        if not fs.exists(location):
            problems.append(f"{location}: no such folder")
        elif not fs.is_dir(location):
            problems.append(f"{location}: not a folder")
        else:
            swept += sweep(fs, location, stale_after, dry_run=dry_run)
    return swept, problems
