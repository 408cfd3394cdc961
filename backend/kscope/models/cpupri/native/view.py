"""The cpupri model's views (wasm-core/include/kscope/cpupri/cpupri.h) read from a running
Simulation through the one generic export, ks_sim_model_view_get."""

import ctypes
from typing import Any

from kscope.native import core
from kscope.native.sim import Simulation

_u32, _i32, _u64, _f64 = ctypes.c_uint32, ctypes.c_int32, ctypes.c_uint64, ctypes.c_double

VIEW_SUMMARY, VIEW_C2C, VIEW_LEVELS = 1, 2, 3
VARIANTS = ("global", "pernode", "pernode-kscope")


class KsCpupriViewRequest(ctypes.Structure):
    _fields_ = [("view", _i32), ("first", _i32)]


class KsCpupriSummary(ctypes.Structure):
    _fields_ = [(n, _i32) for n in ("variant", "flags", "nr_cpus", "nr_nodes", "nr_rows", "mask_bytes",
                                    "set_cpus", "reserved")] + [
        (n, _u64) for n in ("sets", "finds", "finds_found", "nodes_scanned", "finds_changed_by_inflight",
                            "accesses", "mask_line_served")] + [
        (n, _f64) for n in ("access_ns", "wait_ns", "mask_line_busy_ns", "mask_line_wait_ns", "now_ns")]


class KsCpupriC2cRow(ctypes.Structure):
    _fields_ = [("object", ctypes.c_char * 40), ("symbol", ctypes.c_char * 32), ("level", _i32),
                ("node", _i32)] + [(n, _u32) for n in (
                    "offset", "line_offset", "loads", "sampled_loads", "local_hitm", "remote_hitm",
                    "stores", "store_l1_hit", "store_l1_miss", "reserved")] + [
                ("load_cycles_sum", _f64), ("wait_cycles_sum", _f64)]


assert ctypes.sizeof(KsCpupriViewRequest) == 8
assert ctypes.sizeof(KsCpupriSummary) == 128, "ks_cpupri_summary changed"
assert ctypes.sizeof(KsCpupriC2cRow) == 136, "ks_cpupri_c2c_row changed"


def _view_get() -> Any:
    fn = core.lib().ks_sim_model_view_get
    fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint32]
    fn.restype = ctypes.c_int32
    return fn


def _request(sim: Simulation, view: int, first: int, size: int) -> ctypes.Array:  # type: ignore[type-arg]
    buf = ctypes.create_string_buffer(max(size, ctypes.sizeof(KsCpupriViewRequest)))
    ctypes.memmove(buf, ctypes.byref(KsCpupriViewRequest(view, first)), ctypes.sizeof(KsCpupriViewRequest))
    core.check(_view_get()(sim.handle, buf, len(buf)))
    return buf


def _as_dict(s: ctypes.Structure) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, _ in s._fields_:  # type: ignore[attr-defined]
        v = getattr(s, name)
        out[name] = core.text(v) if isinstance(v, bytes) else v
    return out


def summary(sim: Simulation) -> dict[str, Any]:
    buf = _request(sim, VIEW_SUMMARY, 0, ctypes.sizeof(KsCpupriSummary))
    d = _as_dict(KsCpupriSummary.from_buffer_copy(buf))
    d.pop("reserved")
    d["variant"] = VARIANTS[d["variant"]]
    return d


def c2c_rows(sim: Simulation) -> list[dict[str, Any]]:
    n = summary(sim)["nr_rows"]
    size = ctypes.sizeof(KsCpupriC2cRow)
    rows: list[dict[str, Any]] = []
    chunk = 512
    for first in range(0, n, chunk):
        count = min(chunk, n - first)
        buf = _request(sim, VIEW_C2C, first, count * size)
        for i in range(count):
            row = _as_dict(KsCpupriC2cRow.from_buffer_copy(buf, i * size))
            row.pop("reserved")
            rows.append(row)
    return rows
