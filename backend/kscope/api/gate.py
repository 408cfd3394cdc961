"""A gate for heavy requests (SQL, event pages): their own threads, a bounded queue, a per-token cap.

The rest of the API runs on Starlette's thread pool; a heavy request runs here, on
`running` threads of its own, so forty slow queries never make GET /api/traces or
/api/health wait for a thread. Up to `queue` more wait for a thread; one token may
have `per_token` admitted (running or waiting). Past either bound the request is
refused at once with Busy (the route answers 429 with Retry-After).

Accounting follows the work, not the request: a client that disconnects while its
query runs leaves the thread busy until the query ends (or its time limit interrupts
it), and the slot is freed only then. A request cancelled while still waiting never runs.
"""

import asyncio
import math
import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


class Busy(Exception):
    """The gate is full; retry_after_s: a hint for the Retry-After header."""

    def __init__(self, message: str, retry_after_s: float) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s

    @property
    def retry_after(self) -> str:
        return str(max(1, math.ceil(self.retry_after_s)))


class Gate:
    def __init__(self, name: str, running: int, queue: int, per_token: int, setting: str,
                 retry_after_s: float) -> None:
        self.name = name
        self.running = max(1, running)
        self.queue = max(0, queue)
        self.per_token = max(1, per_token)
        self._setting = setting  # the settings' prefix, for the refusal's text
        self._retry_after_s = retry_after_s
        self._pool = ThreadPoolExecutor(self.running, thread_name_prefix=f"kscope-{name}")
        self._lock = threading.Lock()
        self._admitted = 0
        self._by_token: Counter[str] = Counter()

    def admitted(self, token: str | None = None) -> int:
        with self._lock:
            return self._admitted if token is None else self._by_token[token]

    def check(self, token: str) -> None:
        """Busy now if `token` would be refused (admits nothing): lets a route refuse before any
        other work, e.g. before looking its trace up on a worker thread."""
        with self._lock:
            self._refuse_if_full(token)

    def _admit(self, token: str) -> None:
        with self._lock:
            self._refuse_if_full(token)
            self._admitted += 1
            self._by_token[token] += 1

    def _refuse_if_full(self, token: str) -> None:
        if self._by_token[token] >= self.per_token:
            raise Busy(f"too many {self.name} requests at once for this token: at most {self.per_token} "
                       f"running or waiting ({self._setting}_PER_TOKEN); retry when one has finished",
                       self._retry_after_s)
        if self._admitted >= self.running + self.queue:
            raise Busy(f"the server is busy with {self._admitted} {self.name} requests "
                       f"({self.running} running, {self.queue} waiting at most: {self._setting}_MAX_CONCURRENT, "
                       f"{self._setting}_QUEUE); retry later", self._retry_after_s)

    def _release(self, token: str) -> None:
        with self._lock:
            self._admitted -= 1
            self._by_token[token] -= 1
            if self._by_token[token] <= 0:
                del self._by_token[token]

    async def run(self, token: str, fn: Callable[..., T], *args: Any) -> T:
        """fn(*args) on one of the gate's threads; Busy at once when the gate is full."""
        self._admit(token)
        try:
            work: Future[T] = self._pool.submit(fn, *args)
        except BaseException:
            self._release(token)
            raise
        work.add_done_callback(lambda _: self._release(token))  # also when cancelled while waiting
        return await asyncio.wrap_future(work)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
