"""Golden tests over ../traces: every real trace ingests to its <name>.expected.json."""

import json
from pathlib import Path

import pytest

from kscope.core.config import Settings
from kscope.ingest.pipeline import ingest
from kscope.store.store import TraceStore

TRACES = Path(__file__).resolve().parents[2] / "traces"
GOLDENS = sorted(TRACES.glob("*.expected.json"))


@pytest.mark.parametrize("golden", GOLDENS, ids=[g.name.removesuffix(".expected.json") for g in GOLDENS])
def test_trace_matches_golden(golden: Path, tmp_path: Path) -> None:
    expected = json.loads(golden.read_text())
    trace = next(p for p in TRACES.glob(golden.name.removesuffix(".expected.json") + ".*")
                 if not p.name.endswith(".expected.json"))
    store = TraceStore(Settings(data_dir=tmp_path / "data"))
    try:
        doc = ingest(store, trace).record.summary
    finally:
        store.close()
    assert {k: doc[k] for k in expected} == expected


def test_rseq_threads_in_threads4(tmp_path: Path) -> None:
    store = TraceStore(Settings(data_dir=tmp_path / "data"))
    try:
        rec = ingest(store, TRACES / "threads4-linux6.18.txt").record
        rows = store.sql(rec.id, """SELECT count(DISTINCT pid), count(*) = count(mm_cid)
                                    FROM events WHERE type = 'rseq_update' AND comm = 'python3'""")["rows"]
        assert rows == [[5, True]]  # the main thread and 4 workers, each with an mm_cid
    finally:
        store.close()
