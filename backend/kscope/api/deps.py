"""Shared route dependencies: the trace store, ingest jobs, ingest threads and request gates of this app."""

import threading
from dataclasses import dataclass
from typing import Any

from fastapi import Request
from fastapi.concurrency import run_in_threadpool

from kscope.api.ingest_pool import IngestPool
from kscope.api.gate import Gate

from kscope.ingest.jobs import Jobs
from kscope.store.store import TraceStore

_lock = threading.Lock()


async def get_store(request: Request) -> TraceStore:
    """The app's TraceStore, opened on first use (apps that never touch traces create nothing).
    Async: once open it is handed out on the event loop, not from a worker thread each request
    (a storm of requests refused with 429 must not queue for threads). Opening it (connecting
    to the database, sweeping tmp claims) is slow, so it runs on a worker thread, never on the
    event loop: requests that arrive meanwhile wait for it there."""
    state = request.app.state
    store = getattr(state, "store", None)
    if store is not None:
        return store
    return await run_in_threadpool(_open_store, state)


def _open_store(state: Any) -> TraceStore:
    with _lock:
        if getattr(state, "store", None) is None:
            state.store = TraceStore(state.settings)
        return state.store


def get_ingest_pool(request: Request) -> IngestPool:
    """The app's ingest threads (api/ingest_pool.py), made on first use."""
    state = request.app.state
    with _lock:
        if getattr(state, "ingest_pool", None) is None:
            state.ingest_pool = IngestPool(state.settings)
        return state.ingest_pool


def get_jobs(request: Request) -> Jobs:
    state = request.app.state
    with _lock:
        if getattr(state, "jobs", None) is None:
            state.jobs = Jobs()
        return state.jobs


@dataclass
class Gates:
    """The app's gates (api/gate.py): SQL and event pages each on threads of their own."""

    sql: Gate
    events: Gate

    def close(self) -> None:
        self.sql.close()
        self.events.close()


def gates(request: Request) -> Gates:
    return gates_of(request.app.state)


def gates_of(state: Any) -> Gates:
    """The gates of an app, by its `state` (made on first use)."""
    with _lock:
        if getattr(state, "gates", None) is None:
            s = state.settings
            state.gates = Gates(
                sql=Gate("SQL", s.sql_max_concurrent, s.sql_queue, s.sql_per_token, "KSCOPE_SQL",
                         retry_after_s=2.0),
                events=Gate("events", s.events_max_concurrent, s.events_queue, s.events_per_token,
                            "KSCOPE_EVENTS", retry_after_s=1.0))
        return state.gates
