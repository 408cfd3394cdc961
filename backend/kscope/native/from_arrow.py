"""Stored events (the Arrow rows of store/events.py, SCHEMA of ingest/records.py) back to
96-byte ks_event records in a native EventLog, so the C ftrace exporter prints them.

The inverse of ingest/records.py's table_of(): each typed column goes back to the offset
the record layout (kscope/event.h) gives it, with numpy over the whole batch. Generic
records carry their name and fields text, which only ks_event_log_append_generic can put
in the log's text arena, so those are appended one by one, in time order between runs of
typed records appended at once (ks_event_log_append_many).
"""

import ctypes
from functools import lru_cache
from typing import Any

import numpy as np
import pyarrow as pa

from kscope.ingest.records import EXITS, FORK, GENERIC, MIGRATE, RECORD, RSEQ, SWITCH, WAKEUPS
from kscope.native import core
from kscope.native.events import EVENT_SIZE, TYPE_IDS
from kscope.native.log import EventLog


def _ints(table: pa.Table, name: str, fill: int = 0) -> np.ndarray:
    return table[name].to_numpy(zero_copy_only=False) if table[name].null_count == 0 else \
        table[name].fill_null(fill).to_numpy(zero_copy_only=False)


def _comms(table: pa.Table, name: str) -> np.ndarray:
    """A comm-like column as fixed 16-byte strings (what the record holds; NUL padded), encoded
    once per distinct value (the columns are dictionaries) and gathered by index."""
    col = table[name].combine_chunks()
    if not pa.types.is_dictionary(col.type):
        col = col.cast(pa.string()).dictionary_encode()
    names = np.array([s.encode("utf-8")[:16] for s in col.dictionary.to_pylist()] + [b""], dtype="S16")
    idx = col.indices.fill_null(len(names) - 1).to_numpy(zero_copy_only=False)
    return names[idx]


def to_records(table: pa.Table) -> np.ndarray:
    """The rows as an array of RECORD (96 bytes each), generic rows' text offsets left 0."""
    n = table.num_rows
    rec = np.zeros(n, RECORD)
    if n == 0:
        return rec
    type_names = table["type"].cast(pa.string()).to_pylist()
    types = np.array([TYPE_IDS.get(t, GENERIC) for t in type_names], np.uint32)
    rec["ts_ns"] = _ints(table, "ts_ns")
    rec["type"] = types
    rec["cpu"] = _ints(table, "cpu")
    rec["pid"] = _ints(table, "pid")
    rec["tgid"] = _ints(table, "tgid", -1)
    rec["comm"] = _comms(table, "comm")

    def put(field: str, rows: np.ndarray, values: np.ndarray) -> None:
        if rows.any():
            column = rec[field]  # a view of the field inside every record
            column[rows] = values[rows]

    switch = types == SWITCH
    if switch.any():
        put("p_comm", switch, _comms(table, "prev_comm"))
        put("p_pid", switch, _ints(table, "prev_pid"))
        put("p_prio", switch, _ints(table, "prev_prio"))
        put("p_word64", switch, _ints(table, "prev_state"))
        put("next_comm", switch, _comms(table, "next_comm"))
        put("next_pid", switch, _ints(table, "next_pid"))
        put("next_prio", switch, _ints(table, "next_prio"))
    about = np.isin(types, [*WAKEUPS, MIGRATE, FORK, *EXITS])
    if about.any():
        put("p_comm", about, _comms(table, "task_comm"))
        put("p_pid", about, _ints(table, "task_pid"))
        put("p_prio", about & (types != FORK), _ints(table, "prio"))
    put("p_i64", np.isin(types, WAKEUPS), _ints(table, "target_cpu"))
    migrate = types == MIGRATE
    put("p_i64", migrate, _ints(table, "orig_cpu"))
    put("p_i68", migrate, _ints(table, "dest_cpu"))
    fork = types == FORK
    if fork.any():
        put("child_comm", fork, _comms(table, "child_comm"))
        put("child_pid", fork, _ints(table, "child_pid"))
    put("p_i64", np.isin(types, EXITS), _ints(table, "group_dead", -1))
    rseq = types == RSEQ
    if rseq.any():
        put("r_cpu_id", rseq, _ints(table, "cpu_id"))
        put("r_node_id", rseq, _ints(table, "node_id", -1))
        put("r_mm_cid", rseq, _ints(table, "mm_cid", -1))
    return rec


@lru_cache(maxsize=1)
def _appenders() -> tuple[Any, Any]:
    """ks_event_log_append_many and ks_event_log_append_generic, with their prototypes."""
    lib = core.lib()
    one = lib["ks_event_log_append_many"]
    one.argtypes, one.restype = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint32], ctypes.c_int32
    gen = lib["ks_event_log_append_generic"]
    gen.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32,
                    ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p]
    gen.restype = ctypes.c_int32
    return one, gen


def append_table(log: EventLog, table: pa.Table) -> None:
    """Appends the rows (in their order) to the log: each run of typed rows with one call,
    generic ones one by one with their name and fields text."""
    rec = to_records(table)
    if not len(rec):
        return
    append_many, append_generic = _appenders()
    base = rec.ctypes.data
    generic = np.flatnonzero(rec["type"] == GENERIC)
    names = table["name"].cast(pa.string()).to_pylist() if len(generic) else []
    fields = table["fields"].to_pylist() if len(generic) else []
    comms = table["comm"].cast(pa.string()).to_pylist() if len(generic) else []
    handle = log.handle
    start = 0
    for i in [*generic.tolist(), len(rec)]:
        if i > start:
            core.check(append_many(handle, base + start * EVENT_SIZE, i - start))
        if i < len(rec):
            core.check(append_generic(
                handle, int(rec["ts_ns"][i]), int(rec["cpu"][i]), int(rec["pid"][i]), int(rec["tgid"][i]),
                (comms[i] or "").encode(), (names[i] or "").encode(), (fields[i] or "").encode()))
        start = i + 1
