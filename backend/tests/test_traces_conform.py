"""Each real trace in ../traces through `kscope conform`: its agreement may not fall below
the figure recorded in traces/conformance.json when it was added (a regression in the model
or the replay fails here), and the counts that do not depend on the model stay the same."""

import json
from pathlib import Path

import pytest

from kscope import conform

TRACES = Path(__file__).resolve().parents[2] / "traces"
RECORDED = {k: v for k, v in json.loads((TRACES / "conformance.json").read_text()).items()
            if not k.startswith("_")}


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_agreement_not_below_recorded(name: str) -> None:
    want = RECORDED[name]
    doc = conform.run(TRACES / name)
    assert doc["variant"] == want["variant"]
    assert doc["rseq_updates"] == want["rseq_updates"] and doc["switch_gaps"] == want["switch_gaps"]
    assert doc["compared"] >= want["compared"]
    assert round(doc["agreement"], 4) >= want["agreement"], (doc["causes"], doc["first_disagreements"][:3])
    if want["workload_agreement"] is not None:
        assert round(doc["workload"]["agreement"], 4) >= want["workload_agreement"]
    if want.get("known_start_agreement") is not None:
        assert doc["known_start"]["excluded_tgids"]
        assert round(doc["known_start"]["agreement"], 4) >= want["known_start_agreement"]
    # every disagreement carries a cause and a sentence; the counts add up
    assert sum(doc["causes"].values()) == doc["disagree"]
    assert all(d["why"] and d["cause"] in doc["causes"] for d in doc["disagreements"])


def test_every_shipped_capture_is_recorded() -> None:
    captures = {p.name for p in TRACES.iterdir() if p.name.startswith("intermittent") and
                not p.name.endswith(".json")}
    assert captures <= set(RECORDED)


def test_new_captures_lose_no_switch_out_of_the_workload() -> None:
    """Captures since the set_event_pid fix: in every gap left, the switch-out missing is
    another task's, never one of the workload's (on this machine: threads of PID 1, the
    sandbox's agent, whose switch-outs the kernel does not record; traces/README.md)."""
    from kscope import switch_gaps, tgids
    from kscope.ingest import records
    from kscope.ingest.pipeline import read_capture_header

    for name in RECORDED:
        if "-linux6.18.txt.xz" not in name:
            continue
        path = TRACES / name
        items, _ = conform._decode(*_plain(path))
        rec = items.view(records.RECORD)
        mine = set(tgids.header_tasks(read_capture_header(_plain(path)[0])[0]))
        assert mine, name
        old, switch_gaps.MAX_EXAMPLES = switch_gaps.MAX_EXAMPLES, 1_000_000
        try:
            gaps = switch_gaps.switch_gaps(rec)
        finally:
            switch_gaps.MAX_EXAMPLES = old
        assert gaps["switches"] > 1000
        assert not [g for g in gaps["examples"] if g["expected_prev"] in mine], name
        assert gaps["gaps"] <= 0.01 * gaps["switches"], name


_cache: dict[Path, tuple[Path, str]] = {}


def _plain(path: Path) -> tuple[Path, str]:
    """The decompressed file (xz) and its name, cached for the session."""
    if path not in _cache:
        import lzma
        import tempfile

        out = Path(tempfile.mkdtemp(prefix="kscope-test-")) / path.name.removesuffix(".xz")
        out.write_bytes(lzma.decompress(path.read_bytes()))
        _cache[path] = (out, out.name)
    return _cache[path]
