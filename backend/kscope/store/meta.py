"""Trace metadata rows: one interface over SQLite (embedded, the default) and PostgreSQL.

Plain DB-API: the two back ends differ in their driver, the parameter marker and
the type of the JSON column, nothing else. `open_meta_store(settings)` picks one:
PostgreSQL when `KSCOPE_DATABASE_URL` is a postgresql:// URL, else
<data_dir>/meta.sqlite.
"""

import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

_COLUMNS = ("id", "name", "format", "created_at", "owner_hash", "events", "cpus", "t_first_ns",
            "t_last_ns", "tasks", "kernel", "malformed_lines", "bytes_in", "bytes_stored", "summary")


@dataclass
class TraceRecord:
    """One ingested trace's metadata (summary: the full `kscope ingest --json` document)."""

    id: str
    name: str
    format: str
    created_at: str
    owner_hash: str
    events: int
    cpus: int
    t_first_ns: int
    t_last_ns: int
    tasks: int
    kernel: str
    malformed_lines: int
    bytes_in: int
    bytes_stored: int
    summary: dict[str, Any] = field(default_factory=dict)


def _schema(big: str, text_json: str) -> str:
    return f"""CREATE TABLE IF NOT EXISTS traces (
        id TEXT PRIMARY KEY, name TEXT NOT NULL, format TEXT NOT NULL, created_at TEXT NOT NULL,
        owner_hash TEXT NOT NULL, events {big} NOT NULL, cpus INTEGER NOT NULL,
        t_first_ns {big} NOT NULL, t_last_ns {big} NOT NULL, tasks INTEGER NOT NULL,
        kernel TEXT NOT NULL, malformed_lines {big} NOT NULL, bytes_in {big} NOT NULL,
        bytes_stored {big} NOT NULL, summary {text_json} NOT NULL)"""


# At most one read-only share per trace (a new one replaces it): the token's hash, never the token.
_SHARES_SCHEMA = """CREATE TABLE IF NOT EXISTS trace_shares (
    trace_id TEXT PRIMARY KEY, token_hash TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL)"""


@dataclass
class ShareRecord:
    """A trace's read-only share: who holds the token may read the trace, not change it."""

    trace_id: str
    token_hash: str
    created_at: str


class MetaStore:
    """Rows of the `traces` table; thread-safe (one connection behind a lock)."""

    backend = "base"
    _marker = "?"

    def __init__(self, conn: Any) -> None:
        self._conn = conn
        self._lock = threading.Lock()

    @contextmanager
    def _cursor(self) -> Iterator[Any]:
        with self._lock:
            cur = self._conn.cursor()
            try:
                yield cur
                self._conn.commit()
            except BaseException:
                self._conn.rollback()
                raise
            finally:
                cur.close()

    def _sql(self, text: str) -> str:
        return text.replace("?", self._marker)

    def add(self, rec: TraceRecord) -> None:
        row = asdict(rec)
        row["summary"] = json.dumps(rec.summary)
        marks = ", ".join("?" for _ in _COLUMNS)
        with self._cursor() as cur:
            cur.execute(self._sql(f"INSERT INTO traces ({', '.join(_COLUMNS)}) VALUES ({marks})"),
                        [row[c] for c in _COLUMNS])

    def get(self, trace_id: str) -> TraceRecord | None:
        with self._cursor() as cur:
            cur.execute(self._sql(f"SELECT {', '.join(_COLUMNS)} FROM traces WHERE id = ?"), [trace_id])
            row = cur.fetchone()
        return _record(row) if row else None

    def list(self, owner_hash: str | None = None) -> list[TraceRecord]:
        """Every trace (or only owner_hash's), newest first."""
        query = f"SELECT {', '.join(_COLUMNS)} FROM traces"
        params: list[Any] = []
        if owner_hash is not None:
            query += " WHERE owner_hash = ?"
            params.append(owner_hash)
        with self._cursor() as cur:
            cur.execute(self._sql(query + " ORDER BY created_at DESC, id"), params)
            rows = cur.fetchall()
        return [_record(r) for r in rows]

    def delete(self, trace_id: str) -> bool:
        with self._cursor() as cur:
            cur.execute(self._sql("DELETE FROM trace_shares WHERE trace_id = ?"), [trace_id])
            cur.execute(self._sql("DELETE FROM traces WHERE id = ?"), [trace_id])
            return cur.rowcount > 0

    # -- read-only shares -------------------------------------------------------
    def set_share(self, share: ShareRecord) -> None:
        """The trace's share is now this one (any previous one stops working, in the same transaction)."""
        with self._cursor() as cur:
            cur.execute(self._sql("DELETE FROM trace_shares WHERE trace_id = ?"), [share.trace_id])
            cur.execute(self._sql("INSERT INTO trace_shares (trace_id, token_hash, created_at) VALUES (?, ?, ?)"),
                        [share.trace_id, share.token_hash, share.created_at])

    def share_of(self, trace_id: str) -> ShareRecord | None:
        with self._cursor() as cur:
            cur.execute(self._sql("SELECT trace_id, token_hash, created_at FROM trace_shares WHERE trace_id = ?"),
                        [trace_id])
            row = cur.fetchone()
        return ShareRecord(*row) if row else None

    def delete_share(self, trace_id: str) -> bool:
        with self._cursor() as cur:
            cur.execute(self._sql("DELETE FROM trace_shares WHERE trace_id = ?"), [trace_id])
            return cur.rowcount > 0

    def close(self) -> None:
        with self._lock:
            self._conn.close()


def _record(row: Any) -> TraceRecord:
    values = dict(zip(_COLUMNS, row))
    if isinstance(values["summary"], str):
        values["summary"] = json.loads(values["summary"])
    return TraceRecord(**values)


class SqliteMetaStore(MetaStore):
    backend = "sqlite"

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(path), check_same_thread=False, timeout=30)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(_schema("INTEGER", "TEXT"))
        conn.execute(_SHARES_SCHEMA)
        conn.commit()
        super().__init__(conn)


class PostgresMetaStore(MetaStore):
    backend = "postgresql"
    _marker = "%s"

    def __init__(self, url: str) -> None:
        import psycopg

        conn = psycopg.connect(url)
        with conn.cursor() as cur:
            cur.execute(_schema("BIGINT", "JSONB"))
            cur.execute(_SHARES_SCHEMA)
        conn.commit()
        super().__init__(conn)


def open_meta_store(data_dir: Path, database_url: str = "") -> MetaStore:
    """PostgreSQL when database_url is a postgresql:// URL, else SQLite under data_dir."""
    if database_url.startswith(("postgresql://", "postgres://")):
        return PostgresMetaStore(database_url)
    if database_url:
        raise ValueError(f"KSCOPE_DATABASE_URL: only postgresql:// URLs are supported, got {database_url!r}")
    return SqliteMetaStore(data_dir / "meta.sqlite")
