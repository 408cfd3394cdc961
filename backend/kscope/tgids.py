"""Which process (tgid) each task belongs to, for traces without a TGID column.

A model's state can be per process (per mm: concurrency ids, say), so the
conformance replay must know each task's tgid. ftrace text with `options/record-tgid` has a TGID column; a
trace.dat, perf script or tracefs text without it does not. Then, in order:

  1. the capture header: `# kscope: tasks=tid:tgid,...` (kscope capture reads
     the workload's threads from /proc while it runs: measured, not guessed);
  2. sched_process_fork, in time order: the stock event has no clone flags,
     so a thread and a new process look alike. A child with its parent's name
     is taken as a thread of the parent's process (threads keep the name
     unless they set one), a child that ever runs under another name (exec,
     or prctl) as a new process leading itself. Inferred, and counted;
  3. any other task: assumed to lead its own process (tgid = pid). Wrong for
     a thread created before the trace began. Counted.

Records that already have a tgid keep it. The counts go into the report.
"""

from typing import Any

import numpy as np

from kscope.ingest import records


def _name(raw: bytes) -> bytes:
    return bytes(raw).split(b"\0", 1)[0]


def header_tasks(meta: dict[str, str]) -> dict[int, int]:
    """tid -> tgid from a `tasks=` header value ("12:12,13:12"); bad pairs are skipped."""
    out: dict[int, int] = {}
    for pair in (meta.get("tasks") or "").split(","):
        tid, _, tgid = pair.partition(":")
        if tid.strip().isdigit() and tgid.strip().isdigit():
            out[int(tid)] = int(tgid)
    return out


def fill(items: np.ndarray, meta: dict[str, str]) -> tuple[np.ndarray, dict[str, Any]]:
    """Records with every task's tgid set (a copy if any changed), and how each was known."""
    rec = items.view(records.RECORD)
    pids = rec["pid"]
    missing = (rec["tgid"] < 0) & (pids > 0)
    info: dict[str, Any] = {"from_trace": 0, "from_header": 0, "from_fork": 0, "assumed_leader": 0}
    known: dict[int, int] = {}
    has = ~missing & (pids > 0)
    for pid, tgid in zip(pids[has].tolist(), rec["tgid"][has].tolist()):
        known.setdefault(pid, tgid)
    info["from_trace"] = len(known)
    if not missing.any():
        return items, info
    source: dict[int, str] = {}
    for tid, tgid in header_tasks(meta).items():
        if tid not in known:
            known[tid] = tgid
            source[tid] = "from_header"
    # names each pid ran under (as the current task, or switched in)
    names: dict[int, set[bytes]] = {}
    for pid, comm in zip(pids.tolist(), rec["comm"].tolist()):
        if pid > 0:
            names.setdefault(pid, set()).add(_name(comm))
    sw = rec[rec["type"] == records.SWITCH]
    for pid, comm in zip(sw["next_pid"].tolist(), sw["next_comm"].tolist()):
        if pid > 0:
            names.setdefault(pid, set()).add(_name(comm))
    forks = rec[rec["type"] == records.FORK]
    for parent, pcomm, child, ccomm in zip(forks["p_pid"].tolist(), forks["p_comm"].tolist(),
                                           forks["child_pid"].tolist(), forks["child_comm"].tolist()):
        if child <= 0 or child in known:
            continue
        if parent not in known:
            known[parent] = parent
            source[parent] = "assumed_leader"
        thread = _name(ccomm) == _name(pcomm) and names.get(child, set()) <= {_name(pcomm)}
        known[child] = known[parent] if thread else child
        source[child] = "from_fork"
    out = items.copy()
    orec = out.view(records.RECORD)
    rows = np.flatnonzero(missing)
    for pid in np.unique(pids[rows]).tolist():
        if pid not in known:
            known[pid] = pid
            source[pid] = "assumed_leader"
    orec["tgid"][rows] = np.array([known[p] for p in pids[rows].tolist()], np.int32)
    for how in source.values():
        info[how] += 1
    return out, info
