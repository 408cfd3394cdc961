"""Switch gaps: places where a trace's sched_switch sequence on a CPU is broken.

On one CPU every sched_switch's prev_pid is the task the previous sched_switch
there switched in (next_pid): the kernel records both sides of every context
switch. When a switch names another prev task, switches are missing between
the two: dropped by a filter (`set_event_pid` keeps a switch only when one side
is a filtered task), or lost when the ring buffer was full. The conformance
replay, the runqueue view and "who ran when" all assume the sequence is
complete, so a capture is checked for gaps, and reports name them.
"""

from typing import Any

import numpy as np

from kscope.ingest import records

MAX_EXAMPLES = 5


def switch_gaps(rec: np.ndarray) -> dict[str, Any]:
    """Counts, per CPU, sched_switches whose prev_pid is not the previous switch's next_pid.

    rec: ks_event records (records.RECORD) in time order (ties in the order given).
    Returns {"gaps": N, "switches": N, "by_cpu": {cpu: N}, "examples": [...first few]}.
    """
    is_switch = rec["type"] == records.SWITCH
    sw = rec[is_switch]
    out: dict[str, Any] = {"gaps": 0, "switches": int(len(sw)), "by_cpu": {}, "examples": []}
    if len(sw) < 2:
        return out
    order = np.argsort(sw["cpu"], kind="stable")      # per CPU, keeping time order
    cpu = sw["cpu"][order]
    prev_pid = sw["p_pid"][order]
    next_pid = sw["next_pid"][order]
    ts = sw["ts_ns"][order]
    same_cpu = cpu[1:] == cpu[:-1]
    broken = same_cpu & (prev_pid[1:] != next_pid[:-1])
    where = np.flatnonzero(broken) + 1
    out["gaps"] = int(len(where))
    cpus, counts = np.unique(cpu[where], return_counts=True)
    out["by_cpu"] = {int(c): int(n) for c, n in zip(cpus, counts)}
    out["examples"] = [{"ts_ns": int(ts[i]), "cpu": int(cpu[i]), "expected_prev": int(next_pid[i - 1]),
                        "prev_pid": int(prev_pid[i])} for i in where[:MAX_EXAMPLES]]
    return out
