"""`npm run test:kernel` (not part of `npm test`: it builds a kernel, then boots it twice).

Builds Debian's 6.12 with kscope's mm_cid patches and their tracepoint (cached by
`kscope kernel build`), boots it in a 16-vCPU, 4-node QEMU guest (TCG when KVM does not
work) with kscope_mm_cid=legacy and then =recent, runs seed 000's intermittent workload
(8 threads pinned to CPUs 0-7, turns 200 ms apart), and checks what the patch promises:

  * recent: a thread that comes back after > 100 ms without running gets the cid it had
    (rseq_update's mm_cid per thread), and kscope_mm_cid_get says why (path=recent);
  * legacy: the CPU's recent cid is not what decides; every allocation is path=lowest, and
    threads come back with a cid they did not have before at least sometimes;
  * kscope_mm_cid_get lines decode into their named fields (cid, recent_cid, max_nr_cid, path).

Figures are printed (run with -s). Environment: KSCOPE_TEST_KERNEL_SECONDS (workload
seconds, default 10: 50 turns 200 ms apart), KSCOPE_TEST_KERNEL_OUT (keep the two traces
in this folder).
"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from kscope.models.mm_cid import kernel_runs as mm_cid_runs

REPO = Path(__file__).resolve().parents[4]  # backend/tests_kernel/models/mm_cid/ -> the repository
KSCOPE = [str(Path(sys.executable).with_name("kscope"))]  # the venv's console script
PATCHES = "mm_cid,trace"
SECONDS = float(os.environ.get("KSCOPE_TEST_KERNEL_SECONDS", "10"))


def _run(args: list[str], timeout: float) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([*KSCOPE, *args], cwd=REPO, capture_output=True, text=True, timeout=timeout)
    sys.stderr.write(done.stderr[-3000:])
    return done


@pytest.fixture(scope="module")
def built() -> dict:
    done = _run(["kernel", "build", "--patches", PATCHES, "--json"], timeout=3 * 3600)
    assert done.returncode == 0, done.stderr[-2000:]
    doc = json.loads(done.stdout)
    how = "cached" if doc.get("cached") else f"built in {doc['make_s'] / 60:.1f} min"
    print(f"\nkernel: {doc['release']} patches {doc['patches']} ({how}) {doc['bzImage']}")
    return doc


@pytest.fixture(scope="module")
def runs(built: dict) -> dict[str, mm_cid_runs.MmCidFigures]:
    out_dir = Path(os.environ.get("KSCOPE_TEST_KERNEL_OUT") or tempfile.mkdtemp(prefix="kscope-test-kernel-"))
    out_dir.mkdir(parents=True, exist_ok=True)
    result = {}
    for mode in ("legacy", "recent"):
        trace = out_dir / f"intermittent8-6.12-kscope-{mode}.txt"
        done = _run(["capture-vm", "--kernel", "built", "--patches", PATCHES, "--smp", "16", "--numa", "4",
                     "--workload", "intermittent", "--threads", "8", "--delay-ms", "200", "--seconds", f"{SECONDS:g}",
                     "--cmdline", f"kscope_mm_cid={mode}", "-o", str(trace), "--json"], timeout=900)
        assert done.returncode == 0, done.stderr[-2000:]
        doc = json.loads(done.stdout)
        assert f"kscope_mm_cid={mode}" in doc["cmdline"]
        assert doc["guest_numa_nodes"] == 4, doc
        assert doc["by_type"].get("rseq_update", 0) > 0, doc["by_type"]
        figures = mm_cid_runs.of_file(trace)
        print(f"\n{mode}: {trace} ({doc['accel']}, {doc['events']} events, guest {doc['total_s']} s)\n"
              f"  threads {figures.threads}, returns after >100 ms idle {figures.returns}, same cid "
              f"{figures.kept} ({_pct(figures.kept_share)}); cids per thread {figures.as_dict()['cids_per_thread']}\n"
              f"  kscope_mm_cid_get {figures.tracepoint_events}: paths {dict(figures.paths)}; allocations "
              f"while the CPU had a recent cid {figures.allocations_with_recent}, got it back "
              f"{figures.got_recent}; max_nr_cid {figures.max_nr_cid}")
        result[mode] = figures
    return result


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def test_the_tracepoint_is_there_with_named_fields(runs: dict[str, mm_cid_runs.MmCidFigures]) -> None:
    for mode, f in runs.items():
        assert f.tracepoint_events > 0, mode
        fields = mm_cid_runs.mm_cid_get_fields(f.first_tracepoint_line)
        assert set(fields) == set(mm_cid_runs.MM_CID_FIELDS), f.first_tracepoint_line


def _share(hit: int, total: int) -> float:
    return hit / total if total else float("nan")


def test_legacy_takes_the_lowest_free_cid_and_ignores_the_recent_one(
        runs: dict[str, mm_cid_runs.MmCidFigures]) -> None:
    legacy = runs["legacy"]
    allocated = {p: n for p, n in legacy.paths.items() if p != "pcpu"}
    assert allocated and set(allocated) == {"lowest"}, legacy.paths
    assert legacy.max_nr_cid == -1  # legacy mode does not use max_nr_cid
    # The 6.12 behaviour the patch fixes: a CPU that lost its cid (the 100 ms scan took it
    # back) gets the lowest free one, its old one only when that happens to be the lowest:
    # at least one thread comes back to a different cid than its CPU had.
    assert legacy.allocations_with_recent > legacy.got_recent, legacy.as_dict()


def test_recent_gives_a_returning_thread_its_cid_back(runs: dict[str, mm_cid_runs.MmCidFigures]) -> None:
    recent, legacy = runs["recent"], runs["legacy"]
    assert set(recent.paths) <= {"pcpu", "recent", "expand", "lowest"}, recent.paths
    assert recent.paths.get("recent", 0) > 0, recent.paths
    # A CPU whose cid expired takes its recent cid back unless another CPU holds it now (which
    # happens after a migration moved it away: the source then forgets it, as in 7e019dc).
    assert recent.allocations_with_recent > 0, recent.as_dict()
    got = _share(recent.got_recent, recent.allocations_with_recent)
    assert got >= 0.8, recent.as_dict()
    assert got > _share(legacy.got_recent, legacy.allocations_with_recent)
    # Seen from user space (rseq): threads back after > 100 ms keep their cid at least as often.
    assert recent.returns >= 8 and legacy.returns >= 8
    assert recent.kept_share >= legacy.kept_share, (recent.as_dict(), legacy.as_dict())
    # Spreading stops at min(allowed CPUs = 16, mm_users = the threads + the main thread).
    assert 0 < recent.max_nr_cid <= min(16, recent.threads + 1), recent.as_dict()
