"""A stored trace, or its window t0 <= ts_ns < t1, as ftrace text or Chrome trace-event JSON.

Both read the window's rows once (at most Settings.export_max_events of them, else
ExportTooBig before anything is written) and write them out a batch at a time, so the
text never sits whole in memory:

- ftrace: the rows go back to ks_event records (native/from_arrow.py) and through the C exporter
  (kscope/ftrace.h, the one `kscope sim --export ftrace` uses): a 6.18 tracefs `trace`
  file, which kscope's decoder (and trace-cmd, KernelShark, Perfetto) read back, headed by
  `# kscope:` lines (where it came from, the kernel release) and the stored topology as
  `# kscope-sysfs:` lines, as kscope capture writes them;
- chrome-json: chrome.py.
"""

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from kscope.store.meta import TraceRecord
from kscope.store.store import EVENTS_FILE, TraceStore

FORMATS = ("chrome-json", "ftrace")
MEDIA = {"chrome-json": "application/json", "ftrace": "text/plain; charset=utf-8"}
SUFFIX = {"chrome-json": ".json", "ftrace": ".txt"}
BATCH = 65_536


class ExportTooBig(ValueError):
    """The window holds more events than one export may."""


@dataclass
class Export:
    """What an export will write: its rows, and how to name the download."""

    record: TraceRecord
    table: pa.Table
    fmt: str
    t0: int | None
    t1: int | None
    store_dir: Path | None = None  # the trace's folder in the store (its topology)

    @property
    def filename(self) -> str:
        stem = "".join(c if c.isalnum() or c in "-_." else "_" for c in self.record.name)[:80] or "trace"
        window = "" if self.t0 is None and self.t1 is None else f".{self.t0 or 'start'}-{self.t1 or 'end'}"
        return f"{stem}{window}{SUFFIX[self.fmt]}"

    def chunks(self) -> Iterator[bytes]:
        return (_ftrace_chunks if self.fmt == "ftrace" else _chrome_chunks)(self)


def prepare(store: TraceStore, rec: TraceRecord, fmt: str, t0: int | None, t1: int | None) -> Export:
    """Reads the window's rows (ExportTooBig past the limit; ValueError for a bad format/window)."""
    from kscope.store import events as ev_files

    if fmt not in FORMATS:
        raise ValueError(f"format {fmt!r}: expected one of {', '.join(FORMATS)}")
    if t0 is not None and t1 is not None and t1 <= t0:
        raise ValueError(f"empty window: t0={t0} >= t1={t1}")
    cap = store.settings.export_max_events
    table = ev_files.read_range(store.trace_dir(rec.id) / EVENTS_FILE, t0, t1, None, None, cap + 1)
    if table.num_rows > cap:
        where = "the whole trace" if t0 is None and t1 is None else f"the window [{t0}, {t1})"
        raise ExportTooBig(f"{rec.name}: {where} holds more than {cap} events, the most one export writes "
                           f"(KSCOPE_EXPORT_MAX_EVENTS); export a narrower window (t0/t1, --from/--to)")
    return Export(rec, table, fmt, t0, t1, store.trace_dir(rec.id))


def _batches(table: pa.Table) -> Iterator[pa.Table]:
    for start in range(0, table.num_rows, BATCH):
        yield table.slice(start, BATCH)


def _other(ex: Export) -> dict[str, Any]:
    return {"source": "kscope", "trace_id": ex.record.id, "trace_name": ex.record.name,
            "t0_ns": ex.t0, "t1_ns": ex.t1, "events": ex.table.num_rows,
            "clock": "the traced kernel's, as recorded (ts in us, exact to the ns)"}


def _chrome_chunks(ex: Export) -> Iterator[bytes]:
    from kscope.trace_export.chrome import write_chrome

    return write_chrome(_batches(ex.table), _other(ex), ex.t0)


class _Sink:
    def __init__(self) -> None:
        self.parts: list[bytes] = []

    def write(self, data: bytes | memoryview) -> int:
        self.parts.append(bytes(data))
        return len(data)

    def take(self) -> bytes:
        out, self.parts = b"".join(self.parts), []
        return out


def _nr_cpus(ex: Export) -> int:
    declared = int(ex.record.summary.get("nr_cpus_header") or 0)
    seen = (max(ex.table["cpu"].to_pylist() or [-1]) + 1) if ex.table.num_rows else 0
    return max(declared, seen, 1)


def _ftrace_chunks(ex: Export) -> Iterator[bytes]:
    """The C exporter's text, batch by batch, under one header (as native.ftrace.write_trace)."""
    from kscope.native import ftrace
    from kscope.native.log import EventLog
    from kscope.native.from_arrow import append_table

    n = ex.table.num_rows
    flags = ftrace.DEFAULT_FLAGS
    if n and (ex.table["ts_ns"].to_numpy(zero_copy_only=False) % 1000).any():
        flags |= ftrace.NSEC
    nr_cpus = _nr_cpus(ex)
    meta = {"exported_from": _one_line(ex.record.name), "exported_trace_id": ex.record.id,
            "exported_window_ns": f"{'' if ex.t0 is None else ex.t0}..{'' if ex.t1 is None else ex.t1}"}
    if ex.record.kernel:
        meta["kernel"] = _one_line(ex.record.kernel)
    sink = _Sink()
    sink.write(ftrace.meta_lines(meta) + _sysfs_lines(ex) + ftrace._header(n, nr_cpus, flags))
    yield sink.take()
    for batch in _batches(ex.table):
        with EventLog() as log:
            append_table(log, batch)
            used, _ = ftrace._export_log(log, nr_cpus, flags, sink,
                                         skip=len(ftrace._header(len(log), nr_cpus, flags)))
        if used != flags:
            raise RuntimeError(f"export flags changed mid-file ({flags:#x} -> {used:#x})")
        yield sink.take()


def _sysfs_lines(ex: Export) -> bytes:
    """The trace's stored CPU topology as the `# kscope-sysfs:` lines kscope capture writes, so the
    export, ingested again, keeps its lanes grouped by node and LLC (bounded at ingest by
    trace_topology.MAX_TOPOLOGY_BYTES)."""
    from kscope.ingest.pipeline import TOPOLOGY_FILE

    if ex.store_dir is None or not (ex.store_dir / TOPOLOGY_FILE).is_file():
        return b""
    dump = (ex.store_dir / TOPOLOGY_FILE).read_bytes()
    return b"".join(b"# kscope-sysfs: " + line + b"\n" for line in dump.splitlines() if line)


def _one_line(text: str) -> str:
    return "".join(c if c.isprintable() else "_" for c in text)[:200]
