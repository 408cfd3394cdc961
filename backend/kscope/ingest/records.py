"""ks_event records (96 bytes each, event.h) to Arrow columns, without a loop per event.

One numpy structured dtype with overlapping fields reads every layout of the
payload union at once; each typed column takes its values from the rows whose
type has that field and is null elsewhere. comm strings go through Arrow's
dictionary encoding (a few distinct names per million events), and generic
records' name and fields text is cut out of the log's text arena by offsets.

Columns (nulls where a type has no such field):

    ts_ns int64, cpu int32, type dict<string>, pid, tgid int32, comm dict<string>
    task_pid, task_comm, prio      the task the event is about: wakeup*/migrate/exit/free
                                   (fork: the parent; switch: see prev_*)
    prev_comm, prev_pid, prev_prio, prev_state, next_comm, next_pid, next_prio   sched_switch
    target_cpu (wakeup*), orig_cpu, dest_cpu (migrate), child_pid, child_comm (fork),
    group_dead (exit: 1/0), cpu_id, node_id, mm_cid (rseq_update),
    name dict<string>, fields string                          generic events: name, text
"""

import numpy as np
import pyarrow as pa

from kscope.native.events import EVENT_SIZE, EVENT_TYPES, TYPE_IDS

SWITCH = TYPE_IDS["sched_switch"]
WAKEUPS = (TYPE_IDS["sched_waking"], TYPE_IDS["sched_wakeup"], TYPE_IDS["sched_wakeup_new"])
MIGRATE = TYPE_IDS["sched_migrate_task"]
FORK = TYPE_IDS["sched_process_fork"]
EXITS = (TYPE_IDS["sched_process_exit"], TYPE_IDS["sched_process_free"])
RSEQ = TYPE_IDS["rseq_update"]
GENERIC = TYPE_IDS["generic"]

_FIELDS = {  # name: (numpy format, byte offset) - every layout of event.h's union
    "ts_ns": ("<u8", 0), "type": ("<u4", 8), "cpu": ("<i4", 12), "pid": ("<i4", 16),
    "tgid": ("<i4", 20), "comm": ("S16", 24),
    "p_comm": ("S16", 40), "p_pid": ("<i4", 56), "p_prio": ("<i4", 60),
    "p_word64": ("<i8", 64), "p_i64": ("<i4", 64), "p_i68": ("<i4", 68),
    "next_comm": ("S16", 72), "next_pid": ("<i4", 88), "next_prio": ("<i4", 92),
    "child_comm": ("S16", 60), "child_pid": ("<i4", 76),
    "r_cpu_id": ("<i4", 40), "r_node_id": ("<i4", 44), "r_mm_cid": ("<i4", 48),
    "g_name_off": ("<u4", 40), "g_fields_off": ("<u4", 44),
}
RECORD = np.dtype({"names": list(_FIELDS), "formats": [f for f, _ in _FIELDS.values()],
                   "offsets": [o for _, o in _FIELDS.values()], "itemsize": EVENT_SIZE})
RAW = np.dtype((np.void, EVENT_SIZE))  # a record as an opaque item (fast to copy and take)

_DICT_STR = pa.dictionary(pa.int32(), pa.string())
SCHEMA = pa.schema([
    ("ts_ns", pa.int64()), ("cpu", pa.int32()), ("type", pa.dictionary(pa.int8(), pa.string())),
    ("pid", pa.int32()), ("tgid", pa.int32()), ("comm", _DICT_STR),
    ("task_pid", pa.int32()), ("task_comm", _DICT_STR), ("prio", pa.int32()),
    ("prev_comm", _DICT_STR), ("prev_pid", pa.int32()), ("prev_prio", pa.int32()),
    ("prev_state", pa.int64()), ("next_comm", _DICT_STR), ("next_pid", pa.int32()),
    ("next_prio", pa.int32()),
    ("target_cpu", pa.int32()), ("orig_cpu", pa.int32()), ("dest_cpu", pa.int32()),
    ("child_pid", pa.int32()), ("child_comm", _DICT_STR), ("group_dead", pa.int8()),
    ("cpu_id", pa.int32()), ("node_id", pa.int32()), ("mm_cid", pa.int32()),
    ("name", _DICT_STR), ("fields", pa.string()),
])
_TYPE_DICT = pa.array(list(EVENT_TYPES), pa.string())


def as_records(raw: bytes | memoryview) -> np.ndarray:
    """A zero-copy structured view of back-to-back records."""
    return np.frombuffer(raw, dtype=RECORD)


def _ints(values: np.ndarray, mask: np.ndarray | None, arrow_type: pa.DataType = pa.int32()) -> pa.Array:
    values = np.ascontiguousarray(values)
    if mask is None:
        return pa.array(values, arrow_type)
    return pa.array(values, arrow_type, mask=~mask)


# int32 words of a record (byte offset / 4) that become columns: one transposing copy
# reads them all, instead of one strided pass over the records per column.
_WORDS = {"cpu": 3, "pid": 4, "tgid": 5, "r_cpu_id": 10, "r_node_id": 11, "r_mm_cid": 12, "p_pid": 14,
          "p_prio": 15, "p_i64": 16, "p_i68": 17, "child_pid": 19, "next_pid": 22, "next_prio": 23}


def _word_columns(rec: np.ndarray) -> dict[str, np.ndarray]:
    words = rec.view(RAW).view("<i4").reshape(len(rec), EVENT_SIZE // 4)
    block = np.ascontiguousarray(words[:, list(_WORDS.values())].T)
    return dict(zip(_WORDS, block))


def _comms(values: np.ndarray, mask: np.ndarray | None) -> pa.Array:
    """16-byte NUL-padded names -> dictionary<int32, string> (null where mask is False)."""
    n = len(values)
    rows = np.arange(n) if mask is None else np.flatnonzero(mask)
    if len(rows) == 0:
        return pa.nulls(n, _DICT_STR)
    picked = np.ascontiguousarray(values[rows]).view(np.uint8)
    fixed = pa.FixedSizeBinaryArray.from_buffers(pa.binary(16), len(rows), [None, pa.py_buffer(picked)])
    encoded = fixed.dictionary_encode()
    names = [v.split(b"\0", 1)[0].decode("utf-8", "replace") for v in encoded.dictionary.to_pylist()]
    indices = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int32, copy=False)
    if mask is None:
        return pa.DictionaryArray.from_arrays(pa.array(indices), pa.array(names, pa.string()))
    full = np.zeros(n, np.int32)
    full[rows] = indices
    return pa.DictionaryArray.from_arrays(pa.array(full, mask=~mask), pa.array(names, pa.string()))


def _generic_text(rec: np.ndarray, is_generic: np.ndarray, arena: bytes) -> tuple[pa.Array, pa.Array]:
    """(name, fields) columns, cut out of the text arena at each record's offsets."""
    n = len(rec)
    rows = np.flatnonzero(is_generic)
    if len(rows) == 0:
        return pa.nulls(n, _DICT_STR), pa.nulls(n, pa.string())
    text = np.frombuffer(arena, np.uint8)
    nuls = np.flatnonzero(text == 0)
    starts = np.empty(2 * len(rows), np.int64)
    starts[0::2] = rec["g_name_off"][rows]
    starts[1::2] = rec["g_fields_off"][rows]
    # Each string ends at the first NUL at or after its start.
    lengths = nuls[np.searchsorted(nuls, starts)] - starts
    keep = np.repeat(np.arange(len(lengths)), lengths)  # index of the string each kept byte is in
    within = np.arange(len(keep)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    data = text[starts[keep] + within] if len(keep) else np.empty(0, np.uint8)
    offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int32)
    texts = pa.StringArray.from_buffers(len(lengths), pa.py_buffer(offsets), pa.py_buffer(data.tobytes()))
    try:
        texts.validate(full=True)
    except pa.ArrowInvalid:  # not UTF-8: replace bad bytes (rare, so per string is fine)
        texts = pa.array([bytes(s.as_buffer()).decode("utf-8", "replace") if s.is_valid else ""
                          for s in texts.cast(pa.binary())], pa.string())
    names = texts.take(pa.array(np.arange(0, len(texts), 2))).dictionary_encode()
    fields = texts.take(pa.array(np.arange(1, len(texts), 2)))
    full = np.zeros(n, np.int32)
    full[rows] = names.indices.to_numpy(zero_copy_only=False)
    name_col = pa.DictionaryArray.from_arrays(pa.array(full, mask=~is_generic), names.dictionary)
    where = np.full(n, -1, np.int64)
    where[rows] = np.arange(len(rows))
    fields_col = fields.take(pa.array(where, mask=~is_generic))
    return name_col, fields_col


def to_table(rec: np.ndarray, arena: bytes = b"") -> pa.Table:
    """The Arrow table of a structured record array (see SCHEMA)."""
    w = _word_columns(rec)
    t = np.ascontiguousarray(rec["type"])
    is_switch = t == SWITCH
    is_wakeup = np.isin(t, WAKEUPS)
    is_migrate = t == MIGRATE
    is_fork = t == FORK
    is_exit = np.isin(t, EXITS)
    is_rseq = t == RSEQ
    is_generic = t == GENERIC
    about = is_wakeup | is_migrate | is_exit | is_fork  # payload comm/pid name the task
    has_prio = is_wakeup | is_migrate | is_exit
    group_dead = w["p_i64"]
    cols = {
        "ts_ns": pa.array(np.ascontiguousarray(rec["ts_ns"]).view(np.int64)),
        "cpu": _ints(w["cpu"], None),
        "type": pa.DictionaryArray.from_arrays(pa.array(t.astype(np.int8)), _TYPE_DICT),
        "pid": _ints(w["pid"], None),
        "tgid": _ints(w["tgid"], None),
        "comm": _comms(rec["comm"], None),
        "task_pid": _ints(w["p_pid"], about),
        "task_comm": _comms(rec["p_comm"], about),
        "prio": _ints(w["p_prio"], has_prio),
        "prev_comm": _comms(rec["p_comm"], is_switch),
        "prev_pid": _ints(w["p_pid"], is_switch),
        "prev_prio": _ints(w["p_prio"], is_switch),
        "prev_state": _ints(rec["p_word64"], is_switch, pa.int64()),
        "next_comm": _comms(rec["next_comm"], is_switch),
        "next_pid": _ints(w["next_pid"], is_switch),
        "next_prio": _ints(w["next_prio"], is_switch),
        "target_cpu": _ints(w["p_i64"], is_wakeup),
        "orig_cpu": _ints(w["p_i64"], is_migrate),
        "dest_cpu": _ints(w["p_i68"], is_migrate),
        "child_pid": _ints(w["child_pid"], is_fork),
        "child_comm": _comms(rec["child_comm"], is_fork),
        "group_dead": _ints(group_dead.astype(np.int8), is_exit & (group_dead >= 0), pa.int8()),
        "cpu_id": _ints(w["r_cpu_id"], is_rseq),
        "node_id": _ints(w["r_node_id"], is_rseq & (w["r_node_id"] >= 0)),
        "mm_cid": _ints(w["r_mm_cid"], is_rseq & (w["r_mm_cid"] >= 0)),
    }
    cols["name"], cols["fields"] = _generic_text(rec, is_generic, arena)
    return pa.Table.from_arrays([cols[f.name] for f in SCHEMA], schema=SCHEMA)
