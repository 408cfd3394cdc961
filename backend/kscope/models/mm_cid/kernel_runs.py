"""What a VM capture of the intermittent workload says about mm_cid: the figures `npm run
test:kernel` checks and prints for kscope_mm_cid=legacy against =recent.

The trace is decoded by kscope's own C decoder (kscope.ingest.formats, as `kscope ingest`
reads it); the kscope_mm_cid_get lines, which the decoder keeps as generic records (name +
field text), get their `key=value` fields read here.

For each thread of the workload, its rseq_update events in time order give the cid it
ran with; a **return** is an rseq_update that comes more than IDLE_NS after the thread's
previous one (the thread slept through other threads' turns), and it **kept** its cid when
the cid equals the one it had before the gap (the workload pins each thread to one CPU,
so that is also the CPU's previous cid for this process). The 7e019dc design promises
that a thread coming back after its CPU's 100 ms reference expired gets its recent cid
back; 6.12 gives it the lowest free one.
"""

import re
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from kscope.core.config import get_settings
from kscope.ingest import formats, records
from kscope.ingest.sources import Limits, compression_of, decompress
from kscope.native.columns import ColumnBuilder
from kscope.native.events import EVENT_SIZE

IDLE_NS = 100_000_000  # SCHED_MM_CID_PERIOD_NS: the 6.12 per-CPU cid reference expires after 100 ms idle
MM_CID_EVENT = "kscope_mm_cid_get"
MM_CID_FIELDS = ("cid", "recent_cid", "max_nr_cid", "path")
_KEY_VALUE = re.compile(r"(\w+)=(\S*)")


class TraceFieldError(ValueError):
    """A kscope_mm_cid_get line whose fields do not read (the message names the line's fields)."""


def generic_fields(text: str) -> dict[str, str]:
    """"cid=3 recent_cid=3 path=recent" -> {"cid": "3", "recent_cid": "3", "path": "recent"}."""
    return {m.group(1): m.group(2) for m in _KEY_VALUE.finditer(text)}


def mm_cid_get_fields(text: str) -> dict[str, Any]:
    """The named fields of one kscope_mm_cid_get record (ints and the path word)."""
    raw = generic_fields(text)
    missing = [k for k in MM_CID_FIELDS if k not in raw]
    if missing:
        raise TraceFieldError(f"{MM_CID_EVENT}: no {', '.join(missing)} in {text!r}")
    try:
        return {"cid": int(raw["cid"]), "recent_cid": int(raw["recent_cid"]),
                "max_nr_cid": int(raw["max_nr_cid"]), "path": raw["path"]}
    except ValueError as err:
        raise TraceFieldError(f"{MM_CID_EVENT}: {err} in {text!r}") from err


def decode(path: Path) -> pa.Table:
    """The capture's events as kscope's Arrow columns (records.SCHEMA); gz/xz/zstd files are
    decompressed first, with `kscope ingest`'s limits."""
    with open(path, "rb") as f:
        kind = compression_of(f.read(8))
    with tempfile.TemporaryDirectory(prefix="kscope-mmcid-") as tmp:
        data = path
        if kind:
            settings = get_settings()
            data = Path(tmp) / "input"
            decompress(path, path.name, kind, data, Limits(settings.max_decompressed_bytes,
                                                          settings.max_compression_ratio))
        fmt = formats.detect(data, path.name)
        tables: list[pa.Table] = []
        builder = ColumnBuilder()

        def on_batch(raw: memoryview, arena: bytes) -> None:
            cols = builder.build(np.frombuffer(raw, np.uint8).ctypes.data, len(raw) // EVENT_SIZE)
            tables.append(records.table_of(cols, bytes(arena)))

        fmt.decode(data, path.name, on_batch, lambda done: None)
    return pa.concat_tables(tables) if tables else records.SCHEMA.empty_table()


@dataclass
class MmCidFigures:
    threads: int = 0
    rseq_updates: int = 0
    returns: int = 0  # rseq_updates after > IDLE_NS without one for that thread
    kept: int = 0  # ... with the same cid as before the gap
    cids_per_thread: dict[int, list[int]] = field(default_factory=dict)  # distinct cids, in order of use
    tracepoint_events: int = 0
    paths: Counter[str] = field(default_factory=Counter)  # kscope_mm_cid_get path= counts
    allocations_with_recent: int = 0  # path != pcpu while the CPU had a recent_cid
    got_recent: int = 0  # ... and got exactly it
    max_nr_cid: int = -1
    first_tracepoint_line: str = ""

    @property
    def kept_share(self) -> float | None:
        return self.kept / self.returns if self.returns else None

    def as_dict(self) -> dict[str, Any]:
        return {"threads": self.threads, "rseq_updates": self.rseq_updates, "returns": self.returns,
                "kept": self.kept, "kept_share": self.kept_share,
                "cids_per_thread": {str(k): v for k, v in sorted(self.cids_per_thread.items())},
                "tracepoint_events": self.tracepoint_events, "paths": dict(self.paths),
                "allocations_with_recent": self.allocations_with_recent, "got_recent": self.got_recent,
                "max_nr_cid": self.max_nr_cid}


def workload_tgid(table: pa.Table, comm: str = "intermittent") -> int | None:
    """The tgid of the process whose threads ran `comm` (the most rseq_updates)."""
    rows = table.filter(pa.compute.equal(table["type"].cast(pa.string()), "rseq_update")).to_pydict()
    counts = Counter(t for t, c in zip(rows["tgid"], rows["comm"]) if c == comm and t)
    return counts.most_common(1)[0][0] if counts else None


def figures(table: pa.Table, comm: str = "intermittent") -> MmCidFigures:
    """The figures of the workload process (the `comm` with the most rseq_updates); its main
    thread (tid == tgid) only sets the turns and is left out of threads/returns.

    A kscope_mm_cid_get line is written from context_switch(), before the switch, so its
    line names the task switched *out*; it belongs to the thread of the sched_switch just
    before it on the same CPU (next_pid)."""
    out = MmCidFigures()
    tgid = workload_tgid(table, comm)
    cols = table.select(["ts_ns", "type", "pid", "tgid", "cpu", "mm_cid", "next_pid", "name",
                         "fields"]).to_pydict()
    tids = {p for p, t, typ in zip(cols["pid"], cols["tgid"], cols["type"]) if t == tgid and typ == "rseq_update"}
    last: dict[int, tuple[int, int]] = {}  # tid -> (ts, cid) of its previous rseq_update
    switched_in: dict[int, int] = {}  # cpu -> next_pid of its latest sched_switch
    for ts, typ, pid, tg, cpu, cid, next_pid, name, text in zip(
            cols["ts_ns"], cols["type"], cols["pid"], cols["tgid"], cols["cpu"], cols["mm_cid"], cols["next_pid"],
            cols["name"], cols["fields"]):
        if typ == "sched_switch":
            switched_in[cpu] = next_pid
        elif typ == "rseq_update" and tg == tgid and pid != tgid and cid is not None and cid >= 0:
            out.rseq_updates += 1
            seen = out.cids_per_thread.setdefault(pid, [])
            if cid not in seen:
                seen.append(cid)
            prev = last.get(pid)
            if prev is not None and ts - prev[0] > IDLE_NS:
                out.returns += 1
                out.kept += cid == prev[1]
            last[pid] = (ts, cid)
        elif typ == "generic" and name == MM_CID_EVENT and switched_in.get(cpu) in tids:
            f = mm_cid_get_fields(text or "")
            out.tracepoint_events += 1
            out.first_tracepoint_line = out.first_tracepoint_line or text
            out.paths[f["path"]] += 1
            out.max_nr_cid = max(out.max_nr_cid, f["max_nr_cid"])
            if f["path"] != "pcpu" and f["recent_cid"] >= 0:
                out.allocations_with_recent += 1
                out.got_recent += f["cid"] == f["recent_cid"]
    out.threads = len(out.cids_per_thread)
    return out


def of_file(path: Path, comm: str = "intermittent") -> MmCidFigures:
    return figures(decode(path), comm)
