"""Issue 20, finding 5: a crash mid-ingest.

- kill -9 of the server while kscope-ingest runs: the child used to go on under PID 1 for
  seconds, and tmp/upload-<id> plus a half-written tmp/<id>/ stayed forever. Now the child
  dies with the server (PR_SET_PDEATHSIG) and the next start-up sweeps tmp/.
- kill -9 of the child alone: the client used to get a bare `500 Internal Server Error`;
  now the answer says the ingest process died, and of which signal.

Real `kscope serve` processes on loopback, a ~100 MB trace made here."""

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from kscope.bench.abuse_bench import write_ftrace
from kscope.store import tmp_claims

from .hostile_support import alive, children, start_server, wait_for

# The child must be gone this soon after its server is killed.
CHILD_GONE_S = 1.0


@pytest.fixture(scope="module")
def big_trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_ftrace(tmp_path_factory.mktemp("big") / "big.txt", events=600_000)


def _ingest_child(server_pid: int, timeout: float = 30.0) -> int:
    found: list[int] = []
    took = wait_for(lambda: bool(found.extend(children(server_pid, "kscope-ingest")) or found), timeout)
    assert took is not None, "kscope-ingest never started"
    return found[0]


def test_kill_9_server_mid_ingest_child_dies_and_tmp_is_swept(big_trace: Path, tmp_path: Path) -> None:
    server = start_server(tmp_path)
    data = server.data_dir
    try:
        with open(big_trace, "rb") as body:
            r = httpx.post(f"{server.url}/api/traces", params={"name": "big.txt", "background": "true"},
                           content=body, timeout=60)
        assert r.status_code == 202, r.text
        trace_id = r.json()["id"]
        child = _ingest_child(server.proc.pid)
        # Hold the child still while its server dies: a child between progress lines (e.g. writing
        # the summaries) writes nothing to its server's pipes for seconds, so no SIGPIPE stops it;
        # stopped, it stands for that case every time. SIGKILL (the parent-death signal) ends a
        # stopped process too; without it the child would stay.
        os.kill(child, signal.SIGSTOP)
        try:
            os.kill(server.proc.pid, signal.SIGKILL)
            server.proc.wait()
            gone = wait_for(lambda: not alive(child), CHILD_GONE_S * 3)
        finally:
            if alive(child):
                os.kill(child, signal.SIGKILL)
        print(f"kscope-ingest {child} gone {gone} s after kill -9 of its server")
        assert gone is not None and gone < CHILD_GONE_S, f"kscope-ingest still there {CHILD_GONE_S * 3} s after its server died"
        left = sorted(p.name for p in (data / "tmp").iterdir())
        assert f"upload-{trace_id}" in left and trace_id in left, left  # what the crash left behind
    finally:
        server.stop()
    again = start_server(tmp_path)
    try:
        assert httpx.get(f"{again.url}/api/health", timeout=10).status_code == 200
        assert sorted(p.name for p in (data / "tmp").iterdir()) == []
        assert not (data / "traces" / trace_id).exists()
    finally:
        again.stop()


def test_kill_9_of_the_child_is_named_to_the_client(big_trace: Path, tmp_path: Path) -> None:
    server = start_server(tmp_path)
    data = server.data_dir
    try:
        answer: dict[str, httpx.Response] = {}

        def upload() -> None:
            with open(big_trace, "rb") as body:
                answer["r"] = httpx.post(f"{server.url}/api/traces", params={"name": "big.txt"},
                                         content=body, timeout=120)

        t = threading.Thread(target=upload)
        t.start()
        child = _ingest_child(server.proc.pid)
        os.kill(child, signal.SIGKILL)
        t.join(60)
        r = answer["r"]
        assert r.status_code == 500, r.text
        detail = r.json()["detail"]
        assert "big.txt" in detail and "kscope-ingest" in detail, detail
        assert "killed by signal 9 (SIGKILL)" in detail and "nothing was stored" in detail, detail
        assert httpx.get(f"{server.url}/api/health", timeout=10).status_code == 200
        assert sorted(p.name for p in (data / "tmp").iterdir()) == []
    finally:
        server.stop()


_HOLDER = """
import sys, time
from pathlib import Path
from kscope.store.tmp_claims import Claims
claims = Claims(Path(sys.argv[1]))
claims.claim("abc123")
(Path(sys.argv[1]) / "upload-abc123").write_bytes(b"x")
(Path(sys.argv[1]) / "abc123").mkdir()
print("held", flush=True)
time.sleep(60)
"""


def test_sweep_spares_a_live_process_ingest_and_takes_a_dead_one(tmp_path: Path) -> None:
    """Two servers on one data dir: one's start-up sweep must not remove the other's ingest."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(tmp)], stdout=subprocess.PIPE)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
        assert tmp_claims.sweep(tmp) == []
        assert sorted(p.name for p in tmp.iterdir()) == ["abc123", "abc123.lock", "upload-abc123"]
    finally:
        holder.kill()
        holder.wait()
    assert sorted(tmp_claims.sweep(tmp)) == ["abc123", "abc123.lock", "upload-abc123"]
    assert list(tmp.iterdir()) == []


def test_sweep_removes_old_unlocked_leftovers_only(tmp_path: Path) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    (tmp / "upload-old").write_bytes(b"x")
    (tmp / "oldwork").mkdir()
    (tmp / "upload-new").write_bytes(b"x")
    past = time.time() - 2 * tmp_claims.ORPHAN_AGE_S
    os.utime(tmp / "upload-old", (past, past))
    os.utime(tmp / "oldwork", (past, past))
    assert sorted(tmp_claims.sweep(tmp)) == ["oldwork", "upload-old"]
    assert [p.name for p in tmp.iterdir()] == ["upload-new"]


def test_ingest_program_refuses_to_start_when_its_parent_is_already_gone(tmp_path: Path) -> None:
    """The race PR_SET_PDEATHSIG alone misses: the parent died before the child set it up. The
    program is told its parent's pid and checks getppid() right after."""
    from kscope.core.config import Settings

    program = Settings().ingest_program
    trace = write_ftrace(tmp_path / "t.txt", 100)
    (tmp_path / "out").mkdir()
    gone = subprocess.run([str(program), "--format", "ftrace", str(trace), str(tmp_path / "out"),
                           "--parent", "999999999"], capture_output=True, text=True)
    assert gone.returncode == 1 and "parent process 999999999 is gone; not starting" in gone.stderr
    ok = subprocess.run([str(program), "--format", "ftrace", str(trace), str(tmp_path / "out"),
                         "--parent", str(os.getpid())], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["events"] == 100
