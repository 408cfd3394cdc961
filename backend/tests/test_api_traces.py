"""/api/traces through FastAPI's TestClient: upload, owner tokens, events (Arrow and JSON),
summary, SQL, progress, delete, and bad uploads answered 4xx while the server keeps serving."""

import gzip
import json
from pathlib import Path

import pyarrow as pa
import pytest
from fastapi.testclient import TestClient

from kscope.api.app import create_app
from kscope.core.config import Settings


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    settings = Settings(data_dir=tmp_path / "data", frontend_dist=tmp_path / "dist", max_upload_bytes=8 << 20)
    with TestClient(create_app(settings)) as c:
        yield c


def upload(client: TestClient, data: bytes, name: str = "t.txt", **params: str):  # type: ignore[no-untyped-def]
    return client.post("/api/traces", params={"name": name, **params}, content=data)


def test_upload_then_read_list_delete(client: TestClient, sim_trace: Path) -> None:
    r = upload(client, sim_trace.read_bytes(), "hb.txt")
    assert r.status_code == 201, r.text
    body = r.json()
    token, tid = body["token"], body["id"]
    assert body["events"] == 32176 and body["cpus"] == 8 and body["format"] == "ftrace"
    auth = {"X-Kscope-Token": token}
    assert client.get(f"/api/traces/{tid}", headers=auth).json()["name"] == "hb.txt"
    assert client.get(f"/api/traces/{tid}").status_code == 404
    assert client.get(f"/api/traces/{tid}", headers={"X-Kscope-Token": "other"}).status_code == 404
    assert [t["id"] for t in client.get("/api/traces", headers=auth).json()] == [tid]
    assert client.get("/api/traces").json() == []
    assert client.delete(f"/api/traces/{tid}", headers={"X-Kscope-Token": "other"}).status_code == 404
    assert client.delete(f"/api/traces/{tid}", headers=auth).status_code == 204
    assert client.get(f"/api/traces/{tid}", headers=auth).status_code == 404


def test_events_arrow_and_json(client: TestClient, sim_trace: Path) -> None:
    body = upload(client, sim_trace.read_bytes()).json()
    auth = {"X-Kscope-Token": body["token"]}
    params = {"t0": 1_000_000, "t1": 1_100_000, "cpus": "0,5", "types": "sched_switch,sched_wakeup"}
    r = client.get(f"/api/traces/{body['id']}/events", params=params, headers=auth)
    assert r.status_code == 200 and r.headers["content-type"] == "application/vnd.apache.arrow.stream"
    table = pa.ipc.open_stream(r.content).read_all()
    assert table.num_rows > 0
    assert set(table["cpu"].to_pylist()) <= {0, 5}
    rows = client.get(f"/api/traces/{body['id']}/events", params={**params, "format": "json"}, headers=auth).json()
    assert len(rows) == table.num_rows and rows[0]["ts_ns"] == table["ts_ns"][0].as_py()
    assert all(r["type"] in ("sched_switch", "sched_wakeup") for r in rows)
    limited = client.get(f"/api/traces/{body['id']}/events", params={"limit": 3, "format": "json"}, headers=auth)
    assert len(limited.json()) == 3


def test_summary_and_sql(client: TestClient, sim_trace: Path) -> None:
    body = upload(client, sim_trace.read_bytes()).json()
    auth = {"X-Kscope-Token": body["token"]}
    s = client.get(f"/api/traces/{body['id']}/summary", params={"buckets": 50}, headers=auth).json()
    assert s["cpus"] == list(range(8)) and all(len(row) == 50 for row in s["occupancy"])
    q = client.post(f"/api/traces/{body['id']}/sql", json={"sql": "SELECT count(*) FROM events"}, headers=auth)
    assert q.status_code == 200 and q.json()["rows"] == [[32176]]
    w = client.post(f"/api/traces/{body['id']}/sql", json={"sql": "DROP VIEW events"}, headers=auth)
    assert w.status_code == 400 and "read-only" in w.json()["detail"]
    assert client.post(f"/api/traces/{body['id']}/sql", json={"sql": "SELECT 1"}).status_code == 404


def test_background_upload_reports_progress(client: TestClient, sim_trace: Path) -> None:
    r = upload(client, gzip.compress(sim_trace.read_bytes()), "hb.txt.gz", background="true")
    assert r.status_code == 202
    body = r.json()
    events = []
    with client.stream("GET", body["progress_url"], params={"token": body["token"]}) as stream:
        for line in stream.iter_lines():
            if line.startswith("data: "):
                events.append(json.loads(line[6:]))
    assert events[-1]["phase"] == "done" and events[-1]["events"] == 32176
    assert client.get(f"/api/traces/{body['id']}", headers={"X-Kscope-Token": body["token"]}).status_code == 200
    assert client.get(body["progress_url"], params={"token": "nope"}).status_code == 404


def test_background_upload_error_in_progress(client: TestClient) -> None:
    body = upload(client, b"\0\0\0garbage", "junk.bin", background="true").json()
    with client.stream("GET", body["progress_url"], headers={"X-Kscope-Token": body["token"]}) as stream:
        last = [json.loads(l[6:]) for l in stream.iter_lines() if l.startswith("data: ")][-1]
    assert last["phase"] == "error" and "junk.bin" in last["error"] and "byte 0" in last["error"]


@pytest.mark.parametrize("data, status, words", [
    (b"\0\1\2\3binary", 415, ["junk", "byte 0", "binary data"]),
    (b"just some words\n", 415, ["junk", "line 1", "not a trace"]),
    (gzip.compress(b"\0" * (16 << 20)), 413, ["junk", "decompression bomb"]),
    (gzip.compress("".join(f"{i} x\n" for i in range(20000)).encode())[:2000], 422,
     ["junk", "byte", "truncated gzip"]),
])
def test_bad_upload_then_good_one(client: TestClient, sim_trace: Path, data: bytes, status: int,
                                  words: list[str]) -> None:
    r = upload(client, data, "junk")
    assert r.status_code == status, r.text
    assert all(w in r.json()["detail"] for w in words), r.json()["detail"]
    ok = upload(client, sim_trace.read_bytes())
    assert ok.status_code == 201 and ok.json()["events"] == 32176
    tmp = Path(client.app.state.settings.data_dir) / "tmp"
    assert list(tmp.iterdir()) == []


def test_oversized_upload_is_413(client: TestClient) -> None:
    r = upload(client, b"x" * ((8 << 20) + 1), "huge.txt")
    assert r.status_code == 413 and "huge.txt" in r.json()["detail"] and "limit" in r.json()["detail"]
    assert client.get("/api/health").status_code == 200
