"""Batch size and decoder threads change how records travel (logs reused through a pool,
columns built per batch, one row group per CPU per batch), never what is stored."""

from pathlib import Path

import pytest

from kscope.core.config import REPO_ROOT, Settings
from kscope.ingest.pipeline import ingest
from kscope.store.store import TraceStore

TRACES = REPO_ROOT / "traces"


def _stored(tmp_path: Path, name: str, source: Path, **settings: int) -> tuple[dict, list[dict]]:
    store = TraceStore(Settings(data_dir=tmp_path / name, **settings))
    try:
        rec = ingest(store, source).record
        rows = store.events(rec.id, limit=1 << 20).to_pylist()
    finally:
        store.close()
    doc = {k: rec.summary[k] for k in ("events", "by_type", "cpus", "t_first_ns", "t_last_ns", "tasks",
                                      "malformed_lines")}
    return doc, sorted(rows, key=lambda r: (r["ts_ns"], r["cpu"], r["type"], r["pid"], str(r["fields"])))


@pytest.mark.parametrize("name", ["threads4-linux6.18.txt", "threads4-linux6.18.dat.xz",
                                  "intermittent8-linux6.12-vm16.txt"])
def test_small_batches_and_two_threads_store_the_same(tmp_path: Path, name: str) -> None:
    source = TRACES / name
    base_doc, base_rows = _stored(tmp_path, "base", source)
    small_doc, small_rows = _stored(tmp_path, "small", source, ingest_batch_events=1024, ingest_decode_threads=2)
    assert base_doc["events"] > 1024  # two batches or more, so logs are handed over and reused
    assert small_doc == base_doc
    assert small_rows == base_rows


def test_a_slow_writer_with_tables_queued_stores_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tables wait for the Parquet writer (up to WRITES_IN_FLIGHT) while the next batches are
    built: the column buffers they hold must not be reused meanwhile, and row groups are
    still written in batch order."""
    import threading
    import time

    import pyarrow.parquet as pq

    from kscope.ingest import pipeline
    from kscope.store.events import EVENTS_FILE, EventWriter

    from kscope.bench.ingest_bench import generate

    source, _ = generate(100_000, tmp_path)  # 8 CPUs: batches of 16 Ki records, a dozen of them
    base_doc, base_rows = _stored(tmp_path, "base", source)
    write, queued, most = EventWriter.write, [0], [0]
    submit = pipeline.ThreadPoolExecutor.submit
    lock = threading.Lock()

    def counted_submit(self, fn, *args):  # type: ignore[no-untyped-def]
        with lock:
            queued[0] += 1
            most[0] = max(most[0], queued[0])
        return submit(self, fn, *args)

    def slow_write(self: EventWriter, table) -> None:  # type: ignore[no-untyped-def]
        time.sleep(0.005)
        write(self, table)
        with lock:
            queued[0] -= 1

    monkeypatch.setattr(EventWriter, "write", slow_write)
    monkeypatch.setattr(pipeline.ThreadPoolExecutor, "submit", counted_submit)
    slow_doc, slow_rows = _stored(tmp_path, "slow", source, ingest_batch_events=8192, ingest_decode_threads=1)
    assert most[0] == pipeline.WRITES_IN_FLIGHT  # tables did queue up behind the writer
    assert slow_doc == base_doc
    assert slow_rows == base_rows
    # One decoder: batches come in time order, so per CPU each row group starts at or after
    # the previous one's end when the writer keeps batch order.
    (trace_dir,) = [p for p in (tmp_path / "slow").rglob(EVENTS_FILE)]
    meta = pq.ParquetFile(trace_dir).metadata
    names = meta.schema.to_arrow_schema().names
    last: dict[int, int] = {}
    for g in range(meta.num_row_groups):
        rg = meta.row_group(g)
        cpu = rg.column(names.index("cpu")).statistics.min
        ts = rg.column(names.index("ts_ns")).statistics
        assert ts.min >= last.get(cpu, ts.min)
        last[cpu] = ts.max
