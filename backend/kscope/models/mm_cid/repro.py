"""`kscope repro mm_cid`: seed 000's benchmark (commit 7e019dc) on the modelled EPYC 9654.

The benchmark is librseq's tests/basic_percpu_benchmark.c (compudj/librseq,
read at commit 95febd5e), which the C core's "intermittent" workload follows
with "order": "fixed" (src/sched/driver.c explains each step): every thread
pinned to its own CPU; one random order; thread k of it sleeps k x delay, makes
20000 unmeasured sweeps of its 16 KiB area, then 5 measured ones, each followed
by poll(delay x threads); threads done spin until all are. A sweep increments
every byte of the area at the index rseq gives: cpu_id (per-cpu), or mm_cid on
a v6.12 kernel (before 7e019dc) or a v6.13 one (cache-local mm_cid). The cost
of a sweep is the cost model v2's by default (docs/cost_model_v2.md: misses in
flight, prefetch, C-state flushes of idle cores, capacity eviction, page walks,
first-touch faults), priced from the v1 cache model's line state; `cost_model="v1"`
(`--cost-model v1`) charges v1's serial trips instead (src/machine/cache_model.c).

Each cell comes with its breakdown: the mean ns per measured burst of each v2 part
(what the mechanism cost), and the fraction of measured bursts that wrote an index
no thread had written before (each such burst takes a first-touch fault per page:
librseq's per-CPU pool maps every index's range copy-on-write, src/machine/cost_fault.c).
Where a cell is off from the published one by more than 2x, `suspect` names what the
breakdown says and what the model lacks.

Reported per configuration and delay: ns per 16 KiB burst, the mean over all
measured bursts (the benchmark prints total_time / (nr_threads x
LOOPS_PER_THREAD)), averaged over `runs` runs (seeds 1..runs: different random
orders; the seed averages 5 runs); speedup = mm_cid / cache-local.

Background traffic. The cache model evicts a line by time: a copy untouched for
capacity / rate is gone, the rate standing for "other work" (1000 B/us per core
by default, an assumption for a busy machine). Here the machine runs nothing but
the benchmark ("Each thread run one after the other (no threads run
concurrently)", "Each thread is pinned to its own core"): between two bursts of
a thread its core runs only the idle task, and the other threads' sweeps, the
only other traffic, are simulated as accesses of their own. So the default here
is 0 B/us (nothing else evicts). What that leaves out: the idle kernel's own
footprint (timer interrupts, the poll() wakeup path: a few KiB per wakeup, not
a rate) and deep C-states that flush a sleeping core's caches (not modelled).
`--background B` sets B B/us per core and 8 x B per L3 (the 8 cores of a Zen 4
CCX, the derivation of the core's defaults).

Nothing here is calibrated against the published table: the checks compare
the model's predictions with it, and the 10 ms table, withheld by the seed, is
printed as a prediction only.
"""

import json
import math
import time
from collections.abc import Callable
from typing import Any

from kscope import repro, text_report
from kscope.native import cost
from kscope.native.machine import Topology
from kscope.native.sim import COST_MODELS, Simulation, cache_params

PRESET = "epyc-9654-2s"
# Seed 000's configurations: CPUs given to the benchmark (its threads = CPUs, one each).
# The preset numbers CPUs thread-major: CPU c < 192 is core c's first thread, core c
# is in L3 c // 8, socket c // 96; CPU c >= 192 is core c - 192's second thread.
CONFIGS: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("8-core/1-L3", tuple(range(8))),                   # 8 cores within one L3
    ("24-core/24-L3", tuple(range(0, 192, 8))),         # 24 cores, one per L3
    ("192-core/24-L3", tuple(range(192))),              # all cores
    ("384-thread/24-L3", tuple(range(384))),            # all hardware threads
)
DELAYS_MS = (200, 10)
# (column, rseq index, kernel model). cpu_id indexing never reads mm_cid, so it runs
# without a cid model; any variant gives the same bursts.
INDEXINGS = (
    ("per_cpu_ns", "cpu", "none"),
    ("mm_cid_ns", "mm_cid", "mm_cid:v6.12"),
    ("cache_local_ns", "mm_cid", "mm_cid:v6.13"),
)

# The benchmark's constants (librseq tests/basic_percpu_benchmark.c).
AREA_BYTES = 16 * 1024          # AREA_LEN
WARMUP_SWEEPS = 20000           # for (i = 0; i < 20000; i++) before the measured loop
ROUNDS = 5                      # LOOPS_PER_THREAD
RUNS = 5                        # seed 000: "Each result is an average of 5 test runs"
DEFAULT_BACKGROUND = 0          # B/us per core: see the module doc
DEFAULT_COST_MODEL = "v2"
PAGES_PER_AREA = AREA_BYTES // 4096  # first-touch faults of a never-written area
CORES_PER_LLC = 8               # Zen 4 CCX; the LLC rate is this x the per-core rate

# What the checks call "about equal", "much less", "within 2x" (definitions, not fits).
APPROX_FACTOR = 2.0
MUCH_LESS_FACTOR = 4.0
WITHIN_FACTOR = 2.0

TICK_MS = 4                     # the scheduler model's tick (SCHED_TICK_NS, sim_internal.h)
MM_CID_PERIOD_MS = 100          # SCHED_MM_CID_PERIOD_NS / MM_CID_SCAN_DELAY (mm_cid.h)

ProgressFn = Callable[[str], None]


class ReproError(RuntimeError):
    """A run did not complete its measured bursts (the model misbehaved)."""


def workload(cpus: tuple[int, ...], delay_ms: int, index_by: str, rounds: int) -> dict[str, Any]:
    """The benchmark as an intermittent workload (schema: src/sched/workload.c)."""
    n = len(cpus)
    return {
        "name": f"seed000-librseq-{n}cpu-{delay_ms}ms-{index_by}",
        "description": "librseq tests/basic_percpu_benchmark.c, as seed 000 ran it",
        # Position n-1 starts at (n-1) x delay; each thread then makes `rounds` bursts
        # n x delay apart; 2 more periods and 5 s cover the warm-ups and the bursts.
        "duration_ms": n * delay_ms * (rounds + 2) + 5000,
        "processes": [{
            "kind": "intermittent", "comm": "basic_percpu_be", "cpus": list(cpus),
            "placement": "one-per-core", "area_bytes": AREA_BYTES, "index_by": index_by,
            "delay_ms": delay_ms, "order": "fixed", "warmup_sweeps": WARMUP_SWEEPS,
            "loops": rounds,
        }],
    }


class CellRun:
    """One run's measured bursts: their mean cost, mean parts, and how many first-touched."""

    def __init__(self, costs: list[float], parts: list[dict[str, float]]) -> None:
        n = len(costs)
        self.mean_ns = sum(costs) / n
        self.parts = {name: sum(p[name] for p in parts) / n for name in cost.part_names()}
        self.first_touch_fraction = sum(1 for p in parts if p["first_touch"] > 0) / n


def run_cell(topo: Topology, spec: dict[str, Any], algo: str, seed: int, background: int,
             cost_model: str = DEFAULT_COST_MODEL) -> CellRun:
    """One run: its measured bursts (warm-ups left out, as the benchmark leaves them out)."""
    params = cache_params(background, background * CORES_PER_LLC, track_words=False)
    with Simulation(topo, json.dumps(spec), seed=seed, algo=algo, cache=params,
                    source=spec["name"], cost_model=cost_model) as sim:
        sim.advance()
        measured = [(b["cost_ns"], p) for b, p in zip(sim.burst_costs(), sim.burst_parts())
                    if not b["warmup"]]
    process = spec["processes"][0]
    expected = len(process["cpus"]) * process["loops"]
    if len(measured) != expected:
        raise ReproError(f"{spec['name']} ({algo}, seed {seed}): {len(measured)} measured bursts, "
                         f"expected {expected}")
    return CellRun([c for c, _ in measured], [p for _, p in measured])


def mean_burst_ns(topo: Topology, spec: dict[str, Any], algo: str, seed: int,
                  background: int, cost_model: str = DEFAULT_COST_MODEL) -> float:
    """One run: the mean modelled cost of its measured bursts."""
    return run_cell(topo, spec, algo, seed, background, cost_model).mean_ns


def published_rows() -> dict[str, dict[str, Any]]:
    """The seed's 200 ms table by configuration."""
    table = repro.published()["mm_cid_7e019dc"]["delay_200ms"]
    return {row["config"]: row for row in table}


def _published_for(config: str, delay_ms: int) -> dict[str, Any] | None:
    if delay_ms != 200:
        return None                     # the 10 ms table is withheld by the seed
    row = published_rows().get(config)
    if row is None:
        return None
    return {key: row[key] for key in ("per_cpu_ns", "mm_cid_ns", "cache_local_ns", "speedup")}


def _ratio(a: float, b: float) -> float:
    return a / b if b else float("inf")


def compute_checks(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The targets, computed on the 200 ms rows (the ones with published figures)."""
    out = []
    for row in rows:
        pub = row["published"]
        if pub is None:
            continue
        pc, mc, cl = row["per_cpu_ns"], row["mm_cid_ns"], row["cache_local_ns"]
        approx = _ratio(max(pc, cl), min(pc, cl))
        much = _ratio(mc, max(pc, cl))
        speedup_ratio = _ratio(row["speedup"], pub["speedup"])
        ns_ratio = {key: round(_ratio(row[key], pub[key]), 3)
                    for key in ("per_cpu_ns", "mm_cid_ns", "cache_local_ns")}
        out.append({
            "config": row["config"],
            "delay_ms": row["delay_ms"],
            "per_cpu_vs_cache_local": round(approx, 3),
            "mm_cid_over_slower_of_the_two": round(much, 3),
            "ordering": approx <= APPROX_FACTOR and much >= MUCH_LESS_FACTOR,
            "speedup_over_published": round(speedup_ratio, 3),
            "speedup_within_2x": 1 / WITHIN_FACTOR <= speedup_ratio <= WITHIN_FACTOR,
            "ns_over_published": ns_ratio,
            "ns_within_2x": all(1 / WITHIN_FACTOR <= r <= WITHIN_FACTOR for r in ns_ratio.values()),
        })
    return {
        "definitions": {
            "ordering": f"per-cpu ~ cache-local << mm_cid: the two within {APPROX_FACTOR:g}x of "
                        f"each other, and mm_cid at least {MUCH_LESS_FACTOR:g}x the slower of them",
            "speedup_within_2x": f"published / {WITHIN_FACTOR:g} <= model speedup <= "
                                 f"published x {WITHIN_FACTOR:g}",
            "ns_within_2x": f"each of the three ns figures within {WITHIN_FACTOR:g}x of the published one",
            "rows": "200 ms only: the 10 ms table is withheld (the model's prediction is reported "
                    "without a check)",
        },
        "rows": out,
        "ordering_holds": bool(out) and all(r["ordering"] for r in out),
        "speedup_within_2x": bool(out) and all(r["speedup_within_2x"] for r in out),
        "ns_within_2x": bool(out) and all(r["ns_within_2x"] for r in out),
    }


# Sources of the latency table (src/machine/latency_tables.c, which has the full notes).
_LATENCY_SOURCES = {
    "l1": "Chips and Cheese, 'AMD's Zen 4, Part 2' (2022): L1D 4 cycles; AnandTech's Rome review "
          "agrees (latency_tables.c [CnC-Zen4], [AT-Rome])",
    "l2": "Chips and Cheese, 'AMD's Zen 4, Part 2' (2022): L2 14 cycles ([CnC-Zen4])",
    "llc": "Chips and Cheese, 'Genoa-X: Server V-Cache Round 2' (2023): Zen 4 L3 ~50 cycles "
           "without V-Cache ([CnC-GenoaX])",
    "same_llc_core": "23 ns: nviennot/core-to-core-latency, EPYC 7R13 (Milan) within a CCX; "
                     "a stand-in, no Genoa measurement at hand ([c2c-lat])",
    "other_llc": "107 ns: nviennot/core-to-core-latency, Milan across CCXs (stand-in, [c2c-lat])",
    "other_socket": "197 ns: nviennot/core-to-core-latency, Milan across sockets ([c2c-lat])",
    "dram_local": "122 ns: AnandTech's Rome review, DRAM full random, NPS1 (stand-in, [AT-Rome])",
    "dram_remote": "212 ns = 122 + (197 - 107): local DRAM plus the socket hop, derived "
                   "(ASSUMPTION, latency_tables.c)",
}


def _v2_rows(params: Any) -> list[dict[str, Any]]:
    """The cost model v2's figures for the preset (src/machine/cost_tables.c cites each)."""
    cstates = ", ".join(f"{c.name.decode()} exit {c.exit_ns / 1000:g} us / residency "
                        f"{c.residency_ns / 1000:g} us{' (flushes L1/L2 and TLB)' if c.flushes_private else ''}"
                        for c in params.cstates[:params.n_cstates])
    return [
        {"constant": "v2: the sweep's own work", "value": f"{params.sweep_cycles_per_line} cycles per line",
         "source": "DERIVED: gcc -O2 vectorises pdata[j]++ with SSE2, 4 x 16-byte stores per line; Zen 3/4 "
                   "retire 1 vector store per cycle (Stack Overflow 45108395, Chips and Cheese Zen 4 part 1); "
                   "cost_tables.c [gcc-O2]"},
        {"constant": "v2: misses in flight (demand / prefetch)",
         "value": f"{params.demand_mlp} / {params.prefetch_mlp}",
         "source": "AMD Software Optimization Guide for family 19h (recalled), cost_tables.c [AMD-SOG19h]"},
        {"constant": "v2: C-states", "value": cstates,
         "source": "AMD: CC6 400 us declared (FreeBSD D47444, Rome, a stand-in), residency 2 x exit "
                   "(acpi_idle); cost_tables.c"},
        {"constant": "v2: second-level TLB", "value": f"{params.stlb_entries} entries, {params.walk_levels}-level walks",
         "source": "Chips and Cheese, Zen 4 part 2; cost_tables.c [CnC-Zen4]"},
        {"constant": "v2: first-touch fault", "value": f"{params.first_touch_ns_per_page:,} ns per 4 KiB page",
         "source": "MEASURED: kscope calibrate sweep16k.first_touch on the session machine (Intel EMR, KVM, "
                   "idle, 2026-11-28): (12,307 - 418) / 4 pages; a KVM guest's fault, a stand-in for bare "
                   "metal (cost_tables.c); librseq's COW_INIT per-CPU pool makes an index's first write fault "
                   "(cost_fault.c)"},
    ]


def calibration(topo: Topology, background: int, cost_model: str = DEFAULT_COST_MODEL) -> list[dict[str, Any]]:
    """Every constant the numbers depend on, its value, its source, what it was fitted to."""
    latency = topo.latency()
    summary = topo.summary()
    mhz = latency["core_mhz"]
    rows: list[dict[str, Any]] = [{
        "constant": "core clock (cycles -> ns)", "value": f"{mhz} MHz",
        "source": "AMD EPYC 9654 product page: all-core boost 3.55 GHz, the clock of a loaded "
                  "server (latency_tables.c [AMD-9654])",
    }]
    for source, cycles in latency["cycles"].items():
        rows.append({
            "constant": f"latency: line from {source}",
            "value": f"{cycles} cycles ({cycles * 1000 / mhz:.1f} ns)",
            "source": _LATENCY_SOURCES[source],
        })
    rows += [
        {"constant": "cache sizes", "value": f"L1d {summary.l1d_kib} KiB, L2 {summary.l2_kib} KiB "
                                             f"per core; L3 {summary.l3_kib} KiB per 8-core CCX",
         "source": "seed 000's lscpu: L1d 6 MiB / 192, L2 192 MiB / 192, L3 768 MiB / 24 "
                   "(topology_presets.c)"},
        {"constant": "background traffic", "value": f"{background} B/us per core, "
                                                    f"{background * CORES_PER_LLC} B/us per L3",
         "source": ("ASSUMPTION from seed 000's text and the benchmark source: nothing but the "
                    "benchmark runs; the other threads' sweeps are simulated (kscope/models/mm_cid/repro.py)"
                    if background == DEFAULT_BACKGROUND else "set with --background")},
        {"constant": "scheduler tick", "value": f"{TICK_MS} ms (HZ=250)",
         "source": "kscope's scheduler model (SCHED_TICK_NS); ASSUMPTION: the seed does not give "
                   "the benchmark kernel's CONFIG_HZ"},
        {"constant": "mm_cid scan period and cid expiry", "value": f"{MM_CID_PERIOD_MS} ms",
         "source": "kernel: MM_CID_SCAN_DELAY and SCHED_MM_CID_PERIOD_NS (v6.12, v6.13 sources; "
                   "src/algo/mm_cid/mm_cid.h)"},
        {"constant": "area, warm-up, measured sweeps", "value": f"{AREA_BYTES} B, {WARMUP_SWEEPS}, "
                                                               f"{ROUNDS} per thread",
         "source": "librseq tests/basic_percpu_benchmark.c: AREA_LEN, the 20000-sweep warm-up loop, "
                   "LOOPS_PER_THREAD"},
        {"constant": "runs averaged", "value": str(RUNS),
         "source": "seed 000: 'Each result is an average of 5 test runs'"},
        {"constant": "cost model", "value": cost_model,
         "source": "v2: docs/cost_model_v2.md, priced from the v1 cache model's line state "
                   "(src/sched/driver.c); v1: src/machine/cache_model.c, every trip one after another"},
    ]
    if cost_model == "v2":
        rows += _v2_rows(cost.preset_params(topo))
    for row in rows:
        row["calibrated_on"] = None     # nothing here was fitted to a measurement
    return rows


def _residency(bytes_: int, rate: int) -> float | None:
    return None if rate <= 0 else round(bytes_ * 1000 / rate)


def model_description(topo: Topology, rounds: int, runs: int, background: int,
                      cost_model: str = DEFAULT_COST_MODEL) -> dict[str, Any]:
    summary = topo.summary()
    llc_rate = background * CORES_PER_LLC
    return {
        "preset": PRESET,
        "benchmark": "librseq tests/basic_percpu_benchmark.c (compudj/librseq 95febd5e) as the "
                     "intermittent workload with order \"fixed\" (src/sched/driver.c)",
        "configs": {name: text_report.cpulist(list(cpus)) for name, cpus in CONFIGS},
        "variants": {column.removesuffix("_ns"): algo for column, _, algo in INDEXINGS},
        "index_by": {column.removesuffix("_ns"): index for column, index, _ in INDEXINGS},
        "rounds": rounds,
        "runs": runs,
        "seeds": list(range(1, runs + 1)),
        "warmup_sweeps": WARMUP_SWEEPS,
        "area_bytes": AREA_BYTES,
        "background_bytes_per_us": {"per_core": background, "per_llc": llc_rate},
        "residency_ns": {  # how long an untouched copy survives (None: never evicted)
            "l1": _residency(summary.l1d_kib * 1024, background),
            "l2": _residency(summary.l2_kib * 1024, background),
            "llc": _residency(summary.l3_kib * 1024, llc_rate),
        },
        "ns_per_burst": "mean over the measured bursts of a run (warm-ups excluded), averaged "
                        "over the runs",
        "speedup": "mm_cid_ns / cache_local_ns",
        "cost_model": cost_model,
        "breakdown": "per cell, the mean ns per measured burst of each cost-model-v2 part (nonzero "
                     "parts; they add up to the cell's ns); all zero under v1",
        "first_touch_bursts": "per cell, the fraction of measured bursts that wrote an index no "
                              "thread had written before (a first-touch fault per page)",
        "suspects": "per published cell off by more than 2x (and per speedup), what the breakdown "
                    "points at and what the model lacks",
        "calibrated": "nothing: no constant was fitted to the published table",
    }


COLUMNS = tuple(column.removesuffix("_ns") for column, _, _ in INDEXINGS)


def _nonzero(parts: dict[str, float]) -> dict[str, float]:
    return {name: round(ns, 1) for name, ns in parts.items() if round(ns, 1) != 0}


def _largest(parts: dict[str, float]) -> tuple[str, float]:
    return max(parts.items(), key=lambda kv: kv[1]) if parts else ("none", 0.0)


def fault_bound(threads: int, rounds: int) -> float:
    """The largest fraction of measured bursts that can write a never-written index: a run
    hands out at most threads + 1 distinct cids (its threads and main; a cid is below the
    number of cids held at once), over threads x rounds measured bursts. DERIVED."""
    return min(1.0, (threads + 1) / (threads * rounds))


def suspect(column: str, model_ns: float, published_ns: float, breakdown: dict[str, float],
            first_touch_fraction: float, fault_area_ns: float, threads: int, rounds: int,
            delay_ms: int) -> str | None:
    """What a cell off by more than 2x points at: the breakdown's leading part when the model is
    too dear; when it is too cheap, what the gap would need and which mechanism is missing."""
    ratio = model_ns / published_ns
    if 1 / WITHIN_FACTOR <= ratio <= WITHIN_FACTOR:
        return None
    part, part_ns = _largest(breakdown)
    if ratio > WITHIN_FACTOR:
        return (f"model {ratio:.2f}x the published figure: its largest part is {part} "
                f"({part_ns:,.0f} ns per burst), the suspect")
    gap = published_ns - model_ns
    text = f"model {ratio:.2f}x the published figure, {gap:,.0f} ns per burst unexplained. "
    if column == "mm_cid":
        need = (published_ns - (model_ns - breakdown.get("first_touch", 0.0))) / fault_area_ns
        bound = fault_bound(threads, rounds)
        text += (f"First-touch faults (librseq's copy-on-write ranges) give "
                 f"{breakdown.get('first_touch', 0.0):,.0f} ns: {first_touch_fraction:.1%} of its "
                 f"bursts wrote an index never written before, {fault_area_ns:,.0f} ns each. To close "
                 f"the gap with faults alone {need:.2f} first-touched areas per burst are needed; at most "
                 f"{bound:.2f} are possible ({threads + 1} cids over {threads} x {rounds} bursts), so "
                 + ("faults could close it only with the kernel's cid churn far above the model's. "
                    if need <= bound else "first-touch faults cannot explain this cell. ")
                 + "Suspects beyond: the kernel's own cid churn (kscope conform), and the idle "
                   "mechanisms named for the per-cpu column (every burst pays them too).")
    else:
        text += (f"The model's burst is {part}-bound ({part_ns:,.0f} ns): after "
                 f"{delay_ms * threads} ms asleep it finds the area in the L3 (a core's C6 flushes its "
                 f"L1/L2 only), fetched under the sweep's own work. Not modelled, the suspects: the L3 "
                 f"of an idle CCX or package flushed by a package C-state (the area then comes from "
                 f"DRAM), the frequency ramp after idle, and the wake-up path's own footprint.")
    return text


def _published_speedup_check(row: dict[str, Any]) -> str | None:
    pub = row["published"]
    if pub is None:
        return None
    ratio = row["speedup"] / pub["speedup"]
    if 1 / WITHIN_FACTOR <= ratio <= WITHIN_FACTOR:
        return None
    worst = max(COLUMNS, key=lambda c: abs(math.log(row[f"{c}_ns"] / pub[f"{c}_ns"])))
    return (f"speedup {row['speedup']:.1f}x vs {pub['speedup']:.1f}x published ({ratio:.2f}x): "
            f"the cell furthest off is {worst} ({row[f'{worst}_ns'] / pub[f'{worst}_ns']:.2f}x)")


def run(rounds: int = ROUNDS, runs: int = RUNS, background: int = DEFAULT_BACKGROUND,
        progress: ProgressFn | None = None, cost_model: str = DEFAULT_COST_MODEL) -> dict[str, Any]:
    """The repro document (see `kscope repro mm_cid --json`)."""
    if rounds < 1 or runs < 1 or background < 0:
        raise ValueError("rounds and runs must be >= 1, background >= 0")
    if cost_model not in COST_MODELS:
        raise ValueError(f"cost model must be one of {sorted(COST_MODELS)}")
    rows = []
    started = time.monotonic()
    with Topology.from_preset(PRESET) as topo:
        params = cost.preset_params(topo)
        fault_area_ns = PAGES_PER_AREA * params.first_touch_ns_per_page
        for delay_ms in DELAYS_MS:
            for config, cpus in CONFIGS:
                row: dict[str, Any] = {"config": config, "delay_ms": delay_ms}
                breakdown: dict[str, dict[str, float]] = {}
                first_touch: dict[str, float] = {}
                for column, index_by, algo in INDEXINGS:
                    spec = workload(cpus, delay_ms, index_by, rounds)
                    cells = [run_cell(topo, spec, algo, seed, background, cost_model)
                             for seed in range(1, runs + 1)]
                    key = column.removesuffix("_ns")
                    row[column] = round(sum(c.mean_ns for c in cells) / len(cells), 1)
                    breakdown[key] = {name: sum(c.parts[name] for c in cells) / len(cells)
                                      for name in cost.part_names()}
                    first_touch[key] = round(sum(c.first_touch_fraction for c in cells) / len(cells), 4)
                row["speedup"] = round(_ratio(row["mm_cid_ns"], row["cache_local_ns"]), 2)
                row["published"] = _published_for(config, delay_ms)
                row["breakdown"] = {key: _nonzero(parts) for key, parts in breakdown.items()}
                row["first_touch_bursts"] = first_touch
                pub = row["published"]
                row["model_over_published"] = None if pub is None else {
                    **{key: round(row[f"{key}_ns"] / pub[f"{key}_ns"], 3) for key in COLUMNS},
                    "speedup": round(row["speedup"] / pub["speedup"], 3)}
                row["suspects"] = {} if pub is None else {
                    key: text for key in COLUMNS
                    if (text := suspect(key, row[f"{key}_ns"], pub[f"{key}_ns"], breakdown[key],
                                        first_touch[key], fault_area_ns, len(cpus), rounds,
                                        delay_ms)) is not None}
                if (text := _published_speedup_check(row)) is not None:
                    row["suspects"]["speedup"] = text
                rows.append(row)
                if progress:
                    progress(f"{config} {delay_ms} ms done ({time.monotonic() - started:.1f} s)")
        return {
            "rows": rows,
            "checks": compute_checks(rows),
            "calibration": calibration(topo, background, cost_model),
            "model": model_description(topo, rounds, runs, background, cost_model),
        }
