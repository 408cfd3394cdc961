"""What the cost model v2 (docs/cost_model_v2.md) gives for each measured sequence.

Each value is ks_cost_sweep_run / ks_cost_contended_line / ks_cost_mcs_acquire (through
kscope.native.cost) on the preset's v2 figures (ks_topology_cost_params), for the access
pattern the microbenchmark runs (wasm-core/tools/calibrate). Background traffic is 0 (the
machine otherwise idle, as calibrate asks), an explicit choice, not a default of the model.
Nothing here changes or re-implements the model.
"""

from typing import Any

from kscope.native import cost
from kscope.native.machine import Topology

AREA_LINES = 16384 // 64
MS = 1_000_000
US = 1_000
# A buffer far larger than any cache, in lines, for the DRAM sequences (the benchmark's are
# tens of MiB): 64 MiB.
BIG_LINES = (64 << 20) // 64


def _sweep_ns(params: Any, **kw: Any) -> dict[str, Any]:
    return cost.run_sweep(params, cost.sweep(**kw))


def model_values(preset: str) -> dict[str, Any]:
    """{figure id: (v2 value or None, how)} for every measured figure, on the preset."""
    with Topology.from_preset(preset) as topo:
        p = cost.preset_params(topo)
        latency = topo.latency()
    mhz = latency["core_mhz"]
    v: dict[str, tuple[float | None, str]] = {}
    hot = _sweep_ns(p, lines=AREA_LINES, age_ns=10 * US, since_own_touch_ns=10 * US)
    v["sweep16k.hot"] = (hot["total_ns"], f"v2: 256 own L1 lines at {p.sweep_cycles_per_line} cycles per line, "
                                         f"{mhz} MHz (core work)")
    for ms in (1, 10, 100, 200, 1000):
        r = _sweep_ns(p, lines=AREA_LINES, age_ns=ms * MS, idle_ns=ms * MS, since_own_touch_ns=ms * MS)
        cstate = p.cstates[r["cstate"]].name.decode() if r["cstate"] >= 0 else "none"
        v[f"sweep16k.sleep_{ms}ms"] = (r["total_ns"], f"v2: the core idled {ms} ms (deepest state {cstate}), "
                                                     "no background: " + _parts(r))
    for key, where in (("ref_llc", "own_llc"), ("ref_dram", "dram")):
        r = _sweep_ns(p, lines=AREA_LINES, where=where, dirty=False, age_ns=10 * US, since_own_touch_ns=10 * US)
        v[f"sweep16k.{key}"] = (r["total_ns"], f"v2: 256 lines from {where}, TLB warm: " + _parts(r))
    r = _sweep_ns(p, lines=AREA_LINES, age_ns=200 * MS, idle_ns=200 * MS, since_own_touch_ns=200 * MS)
    v["sweep16k.tlbwarm.sleep_200ms"] = (r["total_ns"] - r["parts"]["tlb"],
                                         "v2: the 200 ms sleep row less its tlb part: " + _parts(r))
    r = _sweep_ns(p, lines=AREA_LINES, where="same_llc_core", age_ns=10 * US, since_own_touch_ns=20 * US)
    v["sweep16k.after_remote_write"] = (r["total_ns"], "v2: 256 lines Modified in another core of the LLC: " + _parts(r))
    r = _sweep_ns(p, lines=AREA_LINES, first_touch_pages=4)
    v["sweep16k.first_touch"] = (r["total_ns"], "v2: 4 first-touch faults + the sweep (the fault figure "
                                                "itself comes from this measurement: cost_tables.c)")
    one_way = cost.contended_line(p, 2, "same_llc_core", 0.0)
    v["pingpong.one_way"] = (one_way["parts"]["remote"], "v2: one transfer between two cores of the LLC")
    l1 = latency["cycles"]["l1"] * 1000.0 / mhz
    v["atomic.uncontended"] = (l1, "v2: the latency table's L1 (a lock op on an owned line)")
    v["atomic.contended"] = (one_way["total_ns"], "v2: a line with 2 accessors, no think time (MVA queue)")
    lock = cost.mcs_acquire(p, 1, "same_llc_core", 0.0, 1)
    v["spinlock.handoff"] = (lock["parts"]["lock_handoff"] + lock["parts"]["remote"],
                             "v2: MCS hand-off (2 transfers) + the counter line it guards")
    for level in ("l1", "l2", "llc"):
        v[f"latency.{level}"] = (latency["cycles"][level] * 1000.0 / mhz,
                                 f"v2 reads v1's latency table: {level} cycles at {mhz} MHz")
    dram1 = _sweep_ns(p, lines=1, where="dram", dirty=False, store=False, random=True)["total_ns"]
    v["latency.dram"] = (dram1, "v2: one line from local DRAM (a dependent chase: no overlap)")
    rand = _sweep_ns(p, lines=BIG_LINES, where="dram", dirty=False, store=False, random=True)
    per_random = rand["total_ns"] / BIG_LINES
    v["mlp.independent"] = (per_random, f"v2: random DRAM lines, {p.demand_mlp} in flight, per line")
    v["mlp.misses_in_flight"] = (dram1 / per_random if per_random else None,
                                 "v2: latency.dram / mlp.independent (demand_mlp, less the page walks)")
    seq = _sweep_ns(p, lines=BIG_LINES, where="dram", dirty=False, store=False)
    per_seq = seq["total_ns"] / BIG_LINES
    v["prefetch.sequential"] = (per_seq, f"v2: sequential DRAM lines, prefetched {p.prefetch_mlp} deep in a page")
    v["prefetch.random"] = (per_random, "v2: as mlp.independent")
    v["prefetch.gain"] = (per_random / per_seq if per_seq else None, "v2: random / sequential")
    v["pagewalk.spread"] = (None, "no counterpart (a chase over pages)")
    v["pagewalk.packed"] = (None, "no counterpart")
    l2 = latency["cycles"]["l2"] * 1000.0 / mhz
    v["pagewalk.cost"] = (float(p.walk_ns_measured) if p.walk_ns_measured > 0 else l2,
                          "v2: a walk of an STLB miss whose PTE line is in the L2 (cost_tlb.c; "
                          "walk_ns_measured when set)")
    v["bandwidth.dram_read"] = (64.0 / per_seq if per_seq else None,
                                "v2: 64 B per sequential line time (one core)")
    _idle_rows(p, v, latency["cycles"]["l1"] * 1000.0 / mhz)
    return {"preset": preset, "values": v}


IDLE_WAITS_MS = (1, 10, 100, 200)   # wasm-core/tools/calibrate/idle_common.c


def _chase_ns(p: Any, **kw: Any) -> tuple[float, dict[str, Any]]:
    """v2's ns per line of a dependent chase of the 256 lines: its serial figure (every trip
    after the previous one, no overlap: what a chase is) / 256."""
    r = _sweep_ns(p, lines=AREA_LINES, random=True, store=False, **kw)
    return r["serial_ns"] / AREA_LINES, r


def _idle_rows(p: Any, v: dict[str, tuple[float | None, str]], l1_ns: float) -> None:
    """The idle_chase / idle_busy / idle_clock figures: where v2 says the area's lines are
    (a chase's load waits for the previous one: v2's serial figure per line; an L1 hit's
    latency is not a trip in v2, so the L1 rows take the latency table's L1)."""
    v["idlechase.hot"] = (l1_ns, "v2: an own L1 line per load (the latency table's L1)")
    llc, _ = _chase_ns(p, where="own_llc", dirty=False, age_ns=10 * US, since_own_touch_ns=10 * US)
    v["idlechase.ref_l2evict"] = (llc, "v2: a line from this LLC per load (serial)")
    dram, _ = _chase_ns(p, where="dram", dirty=False, age_ns=10 * US, since_own_touch_ns=10 * US)
    v["idlechase.ref_dram"] = (dram, "v2: a line from local DRAM per load (serial; prefetch not counted)")
    for ms in IDLE_WAITS_MS:
        per, r = _chase_ns(p, age_ns=ms * MS, idle_ns=ms * MS, since_own_touch_ns=ms * MS)
        cstate = p.cstates[r["cstate"]].name.decode() if r["cstate"] >= 0 else "none"
        how = (f"v2: the core idled {ms} ms (deepest state {cstate}), no background: "
               f"{r['lines_idle_flushed']} lines flushed to the LLC, {r['pages_walked']} page walks")
        v[f"idlechase.sleep_{ms}ms"] = (per + r["parts"]["tlb"] / AREA_LINES, how + " (their ns spread per line)")
        v[f"idlechase.tlbwarm.sleep_{ms}ms"] = (per, how + "; the walks not counted (the TLB was warmed)")
        walks = r["pages_walked"]
        v[f"idlechase.walk.sleep_{ms}ms"] = (r["parts"]["tlb"] / walks if walks else 0.0,
                                            f"v2: its tlb part / {walks} page walks after the idle (cost_tlb.c)")
        for kind in ("wait", "rt_wait", "quiet_wait"):
            v[f"idlebusy.{kind}_{ms}ms"] = (l1_ns, f"v2: no idle, no background: the lines stay in L1 for {ms} ms")
        v[f"idleclock.sleep_{ms}ms"] = (None, "v2 has one clock: no ramp after idle (the hot chain is the v2 value)")
    v["idleclock.hot"] = (None, "no counterpart (a fixed chain of multiply-adds)")


def _parts(r: dict[str, Any]) -> str:
    return ", ".join(f"{k} {ns:.0f}" for k, ns in r["parts"].items() if ns >= 0.5)
