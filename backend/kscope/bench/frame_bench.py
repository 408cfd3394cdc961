"""`kscope bench frame`: one animation frame of a busy 480-CPU machine in the browser's module.

A frame (bench_frame.mjs) = ks_sim_run_until to the next tick of simulated time
(until_ns = k x tick; the default tick is 1 ms) + ks_sim_frame_get + reading the
whole frame through typed arrays: 2 wasm calls. The workload is frame-busy.json
on hcc-2s-480.
"""

from pathlib import Path
from typing import Any

from kscope.bench import node

PRESET = "hcc-2s-480"
WORKLOAD = Path(__file__).resolve().parent / "frame-busy.json"
SEED = 42
TARGET_P95_MS = 4


def run(frames: int = 500, tick_ns: int = 1_000_000, warmup: int = 10) -> dict[str, Any]:
    """The document `kscope bench frame --json` prints."""
    result = node.run_script("bench_frame.mjs", preset=PRESET, workload=WORKLOAD, seed=SEED,
                             frames=frames, tick_ns=tick_ns, warmup=warmup)
    return {
        "frames": result["frames"],
        "p50_ms": result["p50_ms"],
        "p95_ms": result["p95_ms"],
        "max_ms": result["max_ms"],
        "calls_per_frame": 2,
        "target_p95_ms": TARGET_P95_MS,
        "tick": f"ks_sim_run_until to the next {tick_ns} ns of simulated time (until_ns = k x {tick_ns})",
        "tick_ns": tick_ns,
        "events_per_frame_mean": result["events_per_frame_mean"],
        "frame_read_p95_ms": result["frame_read_p95_ms"],
        "mean_ms": result["mean_ms"],
        "warmup_frames": result["warmup_frames"],
        "preset": PRESET,
        "workload": WORKLOAD.stem,
        "cpus": result["cpus"],
        "tasks": result["tasks"],
    }
