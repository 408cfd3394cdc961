"""The ingest path: a file in, a committed trace (Parquet + summaries + metadata row) out.

    input --(gzip/xz/zstd/zip? decompress with limits)--> detect format from content
          --> kscope-ingest (native program, native_ingest.py): decoders (C, streaming)
              --> columns --> events.parquet; counts, switches --> lod.npz; a JSON report
          --> the report checked (reports.py) --> work dir moved into place --> metadata row (last)

Nothing is visible before the final two steps, and any failure removes the
work dir: a bad input leaves no trace behind. Per-line failures inside an
otherwise readable file are counted and reported (malformed_lines,
first_error), not fatal; a file with no events, or with more malformed lines
than events, is refused as a whole.
"""

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kscope.ingest import formats, native_ingest, reports
from kscope.ingest.provenance import provenance_of
from kscope.ingest.sources import InputError, Limits, compression_of, decompress
from kscope.store.meta import TraceRecord
from kscope.store.store import EVENTS_FILE, TraceStore, hash_token, new_token, new_trace_id

# progress(phase, bytes_done, bytes_total, events_so_far)
ProgressFn = Callable[[str, int, int, int], None]
META_PREFIX = b"# kscope: "
SYSFS_PREFIX = b"# kscope-sysfs: "
TOPOLOGY_FILE = "topology.sysfs"


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


def _no_events(source: str, fmt: str, report: Any, total: int) -> str:
    """Where an input without events was read: the first problem, else the whole span looked at."""
    if report.first_error:
        return f"{source}: no events found in this {fmt} input (first problem: {_where(report.first_error)})"
    lines = report.extra.get("lines")
    span = f"lines 1-{lines} (bytes 0-{total})" if lines else f"bytes 0-{total}"
    blocks = ""
    if "text_blocks" in report.extra:
        blocks = (f", {report.extra['text_blocks']} trace text blocks and "
                  f"{report.extra['json_blocks']} JSON blocks in it")
    return f"{source}: {span}: no events found in this {fmt} input{blocks}: no line read as a trace event"


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


@dataclass
class AttachedTopology:
    """A topology file given with the trace (trace_topology.read_topology_bytes's result)."""

    dump: bytes
    described: dict[str, Any]
    source: str


def ingest(store: TraceStore, path: Path, name: str | None = None, token: str | None = None,
           progress: ProgressFn | None = None, trace_id: str | None = None,
           topology: AttachedTopology | None = None) -> Ingested:
    """Ingests one file into the store; InputError (naming file and place) for bad input.
    topology: the machine's topology for a trace without kscope's sysfs header (it wins over
    one in the header), refused unless it matches the trace's CPUs."""
    source = name or path.name
    trace_id = trace_id or new_trace_id()
    token = token or new_token()
    report_progress = progress or (lambda *a: None)
    store.claims.claim(trace_id)  # before tmp/<id> exists: a crash leaves nothing a sweep would keep
    try:
        return _ingest(store, path, source, trace_id, token, report_progress, topology)
    finally:
        store.claims.release(trace_id)


def _ingest(store: TraceStore, path: Path, source: str, trace_id: str, token: str,
            report_progress: ProgressFn, topology: AttachedTopology | None = None) -> Ingested:
    settings = store.settings
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
        events_so_far = [0]

        def on_progress(phase: str, done: int, events: int) -> None:
            if phase == "decode":
                events_so_far[0] = events
                report_progress("decode", done, total, events)
            else:
                report_progress(phase, total, total, events_so_far[0])

        out = native_ingest.run(data, fmt.name, work, settings, on_progress)
        report = reports.of(fmt.name, out["decoders"], source)
        if data != path:
            data.unlink()
        events = out["events"]
        if events == 0:
            raise InputError(_no_events(source, fmt.name, report, total))
        if report.malformed > events:
            raise InputError(f"{source}: {report.malformed} malformed lines but only {events} events: "
                             f"not a {fmt.name} trace? first problem at {_where(report.first_error)}")
        cpus = out["cpus"]
        t_first, t_last = (out["t_first_ns"], out["t_last_ns"])
        topology_from = "capture header" if sysfs else None
        if topology is not None:
            from kscope import trace_topology

            trace_topology.check_matches_trace(topology.described, topology.source, source, cpus, report.nr_cpus)
            sysfs, topology_from = topology.dump, f"attached: {topology.source}"
        if sysfs:
            (work / TOPOLOGY_FILE).write_bytes(sysfs)
        stored = sum(p.stat().st_size for p in work.iterdir() if p.is_file())
        events_bytes = (work / EVENTS_FILE).stat().st_size
        kernel = header.get("kernel") or str(report.extra.get("uname", ""))
        document = {
            "trace_id": trace_id, "name": source, "format": fmt.name, "events": events,
            "by_type": native_ingest.by_type(out), "cpus": len(cpus), "cpu_ids": cpus,
            "t_first_ns": t_first, "t_last_ns": t_last, "tasks": out["tasks"],
            "kernel": kernel, "malformed_lines": report.malformed, "first_error": report.first_error,
            "lost_events": report.lost_events, "nr_cpus_header": report.nr_cpus,
            "compression": kind, "bytes_in": bytes_in, "bytes_decoded": total, "bytes_stored": stored,
            "bytes_per_event": round(stored / events, 2),
            "event_bytes_per_event": round(events_bytes / events, 2), "topology": bool(sysfs),
            "topology_from": topology_from,
            "capture": header or None, "provenance": provenance_of(header),
            **{k: v for k, v in report.extra.items() if k != "uname"},
            # trace.dat: records per trace buffer ("" = the top one; instances by name)
            **({"by_buffer": out["buffers"]} if "buffers" in out else {}),
        }
        record = TraceRecord(
            id=trace_id, name=source, format=fmt.name,
            created_at=dt.datetime.now(dt.timezone.utc).isoformat(timespec="microseconds"),
            owner_hash=hash_token(token), events=events, cpus=len(cpus),
            t_first_ns=t_first, t_last_ns=t_last, tasks=out["tasks"],
            kernel=kernel, malformed_lines=report.malformed, bytes_in=bytes_in, bytes_stored=stored,
            summary=document,
        )
        store.commit(work, record)
        report_progress("done", total, total, events)
        return Ingested(record, token)
    except BaseException:
        store.abandon(work)
        raise


