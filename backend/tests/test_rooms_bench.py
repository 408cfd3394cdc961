"""`kscope bench rooms` at 20 followers: it runs and prints the documented fields (no timing asserts)."""

import json
import shutil
import subprocess

import pytest

from conftest import KSCOPE

RUN_KEYS = {"backends", "p50_ms", "p95_ms", "p99_ms", "max_ms", "mean_ms", "samples", "missed", "connect_s",
            "server_to_follower_p50_ms", "server_to_follower_p99_ms", "server_cpu_ms_per_step",
            "client_cpu_ms_per_step"}


def test_bench_rooms_json_both_backends() -> None:
    if shutil.which("redis-server") is None:
        reason = "redis-server not installed (scripts/setup.sh installs it)"
        print(reason)
        pytest.skip(reason)
    result = subprocess.run([str(KSCOPE), "bench", "rooms", "--followers", "20", "--steps", "5", "--json"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)  # exactly one JSON document
    assert doc["followers"] == 20 and doc["steps"] == 5 and doc["target_p99_ms"] == 100
    assert [r["backends"] for r in doc["runs"]] == [1, 2]
    for run in doc["runs"]:
        assert set(run) >= RUN_KEYS
        assert run["samples"] + run["missed"] == 100 and run["missed"] == 0
        assert 0 <= run["p50_ms"] <= run["p95_ms"] <= run["p99_ms"] <= run["max_ms"]
    assert doc["p99_ratio_2_over_1"] == round(doc["runs"][1]["p99_ms"] / doc["runs"][0]["p99_ms"], 2)


def test_bench_rooms_text_one_backend() -> None:
    result = subprocess.run([str(KSCOPE), "bench", "rooms", "--followers", "5", "--steps", "3", "--backends", "1"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("bench rooms: 5 followers, 3 steps every 100 ms")
    assert "1 backend(s): p50 " in result.stdout and "2 backend(s)" not in result.stdout
