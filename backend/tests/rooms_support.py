"""Helpers of the rooms tests: a private redis-server, `kscope serve` processes, a ws client."""

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from conftest import KSCOPE


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_port(port: int, proc: subprocess.Popen, what: str, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{what} did not listen on 127.0.0.1:{port} in {timeout} s")


@contextmanager
def redis_server() -> Iterator[str]:
    """A throwaway redis-server on 127.0.0.1 (no persistence, temp dir); yields its URL.
    Skips (printing why) when redis-server is not installed (scripts/setup.sh installs it)."""
    exe = shutil.which("redis-server")
    if exe is None:
        reason = "redis-server not installed (scripts/setup.sh installs the Debian package)"
        print(reason)
        pytest.skip(reason)
    port = free_port()
    workdir = tempfile.mkdtemp(prefix="kscope-redis-")
    proc = subprocess.Popen([exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                             "--dir", workdir, "--daemonize", "no"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        _wait_port(port, proc, "redis-server")
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        shutil.rmtree(workdir, ignore_errors=True)


@contextmanager
def kscope_servers(count: int, redis_url: str = "", **env: str) -> Iterator[list[str]]:
    """`count` `kscope serve` processes on free ports; yields their base URLs."""
    procs, urls = [], []
    environ = {**os.environ, "KSCOPE_REDIS_URL": redis_url, **env}
    try:
        for _ in range(count):
            port = free_port()
            proc = subprocess.Popen([str(KSCOPE), "serve", "--port", str(port)], env=environ,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            procs.append(proc)
            _wait_port(port, proc, f"kscope serve --port {port}")
            urls.append(f"http://127.0.0.1:{port}")
        yield urls
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
