"""Level-of-detail summaries: per-CPU occupancy per time bucket, at a few bucket widths.

A CPU is busy from a sched_switch to a non-idle task (next_pid != 0) until its
next sched_switch, idle otherwise; before its first switch it runs prev_pid.
Occupancy of a bucket = busy time inside it / bucket width. With B(t) the busy
time since the trace's start (piecewise linear: slope 1 busy, 0 idle), a
bucket [a, b) holds B(b) - B(a), so every level is B at the bucket edges, then differences:

    B(t)  ___/‾‾‾‾\\___/‾‾...       switch times are B's knots
    edges |   |   |   |   |        B at each edge, then differences

Levels are written at ingest by kscope-ingest (wasm-core/tools/ingest/lod.c: lod.npz,
edges and busy fractions per level, see lod.h for their sizes); a query re-buckets the
finest level that is fine enough the same way (cumulative sum, interpolate at the
wanted edges), so its cost depends on the level size, never on the number of events.
"""

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np


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
