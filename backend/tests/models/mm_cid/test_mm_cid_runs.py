"""kscope.kernel.mm_cid_runs (what `npm run test:kernel` measures), on the shipped traces of
kscope's 6.12 build: one image, kscope_mm_cid=legacy and =recent (traces/README.md)."""

from pathlib import Path

import pytest

from conftest import REPO
from kscope.models.mm_cid import kernel_runs as mm_cid_runs

TRACES = REPO / "traces"


def test_fields_of_a_kscope_mm_cid_get_line() -> None:
    assert mm_cid_runs.mm_cid_get_fields("cid=8 recent_cid=-1 max_nr_cid=9 path=recent") == {
        "cid": 8, "recent_cid": -1, "max_nr_cid": 9, "path": "recent"}
    with pytest.raises(mm_cid_runs.TraceFieldError, match=r"no max_nr_cid, path in 'cid=8 recent_cid=8'"):
        mm_cid_runs.mm_cid_get_fields("cid=8 recent_cid=8")
    with pytest.raises(mm_cid_runs.TraceFieldError, match="invalid literal"):
        mm_cid_runs.mm_cid_get_fields("cid=x recent_cid=8 max_nr_cid=9 path=pcpu")


def _figures(mode: str) -> mm_cid_runs.MmCidFigures:
    return mm_cid_runs.of_file(TRACES / f"intermittent8-linux6.12-kscope-{mode}-vm16.txt.xz")


def test_recent_keeps_one_cid_per_pinned_thread_legacy_does_not() -> None:
    recent, legacy = _figures("recent"), _figures("legacy")
    assert recent.threads == legacy.threads == 8  # the main thread (tid == tgid) is left out
    assert all(len(c) == 1 for c in recent.cids_per_thread.values())
    assert max(len(c) for c in legacy.cids_per_thread.values()) > 1
    assert recent.kept == recent.returns > 0 and legacy.kept < legacy.returns


def test_tracepoint_events_are_attributed_to_the_thread_switched_in() -> None:
    recent, legacy = _figures("recent"), _figures("legacy")
    # Only the workload's threads' allocations count (init's and timeout's expand too, from 0).
    assert set(legacy.paths) == {"pcpu", "lowest"} and legacy.max_nr_cid == -1
    assert {"recent", "expand"} <= set(recent.paths) and recent.max_nr_cid == 9
    assert recent.got_recent == recent.allocations_with_recent > 0
    assert legacy.got_recent < legacy.allocations_with_recent
    # Every switch-in of a workload thread has its event: about one per rseq_update.
    assert abs(recent.tracepoint_events - recent.rseq_updates) < 0.2 * recent.rseq_updates
