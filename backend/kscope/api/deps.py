"""Shared route dependencies: the trace store, ingest jobs and ingest threads of this app."""

import threading

from fastapi import Request

from kscope.api.ingest_pool import IngestPool
from kscope.ingest.jobs import Jobs
from kscope.store.store import TraceStore

_lock = threading.Lock()


def get_store(request: Request) -> TraceStore:
    """The app's TraceStore, opened on first use (apps that never touch traces create nothing)."""
    state = request.app.state
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
