"""Issue 13 item 6: `kscope sim --algo auto` runs the mm_cid model where the workload
registers rseq, so its rseq_updates carry real cids (with `--algo none` every cid is -1,
as on a kernel without the allocator). The export itself is generic: its header and
provenance are tests/test_sim_export_provenance.py."""

import re
from pathlib import Path

import pytest

from test_sim_export_provenance import export

RSEQ = re.compile(rb"rseq_update: cpu_id=\d+ node_id=\d+ mm_cid=(-?\d+)")


def test_seed000_export_carries_real_cids(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc, out = export(tmp_path, capsys)
    assert doc["algo"] == "mm_cid:v6.18" and doc["algo_requested"] == "auto"
    cids = [int(m) for m in RSEQ.findall(out.read_bytes())]
    assert len(cids) == doc["events_by_type"]["rseq_update"] > 8
    assert all(0 <= c < 8 for c in cids), cids[:20]
    # a kernel without the allocator is still there when asked for
    doc, out = export(tmp_path, capsys, "--algo", "none")
    assert doc["algo"] == "none"
    assert set(RSEQ.findall(out.read_bytes())) == {b"-1"}
