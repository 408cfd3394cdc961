"""kscope-rseq-bench (wasm-core/tools/mm_cid/rseq_bench) and `kscope bench rseq`: tiny runs that
check the document's shape and where the indexes come from (the thread's rseq area, or the
file), the pool's lazy population, and bad index files. No timing thresholds."""

import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import KSCOPE
from kscope.models.mm_cid import rseq_bench

CPUS = sorted(os.sched_getaffinity(0))
THREADS = min(2, len(CPUS))
TINY = ["--loops", "3", "--warmup", "20", "--delay-ms", "1"]


def bench(*args: str, env: dict[str, str] | None = None, expect: int = 0) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([str(rseq_bench.program()), *args], capture_output=True, text=True, timeout=60,
                          check=False, env={**os.environ, **(env or {})})
    assert proc.returncode == expect, proc.stderr
    return proc


def run_json(*args: str, env: dict[str, str] | None = None) -> dict:
    doc: dict = json.loads(bench(*args, env=env).stdout)
    return doc


def test_document_shape_and_cpu_id_read_from_rseq() -> None:
    doc = run_json("--index", "cpu_id", "--threads", str(THREADS), *TINY)
    assert doc["program"] == "kscope-rseq-bench" and doc["kernel"] == os.uname().release
    assert (doc["index"], doc["threads"], doc["loops"], doc["warmup"], doc["delay_ms"]) == ("cpu_id", THREADS, 3, 20, 1)
    assert doc["area_bytes"] == 16384
    assert doc["pool"] == {"policy": "cow_init", "stride": 65536, "item_len": 16384,
                           "max_index": doc["pool"]["max_index"]}
    assert doc["pool"]["max_index"] >= len(CPUS)
    assert sorted(t["position"] for t in doc["per_thread"]) == list(range(THREADS))
    total = 0
    for t, rec in enumerate(doc["per_thread"]):
        assert rec["thread"] == t and rec["cpu"] == CPUS[t]
        # pinned: the rseq area's cpu_id is the CPU sched_getcpu() reports
        assert rec["rseq_cpu_id"] == rec["sched_getcpu"] == rec["cpu"]
        assert rec["rseq_cpu_id_start"] == rec["cpu"] and rec["warmup_index"] == rec["cpu"]
        assert len(rec["bursts"]) == 3
        for b in rec["bursts"]:
            assert b["index"] == b["cpu_id"] == rec["cpu"]
            assert b["ns"] > 0 and b["minflt"] >= 0
            total += b["ns"]
    assert doc["total_ns"] == total and doc["ns_per_burst"] == total // (THREADS * 3)


def test_own_registration_when_glibc_registers_none() -> None:
    # glibc.pthread.rseq=0: glibc registers no area (__rseq_size 0); each thread registers its own
    doc = run_json("--index", "cpu_id", "--threads", str(THREADS), *TINY,
                   env={"GLIBC_TUNABLES": "glibc.pthread.rseq=0"})
    assert doc["rseq"]["source"] == "own" and doc["rseq"]["offset"] == 0
    for rec in doc["per_thread"]:
        assert rec["rseq_cpu_id"] == rec["sched_getcpu"] == rec["cpu"]
        assert [b["index"] for b in rec["bursts"]] == [rec["cpu"]] * 3


def test_mm_cid_indexes_are_the_rseq_field() -> None:
    doc = run_json("--index", "mm_cid", "--threads", str(THREADS), *TINY)
    if not doc["rseq"]["mm_cid"]:
        pytest.skip(f"kernel {doc['kernel']} has no rseq mm_cid")
    assert doc["rseq"]["active_size"] >= 28
    for rec in doc["per_thread"]:
        for b in rec["bursts"]:
            assert b["index"] == b["mm_cid"]
            assert 0 <= b["mm_cid"] < len(CPUS)   # mm_cid < the CPUs the mm may use


def test_pool_pages_are_populated_on_first_write() -> None:
    # librseq's COW_INIT pool: an index's 4 pages are copied on its first write (one fault each)
    lazy = run_json("--index", "cpu_id", "--threads", "1", *TINY)["per_thread"][0]
    assert lazy["first_sweep_minflt"] >= 4
    prefaulted = run_json("--index", "cpu_id", "--threads", "1", "--populate", "prefault", *TINY)
    assert prefaulted["pool"]["policy"] == "prefault"
    assert prefaulted["per_thread"][0]["first_sweep_minflt"] == 0


def test_index_file_gives_each_thread_its_indexes(tmp_path: Path) -> None:
    path = tmp_path / "cids.txt"
    lines = ["# thread t: warm-up index, then burst indexes", "1 1 0", "", "0 0 1 1 0"][: 2 + 2 * (THREADS - 1)]
    path.write_text("\n".join(lines) + "\n")
    doc = run_json("--index", f"file:{path}", "--threads", str(THREADS), "--order", ",".join(map(str, range(THREADS))),
                   "--loops", "5", "--warmup", "20", "--delay-ms", "0")
    assert doc["index"] == "file" and doc["index_file"] == str(path) and doc["order_seed"] is None
    # thread 0's line repeats cyclically over its 5 bursts
    assert doc["per_thread"][0]["warmup_index"] == 1
    assert [b["index"] for b in doc["per_thread"][0]["bursts"]] == [1, 0, 1, 0, 1]
    if THREADS == 2:
        assert doc["per_thread"][1]["warmup_index"] == 0
        assert [b["index"] for b in doc["per_thread"][1]["bursts"]] == [0, 1, 1, 0, 0]
        assert [t["position"] for t in doc["per_thread"]] == [0, 1]


@pytest.mark.parametrize(("text", "message"), [
    ("1 1 x\n", ":1:5: expected an index"),
    ("# c\n1 99999\n", ":2:3: index 99999 out of range"),
    ("1\n", ":1: a thread's line needs a warm-up index and at least one burst index"),
    ("", ": 0 lines of indexes for 1 threads"),
    ("0 0\n0 0\n", ":2: more lines than the 1 thread"),
])
def test_bad_index_file_names_file_line_and_column(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(text)
    proc = bench("--index", f"file:{path}", "--threads", "1", *TINY, expect=2)
    assert f"{path}{message}" in proc.stderr
    assert proc.stdout == ""


def test_cli_document(tmp_path: Path) -> None:
    proc = subprocess.run([str(KSCOPE), "bench", "rseq", "--json", "--loops", "2", "--warmup-sweeps", "10",
                           "--delays", "0,1", "--thread-counts", f"1,{THREADS}"],
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    doc = json.loads(proc.stdout)
    assert doc["measured"] is True and doc["host"]["kernel"] == os.uname().release
    assert doc["indexings"] == ["cpu_id", "mm_cid", "model", "fresh"] and doc["delays_ms"] == [0, 1]
    counts = sorted(set([1, THREADS]))
    assert doc["thread_counts"] == counts
    # "fresh" needs 2 indexes per thread; the pool has one per possible CPU
    fits = [n for n in counts if 2 * n <= rseq_bench.possible_cpus()]
    assert [(r["indexing"], r["threads"], r["delay_ms"]) for r in doc["rows"]] == [
        (i, n, d) for i in ("cpu_id", "mm_cid", "model", "fresh") for n in (fits if i == "fresh" else counts)
        for d in (0, 1)]
    assert [(k["threads"], k["delay_ms"]) for k in doc["skipped"]] == [
        (n, d) for n in counts if n not in fits for d in (0, 1)]
    for r in doc["rows"]:
        assert r["bursts"] == 2 * r["threads"] and r["min_ns"] <= r["median_ns"] <= r["max_ns"]
        assert r["cpu_id_is_sched_getcpu"] is True
        assert len(r["mm_cid_seen"]) == r["threads"] and r["measured_minflt"] >= 0
        if r["indexing"] == "cpu_id":
            assert r["indexes"] == [[c] * 2 for c in r["cpu"]]
        if r["indexing"] == "model":
            assert r["model"]["variant"] == doc["model_variant"] and r["model"]["median_cost_ns"] > 0
            assert r["model"]["bursts"] == r["bursts"] and 0 <= r["model"]["kernel_agrees"] <= r["bursts"]
        if r["indexing"] == "fresh":
            # the first measured burst writes a never-touched index: the pool copies its 4 pages then
            assert [ix[0] for ix in r["indexes"]] == [r["threads"] + t for t in range(r["threads"])]
            assert [ix[1:] for ix in r["indexes"]] == [[t] for t in range(r["threads"])]
            assert all(f >= 4 for f in r["fresh"]["first_burst_minflt"])
            assert r["measured_minflt"] == sum(r["fresh"]["first_burst_minflt"]) and r["fault_bursts"] == r["threads"]
    text = subprocess.run([str(KSCOPE), "bench", "rseq", "--loops", "1", "--warmup-sweeps", "5", "--delays", "0",
                           "--thread-counts", "1", "--indexings", "cpu_id"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert text.returncode == 0, text.stderr
    assert "MEASURED" in text.stdout and "cpu_id     1    0ms" in text.stdout


def test_cli_rejects_an_unknown_indexing() -> None:
    proc = subprocess.run([str(KSCOPE), "bench", "rseq", "--indexings", "cpu_id,node"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 2 and "unknown node" in proc.stderr
