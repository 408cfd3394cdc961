"""`kscope repro mm_cid`: the document's shape, its computed checks, the published copy."""

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import KSCOPE, REPO, WORKLOADS
from kscope import repro
from kscope.cli import main
from kscope.native.machine import Topology
from kscope.native.sim import Simulation, cache_params
from kscope.models.mm_cid import repro as mm_cid

SHARED_PUBLISHED = REPO.parent / "shared" / "seeds" / "published.json"
CONFIGS = ["8-core/1-L3", "24-core/24-L3", "192-core/24-L3", "384-thread/24-L3"]
ROW_KEYS = {"config", "delay_ms", "per_cpu_ns", "mm_cid_ns", "cache_local_ns", "speedup", "published",
            "breakdown", "first_touch_bursts", "model_over_published", "suspects"}
COLUMNS = ("per_cpu", "mm_cid", "cache_local")
PUBLISHED_KEYS = {"per_cpu_ns", "mm_cid_ns", "cache_local_ns", "speedup"}


def repro_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["repro", "mm_cid", "--json", *argv]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    return json.loads(out)


@pytest.fixture(scope="module")
def default_run() -> dict[str, Any]:
    """The repro at its defaults (cost model v2, 5 rounds, 5 runs, background 0): ~5 s natively."""
    return mm_cid.run()


@pytest.fixture(scope="module")
def v1_run() -> dict[str, Any]:
    """The same with the v1 cache model's serial trips (--cost-model v1)."""
    return mm_cid.run(cost_model="v1")


@pytest.mark.skipif(not SHARED_PUBLISHED.is_file(), reason="shared/ is not beside the repository")
def test_published_copy_is_the_seeds_verbatim() -> None:
    assert repro.PUBLISHED.read_bytes() == SHARED_PUBLISHED.read_bytes()


def test_json_shape_with_a_quick_run(capsys: pytest.CaptureFixture[str]) -> None:
    doc = repro_json(capsys, "--rounds", "1", "--runs", "1")
    assert set(doc) == {"rows", "checks", "calibration", "model"}
    rows = doc["rows"]
    assert [(r["config"], r["delay_ms"]) for r in rows] == \
        [(c, 200) for c in CONFIGS] + [(c, 10) for c in CONFIGS]
    table = {r["config"]: r for r in repro.published()["mm_cid_7e019dc"]["delay_200ms"]}
    for row in rows:
        assert set(row) == ROW_KEYS
        assert row["per_cpu_ns"] > 0 and row["mm_cid_ns"] > 0 and row["cache_local_ns"] > 0
        assert row["speedup"] == round(row["mm_cid_ns"] / row["cache_local_ns"], 2)
        if row["delay_ms"] == 10:
            assert row["published"] is None             # withheld by the seed
        else:
            assert set(row["published"]) == PUBLISHED_KEYS
            assert row["published"] == {k: table[row["config"]][k] for k in PUBLISHED_KEYS}
    checks = doc["checks"]
    assert [c["config"] for c in checks["rows"]] == CONFIGS and all(c["delay_ms"] == 200 for c in checks["rows"])
    assert {"ordering_holds", "speedup_within_2x", "ns_within_2x", "definitions"} <= set(checks)
    for entry in doc["calibration"]:
        assert set(entry) == {"constant", "value", "source", "calibrated_on"}
        assert entry["source"] and entry["calibrated_on"] is None
    for row in rows:
        assert set(row["breakdown"]) == set(COLUMNS) == set(row["first_touch_bursts"])
        if row["delay_ms"] == 10:
            assert row["model_over_published"] is None and row["suspects"] == {}
        else:
            ratios = row["model_over_published"]
            assert ratios["mm_cid"] == round(row["mm_cid_ns"] / row["published"]["mm_cid_ns"], 3)
            assert ratios["speedup"] == round(row["speedup"] / row["published"]["speedup"], 3)
    model = doc["model"]
    assert model["cost_model"] == "v2"
    assert model["preset"] == "epyc-9654-2s" and model["rounds"] == 1 and model["runs"] == 1
    assert model["seeds"] == [1]
    assert model["variants"] == {"per_cpu": "none", "mm_cid": "mm_cid:v6.12", "cache_local": "mm_cid:v6.13"}
    assert model["background_bytes_per_us"] == {"per_core": 0, "per_llc": 0}
    assert model["configs"]["24-core/24-L3"] == ",".join(str(c) for c in range(0, 192, 8))


def test_200ms_ordering_and_speedup_with_v1(v1_run: dict[str, Any]) -> None:
    # What v1 (serial trips, --cost-model v1) predicts: per-cpu ~ cache-local << mm_cid on
    # every 200 ms row and each speedup within 2x of the published one, for the wrong reasons
    # (issue 15: 10-20x over-costing per miss offset by too few misses); kept to compare.
    checks = v1_run["checks"]
    assert [c["ordering"] for c in checks["rows"]] == [True] * 4
    assert [c["speedup_within_2x"] for c in checks["rows"]] == [True] * 4
    for row in v1_run["rows"]:
        assert row["per_cpu_ns"] == row["cache_local_ns"]   # both keep their area in L1
        assert all(parts == {} for parts in row["breakdown"].values())    # v1 has no parts
    assert v1_run["model"]["cost_model"] == "v1"


def test_200ms_with_v2_as_it_predicts(default_run: dict[str, Any]) -> None:
    # What v2 predicts (docs/models/mm_cid.md, docs/cost_model_v2.md): the ordering holds on
    # every row, the speedups of the two big rows are within 2x, those of the 8- and 24-core
    # rows are not (5.1x and 7.2x against 14.4x and 16.7x), and every ns figure is 4-11x under
    # the published one: reported with suspects, not tuned away.
    checks = default_run["checks"]
    assert [c["ordering"] for c in checks["rows"]] == [True] * 4
    assert [c["speedup_within_2x"] for c in checks["rows"]] == [False, False, True, True]
    assert checks["ns_within_2x"] is False
    for row in default_run["rows"]:
        assert row["per_cpu_ns"] == row["cache_local_ns"]
        if row["published"] is not None:
            assert all(0.05 < row["model_over_published"][c] < 0.3 for c in COLUMNS)


def test_first_touch_only_on_indexes_never_written(default_run: dict[str, Any]) -> None:
    # librseq's per-CPU pool is copy-on-write until an index is written (cost_fault.c): per-cpu
    # and cache-local (v6.13) keep the index their warm-up wrote, so no measured burst faults;
    # v6.12 hands out cids nobody used yet, and those bursts fault.
    for row in default_run["rows"]:
        for column in ("per_cpu", "cache_local"):
            assert row["first_touch_bursts"][column] == 0
            assert "first_touch" not in row["breakdown"][column]
        if row["delay_ms"] == 200:
            assert row["first_touch_bursts"]["mm_cid"] > 0.1
            assert row["breakdown"]["mm_cid"]["first_touch"] > 1000


def test_breakdown_adds_up_to_each_cell(default_run: dict[str, Any]) -> None:
    for row in default_run["rows"]:
        for column in COLUMNS:
            assert sum(row["breakdown"][column].values()) == pytest.approx(row[f"{column}_ns"], abs=1.0)


def test_suspects_name_the_cells_off_by_more_than_2x(default_run: dict[str, Any]) -> None:
    for row in default_run["rows"]:
        if row["published"] is None:
            continue
        for column in COLUMNS:
            off = not 0.5 <= row["model_over_published"][column] <= 2
            assert (column in row["suspects"]) == off
        assert ("speedup" in row["suspects"]) == (not 0.5 <= row["model_over_published"]["speedup"] <= 2)
    eight = default_run["rows"][0]
    assert "first-touch faults cannot explain this cell" in eight["suspects"]["mm_cid"]
    assert "package C-state" in eight["suspects"]["per_cpu"]


def test_burst_level_first_touch_matches_never_written_indexes() -> None:
    # The parts per burst: a first_touch part exactly when the index was never swept before in
    # the run (warm-ups included), on v6.12; never on v6.13's measured bursts.
    for algo in ("mm_cid:v6.12", "mm_cid:v6.13"):
        spec = mm_cid.workload(tuple(range(8)), 200, "mm_cid", 5)
        with Topology.from_preset("epyc-9654-2s") as topo, \
                Simulation(topo, json.dumps(spec), seed=1, algo=algo, cache=cache_params(0, 0, track_words=False),
                           cost_model="v2") as sim:
            sim.advance()
            bursts, parts = sim.burst_costs(), sim.burst_parts()
        seen: set[int] = set()
        for burst, part in zip(bursts, parts):
            assert (part["first_touch"] > 0) == (burst["index"] not in seen)
            assert sum(part.values()) == pytest.approx(burst["cost_ns"], abs=1.0)
            seen.add(burst["index"])
            if algo == "mm_cid:v6.13" and not burst["warmup"]:
                assert part["first_touch"] == 0


def test_8_cores_at_10ms_return_within_the_100ms_expiry(default_run: dict[str, Any]) -> None:
    # 8 threads x 10 ms: each CPU runs its thread every 80 ms, so no cid is ever 100 ms idle
    # and v6.12 keeps each CPU's cid as v6.13 does (7e019dc's message: "threads are running
    # at least once on each CPU within each 100ms window").
    row = next(r for r in default_run["rows"] if r["config"] == "8-core/1-L3" and r["delay_ms"] == 10)
    assert row["mm_cid_ns"] == row["cache_local_ns"] and row["speedup"] == 1.0


def test_background_reaches_the_cache_model() -> None:
    quiet = mm_cid.run(rounds=2, runs=1, background=0, cost_model="v1")
    busy = mm_cid.run(rounds=2, runs=1, background=1000, cost_model="v1")
    assert busy["model"]["background_bytes_per_us"] == {"per_core": 1000, "per_llc": 8000}
    assert busy["model"]["residency_ns"]["l2"] == 1024 * 1024 * 1000 // 1000
    assert quiet["model"]["residency_ns"] == {"l1": None, "l2": None, "llc": None}
    # 1.6 s between an 8-core thread's bursts: at 1000 B/us its area has left every cache
    assert busy["rows"][0]["per_cpu_ns"] > 10 * quiet["rows"][0]["per_cpu_ns"]


def test_background_reaches_cost_model_v2() -> None:
    # v2 reads the same explicit rates: other work evicts the area by capacity (a part), none does not.
    quiet = mm_cid.run(rounds=2, runs=1, background=0)
    busy = mm_cid.run(rounds=2, runs=1, background=1000)
    assert "capacity" not in quiet["rows"][0]["breakdown"]["per_cpu"]
    assert busy["rows"][0]["breakdown"]["per_cpu"]["capacity"] > 50
    assert busy["rows"][0]["per_cpu_ns"] > 1.5 * quiet["rows"][0]["per_cpu_ns"]


def test_text_report_labels_the_prediction(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["repro", "mm_cid", "--rounds", "1", "--runs", "1"]) == 0
    out, err = capsys.readouterr()
    assert "delay 200 ms: model beside the published figures" in out
    assert "delay 10 ms: the model's PREDICTION (the published table is withheld)" in out
    assert "19,289" in out and "calibration: nothing" in out
    assert "cost model v2" in out and "breakdown, ns per burst by mechanism" in out
    assert "first_touch" in out and "cells off by more than 2x" in out
    assert "8-core/1-L3 10 ms done" in err                 # progress goes to stderr


def test_bad_options_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--rounds", "0"], ["--runs", "x"], ["--background", "-1"], ["--cost-model", "v3"]):
        with pytest.raises(SystemExit) as exc:
            main(["repro", "mm_cid", *argv])
        assert exc.value.code == 2
    capsys.readouterr()


def test_cost_model_v1_from_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    doc = repro_json(capsys, "--rounds", "1", "--runs", "1", "--cost-model", "v1")
    assert doc["model"]["cost_model"] == "v1"
    assert all(parts == {} for row in doc["rows"] for parts in row["breakdown"].values())


def test_subprocess_prints_one_json_document() -> None:
    result = subprocess.run([str(KSCOPE), "repro", "mm_cid", "--json", "--rounds", "1", "--runs", "1"],
                            capture_output=True, text=True, check=True)
    assert result.stderr == ""
    assert len(json.loads(result.stdout)["rows"]) == 8


def test_warmups_are_flagged_and_left_out_of_the_sim_summary(capsys: pytest.CaptureFixture[str]) -> None:
    path = WORKLOADS / "seed000-librseq-8core-200ms.json"
    with Topology.from_preset("epyc-9654-2s") as topo, \
            Simulation(topo, path.read_bytes(), seed=1, algo="mm_cid:v6.13",
                       cache=cache_params(0, 0, track_words=False)) as sim:
        sim.advance()
        bursts = sim.burst_costs()
    warm = [b for b in bursts if b["warmup"]]
    assert len(warm) == 8 and len(bursts) == 8 + 8 * 5
    assert all(b["cost_ns"] > 20000 * 500 for b in warm)    # 20000 sweeps of >= 500 ns
    assert main(["sim", "--preset", "epyc-9654-2s", "--workload", str(path), "--until", "12s",
                 "--algo", "mm_cid:v6.13", "--json", "--no-hash"]) == 0
    assert json.loads(capsys.readouterr().out)["bursts"]["count"] == 40


def test_latency_table_binding() -> None:
    with Topology.from_preset("epyc-9654-2s") as topo:
        table = topo.latency()
    assert table["core_mhz"] == 3550
    assert list(table["cycles"]) == ["l1", "l2", "llc", "same_llc_core", "other_llc", "other_socket",
                                     "dram_local", "dram_remote"]
    assert table["cycles"]["l1"] == 4 and table["cycles"]["dram_local"] == 433
