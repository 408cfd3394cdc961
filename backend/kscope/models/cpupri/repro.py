"""`kscope repro cpupri`: seed 001's FFmpeg shape on the modelled 480-CPU machine, global cpupri
masks beside the per-node split, and perf c2c's view of the mask line beside the seed's.

The workload (wasm-core/workloads/seed001-ffmpeg-60x8.json, built here by workload()): 60
instances, each pinned to 4 cores and their SMT siblings, of SCHED_FIFO 99 threads that run
in bursts and sleep (the seed's shape). The seed does not give the threads per instance, the
burst lengths or how the threads are woken: 12 threads per instance, each woken every 400 us
for 200 us at its own phase (unsynchronised) are ASSUMPTIONS, and the sensitivity table
re-runs the two layouts with shorter periods (more wake/sleep moves per second) and with an
instance's threads woken together, to show how the answer depends on them.

What is measured in the model (src/algo/cpupri/): every load, store and locked RMW the
kernel's cpupri_set and cpupri_find make goes through the v1 cache model (where the line is,
HITM or not) and the v2 cost model's per-line server (waiting behind other transfers of the
line); perf c2c's rows come from those accesses with perf's sampling rule (loads >= 30
cycles). Nothing is fitted to the seed's figures: the checks compare.

- cycles per load on the mask line: the hottest bitmap line (most HITMs) of each run, and for
  the per-node layouts the node lines of the same level together; the mean latency of its
  sampled loads, and the range of its rows' means (rows holding >= 0.5% of its records);
- kernel share: the modelled accesses' time over CPUs x time (the modelled part only: the
  seed's 20% also holds everything the model does not run);
- the c2c table of the global run's hot line by offset and symbol, beside the seed's appendix
  (seed_c2c.py reads it; perf's rows merged by offset and symbol).
"""

import json
import math
import random
import time
from collections.abc import Callable
from typing import Any

from kscope import repro
from kscope.native import cost
from kscope.native.machine import Topology
from kscope.native.sim import Simulation
from kscope.models.cpupri import seed_c2c
from kscope.models.cpupri.native import view

PRESET = "hcc-2s-480"
INSTANCES = 60                  # the seed
CORES_PER_INSTANCE = 4          # the seed: 4 physical cores, 8 logical CPUs
SMT_OFFSET = 240                # hcc-2s-480 numbers CPU c's sibling c + 240 (Linux's Intel order)
THREADS = 12                    # ASSUMPTION
PERIOD_US = 400                 # ASSUMPTION
RUNTIME_US = 200                # ASSUMPTION
PHASE_SEED = 1                  # instance start phases: random.Random(1), uniform in one period
DURATION_MS = 20
VARIANTS = ("global", "pernode", "pernode-kscope")
SWEEP_PERIODS_US = (400, 200, 100, 50)
SWEEP_DURATION_MS = 5
ROW_SHARE_MIN = 0.005           # rows shown in the range: >= 0.5% of the line's records
LDLAT = 30                      # perf c2c's default load-latency threshold (cycles)

ProgressFn = Callable[[str], None]


def workload(threads: int = THREADS, period_us: float = PERIOD_US, runtime_us: float = RUNTIME_US,
             duration_ms: float = DURATION_MS, in_phase: bool = False) -> dict[str, Any]:
    """The seed's shape as periodic_rt processes (schema: wasm-core/src/sched/workload.c).
    Threads run unsynchronised (each its own phase in the period: phase_spread_us) unless
    in_phase (an instance's threads woken together, frame-thread style)."""
    rng = random.Random(PHASE_SEED)
    procs = []
    for i in range(INSTANCES):
        cores = [CORES_PER_INSTANCE * i + k for k in range(CORES_PER_INSTANCE)]
        procs.append({"kind": "periodic_rt", "comm": f"ffmpeg{i}", "rseq": False,
                      "start_ms": round(rng.uniform(0, period_us / 1000), 4), "threads": threads,
                      "prio": 99, "period_us": period_us, "runtime_us": runtime_us,
                      "phase_spread_us": 0 if in_phase else period_us,
                      "cpus": cores + [c + SMT_OFFSET for c in cores]})
    return {"name": "seed001-ffmpeg-60x8", "duration_ms": duration_ms, "processes": procs}


STRESSNG_FILE = "seed001-stressng-cyclic-480.json"


def stressng_workload() -> dict[str, Any]:
    """stress-ng --cyclic $(nproc) --cyclic-policy fifo (the seed's side benchmark), as
    wasm-core/workloads/seed001-stressng-cyclic-480.json describes it."""
    return {"name": "seed001-stressng-cyclic-480", "duration_ms": 2,
            "processes": [{"kind": "periodic_rt", "comm": "stress-ng-cycli", "rseq": False,
                           "threads": 480, "prio": 99, "period_us": 100, "runtime_us": 2,
                           "phase_spread_us": 100}]}


def _hot_rows(rows: list[dict[str, Any]]) -> tuple[int, list[dict[str, Any]]]:
    """The bitmap level with the most HITMs, and its rows (every node's line)."""
    hitm: dict[int, int] = {}
    for r in rows:
        if r["level"] >= 0:
            hitm[r["level"]] = hitm.get(r["level"], 0) + r["local_hitm"] + r["remote_hitm"]
    level = max(hitm, key=lambda k: (hitm[k], -k)) if hitm else 0
    return level, [r for r in rows if r["level"] == level]


def _records(r: dict[str, Any]) -> int:
    return int(r["sampled_loads"] + r["stores"])


def line_figures(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Cycles per load of the hot level's line(s), its rows' range, HITM split."""
    level, hot = _hot_rows(rows)
    sampled = sum(r["sampled_loads"] for r in hot)
    cycles = sum(r["load_cycles_sum"] for r in hot)
    wait = sum(r["wait_cycles_sum"] for r in hot)
    total = sum(_records(r) for r in hot) or 1
    means = [r["load_cycles_sum"] / r["sampled_loads"] for r in hot
             if r["sampled_loads"] and _records(r) >= ROW_SHARE_MIN * total]
    rmt = sum(r["remote_hitm"] for r in hot)
    lcl = sum(r["local_hitm"] for r in hot)
    return {"level": level, "objects": sorted({r["object"] for r in hot}),
            "cycles_per_load": round(cycles / sampled) if sampled else None,
            "wait_cycles_per_load": round(wait / sampled) if sampled else None,
            "rows_range": [round(min(means)), round(max(means))] if means else None,
            "sampled_loads": sampled, "remote_hitm": rmt, "local_hitm": lcl,
            "remote_share": round(rmt / (rmt + lcl), 3) if rmt + lcl else None}


def c2c_table(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The hot line's rows by (line offset, symbol), as the seed's appendix lays them out."""
    _, hot = _hot_rows(rows)
    rmt = sum(r["remote_hitm"] for r in hot) or 1
    lcl = sum(r["local_hitm"] for r in hot) or 1
    l1 = sum(r["store_l1_hit"] for r in hot) or 1
    merged: dict[tuple[int, str], dict[str, Any]] = {}
    for r in hot:
        m = merged.setdefault((r["line_offset"], r["symbol"]), {
            "offset": r["line_offset"], "symbol": r["symbol"], "rmt": 0, "lcl": 0, "l1": 0,
            "cyc": 0.0, "sampled": 0, "records": 0})
        m["rmt"] += r["remote_hitm"]
        m["lcl"] += r["local_hitm"]
        m["l1"] += r["store_l1_hit"]
        m["cyc"] += r["load_cycles_sum"]
        m["sampled"] += r["sampled_loads"]
        m["records"] += _records(r)
    total = sum(m["records"] for m in merged.values()) or 1
    out = []
    for m in merged.values():
        out.append({"offset": m["offset"], "symbol": m["symbol"],
                    "rmt_hitm_pct": round(100 * m["rmt"] / rmt, 2),
                    "lcl_hitm_pct": round(100 * m["lcl"] / lcl, 2),
                    "store_l1_hit_pct": round(100 * m["l1"] / l1, 2),
                    "load_cycles": round(m["cyc"] / m["sampled"]) if m["sampled"] else 0,
                    "records": m["records"], "records_share": round(m["records"] / total, 4)})
    return sorted(out, key=lambda m: (m["offset"], -m["records"]))


def run_variant(topo: Topology, spec: dict[str, Any], variant: str, seed: int) -> dict[str, Any]:
    with Simulation(topo, json.dumps(spec), seed=seed, algo=f"cpupri:{variant}",
                    source=spec["name"]) as sim:
        events = sim.advance()
        s = view.summary(sim)
        rows = view.c2c_rows(sim)
    share = 100 * s["access_ns"] / (s["nr_cpus"] * s["now_ns"]) if s["now_ns"] else 0.0
    return {"variant": variant, "seed": seed, "events": events, "summary": s, "rows": rows,
            "line": line_figures(rows), "kernel_share_pct": share}


def mva_check(params: Any, r: dict[str, Any]) -> dict[str, Any] | None:
    """Cost model v2's analytic contended line (ks_cost_contended_line, MVA) beside the
    simulated line server, for the run's hottest bitmap line: N = the CPUs writing it (every
    CPU that ran cpupri_set; per node for the split layouts), think time = N x time / requests
    - the simulated time per request, the two distances mixed by the run's remote share."""
    s, line = r["summary"], r["line"]
    served = s["mask_line_served"]
    if not served or not s["set_cpus"]:
        return None
    n = max(1, s["set_cpus"] // (s["nr_nodes"] if s["variant"] != "global" else 1))
    sim_ns = (s["mask_line_busy_ns"] + s["mask_line_wait_ns"]) / served
    think = max(0.0, n * s["now_ns"] / served - sim_ns)
    share = line["remote_share"] or 0.0
    rem = cost.contended_line(params, n, "other_socket", think)
    loc = cost.contended_line(params, n, "same_llc_core", think)
    mva = share * rem["total_ns"] + (1 - share) * loc["total_ns"]
    wait = share * rem["parts"]["contention"] + (1 - share) * loc["parts"]["contention"]
    return {"accessors": n, "think_ns": round(think, 1), "requests": served,
            "simulated_ns_per_request": round(sim_ns, 1),
            "simulated_wait_ns_per_request": round(s["mask_line_wait_ns"] / served, 1),
            "mva_ns_per_request": round(mva, 1), "mva_wait_ns_per_request": round(wait, 1)}


def _by_symbol_offset(table: list[dict[str, Any]]) -> dict[str, dict[int, int]]:
    out: dict[str, dict[int, int]] = {}
    for r in table:
        out.setdefault(r["symbol"], {})[r["offset"]] = out.get(r["symbol"], {}).get(r["offset"], 0) + r["records"]
    return out


def pattern_checks(table: list[dict[str, Any]], who: str) -> list[dict[str, Any]]:
    """The appendix's pattern, computed on a table (the seed's or the model's)."""
    sym = _by_symbol_offset(table)
    ffab = sym.get("_find_first_and_bit", {})
    band = sym.get("__bitmap_and", {})
    totals = {s: sum(v.values()) for s, v in sym.items()}
    stores_by = {r["symbol"] for r in table if r["store_l1_hit_pct"] > 0}
    order = sorted(totals, key=lambda s: -totals[s])
    checks = [
        {"name": f"{who}: _find_first_and_bit has its most records at 0x0",
         "pass": bool(ffab) and max(ffab, key=lambda k: ffab[k]) == 0, "detail": ffab},
        {"name": f"{who}: _find_first_and_bit has a non-zero tail at 0x38",
         "pass": ffab.get(0x38, 0) > 0, "detail": ffab.get(0x38, 0)},
        {"name": f"{who}: __bitmap_and is flat across its offsets (max/min <= 2)",
         "pass": bool(band) and min(band.values()) > 0 and max(band.values()) / min(band.values()) <= 2,
         "detail": band},
        {"name": f"{who}: store L1 hits are cpupri_set's only",
         "pass": stores_by == {"cpupri_set"}, "detail": sorted(stores_by)},
        {"name": f"{who}: records _find_first_and_bit > __bitmap_and > cpupri_set",
         "pass": [s for s in order if s in ("_find_first_and_bit", "__bitmap_and", "cpupri_set")]
                 == ["_find_first_and_bit", "__bitmap_and", "cpupri_set"],
         "detail": {s: totals[s] for s in order}},
    ]
    return checks


def _decade(x: float | None) -> int | None:
    return math.floor(math.log10(x)) if x and x > 0 else None


def _mean(values: list[float]) -> float | None:
    vals = [v for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def run(rounds: int = 5, runs: int = 3, background: int = 0, progress: ProgressFn | None = None,
        duration_ms: float = DURATION_MS, sweep: bool = True) -> dict[str, Any]:
    """The document `kscope repro cpupri` prints. `runs` seeds per variant (1..runs);
    `rounds` and `background` are the generic CLI's and mean nothing here (said in the doc)."""
    started = time.monotonic()
    spec = workload(duration_ms=duration_ms)
    seeds = list(range(1, runs + 1))
    per_variant: dict[str, list[dict[str, Any]]] = {}
    with Topology.from_preset(PRESET) as topo:
        params = cost.preset_params(topo)
        for v in VARIANTS:
            per_variant[v] = [run_variant(topo, spec, v, s) for s in seeds]
            if progress:
                progress(f"{v}: {len(seeds)} run(s) done ({time.monotonic() - started:.1f} s)")
        side_runs = {v: run_variant(topo, stressng_workload(), v, 1) for v in ("global", "pernode")}
        if progress:
            progress(f"stress-ng cyclic done ({time.monotonic() - started:.1f} s)")
        sensitivity = []
        if sweep:
            for period, in_phase in [(p, False) for p in SWEEP_PERIODS_US] + [(PERIOD_US, True)]:
                sw = workload(period_us=period, runtime_us=period / 2, duration_ms=SWEEP_DURATION_MS,
                              in_phase=in_phase)
                point: dict[str, Any] = {"period_us": period, "runtime_us": period / 2,
                                         "threads": "in phase per instance" if in_phase else "unsynchronised"}
                for v in ("global", "pernode"):
                    r = run_variant(topo, sw, v, 1)
                    point[v] = {"cycles_per_load": r["line"]["cycles_per_load"],
                                "mask_line_utilisation": round(r["summary"]["mask_line_busy_ns"] / r["summary"]["now_ns"], 3),
                                "kernel_share_pct": round(r["kernel_share_pct"], 3),
                                "remote_share": r["line"]["remote_share"]}
                sensitivity.append(point)
                if progress:
                    progress(f"sensitivity {period} us done ({time.monotonic() - started:.1f} s)")
    cpl = {v: _mean([r["line"]["cycles_per_load"] for r in rs]) for v, rs in per_variant.items()}
    cpl = {v: round(x) if x is not None else None for v, x in cpl.items()}
    rng = {v: rs[0]["line"]["rows_range"] for v, rs in per_variant.items()}
    share = {v: round(_mean([r["kernel_share_pct"] for r in rs]) or 0, 3) for v, rs in per_variant.items()}
    pub = repro.published().get("cpupri_per_node", {})
    res = pub.get("results", {})
    seed_line = seed_c2c.seed_appendix()
    seed_table = seed_c2c.merge_by_offset_symbol(seed_line.rows)
    seed_rows = seed_line.rows
    seed_mean = round(sum(r["load_cycles"] * r["records"] for r in seed_rows) / sum(r["records"] for r in seed_rows))
    model_table = c2c_table(per_variant["global"][0]["rows"])
    before = res.get("c2c_cycles_per_load_before", [2200, 8700])
    after = res.get("c2c_cycles_per_load_after", [500, 2200])
    after_mid = math.sqrt(after[0] * after[1])
    checks = [
        {"name": "direction: pernode's cycles per load below global's",
         "pass": cpl["global"] is not None and cpl["pernode"] is not None and cpl["pernode"] < cpl["global"],
         "detail": f"model global {cpl['global']}, pernode {cpl['pernode']} cycles"},
        {"name": "order of magnitude: global in the decade of the seed's mean (appendix, records-weighted)",
         "pass": _decade(cpl["global"]) == _decade(seed_mean),
         "detail": f"model {cpl['global']} vs seed {seed_mean} cycles"},
        {"name": "order of magnitude: pernode in the decade of the seed's after range (geometric mid)",
         "pass": _decade(cpl["pernode"]) == _decade(after_mid),
         "detail": f"model {cpl['pernode']} vs seed {after[0]}-{after[1]} cycles"},
        *pattern_checks(seed_table, "seed"),
        *pattern_checks(model_table, "model"),
    ]
    g = per_variant["global"][0]
    return {
        "model": "cpupri", "preset": PRESET, "seeds": seeds, "duration_ms": duration_ms,
        "generic_options_unused": {"rounds": rounds, "background": background},
        "workload": {"instances": INSTANCES, "cpus_per_instance": 2 * CORES_PER_INSTANCE,
                     "prio": "SCHED_FIFO 99", "threads_per_instance": THREADS,
                     "period_us": PERIOD_US, "runtime_us": RUNTIME_US,
                     "assumptions": ["threads_per_instance", "period_us", "runtime_us",
                                     "threads unsynchronised (phase_spread_us = period; the in-phase "
                                     "case is in the sensitivity table)",
                                     "instance phases: random.Random(1) in one period"],
                     "file": "wasm-core/workloads/seed001-ffmpeg-60x8.json"},
        "c2c_cycles_per_load": cpl,
        "c2c_cycles_per_load_rows": rng,
        "c2c_wait_cycles_per_load": {v: rs[0]["line"]["wait_cycles_per_load"] for v, rs in per_variant.items()},
        "hot_line": {v: {"level": rs[0]["line"]["level"], "objects": rs[0]["line"]["objects"]}
                     for v, rs in per_variant.items()},
        "remote_hitm_share": {v: rs[0]["line"]["remote_share"] for v, rs in per_variant.items()},
        "kernel_share_pct": {**share, "delta_pp": round(share["pernode"] - share["global"], 3),
                             "note": "modelled cpupri accesses only, open loop (their time does not "
                                     "slow the workload)"},
        "counts": {v: {k: rs[0]["summary"][k] for k in ("sets", "finds", "finds_found", "nodes_scanned",
                                                         "accesses")} | {"events": rs[0]["events"]}
                   for v, rs in per_variant.items()},
        "contended_line_check": {v: mva_check(params, rs[0]) for v, rs in per_variant.items()},
        "mask_line_utilisation": {v: round(rs[0]["summary"]["mask_line_busy_ns"] / rs[0]["summary"]["now_ns"], 4)
                                  for v, rs in per_variant.items()},
        "c2c_table": {"model_global": model_table, "seed": seed_table,
                      "seed_line": {"address": hex(seed_line.address), "rmt_hitm": seed_line.rmt_hitm,
                                    "lcl_hitm": seed_line.lcl_hitm, "store_l1_hit": seed_line.store_l1_hit,
                                    "records_weighted_cycles": seed_mean}},
        "sensitivity": sensitivity,
        "side": {"fps_gain_pct": None, "stress_ng_cyclic_gain_pct": None, "pi_stress_gain_pct": None,
                 "stress_ng_cyclic": {v: {"cycles_per_load": r["line"]["cycles_per_load"],
                                          "wait_cycles_per_load": r["line"]["wait_cycles_per_load"],
                                          "remote_share": r["line"]["remote_share"],
                                          "mask_line_utilisation": round(r["summary"]["mask_line_busy_ns"]
                                                                         / r["summary"]["now_ns"], 3),
                                          "kernel_share_pct": round(r["kernel_share_pct"], 3)}
                                      for v, r in side_runs.items()},
                 "note": "gains not modelled: the model runs open loop (access time does not slow the "
                         "workload), FFmpeg's frames are not modelled, pi_stress's workload is not built; "
                         "stress-ng cyclic is run for its mask line (2 ms, seed 1)"},
        "published": pub,
        "checks": checks,
        "seconds": round(time.monotonic() - started, 1),
        "global_events": g["events"],
    }
