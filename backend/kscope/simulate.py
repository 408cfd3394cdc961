"""`kscope sim`: run a workload on a topology in the C core and summarize the run.

The run is read chunk by chunk (never held whole): each chunk feeds the event-
stream hash (FNV-1a 64 over the 96-byte records, as the C tests and the wasm
bench hash them, computed by the core's ks_fnv1a64). The summary then reads the core's counters, the final frame
(per-CPU busy time) and the burst log. An ftrace export replays the same run
(seek to step 0; the run is deterministic) through the C exporter into a file.
"""

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kscope import topology
from kscope.native import core, events, ftrace
from kscope.native.machine import Topology
from kscope.native.sim import Simulation


class WorkloadFileError(ValueError):
    """The workload file cannot be read at all (the core reports bad content itself)."""


@dataclass
class SimRequest:
    """What to simulate: topology (preset or file), workload file, seed, end time, algorithm."""

    topology: str
    workload: Path
    seed: int
    until_ns: int
    # "auto": the C core picks the model a current kernel runs for the workload, or none (sim.c;
    # each model's rule: models/<name>/__init__.py, sim_auto)
    algo: str = "auto"
    hash_events: bool = True  # the event-stream hash (C, ks_fnv1a64); --no-hash skips it
    # what prices a burst: "v1" (the cache model's serial trips) or "v2" (the cost model v2,
    # docs/cost_model_v2.md, whose parts the summary gives)
    cost_model: str = "v1"


def read_workload(path: Path) -> bytes:
    """The workload file's bytes; WorkloadFileError naming the file if unreadable."""
    try:
        return path.read_bytes()
    except OSError as err:
        raise WorkloadFileError(f"cannot read workload {path}: {err.strerror}") from err


def workload_name(json_text: bytes, fallback: str) -> str:
    """The workload's "name" field (the core has validated the JSON by then)."""
    try:
        name = json.loads(json_text).get("name")
    except (ValueError, AttributeError):
        return fallback
    return name if isinstance(name, str) else fallback


def percentile(sorted_values: list[int], pct: float) -> int | None:
    """Nearest-rank percentile of an ascending list (None if empty)."""
    if not sorted_values:
        return None
    rank = max(1, math.ceil(pct / 100 * len(sorted_values)))
    return sorted_values[rank - 1]


def burst_summary(bursts: list[dict[str, Any]], parts: list[dict[str, float]] | None = None) -> dict[str, Any]:
    """Count, mean, p50 and p95 of the measured bursts' modelled cost (None when there are none),
    and the mean ns of each cost-model-v2 part per measured burst (nonzero parts only; empty
    under v1).

    Warm-ups (a workload's warmup_sweeps) are not measured bursts and are left out.
    """
    measured = [i for i, b in enumerate(bursts) if not b.get("warmup")]
    costs = sorted(bursts[i]["cost_ns"] for i in measured)
    means: dict[str, float] = {}
    if parts and measured:
        for name in parts[0]:
            mean = sum(parts[i][name] for i in measured) / len(measured)
            if round(mean, 1):
                means[name] = round(mean, 1)
    return {
        "count": len(costs),
        "mean_ns": round(sum(costs) / len(costs), 1) if costs else None,
        "p50_ns": percentile(costs, 50),
        "p95_ns": percentile(costs, 95),
        "parts_mean_ns": means,
    }


def hash_run(sim: Simulation, until_ns: int, hash_events: bool = True) -> tuple[int, int | None, bool]:
    """Runs to until_ns; returns (events, FNV-1a 64 of their records or None, any sub-us timestamp)."""
    h, count, sub_us = events.FNV_OFFSET, 0, False
    for raw in sim.iter_raw(until_ns):
        if hash_events:
            h = events.fnv1a64(raw, h)
        count += len(raw) // events.EVENT_SIZE
        sub_us = sub_us or ftrace.needs_nsec(raw)
    return count, h if hash_events else None, sub_us


def summarize(request: SimRequest, workload: str, sim: Simulation, event_hash: int | None) -> dict[str, Any]:
    """The JSON document of a finished run (see `kscope sim --json`)."""
    stats = sim.stats()
    now = stats["now_ns"]
    cpus = [
        {"cpu": c["cpu"], "busy_ns": c["busy_ns"],
         "busy_pct": round(100 * c["busy_ns"] / now, 3) if now else 0.0}
        for c in sim.frame()["cpus"]
    ]
    return {
        "preset": request.topology,
        "workload": workload,
        "workload_file": str(request.workload),
        "algo": sim.algo_run,
        "algo_requested": request.algo,
        "seed": request.seed,
        "until_ns": request.until_ns,
        "now_ns": now,
        "events": stats["events"],
        "events_by_type": stats["events_by_type"],
        "event_stream_hash": events.hash_hex(event_hash) if event_hash is not None else None,
        "cpus": cpus,
        "cache": {key: stats[key] for key in ("access_ns", "lines_from", "local_hitm", "remote_hitm")},
        "cost_model": sim.cost_model,
        "bursts": burst_summary(sim.burst_costs(), sim.burst_parts()),
    }


def export_meta(document: dict[str, Any]) -> dict[str, str]:
    """The export's `# kscope:` header: the run is MODELLED, and which run it is.

    `source=modelled` is what ingest and the Traces page read to label the trace MODELLED
    (not MEASURED on a real kernel); workload, seed, algorithm and machine say how to
    make the same run again with `kscope sim`.
    """
    return {
        "source": "modelled",
        "generator": "kscope sim",
        "workload": str(document["workload"]),
        "seed": str(document["seed"]),
        "algo": str(document["algo"]),
        "preset": str(document["preset"]),
        "until_ns": str(document["until_ns"]),
    }


def export_ftrace(sim: Simulation, until_ns: int, nr_events: int, nr_cpus: int, nsec: bool,
                  path: Path, meta: dict[str, str] | None = None) -> dict[str, Any]:
    """Replays the run from step 0 into an ftrace text file; returns what was written."""
    flags = ftrace.DEFAULT_FLAGS | (ftrace.NSEC if nsec else 0)
    sim.seek(0)
    with open(path, "wb") as out:
        size = ftrace.write_trace(sim.iter_logs(until_ns), nr_events, nr_cpus, flags, out, meta)
    return {"format": "ftrace", "file": str(path), "bytes": size, "nsec": nsec}


def run(request: SimRequest, export_to: Path | None = None) -> dict[str, Any]:
    """Simulates the request (and optionally exports it); returns the summary document.

    Raises UnknownPreset / TopologyInputError / ParseError (bad topology or workload)
    and WorkloadFileError: all bad input, each naming what and where.
    """
    json_text = read_workload(request.workload)
    with topology.open_topology(request.topology) as topo, \
            _simulation(topo, json_text, request) as sim:
        count, event_hash, sub_us = hash_run(sim, request.until_ns, request.hash_events)
        document = summarize(request, workload_name(json_text, request.workload.stem), sim, event_hash)
        if document["events"] != count:
            raise core.KscopeCoreError(core.KS_ERR_RANGE, "event count and stats disagree")
        if export_to is not None:
            document["export"] = export_ftrace(sim, request.until_ns, count,
                                               topo.summary().cpus, sub_us, export_to,
                                               export_meta(document))
    return document


def _simulation(topo: Topology, json_text: bytes, request: SimRequest) -> Simulation:
    return Simulation(topo, json_text, seed=request.seed, algo=request.algo,
                      source=str(request.workload), cost_model=request.cost_model)
