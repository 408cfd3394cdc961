"""Helpers of the rooms tests: a private redis-server and `kscope serve` processes.

The start-up helpers are the bench's (kscope/bench/local_servers.py, also used by
`kscope bench rooms`)."""

import os
import shutil
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

import pytest

from conftest import KSCOPE
from kscope.bench import local_servers
from kscope.bench.local_servers import free_port

__all__ = ["free_port", "kscope_servers", "redis_server"]


@contextmanager
def redis_server() -> Iterator[str]:
    """A throwaway redis-server on 127.0.0.1 (no persistence, temp dir); yields its URL.
    Skips (printing why) when redis-server is not installed (scripts/setup.sh installs it)."""
    exe = shutil.which("redis-server")
    if exe is None:
        reason = "redis-server not installed (scripts/setup.sh installs the Debian package)"
        print(reason)
        pytest.skip(reason)
    with local_servers.redis_server(exe) as url:
        yield url


@contextmanager
def kscope_servers(count: int, redis_url: str = "", **env: str) -> Iterator[list[str]]:
    """`count` `kscope serve` processes on free ports; yields their base URLs."""
    environ = {**os.environ, "KSCOPE_REDIS_URL": redis_url, **env}
    with ExitStack() as stack:
        urls = []
        for _ in range(count):
            port = free_port()
            stack.enter_context(local_servers.process([str(KSCOPE), "serve", "--port", str(port)], port,
                                                      f"kscope serve --port {port}", environ))
            urls.append(f"http://127.0.0.1:{port}")
        yield urls
