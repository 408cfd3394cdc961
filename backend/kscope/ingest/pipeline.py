"""The ingest path: a file in, a committed trace (Parquet + summaries + metadata row) out.

    input --(gzip/xz/zstd/zip? decompress with limits)--> detect format from content
          --> decoder (C, streaming) --> records --> Arrow batches --> events.parquet
                                                              \\--> counts, switches --> lod.npz
          --> work dir moved into place --> metadata row (last)

Nothing is visible before the final two steps, and any failure removes the
work dir: a bad input leaves no trace behind. Per-line failures inside an
otherwise readable file are counted and reported (malformed_lines,
first_error), not fatal; a file with no events, or with more malformed lines
than events, is refused as a whole.
"""

import datetime as dt
from concurrent.futures import Future, ThreadPoolExecutor
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from kscope.ingest import formats, records
from kscope.ingest.sources import InputError, Limits, compression_of, decompress
from kscope.native.columns import ColumnBuilder, Columns
from kscope.native.events import EVENT_SIZE, EVENT_TYPES
from kscope.store import lod
from kscope.store.events import EVENTS_FILE, EventWriter
from kscope.store.meta import TraceRecord
from kscope.store.store import TraceStore, hash_token, new_token, new_trace_id

# progress(phase, bytes_done, bytes_total, events_so_far)
ProgressFn = Callable[[str, int, int, int], None]
META_PREFIX = b"# kscope: "
SYSFS_PREFIX = b"# kscope-sysfs: "
TOPOLOGY_FILE = "topology.sysfs"
# Arrow tables handed to the Parquet writer thread and not yet written: with one, the
# batch builder waited on every write and the decoders behind it stalled; each more
# costs one batch's columns of memory (~100 bytes a record).
WRITES_IN_FLIGHT = 3



@dataclass
class _Tally:
    """Running totals over the batches (all vectorized per batch)."""

    events: int = 0
    type_counts: np.ndarray = field(default_factory=lambda: np.zeros(len(EVENT_TYPES), np.int64))
    generic_names: dict[str, int] = field(default_factory=dict)
    cpus: set[int] = field(default_factory=set)
    tid_seen: np.ndarray = field(default_factory=lambda: np.zeros(1 << 16, bool))
    t_first: int | None = None
    t_last: int | None = None
    switches: lod.SwitchLog = field(default_factory=lod.SwitchLog)

    def add(self, cols: Columns, table: pa.Table) -> None:
        n = cols.n
        if n == 0:
            return
        self.events += n
        self.type_counts += cols.type_counts[: len(EVENT_TYPES)]
        if cols.type_counts[records.GENERIC]:
            for item in table["name"].value_counts().to_pylist():
                if item["values"] is not None:
                    self.generic_names[item["values"]] = self.generic_names.get(item["values"], 0) + item["counts"]
        c = cols.arrays
        # Every distinct CPU starts a run of equal values (the builder groups rows by CPU,
        # so a batch has a few runs): no sort of the whole column as np.unique would do.
        cpu = c["cpu"]
        self.cpus.update(cpu[np.concatenate(([0], np.flatnonzero(cpu[1:] != cpu[:-1]) + 1))].tolist())
        self.t_first = cols.ts_min if self.t_first is None else min(self.t_first, cols.ts_min)
        self.t_last = cols.ts_max if self.t_last is None else max(self.t_last, cols.ts_max)
        # Thread ids: the current task's, and those the payloads name (a bitmap, no sort).
        # Columns hold 0 where a type has no such field, and 0 (idle) is never counted.
        # Each column is scattered into the bitmap as it is (slot 0 collects the zeros and
        # is never counted); only a column holding ids < 0 or >= 2^26 is filtered first.
        for name in ("pid", "task_pid", "prev_pid", "next_pid", "child_pid"):
            ids = c[name]
            low, top = int(ids.min()), int(ids.max())
            if low < 0 or top >= 1 << 26:
                ids = ids[(ids > 0) & (ids < 1 << 26)]
                if not len(ids):
                    continue
                top = int(ids.max())
            if top >= len(self.tid_seen):
                grown = np.zeros(max(top + 1, 2 * len(self.tid_seen)), bool)
                grown[: len(self.tid_seen)] = self.tid_seen
                self.tid_seen = grown
            self.tid_seen[ids] = True
        if cols.type_counts[records.SWITCH]:
            sw = np.flatnonzero(c["type"] == records.SWITCH)
            self.switches.add(c["ts_ns"][sw], c["cpu"][sw], c["prev_pid"][sw], c["next_pid"][sw])

    def tasks(self) -> int:
        """Distinct thread ids seen (slot 0, idle and absent fields, not counted)."""
        return int(self.tid_seen[1:].sum())

    def by_type(self) -> dict[str, int]:
        counts = {name: int(c) for name, c in zip(EVENT_TYPES, self.type_counts) if c and name != "generic"}
        for name, n in self.generic_names.items():  # a typed event kept generic (fields did not read)
            counts[name] = counts.get(name, 0) + n
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def read_capture_header(path: Path) -> tuple[dict[str, str], bytes]:
    """`# kscope: key=value` lines and the `# kscope-sysfs:` topology dump at a file's start."""
    meta: dict[str, str] = {}
    sysfs: list[bytes] = []
    with open(path, "rb") as f:
        for _ in range(100_000):
            line = f.readline(1 << 16)
            if not line.startswith(b"# kscope"):
                break
            if line.startswith(META_PREFIX):
                key, _, value = line[len(META_PREFIX):].strip().partition(b"=")
                meta[key.decode("utf-8", "replace")] = value.decode("utf-8", "replace")
            elif line.startswith(SYSFS_PREFIX):
                sysfs.append(line[len(SYSFS_PREFIX):])
    return meta, b"".join(sysfs)


def _where(err: dict[str, Any] | None) -> str:
    if not err:
        return ""
    parts = [f"line {err['line']}"]
    if err.get("column"):
        parts.append(f"column {err['column']}")
    if err.get("field"):
        parts.append(f"field \"{err['field']}\"")
    return f"{', '.join(parts)}: {err.get('message') or 'malformed'}"


@dataclass
class Ingested:
    record: TraceRecord
    token: str


def ingest(store: TraceStore, path: Path, name: str | None = None, token: str | None = None,
           progress: ProgressFn | None = None, trace_id: str | None = None) -> Ingested:
    """Ingests one file into the store; InputError (naming file and place) for bad input."""
    source = name or path.name
    trace_id = trace_id or new_trace_id()
    token = token or new_token()
    settings = store.settings
    report_progress = progress or (lambda *a: None)
    work = store.new_work_dir(trace_id)
    try:
        bytes_in = path.stat().st_size
        with open(path, "rb") as f:
            kind = compression_of(f.read(8))
        data = path
        if kind:
            report_progress("decompress", 0, bytes_in, 0)
            data = work / "input"
            decompress(path, source, kind, data, Limits(settings.max_decompressed_bytes,
                                                        settings.max_compression_ratio))
        fmt = formats.detect(data, source)
        header, sysfs = read_capture_header(data)
        total = data.stat().st_size
        tally = _Tally()
        writer = EventWriter(work / EVENTS_FILE)
        builder = ColumnBuilder()
        # One decoded log = one batch: its records become columns grouped by CPU in C
        # (kscope/columns.h; no GIL held), then Arrow arrays over that same memory, then one
        # row group per CPU. Parquet encoding runs in a thread of its own, one batch at a time,
        # in order; up to WRITES_IN_FLIGHT tables wait for it, so this thread goes on building
        # the next batches (and taking the decoders' logs) while the writer is busy.
        # At least 2048 records per CPU seen so far, so a many-CPU trace keeps sizeable row groups.
        def batch_events() -> int:
            return max(settings.ingest_batch_events, 1024, 2048 * len(tally.cpus))

        def on_batch(raw: memoryview, arena: bytes, part: int = 0) -> None:
            n = len(raw) // EVENT_SIZE
            cols = builder.build(np.frombuffer(raw, np.uint8).ctypes.data, n)
            table = records.table_of(cols, arena)
            tally.add(cols, table)
            while len(writing) >= WRITES_IN_FLIGHT:
                writing.popleft().result()
            writing.append(pool.submit(writer.write, table))

        writing: deque[Future] = deque()
        try:
            with ThreadPoolExecutor(1, thread_name_prefix="kscope-parquet") as pool:
                report = fmt.decode(data, source, on_batch,
                                    lambda done: report_progress("decode", done, total, tally.events),
                                    threads=settings.ingest_decode_threads, batch_events=batch_events)
                while writing:
                    writing.popleft().result()
        finally:
            writer.close()
            builder.close()
        if data != path:
            data.unlink()
        if tally.events == 0:
            detail = f" (first problem: {_where(report.first_error)})" if report.first_error else ""
            raise InputError(f"{source}: no events found in this {fmt.name} input{detail}")
        if report.malformed > tally.events:
            raise InputError(f"{source}: {report.malformed} malformed lines but only {tally.events} events: "
                             f"not a {fmt.name} trace? first problem at {_where(report.first_error)}")
        report_progress("summaries", total, total, tally.events)
        cpus = sorted(tally.cpus)
        lod.build(tally.switches, tally.t_first or 0, tally.t_last or 0, cpus, work / lod.LOD_FILE,
                  tally.events)
        if sysfs:
            (work / TOPOLOGY_FILE).write_bytes(sysfs)
        stored = sum(p.stat().st_size for p in work.iterdir() if p.is_file())
        events_bytes = (work / EVENTS_FILE).stat().st_size
        kernel = header.get("kernel") or str(report.extra.get("uname", ""))
        document = {
            "trace_id": trace_id, "name": source, "format": fmt.name, "events": tally.events,
            "by_type": tally.by_type(), "cpus": len(cpus), "cpu_ids": cpus,
            "t_first_ns": tally.t_first, "t_last_ns": tally.t_last, "tasks": tally.tasks(),
            "kernel": kernel, "malformed_lines": report.malformed, "first_error": report.first_error,
            "lost_events": report.lost_events, "nr_cpus_header": report.nr_cpus,
            "compression": kind, "bytes_in": bytes_in, "bytes_decoded": total, "bytes_stored": stored,
            "bytes_per_event": round(stored / tally.events, 2),
            "event_bytes_per_event": round(events_bytes / tally.events, 2), "topology": bool(sysfs),
            "capture": header or None, **{k: v for k, v in report.extra.items() if k != "uname"},
        }
        record = TraceRecord(
            id=trace_id, name=source, format=fmt.name,
            created_at=dt.datetime.now(dt.timezone.utc).isoformat(timespec="microseconds"),
            owner_hash=hash_token(token), events=tally.events, cpus=len(cpus),
            t_first_ns=tally.t_first or 0, t_last_ns=tally.t_last or 0, tasks=tally.tasks(),
            kernel=kernel, malformed_lines=report.malformed, bytes_in=bytes_in, bytes_stored=stored,
            summary=document,
        )
        store.commit(work, record)
        report_progress("done", total, total, tally.events)
        return Ingested(record, token)
    except BaseException:
        store.abandon(work)
        raise


