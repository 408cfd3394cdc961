"""The server's ingests run on their own few threads, a bounded number waiting.

Without it every upload's ingest took a thread of the shared pool that also runs the
API's plain `def` routes, so 50 uploads at once meant 40 kscope-ingest processes on 2
cores, ~50 MB each, and every other request queued behind them (issue 20, "load held").
Now `ingest_workers` ingests run at once, `ingest_nice` levels below the event loop; up to `ingest_queue` more wait their turn (their
bodies are on disk already); past that an upload is refused before its body is read:
503 with Retry-After, nothing stored.
"""

import asyncio
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from kscope.core.config import Settings

T = TypeVar("T")
RETRY_AFTER_S = 5


class IngestQueueFull(RuntimeError):
    def __init__(self, waiting: int) -> None:
        super().__init__(f"the server is busy: {waiting} ingests are running or waiting, the most it takes "
                         f"(KSCOPE_INGEST_QUEUE); nothing was stored; try again in {RETRY_AFTER_S} s")
        self.retry_after_s = RETRY_AFTER_S


def _lower_priority(increment: int) -> None:
    """This thread (and the kscope-ingest processes it starts, which inherit it) runs `increment`
    nice levels below the rest of the server: on a busy machine the event loop, which answers
    every request, gets the CPU before a batch ingest does. Linux nice values are per thread."""
    if increment <= 0:
        return
    tid = threading.get_native_id()
    try:
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + increment))
    except OSError:
        pass


class IngestPool:
    def __init__(self, settings: Settings) -> None:
        self.workers = max(1, settings.ingest_workers)
        self.limit = self.workers + max(0, settings.ingest_queue)
        self._executor = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="kscope-ingest",
                                            initializer=_lower_priority, initargs=(settings.ingest_nice,))
        self._lock = threading.Lock()
        self._admitted = 0  # running + waiting + admitted uploads still receiving their body

    def admit(self) -> None:
        """Takes a place for one ingest (call release() when it is over); IngestQueueFull if none."""
        with self._lock:
            if self._admitted >= self.limit:
                raise IngestQueueFull(self._admitted)
            self._admitted += 1

    def release(self) -> None:
        with self._lock:
            self._admitted -= 1

    @property
    def admitted(self) -> int:
        with self._lock:
            return self._admitted

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """fn(*args) on an ingest thread, awaited."""
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)

    def submit(self, fn: Callable[..., Any], *args: Any) -> None:
        """fn(*args) on an ingest thread, not awaited (background ingests)."""
        self._executor.submit(fn, *args)

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
