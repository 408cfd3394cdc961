"""Level-of-detail summaries: per-CPU occupancy per time bucket, at a few bucket widths.

A CPU is busy from a sched_switch to a non-idle task (next_pid != 0) until its
next sched_switch, idle otherwise; before its first switch it runs prev_pid.
Occupancy of a bucket = busy time inside it / bucket width. With B(t) the busy
time since the trace's start (piecewise linear: slope 1 busy, 0 idle), a
bucket [a, b) holds B(b) - B(a), so every level is one np.interp per CPU:

    B(t)  ___/‾‾‾‾\\___/‾‾...       switch times are B's knots
    edges |   |   |   |   |        one interp at the edges, then differences

Levels are written at ingest (lod.npz: edges and busy fractions per level);
a query re-buckets the finest level that is fine enough the same way
(cumulative sum, interpolate at the wanted edges), so its cost depends on the
level size, never on the number of events.
"""

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

LOD_FILE = "lod.npz"
LEVELS = (256, 4096, 65536)  # buckets across the whole trace
MAX_CELLS = 1 << 23  # CPUs x buckets of one level at most (float32: 32 MiB)


@dataclass
class SwitchLog:
    """sched_switch times, CPUs and busy-after flags collected during ingest (11 bytes each)."""

    ts: list[np.ndarray] = field(default_factory=list)
    cpu: list[np.ndarray] = field(default_factory=list)
    busy_after: list[np.ndarray] = field(default_factory=list)
    busy_before: list[np.ndarray] = field(default_factory=list)

    def add(self, ts: np.ndarray, cpu: np.ndarray, prev_pid: np.ndarray, next_pid: np.ndarray) -> None:
        self.ts.append(ts.astype(np.int64))
        self.cpu.append(cpu.astype(np.int16))
        self.busy_after.append(next_pid != 0)
        self.busy_before.append(prev_pid != 0)


def build(switches: SwitchLog, t_first: int, t_last: int, cpus: list[int], out: Path,
          events: int) -> None:
    """Writes lod.npz: for each level, edges (int64 ns) and occupancy [cpu slot, bucket] float32."""
    span = max(t_last - t_first, 1)
    ts = np.concatenate(switches.ts) if switches.ts else np.empty(0, np.int64)
    cpu = np.concatenate(switches.cpu) if switches.cpu else np.empty(0, np.int16)
    after = np.concatenate(switches.busy_after) if switches.busy_after else np.empty(0, bool)
    before = np.concatenate(switches.busy_before) if switches.busy_before else np.empty(0, bool)
    order = np.lexsort((ts, cpu))
    ts, cpu, after, before = ts[order], cpu[order], after[order], before[order]
    knots: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for c in cpus:
        lo, hi = np.searchsorted(cpu, c, "left"), np.searchsorted(cpu, c, "right")
        t_c = np.clip(ts[lo:hi], t_first, t_last)
        if len(t_c) == 0:
            knots[c] = (np.array([t_first, t_last], np.int64), np.zeros(2))
            continue
        # States between knots: before the first switch, then after each switch.
        states = np.concatenate(([before[lo]], after[lo:hi])).astype(np.float64)
        x = np.concatenate(([t_first], t_c, [t_last]))
        cum = np.concatenate(([0.0], np.cumsum(states * np.diff(x))))
        knots[c] = (x, cum)
    arrays: dict[str, np.ndarray] = {"cpus": np.array(cpus, np.int32)}
    n_cpus = max(len(cpus), 1)
    for level, buckets in enumerate(LEVELS):
        # No finer than ~4 events per bucket: a small trace gets small summaries.
        buckets = max(1, min(buckets, MAX_CELLS // n_cpus, max(LEVELS[0], events // 4)))
        edges = t_first + (np.arange(buckets + 1, dtype=np.float64) * span / buckets)
        width = np.diff(edges)
        occ = np.zeros((len(cpus), buckets), np.float32)
        for slot, c in enumerate(cpus):
            x, cum = knots[c]
            occ[slot] = np.diff(np.interp(edges, x, cum)) / width
        arrays[f"edges{level}"] = edges.astype(np.int64)
        arrays[f"occ{level}"] = occ
    np.savez(out, **arrays)  # uncompressed: a query maps it straight in


@dataclass
class _Levels:
    cpus: list[int]
    edges: list[np.ndarray]  # per level, float64 ns
    cum: list[np.ndarray]  # per level, [cpu slot, bucket edge]: busy ns since the first edge


@lru_cache(maxsize=16)
def _load(path: str, mtime_ns: int) -> _Levels:
    """A lod.npz's levels with cumulative busy time precomputed (cached per file version)."""
    with np.load(path) as z:
        cpus = z["cpus"].tolist()
        levels = sorted(int(k[3:]) for k in z.files if k.startswith("occ"))
        edges, cums = [], []
        for level in levels:
            e = z[f"edges{level}"].astype(np.float64)
            occ = z[f"occ{level}"].astype(np.float64)
            cum = np.zeros((occ.shape[0], occ.shape[1] + 1))
            np.cumsum(occ * np.diff(e), axis=1, out=cum[:, 1:])
            edges.append(e)
            cums.append(cum)
    return _Levels(cpus, edges, cums)


def query(path: Path, t0: int, t1: int, buckets: int) -> tuple[list[int], np.ndarray, np.ndarray]:
    """(cpus, edges [buckets+1] ns, occupancy [cpu, bucket]) over [t0, t1) from lod.npz."""
    levels = _load(str(path), path.stat().st_mtime_ns)
    want = (t1 - t0) / buckets
    chosen = len(levels.edges) - 1
    for i, e in enumerate(levels.edges):  # coarsest first: stop at the first fine enough
        if len(e) > 1 and (e[1] - e[0]) <= want / 2:
            chosen = i
            break
    edges_l, cum = levels.edges[chosen], levels.cum[chosen]
    out_edges = np.linspace(t0, t1, buckets + 1)
    width = np.diff(out_edges)
    occ = np.empty((cum.shape[0], buckets), np.float64)
    for slot in range(cum.shape[0]):
        occ[slot] = np.diff(np.interp(out_edges, edges_l, cum[slot])) / width
    return levels.cpus, out_edges.astype(np.int64), np.clip(occ, 0.0, 1.0)
