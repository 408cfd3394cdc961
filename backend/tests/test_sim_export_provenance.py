"""Issue 13 item 11: `kscope sim`'s ftrace export says in its header that it is MODELLED,
with the run's workload, seed and the algorithm model "auto" resolved to; ingest keeps that
as the trace's provenance and the API returns it (a real kernel's trace stays MEASURED).
Which model "auto" picks, and what its events carry, is the model's own test
(tests/models/<name>/, e.g. test_sim_auto.py)."""

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from conftest import WORKLOADS, registered_sim_algos
from kscope.api.app import create_app
from kscope.cli import main
from kscope.core.config import Settings
from kscope.ingest.pipeline import read_capture_header
from kscope.ingest.provenance import provenance_of
from kscope.native import ftrace

SEED000 = WORKLOADS / "seed000-8core-200ms.json"


def export(tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[dict, Path]:
    out = tmp_path / "sim.txt"
    assert main(["sim", "--preset", "classroom-8", "--workload", str(SEED000), "--seed", "1",
                 "--until", "2s", "--export", "ftrace", "-o", str(out), "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out), out


def test_export_header_says_modelled_with_workload_and_seed(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    doc, out = export(tmp_path, capsys)
    algo = doc["algo"]
    assert algo in registered_sim_algos()  # "auto" ran a model: the header names it
    head = out.read_bytes().split(b"\n")[:9]
    assert head[:7] == [b"# kscope: source=modelled", b"# kscope: generator=kscope sim",
                        b"# kscope: workload=seed000-8core-200ms", b"# kscope: seed=1",
                        b"# kscope: algo=" + algo.encode(), b"# kscope: preset=classroom-8",
                        b"# kscope: until_ns=2000000000"]
    assert head[7] == b"# tracer: nop"
    meta, _ = read_capture_header(out)
    assert provenance_of(meta) == {"kind": "modelled", "workload": "seed000-8core-200ms", "seed": "1",
                                   "algo": algo, "preset": "classroom-8", "generator": "kscope sim"}
    # the header does not disturb decoding: every event still reads
    assert main(["decode", str(out), "--json"]) == 0
    decoded = json.loads(capsys.readouterr().out)
    assert decoded["malformed_lines"] == 0 and decoded["events"] > 40


def test_header_lines_are_one_line_each() -> None:
    assert ftrace.meta_lines({"seed": "1"}) == b"# kscope: seed=1\n"
    with pytest.raises(ValueError, match="one `# kscope:` line"):
        ftrace.meta_lines({"workload": "a\nsched_switch: fake"})
    with pytest.raises(ValueError):
        ftrace.meta_lines({"bad key": "x"})


def test_provenance_is_measured_unless_the_header_says_modelled() -> None:
    assert provenance_of(None) == {"kind": "measured"}
    assert provenance_of({"kernel": "6.18.0", "capture": "1"}) == {"kind": "measured"}
    assert provenance_of({"source": "measured"}) == {"kind": "measured"}
    assert provenance_of({"source": "Modelled", "seed": "3"}) == {"kind": "modelled", "seed": "3"}


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    settings = Settings(data_dir=tmp_path / "data", frontend_dist=tmp_path / "dist", max_upload_bytes=8 << 20)
    with TestClient(create_app(settings)) as c:
        yield c


def test_stored_export_is_modelled_in_the_api(client: TestClient, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    doc, out = export(tmp_path, capsys)
    r = client.post("/api/traces", params={"name": "sim.txt"}, content=out.read_bytes())
    assert r.status_code == 201, r.text
    body = r.json()
    want = {"kind": "modelled", "workload": "seed000-8core-200ms", "seed": "1", "algo": doc["algo"],
            "preset": "classroom-8", "generator": "kscope sim"}
    assert body["provenance"] == want
    auth = {"X-Kscope-Token": body["token"]}
    assert client.get(f"/api/traces/{body['id']}", headers=auth).json()["provenance"] == want
    assert client.get("/api/traces", headers=auth).json()[0]["provenance"] == want
    assert body["events"] > 40 and body["malformed_lines"] == 0


def test_a_real_kernels_trace_stays_measured(client: TestClient, sim_trace: Path, tmp_path: Path) -> None:
    # the same events under a kscope capture header (no source=): a real kernel's, MEASURED
    text = sim_trace.read_bytes()
    body = text[text.index(b"# tracer:"):]
    real = tmp_path / "capture.txt"
    real.write_bytes(b"# kscope: capture=1\n# kscope: kernel=6.18.0-test\n" + body)
    r = client.post("/api/traces", params={"name": "capture.txt"}, content=real.read_bytes())
    assert r.status_code == 201, r.text
    assert r.json()["provenance"] == {"kind": "measured", "workload": None, "seed": None, "algo": None,
                                      "preset": None, "generator": None}
    assert r.json()["kernel"] == "6.18.0-test"
