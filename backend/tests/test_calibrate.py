"""`kscope calibrate`: the JSON document's shape, sane figures from one --quick run (no timing
thresholds: only orderings that hold by a wide margin on any machine), and the model side."""

import json
import subprocess

import pytest

from conftest import KSCOPE
from kscope.calibrate import model, model_v2, report, runner

MEASURED_IDS = {
    "sweep16k.hot", "sweep16k.sleep_1ms", "sweep16k.sleep_10ms", "sweep16k.sleep_100ms",
    "sweep16k.sleep_200ms", "sweep16k.sleep_1000ms", "sweep16k.after_remote_write", "sweep16k.first_touch",
    "sweep16k.ref_llc", "sweep16k.ref_dram", "sweep16k.tlbwarm.sleep_200ms",
    "pingpong.one_way",
    "latency.l1", "latency.l2", "latency.llc", "latency.dram", "mlp.independent", "mlp.misses_in_flight",
    "prefetch.sequential", "prefetch.random", "prefetch.gain", "pagewalk.spread", "pagewalk.packed",
    "pagewalk.cost", "atomic.uncontended", "atomic.contended", "spinlock.handoff", "bandwidth.dram_read",
    "idlechase.hot", "idlechase.ref_l2evict", "idlechase.ref_dram", "idleclock.hot",
} | {f"{kind}_{ms}ms" for ms in (1, 10, 100, 200)
     for kind in ("idlechase.sleep", "idlechase.tlbwarm.sleep", "idlechase.walk.sleep", "idlebusy.wait", "idlebusy.rt_wait",
                  "idlebusy.quiet_wait", "idleclock.sleep")}
TWO_CPU_IDS = {"sweep16k.hot", "sweep16k.after_remote_write", "pingpong.one_way", "atomic.uncontended",
               "atomic.contended", "spinlock.handoff"} | {i for i in MEASURED_IDS if i.startswith(("sweep16k.", "idlebusy."))}


@pytest.fixture(scope="module")
def doc() -> dict:
    proc = subprocess.run([str(KSCOPE), "calibrate", "--json", "--quick"], capture_output=True, text=True,
                          timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


def _rows(doc: dict) -> dict[str, dict]:
    return {r["id"]: r for r in doc["rows"]}


def test_every_mechanism_is_measured_beside_the_model(doc: dict) -> None:
    rows = _rows(doc)
    expected = MEASURED_IDS if len(doc["cpus_used"]) >= 2 else MEASURED_IDS - TWO_CPU_IDS
    measured = {i for i, r in rows.items() if r["kind"] == "measured"}
    assert measured == expected
    for i in measured:
        r = rows[i]
        assert r["unit"] in ("ns", "x", "GB/s"), i
        assert r["trials"] >= 1 and r["min"] <= r["p10"] <= r["median"] <= r["p90"] <= r["max"], i
        if i != "pagewalk.cost" and not i.startswith("idlechase.walk."):  # differences: may be negative
            assert r["min"] > 0, (i, r)
        assert r["source"].startswith("MEASURED"), i
        assert r["model_how"], i
        if r["model"]:
            assert r["ratio"] == pytest.approx(r["median"] / r["model"], rel=1e-2), i
        assert r["model_v2_how"], i                      # v2 beside v1, for every figure
        if r["model_v2"]:
            assert r["ratio_v2"] == pytest.approx(r["median"] / r["model_v2"], rel=1e-2), i
    assert doc["model"]["preset"] and doc["model"]["core_mhz"] > 0
    if doc["model"]["preset"] != "epyc-9654-2s":  # the seed machine's model is shown beside
        assert doc["model"]["seed_preset"] == "epyc-9654-2s"
        assert all("model_seed" in rows[i] and "model_v2_seed" in rows[i] for i in measured)
    assert doc["cpu"]["vendor"] and doc["load"]["before"]


def test_the_cited_rows_are_labelled_cited_not_measured(doc: dict) -> None:
    cited = [r for r in doc["rows"] if r["kind"] == "cited"]
    assert {r["id"] for r in cited} >= {"cited.epyc-9654-2s.other_llc", "cited.epyc-9654-2s.other_socket",
                                        "cited.spr-2s.other_socket", "cited.gnr-2s-snc.other_socket"}
    for r in cited:
        assert r["median"] is None and r["trials"] == 0
        assert r["source"].startswith("CITED, not measured: ") and "[" in r["source"]
        assert r["model"] > 0


def test_orderings_that_hold_on_any_machine(doc: dict) -> None:
    rows = _rows(doc)
    # independent loads overlap their misses; a chase cannot (several times apart on any core)
    assert rows["latency.dram"]["median"] > rows["mlp.independent"]["median"]
    assert rows["mlp.misses_in_flight"]["median"] > 1
    if len(doc["cpus_used"]) >= 2:
        # 256 lines fetched from the other core's cache vs 256 L1 hits
        assert rows["sweep16k.after_remote_write"]["median"] > rows["sweep16k.hot"]["median"]
    # the area's chase: L1 hits vs lines clflushed to DRAM (tens of times apart on any core)
    assert rows["idlechase.ref_dram"]["median"] > 3 * rows["idlechase.hot"]["median"]
    for ms in (1, 10, 100, 200):   # every wait row says what the CPU did meanwhile and the load
        assert "loadavg" in rows[f"idlechase.sleep_{ms}ms"]["detail"]
        assert "preempted" in rows[f"idlebusy.wait_{ms}ms"]["detail"]
        assert "SCHED_FIFO" in rows[f"idlebusy.rt_wait_{ms}ms"]["detail"]
        assert "the other CPU held" in rows[f"idlebusy.quiet_wait_{ms}ms"]["detail"] or \
            "refused" in rows[f"idlebusy.quiet_wait_{ms}ms"]["detail"]


def test_the_text_table_shows_measured_model_and_cited(doc: dict) -> None:
    text = report.render(doc)
    assert "mechanism" in text and "model" in text and "ratio" in text
    assert "measured" in text and "CITED" in text and "16 KiB sweep after 200 ms sleep" in text
    assert f"v1 {doc['model']['preset']}" in text and f"v2 {doc['model']['preset']}" in text
    assert "ratio v2" in text


def test_the_model_side_comes_from_the_c_model() -> None:
    values = model.model_values("epyc-9654-2s")
    v = {k: val for k, (val, _) in values["values"].items()}
    # Genoa table: L1 4 cycles at 3550 MHz
    assert v["latency.l1"] == pytest.approx(4 * 1000 / 3550)
    assert v["sweep16k.hot"] < v["sweep16k.after_remote_write"]
    assert v["mlp.misses_in_flight"] == 1.0 and v["pagewalk.cost"] == 0.0
    assert values["cpu_a"] != values["cpu_b"]


def test_the_v2_side_comes_from_the_cost_model_v2() -> None:
    v = {k: val for k, (val, _) in model_v2.model_values("epyc-9654-2s")["values"].items()}
    assert v["latency.l1"] == pytest.approx(4 * 1000 / 3550)        # v2 reads v1's latency table
    assert v["sweep16k.hot"] == pytest.approx(256 * 4 * 1000 / 3550)  # 4 cycles per line on Zen 4
    assert v["sweep16k.sleep_200ms"] > v["sweep16k.hot"]              # CC6 flushed the TLB
    assert v["mlp.misses_in_flight"] == pytest.approx(24, rel=1e-3)   # Zen 4's demand misses in flight
    assert v["prefetch.gain"] > 1
    assert v["sweep16k.first_touch"] == pytest.approx(v["sweep16k.hot"] + 4 * 2972)
    assert v["atomic.contended"] > v["pingpong.one_way"]              # two accessors queue
    # the idle chase: v2 flushes the area to the LLC after C6's residency, so a chase after
    # a sleep costs an LLC trip per line (TLB walks on top), and a busy wait leaves it in L1
    assert v["idlechase.sleep_200ms"] == pytest.approx(v["idlechase.tlbwarm.sleep_200ms"], rel=0.1)
    assert v["idlechase.sleep_200ms"] >= v["idlechase.tlbwarm.sleep_200ms"]
    assert v["idlechase.ref_l2evict"] < v["idlechase.tlbwarm.sleep_200ms"] < v["idlechase.ref_dram"]
    assert v["idlebusy.wait_200ms"] == v["idlechase.hot"] == v["latency.l1"]
    assert v["sweep16k.ref_llc"] <= v["sweep16k.ref_dram"]
    assert v["sweep16k.tlbwarm.sleep_200ms"] < v["sweep16k.sleep_200ms"]
    spr = {k: val for k, (val, _) in model_v2.model_values("spr-2s")["values"].items()}
    assert spr["mlp.misses_in_flight"] == pytest.approx(16, rel=1e-3)


def test_cpu_to_preset() -> None:
    assert report.preset_for({"vendor": "AuthenticAMD", "family": 25, "model": 17})[0] == "epyc-9654-2s"
    assert report.preset_for({"vendor": "GenuineIntel", "family": 6, "model": 207})[0] == "spr-2s"
    assert report.preset_for({"vendor": "GenuineIntel", "family": 6, "model": 173})[0] == "gnr-2s-snc"


def test_a_line_that_is_not_a_figure_is_named() -> None:
    good = '{"id":"a","unit":"ns","median":1,"p10":1,"p90":1,"min":1,"max":1,"trials":1,"detail":""}'
    assert runner.parse(good + "\n")[0]["id"] == "a"
    with pytest.raises(runner.CalibrateFailed, match="line 2: not JSON"):
        runner.parse(good + "\nSegmentation fault\n")
    with pytest.raises(runner.CalibrateFailed, match="line 1: missing median"):
        runner.parse('{"id":"a","unit":"ns","p10":1,"p90":1,"min":1,"max":1,"trials":1,"detail":""}')
