"""The struct layouts written out by hand in Python match the C compiler's offsetof/sizeof.

wasm-core/build/native/struct_layout (tools/layout/struct_layout.c, built by `make native`)
prints every shared struct's size and each field's [offset, size] as the compiler lays them
out. Checked against it here: the ctypes mirrors (kscope/native/structs.py), the numpy record
dtype of ks_event (kscope/ingest/records.py) and the offsets the wasm benchmark driver writes
(kscope/bench/wasm_core.mjs). The frontend's decoders are checked by
frontend/src/engine/struct_layouts.test.ts against the same program.
"""
from __future__ import annotations

import ctypes
import json
import re
import subprocess

import pytest

from kscope.core.config import REPO_ROOT
from kscope.ingest import records
from kscope.native import structs

PROGRAM = REPO_ROOT / "wasm-core" / "build" / "native" / "struct_layout"
BENCH_DRIVER = REPO_ROOT / "backend" / "kscope" / "bench" / "wasm_core.mjs"

# records.RECORD's overlapping names -> the C field each one reads (event.h's union).
RECORD_FIELDS = {
    "ts_ns": "ts_ns", "type": "type", "buffer": "buffer", "cpu": "cpu", "pid": "pid", "tgid": "tgid", "comm": "comm",
    "p_comm": "u.sched_switch.prev_comm", "p_pid": "u.sched_switch.prev_pid",
    "p_prio": "u.sched_switch.prev_prio", "p_word64": "u.sched_switch.prev_state",
    "p_i64": "u.sched_wakeup.target_cpu", "p_i68": "u.sched_migrate_task.dest_cpu",
    "next_comm": "u.sched_switch.next_comm", "next_pid": "u.sched_switch.next_pid",
    "next_prio": "u.sched_switch.next_prio",
    "child_comm": "u.sched_process_fork.child_comm", "child_pid": "u.sched_process_fork.child_pid",
    "r_cpu_id": "u.rseq_update.cpu_id", "r_node_id": "u.rseq_update.node_id",
    "r_mm_cid": "u.rseq_update.mm_cid",
    "g_name_off": "u.generic.name_off", "g_fields_off": "u.generic.fields_off",
}
# ctypes names that differ from the C member they mirror.
CTYPES_ALIASES = {("ks_event", "raw"): "u"}


@pytest.fixture(scope="module")
def layout() -> dict:
    assert PROGRAM.exists(), f"{PROGRAM} is missing: run `make -C wasm-core native`"
    return json.loads(subprocess.run([str(PROGRAM)], check=True, capture_output=True,
                                     text=True, timeout=30).stdout)


def c_name(cls: type) -> str:
    """KsSimCpu -> ks_sim_cpu."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).lower()


def ctypes_mismatches(cls: type, layout: dict) -> list[str]:
    """Where a ctypes Structure differs from the C layout (size, or a field's offset/size)."""
    name = c_name(cls)
    if name not in layout:
        return [f"{name}: not printed by tools/layout/struct_layout.c"]
    c = layout[name]
    out = []
    if ctypes.sizeof(cls) != c["size"]:
        out.append(f"{name}: sizeof {ctypes.sizeof(cls)} in Python, {c['size']} in C")
    for field, _ in cls._fields_:
        member = CTYPES_ALIASES.get((name, field), field)
        if member not in c["fields"]:
            out.append(f"{name}.{field}: no such field in C")
            continue
        got = [getattr(cls, field).offset, getattr(cls, field).size]
        if got != c["fields"][member]:
            out.append(f"{name}.{field}: [offset, size] {got} in Python, {c['fields'][member]} in C")
    return out


def shared_ctypes_structs() -> list[type]:
    return [v for v in vars(structs).values()
            if isinstance(v, type) and issubclass(v, ctypes.Structure) and v.__module__ == structs.__name__]


def test_every_ctypes_mirror_matches_the_c_layout(layout):
    classes = shared_ctypes_structs()
    assert len(classes) >= 15
    problems = [p for cls in classes for p in ctypes_mismatches(cls, layout)]
    assert problems == [], "kscope/native/structs.py differs from the C headers"


def test_a_moved_field_is_caught(layout):
    """The check itself: a mirror with two fields swapped (the layout h-tracedat changes)."""
    class KsEvent(ctypes.Structure):
        _fields_ = [("ts_ns", ctypes.c_uint64), ("cpu", ctypes.c_int32), ("type", ctypes.c_uint32),
                    ("pid", ctypes.c_int32), ("tgid", ctypes.c_int32), ("comm", ctypes.c_char * 16),
                    ("raw", ctypes.c_uint8 * 56)]
    problems = ctypes_mismatches(KsEvent, layout)
    assert any(p.startswith("ks_event.cpu: [offset, size] [8, 4] in Python") for p in problems)


def test_event_record_dtype_matches_the_c_layout(layout):
    event = layout["ks_event"]
    assert records.RECORD.itemsize == event["size"]
    assert set(records.RECORD.names) == set(RECORD_FIELDS), "a RECORD field has no C member here"
    problems = []
    for name, member in RECORD_FIELDS.items():
        dtype, offset = records.RECORD.fields[name][:2]
        got, want = [offset, dtype.itemsize], event["fields"][member]
        if got != want:
            problems.append(f"records.RECORD[{name!r}] ({member}): {got} in Python, {want} in C")
    assert problems == []


def test_wasm_bench_driver_offsets_match_the_c_layout(layout):
    text = BENCH_DRIVER.read_text()

    def const(name: str) -> int:
        m = re.search(rf"\b{name} = (\d+)", text)
        assert m, f"wasm_core.mjs: no `{name} = N`"
        return int(m.group(1))

    assert const("EVENT_BYTES") == layout["ks_event"]["size"]
    assert const("STATS_BYTES") == layout["ks_sim_stats"]["size"]
    limit = layout["ks_run_limit"]["fields"]
    for js, member in (("typeMask", "type_mask"), ("tid", "tid"), ("maxEvents", "max_events")):
        m = re.search(rf"\(l \+ (\d+)\) >>> 2\] = {js};", text)
        assert m and int(m.group(1)) == limit[member][0], f"wasm_core.mjs: ks_run_limit.{member}"
    perr = layout["ks_parse_error"]["fields"]
    assert f"UTF8ToString(e + {perr['field'][0]})" in text
    assert f"UTF8ToString(e + {perr['message'][0]})" in text
    # ks_sim_config in wasm32: the algo pointer is 4 bytes, so cache follows it at +4.
    cfg = layout["ks_sim_config"]["fields"]
    assert f"_ks_cache_default_params(config + {cfg['algo'][0] + 4})" in text
    assert f"HEAPU32[(config + {cfg['algo'][0]}) >>> 2] = this.algo" in text
    # The scratch block's parts do not overlap.
    wasm_config = cfg["algo"][0] + 4 + layout["ks_cache_params"]["size"]
    assert const("S_CONFIG") + wasm_config <= const("S_LIMIT")
    assert const("S_LIMIT") + layout["ks_run_limit"]["size"] <= const("S_N")
    assert const("S_PERR") + layout["ks_parse_error"]["size"] <= const("S_STATS")
    assert const("S_STATS") + layout["ks_sim_stats"]["size"] <= const("SCRATCH_BYTES")


def gaps(struct: dict) -> list[str]:
    """Bytes of a struct no listed top-level field covers: implicit padding or an unlisted field."""
    out, pos = [], 0
    top = sorted((f for n, f in struct["fields"].items() if "." not in n), key=lambda f: f[0])
    for offset, size in top:
        if offset != pos:
            out.append(f"bytes {pos}..{offset}")
        pos = max(pos, offset + size)
    if pos != struct["size"]:
        out.append(f"bytes {pos}..{struct['size']}")
    return out


def test_struct_layout_lists_every_byte_of_each_shared_struct(layout):
    """The shared structs have no implicit padding (explicit `reserved` fields instead), so a
    gap means a field struct_layout.c does not print: a new field the tests cannot see."""
    assert {name: gaps(s) for name, s in layout.items() if gaps(s)} == {}
    assert gaps({"size": 16, "fields": {"a": [0, 2], "c": [4, 4], "d": [8, 8]}}) == ["bytes 2..4"]
