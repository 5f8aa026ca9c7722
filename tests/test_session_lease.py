"""Leases and the sweep of dead sessions' folders (local file system, no Spark)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid

from batchloader.session.filesystem import LocalFileSystem
from batchloader.session.lease import LEASE_FILE, Heartbeat, Lease, sweep, write_lease

FS = LocalFileSystem()


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _session_folder(root, lease: Lease | None) -> str:
    folder = root / (lease.session if lease else str(uuid.uuid4()))
    folder.mkdir()
    (folder / "table").mkdir()
    (folder / "table" / "part-0.parquet").write_bytes(b"x")
    if lease is not None:
        write_lease(FS, str(folder), lease)
    return str(folder)


def _lease(**changes) -> Lease:
    lease = Lease.mine(str(uuid.uuid4()))
    for key, value in changes.items():
        setattr(lease, key, value)
    return lease


def test_sweep_deletes_folders_of_ended_processes_and_stale_leases_only(tmp_path):
    dead = _session_folder(tmp_path, _lease(pid=_dead_pid()))
    stale = _session_folder(tmp_path, _lease(host="elsewhere", heartbeat=time.time() - 7200))
    alive = _session_folder(tmp_path, _lease())
    remote_fresh = _session_folder(tmp_path, _lease(host="elsewhere"))
    no_lease = _session_folder(tmp_path, None)
    (tmp_path / "not-a-session").mkdir()

    swept = sweep(FS, str(tmp_path), stale_after=3600)

    assert sorted(swept) == sorted([dead, stale])
    assert not os.path.exists(dead) and not os.path.exists(stale)
    for kept in (alive, remote_fresh, no_lease, str(tmp_path / "not-a-session")):
        assert os.path.isdir(kept)


def test_a_reused_pid_does_not_keep_a_dead_session_alive(tmp_path):
    reused = _session_folder(tmp_path, _lease(pid_start="1"))  # this pid, other start time
    assert sweep(FS, str(tmp_path)) == [reused]


def test_keep_protects_the_callers_own_session_and_dry_run_deletes_nothing(tmp_path):
    lease = _lease(pid=_dead_pid())
    mine = _session_folder(tmp_path, lease)
    assert sweep(FS, str(tmp_path), keep=frozenset({lease.session})) == []
    assert sweep(FS, str(tmp_path), dry_run=True) == [mine]
    assert os.path.isdir(mine)


def test_lease_file_is_owner_only_and_round_trips(tmp_path):
    lease = _lease()
    folder = _session_folder(tmp_path, lease)
    path = os.path.join(folder, LEASE_FILE)
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert Lease.from_json(FS.read_text(path)) == lease


def test_heartbeat_renews_the_lease(tmp_path):
    lease = _lease(heartbeat=time.time() - 7200)
    folder = _session_folder(tmp_path, lease)
    beat = Heartbeat(every=0.05)
    beat.add(FS, folder, lease)
    deadline = time.time() + 10
    while time.time() < deadline:
        renewed = Lease.from_json(FS.read_text(os.path.join(folder, LEASE_FILE)))
        if renewed.heartbeat > time.time() - 60:
            break
        time.sleep(0.05)
    beat.stop()
    assert renewed.heartbeat > time.time() - 60
    assert sweep(FS, str(tmp_path), stale_after=3600) == []


def test_cleanup_command_sweeps_by_hand(tmp_path):
    dead = _session_folder(tmp_path, _lease(pid=_dead_pid()))
    alive = _session_folder(tmp_path, _lease())
    out = subprocess.run(
        [sys.executable, "-m", "batchloader", "cleanup", str(tmp_path), "--dry-run"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert f"would delete {dead}" in out.stdout and os.path.isdir(dead)
    out = subprocess.run(
        [sys.executable, "-m", "batchloader", "cleanup", f"file://{tmp_path}"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "1 session folder(s) deleted" in out.stdout
    assert not os.path.exists(dead) and os.path.isdir(alive)


def test_cleanup_command_says_which_locations_are_not_folders(tmp_path):
    """A misspelt location (or a file) is not a workspace swept clean: the command says so
    on stderr and exits 1, after sweeping the locations that are folders."""
    dead = _session_folder(tmp_path, _lease(pid=_dead_pid()))
    (tmp_path / "a-file").write_text("x")
    missing = tmp_path / "no-such-folder"
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "batchloader",
            "cleanup",
            str(missing),
            str(tmp_path),
            str(tmp_path / "a-file"),
        ],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 1, out
    assert f"{missing}: no such folder" in out.stderr
    assert f"{tmp_path / 'a-file'}: not a folder" in out.stderr
    assert "1 session folder(s) deleted" in out.stdout and not os.path.exists(dead)


def test_a_lease_being_renewed_is_never_read_half_written(tmp_path):
    import threading

    lease = _lease()
    folder = _session_folder(tmp_path, lease)
    path = os.path.join(folder, LEASE_FILE)
    stop = threading.Event()

    def renew():
        while not stop.is_set():
            lease.heartbeat = time.time()
            write_lease(FS, folder, lease)

    writer = threading.Thread(target=renew)
    writer.start()
    try:
        for _ in range(2000):
            assert Lease.from_json(FS.read_text(path)).session == lease.session
    finally:
        stop.set()
        writer.join()
    assert [f for f in os.listdir(folder) if f.endswith(".tmp")] == []
