"""The cost model v2 (wasm-core/include/kscope/cost.h, native/cost.h) through ctypes.

    with Topology.from_preset("spr-2s") as topo:
        params = cost.preset_params(topo)             # a KsCostParams to adjust
        result = cost.run_sweep(params, cost.sweep(lines=256, where="own_llc"))
        result["total_ns"], result["parts"]           # parts: {"core": ns, ...} summing to total

What each part means: docs/cost_model_v2.md (and the essay atop each src/machine/cost_*.c).
"""

import ctypes
from functools import lru_cache
from typing import Any

from kscope.native import core
from kscope.native import structs as st
from kscope.native.machine import Topology

WHERE = ("own_private", "own_llc", "same_llc_core", "other_llc", "other_socket", "dram")  # ks_cost_where
NEVER = 2**64 - 1  # KS_COST_NEVER


@lru_cache(maxsize=1)
def part_names() -> tuple[str, ...]:
    """The parts' stable names in index order (ks_cost_part_name)."""
    lib = core.lib()
    return tuple(core.text(lib.ks_cost_part_name(i)) for i in range(st.KS_COST_PARTS))


def parts_dict(values: Any) -> dict[str, float]:
    """A part_ns array as {name: ns}."""
    return dict(zip(part_names(), (float(v) for v in values)))


def preset_params(topo: Topology) -> st.KsCostParams:
    """The topology preset's v2 figures (ks_topology_cost_params)."""
    out = st.KsCostParams()
    core.check(core.lib().ks_topology_cost_params(topo.handle, ctypes.byref(out)))
    return out


def sweep(*, lines: int = 256, where: str = "own_private", dirty: bool = True, age_ns: int = 0,
          holder_idle_ns: int = 0, idle_ns: int = 0, since_own_touch_ns: int = 0,
          first_touch_pages: int = 0, background_private: int = 0, background_llc: int = 0,
          random: bool = False, store: bool = True) -> st.KsCostSweep:
    """A one-group burst (the calibrate microbenchmarks' shapes)."""
    sw = st.KsCostSweep(order=1 if random else 0, is_store=int(store), idle_ns=idle_ns,
                        since_own_touch_ns=since_own_touch_ns, n_groups=1,
                        first_touch_pages=first_touch_pages,
                        background_private_bytes_per_us=background_private,
                        background_llc_bytes_per_us=background_llc)
    sw.groups[0] = st.KsCostLines(lines=lines, where=WHERE.index(where), state=int(dirty),
                                  age_ns=age_ns, holder_idle_ns=holder_idle_ns)
    return sw


SOURCES = ("l1", "l2", "llc", "same_llc_core", "other_llc", "other_socket", "dram_local",
           "dram_remote")  # ks_cache_source, the distance of a contended line or a lock hand-off


def contended_line(params: st.KsCostParams, accessors: int, distance: str, think_ns: float) -> dict[str, Any]:
    """ks_cost_contended_line: the mean time of one touch of a line with `accessors` users."""
    out = st.KsCostResult()
    core.check(core.lib().ks_cost_contended_line(ctypes.byref(params), accessors, SOURCES.index(distance),
                                                 think_ns, ctypes.byref(out)))
    return _result(out)


def mcs_acquire(params: st.KsCostParams, waiters: int, distance: str, hold_ns: float,
                cs_lines: int) -> dict[str, Any]:
    """ks_cost_mcs_acquire: one acquisition of a queued spinlock behind `waiters`."""
    out = st.KsCostResult()
    core.check(core.lib().ks_cost_mcs_acquire(ctypes.byref(params), waiters, SOURCES.index(distance),
                                              hold_ns, cs_lines, ctypes.byref(out)))
    return _result(out)


def run_sweep(params: st.KsCostParams, sw: st.KsCostSweep) -> dict[str, Any]:
    """ks_cost_sweep_run as a dict: total, parts, serial, and the counts views use."""
    out = st.KsCostResult()
    core.check(core.lib().ks_cost_sweep_run(ctypes.byref(params), ctypes.byref(sw), ctypes.byref(out)))
    return _result(out)


def _result(out: st.KsCostResult) -> dict[str, Any]:
    return {
        "total_ns": out.total_ns, "parts": parts_dict(out.part_ns), "serial_ns": out.serial_ns,
        "lines_prefetched": out.lines_prefetched, "lines_idle_flushed": out.lines_idle_flushed,
        "lines_rfo": out.lines_rfo, "pages_walked": out.pages_walked, "pages_faulted": out.pages_faulted,
        "cstate": out.cstate,
    }
