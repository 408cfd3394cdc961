"""Route dependencies (kscope/api/deps.py): the trace store is opened on first use, on a
worker thread, never on the event loop (opening connects to the database and sweeps the
tmp claims: on the loop that would stall every request, /api/health included)."""

import asyncio
from pathlib import Path

from fastapi.testclient import TestClient

from kscope.api import deps
from kscope.api.app import create_app
from kscope.core.config import Settings


def test_the_store_opens_once_and_off_the_event_loop(tmp_path: Path, monkeypatch) -> None:
    opened: list[bool] = []
    real = deps.TraceStore

    def opening(settings: Settings) -> deps.TraceStore:
        try:
            asyncio.get_running_loop()
            opened.append(True)   # on the event loop's thread
        except RuntimeError:
            opened.append(False)  # a worker thread
        return real(settings)

    monkeypatch.setattr(deps, "TraceStore", opening)
    settings = Settings(data_dir=tmp_path / "data", frontend_dist=tmp_path / "dist")
    with TestClient(create_app(settings)) as client:
        for _ in range(3):
            assert client.get("/api/traces", headers={"X-Kscope-Token": "t" * 32}).status_code == 200
    assert opened == [False]
