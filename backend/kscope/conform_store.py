"""Conformance of a stored trace: its Parquet events back into ks_event records.

The route computes from what the store holds, not from the upload: the events
the replay reads (switch, wakeup, migrate, fork, exit, rseq_update; event.h's
layouts) are read back in time order (ties by CPU, the order ftrace's merged
text has) and packed into 96-byte records, the inverse of records.to_table for
those types. The capture header kept at ingest (summary["capture"]) supplies
tasks= and the CPU count.
"""

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kscope import conform
from kscope.ingest import records
from kscope.native.events import TYPE_IDS
from kscope.store import events as ev_files
from kscope.store.meta import TraceRecord
from kscope.store.store import EVENTS_FILE, TraceStore

MAX_EVENTS = 5_000_000  # ~480 MB of records: larger traces are refused (422), not read
TYPES = ["sched_switch", "sched_waking", "sched_wakeup", "sched_wakeup_new", "sched_migrate_task",
         "sched_process_fork", "sched_process_exit", "sched_process_free", "rseq_update"]
COLUMNS = ["ts_ns", "cpu", "type", "pid", "tgid", "comm", "task_pid", "task_comm", "prio", "prev_comm",
           "prev_pid", "prev_prio", "prev_state", "next_comm", "next_pid", "next_prio", "target_cpu",
           "orig_cpu", "dest_cpu", "child_pid", "child_comm", "group_dead", "cpu_id", "node_id", "mm_cid"]


class TooManyEvents(conform.InputError):
    """More events than one conformance replay reads (422)."""


def _ints(table: pa.Table, name: str, fill: int = -1) -> np.ndarray:
    """An integer column with nulls as fill."""
    col = table.column(name)
    return col.fill_null(pa.scalar(fill, col.type)).to_numpy().astype(np.int64)


def _dict_lookup(table: pa.Table, name: str, convert: Any, empty: Any, dtype: Any) -> np.ndarray:
    """A dictionary (or plain string) column through convert(value) once per distinct value;
    empty where null."""
    col = table.column(name).combine_chunks()
    if not pa.types.is_dictionary(col.type):
        col = col.dictionary_encode()
    values = np.array([convert(v) for v in col.dictionary.to_pylist()] + [empty], dtype=dtype)
    idx = pc.fill_null(col.indices, len(values) - 1).to_numpy().astype(np.int64)
    return values[idx]


def _names(table: pa.Table, name: str) -> np.ndarray:
    """A string column as NUL-padded 16-byte names (b"" where null); longer names are cut."""
    return _dict_lookup(table, name, lambda v: (v or "").encode("utf-8", "replace")[:16], b"", "S16")


def to_records(table: pa.Table) -> np.ndarray:
    """Arrow rows (records.SCHEMA columns, in time order) -> ks_event records (records.RAW)."""
    n = table.num_rows
    out = np.zeros(n, records.RECORD)
    t = _dict_lookup(table, "type", lambda v: TYPE_IDS.get(v, 0), 0, np.uint32)
    out["ts_ns"] = table.column("ts_ns").to_numpy(zero_copy_only=False).astype(np.uint64)
    out["type"] = t
    out["cpu"] = _ints(table, "cpu")
    out["pid"] = _ints(table, "pid")
    out["tgid"] = _ints(table, "tgid")
    out["comm"] = _names(table, "comm")
    sw = t == records.SWITCH
    wk = np.isin(t, records.WAKEUPS)
    mg = t == records.MIGRATE
    fk = t == records.FORK
    ex = np.isin(t, records.EXITS)
    rs = t == records.RSEQ
    about = wk | mg | ex | fk
    # Overlapping union fields: each row is written through its own type's fields only.
    p_comm = np.where(sw, _names(table, "prev_comm"), _names(table, "task_comm"))
    out["p_comm"][sw | about] = p_comm[sw | about]
    p_pid = np.where(sw, _ints(table, "prev_pid"), _ints(table, "task_pid"))
    out["p_pid"][sw | about] = p_pid[sw | about]
    p_prio = np.where(sw, _ints(table, "prev_prio"), _ints(table, "prio"))
    has_prio = sw | wk | mg | ex
    out["p_prio"][has_prio] = p_prio[has_prio]
    out["p_word64"][sw] = _ints(table, "prev_state", 0)[sw]
    # The rest: (record field, column, reader, the rows of the types that have it).
    for field, column, read, rows in (
            ("next_comm", "next_comm", _names, sw), ("next_pid", "next_pid", _ints, sw),
            ("next_prio", "next_prio", _ints, sw), ("p_i64", "target_cpu", _ints, wk),
            ("p_i64", "orig_cpu", _ints, mg), ("p_i68", "dest_cpu", _ints, mg),
            ("p_i64", "group_dead", _ints, ex), ("child_comm", "child_comm", _names, fk),
            ("child_pid", "child_pid", _ints, fk), ("r_cpu_id", "cpu_id", _ints, rs),
            ("r_node_id", "node_id", _ints, rs), ("r_mm_cid", "mm_cid", _ints, rs)):
        out[field][rows] = read(table, column)[rows]
    return out.view(records.RAW)


def run_stored(store: TraceStore, rec: TraceRecord, variant: str = "auto", resync: bool = False,
               hz: int = conform.DEFAULT_HZ, keep: int = 20, algo: str | None = None) -> dict[str, Any]:
    """The conformance report of a stored trace through the model `algo` (None: the first
    registered) (InputError / NothingToCompare / TooManyEvents)."""
    path = store.trace_dir(rec.id) / EVENTS_FILE
    table = ev_files.read_range(path, None, None, None, TYPES, MAX_EVENTS + 1, columns=COLUMNS)
    if table.num_rows > MAX_EVENTS:
        raise TooManyEvents(f"{rec.name}: more than {MAX_EVENTS:,} scheduling events: too many for one "
                            "conformance replay (capture a shorter trace)")
    meta = rec.summary.get("capture") or {}
    kernel = rec.kernel or ""
    nr_cpus = int(meta.get("smp") or 0) or rec.cpus
    doc = conform.replay(to_records(table), meta, kernel, algo=algo, variant=variant, hz=hz, keep=keep, nr_cpus=nr_cpus,
                         resync=resync, lost_events=int(rec.summary.get("lost_events") or 0), source=rec.name)
    return {"trace": rec.id, "name": rec.name, "format": rec.format, **doc}
