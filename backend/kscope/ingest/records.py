"""ks_event records (96 bytes each, event.h) to Arrow columns, without a loop per event.

The C core (kscope/columns.h, through kscope.native.columns) reads each record
once and writes every column, its validity bitmap and the comm dictionary ids
into one buffer; here each region becomes an Arrow buffer without a copy. Each
typed column takes its values from the rows whose type has that field and is
null elsewhere. Generic records' name and fields text is cut out of the log's
text arena by offsets (numpy, vectorized).

The numpy structured dtype RECORD (overlapping fields: every layout of the
payload union) stays for callers that read records themselves (kscope conform).

Columns (nulls where a type has no such field):

    ts_ns int64, cpu int32, type dict<string>, pid, tgid int32, comm dict<string>
    buffer dict<string>            the trace buffer a record came from: "" (the top one, and
                                   every trace without buffers) or a trace.dat instance name
    task_pid, task_comm, prio      the task the event is about: wakeup*/migrate/exit/free
                                   (fork: the parent; switch: see prev_*)
    prev_comm, prev_pid, prev_prio, prev_state, next_comm, next_pid, next_prio   sched_switch
    target_cpu (wakeup*), orig_cpu, dest_cpu (migrate), child_pid, child_comm (fork),
    group_dead (exit: 1/0), cpu_id, node_id, mm_cid (rseq_update),
    name dict<string>, fields string                          generic events: name, text

Allocator records (kmem_cache_alloc/free, kscope's sheaf events) have no columns yet:
kscope-ingest stores them as generic rows, their tracepoint name and the kernel's fields
text (tools/ingest/store_batches.c), so they read back as generic records.
"""

import numpy as np
import pyarrow as pa

from kscope.native.columns import Columns

from kscope.native.events import EVENT_SIZE, EVENT_TYPES, TYPE_IDS

SWITCH = TYPE_IDS["sched_switch"]
WAKEUPS = (TYPE_IDS["sched_waking"], TYPE_IDS["sched_wakeup"], TYPE_IDS["sched_wakeup_new"])
MIGRATE = TYPE_IDS["sched_migrate_task"]
FORK = TYPE_IDS["sched_process_fork"]
EXITS = (TYPE_IDS["sched_process_exit"], TYPE_IDS["sched_process_free"])
RSEQ = TYPE_IDS["rseq_update"]
GENERIC = TYPE_IDS["generic"]

_FIELDS = {  # name: (numpy format, byte offset) - every layout of event.h's union
    "ts_ns": ("<u8", 0), "type": ("<u2", 8), "buffer": ("<u2", 10), "cpu": ("<i4", 12), "pid": ("<i4", 16),
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
    ("buffer", pa.dictionary(pa.int8(), pa.string())),
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



def _buffer(a: np.ndarray) -> pa.Buffer:
    return pa.py_buffer(a)


def _column(cols: Columns, arrow_type: pa.DataType, values: str, valid: str | None,
            dictionary: pa.Array | None = None) -> pa.Array:
    """One Arrow array over the builder's buffer (no copy): values, and a validity bitmap."""
    nulls = cols.nulls[valid] if valid else 0
    bitmap = _buffer(cols.arrays[valid]) if nulls else None
    if nulls == cols.n and cols.n:
        return pa.nulls(cols.n, arrow_type)
    if dictionary is not None:
        return pa.DictionaryArray.from_buffers(arrow_type, cols.n, [bitmap, _buffer(cols.arrays[values])],
                                               dictionary, null_count=nulls)
    return pa.Array.from_buffers(arrow_type, cols.n, [bitmap, _buffer(cols.arrays[values])], null_count=nulls)


def _generic_text(cols: Columns, arena: bytes) -> tuple[pa.Array, pa.Array]:
    """(name, fields) columns, cut out of the text arena at each generic row's offsets."""
    n = cols.n
    if cols.nulls["valid_generic"] == n:
        return pa.nulls(n, _DICT_STR), pa.nulls(n, pa.string())
    is_generic = cols.arrays["type"] == GENERIC
    rows = np.flatnonzero(is_generic)
    text = np.frombuffer(arena, np.uint8)
    nuls = np.flatnonzero(text == 0)
    starts = np.empty(2 * len(rows), np.int64)
    starts[0::2] = cols.arrays["g_name_off"][rows]
    starts[1::2] = cols.arrays["g_fields_off"][rows]
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


# Arrow column <- (builder column, validity bitmap or None); comm-like columns are dictionaries.
_LAYOUT = {
    "ts_ns": ("ts_ns", None), "cpu": ("cpu", None), "pid": ("pid", None), "tgid": ("tgid", None),
    "task_pid": ("task_pid", "valid_about"), "prio": ("prio", "valid_prio"),
    "prev_pid": ("prev_pid", "valid_switch"), "prev_prio": ("prev_prio", "valid_switch"),
    "prev_state": ("prev_state", "valid_switch"), "next_pid": ("next_pid", "valid_switch"),
    "next_prio": ("next_prio", "valid_switch"), "target_cpu": ("target_cpu", "valid_wakeup"),
    "orig_cpu": ("orig_cpu", "valid_migrate"), "dest_cpu": ("dest_cpu", "valid_migrate"),
    "child_pid": ("child_pid", "valid_fork"), "group_dead": ("group_dead", "valid_group_dead"),
    "cpu_id": ("cpu_id", "valid_rseq"), "node_id": ("node_id", "valid_node_id"),
    "mm_cid": ("mm_cid", "valid_mm_cid"),
}
_COMMS = {"comm": None, "task_comm": "valid_about", "prev_comm": "valid_switch",
          "next_comm": "valid_switch", "child_comm": "valid_fork"}


def table_of(cols: Columns, arena: bytes = b"", buffers: list[str] | tuple[str, ...] = ("",)) -> pa.Table:
    """The Arrow table (see SCHEMA) of one builder batch; arena: the log's text arena;
    buffers: the names the records' buffer indexes point to (trace.dat instances)."""
    names = pa.array(cols.comm_names, pa.string())
    out: dict[str, pa.Array] = {}
    for field in SCHEMA:
        if field.name in _LAYOUT:
            values, valid = _LAYOUT[field.name]
            out[field.name] = _column(cols, field.type, values, valid)
        elif field.name in _COMMS:
            out[field.name] = _column(cols, field.type, field.name, _COMMS[field.name], names)
    out["type"] = _column(cols, SCHEMA.field("type").type, "type", None, _TYPE_DICT)
    out["buffer"] = _column(cols, SCHEMA.field("buffer").type, "buffer", None,
                            pa.array(list(buffers) or [""], pa.string()))
    out["name"], out["fields"] = _generic_text(cols, arena)
    return pa.Table.from_arrays([out[f.name] for f in SCHEMA], schema=SCHEMA)


def parquet_columns(cols: Columns, table: pa.Table) -> list:
    """The columns of one batch for kscope's Parquet writer (kscope.native.parquet), as
    kscope-ingest hands them over: the column builder's own buffers and bitmaps (the
    mapping above), Arrow only for type, name and fields. For the writer's tests and bench."""
    from kscope.native.parquet import Column, Strings, columns_of_arrow

    comms = Strings.of(cols.comm_names)
    out = []
    for field in SCHEMA:
        if field.name in _LAYOUT:
            values, valid = _LAYOUT[field.name]
            out.append(Column(cols.arrays[values], cols.arrays[valid] if valid else None))
        elif field.name in _COMMS:
            valid = _COMMS[field.name]
            out.append(Column(cols.arrays[field.name], cols.arrays[valid] if valid else None, dictionary=comms))
        else:
            out.extend(columns_of_arrow(table.select([field.name])))
    return out
