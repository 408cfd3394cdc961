"""`kscope bench core`: the scheduler core's hot loop, native vs the browser's wasm.

Both halves run the same seeded workload (bench-busy.json, the workload of
wasm-core/tests/bench_core.c) on epyc-9654-2s and time the same thing: one
ks_sim_run_until call producing N events without keeping them (the C loop over
ks_sim_step, checkpoints included, as bench_core.c and the browser step it).
Natively that call goes through ctypes, so Python costs one call per run, not
per event. Each half takes the best of `repeat` runs, each on a fresh simulation.

Afterwards (untimed) both halves hash the same N events with FNV-1a 64: the
native records are piped through the Node hasher (fnv_stdin.mjs) so both hashes
come from the same code; they must be equal.
"""

import json
import platform
import subprocess
import time
from pathlib import Path
from typing import Any

from kscope.bench import node
from kscope.native.machine import Topology
from kscope.native.sim import Simulation

PRESET = "epyc-9654-2s"
WORKLOAD = Path(__file__).resolve().parent / "bench-busy.json"
SEED = 42
TARGETS = {"native_events_per_s": 5_000_000, "wasm_over_native_time": 1.5}


class HashMismatch(RuntimeError):
    """The native and wasm runs produced different event streams (the document says which)."""

    def __init__(self, document: dict[str, Any]) -> None:
        super().__init__(
            f"native and wasm event streams differ: {document['native_event_stream_hash']} "
            f"!= {document['wasm_event_stream_hash']}"
        )
        self.document = document


def time_native(workload: bytes, events: int, repeat: int) -> tuple[int, list[float]]:
    """(events produced, seconds of each run) of the timed native runs."""
    seconds, produced = [], 0
    with Topology.from_preset(PRESET) as topo:
        for _ in range(repeat):
            with Simulation(topo, workload, seed=SEED, source=str(WORKLOAD)) as sim:
                start = time.perf_counter()
                produced = sim.advance(max_events=events)
                seconds.append(time.perf_counter() - start)
    return produced, seconds


def hash_native(workload: bytes, events: int) -> str:
    """FNV-1a 64 of the native run's first `events` records, hashed by the Node hasher."""
    proc = subprocess.Popen(node.script_command("fnv_stdin.mjs"), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    assert proc.stdin is not None
    try:
        with Topology.from_preset(PRESET) as topo, Simulation(topo, workload, seed=SEED) as sim:
            for raw in sim.iter_raw(max_events=events):
                proc.stdin.write(raw)
    finally:
        proc.stdin.close()
    out = proc.stdout.read() if proc.stdout else b""
    if proc.wait() != 0:
        raise node.NodeScriptFailed(f"fnv_stdin.mjs failed (exit {proc.returncode})")
    return json.loads(out)["event_stream_hash"]


def run(events: int, repeat: int = 3) -> dict[str, Any]:
    """Both halves; the document `kscope bench core --json` prints. HashMismatch if they differ."""
    workload = WORKLOAD.read_bytes()
    native_events, native_seconds = time_native(workload, events, repeat)
    native_hash = hash_native(workload, native_events)
    wasm = node.run_script("bench_core.mjs", preset=PRESET, workload=WORKLOAD, seed=SEED,
                           events=events, repeat=repeat)
    native_best, wasm_best = min(native_seconds), wasm["best_seconds"]
    document = {
        "native_events_per_s": round(native_events / native_best),
        "wasm_events_per_s": round(wasm["events"] / wasm_best),
        "wasm_over_native_time": round(wasm_best / native_best, 3),
        "events": native_events,
        "workload": WORKLOAD.stem,
        "preset": PRESET,
        "seed": SEED,
        "event_stream_hash": native_hash,
        "targets": TARGETS,
        "repeat": repeat,
        "native_seconds": [round(s, 4) for s in native_seconds],
        "wasm_seconds": [round(s, 4) for s in wasm["seconds"]],
        "method": "best of `repeat` runs, each one ks_sim_run_until(max_events=N, no log) on a fresh "
                  "simulation; native: libkscope.so via ctypes, wasm: kscope_core.mjs + .wasm under "
                  f"Node; hash: FNV-1a 64 over the N 96-byte records; host {platform.machine()}",
    }
    if wasm["events"] != native_events or wasm["event_stream_hash"] != native_hash:
        document["native_event_stream_hash"] = native_hash
        document["wasm_event_stream_hash"] = wasm["event_stream_hash"]
        document["wasm_events"] = wasm["events"]
        raise HashMismatch(document)
    return document
