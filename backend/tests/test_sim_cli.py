"""`kscope sim` and `kscope decode`: summaries, hashes, bad input, the ftrace round trip."""

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import KSCOPE, WORKLOADS, registered_sim_algos
from kscope.cli import main
from kscope.native import events, ftrace
from kscope.native.machine import Topology
from kscope.native.sim import Simulation

SEED000 = WORKLOADS / "seed000-8core-200ms.json"
HACKBENCH = WORKLOADS / "hackbench-2g.json"
SUMMARY_KEYS = {"preset", "workload", "seed", "until_ns", "now_ns", "events", "events_by_type",
                "event_stream_hash", "cpus", "cache", "bursts"}


def sim_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["sim", *argv, "--json"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    return json.loads(out)


def test_summary_of_a_short_run(capsys: pytest.CaptureFixture[str]) -> None:
    doc = sim_json(capsys, "--preset", "classroom-8", "--workload", str(SEED000), "--seed", "1",
                   "--until", "1s")
    assert set(doc) >= SUMMARY_KEYS
    assert doc["preset"] == "classroom-8" and doc["workload"] == "seed000-8core-200ms"
    assert doc["until_ns"] == 1_000_000_000 and doc["now_ns"] >= doc["until_ns"]
    assert doc["events"] == sum(doc["events_by_type"].values()) > 0
    assert doc["events_by_type"]["sched_switch"] > 0 and doc["events_by_type"]["rseq_update"] > 0
    assert len(doc["event_stream_hash"]) == 16 and int(doc["event_stream_hash"], 16)
    assert [c["cpu"] for c in doc["cpus"]] == list(range(8))
    for cpu in doc["cpus"]:
        assert 0 <= cpu["busy_ns"] <= doc["now_ns"] and 0 <= cpu["busy_pct"] <= 100
    assert set(doc["cache"]) == {"access_ns", "lines_from", "local_hitm", "remote_hitm"}
    assert set(doc["cache"]["lines_from"]) >= {"l1", "l2", "llc", "dram_local"}
    bursts = doc["bursts"]
    assert set(bursts) == {"count", "mean_ns", "p50_ns", "p95_ns", "parts_mean_ns"}
    assert bursts["count"] >= 5 and 0 < bursts["p50_ns"] <= bursts["p95_ns"]
    assert doc["cost_model"] == "v1" and bursts["parts_mean_ns"] == {}      # v1 has no parts


def test_cost_model_v2_gives_the_parts(capsys: pytest.CaptureFixture[str]) -> None:
    doc = sim_json(capsys, "--preset", "classroom-8", "--workload", str(SEED000), "--seed", "1",
                   "--until", "1s", "--cost-model", "v2")
    bursts = doc["bursts"]
    assert doc["cost_model"] == "v2" and bursts["parts_mean_ns"]["core"] > 0
    assert sum(bursts["parts_mean_ns"].values()) == pytest.approx(bursts["mean_ns"], abs=1.0)
    text_args = ["sim", "--preset", "classroom-8", "--workload", str(SEED000), "--seed", "1",
                 "--until", "1s", "--cost-model", "v2"]
    assert main(text_args) == 0
    assert "by mechanism, mean ns per burst: core" in capsys.readouterr().out


def test_hash_is_stable_per_seed_and_differs_across_seeds(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--preset", "classroom-8", "--workload", str(SEED000), "--until", "1s"]
    first = sim_json(capsys, *args, "--seed", "1")
    again = sim_json(capsys, *args, "--seed", "1")
    other = sim_json(capsys, *args, "--seed", "2")
    assert first == again
    assert other["event_stream_hash"] != first["event_stream_hash"]


def test_hash_is_fnv1a_over_the_records() -> None:
    with Topology.from_preset("classroom-8") as topo, \
            Simulation(topo, HACKBENCH.read_bytes(), seed=5, algo="auto") as sim:  # the CLI's default
        records = sim.run_until(until_ns=1_000_000, raw=True)
    result = subprocess.run([str(KSCOPE), "sim", "--preset", "classroom-8", "--workload", str(HACKBENCH),
                             "--seed", "5", "--until", "1ms", "--json"],
                            capture_output=True, text=True, check=True)
    doc = json.loads(result.stdout)
    assert doc["events"] == len(records) // events.EVENT_SIZE
    assert doc["event_stream_hash"] == events.hash_hex(events.fnv1a64(records))


def test_text_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "--preset", "classroom-8", "--workload", str(HACKBENCH), "--until", "2ms"]) == 0
    out = capsys.readouterr().out
    head = re.match(r"hackbench-2g on classroom-8 \(algo (\S+), seed 0\): ", out)
    # "auto" ran a registered model (which one is that model's test: tests/models/<name>/)
    assert head and head.group(1) in registered_sim_algos(), out[:120]
    assert "sched_switch" in out and "hash:" in out


@pytest.mark.parametrize("text,ns", [("2s", 2_000_000_000), ("150ms", 150_000_000), ("500us", 500_000),
                                     ("1000ns", 1000), ("1.5ms", 1_500_000), ("0s", 0)])
def test_until_accepts_units(text: str, ns: int) -> None:
    from kscope.units import parse_duration_ns

    assert parse_duration_ns(text) == ns


@pytest.mark.parametrize("text", ["2", "2 sec", "-1ms", "ms", "1.5ns", "2S", "1e3ms", ""])
def test_until_refuses_other_forms(text: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["sim", "--preset", "classroom-8", "--workload", str(HACKBENCH), f"--until={text}"])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert f"argument --until: bad duration {text!r}" in err and "2s, 150ms, 500us, 1000ns" in err


def test_until_must_be_positive(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["sim", "--preset", "classroom-8", "--workload", str(HACKBENCH), "--until", "0ms"])
    assert "must be more than 0" in capsys.readouterr().err


def test_bad_workload_exits_2_naming_file_line_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{\n  "name": "bad",\n  "duration_ms": 100,\n  "processes": [\n'
                   '    {"kind": "pipe_pairs", "comm": "hb", "groups": 2, "pairs_per_group": 0, "messages": 5}\n'
                   '  ]\n}\n')
    result = subprocess.run([str(KSCOPE), "sim", "--preset", "classroom-8", "--workload", str(bad),
                             "--until", "1ms", "--json"], capture_output=True, text=True)
    assert result.returncode == 2 and result.stdout == ""
    assert f"workload {bad}, line 5, column " in result.stderr
    assert 'field "processes[0].pairs_per_group"' in result.stderr


def test_workload_syntax_error_is_located(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "syntax.json"
    bad.write_text('{\n  "name": "x",\n  "duration_ms": 100\n  "processes": []\n}\n')
    assert main(["sim", "--preset", "classroom-8", "--workload", str(bad), "--until", "1ms"]) == 2
    err = capsys.readouterr().err
    assert f"workload {bad}, line 4" in err


@pytest.mark.parametrize("argv,message", [
    (["--workload", "/nonexistent/w.json"], "cannot read workload /nonexistent/w.json"),
    (["--workload", str(HACKBENCH), "--algo", "nope"], "unknown scheduling algorithm 'nope'"),
    (["--workload", str(HACKBENCH), "--preset", "pdp-11"], "unknown topology preset 'pdp-11'"),
])
def test_other_bad_input_exits_2(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    base = {"--preset": "classroom-8", "--until": "1ms"}
    for flag, value in zip(argv[::2], argv[1::2]):
        base[flag] = value
    assert main(["sim", *[x for kv in base.items() for x in kv]]) == 2
    out, err = capsys.readouterr()
    assert out == "" and message in err


def test_export_needs_an_output_file(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["sim", "--preset", "classroom-8", "--workload", str(HACKBENCH), "--until", "1ms",
              "--export", "ftrace"])
    assert "-o FILE" in capsys.readouterr().err


def test_ftrace_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = tmp_path / "f.txt"
    argv = ["--preset", "classroom-8", "--workload", str(HACKBENCH), "--seed", "7", "--until", "2ms"]
    doc = sim_json(capsys, *argv, "--export", "ftrace", "-o", str(trace))
    assert doc["export"]["file"] == str(trace) and doc["export"]["bytes"] == trace.stat().st_size

    assert main(["decode", str(trace), "--json"]) == 0
    decoded = json.loads(capsys.readouterr().out)
    assert decoded["format"] == "tracefs" and decoded["nr_cpus"] == 8
    assert decoded["malformed_lines"] == 0 and decoded["first_error"] is None
    assert decoded["events"] == doc["events"] > 1000
    assert decoded["by_type"] == {k: v for k, v in doc["events_by_type"].items() if v}

    n = 2000
    with Topology.from_preset("classroom-8") as topo, \
            Simulation(topo, HACKBENCH.read_bytes(), seed=7, algo="auto") as sim:
        simulated = sim.run_until(max_events=n)
    assert ftrace.decode_file(trace, keep=n).first == simulated  # field for field


def test_decode_reports_malformed_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = tmp_path / "bad.txt"
    trace.write_text(
        "# tracer: nop\n"
        "          <idle>-0       [001] d..2.  1273.158974: sched_switch: prev_comm=swapper/1 prev_pid=0 "
        "prev_prio=120 prev_state=R ==> next_comm=a next_pid=5 next_prio=120\n"
        "this is not an event line\n"
    )
    assert main(["decode", str(trace), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["events"] == 1 and doc["by_type"] == {"sched_switch": 1}
    assert doc["malformed_lines"] == 1
    assert doc["first_error"]["line"] == 3 and doc["first_error"]["message"]


def test_decode_missing_file_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["decode", "/nonexistent/trace.txt"]) == 2
    assert "/nonexistent/trace.txt" in capsys.readouterr().err


def test_decode_refuses_a_tracedat_and_names_the_commands_that_read_it(capsys: pytest.CaptureFixture[str]) -> None:
    dat = Path(__file__).resolve().parents[2] / "traces" / "threads4-linux6.18.v7-zstd.dat"
    assert main(["decode", str(dat), "--json"]) == 2
    err = capsys.readouterr().err
    assert "byte 0: a trace-cmd trace.dat" in err and "kscope ingest" in err


def test_no_hash_skips_the_hash(capsys: pytest.CaptureFixture[str]) -> None:
    doc = sim_json(capsys, "--preset", "classroom-8", "--workload", str(HACKBENCH), "--until", "1ms", "--no-hash")
    assert doc["event_stream_hash"] is None and doc["events"] > 0
