"""A real `kscope serve` on 127.0.0.1 for the hostile-client tests: its process (to kill -9
it), its data dir, its URL; and helpers to find its kscope-ingest child and read RSS."""

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from kscope.bench.local_servers import free_port, wait_port

KSCOPE = Path(sys.executable).parent / "kscope"


@dataclass
class Server:
    proc: subprocess.Popen
    url: str
    port: int
    data_dir: Path

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def start_server(data_dir: Path, port: int | None = None, **env: str) -> Server:
    """`kscope serve` with KSCOPE_DATA_DIR=data_dir (and KSCOPE_<NAME>=value for env), listening."""
    port = port or free_port()
    environ = {**os.environ, "KSCOPE_DATA_DIR": str(data_dir),
               **{f"KSCOPE_{k.upper()}": str(v) for k, v in env.items()}}
    log = open(data_dir.parent / f"serve-{port}.log", "ab")
    proc = subprocess.Popen([str(KSCOPE), "serve", "--port", str(port)], env=environ,
                            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    log.close()
    try:
        wait_port(port, proc, f"kscope serve --port {port}")
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    return Server(proc, f"http://127.0.0.1:{port}", port, data_dir)


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


def proc_stat(pid: int) -> tuple[str, str, int] | None:
    """(command name, state, parent pid) of a process, or None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    name = text[text.index("(") + 1:text.rindex(")")]
    fields = text[text.rindex(")") + 2:].split()
    return name, fields[0], int(fields[1])


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


def rss_bytes(pid: int) -> int:
    """Resident set size of a process now (/proc/PID/status VmRSS)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


class Watch:
    """While a block runs: the server's peak RSS (sampled every 10 ms) and /api/health latencies
    (probed every 20 ms from a thread of this process)."""

    def __init__(self, server: Server) -> None:
        import threading

        self.server = server
        self.peak_rss = rss_bytes(server.proc.pid)
        self.health: list[float] = []
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._rss, daemon=True),
                         threading.Thread(target=self._probe, daemon=True)]

    def _rss(self) -> None:
        while not self._stop.wait(0.01):
            self.peak_rss = max(self.peak_rss, rss_bytes(self.server.proc.pid))

    def _probe(self) -> None:
        import httpx

        with httpx.Client(timeout=30) as client:
            while not self._stop.is_set():
                t0 = time.monotonic()
                client.get(f"{self.server.url}/api/health")
                self.health.append(time.monotonic() - t0)
                self._stop.wait(0.02)

    def __enter__(self) -> "Watch":
        for t in self._threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for t in self._threads:
            t.join()
