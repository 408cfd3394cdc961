"""The trace store: ingest into Parquet + summaries + a metadata row, read back, query, delete.

Runs on both metadata back ends: SQLite (embedded) and a real PostgreSQL
(started by the `postgres_url` fixture; skipped with the reason if it cannot be).
"""

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from kscope.core.config import Settings
from kscope.ingest.pipeline import ingest
from kscope.store.store import LOD_FILE, SqlRefused, SqlTimeout, TraceNotFound, TraceStore

HACKBENCH_BY_TYPE = {"sched_switch": 8028, "sched_waking": 8020, "sched_wakeup": 8020, "rseq_update": 8020,
                     "sched_process_exit": 40, "sched_process_free": 40, "sched_migrate_task": 8}


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> TraceStore:
    url = ""
    if request.param == "postgresql":
        url = request.getfixturevalue("postgres_url")
    s = TraceStore(Settings(data_dir=tmp_path / "data", database_url=url))
    yield s
    if url:  # one database for the session: leave it empty for the next test
        for rec in s.list_traces():
            s.delete(rec.id)
    s.close()


def test_ingest_counts_and_columns(store: TraceStore, sim_trace: Path) -> None:
    done = ingest(store, sim_trace)
    rec = done.record
    assert rec.events == 32176 and rec.cpus == 8 and rec.format == "ftrace"
    assert rec.summary["by_type"] == HACKBENCH_BY_TYPE
    assert rec.t_first_ns == 0 and rec.t_last_ns == 5_015_000
    assert rec.malformed_lines == 0 and rec.summary["first_error"] is None
    table = pq.read_table(store.trace_dir(rec.id) / "events.parquet")
    assert table.num_rows == 32176
    assert {"ts_ns", "cpu", "type", "pid", "tgid", "comm", "prev_pid", "prev_state", "next_pid", "prev_comm",
            "next_comm", "target_cpu", "orig_cpu", "dest_cpu", "child_pid", "mm_cid", "node_id", "cpu_id",
            "prio", "name", "fields"} <= set(table.column_names)
    assert rec.summary["event_bytes_per_event"] <= 32


def test_row_groups_are_per_cpu_and_time_sorted(store: TraceStore, sim_trace: Path) -> None:
    rec = ingest(store, sim_trace).record
    f = pq.ParquetFile(store.trace_dir(rec.id) / "events.parquet")
    names = f.schema_arrow.names
    for g in range(f.metadata.num_row_groups):
        stats = f.metadata.row_group(g).column(names.index("cpu")).statistics
        assert stats.min == stats.max  # one CPU per row group: the per-CPU index
        ts = f.read_row_group(g, columns=["ts_ns"])["ts_ns"].to_numpy()
        assert np.all(np.diff(ts) >= 0)


def test_metadata_round_trip_list_and_owner(store: TraceStore, sim_trace: Path) -> None:
    done = ingest(store, sim_trace, name="hb.txt")
    assert store.get(done.record.id, done.token).name == "hb.txt"
    with pytest.raises(TraceNotFound):
        store.get(done.record.id, "someone-else")
    assert [r.id for r in store.list_traces(done.token)] == [done.record.id]
    assert store.list_traces("someone-else") == []
    store.delete(done.record.id, done.token)
    assert not store.trace_dir(done.record.id).exists()
    with pytest.raises(TraceNotFound):
        store.get(done.record.id)


def test_events_by_range_cpu_and_type(store: TraceStore, sim_trace: Path) -> None:
    rec = ingest(store, sim_trace).record
    t = store.events(rec.id, 1_000_000, 2_000_000, [3], ["sched_switch"], 1_000_000)
    assert t.num_rows > 0
    rows = t.to_pylist()
    assert all(r["cpu"] == 3 and r["type"] == "sched_switch" and 1_000_000 <= r["ts_ns"] < 2_000_000 for r in rows)
    assert all(r["next_pid"] is not None and r["task_pid"] is None for r in rows)
    wake = store.events(rec.id, None, None, None, ["sched_wakeup"], 5).to_pylist()
    assert len(wake) == 5 and all(r["target_cpu"] is not None and r["task_comm"] == "hackbench" for r in wake)


def test_sql_is_read_only_and_time_limited(store: TraceStore, sim_trace: Path) -> None:
    rec = ingest(store, sim_trace).record
    result = store.sql(rec.id, "SELECT type, count(*) AS n FROM events GROUP BY 1 ORDER BY 1")
    assert dict(result["rows"]) == HACKBENCH_BY_TYPE
    for bad in ("DELETE FROM events", "CREATE TABLE x AS SELECT 1", "SELECT 1; SELECT 2",
                "COPY events TO '/tmp/x.csv'", "SET threads=1"):
        with pytest.raises(SqlRefused):
            store.sql(rec.id, bad)
    with pytest.raises(SqlRefused, match="Permission|disabled|access"):
        store.sql(rec.id, "SELECT * FROM read_csv('/etc/passwd')")
    with pytest.raises(SqlTimeout):
        store.sql(rec.id, "SELECT count(*) FROM range(10000000000) a", timeout_s=0.2)


def test_summary_occupancy_matches_switches(store: TraceStore, sim_trace: Path) -> None:
    rec = ingest(store, sim_trace).record
    doc = store.summary(rec, None, None, 10)
    assert doc["cpus"] == list(range(8)) and len(doc["occupancy"]) == 8
    assert all(len(row) == 10 and all(0 <= v <= 1 for v in row) for row in doc["occupancy"])
    # Busy time from the summaries equals busy time from the switches themselves (SQL).
    busy = store.sql(rec.id, """
        SELECT cpu, sum(CASE WHEN next_pid <> 0 THEN coalesce(nxt, end_ts) - ts_ns ELSE 0 END)
        FROM (SELECT cpu, ts_ns, next_pid, lead(ts_ns) OVER (PARTITION BY cpu ORDER BY ts_ns) AS nxt,
                     (SELECT max(ts_ns) FROM events) AS end_ts
              FROM events WHERE type = 'sched_switch') GROUP BY cpu ORDER BY cpu""")["rows"]
    width = (rec.t_last_ns + 1 - rec.t_first_ns) / 10
    for (cpu, busy_ns), row in zip(busy, doc["occupancy"]):
        assert sum(row) * width == pytest.approx(busy_ns, rel=0.01, abs=width * 0.01)


def test_generic_events_keep_name_and_fields(store: TraceStore, tmp_path: Path) -> None:
    text = (
        "# tracer: nop\n"
        "          <idle>-0     [001] d..2.  100.000001: irq_handler_entry: irq=24 name=eth0\n"
        "          <idle>-0     [001] d..2.  100.000002: sched_switch: prev_comm=swapper/1 prev_pid=0 "
        "prev_prio=120 prev_state=R ==> next_comm=a next_pid=7 next_prio=120\n"
        "               a-7     [001] d..2.  100.000003: cpu_idle: state=1 cpu_id=1\n"
    )
    path = tmp_path / "g.txt"
    path.write_text(text)
    rec = ingest(store, path).record
    assert rec.summary["by_type"] == {"cpu_idle": 1, "irq_handler_entry": 1, "sched_switch": 1}
    rows = store.events(rec.id, types=["generic"]).to_pylist()
    assert [(r["name"], r["fields"]) for r in rows] == [("irq_handler_entry", "irq=24 name=eth0"),
                                                         ("cpu_idle", "state=1 cpu_id=1")]


def test_lod_levels_on_disk(store: TraceStore, sim_trace: Path) -> None:
    rec = ingest(store, sim_trace).record
    with np.load(store.trace_dir(rec.id) / LOD_FILE) as z:
        # lod.h: 256, 4096 and 65536 buckets, no finer than ~4 events per bucket
        assert len([k for k in z.files if k.startswith("occ")]) == 3
        assert z["occ0"].shape == (8, 256)
        assert z["occ2"].shape[1] == min(65536, max(256, rec.events // 4))


def test_capture_header_is_read(store: TraceStore, sim_trace: Path, tmp_path: Path) -> None:
    path = tmp_path / "cap.txt"
    header = ("# kscope: kernel=6.18.0-test\n# kscope: command=sleep 1\n"
              "# kscope-sysfs: cpu0/topology/core_id\t0\n")
    path.write_bytes(header.encode() + sim_trace.read_bytes())
    rec = ingest(store, path).record
    assert rec.kernel == "6.18.0-test" and rec.events == 32176
    assert rec.summary["capture"]["command"] == "sleep 1" and rec.summary["topology"] is True
    assert json.loads(json.dumps(rec.summary))  # the document is plain JSON


@pytest.mark.parametrize("threads", [2, 3])
def test_parallel_decode_equals_sequential(tmp_path: Path, sim_trace: Path, threads: int) -> None:
    """Text cut at line starts and decoded side by side: the same events, counts, summaries,
    and the first problem at the same absolute line."""
    lines = sim_trace.read_bytes().split(b"\n")
    lines[30000] = b"   garbage-1 [000] not an event"  # in the last part
    path = tmp_path / "t.txt"
    path.write_bytes(b"\n".join(lines))
    docs, tables = [], []
    for n in (1, threads):
        s = TraceStore(Settings(data_dir=tmp_path / f"d{n}", ingest_decode_threads=n))
        rec = ingest(s, path).record
        docs.append({k: v for k, v in rec.summary.items()
                     if k not in ("trace_id", "bytes_stored", "bytes_per_event", "event_bytes_per_event",
                                  "decode_threads")})
        tables.append(s.events(rec.id, limit=10**6).to_pylist())
        s.close()
    assert docs[0] == docs[1]
    assert docs[0]["first_error"]["line"] == 30001 and docs[0]["malformed_lines"] == 1
    assert sorted(tables[0], key=repr) == sorted(tables[1], key=repr)


def test_events_limit_reads_only_what_it_needs(store: TraceStore, sim_trace: Path) -> None:
    """A small limit gives the same first rows as sorting everything, whatever the filters."""
    import pyarrow.compute as pc

    rec = ingest(store, sim_trace).record
    everything = store.events(rec.id, limit=10**6)
    for limit in (1, 7, 1000, 20000):
        first = store.events(rec.id, limit=limit)
        assert first["ts_ns"].to_pylist() == everything["ts_ns"].to_pylist()[:limit]
    some = store.events(rec.id, t0=2_000_000, cpus=[1, 6], types=["sched_switch"], limit=50)
    expected = everything.filter(pc.and_(pc.and_(pc.greater_equal(everything["ts_ns"], 2_000_000),
                                                 pc.is_in(everything["cpu"], pa.array([1, 6], pa.int32()))),
                                         pc.equal(everything["type"].cast(pa.string()), "sched_switch")))
    assert some["ts_ns"].to_pylist() == expected["ts_ns"].to_pylist()[:50]
