"""TraceStore: the files of each trace plus its metadata row, and read-only SQL over them.

Reading needs pyarrow, numpy and DuckDB; adding a trace (`kscope ingest`) needs none of
them, so they are imported where a read happens, not here.
"""

import datetime as dt
import hashlib
import secrets
import shutil
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kscope.core.config import Settings
from kscope.store import tmp_claims
from kscope.store.errors import SqlRefused, SqlTimeout, SqlTooBig, TraceNotFound  # noqa: F401 (re-exported)
from kscope.store.meta import MetaStore, ShareRecord, TraceRecord, open_meta_store

if TYPE_CHECKING:
    import pyarrow as pa

EVENTS_FILE = "events.parquet"  # written by kscope-ingest (wasm-core/tools/ingest)
LOD_FILE = "lod.npz"




def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(24)


def new_trace_id() -> str:
    return uuid.uuid4().hex[:16]


class TraceStore:
    """Traces under Settings.data_dir, metadata in SQLite or PostgreSQL."""

    def __init__(self, settings: Settings, meta: MetaStore | None = None) -> None:
        self.settings = settings
        self.root = Path(settings.data_dir)
        (self.root / "traces").mkdir(parents=True, exist_ok=True)
        (self.root / "tmp").mkdir(parents=True, exist_ok=True)
        # Ingests in progress hold a lock per id under tmp/; what no live process holds is
        # left over from a crash (kill -9 mid-ingest): removed now (store/tmp_claims.py).
        self.claims = tmp_claims.Claims(self.root / "tmp")
        tmp_claims.sweep(self.root / "tmp")
        self.meta = meta or open_meta_store(self.root, settings.database_url)

    # -- layout ---------------------------------------------------------------
    def trace_dir(self, trace_id: str) -> Path:
        return self.root / "traces" / trace_id

    def new_work_dir(self, trace_id: str) -> Path:
        """A fresh folder under tmp/ for an ingest in progress (its id claimed: self.claims)."""
        work = self.root / "tmp" / trace_id
        work.mkdir(parents=True)
        return work

    def commit(self, work: Path, record: TraceRecord) -> None:
        """Moves a finished ingest into place, then adds its metadata row (last)."""
        final = self.trace_dir(record.id)
        work.rename(final)
        try:
            self.meta.add(record)
        except BaseException:
            shutil.rmtree(final, ignore_errors=True)
            raise

    def abandon(self, work: Path) -> None:
        shutil.rmtree(work, ignore_errors=True)

    # -- reads ----------------------------------------------------------------
    def get(self, trace_id: str, token: str | None = None) -> TraceRecord:
        """The trace; with a token, only if the token owns it (TraceNotFound otherwise)."""
        rec = self.meta.get(trace_id) if _valid_id(trace_id) else None
        if rec is None or (token is not None and not secrets.compare_digest(rec.owner_hash, hash_token(token))):
            raise TraceNotFound(f"no trace {trace_id!r}")
        return rec

    def readable(self, trace_id: str, token: str | None, share: str | None) -> TraceRecord:
        """The trace if `token` owns it or `share` is its current read-only share token
        (TraceNotFound otherwise). Checked against the database on every call, so a
        revoked share stops working at once."""
        if token:
            try:
                return self.get(trace_id, token)
            except TraceNotFound:
                if not share:
                    raise
        if share and _valid_id(trace_id):
            current = self.meta.share_of(trace_id)
            if current is not None and secrets.compare_digest(current.token_hash, hash_token(share)):
                return self.get(trace_id)
        raise TraceNotFound(f"no trace {trace_id!r}")

    def create_share(self, trace_id: str, token: str | None = None) -> tuple[str, ShareRecord]:
        """A new read-only share token for the trace (its owner's `token`; None: the operator's
        CLI). It replaces the trace's previous share. Returns (token, record)."""
        rec = self.get(trace_id, token) if token is not None else self.get(trace_id)
        share = new_token()
        record = ShareRecord(trace_id=rec.id, token_hash=hash_token(share),
                             created_at=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"))
        self.meta.set_share(record)
        return share, record

    def share_of(self, trace_id: str, token: str | None = None) -> ShareRecord | None:
        rec = self.get(trace_id, token) if token is not None else self.get(trace_id)
        return self.meta.share_of(rec.id)

    def revoke_share(self, trace_id: str, token: str | None = None) -> bool:
        """Ends the trace's share (True if there was one); its links 404 from the next request."""
        rec = self.get(trace_id, token) if token is not None else self.get(trace_id)
        return self.meta.delete_share(rec.id)

    def list_traces(self, token: str | None = None) -> list[TraceRecord]:
        return self.meta.list(None if token is None else hash_token(token))

    def delete(self, trace_id: str, token: str | None = None) -> None:
        rec = self.get(trace_id, token)
        self.meta.delete(rec.id)
        shutil.rmtree(self.trace_dir(rec.id), ignore_errors=True)

    def events(self, trace_id: str, t0: int | None = None, t1: int | None = None,
               cpus: list[int] | None = None, types: list[str] | None = None,
               limit: int | None = None) -> "pa.Table":
        from kscope.store import events as ev_files

        limit = min(limit or self.settings.events_max_rows, self.settings.events_max_rows)
        return ev_files.read_range(self.trace_dir(trace_id) / EVENTS_FILE, t0, t1, cpus, types, limit)

    def events_page(self, trace_id: str, t0: int | None, t1: int | None, cpus: list[int] | None,
                    types: list[str] | None, limit: int, cursor: str | None) -> "tuple[pa.Table, str | None]":
        """At most `limit` events from `cursor` (or t0) on, and the next page's cursor (store/events.py)."""
        from kscope.store import events as ev_files

        return ev_files.read_page(self.trace_dir(trace_id) / EVENTS_FILE, t0, t1, cpus, types, limit, cursor,
                                  max_skip=self.settings.events_max_rows)

    def summary(self, rec: TraceRecord, t0: int | None, t1: int | None, buckets: int) -> dict[str, Any]:
        t0 = rec.t_first_ns if t0 is None else t0
        t1 = rec.t_last_ns + 1 if t1 is None else t1
        if t1 <= t0:
            raise ValueError(f"empty time range: t0={t0} >= t1={t1}")
        from kscope.store import lod

        cpus, edges, occ = lod.query(self.trace_dir(rec.id) / LOD_FILE, t0, t1, buckets)
        return {"trace_id": rec.id, "t0_ns": t0, "t1_ns": t1, "buckets": buckets,
                "bucket_ns": (t1 - t0) / buckets, "cpus": cpus,
                "occupancy": [[round(float(v), 4) for v in row] for row in occ]}

    def sql(self, trace_id: str, query: str, timeout_s: float | None = None,
            max_rows: int | None = None) -> dict[str, Any]:
        """Runs one read-only SELECT against a DuckDB view `events` of the trace (store/sql.py)."""
        from kscope.store.sql import run_sql

        return run_sql(self.trace_dir(trace_id) / EVENTS_FILE, query, *self._sql_limits(timeout_s, max_rows))

    def sql_json(self, trace_id: str, query: str) -> bytes:
        """The same, as the API's encoded JSON document, run in a child process under a hard
        memory limit (store/sql_process.py)."""
        from kscope.store.sql_process import run_sql_isolated

        return run_sql_isolated(self.trace_dir(trace_id) / EVENTS_FILE, query, *self._sql_limits(None, None))

    def _sql_limits(self, timeout_s: float | None, max_rows: int | None) -> tuple[float, int, int, int]:
        s = self.settings
        return (timeout_s or s.sql_timeout_s, max_rows or s.sql_max_rows, s.sql_max_bytes, s.sql_memory_bytes)

    def close(self) -> None:
        self.meta.close()


def _valid_id(trace_id: str) -> bool:
    return 0 < len(trace_id) <= 64 and all(c in "0123456789abcdef" for c in trace_id)
