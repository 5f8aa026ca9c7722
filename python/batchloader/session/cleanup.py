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


def cleanup(locations: list[str], stale_after: float, dry_run: bool = False) -> list[str]:
    """Sweep each temporary workspace location; the session folders deleted (or that would
    be, with `dry_run`)."""
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    swept = []
    for location in locations:
        swept += sweep(_file_system(location), location, stale_after, dry_run=dry_run)
    return swept
