"""Tools of the hostile-client probes: a real `kscope serve` subprocess on a free loopback
port, and a Watch that samples /api/health latency and the server's memory during an attack.

The rule the probes check (issue 20): no request, however crafted, moves the server's
memory by more than a stated budget or delays /api/health by more than 0.5 s.
"""

import json
import select
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

KSCOPE = Path(sys.executable).parent / "kscope"
HEALTH_BUDGET_S = 0.5


@dataclass
class Server:
    """A running `kscope serve`: its URL, its process (to kill -9 it) and its data dir."""

    url: str
    pid: int
    proc: subprocess.Popen[bytes]
    data_dir: Path
    port: int

    def stop(self) -> None:
        stop_server(self)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(tmp_path: Path, **env: Any) -> Server:
    """`kscope serve` on 127.0.0.1:<free port> with its data in tmp_path/data (the same dir again
    for a restart over it); each keyword is a setting (e.g. sql_timeout_s=3 ->
    KSCOPE_SQL_TIMEOUT_S=3). Stop it with stop_server or .stop() (the conftest's
    `server_factory` fixture does). Its log: tmp_path/server-<port>.log."""
    port = free_port()
    data_dir = tmp_path / "data"
    data_dir.mkdir(parents=True, exist_ok=True)
    environ = {**os.environ, "KSCOPE_DATA_DIR": str(data_dir), "PYTHONUNBUFFERED": "1"}
    environ.update({f"KSCOPE_{k.upper()}": str(v) for k, v in env.items()})
    log = open(tmp_path / f"server-{port}.log", "ab")
    proc = subprocess.Popen([str(KSCOPE), "serve", "--host", "127.0.0.1", "--port", str(port)],
                            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=environ,
                            start_new_session=True)
    log.close()
    server = Server(f"http://127.0.0.1:{port}", proc.pid, proc, data_dir, port)
    deadline = time.monotonic() + 60
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"kscope serve exited {proc.returncode}: see {tmp_path}/server-{port}.log")
        try:
            if httpx.get(server.url + "/api/health", timeout=2).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            stop_server(server)
            raise RuntimeError(f"kscope serve did not answer within 60 s: see {tmp_path}/server-{port}.log")
        time.sleep(0.1)


def stop_server(server: Server) -> None:
    """Stops the server and whatever it left in its session (SIGTERM, then SIGKILL after 15 s)."""
    proc = server.proc
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)  # its own session: the server and any children it left
    except ProcessLookupError:
        pass
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def proc_stat(pid: int) -> tuple[str, str, int] | None:
    """(command name, state, parent pid) of a process, or None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    name = text[text.index("(") + 1:text.rindex(")")]
    fields = text[text.rindex(")") + 2:].split()
    return name, fields[0], int(fields[1])


def children(pid: int, name: str) -> list[int]:
    """Live (not zombie) processes whose parent is pid and whose command name is `name`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        stat = proc_stat(int(entry))
        if stat and stat[0] == name and stat[2] == pid and stat[1] != "Z":
            found.append(int(entry))
    return found


def alive(pid: int) -> bool:
    """Running (a zombie waiting to be reaped is not running)."""
    stat = proc_stat(pid)
    return stat is not None and stat[1] != "Z"


def wait_for(predicate, timeout: float, step: float = 0.01) -> float | None:  # type: ignore[no-untyped-def]
    """Seconds until predicate() was true, or None after timeout."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if predicate():
            return time.monotonic() - t0
        time.sleep(step)
    return None


def _status_kib(pid: int, field: str) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _children(pid: int) -> list[int]:
    out = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out.extend(int(c) for c in f.read().split())
    except OSError:
        pass
    return out


def tree_rss_mib(pid: int) -> float:
    """Resident memory of the process and all its descendants (SQL runs in children), MiB."""
    total, todo, seen = 0, [pid], set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        total += _status_kib(p, "VmRSS")
        todo.extend(_children(p))
    return total / 1024


def settle(pid: int, timeout_s: float = 10.0) -> None:
    """Waits (at most timeout_s) until the server tree's RSS stops moving (two samples 0.5 s
    apart within 1 MiB): the SQL fork server it starts in the background at start-up
    (store/sql_process.py) must not count as an attack's growth."""
    deadline = time.monotonic() + timeout_s
    last = tree_rss_mib(pid)
    while time.monotonic() < deadline:
        time.sleep(0.5)
        now = tree_rss_mib(pid)
        if abs(now - last) < 1.0:
            return
        last = now


class Watch:
    """During `with Watch(server):`, GET /api/health one after another (each timed, from a
    kept-alive connection, in a process of its own: health_probe.py, since in the test's
    process the attack's client threads would share the interpreter lock with the timing)
    and the server tree's RSS every 20 ms. `also`: more paths to time the same way, each
    with the token to send ("" for none). Afterwards: latencies[path], health_max_s,
    rss_growth_mib (peak during minus the level before)."""

    def __init__(self, server: Server, period_s: float = 0.05, also: dict[str, str] | None = None) -> None:
        self.server = server
        self.period_s = period_s
        self.paths = {"/api/health": "", **(also or {})}
        self.latencies: dict[str, list[float]] = {}
        self.failures: list[str] = []
        self.rss_peak = 0.0
        self._stop = threading.Event()

    def __enter__(self) -> "Watch":
        settle(self.server.pid)
        self.rss_before = tree_rss_mib(self.server.pid)
        self.rss_peak = self.rss_before
        probe = str(Path(__file__).with_name("health_probe.py"))
        self._probes = {path: subprocess.Popen([sys.executable, probe, self.server.url, str(self.period_s), path]
                                               + ([token] if token else []),
                                               stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                               stderr=subprocess.PIPE)
                        for path, token in self.paths.items()}
        self._rss_thread = threading.Thread(target=self._rss, daemon=True)
        self._rss_thread.start()
        # Each probe has timed its first request before the attack starts (a loaded machine
        # can take seconds to start a Python process: a fixed sleep left some with 0 samples).
        deadline = time.monotonic() + 60
        for path, proc in self._probes.items():
            ready, _, _ = select.select([proc.stderr], [], [], max(0.0, deadline - time.monotonic()))
            line = proc.stderr.readline() if ready else b""
            assert line.strip() == b"ready", f"{path} probe did not start: {line!r}"
        time.sleep(0.3)  # a few samples before the attack starts
        return self

    def __exit__(self, *exc: object) -> None:
        time.sleep(0.2)
        self._stop.set()
        self._rss_thread.join(60)
        for path, proc in self._probes.items():
            out, _ = proc.communicate(timeout=120)  # closes its stdin: it stops and reports
            doc = json.loads(out)
            self.latencies[path] = doc["latencies"]
            self.failures += doc["failures"]

    def _rss(self) -> None:
        while not self._stop.is_set():
            self.rss_peak = max(self.rss_peak, tree_rss_mib(self.server.pid))
            self._stop.wait(0.02)

    def max_s(self, path: str = "/api/health") -> float:
        return max(self.latencies.get(path, []), default=float("inf"))

    @property
    def health_max_s(self) -> float:
        return self.max_s()

    @property
    def rss_growth_mib(self) -> float:
        return self.rss_peak - self.rss_before

    def report(self) -> str:
        timed = ", ".join(f"{p}: {len(v)} samples, max {max(v, default=float('inf')):.3f} s"
                          for p, v in self.latencies.items())
        return (f"{timed}; failures {self.failures[:3]}; "
                f"RSS (server + children) {self.rss_before:.0f} -> peak {self.rss_peak:.0f} MiB "
                f"(+{self.rss_growth_mib:.0f})")

    def assert_within(self, rss_budget_mib: float, health_budget_s: float = HEALTH_BUDGET_S) -> None:
        print(self.report())
        assert not self.failures, self.report()
        for path in self.paths:
            assert len(self.latencies[path]) >= 3, self.report()
            assert self.max_s(path) < health_budget_s, self.report()
        assert self.rss_growth_mib < rss_budget_mib, self.report()
