"""Throwaway servers on 127.0.0.1 for `kscope bench rooms` and the rooms tests.

A free port, a child process waited for until it listens on its port (and stopped
on exit: SIGTERM, then SIGKILL after 10 s), and a private redis-server with no
persistence (`--save '' --appendonly no`) in a temp dir. Start-up failures raise
ServerFailed naming the process and port.
"""

import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager

START_TIMEOUT_S = 30  # a cold `kscope serve` imports FastAPI and loads the core: seconds on 2 busy cores


class ServerFailed(RuntimeError):
    pass


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (the OS picks it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, proc: subprocess.Popen, what: str, timeout: float = START_TIMEOUT_S) -> None:
    """Returns once 127.0.0.1:port accepts a connection; ServerFailed if proc exits or time runs out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise ServerFailed(f"{what} exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise ServerFailed(f"{what} did not listen on 127.0.0.1:{port} in {timeout} s")


@contextmanager
def process(argv: list[str], port: int, what: str, env: dict[str, str] | None = None) -> Iterator[int]:
    """Runs argv (output discarded) until it listens on port; yields its pid; stops it on exit."""
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_port(port, proc, what)
        yield proc.pid
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


@contextmanager
def redis_server(exe: str, prefix: str = "kscope-redis-") -> Iterator[str]:
    """A redis-server (the executable exe) on a free port, no persistence, in a temp dir; yields its URL."""
    port = free_port()
    workdir = tempfile.mkdtemp(prefix=prefix)
    try:
        with process([exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                      "--dir", workdir], port, "redis-server"):
            yield f"redis://127.0.0.1:{port}/0"
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
