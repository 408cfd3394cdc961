"""Batch size and decoder threads change how records travel through kscope-ingest (logs
reused, columns built per batch, one row group per CPU per batch), never what is stored."""

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


def test_row_groups_keep_each_cpus_time_order(tmp_path: Path) -> None:
    """kscope-ingest's writer thread writes batches in the order they were built while the
    next ones are decoded and built: with one decoder, per CPU each row group starts at or
    after the previous one's end, and small batches store what big ones do."""
    import pyarrow.parquet as pq

    from kscope.bench.ingest_bench import generate
    from kscope.store.store import EVENTS_FILE

    source, _ = generate(100_000, tmp_path)  # 8 CPUs: batches of 16 Ki records, a dozen of them
    base_doc, base_rows = _stored(tmp_path, "base", source)
    small_doc, small_rows = _stored(tmp_path, "small", source, ingest_batch_events=1024, ingest_decode_threads=1)
    assert small_doc == base_doc
    assert small_rows == base_rows
    (events_file,) = [p for p in (tmp_path / "small").rglob(EVENTS_FILE)]
    meta = pq.ParquetFile(events_file).metadata
    assert meta.num_row_groups >= 8 * 4  # ~6 batches of 16 Ki records (2048 per CPU), a group per CPU each
    names = meta.schema.to_arrow_schema().names
    last: dict[int, int] = {}
    for g in range(meta.num_row_groups):
        rg = meta.row_group(g)
        cpu = rg.column(names.index("cpu")).statistics
        assert cpu.min == cpu.max  # one CPU per row group
        ts = rg.column(names.index("ts_ns")).statistics
        assert ts.min >= last.get(cpu.min, ts.min)
        last[cpu.min] = ts.max
