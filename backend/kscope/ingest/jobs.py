"""Ingest jobs: progress of each ingest by trace id, for the UI's progress bar.

A job is created when an upload starts (phase "upload"), then follows the
pipeline's phases (decompress, decode, summaries) to "done" or "error". Jobs
live in memory (the process that ingests is the one that serves progress);
finished ones are forgotten after an hour.
"""

import threading
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from kscope.core.scrub import scrub_paths
from kscope.ingest.pipeline import AttachedTopology, Ingested, ingest
from kscope.ingest.sources import InputError
from kscope.store.store import TraceStore

KEEP_FINISHED_S = 3600.0


@dataclass
class Job:
    trace_id: str
    owner_hash: str
    name: str
    phase: str = "upload"  # upload, decompress, decode, summaries, done, error
    bytes_done: int = 0
    bytes_total: int = 0
    events: int = 0
    error: str | None = None
    status: int | None = None  # HTTP status of the error
    updated: float = field(default_factory=time.monotonic)

    @property
    def finished(self) -> bool:
        return self.phase in ("done", "error")

    def public(self) -> dict[str, Any]:
        data = asdict(self)
        del data["owner_hash"], data["updated"], data["status"]
        data["fraction"] = round(self.bytes_done / self.bytes_total, 4) if self.bytes_total else None
        return data


class Jobs:
    """The jobs of this process, by trace id (thread-safe)."""

    def __init__(self) -> None:
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()

    def start(self, trace_id: str, owner_hash: str, name: str, bytes_total: int = 0) -> Job:
        with self._lock:
            now = time.monotonic()
            for key in [k for k, j in self._jobs.items() if j.finished and now - j.updated > KEEP_FINISHED_S]:
                del self._jobs[key]
            job = self._jobs[trace_id] = Job(trace_id, owner_hash, name, bytes_total=bytes_total)
            return job

    def get(self, trace_id: str) -> Job | None:
        """A snapshot of the job (a copy: the ingest thread goes on updating the original)."""
        with self._lock:
            job = self._jobs.get(trace_id)
            return replace(job) if job is not None else None

    def update(self, trace_id: str, phase: str, done: int, total: int, events: int) -> None:
        with self._lock:
            job = self._jobs.get(trace_id)
            if job is not None:
                job.phase, job.bytes_done, job.bytes_total, job.events = phase, done, total, events
                job.updated = time.monotonic()

    def fail(self, trace_id: str, message: str, status: int) -> None:
        with self._lock:
            job = self._jobs.get(trace_id)
            if job is not None:
                job.phase, job.error, job.status, job.updated = "error", message, status, time.monotonic()

    def run(self, store: TraceStore, path: Path, name: str, token: str, trace_id: str,
            topology: AttachedTopology | None = None) -> Ingested:
        """Ingests path under trace_id (with a topology file given beside it), reporting progress;
        removes path afterwards."""
        try:
            return ingest(store, path, name=name, token=token, trace_id=trace_id, topology=topology,
                          progress=lambda phase, done, total, events:
                          self.update(trace_id, phase, done, total, events))
        except InputError as err:
            self.fail(trace_id, scrub_paths(str(err), store.settings), err.status)
            raise
        except Exception as err:
            self.fail(trace_id, scrub_paths(f"{name}: ingest failed: {err}", store.settings), 500)
            raise
        finally:
            path.unlink(missing_ok=True)
