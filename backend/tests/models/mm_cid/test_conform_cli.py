"""`kscope conform`: a trace's scheduling events replayed through the mm_cid model, every
rseq_update's mm_cid compared with the model's (wasm-core/include/kscope/mm_cid/native/conform.h)."""

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO
from kscope.cli import main
from kscope.conform import variant_for_kernel

TRACES = REPO / "traces"
# Unpinned threads (the trace does not record affinity, so the replay assumes all CPUs),
# long runs of pipe pairs (ticks: the 100 ms scan runs), forks and exits (many mms).
BUSY = {"name": "busy", "duration_ms": 1500, "processes": [
    {"kind": "intermittent", "comm": "bench", "threads": 4, "placement": "free", "index_by": "mm_cid",
     "delay_ms": 150},
    {"kind": "pipe_pairs", "comm": "hb", "groups": 1, "pairs_per_group": 3, "messages": 400, "work_us": 2500},
    {"kind": "fork_churn", "comm": "forker", "children": 40, "child_runtime_us": 3000, "concurrency": 4,
     "fork_us": 300}]}


def conform_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["conform", *argv, "--json"]) == 0
    out, _ = capsys.readouterr()
    return json.loads(out)


def consistent(doc: dict[str, Any]) -> None:
    assert doc["agree"] + doc["disagree"] == doc["compared"]
    assert doc["compared"] + doc["unknown_mm"] + doc["no_cid"] == doc["rseq_updates"]
    if doc["compared"]:
        assert doc["agreement"] == pytest.approx(doc["agree"] / doc["compared"])
        assert 0.0 <= doc["agreement"] <= 1.0
    assert doc["gaps_mm"] <= doc["gaps"]
    assert len(doc["first_disagreements"]) == min(doc["disagree"], 10)
    assert doc["first_disagreements"] == doc["disagreements"][:10]
    assert sum(doc["causes"].values()) == doc["disagree"]
    for d in doc["disagreements"]:
        assert set(d) == {"ts", "tid", "tgid", "cpu", "kernel_cid", "model_cid", "cause", "why"}
        assert d["kernel_cid"] != d["model_cid"] and d["why"] and d["cause"] in doc["causes"]
        assert isinstance(d["ts"], int)  # ns


@pytest.mark.parametrize("variant", ["v6.12", "v6.13", "v6.18"])
def test_a_simulated_run_replays_at_full_agreement(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   variant: str) -> None:
    workload = tmp_path / "busy.json"
    workload.write_text(json.dumps(BUSY))
    trace = tmp_path / "sim.txt"
    assert main(["sim", "--preset", "classroom-8", "--workload", str(workload), "--until", "2s",
                 "--algo", f"mm_cid:{variant}", "--export", "ftrace", "-o", str(trace), "--no-hash",
                 "--json"]) == 0
    capsys.readouterr()
    doc = conform_json(capsys, str(trace), "--variant", variant)
    consistent(doc)
    assert doc["variant"] == variant and doc["variant_from"] == "option" and doc["hz"] == 250
    assert doc["rseq_updates"] > 1000 and doc["unknown_mm"] == 0 and doc["gaps"] == 0
    assert doc["scans"] > 0
    assert doc["agreement"] == 1.0, doc["first_disagreements"]


@pytest.mark.parametrize(("name", "variant"), [("threads4-linux6.18.txt", "v6.18"),
                                               ("intermittent8-linux6.12-vm16.txt", "v6.12")])
def test_real_traces_replay(capsys: pytest.CaptureFixture[str], name: str, variant: str) -> None:
    doc = conform_json(capsys, str(TRACES / name))
    consistent(doc)
    assert doc["variant"] == variant and doc["variant_from"] == "header"
    assert doc["rseq_updates"] > 0 and doc["compared"] > 0
    assert doc["kernel"].startswith(variant[1:])


def test_resync_counts_decisions_from_the_kernels_state(capsys: pytest.CaptureFixture[str]) -> None:
    trace = str(TRACES / "intermittent8-linux6.12-vm16.txt")
    plain = conform_json(capsys, trace)
    again = conform_json(capsys, trace, "--resync")
    consistent(again)
    assert plain["resync"] is False and plain["resyncs"] == 0
    assert again["resync"] is True and 0 < again["resyncs"] <= again["disagree"]
    assert again["rseq_updates"] == plain["rseq_updates"]


def test_text_report_and_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conform", str(TRACES / "threads4-linux6.18.txt"), "--variant", "v6.12", "--hz", "1000"]) == 0
    out, _ = capsys.readouterr()
    assert "mm_cid:v6.12 (HZ 1000" in out and "agreement" in out


def test_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conform", str(tmp_path / "missing.txt")]) == 2
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    assert main(["conform", str(empty)]) == 2
    capsys.readouterr()


def test_tgid_inferred_without_a_tgid_column(capsys: pytest.CaptureFixture[str]) -> None:
    """The trace.dat capture has no TGID column: processes come from sched_process_fork and
    the assumption that other tasks lead their own process; the report says so."""
    doc = conform_json(capsys, str(TRACES / "threads4-linux6.18.dat.xz"))
    consistent(doc)
    assert doc["tgid"]["from_trace"] == 0 and doc["tgid"]["from_fork"] >= 4
    assert doc["unknown_mm"] == 0 and doc["compared"] == doc["rseq_updates"] > 1000
    assert any("no TGID column" in n for n in doc["notes"])


def test_tgids_from_the_capture_header() -> None:
    import numpy as np

    from kscope import tgids
    from kscope.ingest import records

    rec = np.zeros(3, records.RECORD)
    rec["type"] = records.RSEQ
    rec["pid"] = [10, 11, 12]
    rec["tgid"] = -1
    out, info = tgids.fill(rec.view(records.RAW), {"tasks": "10:10,11:10,bad,12:x"})
    assert out.view(records.RECORD)["tgid"].tolist() == [10, 10, 12]
    assert info == {"from_trace": 0, "from_header": 2, "from_fork": 0, "assumed_leader": 1}
    assert rec["tgid"].tolist() == [-1, -1, -1]  # the input is not changed


def test_variant_for_kernel() -> None:
    assert variant_for_kernel("6.12.117+deb12-amd64") == "v6.12"
    assert variant_for_kernel("5.15.0") == "v6.12"
    assert variant_for_kernel("6.13.0") == "v6.13"
    assert variant_for_kernel("6.17.9") == "v6.13"
    assert variant_for_kernel("Linux vm 6.18.44-fc-v669 x86_64") == "v6.18"
    assert variant_for_kernel("7.0") == "v6.19"
    assert variant_for_kernel("7.3.4+deb13-amd64") == "v6.19"
    assert variant_for_kernel("6.19.2") == "v6.19"
    assert variant_for_kernel("6.18.44-fc-v669") == "v6.18"


def test_variant_for_a_kscope_built_612_follows_its_boot_parameter() -> None:
    from kscope.models.mm_cid.conform import variant_for_capture

    meta = {"patches": "mm_cid,trace", "cmdline": "console=ttyS0 quiet kscope_mm_cid=recent"}
    assert variant_for_capture("6.12.117", meta) == ("v6.13", "kscope_mm_cid=recent")
    assert variant_for_capture("6.12.117", {**meta, "cmdline": "kscope_mm_cid=legacy"}) == \
        ("v6.12", "kscope_mm_cid=legacy")
    assert variant_for_capture("6.12.117", {**meta, "cmdline": "console=ttyS0"}) == ("v6.12", "kscope_mm_cid=legacy")
    # Without the patch the parameter means nothing; later kernels go by version.
    assert variant_for_capture("6.12.117", {"cmdline": "kscope_mm_cid=recent"}) == ("v6.12", "header")
    assert variant_for_capture("6.18.2", meta) == ("v6.18", "header")


def test_the_shipped_kscope_612_traces_pick_their_variant_from_the_boot_parameter(
        capsys: pytest.CaptureFixture[str]) -> None:
    """kscope's 6.12 build, one image booted twice (traces/README.md): the 7e019dc design
    (kscope_mm_cid=recent) replays through mm_cid:v6.13 with every cid matching; 6.12's
    allocator (=legacy) goes to mm_cid:v6.12."""
    recent = conform_json(capsys, str(TRACES / "intermittent8-linux6.12-kscope-recent-vm16.txt.xz"))
    assert (recent["variant"], recent["variant_from"]) == ("v6.13", "kscope_mm_cid=recent")
    assert recent["compared"] > 500 and recent["agree"] == recent["compared"]
    legacy = conform_json(capsys, str(TRACES / "intermittent8-linux6.12-kscope-legacy-vm16.txt.xz"))
    assert (legacy["variant"], legacy["variant_from"]) == ("v6.12", "kscope_mm_cid=legacy")
    assert legacy["compared"] > 500
