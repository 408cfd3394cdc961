"""GET /api/traces/{id}/conform: computed from the stored events, the same figures as
`kscope conform FILE`; owner token (404 otherwise), 422 without rseq_update or switches."""

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from conftest import REPO
from kscope import conform
from kscope.api.app import create_app
from kscope.core.config import Settings

TRACES = REPO / "traces"
VM = TRACES / "intermittent8-linux6.12-vm16.txt"
KEYS = {"kernel", "variant", "rseq_updates", "agree", "agreement", "first_disagreements", "disagreements",
        "disagreements_truncated", "causes", "notes"}


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    settings = Settings(data_dir=tmp_path / "data", frontend_dist=tmp_path / "dist", max_upload_bytes=8 << 20)
    with TestClient(create_app(settings)) as c:
        yield c


def upload(client: TestClient, path: Path, data: bytes | None = None) -> tuple[str, dict[str, str]]:
    r = client.post("/api/traces", params={"name": path.name}, content=data if data is not None else path.read_bytes())
    assert r.status_code == 201, r.text
    return r.json()["id"], {"X-Kscope-Token": r.json()["token"]}


def test_shape_and_same_figures_as_the_cli(client: TestClient) -> None:
    tid, auth = upload(client, VM)
    r = client.get(f"/api/traces/{tid}/conform", params={"algo": "mm_cid"}, headers=auth)
    assert r.status_code == 200, r.text
    doc = r.json()
    assert KEYS <= set(doc)
    cli = conform.run(VM)
    assert doc["variant"] == "v6.12" and doc["kernel"].startswith("6.12.")
    for key in ("rseq_updates", "compared", "agree", "disagree", "causes", "switch_gaps"):
        assert doc[key] == cli[key], key
    assert doc["agreement"] == pytest.approx(cli["agreement"])
    assert 0 < doc["agreement"] < 1 and doc["agree"] + doc["disagree"] == doc["compared"]
    assert len(doc["disagreements"]) == doc["disagree"] and not doc["disagreements_truncated"]
    assert doc["first_disagreements"] == doc["disagreements"][:20]
    ts = [d["ts"] for d in doc["disagreements"]]
    assert ts == sorted(ts) and all(isinstance(t, int) for t in ts)  # ns, time order
    for d in doc["disagreements"]:
        assert {"ts", "tid", "cpu", "kernel_cid", "model_cid", "why", "cause"} <= set(d)
        assert d["kernel_cid"] != d["model_cid"] and d["why"]
        assert d["cause"] in doc["causes"]
    assert sum(doc["causes"].values()) == doc["disagree"]
    assert any("switch gaps" in n for n in doc["notes"])  # this old capture was filtered by pid


def test_variant_and_resync_options(client: TestClient) -> None:
    tid, auth = upload(client, VM)
    v613 = client.get(f"/api/traces/{tid}/conform", params={"variant": "v6.13"}, headers=auth).json()
    auto = client.get(f"/api/traces/{tid}/conform", headers=auth).json()
    assert v613["variant"] == "v6.13" and v613["agreement"] < auto["agreement"]  # a 6.12 kernel
    resync = client.get(f"/api/traces/{tid}/conform", params={"resync": 1}, headers=auth).json()
    assert resync["resync"] is True and 0 < resync["resyncs"] <= resync["disagree"]
    assert resync["agreement"] > auto["agreement"]


def test_owner_token_404(client: TestClient) -> None:
    tid, _ = upload(client, VM)
    assert client.get(f"/api/traces/{tid}/conform").status_code == 404
    assert client.get(f"/api/traces/{tid}/conform", headers={"X-Kscope-Token": "other"}).status_code == 404
    assert client.get("/api/traces/nosuch/conform", headers={"X-Kscope-Token": "x"}).status_code == 404


def test_422_without_rseq_or_switches_and_bad_params(client: TestClient, tmp_path: Path) -> None:
    lines = VM.read_text().splitlines(keepends=True)
    no_rseq = "".join(line for line in lines if "rseq_update:" not in line)
    tid, auth = upload(client, tmp_path / "norseq.txt", no_rseq.encode())
    r = client.get(f"/api/traces/{tid}/conform", headers=auth)
    assert r.status_code == 422 and "rseq_update" in r.json()["detail"]
    no_switch = "".join(line for line in lines if "sched_switch:" not in line)
    tid, auth = upload(client, tmp_path / "noswitch.txt", no_switch.encode())
    r = client.get(f"/api/traces/{tid}/conform", headers=auth)
    assert r.status_code == 422 and "sched_switch" in r.json()["detail"]
    assert client.get(f"/api/traces/{tid}/conform", params={"variant": "v5.0"}, headers=auth).status_code == 422
    assert client.get(f"/api/traces/{tid}/conform", params={"algo": "cpupri"}, headers=auth).status_code == 422
    # the server keeps serving
    assert client.get(f"/api/traces/{tid}", headers=auth).status_code == 200


def test_a_stored_trace_without_tgids_gets_them_inferred(client: TestClient) -> None:
    """trace.dat has no TGID column: the stored events have tgid -1, and the replay infers
    each task's process (tgids.py) and says so."""
    dat = TRACES / "threads4-linux6.18.dat.xz"
    tid, auth = upload(client, dat)
    doc = client.get(f"/api/traces/{tid}/conform", headers=auth).json()
    cli = conform.run(dat)
    assert doc["tgid"] == cli["tgid"] and doc["tgid"]["from_fork"] >= 4
    assert doc["compared"] == doc["rseq_updates"] == cli["rseq_updates"] > 1000
    assert doc["agree"] == cli["agree"]
    assert any("no TGID column" in n for n in doc["notes"])
