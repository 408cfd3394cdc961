"""Export of stored traces (kscope/trace_export): ftrace text and Chrome trace-event JSON,
through the API (owner, share token, window, limits) and `kscope export`, each read back:

- ftrace text -> kscope's own C decoder -> the same records, field for field, as the store
  holds for the window (typed scheduler events and generic ones alike);
- chrome-json -> a small reader of the trace-event format (below) -> the same sched_switch
  and wakeup events (ts, cpu, pid, comm, and the switch's prev/next task and prev_state).

On a real 16-vCPU capture shipped in traces/ (rt16-...-vm16: 92 k events, Linux 6.12).
"""

import json
import lzma
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from fastapi.testclient import TestClient

from kscope import cli
from kscope.api.app import create_app
from kscope.core.config import Settings
from kscope.native import ftrace
from kscope.trace_export.chrome import CPU_PID

TRACES = Path(__file__).resolve().parents[2] / "traces"
REAL = TRACES / "rt16-linux6.12-cpupri-pernode-vm16.txt.xz"
WAKEUPS = ("sched_waking", "sched_wakeup", "sched_wakeup_new")


@pytest.fixture(scope="module")
def app_data(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    data = tmp_path_factory.mktemp("export") / "data"
    return {"settings": Settings(data_dir=data, frontend_dist=data / "dist", max_upload_bytes=64 << 20)}


@pytest.fixture(scope="module")
def stored(app_data: dict[str, Any]) -> dict[str, Any]:
    with TestClient(create_app(app_data["settings"])) as c:
        r = c.post("/api/traces", params={"name": REAL.name}, content=REAL.read_bytes())
        assert r.status_code == 201, r.text
        body = r.json()
        ev = c.get(f"/api/traces/{body['id']}/events", params={"limit": 200_000},
                   headers={"X-Kscope-Token": body["token"]})
        table = pa.ipc.open_stream(ev.content).read_all()
    assert table.num_rows == body["events"] > 80_000
    return {**body, "table": table}


@pytest.fixture
def client(app_data: dict[str, Any], stored: dict[str, Any]) -> TestClient:
    with TestClient(create_app(app_data["settings"])) as c:
        yield c


def stored_rows(stored: dict[str, Any], t0: int | None = None, t1: int | None = None) -> list[dict[str, Any]]:
    rows = stored["table"].to_pylist()
    return [r for r in rows if (t0 is None or r["ts_ns"] >= t0) and (t1 is None or r["ts_ns"] < t1)]


# -- ftrace ------------------------------------------------------------------------------

_SAME = {  # decoded record field -> stored column, per type
    "sched_switch": {"prev_comm": "prev_comm", "prev_pid": "prev_pid", "prev_prio": "prev_prio",
                     "prev_state": "prev_state", "next_comm": "next_comm", "next_pid": "next_pid",
                     "next_prio": "next_prio"},
    **{w: {"comm": "task_comm", "pid": "task_pid", "prio": "prio", "target_cpu": "target_cpu"} for w in WAKEUPS},
    "sched_migrate_task": {"comm": "task_comm", "pid": "task_pid", "prio": "prio", "orig_cpu": "orig_cpu",
                           "dest_cpu": "dest_cpu"},
}


def decoded_as_rows(text: bytes) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    with ftrace.FtraceDecoder() as dec:
        out: list[dict[str, Any]] = []
        for start in range(0, len(text), 1 << 20):
            with dec.feed(text[start:start + (1 << 20)]) as log:
                out.extend(log.decode())
        with dec.finish() as log:
            out.extend(log.decode())
        return out, dec.stats()


def assert_same_records(decoded: list[dict[str, Any]], rows: list[dict[str, Any]]) -> None:
    assert len(decoded) == len(rows)
    key = lambda e: (e["ts_ns"], e["cpu"])  # noqa: E731 - both sides in the store's (ts, cpu) order
    decoded = sorted(decoded, key=key)
    for d, r in zip(decoded, rows):
        assert (d["ts_ns"], d["cpu"], d["type"], d["pid"], d["tgid"], d["comm"]) == \
               (r["ts_ns"], r["cpu"], r["type"], r["pid"], r["tgid"], r["comm"]), (d, r)
        if d["type"] == "generic":
            assert (d["fields"]["name"], d["fields"]["text"]) == (r["name"], r["fields"])
        for field, column in _SAME.get(d["type"], {}).items():
            assert d["fields"][field] == r[column], (field, d, r)


def test_ftrace_export_of_the_whole_trace_decodes_back_to_the_stored_records(
        client: TestClient, stored: dict[str, Any]) -> None:
    r = client.get(f"/api/traces/{stored['id']}/export", params={"format": "ftrace"},
                   headers={"X-Kscope-Token": stored["token"]})
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/plain")
    assert 'filename="rt16-linux6.12-cpupri-pernode-vm16.txt.xz.txt"' in r.headers["content-disposition"]
    assert r.content.startswith(b"# kscope: exported_from=rt16-")
    decoded, stats = decoded_as_rows(r.content)
    assert stats["malformed_lines"] == 0 and stats["nr_cpus"] == 16
    assert Counter(d["type"] for d in decoded)["sched_switch"] > 10_000
    assert_same_records(decoded, stored_rows(stored))
    # Ingested again, it is the same trace: its events, kernel release and CPU topology.
    again = client.post("/api/traces", params={"name": "again.txt"}, content=r.content)
    assert again.status_code == 201, again.text
    a = again.json()
    assert (a["events"], a["cpus"], a["kernel"], a["t_first_ns"], a["t_last_ns"]) == \
        (stored["events"], stored["cpus"], stored["kernel"], stored["t_first_ns"], stored["t_last_ns"])
    assert stored["kernel"].startswith("6.12")
    topo = lambda tid, tok: client.get(f"/api/traces/{tid}/topology", headers={"X-Kscope-Token": tok})  # noqa: E731
    assert topo(stored["id"], stored["token"]).status_code == 200
    assert topo(a["id"], a["token"]).content == topo(stored["id"], stored["token"]).content


def test_ftrace_export_of_a_window(client: TestClient, stored: dict[str, Any]) -> None:
    ts = stored["table"]["ts_ns"].to_pylist()
    t0, t1 = ts[len(ts) // 3], ts[len(ts) // 3 + 5000]
    r = client.get(f"/api/traces/{stored['id']}/export", params={"format": "ftrace", "t0": t0, "t1": t1},
                   headers={"X-Kscope-Token": stored["token"]})
    assert r.status_code == 200, r.text
    rows = stored_rows(stored, t0, t1)
    assert int(r.headers["x-kscope-export-events"]) == len(rows) >= 5000
    decoded, stats = decoded_as_rows(r.content)
    assert stats["malformed_lines"] == 0
    assert_same_records(decoded, rows)


# -- chrome-json -------------------------------------------------------------------------

def ns(us_value: float) -> int:
    return round(us_value * 1000)


def read_chrome(doc: dict[str, Any]) -> tuple[list[tuple], list[tuple], dict[int, str]]:
    """A small reader of the trace-event format as kscope writes it: the switches (from the X
    slices' two ends) and wakeups (instants), and the CPU threads' names."""
    switches: list[tuple] = []
    wakeups: list[tuple] = []
    names: dict[int, str] = {}
    for e in doc["traceEvents"]:
        if e["ph"] == "M" and e["name"] == "thread_name":
            names[e["tid"] - CPU_PID] = e["args"]["name"]
            continue
        if e["pid"] != CPU_PID:
            continue
        cpu, a = e["tid"] - CPU_PID, e.get("args", {})
        if e["ph"] == "X":
            start, end = ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])
            if "switch_in" in a:  # the switch that put this task here
                s = a["switch_in"]
                switches.append((start, cpu, s["prev_pid"], s["prev_comm"], s["prev_state"], a["pid"], e["name"]))
            if "switch_out" in a and a["switch_out"]["next_pid"] == 0:  # a switch into idle
                s = a["switch_out"]
                switches.append((end, cpu, s["prev_pid"], s["prev_comm"], s["prev_state"], 0, s["next_comm"]))
        elif e["ph"] == "i" and e["name"] == "sched_switch":
            switches.append((ns(e["ts"]), cpu, a["prev_pid"], a["prev_comm"], a["prev_state"], a["next_pid"],
                             a["next_comm"]))
        elif e["ph"] == "i" and e["name"] in WAKEUPS:
            wakeups.append((ns(e["ts"]), cpu, e["name"], a["cur_pid"], a["cur_comm"], a["pid"], a["comm"],
                            a["target_cpu"]))
    return sorted(switches), sorted(wakeups), names


def stored_sched(rows: list[dict[str, Any]]) -> tuple[list[tuple], list[tuple]]:
    switches = sorted((r["ts_ns"], r["cpu"], r["prev_pid"], r["prev_comm"], r["prev_state"], r["next_pid"],
                       r["next_comm"]) for r in rows if r["type"] == "sched_switch")
    wakeups = sorted((r["ts_ns"], r["cpu"], r["type"], r["pid"], r["comm"], r["task_pid"], r["task_comm"],
                      r["target_cpu"]) for r in rows if r["type"] in WAKEUPS)
    return switches, wakeups


def test_chrome_json_export_reads_back_to_the_same_switches_and_wakeups(
        client: TestClient, stored: dict[str, Any]) -> None:
    r = client.get(f"/api/traces/{stored['id']}/export", params={"format": "chrome-json"},
                   headers={"X-Kscope-Token": stored["token"]})
    assert r.status_code == 200, r.text
    doc = json.loads(r.content)
    assert doc["displayTimeUnit"] == "ns" and doc["otherData"]["events"] == stored["events"]
    switches, wakeups, names = read_chrome(doc)
    want_switches, want_wakeups = stored_sched(stored_rows(stored))
    assert len(want_switches) > 10_000 and len(want_wakeups) > 10_000
    assert switches == want_switches
    assert wakeups == want_wakeups
    assert names == {c: f"CPU {c}" for c in range(16)}
    phases = Counter(e["ph"] for e in doc["traceEvents"])
    assert phases["X"] > 5_000 and phases["M"] == 1 + 2 * 16
    # Every event the store holds that is not a switch comes out as one instant.
    others = sum(1 for row in stored_rows(stored) if row["type"] != "sched_switch")
    assert phases["i"] - sum(1 for e in doc["traceEvents"] if e["ph"] == "i" and e["name"] == "sched_switch") \
        == others
    # Slices never overlap on a CPU, and say the task's comm.
    by_cpu: dict[int, list[tuple[int, int]]] = {}
    for e in doc["traceEvents"]:
        if e["ph"] == "X":
            by_cpu.setdefault(e["tid"], []).append((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])))
            assert e["name"] and not e["name"].isdigit()
    for spans in by_cpu.values():
        spans.sort()
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))


def test_chrome_json_window_starts_the_running_tasks_at_the_window(client: TestClient,
                                                                    stored: dict[str, Any]) -> None:
    rows = stored["table"].to_pylist()
    # A window that opens while a task runs on some CPU: just after a switch into a task.
    k = next(i for i in range(40_000, len(rows)) if rows[i]["type"] == "sched_switch" and rows[i]["next_pid"])
    running = rows[k]["next_pid"]
    t0, t1 = rows[k]["ts_ns"] + 1, rows[k + 3000]["ts_ns"]
    r = client.get(f"/api/traces/{stored['id']}/export", params={"format": "chrome-json", "t0": t0, "t1": t1},
                   headers={"X-Kscope-Token": stored["token"]})
    doc = r.json()
    switches, wakeups, _ = read_chrome(doc)
    want_switches, want_wakeups = stored_sched(stored_rows(stored, t0, t1))
    assert switches == want_switches and wakeups == want_wakeups
    cut = [e for e in doc["traceEvents"] if e["ph"] == "X" and "switch_in" not in e["args"]]
    assert all(ns(e["ts"]) == t0 for e in cut)
    assert any(e["args"]["pid"] == running and e["args"]["cpu"] == rows[k]["cpu"] for e in cut)
    assert all(t0 <= ns(e["ts"]) and ns(e["ts"]) + ns(e.get("dur", 0)) < t1 for e in doc["traceEvents"] if e["ph"] != "M")


# -- access and bounds ---------------------------------------------------------------------

def test_the_file_is_written_on_the_events_gate(client: TestClient, stored: dict[str, Any],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Every byte of an export is written on the events gate's threads (bounded by its
    running/queue/per-token limits), none on the server's shared thread pool while the
    client downloads (before, only the row read ran on the gate)."""
    import threading

    from kscope.trace_export import export

    threads: set[str] = set()
    real = export.Export.chunks

    def chunks(self: export.Export):
        for chunk in real(self):
            threads.add(threading.current_thread().name)
            yield chunk

    monkeypatch.setattr(export.Export, "chunks", chunks)
    ts = stored["table"]["ts_ns"].to_pylist()
    for fmt in ("ftrace", "chrome-json"):
        r = client.get(f"/api/traces/{stored['id']}/export", params={"format": fmt, "t1": ts[3000]},
                       headers={"X-Kscope-Token": stored["token"]})
        assert r.status_code == 200, r.text
        assert int(r.headers["x-kscope-export-events"]) >= 3000
    assert threads and all(name.startswith("kscope-events") for name in threads), threads


def test_export_needs_the_owner_or_the_share_token(client: TestClient, stored: dict[str, Any]) -> None:
    url = f"/api/traces/{stored['id']}/export"
    assert client.get(url, params={"format": "ftrace"}).status_code == 404
    assert client.get(url, params={"format": "ftrace"}, headers={"X-Kscope-Token": "nope"}).status_code == 404
    share = client.post(f"/api/traces/{stored['id']}/share", headers={"X-Kscope-Token": stored["token"]})
    assert share.status_code in (200, 201), share.text
    token = share.json()["share"]
    ok = client.get(url, params={"format": "ftrace", "t1": stored["table"]["ts_ns"][100].as_py(), "share": token})
    assert ok.status_code == 200 and ok.content.count(b"\n") > 100
    assert client.get(url, params={"format": "ftrace"}, headers={"X-Kscope-Share": token}).status_code == 200
    client.delete(f"/api/traces/{stored['id']}/share", headers={"X-Kscope-Token": stored["token"]})
    assert client.get(url, params={"format": "ftrace", "share": token}).status_code == 404


def test_bad_format_empty_window_and_the_event_limit(app_data: dict[str, Any], stored: dict[str, Any],
                                                     client: TestClient) -> None:
    url, auth = f"/api/traces/{stored['id']}/export", {"X-Kscope-Token": stored["token"]}
    assert client.get(url, params={"format": "pdf"}, headers=auth).status_code == 422
    r = client.get(url, params={"format": "ftrace", "t0": 10, "t1": 10}, headers=auth)
    assert r.status_code == 422 and "empty window" in r.text
    data = app_data["settings"].data_dir
    small = Settings(data_dir=data, frontend_dist=data / "dist", export_max_events=1000)
    with TestClient(create_app(small)) as c:
        r = c.get(url, params={"format": "chrome-json"}, headers=auth)
        assert r.status_code == 422 and "more than 1000 events" in r.text and "KSCOPE_EXPORT_MAX_EVENTS" in r.text
        ts = stored["table"]["ts_ns"].to_pylist()
        assert c.get(url, params={"format": "chrome-json", "t0": ts[0], "t1": ts[500]},
                     headers=auth).status_code == 200


# -- CLI ------------------------------------------------------------------------------------

def test_cli_export_both_formats(app_data: dict[str, Any], stored: dict[str, Any], tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("KSCOPE_DATA_DIR", str(app_data["settings"].data_dir))
    from kscope.core import config
    if hasattr(config.get_settings, "cache_clear"):
        config.get_settings.cache_clear()
    ts = stored["table"]["ts_ns"].to_pylist()
    t0, t1 = ts[1000], ts[3000]
    out = tmp_path / "w.txt"
    assert cli.main(["export", stored["id"], "--format", "ftrace", "-o", str(out), "--from", str(t0),
                     "--to", str(t1)]) == 0
    decoded, _ = decoded_as_rows(out.read_bytes())
    assert_same_records(decoded, stored_rows(stored, t0, t1))
    js = tmp_path / "w.json"
    assert cli.main(["export", stored["id"], "--format", "chrome-json", "-o", str(js)]) == 0
    switches, wakeups, _ = read_chrome(json.loads(js.read_text()))
    assert (switches, wakeups) == stored_sched(stored_rows(stored))
    assert cli.main(["export", "0123456789abcdef", "--format", "ftrace"]) == 2
    assert "no stored trace" in capsys.readouterr().err
    if hasattr(config.get_settings, "cache_clear"):
        config.get_settings.cache_clear()
