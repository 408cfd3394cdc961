"""`kscope bench core|frame` with tiny sizes: valid JSON with the documented keys (no timing asserts)."""

import json
import shutil
import subprocess

import pytest

from conftest import KSCOPE

CORE_KEYS = {"native_events_per_s", "wasm_events_per_s", "wasm_over_native_time", "events", "workload",
             "preset", "targets", "event_stream_hash"}
FRAME_KEYS = {"frames", "p50_ms", "p95_ms", "max_ms", "calls_per_frame", "target_p95_ms", "tick"}

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node not on PATH")


def kscope_json(*argv: str) -> dict:
    result = subprocess.run([str(KSCOPE), *argv, "--json"], capture_output=True, text=True, check=True)
    return json.loads(result.stdout)  # exactly one JSON document on stdout


def test_bench_core_json() -> None:
    doc = kscope_json("bench", "core", "--events", "20000", "--repeat", "1")
    assert set(doc) >= CORE_KEYS
    assert doc["events"] == 20000 and doc["preset"] == "epyc-9654-2s" and doc["workload"] == "bench-busy"
    assert doc["targets"] == {"native_events_per_s": 5_000_000, "wasm_over_native_time": 1.5}
    assert doc["native_events_per_s"] > 0 and doc["wasm_events_per_s"] > 0 and doc["wasm_over_native_time"] > 0
    assert len(doc["event_stream_hash"]) == 16


def test_bench_frame_json() -> None:
    doc = kscope_json("bench", "frame", "--frames", "5", "--warmup", "1", "--tick", "100us")
    assert set(doc) >= FRAME_KEYS
    assert doc["frames"] == 5 and doc["calls_per_frame"] == 2 and doc["target_p95_ms"] == 4
    assert 0 <= doc["p50_ms"] <= doc["p95_ms"] <= doc["max_ms"]
    assert doc["cpus"] == 480 and doc["tick_ns"] == 100_000


def test_bench_text() -> None:
    result = subprocess.run([str(KSCOPE), "bench", "frame", "--frames", "3", "--warmup", "0", "--tick", "50us"],
                            capture_output=True, text=True, check=True)
    assert result.stdout.startswith("bench frame: 3 frames of frame-busy on hcc-2s-480")
