"""`kscope repro cpupri`: the document's shape, its computed checks, the workload file, the
view structs against struct_layout."""

import ctypes
import json
import subprocess
from typing import Any

import pytest

from conftest import REPO, WORKLOADS
from kscope.cli import main
from kscope.models.cpupri import repro
from kscope.models.cpupri.native import view
from kscope.native.machine import Topology


@pytest.fixture(scope="module")
def short_run() -> dict[str, Any]:
    """One seed, 4 simulated ms, no sensitivity sweep: a few seconds natively."""
    return repro.run(runs=1, duration_ms=4, sweep=False)


def test_the_shipped_workload_is_the_generator_s() -> None:
    shipped = json.loads((WORKLOADS / "seed001-ffmpeg-60x8.json").read_text())
    built = repro.workload()
    assert shipped["processes"] == built["processes"]
    assert shipped["duration_ms"] == built["duration_ms"]
    cpus = sorted(c for p in built["processes"] for c in p["cpus"])
    assert cpus == list(range(480))                          # 60 x 8, every CPU once


def test_the_shipped_stressng_workload_is_the_repro_s() -> None:
    shipped = json.loads((WORKLOADS / repro.STRESSNG_FILE).read_text())
    built = repro.stressng_workload()
    assert shipped["processes"] == built["processes"] and shipped["duration_ms"] == built["duration_ms"]


def test_document_shape_and_figures(short_run: dict[str, Any]) -> None:
    doc = short_run
    assert set(doc["c2c_cycles_per_load"]) == {"global", "pernode", "pernode-kscope"}
    for v, cycles in doc["c2c_cycles_per_load"].items():
        assert isinstance(cycles, int) and cycles >= repro.LDLAT, v
        lo, hi = doc["c2c_cycles_per_load_rows"][v]
        assert lo <= hi
    assert doc["hot_line"]["global"]["objects"] == ["cpupri_vec[0].mask"]
    assert doc["hot_line"]["pernode"]["objects"] == ["cpupri_vec[0].masks[0]", "cpupri_vec[0].masks[1]"]
    assert doc["published"]["results"]["c2c_cycles_per_load_before"] == [2200, 8700]
    share = doc["kernel_share_pct"]
    assert 0 < share["global"] < 100 and 0 < share["pernode"] < 100
    assert share["delta_pp"] == pytest.approx(share["pernode"] - share["global"], abs=1e-3)
    model = doc["c2c_table"]["model_global"]
    assert {r["offset"] for r in model} <= set(range(0, 64, 8))
    assert {r["symbol"] for r in model} >= {"cpupri_set", "_find_first_and_bit"}
    assert abs(sum(r["records_share"] for r in model) - 1) < 1e-2
    assert len(doc["c2c_table"]["seed"]) == 22
    counts = doc["counts"]["global"]
    assert counts["sets"] > 1000 and counts["finds"] > 100
    assert doc["counts"]["pernode"]["nodes_scanned"] > doc["counts"]["pernode"]["finds"]
    check = doc["contended_line_check"]["global"]
    assert check["accessors"] == 480 and check["requests"] > 0
    assert check["mva_ns_per_request"] > 0 and check["simulated_ns_per_request"] > 0
    side = doc["side"]["stress_ng_cyclic"]
    assert set(side) == {"global", "pernode"} and all(r["cycles_per_load"] for r in side.values())


def test_checks_are_computed_not_assumed(short_run: dict[str, Any]) -> None:
    checks = {c["name"]: c for c in short_run["checks"]}
    assert all(isinstance(c["pass"], bool) for c in checks.values())
    # the seed's own table meets the pattern checks (they read the appendix correctly)
    assert all(c["pass"] for n, c in checks.items() if n.startswith("seed:"))
    direction = checks["direction: pernode's cycles per load below global's"]
    cpl = short_run["c2c_cycles_per_load"]
    assert direction["pass"] == (cpl["pernode"] < cpl["global"])


def test_pattern_checks_fail_on_a_table_without_the_pattern() -> None:
    flat = [{"offset": o, "symbol": "_find_first_and_bit", "records": 10, "store_l1_hit_pct": 0.0}
            for o in range(0, 64, 8)]
    checks = repro.pattern_checks(flat, "t")
    assert not all(c["pass"] for c in checks)


def test_cli_prints_the_side_by_side(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(repro, "DURATION_MS", 2)
    monkeypatch.setattr(repro, "SWEEP_PERIODS_US", (400,))
    monkeypatch.setattr(repro, "SWEEP_DURATION_MS", 1)
    real_run = repro.run
    monkeypatch.setattr(repro, "run", lambda **kw: real_run(**{**kw, "runs": 1, "duration_ms": 2}))
    assert main(["repro", "cpupri"]) == 0
    out = capsys.readouterr().out
    assert "Cycles per load on the mask line" in out and "MEASURED (seed)" in out and "MODELLED" in out
    assert "[2200, 8700]" in out and "_find_first_and_bit" in out
    assert main(["repro", "cpupri", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc["c2c_cycles_per_load"]) >= {"global", "pernode"}


def test_view_structs_match_the_c_layout() -> None:
    layout_bin = REPO / "wasm-core" / "build" / "native" / "struct_layout"
    assert layout_bin.is_file(), "struct_layout is built by scripts/setup.sh (make -C wasm-core native)"
    layout = json.loads(subprocess.run([str(layout_bin)], capture_output=True, check=True, text=True).stdout)
    for name, cls in (("ks_cpupri_summary", view.KsCpupriSummary), ("ks_cpupri_c2c_row", view.KsCpupriC2cRow),
                      ("ks_cpupri_view_request", view.KsCpupriViewRequest)):
        entry = layout[name]
        assert entry["size"] == ctypes.sizeof(cls), name
        assert set(entry["fields"]) <= {f[0] for f in cls._fields_}
        for field, (offset, size) in entry["fields"].items():
            assert getattr(cls, field).offset == offset and getattr(cls, field).size == size, (name, field)


def test_hcc_preset_numbers_siblings_240_apart() -> None:
    with Topology.from_preset(repro.PRESET) as topo:
        cpus = {c.cpu: (c.core, c.socket) for c in topo.cpus()}
    assert cpus[0] == cpus[240] and cpus[4] != cpus[240]
