"""In-process decoding: the registry's C decoders run streaming, records handed to a callback.

`kscope ingest` runs the native kscope-ingest program instead (ingest/native_ingest.py);
these are for callers that read the records themselves (conform, the kernel harness).

A reader thread feeds the input to the C decoder (text formats: 1 MiB pieces;
trace.dat: the byte ranges the decoder asks for, read with pread); the C call
runs without the GIL, so decoding the next piece overlaps with the caller
converting and writing the previous one. Pieces decode into one event log until
it holds `batch_events` records (0: one log per piece), which is handed over
whole: no copy per piece. At most one full log per decoder thread, plus one, waits
in the queue: memory stays bounded whatever the file size, and a decoder that finishes
a log while the consumer is busy (e.g. waiting on the Parquet writer) goes on decoding
instead of blocking (with a queue of one, the two decoder threads of a 10 M-event
trace spent most of their wall time blocked in put and the process used ~1.2 cores).

    format name (ks_trace_detect)     decoder
    ftrace-text, trace-cmd-report      ftrace.h   (tracefs `trace`, atrace, `trace-cmd report`)
    trace.dat                          tracedat.h (trace-cmd binary v6/v7)
    perf-script, perf-sched-timehist   perf.h
    systrace-html                      systrace.h
"""

import os
import queue
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from kscope.ingest import records, reports
from kscope.ingest.formats import Batch, DecodeReport, Progress
from kscope.native import decoders, ftrace
from kscope.native.log import EventLog, has_text, records_view, text_arena

PIECE = 1 << 20  # small pieces: fewer decoded records in flight (RSS)
_DONE = object()


def _last_fields_off(raw: memoryview) -> int:
    """fields_off of the log's last generic record (-1 if none)."""
    rec = records.as_records(raw)
    rows = np.flatnonzero(rec["type"] == records.GENERIC)
    return int(rec["g_fields_off"][rows[-1]]) if len(rows) else -1


def emit(log: EventLog, on_batch: Batch, part: int = 0) -> None:
    """Hands a log's records and (if it has generic records) its text arena to on_batch."""
    if len(log) == 0:
        return
    raw = records_view(log)
    last = _last_fields_off(raw) if has_text(log) else -1  # no text: no generic record to look for
    on_batch(raw, text_arena(log, last) if last >= 0 else b"", part)


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


def queue_depth(producers: int) -> int:
    """Full logs waiting for the consumer at most."""
    return producers + 1


def logs_in_flight(producers: int) -> int:
    """Logs alive at once at most: one filling per producer, the queued ones, the one being
    handed over. A LogPool keeping this many never frees a log only to fault a new one in
    a moment later (that churn showed as seconds of system time at 10 M events)."""
    return producers + queue_depth(producers) + 1


def pipelined(produce: Producer | list[Producer], on_batch: Batch, progress: Progress,
              pool: LogPool | None = None) -> None:
    """Runs each producer in a thread of its own; hands every (log, bytes done) to on_batch
    and progress here, tagged with the producer's index (its part). A part's logs arrive in
    order; parts interleave. Handed-over logs go back to `pool` (if given) for reuse."""
    producers = produce if isinstance(produce, list) else [produce]
    pending: queue.Queue = queue.Queue(maxsize=queue_depth(len(producers)))
    failure: list[BaseException] = []
    stop = threading.Event()

    def run(part: int, make: Producer) -> None:
        try:
            for log, done in make():
                pending.put((part, log, done))
                if stop.is_set():
                    return
        except BaseException as err:  # handed to the consumer
            failure.append(err)
        finally:
            pending.put(_DONE)

    threads = [threading.Thread(target=run, args=(i, p), name=f"kscope-decode-{i}", daemon=True)
               for i, p in enumerate(producers)]
    for t in threads:
        t.start()
    done_by_part = [0] * len(producers)
    running = len(threads)
    try:
        while running:
            item = pending.get()
            if item is _DONE:
                running -= 1
                continue
            part, log, done = item
            try:
                emit(log, on_batch, part)
            finally:
                if pool:
                    pool.put(log)
                else:
                    log.close()
            done_by_part[part] = done
            progress(sum(done_by_part))
    finally:
        stop.set()
        while any(t.is_alive() for t in threads):  # unblock producers waiting on a full queue
            try:
                item = pending.get(timeout=0.1)
                if item is not _DONE:
                    item[1].close()
            except queue.Empty:
                pass
        for t in threads:
            t.join()
    if failure:
        raise failure[0]


BatchSize = int | Callable[[], int]  # records per handed-over log, or a function giving it


class _Filling:
    """The log a producer decodes into: handed over once it holds batch_events records
    (a number, or a function asked each time: the caller may raise it as it learns more)."""

    def __init__(self, batch_events: BatchSize, pool: LogPool | None) -> None:
        self.batch_events = batch_events
        self.pool = pool
        self.log = self._new()

    def _new(self) -> EventLog:
        return self.pool.get() if self.pool else EventLog()

    def take(self, force: bool = False) -> EventLog | None:
        """The log if it is full (or force), replaced by an empty one; else None."""
        wanted = self.batch_events() if callable(self.batch_events) else self.batch_events
        if not force and len(self.log) < wanted:
            return None
        full, self.log = self.log, self._new()
        return full

    def close(self) -> None:
        self.log.close()


def _text_pieces(path: Path, decoder: Any, start: int = 0, stop: int | None = None,
                 batch_events: BatchSize = 0, pool: LogPool | None = None) -> Producer:
    """Feeds bytes [start, stop) of the file to the decoder; yields (log, bytes done)."""
    def produce() -> Iterator[tuple[EventLog, int]]:
        done = 0
        end = path.stat().st_size if stop is None else stop
        filling = _Filling(batch_events, pool)
        try:
            with open(path, "rb") as f:
                f.seek(start)
                while done < end - start and (piece := f.read(min(PIECE, end - start - done))):
                    decoder.feed(piece, filling.log)
                    done += len(piece)
                    if (full := filling.take()) is not None:
                        yield full, done
            decoder.finish(filling.log)
            yield filling.take(force=True), done
        finally:
            filling.close()
    return produce


def split_lines(path: Path, parts: int) -> list[tuple[int, int]]:
    """[start, stop) byte ranges cutting the file into about `parts` pieces at line starts."""
    size = path.stat().st_size
    bounds = [0]
    with open(path, "rb") as f:
        for i in range(1, parts):
            f.seek(max(size * i // parts, bounds[-1]))
            line = f.readline(1 << 16)
            if not line.endswith(b"\n"):
                break  # no line end near: keep the rest in one part
            if bounds[-1] < f.tell() < size:
                bounds.append(f.tell())
    bounds.append(size)
    return list(zip(bounds[:-1], bounds[1:]))


def decode_parts(size: int, wanted: int) -> int:
    """Decoder threads for a text file of `size` bytes: `wanted` if set (> 0), else one per
    CPU (at most 4) for files over 32 MiB and one for smaller ones."""
    if wanted > 0:
        return wanted
    return max(1, min(os.cpu_count() or 1, 4)) if size > 32 << 20 else 1


def decode_ftrace(path: Path, source: str, on_batch: Batch, progress: Progress,
                  threads: int = 0, batch_events: BatchSize = 0) -> DecodeReport:
    """ftrace text, cut at line starts into parts decoded side by side (files over 32 MiB).

    Each part has its own decoder; the counters add up, and the first problem's line
    number is made absolute by adding the lines of the parts before it. The header
    (#P:N, the dialect) is in part 0.
    """
    ranges = split_lines(path, decode_parts(path.stat().st_size, threads))
    decoders_ = [ftrace.FtraceDecoder() for _ in ranges]
    pool = LogPool(logs_in_flight(len(ranges)))
    try:
        pipelined([_text_pieces(path, d, a, b, batch_events, pool) for d, (a, b) in zip(decoders_, ranges)],
                  on_batch, progress, pool)
        stats = [d.stats() for d in decoders_]
    finally:
        pool.close()
        for d in decoders_:
            d.close()
    return reports.ftrace(stats)


def decode_perf(path: Path, source: str, on_batch: Batch, progress: Progress,
                threads: int = 0, batch_events: BatchSize = 0) -> DecodeReport:
    with decoders.PerfDecoder() as decoder:
        pipelined(_text_pieces(path, decoder, batch_events=batch_events), on_batch, progress)
        s = decoder.stats()
    return reports.perf(s, source)


def decode_systrace(path: Path, source: str, on_batch: Batch, progress: Progress,
                    threads: int = 0, batch_events: BatchSize = 0) -> DecodeReport:
    with decoders.SystraceDecoder() as decoder:
        pipelined(_text_pieces(path, decoder, batch_events=batch_events), on_batch, progress)
        s = decoder.stats()
    return reports.systrace(s)


def decode_tracedat(path: Path, source: str, on_batch: Batch, progress: Progress,
                    threads: int = 0, batch_events: BatchSize = 0) -> DecodeReport:
    size = path.stat().st_size
    pool = LogPool(logs_in_flight(1))
    with decoders.TracedatDecoder() as decoder:
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

        try:
            pipelined(produce, on_batch, progress, pool)
        finally:
            pool.close()
        s = decoder.stats()
    return reports.tracedat(s, source)
