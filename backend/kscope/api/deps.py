"""Shared route dependencies: the trace store and ingest jobs of this app."""

import threading

from fastapi import Request

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


def get_jobs(request: Request) -> Jobs:
    state = request.app.state
    with _lock:
        if getattr(state, "jobs", None) is None:
            state.jobs = Jobs()
        return state.jobs
