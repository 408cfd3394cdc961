"""Who owns what under <data_dir>/tmp/: a lock file per ingest, and the sweep of orphans.

An ingest in progress has up to two entries in tmp/: `upload-<id>` (the body as
received) and `<id>/` (the work folder kscope-ingest writes). Before either exists,
the process doing the ingest creates `<id>.lock` and holds an exclusive flock on it
until the ingest has finished and its entries are gone. The kernel drops a flock when
its process dies, however it dies (kill -9 included), so:

    an entry whose lock nobody holds belongs to no live process: it is an orphan.

`sweep` (run when a TraceStore opens, i.e. at a server's start-up and by `kscope
ingest`) removes the orphans: for each lock it can take without waiting it removes
that ingest's entries, then the lock file. Several `kscope serve` processes may share
a data dir: a live process's ingests are locked, so another's sweep passes them by.
(flock is per host; a data dir shared over NFS between hosts is not supported.)
Entries with no lock file at all (left by versions before locks, issue 20 finding 5)
are removed once older than ORPHAN_AGE_S, so a lock being created right now is not raced.

Lock file protocol (the usual one): open, flock, then check the path still names the
file we locked (a sweeper may have removed it in between: then try again). Only a
holder removes a lock file, and removes it before unlocking.
"""

import fcntl
import os
import shutil
import threading
import time
from pathlib import Path

LOCK_SUFFIX = ".lock"
UPLOAD_PREFIX = "upload-"
ORPHAN_AGE_S = 600.0


def _entries(tmp: Path, trace_id: str) -> list[Path]:
    return [tmp / f"{UPLOAD_PREFIX}{trace_id}", tmp / trace_id]


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def _lock(path: Path, wait: bool) -> int | None:
    """An fd holding an exclusive flock on `path` (created if missing), or None if another
    process holds it (wait=False)."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            os.close(fd)
            return None
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(path))
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)  # removed (or replaced) while we waited: lock the new one
        if not wait:
            return None


class Claims:
    """This process's ingest claims under one tmp/ folder (thread-safe, re-entrant by id)."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self._held: dict[str, tuple[int, int]] = {}  # id -> (fd, holders)
        self._mutex = threading.Lock()

    def claim(self, trace_id: str) -> None:
        """Takes (or re-takes) the lock of `trace_id`'s entries before they are created."""
        with self._mutex:
            held = self._held.get(trace_id)
            if held is not None:
                self._held[trace_id] = (held[0], held[1] + 1)
                return
            fd = _lock(self.tmp / f"{trace_id}{LOCK_SUFFIX}", wait=True)
            assert fd is not None
            self._held[trace_id] = (fd, 1)

    def release(self, trace_id: str) -> None:
        """Drops one hold; the last one removes what is left of the ingest's entries and the lock."""
        with self._mutex:
            held = self._held.get(trace_id)
            if held is None:
                return
            fd, holders = held
            if holders > 1:
                self._held[trace_id] = (fd, holders - 1)
                return
            del self._held[trace_id]
            for entry in _entries(self.tmp, trace_id):
                _remove(entry)
            (self.tmp / f"{trace_id}{LOCK_SUFFIX}").unlink(missing_ok=True)
            os.close(fd)

    def held(self) -> list[str]:
        with self._mutex:
            return sorted(self._held)


def sweep(tmp: Path, now: float | None = None) -> list[str]:
    """Removes the ingests under `tmp` that no live process owns; the names removed."""
    now = time.time() if now is None else now
    removed: list[str] = []
    try:
        names = sorted(os.listdir(tmp))
    except FileNotFoundError:
        return removed
    locked_ids = {n[:-len(LOCK_SUFFIX)] for n in names if n.endswith(LOCK_SUFFIX)}
    for trace_id in sorted(locked_ids):
        lock_path = tmp / f"{trace_id}{LOCK_SUFFIX}"
        fd = _lock(lock_path, wait=False)
        if fd is None:
            continue  # a live process is ingesting it
        try:
            for entry in _entries(tmp, trace_id):
                if entry.exists() or entry.is_symlink():
                    _remove(entry)
                    removed.append(entry.name)
            lock_path.unlink(missing_ok=True)
            removed.append(lock_path.name)
        finally:
            os.close(fd)
    for name in names:
        if name.endswith(LOCK_SUFFIX):
            continue
        trace_id = name[len(UPLOAD_PREFIX):] if name.startswith(UPLOAD_PREFIX) else name
        if trace_id in locked_ids:
            continue
        path = tmp / name
        try:
            age = now - path.lstat().st_mtime
        except FileNotFoundError:
            continue
        if age > ORPHAN_AGE_S:
            _remove(path)
            removed.append(name)
    return removed
