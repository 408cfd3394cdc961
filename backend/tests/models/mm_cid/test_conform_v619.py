"""`kscope conform` with the v6.19 variant (the 6.19 ownership-mode rework, Debian's 7.x kernels):
the real 7.3 captures in traces/ are chosen v6.19 from their kernel release and agree where the older
variants do not; a simulated run's disagreements are all named for what the replay cannot know."""

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO
from kscope.cli import main

TRACES = REPO / "traces"
# 12 threads on 8 CPUs (per-CPU mode), 3 (per-task mode), and short-lived forked processes.
WORKLOAD = {"name": "v619", "duration_ms": 1200, "processes": [
    {"kind": "intermittent", "comm": "wide", "threads": 12, "placement": "free", "index_by": "mm_cid",
     "delay_ms": 5},
    {"kind": "intermittent", "comm": "narrow", "threads": 3, "placement": "free", "index_by": "mm_cid",
     "delay_ms": 150},
    {"kind": "fork_churn", "comm": "forker", "children": 30, "child_runtime_us": 3000, "concurrency": 4,
     "fork_us": 300}]}


def conform_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["conform", *argv, "--json"]) == 0
    out, _ = capsys.readouterr()
    return json.loads(out)


def test_a_simulated_v619_run_names_what_the_replay_cannot_know(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """The simulator's export has no fork records for threads it made at a process's start, so
    the replay meets them as alive before the trace, in the order they first run. 6.19 hands
    cids out at fork (per-task mode) and switches mode by thread count, so those processes'
    cids cannot be known: every disagreement says so (state_before_trace, then cascade), none
    blames a scan (6.19 has none). The fork_churn children, forked inside the trace, agree."""
    workload = tmp_path / "w.json"
    workload.write_text(json.dumps(WORKLOAD))
    trace = tmp_path / "sim.txt"
    assert main(["sim", "--preset", "classroom-8", "--workload", str(workload), "--until", "1200ms",
                 "--algo", "mm_cid:v6.19", "--export", "ftrace", "-o", str(trace), "--no-hash", "--json"]) == 0
    capsys.readouterr()
    doc = conform_json(capsys, str(trace), "--variant", "v6.19")
    assert doc["variant"] == "v6.19" and doc["rseq_updates"] > 200 and doc["gaps"] == 0
    assert doc["scans"] == 0  # 6.19 has no scan
    assert set(doc["causes"]) <= {"state_before_trace", "cascade"}, doc["causes"]
    forked = [d for d in doc["disagreements"] if d["cause"] != "cascade" and d["tgid"] != d["tid"]
              and not d["why"].startswith("process existed")]
    assert not forked


@pytest.mark.parametrize("name", ["intermittent8-pinned-200ms-linux7.3-vm8.txt.xz",
                                  "intermittent2-pinned-10ms-linux7.3-vm2.txt.xz"])
def test_real_73_captures_pick_v619_and_agree(capsys: pytest.CaptureFixture[str], name: str) -> None:
    doc = conform_json(capsys, str(TRACES / name))
    assert doc["variant"] == "v6.19" and doc["variant_from"] == "header"
    assert doc["agreement"] == 1.0
    assert any("no periodic scan" in n for n in doc["notes"])
    older = conform_json(capsys, str(TRACES / name), "--variant", "v6.18")
    assert older["agreement"] < 0.5
