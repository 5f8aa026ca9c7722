"""Leases: how a session folder says who owns it, and how folders of dead owners are swept.

Each session folder holds `_lease.json` (session id, host, pid, the process's start time and
a heartbeat the session renews). A folder is swept when its owner is gone: on the same host,
the process no longer exists (or the pid now belongs to another process); anywhere, the
heartbeat is older than `stale_after` seconds. Folders without a lease are never touched:
the workspace may hold other data.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
import uuid
from dataclasses import asdict, dataclass

from batchloader.session.filesystem import FileSystem, join

LEASE_FILE = "_lease.json"
STALE_AFTER = 3600.0
HEARTBEAT_EVERY = 60.0

log = logging.getLogger("batchloader.session")


def _process_start(pid: int) -> str | None:
    """The start time of a process (Linux /proc), to tell a reused pid from its first owner."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return fields[19] if len(fields) > 19 else None


def _process_state(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


@dataclass
class Lease:
    """Who owns a session folder, and when it last said so."""

    session: str
    host: str
    pid: int
    pid_start: str | None
    heartbeat: float

    @classmethod
    def mine(cls, session: str) -> Lease:
        """A lease for this process, renewed now."""
        pid = os.getpid()
        return cls(session, socket.gethostname(), pid, _process_start(pid), time.time())

    def to_json(self) -> str:
        """The lease as the JSON text its file holds."""
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Lease:
        """The lease a file's JSON text holds (`KeyError`/`ValueError` if it holds none)."""
        data = json.loads(text)
        return cls(
            session=str(data["session"]),
            host=str(data["host"]),
            pid=int(data["pid"]),
            pid_start=data.get("pid_start"),
            heartbeat=float(data["heartbeat"]),
        )

    def owner_gone(self, now: float, stale_after: float) -> str | None:
        """Why the owner is gone, or None while it may still be alive."""
        if self.host == socket.gethostname():
            if not _pid_alive(self.pid):
                return f"process {self.pid} on {self.host} has ended"
            start = _process_start(self.pid)
            if self.pid_start and start and start != self.pid_start:
                return f"process {self.pid} on {self.host} has ended (pid reused)"
        age = now - self.heartbeat
        if age > stale_after:
            return f"no heartbeat for {age:.0f} s"
        return None


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return _process_state(pid) not in ("Z", "X")


def write_lease(fs: FileSystem, folder: str, lease: Lease) -> None:
    """Write (or renew) the lease of a session folder, readable by its owner only."""
    fs.write_text(join(folder, LEASE_FILE), lease.to_json(), "600")


def sweep(
    fs: FileSystem,
    location: str,
    stale_after: float = STALE_AFTER,
    keep: frozenset[str] = frozenset(),
    dry_run: bool = False,
) -> list[str]:
    """Delete the session folders under `location` whose owner is gone; return them.

    `keep` names session ids never to delete (the caller's own)."""
    if not fs.exists(location):
        return []
    swept = []
    now = time.time()
    for folder in fs.child_dirs(location):
        name = folder.rstrip("/").rsplit("/", 1)[-1]
        if not _is_uuid(name) or name in keep:
            continue
        lease_path = join(folder, LEASE_FILE)
        try:
            if not fs.exists(lease_path):
                continue
            lease = Lease.from_json(fs.read_text(lease_path))
        except (OSError, ValueError, KeyError) as err:
            log.warning("Unreadable lease [%s] left alone: %s", lease_path, err)
            continue
        reason = lease.owner_gone(now, stale_after)
        if reason is None:
            continue
        if not dry_run:
            fs.delete(folder)
            log.info(
                "Deleted session temporary location [%s] from file system [%s] (%s)",
                folder,
                fs.uri,
                reason,
            )
        swept.append(folder)
    return swept


def _is_uuid(name: str) -> bool:
    try:
        return str(uuid.UUID(name)) == name
    except ValueError:
        return False


class Heartbeat:
    """A daemon thread that renews a set of leases until stopped."""

    def __init__(self, every: float = HEARTBEAT_EVERY) -> None:
        self._every = every
        self._stop = threading.Event()
        self._leases: list[tuple[FileSystem, str, Lease]] = []
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def add(self, fs: FileSystem, folder: str, lease: Lease) -> None:
        """Renew `lease` in `folder` from now on."""
        with self._lock:
            self._leases.append((fs, folder, lease))
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="batchloader-lease", daemon=True
                )
                self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self._every):
            with self._lock:
                leases = list(self._leases)
            for fs, folder, lease in leases:
                lease.heartbeat = time.time()
                try:
                    write_lease(fs, folder, lease)
                except Exception as err:  # a renewal failing must not kill the session
                    log.warning("Could not renew the lease of [%s]: %s", folder, err)

    def stop(self) -> None:
        """Stop renewing (the session is closing); waits for a renewal in progress."""
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=30)
