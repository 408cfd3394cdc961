"""Fixtures of the hostile-client probes (loopback only, bounded loops).

- `start_server(tmp_path, **env)` / `stop_server` (hostile_support.py): a real `kscope serve`
  subprocess; `server_factory` starts any number and stops them after the test.
- `big_trace`: a simulated ftrace text of about a million events, made once per session
  (`kscope sim --export ftrace`, a few seconds).
- `big_server`: one server per session with `big_trace` uploaded: (server, trace id, token).
"""

import json
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import httpx
import pytest
from .hostile_support import KSCOPE, Server, start_server, stop_server

REPO = Path(__file__).resolve().parents[3]

# hackbench-like pipe ping-pong: 8 groups x 10 pairs x 1500 round trips ~ 1 M events.
BIG_WORKLOAD = {
    "name": "hostile-big",
    "description": "many short pipe round trips: a trace of about a million events for the hostile probes",
    "duration_ms": 400,
    "processes": [{"kind": "pipe_pairs", "comm": "hackbench", "groups": 8, "pairs_per_group": 10,
                   "messages": 1500, "work_us": 5}],
}


@pytest.fixture
def server_factory(tmp_path: Path) -> Iterator[Callable[..., Server]]:
    started: list[Server] = []

    def start(**env: Any) -> Server:
        server = start_server(tmp_path, **env)
        started.append(server)
        return server

    yield start
    for server in started:
        stop_server(server)


@pytest.fixture(scope="session")
def big_trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("hostile-trace")
    workload = folder / "workload.json"
    workload.write_text(json.dumps(BIG_WORKLOAD))
    out = folder / "big.txt"
    subprocess.run([str(KSCOPE), "sim", "--preset", "classroom-8", "--workload", str(workload),
                    "--until", "10s", "--no-hash", "--export", "ftrace", "-o", str(out)],
                   check=True, capture_output=True)
    return out


class Uploaded(NamedTuple):
    server: Server
    trace_id: str
    token: str
    events: int

    def headers(self) -> dict[str, str]:
        return {"X-Kscope-Token": self.token}


# Settings of the shared server: the defaults (the probes attack what users run).
BIG_SERVER_ENV: dict[str, Any] = {}


@pytest.fixture(scope="session")
def big_server(tmp_path_factory: pytest.TempPathFactory, big_trace: Path) -> Iterator[Uploaded]:
    server = start_server(tmp_path_factory.mktemp("hostile-server"), **BIG_SERVER_ENV)
    try:
        with open(big_trace, "rb") as body:
            r = httpx.post(server.url + "/api/traces?name=big.txt", content=body, timeout=300)
        assert r.status_code == 201, r.text
        doc = r.json()
        yield Uploaded(server, doc["id"], doc["token"], doc["events"])
    finally:
        stop_server(server)
