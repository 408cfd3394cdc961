"""`kscope bench rseq`: seed 000's benchmark itself, run on this machine's kernel.

The program is wasm-core/tools/mm_cid/rseq_bench (kscope-rseq-bench, built by `make -C
wasm-core native`): librseq's tests/basic_percpu_benchmark.c re-implemented, with librseq's
default pool (lazily populated copy-on-write pages per index) and the index read from the
thread's registered rseq area. This module runs it once per (indexing, threads, delay) and
gathers ns per 16 KiB burst, the mm_cid values each thread saw and the page faults of the
measured bursts. Every figure is MEASURED on this machine; the "model" indexing takes its
indexes from the mm_cid model (the variant of this kernel) run on the same schedule, and
its modelled cost is printed beside the measured one.

What a 2-CPU machine can show: not the many-core rows of the seed's table, but how the
per-cpu column (cpu_id indexing: the data never moves) depends on the delay between
bursts, which is what the cost model's "hot areas never cool" finding is about.
"""

import json
import os
import platform
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from kscope.core.config import get_settings

PROGRAM = "kscope-rseq-bench"
SOURCE = "librseq tests/basic_percpu_benchmark.c (compudj/librseq 95febd5), re-implemented in " \
         "wasm-core/tools/mm_cid/rseq_bench"
# "fresh": thread t sweeps index t, but its first measured burst goes to an index nobody has
# touched (threads + t): the first touch of librseq's lazily populated pool, after the delay.
INDEXINGS = ("cpu_id", "mm_cid", "model", "fresh")
MODEL_PRESET = "epyc-9654-2s"   # the model's machine; its CPUs 0..n-1 are cores of one L3, as here
AREA_BYTES = 16 * 1024

ProgressFn = Callable[[str], None]


class BenchFailed(RuntimeError):
    """The program is missing, failed, or printed something that is not its document."""


def program() -> Path:
    path = get_settings().core_lib.parent / PROGRAM
    if not path.is_file():
        raise BenchFailed(f"{path}: no {PROGRAM} program: build it with `make -C wasm-core native`")
    return path


def host() -> dict[str, Any]:
    """The machine and kernel the figures were measured on."""
    fields: dict[str, str] = {}
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines():
            key, _, value = line.partition(":")
            fields.setdefault(key.strip(), value.strip())   # the first CPU's
    except OSError:
        pass
    return {
        "kernel": platform.release(),
        "cpu": fields.get("model name", "unknown"),
        "cpu_id": f"{fields.get('vendor_id', '?')} family {fields.get('cpu family', '?')} "
                  f"model {fields.get('model', '?')}",
        "cpus_allowed": sorted(os.sched_getaffinity(0)),
        "glibc": "-".join(platform.libc_ver()),
    }


def run_once(indexing: str, threads: int, delay_ms: int, loops: int, warmup: int, seed: int,
             index_file: Path | None = None, order: list[int] | None = None) -> dict[str, Any]:
    """One run of the program (a fresh process: a fresh mm and pool, as each librseq run)."""
    argv = [str(program()), "--index", f"file:{index_file}" if index_file else indexing,
            "--delay-ms", str(delay_ms), "--threads", str(threads), "--loops", str(loops),
            "--warmup", str(warmup)]
    argv += ["--order", ",".join(map(str, order))] if order else ["--seed", str(seed)]
    # thread p starts p x delay late, then loops x (threads x delay); warm-up ~1 us per sweep
    expected_s = (delay_ms * (threads - 1) + loops * threads * delay_ms) / 1000 + warmup * 5e-6
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=expected_s * 3 + 30, check=False)
    except subprocess.TimeoutExpired as err:
        raise BenchFailed(f"{PROGRAM} ({indexing}, {threads} threads, {delay_ms} ms) did not finish in "
                          f"{err.timeout:.0f} s") from err
    if proc.returncode != 0:
        raise BenchFailed(f"{PROGRAM} ({indexing}, {threads} threads, {delay_ms} ms) exited "
                          f"{proc.returncode}: {proc.stderr.strip()[:400]}")
    try:
        doc: dict[str, Any] = json.loads(proc.stdout)
    except json.JSONDecodeError as err:
        raise BenchFailed(f"{PROGRAM} printed no JSON document ({err}): {proc.stdout[:200]!r}") from err
    return doc


def summarize(doc: dict[str, Any], indexing: str) -> dict[str, Any]:
    """One row: the burst statistics of a run, and what each thread saw in its rseq area."""
    threads = doc["per_thread"]
    ns = [b["ns"] for t in threads for b in t["bursts"]]
    clean = [b["ns"] for t in threads for b in t["bursts"] if b["minflt"] == 0]
    return {
        "indexing": indexing,
        "threads": doc["threads"],
        "delay_ms": doc["delay_ms"],
        "ns_per_burst": doc["ns_per_burst"],          # librseq's total / (threads x loops)
        "median_ns": statistics.median(ns),
        "mean_ns": round(statistics.fmean(ns), 1),
        "min_ns": min(ns),
        "max_ns": max(ns),
        "bursts": len(ns),
        "measured_minflt": doc["measured_minflt"],
        "fault_bursts": len(ns) - len(clean),
        "median_no_fault_ns": statistics.median(clean) if clean else None,
        "first_touch_ns": [t["first_sweep_ns"] for t in threads],
        "first_touch_minflt": [t["first_sweep_minflt"] for t in threads],
        "warmup_minflt": [t["warmup_minflt"] for t in threads],
        "cpu": [t["cpu"] for t in threads],
        "position": [t["position"] for t in threads],
        "cpu_id_is_sched_getcpu": all(t["rseq_cpu_id"] == t["sched_getcpu"] == t["cpu"] for t in threads),
        "mm_cid_seen": [sorted({b["mm_cid"] for b in t["bursts"]}) for t in threads],
        "indexes": [[b["index"] for b in t["bursts"]] for t in threads],
        "bursts_ns": [[b["ns"] for b in t["bursts"]] for t in threads],
        "rseq": doc["rseq"],
        "pool": doc["pool"],
    }


def model_schedule(threads: int, delay_ms: int, loops: int, warmup: int, variant: str,
                   seed: int) -> dict[str, Any]:
    """The mm_cid model on the same schedule: each thread's warm-up and burst indexes, its
    position (by its first sweep), and the model's cost of each measured burst."""
    from kscope.native.machine import Topology
    from kscope.native.sim import Simulation, cache_params

    spec = {
        "name": f"rseq-bench-{threads}cpu-{delay_ms}ms", "description": "kscope bench rseq's schedule",
        "duration_ms": threads * max(delay_ms, 1) * (loops + 2) + 5000,
        "processes": [{
            "kind": "intermittent", "comm": "kscope-rseq-be", "cpus": list(range(threads)),
            "placement": "one-per-core", "area_bytes": AREA_BYTES, "index_by": "mm_cid",
            "delay_ms": delay_ms, "order": "fixed", "warmup_sweeps": warmup, "loops": loops,
        }],
    }
    with Topology.from_preset(MODEL_PRESET) as topo, \
            Simulation(topo, json.dumps(spec), seed=seed, algo=f"mm_cid:{variant}",
                       cache=cache_params(0, 0, track_words=False), source=spec["name"]) as sim:
        sim.advance()
        bursts = sim.burst_costs()
    per_cpu: dict[int, dict[str, Any]] = {c: {"warmup": None, "start": None, "bursts": [], "cost": []}
                                          for c in range(threads)}
    for b in bursts:
        row = per_cpu[b["cpu"]]
        if b["warmup"]:
            row["warmup"], row["start"] = b["index"], b["ts_ns"]
        else:
            row["bursts"].append(b["index"])
            row["cost"].append(b["cost_ns"])
    if any(r["warmup"] is None or len(r["bursts"]) != loops for r in per_cpu.values()):
        raise BenchFailed(f"the model's run ({threads} CPUs, {delay_ms} ms) did not make {loops} measured "
                          "bursts on every CPU")
    starts = sorted(per_cpu, key=lambda c: per_cpu[c]["start"])
    return {"lines": [[per_cpu[c]["warmup"], *per_cpu[c]["bursts"]] for c in range(threads)],
            "order": [starts.index(c) for c in range(threads)],
            "cost_ns": [per_cpu[c]["cost"] for c in range(threads)]}


def run_model_indexed(threads: int, delay_ms: int, loops: int, warmup: int, seed: int,
                      variant: str) -> dict[str, Any]:
    schedule = model_schedule(threads, delay_ms, loops, warmup, variant, seed)
    with tempfile.TemporaryDirectory(prefix="kscope-rseq-") as tmp:
        path = Path(tmp) / "model-cids.txt"
        path.write_text(f"# mm_cid:{variant} on {MODEL_PRESET} CPUs 0..{threads - 1}: "
                        "warm-up index, then the measured bursts' indexes\n"
                        + "".join(" ".join(map(str, line)) + "\n" for line in schedule["lines"]),
                        encoding="utf-8")
        doc = run_once("model", threads, delay_ms, loops, warmup, seed, index_file=path, order=schedule["order"])
    row = summarize(doc, "model")
    costs = [c for per in schedule["cost_ns"] for c in per]
    bursts = [b for t in doc["per_thread"] for b in t["bursts"]]
    row["model"] = {"variant": f"mm_cid:{variant}", "preset": MODEL_PRESET,
                    "median_cost_ns": statistics.median(costs), "mean_cost_ns": round(statistics.fmean(costs), 1),
                    # the model's cid beside the one this kernel gave the same thread in the same burst
                    "kernel_agrees": sum(b["index"] == b["mm_cid"] for b in bursts), "bursts": len(bursts)}
    return row


def possible_cpus() -> int:
    """The pool's indexes: one per possible CPU (/sys/devices/system/cpu/possible, e.g. "0-383")."""
    try:
        text = Path("/sys/devices/system/cpu/possible").read_text(encoding="ascii").strip()
        return 1 + max(int(part.split("-")[-1]) for part in text.split(","))
    except (OSError, ValueError):
        return os.cpu_count() or 1


def run_fresh(threads: int, delay_ms: int, loops: int, warmup: int, seed: int) -> dict[str, Any] | None:
    """Each thread's first measured burst on a never-touched index (None: the pool has too few
    indexes, one per possible CPU, for 2 x threads)."""
    if 2 * threads > possible_cpus():
        return None
    with tempfile.TemporaryDirectory(prefix="kscope-rseq-") as tmp:
        path = Path(tmp) / "fresh.txt"
        path.write_text("# thread t: warm-up on index t; first measured burst on never-touched index threads + t\n"
                        + "".join(f"{t} {threads + t}" + f" {t}" * max(loops - 1, 0) + "\n" for t in range(threads)),
                        encoding="utf-8")
        doc = run_once("fresh", threads, delay_ms, loops, warmup, seed, index_file=path)
    row = summarize(doc, "fresh")
    firsts = [t["bursts"][0] for t in doc["per_thread"]]
    rest = [b["ns"] for t in doc["per_thread"] for b in t["bursts"][1:]]
    row["fresh"] = {"first_burst_ns": [b["ns"] for b in firsts], "first_burst_minflt": [b["minflt"] for b in firsts],
                    "other_median_ns": statistics.median(rest) if rest else None}
    return row


def run(progress: ProgressFn | None = None, loops: int = 10, warmup_sweeps: int = 20000,
        delays: list[int] | None = None, thread_counts: list[int] | None = None,
        indexings: list[str] | None = None, order_seed: int = 1) -> dict[str, Any]:
    """Every (indexing, threads, delay) once; rows in that order."""
    from kscope.models.mm_cid.conform import variant_for_kernel

    delays = [0, 1, 10, 100, 200] if delays is None else delays
    machine = host()
    allowed = len(machine["cpus_allowed"])
    thread_counts = [n for n in ([1, 2] if thread_counts is None else thread_counts) if 1 <= n <= allowed]
    if not thread_counts:
        raise BenchFailed(f"no thread count fits the {allowed} CPUs this process may use (one CPU per thread)")
    indexings = list(INDEXINGS) if indexings is None else indexings
    variant = variant_for_kernel(machine["kernel"])
    load_before = [round(x, 2) for x in os.getloadavg()]
    started = time.monotonic()
    rows: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    for indexing in indexings:
        for threads in thread_counts:
            for delay in delays:
                if progress:
                    progress(f"{indexing}, {threads} thread{'s' if threads > 1 else ''}, {delay} ms")
                if indexing == "model":
                    rows.append(run_model_indexed(threads, delay, loops, warmup_sweeps, order_seed, variant))
                elif indexing == "fresh":
                    row = run_fresh(threads, delay, loops, warmup_sweeps, order_seed)
                    if row is None:
                        skipped.append({"indexing": indexing, "threads": threads, "delay_ms": delay,
                                        "why": f"{2 * threads} indexes needed, the pool has {possible_cpus()} "
                                               "(one per possible CPU)"})
                    else:
                        rows.append(row)
                else:
                    rows.append(summarize(run_once(indexing, threads, delay, loops, warmup_sweeps, order_seed),
                                          indexing))
    return {
        "benchmark": SOURCE,
        "measured": True,
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "host": machine,
        "model_variant": f"mm_cid:{variant}",
        "loops": loops,
        "warmup_sweeps": warmup_sweeps,
        "area_bytes": AREA_BYTES,
        "delays_ms": delays,
        "thread_counts": thread_counts,
        "indexings": indexings,
        "order_seed": order_seed,
        "seconds": round(time.monotonic() - started, 1),
        # other work on the machine perturbs the bursts (1, 5, 15 min load averages)
        "load_average": {"before": load_before, "after": [round(x, 2) for x in os.getloadavg()]},
        "rows": rows,
        "skipped": skipped,
    }
