"""Golden tests over ../traces: every real trace ingests to its <file>.expected.json."""

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
    # <file>.expected.json belongs to <file>, stored as is or compressed (<file>.xz).
    name = golden.name.removesuffix(".expected.json")
    trace = next(p for p in (TRACES / name, TRACES / f"{name}.xz", TRACES / f"{name}.gz") if p.is_file())
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


def test_text_and_tracedat_captures_agree_in_kind(tmp_path: Path) -> None:
    """The ftrace text and the trace.dat capture (two runs of the same workload) both hold
    every typed tracepoint the workload triggers."""
    text = json.loads((TRACES / "threads4-linux6.18.txt.expected.json").read_text())
    dat = json.loads((TRACES / "threads4-linux6.18.dat.expected.json").read_text())
    assert set(text["by_type"]) == set(dat["by_type"])
    assert text["kernel"] in dat["kernel"]
