"""`kscope bench ingest`: the real-trace data path, as a user runs it (figures, not a test).

1. ftrace text: generates ~1 M and ~10 M events with the simulator (hackbench-like
   pipe pairs on classroom-8, `kscope sim ... --export ftrace`), then runs
   `kscope ingest FILE --json` in a child process (a fresh data dir), three times:
   the median run's wall time -> events/s and MB/s (best and worst beside it); the child's CPU time (user + sys) and peak RSS from wait4()
   (taken by a small launcher process, so the bench's own memory is not counted);
   bytes stored per event. `kscope ingest` is a Python process running the native
   kscope-ingest program (which does the decoding and writing): wait4() gives the
   CPU time of both and the peak RSS of the larger (the native program). Both are
   alive at once, so the figure held against the target is the two peaks added
   (peak_rss_tree_bound: the Python process's own peak is the start-up run's).
   `wc -l` runs on the same file in the same run (the plainest pass over the
   bytes); `trace-cmd report` cannot read text.
2. Summary latency: the timeline summary (GET /summary's work: 1000 buckets over
   the whole trace and over random windows), 200 times per trace: p50/p95.
3. trace.dat: a real capture of >= 1 M scheduler events written by `trace-cmd
   extract` (kscope capture --trace-cmd, with `perf bench sched pipe` as the
   workload when perf is installed, else a Python pipe ping-pong), plus the
   corpus' LISA trace.dat and traces/threads4-linux6.18.dat. For each: `kscope
   ingest` vs `trace-cmd report > /dev/null` vs `wc -l`, same file, same run.
   Skipped, with the reason, where capturing is not possible (not root, no
   tracefs, no trace-cmd).
   `trace-cmd report` runs once more into a file, to count the text it renders:
   its text MB/s is the issue's peer ("trace-cmd renders text at ~63 MB/s here").
   against_peers gives the text ingest rate as a multiple of that rate and of
   `wc -l`'s, beside the target in the same terms (300 / 63 and 300 / 8000), which
   hold whatever the machine's speed that day.
4. Start-up: `kscope ingest` of a 0.8 MB trace, whose time is nearly all fixed
   cost (interpreter, imports, store), so the per-MB cost can be separated from it
   (in CPU time, see _arithmetic).

Wall times are of a shared machine (other processes compete for the CPUs); the
CPU times beside them are steadier. Ratios compare tools run back to back.

Targets: ingest >= 300 MB/s for the whole process; peak RSS <= 0.5x the input;
<= 32 B/event stored; summary p95 <= 50 ms at 10 M events and <= 1.5x its 1 M time;
trace.dat ingest >= 1.5x faster than `trace-cmd report > /dev/null`.
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
EVENTS_PER_PIPE_LOOP = 5.0  # perf bench sched pipe, 9 kscope events enabled: measured ~6 per loop
TARGETS = {"ingest_mb_per_s": 300, "peak_rss_over_input": 0.5, "bytes_per_event": 32,
           "summary_p95_ms_10m": 50, "summary_10m_over_1m": 1.5, "tracedat_over_trace_cmd": 1.5}
CORPUS_DAT = REPO_ROOT.parent / "shared" / "corpus" / "public" / "trace-dat__lisa__sched_load.dat"
STARTUP_TRACE = REPO_ROOT / "traces" / "threads4-linux6.18.txt"
# Python ping-pong when perf is missing: two processes bounce a byte over two pipes.
_PINGPONG = """import os, sys
n = int(sys.argv[1]); a, b = os.pipe(); c, d = os.pipe()
if os.fork() == 0:
    for _ in range(n): os.read(a, 1); os.write(d, b"x")
    os._exit(0)
for _ in range(n): os.write(b, b"x"); os.read(c, 1)
os.wait()
"""


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


# Runs argv[2:] and writes its wall time and wait4() usage to the file argv[1]. A child
# started straight from the bench would report the bench's own peak RSS: the kernel
# keeps the larger of the pre-exec and post-exec peaks, and before exec a spawned
# child shares its parent's memory. Started from this small launcher (python -S,
# ~10 MB), the figure is the command's own.
_LAUNCH = """import json, os, sys, time
start = time.perf_counter()
pid = os.posix_spawnp(sys.argv[2], sys.argv[2:], os.environ)
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as out:
    json.dump({"wall_s": time.perf_counter() - start, "cpu_s": usage.ru_utime + usage.ru_stime,
               "rss": usage.ru_maxrss * 1024, "exit": os.waitstatus_to_exitcode(status)}, out)
"""


def _launch(argv: list[str], env: dict[str, str], stdout: Any) -> dict[str, Any]:
    with tempfile.NamedTemporaryFile("r", suffix=".json") as report:
        subprocess.run([sys.executable, "-S", "-c", _LAUNCH, report.name, *argv], stdout=stdout,
                       stderr=subprocess.DEVNULL, env=env, check=True)
        return json.load(report)


def _child(argv: list[str], env: dict[str, str]) -> dict[str, Any]:
    """Runs argv (stdout kept, stderr dropped): wall s, CPU s (user + sys), peak RSS, output, exit."""
    with tempfile.TemporaryFile() as out:
        result = _launch(argv, env, out)
        out.seek(0)
        return {**result, "out": out.read().decode(errors="replace")}


def _to_null(argv: list[str], env: dict[str, str]) -> dict[str, Any]:
    """Runs argv with stdout to /dev/null (as `cmd > /dev/null`)."""
    with open(os.devnull, "wb") as null:
        return _launch(argv, env, null)


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


def _kscope() -> list[str]:
    """The command that runs `kscope` (KSCOPE_BENCH_KSCOPE: another build's, to compare)."""
    other = os.environ.get("KSCOPE_BENCH_KSCOPE")
    return other.split() if other else [str(Path(sys.executable).parent / "kscope")]


def _ingest(path: Path, data_dir: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """`kscope ingest path --json` in a child: (timings, its JSON document)."""
    env = {**os.environ, "KSCOPE_DATA_DIR": str(data_dir)}
    run = _child([*_kscope(), "ingest", str(path), "--json"], env)
    if run["exit"] != 0:
        raise RuntimeError(f"kscope ingest {path} failed with exit {run['exit']}")
    return run, json.loads(run["out"])


def _rates(run: dict[str, Any], size: int, events: int) -> dict[str, Any]:
    return {"wall_s": round(run["wall_s"], 3), "cpu_s": round(run["cpu_s"], 3),
            "mb_per_s": round(size / run["wall_s"] / 1e6, 1), "events_per_s": round(events / run["wall_s"]),
            "mb_per_cpu_s": round(size / max(run["cpu_s"], 1e-9) / 1e6, 1)}


def bench_text(path: Path, events: int, work: Path, parent_rss: int, repeat: int = 3) -> dict[str, Any]:
    """`kscope ingest` of the file `repeat` times (a fresh store each): the run of median wall
    time is reported, every run's wall and CPU time beside it (the machine's speed moves
    from run to run: one run's figure alone can land either side of a target)."""
    size = path.stat().st_size
    runs = []
    for i in range(repeat):
        data_dir = work / f"data-{events}-{i}"
        run, doc = _ingest(path, data_dir)
        if i < repeat - 1:
            shutil.rmtree(data_dir, ignore_errors=True)
        runs.append((run, doc, data_dir))
    ordered = sorted(runs, key=lambda r: r[0]["wall_s"])
    run, doc, _ = ordered[len(ordered) // 2]
    wc = _child(["wc", "-l", str(path)], dict(os.environ))
    latency = summary_latency(runs[-1][2], runs[-1][1]["trace_id"])
    shutil.rmtree(runs[-1][2], ignore_errors=True)
    rates = _rates(run, size, doc["events"])
    return {
        "events": doc["events"], "input_bytes": size, "ingest_s": rates["wall_s"], "ingest_cpu_s": rates["cpu_s"],
        "events_per_s": rates["events_per_s"], "mb_per_s": rates["mb_per_s"],
        "mb_per_cpu_s": rates["mb_per_cpu_s"], "decode_threads": doc.get("decode_threads"),
        "runs": [{"wall_s": round(r["wall_s"], 3), "cpu_s": round(r["cpu_s"], 3),
                  "mb_per_s": round(size / r["wall_s"] / 1e6, 1), "rss": r["rss"]} for r, _, _ in runs],
        "mb_per_s_best": round(size / ordered[0][0]["wall_s"] / 1e6, 1),
        "mb_per_s_worst": round(size / ordered[-1][0]["wall_s"] / 1e6, 1),
        "wc_l_s": round(wc["wall_s"], 3), "wc_l_mb_per_s": round(size / wc["wall_s"] / 1e6, 1),
        "ingest_over_wc": round(run["wall_s"] / wc["wall_s"], 1), "wc_lines": int(wc["out"].split()[0]),
        "trace_cmd_report": "cannot read ftrace text (it reads trace.dat)",
        "peak_rss_bytes": max(r["rss"] for r, _, _ in runs),
        "peak_rss_tree_bound_bytes": max(r["rss"] for r, _, _ in runs) + parent_rss,
        "peak_rss_over_input": round((max(r["rss"] for r, _, _ in runs) + parent_rss) / size, 3),
        "peak_rss_largest_process_over_input": round(max(r["rss"] for r, _, _ in runs) / size, 3),
        "stored_bytes": doc["bytes_stored"], "bytes_per_event": doc["bytes_per_event"],
        "event_bytes_per_event": doc["event_bytes_per_event"], "summary": latency,
    }


def _bench_one_dat(path: Path, work: Path, origin: str, parent_rss: int) -> dict[str, Any]:
    size = path.stat().st_size
    try:
        run, doc = _ingest(path, work / f"data-{path.name}")
    except RuntimeError as err:
        return {"file": path.name, "origin": origin, "skipped": str(err)}
    finally:
        shutil.rmtree(work / f"data-{path.name}", ignore_errors=True)
    result: dict[str, Any] = {"file": path.name, "origin": origin, "input_bytes": size, "events": doc["events"],
                              "ingest": _rates(run, size, doc["events"]), "peak_rss_bytes": run["rss"],
                              "peak_rss_tree_bound_bytes": run["rss"] + parent_rss,
                              "peak_rss_over_input": round((run["rss"] + parent_rss) / size, 3),
                              "bytes_per_event": doc["bytes_per_event"]}
    wc = _child(["wc", "-l", str(path)], dict(os.environ))
    result["wc_l"] = {"wall_s": round(wc["wall_s"], 3), "cpu_s": round(wc["cpu_s"], 3)}
    trace_cmd = shutil.which("trace-cmd")
    if trace_cmd is None:
        result["trace_cmd_report"] = "not installed"
        return result
    report = _to_null([trace_cmd, "report", "-i", str(path)], dict(os.environ))
    with tempfile.TemporaryFile() as text:  # once more, to count the text it renders
        _launch([trace_cmd, "report", "-i", str(path)], dict(os.environ), text)
        text_bytes = text.seek(0, os.SEEK_END)
    result["trace_cmd_report"] = {"wall_s": round(report["wall_s"], 3), "cpu_s": round(report["cpu_s"], 3),
                                  "exit": report["exit"],
                                  "mb_per_s": round(size / report["wall_s"] / 1e6, 1),
                                  "text_bytes": text_bytes,
                                  "text_mb_per_s": round(text_bytes / report["wall_s"] / 1e6, 1)}
    # > 1: kscope ingest is that many times faster than trace-cmd report (wall; CPU beside it).
    result["trace_cmd_over_ingest"] = round(report["wall_s"] / run["wall_s"], 2)
    result["trace_cmd_over_ingest_cpu"] = round(report["cpu_s"] / max(run["cpu_s"], 1e-9), 2)
    return result


def _dat_events(path: Path) -> dict[str, int]:
    """Events and lost events in a trace.dat, by the C decoder alone (nothing stored)."""
    from kscope.native.decoders import TracedatDecoder
    from kscope.native.log import EventLog

    with TracedatDecoder() as decoder, EventLog() as log, open(path, "rb") as f:
        while True:
            offset, want = decoder.want()
            if want == 0:
                break
            f.seek(offset)
            _, going = decoder.feed(offset, f.read(max(want, 1 << 16)), log)
            log.clear()
            if not going:
                break
        decoder.finish(log)
        s = decoder.stats()
    return {"events": s["events"], "lost_events": s["lost_events"]}


def _tracing_in_use() -> bool:
    from kscope import capture

    try:
        return bool((capture.TRACEFS / "set_event").read_text().strip())
    except OSError:
        return False  # not mounted (yet): the capture mounts it, or refuses


def capture_tracedat(events: int, out: Path, attempts: int = 3) -> dict[str, Any]:
    """A real capture of at least `events` scheduler events as a trace.dat (kscope capture
    --trace-cmd: tracefs state saved and restored), or {"skipped": why}. How many events a
    workload loop gives varies with the machine's load, so a short capture is retried
    with more loops."""
    from kscope import capture

    if os.geteuid() != 0 or shutil.which("trace-cmd") is None:
        return {"skipped": "capturing needs root and trace-cmd"}
    if _tracing_in_use():
        # Tracing state is machine-wide: a capture now would save another capture's
        # state mid-way and "restore" it afterwards.
        return {"skipped": "tracefs is in use (events enabled): another capture is running"}
    loops = max(1000, math.ceil(events / EVENTS_PER_PIPE_LOOP))
    tries: list[dict[str, Any]] = []
    for _ in range(attempts):
        if shutil.which("perf"):
            workload = f"exec perf bench sched pipe -l {loops} > /dev/null 2>&1"
        else:
            workload = f"exec {sys.executable} -c '{_PINGPONG}' {loops}"
        # Room for the whole capture: ~64 bytes per event in the ring buffer, over the CPUs.
        buffer_kb = capture.BUFFER_KB
        capture.BUFFER_KB = max(buffer_kb, math.ceil(events * 64 * 3 / (os.cpu_count() or 1) / 1024))
        try:
            doc = capture.capture_trace_cmd(capture.CaptureRequest(
                seconds=120, events=list(capture.DEFAULT_EVENTS), output=out, command=["sh", "-c", workload]))
        except capture.CaptureRefused as err:
            return {"skipped": f"capture refused: {err}", "tries": tries}
        finally:
            capture.BUFFER_KB = buffer_kb
        got = _dat_events(out)
        tries.append({"workload": workload, "seconds": doc["seconds"], "bytes": doc["bytes"], **got})
        if got["events"] >= events:
            break
        loops = math.ceil(loops * 1.2 * events / max(got["events"], 1))
    return {**tries[-1], "tries": len(tries), "earlier": tries[:-1]}


def bench_tracedat(work: Path, dat_events: int, parent_rss: int) -> dict[str, Any]:
    """Ingest vs `trace-cmd report > /dev/null` vs `wc -l` on a fresh >= dat_events capture,
    the corpus' LISA trace.dat and traces/threads4-linux6.18.dat (decompressed here)."""
    import lzma

    from kscope.ingest import formats

    if "trace.dat" not in formats.names():
        return {"skipped": "the loaded C core has no trace.dat decoder"}
    files: list[tuple[Path, str]] = []
    made: dict[str, Any] = {"skipped": "--dat-events 0"}
    if dat_events > 0:
        big = work / f"capture-{dat_events}.dat"
        made = capture_tracedat(dat_events, big)
        if "skipped" not in made:
            files.append((big, "real capture on this machine (trace-cmd extract)"))
    if CORPUS_DAT.is_file():
        files.append((CORPUS_DAT, "corpus"))
    packed = REPO_ROOT / "traces" / "threads4-linux6.18.dat.xz"
    if packed.is_file():
        plain = work / "threads4-linux6.18.dat"
        plain.write_bytes(lzma.decompress(packed.read_bytes()))
        files.append((plain, "traces/ (decompressed)"))
    return {"capture": made, "files": [_bench_one_dat(f, work, origin, parent_rss) for f, origin in files]}


def startup(work: Path) -> dict[str, Any]:
    """`kscope ingest` of a small trace (~0.8 MB): nearly all fixed cost. Its peak RSS is
    the Python process's (the native program's, for so small an input, is a few MB)."""
    if not STARTUP_TRACE.is_file():
        return {"skipped": f"{STARTUP_TRACE.name} missing"}
    runs = []
    for i in range(3):
        run, _doc = _ingest(STARTUP_TRACE, work / f"data-startup-{i}")
        runs.append(run)
        shutil.rmtree(work / f"data-startup-{i}", ignore_errors=True)
    best = min(runs, key=lambda r: r["wall_s"])
    return {"file": STARTUP_TRACE.name, "input_bytes": STARTUP_TRACE.stat().st_size,
            "wall_s": round(best["wall_s"], 3), "cpu_s": round(min(r["cpu_s"] for r in runs), 3),
            "peak_rss_bytes": best["rss"], "runs": 3}


def _arithmetic(runs: dict[str, Any], start: dict[str, Any]) -> dict[str, Any]:
    """The fixed cost and the per-MB cost apart, in CPU time (wall times on a shared
    machine move with the load; CPU time much less):

        cpu(N MB) = startup_cpu + N / rate      rate = MB per CPU-second past start-up

    and what the whole process could do with the other processes gone, if everything past
    start-up kept all the machine's CPUs busy (decoders, conversion and the Parquet writer
    run side by side): wall ~= startup_cpu + N / (rate * cpus)."""
    if "skipped" in start or not runs:
        return {}
    cpus = os.cpu_count() or 1
    out: dict[str, Any] = {"startup_cpu_s": start["cpu_s"], "cpus": cpus}
    for n, r in runs.items():
        mb = r["input_bytes"] / 1e6
        variable = r["ingest_cpu_s"] - start["cpu_s"]
        if variable <= 0:
            continue
        rate = mb / variable
        ideal = start["cpu_s"] + mb / (rate * cpus)
        out[n] = {"mb_per_cpu_s_past_startup": round(rate, 1), "startup_share_of_cpu": round(start["cpu_s"] / r["ingest_cpu_s"], 2),
                  "ideal_wall_s": round(ideal, 3), "ideal_mb_per_s": round(mb / ideal, 1),
                  # The start-up the 300 MB/s target leaves room for at this per-MB rate.
                  "startup_budget_s_for_target": round(mb / TARGETS["ingest_mb_per_s"] - mb / (rate * cpus), 3)}
    return out


def run(events: int = 1_000_000, big: int = 10_000_000, keep: Path | None = None,
        dat_events: int = 1_000_000) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="kscope-bench-ingest-", dir=keep))
    try:
        start = startup(work)
        parent_rss = start.get("peak_rss_bytes", 0)
        runs = {}
        for n in (events, big):
            if n <= 0:
                continue
            path, made = generate(n, work)
            runs[str(n)] = {"generated_events": made, **bench_text(path, made, work, parent_rss)}
            path.unlink()
        document: dict[str, Any] = {
            "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(),
                        "load_avg_1m": round(os.getloadavg()[0], 2)},
            "kscope": " ".join(_kscope()),
            "ftrace_text": runs, "startup": start, "arithmetic": _arithmetic(runs, start),
            "trace_dat": bench_tracedat(work, dat_events, parent_rss), "targets": TARGETS,
        }
        document["met"] = _met(runs, events, big, document["trace_dat"])
        document["against_peers"] = _against_peers(runs, document["trace_dat"])
        return document
    finally:
        shutil.rmtree(work, ignore_errors=True)


# The issue's figures for its machine: trace-cmd renders text at ~63 MB/s, `wc -l` reads
# it at ~8 GB/s, and the ingest target is 300 MB/s. As ratios to those two peers, the
# target holds on a machine of any speed; both peers run in the same bench run.
ISSUE_PEERS_MB_PER_S = {"trace_cmd_text": 63.0, "wc_l": 8000.0}


def _against_peers(runs: dict[str, Any], dat: dict[str, Any]) -> dict[str, Any]:
    """The text ingest rate as multiples of its peers' rates in this run, beside what the
    target is in the same terms on the issue's machine (300 MB/s over the peer's rate)."""
    renders = [f["trace_cmd_report"]["text_mb_per_s"] for f in dat.get("files", [])
               if f.get("events", 0) >= 1_000_000 and isinstance(f.get("trace_cmd_report"), dict)]
    out: dict[str, Any] = {
        "target_over_trace_cmd_text": round(TARGETS["ingest_mb_per_s"] / ISSUE_PEERS_MB_PER_S["trace_cmd_text"], 2),
        "target_over_wc_l": round(TARGETS["ingest_mb_per_s"] / ISSUE_PEERS_MB_PER_S["wc_l"], 4),
        "trace_cmd_text_mb_per_s": renders[0] if renders else None,
    }
    for n, r in runs.items():
        over_tc = round(r["mb_per_s"] / renders[0], 2) if renders else None
        over_wc = round(r["mb_per_s"] / r["wc_l_mb_per_s"], 4)
        out[n] = {"over_trace_cmd_text": over_tc, "over_wc_l": over_wc,
                  "met_vs_trace_cmd_text": None if over_tc is None else over_tc >= out["target_over_trace_cmd_text"],
                  "met_vs_wc_l": over_wc >= out["target_over_wc_l"]}
    return out


def _met(runs: dict[str, Any], small: int, big: int, dat: dict[str, Any]) -> dict[str, bool | None]:
    all_runs = list(runs.values())
    s, b = runs.get(str(small)), runs.get(str(big))
    big_dats = [f for f in dat.get("files", []) if f.get("events", 0) >= 1_000_000 and "trace_cmd_over_ingest" in f]
    return {
        "ingest_mb_per_s": all(r["mb_per_s"] >= TARGETS["ingest_mb_per_s"] for r in all_runs),
        "peak_rss_over_input": all(r["peak_rss_over_input"] <= TARGETS["peak_rss_over_input"] for r in all_runs),
        "bytes_per_event": all(r["bytes_per_event"] <= TARGETS["bytes_per_event"] for r in all_runs),
        "summary_p95_ms_10m": None if b is None else b["summary"]["p95_ms"] <= TARGETS["summary_p95_ms_10m"],
        "summary_10m_over_1m": None if (s is None or b is None) else
        b["summary"]["p95_ms"] <= TARGETS["summary_10m_over_1m"] * max(s["summary"]["p95_ms"], 1.0),
        "tracedat_over_trace_cmd": None if not big_dats else
        all(f["trace_cmd_over_ingest"] >= TARGETS["tracedat_over_trace_cmd"] for f in big_dats),
    }
