"""Shared paths and helpers of the backend tests."""

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
WORKLOADS = REPO / "wasm-core" / "workloads"
KSCOPE = Path(sys.executable).parent / "kscope"


@pytest.fixture
def workloads() -> Path:
    """wasm-core/workloads: the example workloads the C tests also run."""
    return WORKLOADS


CORPUS = REPO.parent / "shared" / "corpus" / "public"


def registered_sim_algos() -> set[str]:
    """Every `kscope sim --algo` value a registered model runs as (name:variant): what
    "auto" may resolve to when a workload gives it a model to run (kscope.models.registry)."""
    from kscope.models import registry

    return {algo for model in registry.models() for algo in model.sim_algos}


@pytest.fixture(scope="session")
def sim_trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """hackbench-2g on classroom-8 exported as ftrace text (32176 events, 8 CPUs)."""
    from kscope import simulate

    out = tmp_path_factory.mktemp("sim") / "hackbench.txt"
    simulate.run(simulate.SimRequest(topology="classroom-8", workload=WORKLOADS / "hackbench-2g.json",
                                     seed=0, until_ns=2_000_000_000, hash_events=False), export_to=out)
    return out


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def postgres_url() -> str:
    """A private PostgreSQL cluster on 127.0.0.1 for this session (scripts/pg-test-cluster.sh)."""
    import shutil
    import subprocess
    import tempfile

    script = REPO / "scripts" / "pg-test-cluster.sh"
    # Directly under /tmp: pytest's own tmp dirs are 0700, out of reach of the postgres user.
    base = Path(tempfile.mkdtemp(prefix="kscope-pg-"))
    port = _free_port()
    start = subprocess.run([str(script), "start", str(base), str(port)], capture_output=True, text=True)
    if start.returncode != 0:
        reason = f"PostgreSQL unavailable: {start.stderr.strip() or start.stdout.strip()}"
        print(reason)
        pytest.skip(reason)
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([str(script), "stop", str(base), str(port)], capture_output=True, text=True)
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def redis_url():  # type: ignore[no-untyped-def]
    """A private redis-server for a module's tests (rooms_support.redis_server)."""
    from rooms_support import redis_server

    with redis_server() as url:
        yield url


@pytest.fixture(params=["memory", "redis"])
def settings_for(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    """Settings(**overrides) for each room broker: in-process memory, and Redis."""
    from kscope.core.config import Settings

    def make(**overrides):  # type: ignore[no-untyped-def]
        if request.param == "redis":
            return Settings(redis_url=request.getfixturevalue("redis_url"), **overrides)
        return Settings(**overrides)
    return make
