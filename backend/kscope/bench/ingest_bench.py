"""`kscope bench ingest`: the real-trace data path, as a user runs it (figures, not a test).

1. Generates ftrace text with the simulator (hackbench-like pipe pairs on
   classroom-8, `kscope sim ... --export ftrace`): ~1 M and ~10 M events.
2. Ingests each file with `kscope ingest FILE --json` in a child process
   (a fresh data dir): wall time -> events/s and MB/s of input; the child's
   peak RSS from wait4(); bytes stored per event.
3. Runs `wc -l` on the same file in the same run, for a ratio against the
   plainest pass over the bytes.
4. Times the timeline summary (GET /summary's work: 1000 buckets over the whole
   trace and over random windows) 200 times per trace: p50/p95.
5. trace.dat: when `trace-cmd` is installed and the core decodes trace.dat,
   ingests the corpus' LISA trace.dat and times `trace-cmd report > /dev/null` on it.

Targets: ingest >= 300 MB/s for the whole process; peak RSS <= 0.5x the input;
<= 32 B/event stored; summary p95 <= 50 ms at 10 M events and <= 1.5x its 1 M time.
"""

import json
import math
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from kscope import simulate
from kscope.core.config import REPO_ROOT, Settings
from kscope.store.store import TraceStore

EVENTS_PER_MESSAGE = 8.0  # hackbench pipe pairs: ~8 records per message round trip
TARGETS = {"ingest_mb_per_s": 300, "peak_rss_over_input": 0.5, "bytes_per_event": 32,
           "summary_p95_ms_10m": 50, "summary_10m_over_1m": 1.5}
CORPUS_DAT = REPO_ROOT.parent / "shared" / "corpus" / "public" / "trace-dat__lisa__sched_load.dat"


def _workload(events: int, path: Path) -> Path:
    messages = max(1, math.ceil(events / EVENTS_PER_MESSAGE / 160))
    path.write_text(json.dumps({
        "name": "hackbench-bench", "description": "kscope bench ingest: pipe pairs sized to the event count",
        "duration_ms": 3_600_000,
        "processes": [{"kind": "pipe_pairs", "comm": "hackbench", "groups": 8, "pairs_per_group": 20,
                       "messages": messages, "work_us": 5}]}))
    return path


def generate(events: int, folder: Path) -> tuple[Path, int]:
    """An ftrace text file of at least `events` events; (path, events)."""
    out = folder / f"hackbench-{events}.txt"
    doc = simulate.run(simulate.SimRequest(topology="classroom-8", workload=_workload(events, folder / "w.json"),
                                           seed=1, until_ns=3_600_000_000_000, hash_events=False), export_to=out)
    return out, doc["events"]


def _child(argv: list[str], env: dict[str, str]) -> tuple[float, int, str, int]:
    """Runs argv; (wall seconds, peak RSS bytes, stdout, exit status) of that child alone."""
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        return wall, usage.ru_maxrss * 1024, out.read().decode(), proc.returncode


def _percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(pct / 100 * len(ordered)) - 1)]


def summary_latency(data_dir: Path, trace_id: str, runs: int = 200) -> dict[str, float]:
    store = TraceStore(Settings(data_dir=data_dir))
    try:
        rec = store.get(trace_id)
        rng = random.Random(7)
        span = rec.t_last_ns - rec.t_first_ns
        times = []
        for i in range(runs):
            if i % 2 == 0:
                t0, t1 = None, None
            else:
                a = rec.t_first_ns + rng.randrange(max(span, 1))
                t0, t1 = a, a + max(1, rng.randrange(max(span // 10, 1)))
            start = time.perf_counter()
            store.summary(rec, t0, t1, 1000)
            times.append((time.perf_counter() - start) * 1e3)
        return {"p50_ms": round(_percentile(times, 50), 3), "p95_ms": round(_percentile(times, 95), 3)}
    finally:
        store.close()


def bench_text(path: Path, events: int, work: Path) -> dict[str, Any]:
    size = path.stat().st_size
    data_dir = work / f"data-{events}"
    env = {**os.environ, "KSCOPE_DATA_DIR": str(data_dir)}
    kscope = str(Path(sys.executable).parent / "kscope")
    wall, rss, out, code = _child([kscope, "ingest", str(path), "--json"], env)
    if code != 0:
        raise RuntimeError(f"kscope ingest {path} failed with exit {code}")
    doc = json.loads(out)
    wc_wall, _, wc_out, _ = _child(["wc", "-l", str(path)], env)
    latency = summary_latency(data_dir, doc["trace_id"])
    shutil.rmtree(data_dir, ignore_errors=True)
    return {
        "events": doc["events"], "input_bytes": size, "ingest_s": round(wall, 3),
        "events_per_s": round(doc["events"] / wall), "mb_per_s": round(size / wall / 1e6, 1),
        "wc_l_s": round(wc_wall, 3), "ingest_over_wc": round(wall / wc_wall, 1), "wc_lines": int(wc_out.split()[0]),
        "peak_rss_bytes": rss, "peak_rss_over_input": round(rss / size, 3),
        "stored_bytes": doc["bytes_stored"], "bytes_per_event": doc["bytes_per_event"],
        "event_bytes_per_event": doc["event_bytes_per_event"], "summary": latency,
    }


def _bench_one_dat(path: Path, work: Path) -> dict[str, Any]:
    env = {**os.environ, "KSCOPE_DATA_DIR": str(work / f"data-{path.name}")}
    kscope = str(Path(sys.executable).parent / "kscope")
    wall, rss, out, code = _child([kscope, "ingest", str(path), "--json"], env)
    if code != 0:
        return {"file": path.name, "skipped": f"kscope ingest failed (exit {code})"}
    doc = json.loads(out)
    result: dict[str, Any] = {"file": path.name, "input_bytes": path.stat().st_size, "events": doc["events"],
                              "ingest_s": round(wall, 3), "events_per_s": round(doc["events"] / wall),
                              "mb_per_s": round(path.stat().st_size / wall / 1e6, 1), "peak_rss_bytes": rss}
    trace_cmd = shutil.which("trace-cmd")
    if trace_cmd is None:
        result["trace_cmd"] = "not installed"
        return result
    report_s, _, _, rc = _child([trace_cmd, "report", "-i", str(path)], env)
    result.update({"trace_cmd_report_s": round(report_s, 3), "trace_cmd_exit": rc,
                   "ingest_over_trace_cmd_report": round(wall / report_s, 2)})
    return result


def bench_tracedat(work: Path) -> dict[str, Any] | list[dict[str, Any]]:
    """Ingest vs `trace-cmd report > /dev/null` on the corpus' LISA trace.dat and on
    traces/threads4-linux6.18.dat (decompressed here)."""
    import lzma

    from kscope.ingest import formats

    if "trace.dat" not in formats.names():
        return {"skipped": "the loaded C core has no trace.dat decoder"}
    files = [CORPUS_DAT] if CORPUS_DAT.is_file() else []
    packed = REPO_ROOT / "traces" / "threads4-linux6.18.dat.xz"
    if packed.is_file():
        plain = work / "threads4-linux6.18.dat"
        plain.write_bytes(lzma.decompress(packed.read_bytes()))
        files.append(plain)
    return [_bench_one_dat(f, work) for f in files]


def run(events: int = 1_000_000, big: int = 10_000_000, keep: Path | None = None) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="kscope-bench-ingest-", dir=keep))
    try:
        runs = {}
        for n in (events, big):
            if n <= 0:
                continue
            path, made = generate(n, work)
            runs[str(n)] = {"generated_events": made, **bench_text(path, made, work)}
            path.unlink()
        document: dict[str, Any] = {
            "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
            "ftrace_text": runs, "trace_dat": bench_tracedat(work), "targets": TARGETS,
        }
        document["met"] = _met(runs, events, big)
        return document
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _met(runs: dict[str, Any], small: int, big: int) -> dict[str, bool | None]:
    all_runs = list(runs.values())
    s, b = runs.get(str(small)), runs.get(str(big))
    return {
        "ingest_mb_per_s": all(r["mb_per_s"] >= TARGETS["ingest_mb_per_s"] for r in all_runs),
        "peak_rss_over_input": all(r["peak_rss_over_input"] <= TARGETS["peak_rss_over_input"] for r in all_runs),
        "bytes_per_event": all(r["bytes_per_event"] <= TARGETS["bytes_per_event"] for r in all_runs),
        "summary_p95_ms_10m": None if b is None else b["summary"]["p95_ms"] <= TARGETS["summary_p95_ms_10m"],
        "summary_10m_over_1m": None if (s is None or b is None) else
        b["summary"]["p95_ms"] <= TARGETS["summary_10m_over_1m"] * max(s["summary"]["p95_ms"], 1.0),
    }
