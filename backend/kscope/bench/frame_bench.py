"""`kscope bench frame`: one animation frame of a busy 480-CPU machine in the browser's module.

A frame (bench_frame.mjs) = ks_sim_run_until to the next tick of simulated time
(until_ns = k x tick) + ks_sim_frame_get + reading the whole frame through typed
arrays: 2 wasm calls. The workload is frame-busy.json on hcc-2s-480 (992 tasks).

The default tick is 100 us of simulated time, about 9.6k events a frame on this
workload. The browser's fastest playback (1000 events/s, about 17 events a frame at
60 fps) asks far less than that; a 1 ms tick (about 96k events a frame) is the
heavier case, where nearly all the time is simulation, not the frame read
(`--tick 1ms` measures it).
"""

from pathlib import Path
from typing import Any

from kscope.bench import node

PRESET = "hcc-2s-480"
WORKLOAD = Path(__file__).resolve().parent / "frame-busy.json"
SEED = 42
TARGET_P95_MS = 4


DEFAULT_TICK_NS = 100_000


def run(frames: int = 500, tick_ns: int = DEFAULT_TICK_NS, warmup: int = 10) -> dict[str, Any]:
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
