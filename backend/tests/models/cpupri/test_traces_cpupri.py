"""The cpupri traces captured on kscope's patched 6.12 (kernel-patches/cpupri-per-node/6.12).

traces/rt16-linux6.12-cpupri-{global,pernode}-vm16.txt.xz are the rt workload (16 SCHED_FIFO 99
threads, 1 ms period) in a 16-vCPU, 4-node guest booted with kscope_cpupri=global and =pernode.
Their kscope_cpupri_set / kscope_cpupri_find lines must decode to generic records whose fields
read by name in the patch's print format, and what the fields say must agree with the capture's
own topology, with itself (each CPU's level changes form one chain) and with the boot parameter
(pernode searches load one mask per node, global ones the single machine-wide mask).
"""

import lzma
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from kscope.core.config import Settings
from kscope.ingest.pipeline import ingest
from kscope.store.store import TraceStore

TRACES = Path(__file__).resolve().parents[4] / "traces"
MODES = ("global", "pernode")
# The TP_printk formats of include/trace/events/kscope_cpupri.h, field by field.
SET_FIELDS = re.compile(r"cpu=(?P<cpu>-?\d+) old_pri=(?P<old_pri>-?\d+) new_pri=(?P<new_pri>-?\d+) "
                        r"node=(?P<node>-?\d+)")
FIND_FIELDS = re.compile(r"pri=(?P<pri>-?\d+) nodes_scanned=(?P<nodes_scanned>-?\d+) found=(?P<found>-?\d+)")
NODE_CPULIST = re.compile(r"^# kscope-sysfs: \.\./node/node(\d+)/cpulist\t(.*)$")


def trace_path(mode: str) -> Path:
    return TRACES / f"rt16-linux6.12-cpupri-{mode}-vm16.txt.xz"


def cpulist(text: str) -> list[int]:
    """'0-3,8' -> [0, 1, 2, 3, 8] (the kernel's cpulist format)."""
    out: list[int] = []
    for part in text.strip().split(","):
        lo, _, hi = part.partition("-")
        out += range(int(lo), int(hi or lo) + 1)
    return out


def node_of_cpu(path: Path) -> dict[int, int]:
    """CPU -> NUMA node, from the capture's `# kscope-sysfs:` header (the guest's sysfs)."""
    nodes: dict[int, int] = {}
    with lzma.open(path, "rt") as f:
        for line in f:
            if not line.startswith("#"):
                break
            m = NODE_CPULIST.match(line.rstrip("\n"))
            if m:
                nodes.update({cpu: int(m.group(1)) for cpu in cpulist(m.group(2))})
    return nodes


def named(pattern: re.Pattern[str], text: str) -> dict[str, int]:
    m = pattern.fullmatch(text)
    assert m, f"not in the tracepoint's print format: {text!r}"
    return {k: int(v) for k, v in m.groupdict().items()}


@pytest.fixture(scope="module")
def traces(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    store = TraceStore(Settings(data_dir=tmp_path_factory.mktemp("cpupri-data")))
    try:
        for mode in MODES:
            rec = ingest(store, trace_path(mode)).record
            result = store.sql(rec.id, """SELECT ts_ns, cpu, name, fields FROM events
                                          WHERE type = 'generic' AND name LIKE 'kscope_cpupri_%'
                                          ORDER BY ts_ns""", max_rows=1_000_000)
            assert not result["truncated"]
            rows = result["rows"]
            out[mode] = {
                "summary": rec.summary,
                "sets": [named(SET_FIELDS, r[3]) | {"ts_ns": r[0]} for r in rows if r[2] == "kscope_cpupri_set"],
                "finds": [named(FIND_FIELDS, r[3]) for r in rows if r[2] == "kscope_cpupri_find"],
                "nodes": node_of_cpu(trace_path(mode)),
            }
    finally:
        store.close()
    return out


@pytest.mark.parametrize("mode", MODES)
def test_capture_says_how_the_guest_was_booted(traces: dict[str, dict[str, Any]], mode: str) -> None:
    capture = traces[mode]["summary"]["capture"]
    assert f"kscope_cpupri={mode}" in capture["cmdline"].split()
    assert capture["patches"] == "cpupri,trace" and capture["smp"] == "16" and capture["numa"] == "4"
    assert "kscope:kscope_cpupri_set" in capture["events"] and "kscope:kscope_cpupri_find" in capture["events"]


@pytest.mark.parametrize("mode", MODES)
def test_every_set_names_the_cpu_s_own_node(traces: dict[str, dict[str, Any]], mode: str) -> None:
    t = traces[mode]
    assert sorted(set(t["nodes"].values())) == [0, 1, 2, 3] and len(t["nodes"]) == 16
    assert len(t["sets"]) > 10000  # 16 threads x 1 kHz x 1 s, each wakeup raises and lowers a CPU
    for s in t["sets"]:
        assert -1 <= s["old_pri"] <= 100 and -1 <= s["new_pri"] <= 100 and s["old_pri"] != s["new_pri"]
        assert s["node"] == t["nodes"][s["cpu"]], s
    assert {s["cpu"] for s in t["sets"]} == set(range(16))


@pytest.mark.parametrize("mode", MODES)
def test_each_cpu_s_levels_form_one_chain(traces: dict[str, dict[str, Any]], mode: str) -> None:
    """old_pri of each set is the new_pri of the CPU's previous set: no change is lost or reordered."""
    last: dict[int, int] = {}
    for s in traces[mode]["sets"]:
        if s["cpu"] in last:
            assert s["old_pri"] == last[s["cpu"]], s
        last[s["cpu"]] = s["new_pri"]
    # the RT threads (FIFO 99: cpupri level 99) come and go on every CPU
    levels = defaultdict(set)
    for s in traces[mode]["sets"]:
        levels[s["cpu"]].add(s["new_pri"])
    assert all({0, 99} <= levels[cpu] for cpu in range(16))


def test_pernode_searches_load_one_mask_per_node(traces: dict[str, dict[str, Any]]) -> None:
    finds = {mode: traces[mode]["finds"] for mode in MODES}
    for mode in MODES:
        assert finds[mode], f"{mode}: no kscope_cpupri_find"
        assert {f["pri"] for f in finds[mode]} == {99}  # only the FIFO 99 threads search
        assert all(f["found"] in (0, 1) and f["nodes_scanned"] >= 1 for f in finds[mode])
    # global: the one machine-wide mask per non-empty level; the first level with a CPU answers
    assert all(f["nodes_scanned"] == 1 for f in finds["global"])
    # pernode: up to one load per node at the level that answers (4 nodes here)
    assert all(1 <= f["nodes_scanned"] <= 4 for f in finds["pernode"])
    mean = {mode: sum(f["nodes_scanned"] for f in finds[mode]) / len(finds[mode]) for mode in MODES}
    assert mean["pernode"] > 3 * mean["global"]
