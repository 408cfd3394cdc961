"""records.py: every ks_event layout to its columns (and nulls elsewhere), through the C decoder."""

from pathlib import Path

import pytest

from kscope.core.config import Settings
from kscope.ingest.pipeline import ingest
from kscope.store.store import TraceStore

# One line per typed tracepoint (Linux 6.18 text), plus a generic one.
LINES = """# tracer: nop
            bash-100   (    100) [002] d..2.   10.000001: sched_process_fork: comm=bash pid=100 child_comm=bash child_pid=101
            bash-100   (    100) [002] d..2.   10.000002: sched_wakeup_new: comm=bash pid=101 prio=120 target_cpu=003
          <idle>-0     (-------) [003] d..2.   10.000003: sched_switch: prev_comm=swapper/3 prev_pid=0 prev_prio=120 prev_state=R+ ==> next_comm=bash next_pid=101 next_prio=120
            bash-101   (    100) [003] .....   10.000004: rseq_update: cpu_id=3 node_id=0 mm_cid=1
            bash-101   (    100) [003] .....   10.000005: rseq_update: cpu_id=3
            bash-101   (    100) [003] d..2.   10.000006: sched_migrate_task: comm=bash pid=101 prio=120 orig_cpu=3 dest_cpu=1
            bash-101   (    100) [003] .....   10.000007: sched_process_exit: comm=bash pid=101 prio=120 group_dead=false
            bash-101   (    100) [003] d..2.   10.000008: sched_switch: prev_comm=bash prev_pid=101 prev_prio=120 prev_state=X ==> next_comm=swapper/3 next_pid=0 next_prio=120
          <idle>-0     (-------) [003] d.h2.   10.000009: irq_handler_entry: irq=24 name=eth0
"""


@pytest.fixture
def rows(tmp_path: Path) -> list[dict]:
    path = tmp_path / "types.txt"
    path.write_text(LINES)
    store = TraceStore(Settings(data_dir=tmp_path / "data"))
    rec = ingest(store, path).record
    assert rec.malformed_lines == 0, rec.summary["first_error"]
    out = store.events(rec.id).to_pylist()
    store.close()
    return out


def test_each_type_fills_its_columns(rows: list[dict]) -> None:
    fork, wnew, sw1, rseq1, rseq2, mig, exit_, sw2, generic = rows
    assert fork["type"] == "sched_process_fork" and fork["task_pid"] == 100 and fork["task_comm"] == "bash"
    assert fork["child_pid"] == 101 and fork["child_comm"] == "bash" and fork["prio"] is None
    assert wnew["type"] == "sched_wakeup_new" and wnew["task_pid"] == 101 and wnew["target_cpu"] == 3
    assert wnew["prio"] == 120 and wnew["child_pid"] is None and wnew["next_pid"] is None
    assert (sw1["prev_pid"], sw1["next_pid"], sw1["prev_comm"], sw1["next_comm"]) == (0, 101, "swapper/3", "bash")
    assert sw1["prev_state"] == 0x100 and sw1["task_pid"] is None and sw1["tgid"] == 0
    assert (rseq1["cpu_id"], rseq1["node_id"], rseq1["mm_cid"]) == (3, 0, 1) and rseq1["tgid"] == 100
    assert rseq2["cpu_id"] == 3 and rseq2["node_id"] is None and rseq2["mm_cid"] is None  # before 6.3
    assert (mig["orig_cpu"], mig["dest_cpu"], mig["task_pid"], mig["target_cpu"]) == (3, 1, 101, None)
    assert exit_["group_dead"] == 0 and exit_["task_pid"] == 101
    assert sw2["prev_state"] != 0 and sw2["next_pid"] == 0
    assert generic["type"] == "generic" and generic["name"] == "irq_handler_entry"
    assert generic["fields"] == "irq=24 name=eth0" and generic["task_pid"] is None
    assert all(r["name"] is None and r["fields"] is None for r in rows[:-1])
    assert [r["ts_ns"] for r in rows] == [10_000_001_000 + 1000 * i for i in range(9)]
