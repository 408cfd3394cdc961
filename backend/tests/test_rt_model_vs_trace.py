"""kscope's RT model (wasm-core/src/sched: SCHED_FIFO class, push/pull) against a real 6.12 trace.

The shipped rt16 traces (traces/README.md) are 16 SCHED_FIFO 99 threads waking every 1 ms in a
16-vCPU, 4-node guest. The same workload is simulated on the topology those captures recorded
(their `# kscope-sysfs:` header), and both are read by the same ingest and the same SQL, so the
check compares like with like. What must agree is the placement the RT class produces when
there are as many CPUs as threads: each RT wakeup goes to the CPU the thread last ran on, the
thread runs there next (it never queues behind another RT task), and RT migrations are rare
(the real kernel's come from spreading the threads once, after they are created).

Times are not compared: the guest ran under TCG (emulated, ~10-100x slower than the model's
nominal CPU), and the model leaves cpupri itself out (its find_lowest_rq reads its own
per-CPU state; see core.c). TCG also adds noise the model does not have: when the host
deschedules a vCPU's thread, an RT thread queued there is pushed to another CPU. The pernode
capture ran under heavier host load (its workload saw a 1.7 s worst wake-up delay, the global
one 0.3 s), and 2% of its RT wakeups ran elsewhere than aimed, against 0.8% in the global
one; the bounds below leave room for that (3 points), not for a broken placement, which
misses by tens of points (a random CPU of 16 is the same one 1 time in 16).
"""

import json
import lzma
from pathlib import Path
from typing import Any

import pytest

from kscope import simulate
from kscope.core.config import Settings
from kscope.ingest.pipeline import ingest
from kscope.store.store import TraceStore

TRACES = Path(__file__).resolve().parents[2] / "traces"
REAL = {mode: TRACES / f"rt16-linux6.12-cpupri-{mode}-vm16.txt.xz" for mode in ("global", "pernode")}
RT_PRIO = 0  # kernel prio of SCHED_FIFO 99 (99 - rt_priority), as sched_wakeup prints it
# The model's workload: the capture's (rt_periodic 16 1000 1 99). runtime_us is the model's
# per-wakeup work; rt_periodic only reads the clock, so any small value keeps each CPU mostly idle.
WORKLOAD = {"name": "rt16-cyclic", "duration_ms": 1000,
            "processes": [{"kind": "periodic_rt", "comm": "rt", "threads": 16, "prio": 99,
                           "period_us": 1000, "runtime_us": 20}]}

# Per RT thread, in time order: wakeups, where they were aimed, and where the thread ran next.
PLACEMENT_SQL = f"""
WITH rt AS (
  SELECT ts_ns, type, cpu, task_pid AS pid, target_cpu, NULL AS next_cpu FROM events
   WHERE type = 'sched_wakeup' AND prio = {RT_PRIO}
  UNION ALL
  SELECT ts_ns, type, cpu, next_pid AS pid, NULL, cpu FROM events
   WHERE type = 'sched_switch' AND next_prio = {RT_PRIO}
), ordered AS (
  SELECT *, lead(type) OVER w AS then_type, lead(next_cpu) OVER w AS then_cpu,
            lag(next_cpu IGNORE NULLS) OVER w AS last_cpu
    FROM rt WINDOW w AS (PARTITION BY pid ORDER BY ts_ns, type)
)
SELECT count(*) FILTER (WHERE type = 'sched_wakeup') AS wakeups,
       count(*) FILTER (WHERE type = 'sched_wakeup' AND last_cpu IS NOT NULL) AS rewakes,
       count(*) FILTER (WHERE type = 'sched_wakeup' AND target_cpu = last_cpu) AS same_cpu,
       count(*) FILTER (WHERE type = 'sched_wakeup' AND then_type = 'sched_switch'
                        AND then_cpu = target_cpu) AS ran_on_target,
       count(DISTINCT pid) AS threads
  FROM ordered
"""
MIGRATIONS_SQL = f"SELECT count(*) FROM events WHERE type = 'sched_migrate_task' AND prio = {RT_PRIO}"


def placement(store: TraceStore, trace: Path) -> dict[str, Any]:
    rec = ingest(store, trace).record
    res = store.sql(rec.id, PLACEMENT_SQL)
    row = dict(zip(res["columns"], res["rows"][0], strict=True))
    row["migrations"] = store.sql(rec.id, MIGRATIONS_SQL)["rows"][0][0]
    return row


@pytest.fixture(scope="module")
def figures(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("rt-model")
    topo = tmp / "rt16.topology"
    with lzma.open(REAL["global"], "rt") as f:
        topo.write_text("".join(line.removeprefix("# kscope-sysfs: ") for line in f
                                if line.startswith("# kscope-sysfs: ")))
    workload = tmp / "rt16.json"
    workload.write_text(json.dumps(WORKLOAD))
    modelled = tmp / "rt16-model.txt"
    simulate.run(simulate.SimRequest(topology=str(topo), workload=workload, seed=0, until_ns=1_000_000_000,
                                     hash_events=False), export_to=modelled)
    store = TraceStore(Settings(data_dir=tmp / "data"))
    try:
        out = {"model": placement(store, modelled)}
        out.update({mode: placement(store, path) for mode, path in REAL.items()})
    finally:
        store.close()
    return out


@pytest.mark.parametrize("source", ["model", "global", "pernode"])
def test_rt_threads_are_woken_where_they_last_ran_and_run_there(figures: dict[str, dict[str, Any]],
                                                                source: str) -> None:
    f = figures[source]
    print(f"{source}: {f}")
    assert f["threads"] == 16
    assert f["wakeups"] > 10_000  # ~1,000 per thread in 1 s (fewer under TCG: it falls behind)
    assert f["same_cpu"] >= 0.99 * f["rewakes"]
    assert f["ran_on_target"] >= 0.97 * f["wakeups"]
    assert f["migrations"] <= 0.01 * f["wakeups"]


def test_model_and_kernel_agree_on_placement(figures: dict[str, dict[str, Any]]) -> None:
    """The model's shares (same-CPU wakeups, runs on the target, migrations) within 3 points of each real run's."""
    def shares(f: dict[str, Any]) -> tuple[float, float, float]:
        return (f["same_cpu"] / f["rewakes"], f["ran_on_target"] / f["wakeups"], f["migrations"] / f["wakeups"])

    model = shares(figures["model"])
    for mode in REAL:
        real = shares(figures[mode])
        print(f"modelled vs measured ({mode}): same-cpu {model[0]:.4f} vs {real[0]:.4f}, "
              f"ran-on-target {model[1]:.4f} vs {real[1]:.4f}, migrations/wakeup {model[2]:.4f} vs {real[2]:.4f}")
        assert all(abs(m - r) <= 0.03 for m, r in zip(model, real, strict=True))
