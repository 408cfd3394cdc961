"""Native and wasm builds give the identical event stream (STYLE habit 2: deterministic by construction).

The wasm side is the browser's module (kscope_core.mjs + .wasm) run under Node by
kscope/bench/sim_hash.mjs; it hashes with its own FNV-1a, so this also checks the
two hash implementations against each other.
"""

import json
import shutil
import subprocess

import pytest

from conftest import KSCOPE, WORKLOADS, registered_sim_algos
from kscope.bench import node

CASES = [
    ("epyc-9654-2s", "seed000-8core-200ms", 1, "2s"),
    ("classroom-8", "hackbench-2g", 3, "100ms"),
    ("genoa-4n", "fork-churn", 11, "50ms"),
    ("classroom-8", "rt-periodic", 2, "20ms"),
]


@pytest.fixture(scope="module", autouse=True)
def need_node() -> None:
    if shutil.which("node") is None:
        print("node not on PATH: skipping the native/wasm parity checks")
        pytest.skip("node not on PATH: the wasm side cannot run")


@pytest.mark.parametrize("preset,workload,seed,until", CASES)
def test_native_and_wasm_hashes_are_identical(preset: str, workload: str, seed: int, until: str) -> None:
    path = WORKLOADS / f"{workload}.json"
    native = json.loads(subprocess.run(
        [str(KSCOPE), "sim", "--preset", preset, "--workload", str(path), "--seed", str(seed),
         "--until", until, "--json"], capture_output=True, text=True, check=True).stdout)
    # the CLI's default algo is "auto"; the wasm side runs what it resolved to
    wasm = node.run_script("sim_hash.mjs", preset=preset, workload=path, seed=seed, until=native["until_ns"],
                           algo=native["algo"])
    # every example workload registers rseq, so "auto" runs a registered model, not none
    assert native["algo"] in registered_sim_algos(), native["algo"]
    assert native["events"] > 0
    assert (wasm["events"], wasm["now_ns"]) == (native["events"], native["now_ns"])
    assert wasm["events_by_type"] == native["events_by_type"]
    assert wasm["event_stream_hash"] == native["event_stream_hash"]
