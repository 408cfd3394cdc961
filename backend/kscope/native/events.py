"""The 96-byte ks_event record (wasm-core/include/kscope/event.h) as Python data.

Runs hand events around as raw bytes (records back to back, straight from the
C log); this module turns them into dicts named after the tracepoints' own
fields, counts them by type, and hashes a stream with the C core's ks_fnv1a64
(FNV-1a 64 over the whole records), so a hash printed here can be compared with
one computed by the wasm build.
"""

import struct
from collections.abc import Callable, Iterator
from typing import Any

from kscope.native import core

EVENT_SIZE = 96

# ks_event_type, in enum order (a test checks them against ks_event_type_name).
EVENT_TYPES = (
    "generic",
    "sched_switch",
    "sched_waking",
    "sched_wakeup",
    "sched_wakeup_new",
    "sched_migrate_task",
    "sched_process_fork",
    "sched_process_exit",
    "sched_process_free",
    "rseq_update",
    "kmem_cache_alloc",
    "kmem_cache_free",
    "sheaf_refill",  # kscope's own sheaf events: no kernel tracepoint (event.h)
    "sheaf_flush",
    "barn_get",
    "barn_put",
)
TYPE_IDS = {name: i for i, name in enumerate(EVENT_TYPES)}

_HEADER = struct.Struct("<QHHiii16s")  # ts_ns type buffer cpu pid tgid comm; payload at byte 40
_WAKEUP = ("<16siii", ("comm", "pid", "prio", "target_cpu"))
_EXIT = ("<16siii", ("comm", "pid", "prio", "group_dead"))  # group_dead -1: not recorded
# call_site 0 with call_site_symbolic 1: the trace printed a symbol (not kept); node and
# accounted -1: not printed (kmem_cache_free) or any node; gfp_flags: 6.18's gfp_t bits.
_KMEM = ("<QQIIIhbB24s", ("call_site", "ptr", "bytes_req", "bytes_alloc", "gfp_flags", "node",
                          "accounted", "call_site_symbolic", "name"))
_SHEAF = ("<24siIIIiII", ("name", "node", "objects", "size", "capacity", "full", "barn_full",
                          "barn_empty"))
# Per-type payload: struct format and field names (the tracepoint's), in C order.
_PAYLOADS: dict[int, tuple[struct.Struct, tuple[str, ...]]] = {
    type_id: (struct.Struct(fmt), names)
    for type_id, (fmt, names) in {
        0: ("<II", ("name_off", "fields_off")),
        1: ("<16siiq16sii",
            ("prev_comm", "prev_pid", "prev_prio", "prev_state", "next_comm", "next_pid", "next_prio")),
        2: _WAKEUP,
        3: _WAKEUP,
        4: _WAKEUP,
        5: ("<16siiii", ("comm", "pid", "prio", "orig_cpu", "dest_cpu")),
        6: ("<16si16si", ("parent_comm", "parent_pid", "child_comm", "child_pid")),
        7: _EXIT,
        8: _EXIT,
        9: ("<iii", ("cpu_id", "node_id", "mm_cid")),
        10: _KMEM,
        11: _KMEM,
        12: _SHEAF,
        13: _SHEAF,
        14: _SHEAF,
        15: _SHEAF,
    }.items()
}

FNV_OFFSET = 0xCBF29CE484222325

# Resolves a generic record's arena offset to its text (the owning log's).
TextLookup = Callable[[int], str]


def _text(raw: bytes) -> str:
    return raw.split(b"\0", 1)[0].decode("utf-8", "replace")


def decode_event(record: bytes | memoryview, text: TextLookup | None = None) -> dict[str, Any]:
    """One record as a dict: the common header, and the type's tracepoint fields under "fields".

        {"ts_ns": 0, "type": "sched_wakeup", "cpu": 0, "pid": 0, "tgid": 0, "comm": "swapper/0",
         "fields": {"comm": "hackbench", "pid": 1000, "prio": 120, "target_cpu": 0}}

    (pid/comm of the header are the current task's; the payload names the task the
    event is about, as in the kernel's text.) A generic record's fields are its
    "name" and "text" when `text` can resolve the arena offsets, else the offsets.
    """
    ts_ns, type_id, buffer, cpu, pid, tgid, comm = _HEADER.unpack_from(record, 0)
    fields: dict[str, Any] = {}
    layout = _PAYLOADS.get(type_id)
    if layout is not None:
        fmt, names = layout
        for name, value in zip(names, fmt.unpack_from(record, 40)):
            fields[name] = _text(value) if isinstance(value, bytes) else value
    if type_id == 0 and text is not None:
        fields = {"name": text(fields["name_off"]), "text": text(fields["fields_off"])}
    return {
        "ts_ns": ts_ns,
        "type": EVENT_TYPES[type_id] if type_id < len(EVENT_TYPES) else f"type{type_id}",
        "cpu": cpu,
        "pid": pid,
        "tgid": tgid,
        "comm": _text(comm),
        **({"buffer": buffer} if buffer else {}),  # trace.dat: a buffer other than the first
        "fields": fields,
    }


def iter_records(data: bytes | memoryview) -> Iterator[memoryview]:
    """The 96-byte records of a buffer, in order (views, no copies)."""
    view = memoryview(data)
    if len(view) % EVENT_SIZE:
        raise ValueError(f"event buffer of {len(view)} bytes is not a whole number of records")
    for off in range(0, len(view), EVENT_SIZE):
        yield view[off : off + EVENT_SIZE]


def decode_events(data: bytes | memoryview, text: TextLookup | None = None) -> list[dict[str, Any]]:
    """Every record of a buffer as a dict (see decode_event)."""
    return [decode_event(r, text) for r in iter_records(data)]


def count_types(data: bytes | memoryview, counts: list[int]) -> None:
    """Adds each record's type to counts (indexed by ks_event_type; grows if needed)."""
    types = memoryview(data).cast("I")[2 :: EVENT_SIZE // 4]
    for type_id in types:
        if type_id >= len(counts):
            counts.extend([0] * (type_id + 1 - len(counts)))
        counts[type_id] += 1


def fnv1a64(data: bytes | memoryview, h: int = FNV_OFFSET) -> int:
    """FNV-1a 64 of data, continuing from h (pass the previous result to chain chunks).

    Computed by the C core (ks_fnv1a64), the same function the wasm build exports.
    """
    raw = bytes(data)
    return core.lib().ks_fnv1a64(raw, len(raw), h)


def hash_hex(h: int) -> str:
    """A hash as the 16-digit lowercase hex the JSON documents print."""
    return f"{h:016x}"
