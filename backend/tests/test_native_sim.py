"""The sim binding (kscope.native.sim and friends) against the real libkscope.so."""

import ctypes
from pathlib import Path

import pytest

from kscope.native import core, events, structs
from kscope.native.machine import Topology
from kscope.native.sim import Simulation

HACKBENCH = (Path(__file__).resolve().parents[2] / "wasm-core/workloads/hackbench-2g.json").read_text()
SEED000 = (Path(__file__).resolve().parents[2] / "wasm-core/workloads/seed000-8core-200ms.json").read_text()


@pytest.fixture
def classroom() -> Topology:
    with Topology.from_preset("classroom-8") as topo:
        yield topo


@pytest.mark.parametrize("struct,size", structs.SIZES.items(), ids=lambda x: getattr(x, "__name__", str(x)))
def test_struct_sizes_match_the_c_static_asserts(struct: type, size: int) -> None:
    assert ctypes.sizeof(struct) == size


def test_event_payload_offsets_match_event_h() -> None:
    assert structs.KsEvent.raw.offset == 40
    assert structs.KsEvent.comm.offset == 24
    assert ctypes.sizeof(structs.KsSimConfig) == 32  # u64 + pointer + 16-byte params, natively


def test_event_type_names_match_the_core() -> None:
    assert [core.event_type_name(i) for i in range(len(events.EVENT_TYPES))] == list(events.EVENT_TYPES)


def test_fnv1a64_known_values_and_chaining() -> None:
    assert events.fnv1a64(b"") == 0xCBF29CE484222325
    assert events.fnv1a64(b"a") == 0xAF63DC4C8601EC8C  # the published FNV-1a 64 test vector
    assert events.fnv1a64(b"bar", events.fnv1a64(b"foo")) == events.fnv1a64(b"foobar")


def test_step_decodes_one_event(classroom: Topology) -> None:
    with Simulation(classroom, HACKBENCH, seed=1) as sim:
        first = sim.step()
    assert first is not None
    assert first["type"] == "sched_waking" and first["ts_ns"] == 0
    assert first["fields"]["comm"] == "hackbench" and first["fields"]["pid"] >= 1000


def test_run_until_limits(classroom: Topology) -> None:
    with Simulation(classroom, HACKBENCH, seed=1) as sim:
        assert len(sim.run_until(max_events=100)) == 100
        timed = sim.run_until(until_ns=1_000_000)
        assert timed[-1]["ts_ns"] >= 1_000_000 > timed[-2]["ts_ns"]
        exits = sim.run_until(type_mask=1 << events.TYPE_IDS["sched_process_exit"])
        assert exits[-1]["type"] == "sched_process_exit"
        assert all(e["type"] != "sched_process_exit" for e in exits[:-1])
        tid = exits[-1]["fields"]["pid"]
        mine = sim.run_until(tid=tid)
        assert mine and tid in (mine[-1]["pid"], mine[-1]["fields"].get("pid"))
        raw = sim.run_until(max_events=10, raw=True)
        assert isinstance(raw, bytes) and len(raw) == 10 * events.EVENT_SIZE


def test_raw_and_dict_forms_agree(classroom: Topology) -> None:
    with Simulation(classroom, HACKBENCH, seed=1) as a, Simulation(classroom, HACKBENCH, seed=1) as b:
        assert events.decode_events(a.run_until(max_events=500, raw=True)) == b.run_until(max_events=500)


def test_iter_raw_chunks_cover_the_run_exactly(classroom: Topology) -> None:
    with Simulation(classroom, HACKBENCH, seed=1) as a, Simulation(classroom, HACKBENCH, seed=1) as b:
        whole = a.run_until(until_ns=2_000_000, raw=True)
        chunked = b"".join(b.iter_raw(until_ns=2_000_000, chunk=777))
        assert chunked == whole
        assert b"".join(b.iter_raw(max_events=1000, chunk=300)) == a.run_until(max_events=1000, raw=True)


def test_seek_back_replays_exactly(classroom: Topology) -> None:
    with Simulation(classroom, HACKBENCH, seed=1) as sim:
        first = sim.run_until(max_events=5000, raw=True)
        sim.seek(1000)
        assert sim.frame()["step"] == 1000
        assert sim.run_until(max_events=4000, raw=True) == first[1000 * 96 :]


def test_snapshot_restore_round_trip(classroom: Topology) -> None:
    with Simulation(classroom, HACKBENCH, seed=1) as sim:
        sim.run_until(max_events=3000)
        state, frame = sim.snapshot(), sim.frame()
        after = sim.run_until(max_events=500, raw=True)
        sim.restore(state)
        assert sim.frame() == frame
        assert sim.run_until(max_events=500, raw=True) == after


def test_restore_refuses_another_runs_snapshot(classroom: Topology) -> None:
    with Simulation(classroom, HACKBENCH, seed=1) as a, Simulation(classroom, HACKBENCH, seed=2) as b:
        with pytest.raises(core.KscopeCoreError):
            b.restore(a.snapshot())


def test_frame_stats_and_bursts(classroom: Topology) -> None:
    with Simulation(classroom, SEED000, seed=1) as sim:
        sim.run_until(until_ns=500_000_000)
        frame, stats, bursts = sim.frame(), sim.stats(), sim.burst_costs()
    assert len(frame["cpus"]) == 8 and len(frame["tasks"]) == 8
    assert frame["now_ns"] == stats["now_ns"] >= 500_000_000
    assert stats["events"] == sum(stats["events_by_type"].values()) == frame["step"]
    assert all(c["busy_ns"] <= frame["now_ns"] for c in frame["cpus"])
    assert {t["state"] for t in frame["tasks"]} <= {"running", "runnable", "sleeping", "dead"}
    assert len(bursts) >= 2 and all(b["cost_ns"] > 0 for b in bursts)
    assert stats["access_ns"] >= sum(b["cost_ns"] for b in bursts) > 0


def test_cache_lines_name_the_areas(classroom: Topology) -> None:
    with Simulation(classroom, SEED000, seed=1) as sim:
        sim.run_until(until_ns=300_000_000)
        objects = sim.cache_lines()
    assert objects and all(o["name"] and o["lines"] for o in objects)
    assert sum(line["loads"] for o in objects for line in o["lines"]) > 0


def test_workload_error_names_file_line_column_and_field(classroom: Topology) -> None:
    bad = '{\n  "name": "x",\n  "duration_ms": 100,\n  "processes": [\n    {"kind": "intermittent", "comm": "a", "threads": 0}\n  ]\n}\n'
    with pytest.raises(core.WorkloadError) as caught:
        Simulation(classroom, bad, source="bad.json")
    err = caught.value
    assert (err.source, err.line, err.field) == ("bad.json", 5, "processes[0].threads")
    assert err.column > 0
    assert str(err).startswith('workload bad.json, line 5, column ')
    assert "must be between 1 and 1024" in str(err)


def test_unknown_algorithm_is_a_workload_error(classroom: Topology) -> None:
    with pytest.raises(core.WorkloadError, match="unknown scheduling algorithm 'nope'"):
        Simulation(classroom, HACKBENCH, algo="nope")


def test_closed_objects_refuse_use(classroom: Topology) -> None:
    sim = Simulation(classroom, HACKBENCH)
    sim.close()
    sim.close()  # idempotent
    with pytest.raises(ValueError, match="closed"):
        sim.step()


def test_frame_runqueues_are_consistent(classroom: Topology) -> None:
    busy = '{"name": "busy", "duration_ms": 50, "processes": [{"kind": "pipe_pairs", "comm": "hb", ' \
           '"groups": 4, "pairs_per_group": 8, "messages": 1000, "work_us": 50}]}'
    with Simulation(classroom, busy, seed=3) as sim:
        sim.run_until(until_ns=5_000_000)
        frame = sim.frame()
    tids = {t["tid"]: t for t in frame["tasks"]}
    queued = [tid for c in frame["cpus"] for tid in c["rq_tids"]]
    assert queued, "a busy 8-CPU machine should have waiting tasks"
    for cpu in frame["cpus"]:
        assert cpu["nr_running"] == len(cpu["rq_tids"]) + (cpu["curr_tid"] >= 0)
        assert all(tids[t]["state"] == "runnable" and tids[t]["cpu"] == cpu["cpu"] for t in cpu["rq_tids"])
        if cpu["curr_tid"] >= 0:
            assert tids[cpu["curr_tid"]]["state"] == "running"


PER_CPU = """{"name": "v2", "duration_ms": 3000, "processes": [{"kind": "intermittent", "comm": "bench",
  "cpus": [0, 1, 2, 3], "placement": "one-per-core", "area_bytes": 16384, "index_by": "cpu",
  "delay_ms": 50, "order": "fixed", "warmup_sweeps": 100, "loops": 5}]}"""


def test_cost_model_v2_binding(classroom: Topology) -> None:
    from kscope.native import cost
    from kscope.native.sim import cache_params

    with pytest.raises(ValueError, match="cost_model"):
        Simulation(classroom, PER_CPU, cost_model="v3")
    quiet = cache_params(0, 0, track_words=False)
    with Simulation(classroom, PER_CPU, seed=1, cache=quiet) as v1:
        v1.advance()
        assert all(sum(p.values()) == 0 for p in v1.burst_parts())    # v1: no parts
    with Simulation(classroom, PER_CPU, seed=1, cache=quiet, cost_model="v2") as v2:
        v2.advance()
        bursts, parts = v2.burst_costs(), v2.burst_parts()
    assert len(bursts) == len(parts) == 4 + 20 and list(parts[0]) == list(cost.part_names())
    for b, p in zip(bursts, parts):
        assert sum(p.values()) == pytest.approx(b["cost_ns"], abs=1.0)
        assert (p["first_touch"] > 0) == b["warmup"]          # each CPU's index: first written in its warm-up
    params = cost.preset_params(classroom)
    params.first_touch_ns_per_page = -1                        # refused by the C core, named by check()
    with pytest.raises(core.KscopeCoreError):
        Simulation(classroom, PER_CPU, cost_model="v2", cost_params=params)
    hot = cost.run_sweep(cost.preset_params(classroom), cost.sweep(lines=256))
    assert hot["parts"]["core"] == pytest.approx(hot["total_ns"]) and hot["pages_faulted"] == 0
