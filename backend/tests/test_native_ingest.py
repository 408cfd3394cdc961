"""kscope-ingest (wasm-core/tools/ingest), checked against independent computations.

The program's report and lod.npz are compared with what numpy computes from the
events it stored (so a wrong count, a lost switch or a wrong bucket shows), and its
error paths are run for real.
"""

import json
import subprocess
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from kscope.core.config import REPO_ROOT, Settings, get_settings
from kscope.ingest import arrow_schema_gen, native_ingest
from kscope.ingest.pipeline import ingest
from kscope.store.store import EVENTS_FILE, LOD_FILE, TraceStore

TRACES = REPO_ROOT / "traces"


def test_arrow_schema_include_matches_records_schema() -> None:
    """The footer schema kscope-ingest writes is records.SCHEMA's (regenerate with
    `python -m kscope.ingest.arrow_schema_gen` after changing SCHEMA)."""
    assert arrow_schema_gen.OUT.read_text() == arrow_schema_gen.render()


@pytest.fixture
def store(tmp_path: Path) -> TraceStore:
    s = TraceStore(Settings(data_dir=tmp_path / "data"))
    yield s
    s.close()


def _reference_lod(ts: np.ndarray, cpu: np.ndarray, prev_pid: np.ndarray, next_pid: np.ndarray,
                   cpus: list[int], t_first: int, t_last: int, buckets: int) -> np.ndarray:
    """Occupancy per CPU and bucket the plain way: np.interp of cumulative busy time."""
    span = max(t_last - t_first, 1)
    edges = t_first + np.arange(buckets + 1, dtype=np.float64) * span / buckets
    out = np.zeros((len(cpus), buckets))
    for slot, c in enumerate(cpus):
        mine = np.flatnonzero(cpu == c)
        mine = mine[np.argsort(ts[mine], kind="stable")]
        if len(mine) == 0:
            continue
        x = np.concatenate(([t_first], ts[mine], [t_last])).astype(np.int64)
        states = np.concatenate(([prev_pid[mine[0]] != 0], next_pid[mine] != 0)).astype(np.float64)
        cum = np.concatenate(([0.0], np.cumsum(states * np.diff(x))))
        out[slot] = np.diff(np.interp(edges, x, cum)) / np.diff(edges)
    return out


@pytest.mark.parametrize("name", ["threads4-linux6.18.txt", "intermittent8-linux6.12-vm16.txt",
                                  "threads4-linux6.18.dat.xz"])
def test_report_and_summaries_match_the_stored_events(store: TraceStore, name: str) -> None:
    rec = ingest(store, TRACES / name).record
    table = pq.read_table(store.trace_dir(rec.id) / EVENTS_FILE)
    rows = table.num_rows
    assert rows == rec.events
    types = table["type"].cast("string").to_numpy(zero_copy_only=False)
    names = table["name"].cast("string").to_numpy(zero_copy_only=False)
    counted: dict[str, int] = {}
    for t, n in zip(types, names):
        key = n if t == "generic" else t
        counted[key] = counted.get(key, 0) + 1
    assert rec.summary["by_type"] == dict(sorted(counted.items(), key=lambda kv: (-kv[1], kv[0])))
    ts = table["ts_ns"].to_numpy()
    cpu = table["cpu"].to_numpy()
    assert (rec.t_first_ns, rec.t_last_ns) == (int(ts.min()), int(ts.max()))
    assert rec.summary["cpu_ids"] == sorted(set(cpu.tolist()))
    tids: set[int] = set()
    for column in ("pid", "task_pid", "prev_pid", "next_pid", "child_pid"):
        values = table[column].to_numpy(zero_copy_only=False)
        tids.update(int(v) for v in values if v == v and 0 < v < 1 << 26)
    assert rec.tasks == len(tids)

    switch = types == "sched_switch"
    prev_pid = table["prev_pid"].fill_null(0).to_numpy()
    next_pid = table["next_pid"].fill_null(0).to_numpy()
    with np.load(store.trace_dir(rec.id) / LOD_FILE) as z:
        assert z["cpus"].tolist() == rec.summary["cpu_ids"]
        for level in range(3):
            occ = z[f"occ{level}"]
            expected = _reference_lod(ts[switch], cpu[switch], prev_pid[switch], next_pid[switch],
                                      rec.summary["cpu_ids"], rec.t_first_ns, rec.t_last_ns, occ.shape[1])
            assert np.abs(occ - expected).max() < 1e-5
            edges = z[f"edges{level}"]
            assert edges[0] == rec.t_first_ns and edges[-1] == rec.t_last_ns


def test_names_and_fields_that_are_not_utf8_are_repaired(store: TraceStore, tmp_path: Path) -> None:
    """Bytes that are not UTF-8 become U+FFFD (as Python's "replace" makes them), so pyarrow
    and DuckDB read the strings."""
    path = tmp_path / "bad-utf8.txt"
    path.write_bytes(
        b"# tracer: nop\n#\n"
        b"          <idle>-0     [000] d..2.  100.000001: my\xffevent: note=caf\xe9 ok=1\n"
        b"          <idle>-0     [000] d..2.  100.000002: my\xffevent: note=\xc3\xa9t\xc3\xa9\n"
        b"          <idle>-0     [000] d..2.  100.000003: sched_switch: prev_comm=swapper/0 prev_pid=0 "
        b"prev_prio=120 prev_state=R ==> next_comm=a\xfe next_pid=7 next_prio=120\n")
    rec = ingest(store, path).record
    rows = store.events(rec.id).to_pylist()
    assert [r["name"] for r in rows[:2]] == ["my\ufffdevent"] * 2
    assert [r["fields"] for r in rows[:2]] == ["note=caf\ufffd ok=1", "note=\u00e9t\u00e9"]
    assert rows[2]["next_comm"] == "a\ufffd"
    assert rec.summary["by_type"] == {"my\ufffdevent": 2, "sched_switch": 1}
    assert store.sql(rec.id, "SELECT count(*) FROM events WHERE name = 'my\ufffdevent'")["rows"] == [[2]]


def _program() -> str:
    return str(native_ingest.program(get_settings()))


def test_bad_arguments_exit_2_with_usage(tmp_path: Path) -> None:
    run = subprocess.run([_program(), "--format", "nonsense", "x", str(tmp_path)], capture_output=True, text=True)
    assert run.returncode == 2 and "usage: kscope-ingest" in run.stderr


def test_unreadable_input_and_unwritable_folder_name_the_path(tmp_path: Path) -> None:
    missing = tmp_path / "nope.txt"
    run = subprocess.run([_program(), "--format", "ftrace", str(missing), str(tmp_path)], capture_output=True,
                         text=True)
    assert run.returncode == 1 and f"{missing}: No such file" in run.stderr
    source = TRACES / "threads4-linux6.18.txt"
    run = subprocess.run([_program(), "--format", "ftrace", str(source), str(tmp_path / "no" / "dir")],
                         capture_output=True, text=True)
    assert run.returncode == 1 and "events.parquet" in run.stderr and "No such file" in run.stderr


def test_a_failing_program_leaves_nothing_in_the_store(store: TraceStore, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The program dies (here: a full disk, simulated by a program that says so and exits 1):
    NativeIngestFailed with its message, and the work folder is gone."""
    fake = tmp_path / "kscope-ingest"
    fake.write_text("#!/bin/sh\necho 'kscope-ingest: events.parquet: write failed: No space left on device' >&2\n"
                    "exit 1\n")
    fake.chmod(0o755)
    monkeypatch.setattr(store.settings, "ingest_program", fake)
    with pytest.raises(native_ingest.NativeIngestFailed, match="No space left on device"):
        ingest(store, TRACES / "threads4-linux6.18.txt")
    assert list((store.root / "tmp").iterdir()) == []
    assert store.list_traces() == []


def test_progress_lines_reach_the_caller(store: TraceStore) -> None:
    seen: list[tuple[str, int, int, int]] = []
    ingest(store, TRACES / "threads4-linux6.18.txt", progress=lambda *a: seen.append(a))
    phases = [s[0] for s in seen]
    assert phases[-1] == "done" and "summaries" in phases and "decode" in phases
    decode = [s for s in seen if s[0] == "decode"]
    assert decode[-1][1] == decode[-1][2]  # all bytes read
    assert decode[-1][3] == seen[-1][3]  # all events counted


def test_report_is_json_with_every_decoder_part(tmp_path: Path) -> None:
    source = TRACES / "threads4-linux6.18.txt"
    run = subprocess.run([_program(), "--format", "ftrace", str(source), str(tmp_path), "--threads", "2"],
                         capture_output=True, text=True, check=True)
    report = json.loads(run.stdout)
    assert report["decode_threads"] == len(report["decoders"]) == 2
    assert sum(d["events"] for d in report["decoders"]) == report["events"] == report["rows"]
    assert (tmp_path / "events.parquet").stat().st_size == report["events_bytes"]


def test_cli_without_the_program_says_how_to_build_it(tmp_path: Path) -> None:
    from conftest import KSCOPE

    run = subprocess.run([str(KSCOPE), "ingest", str(TRACES / "threads4-linux6.18.txt")], capture_output=True,
                         text=True, env={"KSCOPE_DATA_DIR": str(tmp_path), "PATH": "/usr/bin:/bin",
                                         "KSCOPE_INGEST_PROGRAM": str(tmp_path / "missing")})
    assert run.returncode == 1
    assert run.stderr.startswith("kscope: ") and "make -C wasm-core native" in run.stderr
    assert "Traceback" not in run.stderr


def test_allocator_records_are_stored_as_their_kernel_text(store: TraceStore) -> None:
    """A real 6.18 kmem trace (wasm-core/tests/fixtures/ftrace_6.18_kmem.txt): the decoder
    types kmem_cache_alloc/free, the store (no allocator columns yet) keeps each as a
    generic row with its name and the kernel's fields text, all but call_site's symbol."""
    fixture = REPO_ROOT / "wasm-core" / "tests" / "fixtures" / "ftrace_6.18_kmem.txt"
    lines = [ln for ln in fixture.read_text().splitlines() if ln.strip() and not ln.startswith("#")]
    rec = ingest(store, fixture).record
    table = pq.read_table(store.trace_dir(rec.id) / EVENTS_FILE).sort_by([("ts_ns", "ascending")])
    assert table.num_rows == len(lines)
    rows = table.to_pylist()
    assert {r["type"] for r in rows} == {"generic"}
    # call_site=sym+0x1/0x2 is read as an address it does not have: stored as 0x0
    assert all(r["fields"].startswith("call_site=0x0 ") for r in rows)
    want = sorted(((int(round(float(ln.split(": ", 1)[0].split()[-1]) * 1e6)) * 1000,
                    ln.split(": ")[1], ln.split(": ", 2)[2].split(" ", 1)[1]) for ln in lines))
    got = sorted((r["ts_ns"], r["name"], r["fields"].split(" ", 1)[1]) for r in rows)
    assert got == want
