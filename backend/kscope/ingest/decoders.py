"""In-process decoding: the registry's C decoders run streaming, records handed to a callback.

`kscope ingest` runs the native kscope-ingest program instead (ingest/native_ingest.py);
these are for callers that read the records themselves (conform, the kernel harness).

A reader thread feeds the input to the C decoder the registry names for the detected
format (kscope.native.decoders: text formats ask for 1 MiB pieces front to back,
trace.dat for the byte ranges it needs; both read with pread); the C call
runs without the GIL, so decoding the next piece overlaps with the caller
working on the previous one. Pieces decode into one event log until it holds
`batch_events` records (0: one log per piece), which is handed over whole: no
copy per piece. At most two full logs wait in the queue, so memory stays
bounded whatever the file size. One decoder per input: decoding a large text in
parts side by side is kscope-ingest's job (tools/ingest/decode_producers.c).

The format -> decoder table is the C core's (trace_decoder.h), not repeated here.
"""

import os
import queue
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from kscope.ingest import records, reports
from kscope.ingest.formats import Batch, DecodeReport, Progress
from kscope.native import decoders
from kscope.native.log import EventLog, has_text, records_view, text_arena

PIECE = 1 << 20  # small pieces: fewer decoded records in flight (RSS)
_DONE = object()


def _last_fields_off(raw: memoryview) -> int:
    """fields_off of the log's last generic record (-1 if none)."""
    rec = records.as_records(raw)
    rows = np.flatnonzero(rec["type"] == records.GENERIC)
    return int(rec["g_fields_off"][rows[-1]]) if len(rows) else -1


def emit(log: EventLog, on_batch: Batch) -> None:
    """Hands a log's records and (if it has generic records) its text arena to on_batch."""
    if len(log) == 0:
        return
    raw = records_view(log)
    last = _last_fields_off(raw) if has_text(log) else -1  # no text: no generic record to look for
    on_batch(raw, text_arena(log, last) if last >= 0 else b"")


class LogPool:
    """Emptied logs handed back by the consumer, reused by the producers of one input: a
    batch-sized log keeps its memory instead of being freed and faulted in again (page
    clearing was a tenth of an ingest's CPU time). Freed when the input is done."""

    def __init__(self, keep: int = 4) -> None:
        self._spare: queue.SimpleQueue = queue.SimpleQueue()
        self._keep = keep

    def get(self) -> EventLog:
        try:
            return self._spare.get_nowait()
        except queue.Empty:
            return EventLog()

    def put(self, log: EventLog) -> None:
        if self._spare.qsize() < self._keep:
            log.clear()
            self._spare.put(log)
        else:
            log.close()

    def close(self) -> None:
        while True:
            try:
                self._spare.get_nowait().close()
            except queue.Empty:
                return


Producer = Callable[[], Iterator[tuple[EventLog, int]]]
QUEUE_DEPTH = 2  # full logs waiting for the consumer at most
LOGS_IN_FLIGHT = QUEUE_DEPTH + 2  # and one filling, one being handed over: what a LogPool keeps


def pipelined(produce: Producer, on_batch: Batch, progress: Progress, pool: LogPool | None = None) -> None:
    """Runs the producer in a thread of its own; hands every (log, bytes done) to on_batch
    and progress here, in order. Handed-over logs go back to `pool` (if given) for reuse."""
    pending: queue.Queue = queue.Queue(maxsize=QUEUE_DEPTH)
    failure: list[BaseException] = []
    stop = threading.Event()

    def run() -> None:
        try:
            for item in produce():
                pending.put(item)
                if stop.is_set():
                    return
        except BaseException as err:  # handed to the consumer
            failure.append(err)
        finally:
            pending.put(_DONE)

    thread = threading.Thread(target=run, name="kscope-decode", daemon=True)
    thread.start()
    try:
        while (item := pending.get()) is not _DONE:
            log, done = item
            try:
                emit(log, on_batch)
            finally:
                if pool:
                    pool.put(log)
                else:
                    log.close()
            progress(done)
    finally:
        stop.set()
        while thread.is_alive():  # unblock the producer if it waits on a full queue
            try:
                item = pending.get(timeout=0.1)
                if item is not _DONE:
                    item[0].close()
            except queue.Empty:
                pass
        thread.join()
    if failure:
        raise failure[0]


class _Filling:
    """The log a producer decodes into: handed over once it holds batch_events records."""

    def __init__(self, batch_events: int, pool: LogPool | None) -> None:
        self.batch_events = batch_events
        self.pool = pool
        self.log = self._new()

    def _new(self) -> EventLog:
        return self.pool.get() if self.pool else EventLog()

    def take(self, force: bool = False) -> EventLog | None:
        """The log if it is full (or force), replaced by an empty one; else None."""
        if not force and len(self.log) < self.batch_events:
            return None
        full, self.log = self.log, self._new()
        return full

    def close(self) -> None:
        self.log.close()


def _produce(path: Path, decoder: decoders.TraceDecoder, batch_events: int, pool: LogPool) -> Producer:
    """The one decoder loop: reads what the decoder wants (text front to back, trace.dat by
    offset) with pread; yields (log, bytes done)."""
    size = path.stat().st_size

    def produce() -> Iterator[tuple[EventLog, int]]:
        fd = os.open(path, os.O_RDONLY)
        filling = _Filling(batch_events, pool)
        try:
            done = 0
            while True:
                offset, want = decoder.want()
                if want == 0:
                    break
                data = os.pread(fd, max(want, 1 << 16), offset)
                _, going = decoder.feed(offset, data, filling.log)
                done += len(data)
                if (full := filling.take()) is not None:
                    yield full, min(done, size)
                if not going:
                    break
            decoder.finish(filling.log)
            yield filling.take(force=True), size
        finally:
            filling.close()
            os.close(fd)
    return produce


def decode(path: Path, source: str, on_batch: Batch, progress: Progress, batch_events: int = 0,
           format_name: str = "ftrace-text") -> DecodeReport:
    """Decodes the file with the C registry's decoder for format_name (a detected format)."""
    pool = LogPool(LOGS_IN_FLIGHT)
    try:
        with decoders.TraceDecoder.for_format(format_name) as decoder:
            decoder.set_piece(PIECE)
            pipelined(_produce(path, decoder, batch_events, pool), on_batch, progress, pool)
            stats = decoder.stats()
            name = decoder.name
    finally:
        pool.close()
    return reports.of(name, [stats], source)


def decode_ftrace(path: Path, source: str, on_batch: Batch, progress: Progress,
                  batch_events: int = 0) -> DecodeReport:
    """ftrace text: tracefs `trace`, atrace, `trace-cmd report`."""
    return decode(path, source, on_batch, progress, batch_events, "ftrace-text")


def decode_tracedat(path: Path, source: str, on_batch: Batch, progress: Progress,
                    batch_events: int = 0) -> DecodeReport:
    return decode(path, source, on_batch, progress, batch_events, "trace.dat")
