"""Every format of the registry, on the public corpus (../shared/corpus/public, third-party
files): detected from content, decoded by the C core, stored; counts as MANIFEST.md gives."""

from pathlib import Path

import pytest

from conftest import CORPUS
from kscope.core.config import Settings
from kscope.ingest import formats
from kscope.ingest.pipeline import ingest
from kscope.ingest.sources import InputError
from kscope.store.store import TraceStore

# file: (format, events, by_type subset)
CASES = {
    "trace-dat__lisa__sched_load.dat": ("trace.dat", 3724, {"sched_switch": 399, "sched_migrate_task": 28,
                                                            "sched_load_cfs_rq": 2437, "cpu_idle": 474}),
    "trace-dat__gpuvis__amdgpu_trace.zip": ("trace.dat", 53507, {"sched_switch": 43806, "print": 6027}),
    "trace-cmd-report__lisa__trace_txt.txt": ("ftrace", 2941, {"sched_switch": 1856, "sched_wakeup": 1068}),
    "atrace-text__catapult__decompressed_atrace_data.txt": ("ftrace", 1042, {"tracing_mark_write": 1042}),
    "systrace-html__trappy__trace_surfaceflinger.html": ("systrace", None, {"sched_switch": 715,
                                                                            "cpu_idle": 621}),
    "perf-script__speedscope__system-wide.linux-perf.txt": ("perf", 556, {}),
    "perf-script__firefox-profiler__graphviz.perf.gz": ("perf", 312, {}),
}


@pytest.fixture
def store(tmp_path: Path) -> TraceStore:
    s = TraceStore(Settings(data_dir=tmp_path / "data"))
    yield s
    s.close()


def corpus_file(name: str) -> Path:
    path = CORPUS / name
    if not path.is_file():
        pytest.skip(f"corpus file {path} not present")
    return path


@pytest.mark.parametrize("name", sorted(CASES))
def test_corpus_file_ingests(store: TraceStore, name: str) -> None:
    fmt, events, some = CASES[name]
    if fmt not in formats.names():
        pytest.skip(f"the loaded C core has no {fmt} decoder")
    doc = ingest(store, corpus_file(name)).record.summary
    assert doc["format"] == fmt
    if events is not None:
        assert doc["events"] == events
    assert {k: doc["by_type"].get(k) for k in some} == some


def test_perf_report_is_refused_with_advice(store: TraceStore) -> None:
    with pytest.raises(InputError, match="perf script"):
        ingest(store, corpus_file("perf-report__tidesdb__perf_report.txt"))
    assert store.list_traces() == []


def test_truncated_tracedat_names_the_byte(store: TraceStore, tmp_path: Path) -> None:
    if "trace.dat" not in formats.names():
        pytest.skip("the loaded C core has no trace.dat decoder")
    data = corpus_file("trace-dat__lisa__sched_load.dat").read_bytes()
    cut = tmp_path / "cut.dat"
    cut.write_bytes(data[:5000])  # inside the header's format files
    with pytest.raises(InputError) as info:
        ingest(store, cut)
    assert "cut.dat: byte " in str(info.value)
    assert store.list_traces() == [] and list((store.root / "tmp").iterdir()) == []
