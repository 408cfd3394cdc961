"""`kscope repro sheaves`: the document's shape on a quick grid, the published copies beside the
model's, the computed checks, the text's labels, and the native binding's errors."""

from typing import Any

import pytest

from kscope import repro as published_store
from kscope.cli import main
from kscope.models import registry
from kscope.models.sheaves import repro, text_report
from kscope.models.sheaves.native import mmap2
from kscope.native.core import KscopeCoreError

FUNCTIONS = {"barn_put_empty_sheaf", "barn_replace_empty_sheaf", "__pcs_replace_empty_main",
             "barn_get_empty_sheaf"}


@pytest.fixture(scope="module")
def quick() -> dict[str, Any]:
    """The quick grid (1 and 8 tasks, C = 32 and 64, one 4 ms window): a few seconds natively."""
    return repro.run(rounds=1, runs=1, quick=True)


def test_parallel_points_give_the_same_document(quick: dict[str, Any]) -> None:
    doc = repro.run(rounds=1, runs=1, quick=True, jobs=2)
    for key in ("calls_per_mmap", "ops_delta", "vs_baseline", "capacity_sweep", "spinlock_share",
                "grace_period_sensitivity", "checks"):
        assert doc[key] == quick[key]


def test_document_holds_the_issues_keys(quick: dict[str, Any]) -> None:
    assert {"calls_per_mmap", "capacity_sweep", "ops_delta", "vs_baseline", "spinlock_share",
            "checks", "inputs", "calibrated"} <= set(quick)
    assert set(quick["calls_per_mmap"]) == {"nofix", "fix"}
    for variant in ("nofix", "fix"):
        assert set(quick["calls_per_mmap"][variant]) == FUNCTIONS
    assert set(quick["ops_delta"]) == {"gnr-2s-snc", "epyc-9654-2s"}
    for row in quick["capacity_sweep"]:
        assert {"nr_tasks", "capacity", "fix", "delta_pct"} <= set(row)
    assert {(r["capacity"], r["fix"]) for r in quick["capacity_sweep"]} == \
        {(32, False), (32, True), (64, False), (64, True)}
    assert quick["calibrated"].startswith("nothing")
    assert [r["rcu_gp_ms"] for r in quick["grace_period_sensitivity"]] == [4, 8, 12]


def test_published_figures_are_the_seeds(quick: dict[str, Any]) -> None:
    pub = published_store.published()["slub_sheaves_spare"]
    counts = pub["bpftrace_counts_hao_384_tasks_25s"]
    per = quick["calls_per_mmap_published"]
    assert per["nofix"]["barn_put_empty_sheaf"] == round(38833037 / 489634255, 5)
    assert per["fix"]["barn_get_empty_sheaf"] == round(counts["with"]["barn_get_empty_sheaf"]
                                                       / counts["with"]["mmap"], 5)
    gnr = {r["nr_tasks"]: r["published_pct"] for r in quick["ops_delta"]["gnr-2s-snc"]}
    assert gnr == {1: 3.593, 8: 3.094}
    assert quick["spinlock_share"]["nofix"]["published_pct"] == 65.72
    assert quick["spinlock_share"]["fix"]["published_pct"] == 28.8
    base = {r["nr_tasks"]: r["published_pct"] for r in quick["vs_baseline"]}
    assert base[8] == {"nofix": -12.523, "fix": -9.816}


def test_the_fix_cuts_barn_put_empty_and_keeps_replaces(quick: dict[str, Any]) -> None:
    calls = quick["calls_per_mmap"]
    assert calls["nofix"]["barn_put_empty_sheaf"] > 10 * calls["fix"]["barn_put_empty_sheaf"]
    # 2 maple_node allocations per iteration, capacity 32: one replace per 16 iterations
    for variant in ("nofix", "fix"):
        assert calls[variant]["__pcs_replace_empty_main"] == pytest.approx(2 / 32, rel=0.03)
    check = quick["checks"]["barn_put_empty_drops_10x"]
    assert check["pass"] is True and check["published"] == 37.1


def test_larger_capacity_means_fewer_replaces(quick: dict[str, Any]) -> None:
    per = {(r["capacity"], r["fix"], r["nr_tasks"]): r["replace_per_mmap"] for r in quick["capacity_sweep"]}
    for fix in (False, True):
        assert per[(64, fix, 8)] == pytest.approx(per[(32, fix, 8)] / 2, rel=0.05)


def test_checks_are_computed_not_forced(quick: dict[str, Any]) -> None:
    rows = quick["checks"]["ops_direction"]["rows"]
    # the quick grid has only nr_tasks 1 and 8, where no published change is beyond 5%
    assert rows == [] and quick["checks"]["ops_direction"]["pass"] is True
    rep = quick["checks"]["replace_about_2x_in_25s_totals"]
    assert rep["pass"] == (1.5 <= rep["fix_over_nofix_25s"] <= 2.7)


def test_text_labels_published_and_modelled(quick: dict[str, Any]) -> None:
    text = text_report.render(quick)
    assert "MEASURED" in text and "MODELLED" in text and "PREDICTED" in text
    assert "barn_put_empty_sheaf" in text and "ASSUMPTION" in text
    assert "grace period 8 ms" in text


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="background"):
        repro.run(background=1, quick=True)
    with pytest.raises(ValueError, match="rounds"):
        repro.run(rounds=0, quick=True)
    with pytest.raises(ValueError, match="unknown mmap2 config field"):
        mmap2.run(nr_task=1)
    with pytest.raises(KscopeCoreError):
        mmap2.run(preset="gnr-2s-snc", nr_tasks=345)       # 344 CPUs
    with pytest.raises(KscopeCoreError):
        mmap2.run(preset="no-such-machine")


def test_registered_as_a_repro_target(capsys: pytest.CaptureFixture[str]) -> None:
    assert "sheaves" in [m.name for m in registry.repro_targets()]
    assert main(["repro", "--list"]) == 0
    assert "sheaves" in capsys.readouterr().out
