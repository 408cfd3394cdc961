"""Read-only share tokens (/api/traces/{id}/share, `kscope share`): created and revoked by the
trace's owner, they open the trace's read routes and nothing else, for that trace only, and a
revoked one stops working on the next request. On SQLite and a real PostgreSQL."""

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from kscope.api.app import create_app
from kscope.cli import main
from kscope.core.config import Settings, get_settings

PRIVATE = "private to the browser that uploaded it"


@pytest.fixture(params=["sqlite", "postgresql"])
def client(request: pytest.FixtureRequest, tmp_path: Path) -> TestClient:
    url = request.getfixturevalue("postgres_url") if request.param == "postgresql" else ""
    settings = Settings(data_dir=tmp_path / "data", frontend_dist=tmp_path / "dist", database_url=url)
    with TestClient(create_app(settings)) as c:
        yield c
        store = c.app.state.store
        if url and store is not None:  # one database for the session: leave it empty
            for rec in store.list_traces():
                store.delete(rec.id)


def _upload(client: TestClient, data: bytes, name: str, token: str | None = None) -> tuple[str, dict[str, str]]:
    headers = {"X-Kscope-Token": token} if token else {}
    r = client.post("/api/traces", params={"name": name}, content=data, headers=headers)
    assert r.status_code == 201, r.text
    return r.json()["id"], {"X-Kscope-Token": r.json()["token"]}


def _reads(client: TestClient, tid: str, headers: dict[str, str]) -> list[int]:
    """The status of every read route of the trace with these headers."""
    return [
        client.get(f"/api/traces/{tid}", headers=headers).status_code,
        client.get(f"/api/traces/{tid}/events", params={"limit": 5, "format": "json"}, headers=headers).status_code,
        client.get(f"/api/traces/{tid}/summary", params={"buckets": 10}, headers=headers).status_code,
        client.post(f"/api/traces/{tid}/sql", json={"sql": "SELECT count(*) FROM events"}, headers=headers).status_code,
        client.get(f"/api/traces/{tid}/topology", headers=headers).status_code,
    ]


def test_create_use_revoke(client: TestClient, sim_trace: Path) -> None:
    tid, owner = _upload(client, sim_trace.read_bytes(), "hb.txt")
    assert _reads(client, tid, {}) == [404] * 5
    assert client.get(f"/api/traces/{tid}/share", headers=owner).json() == {"trace_id": tid, "shared": False,
                                                                            "created_at": None}
    r = client.post(f"/api/traces/{tid}/share", headers=owner)
    assert r.status_code == 201, r.text
    share = r.json()["share"]
    assert r.json()["url"] == f"/traces?trace={tid}&share={share}"
    assert client.get(f"/api/traces/{tid}/share", headers=owner).json()["shared"] is True
    reader = {"X-Kscope-Share": share}
    assert _reads(client, tid, reader) == [200, 200, 200, 200, 204]
    assert client.get(f"/api/traces/{tid}", headers=reader).json()["name"] == "hb.txt"
    assert client.post(f"/api/traces/{tid}/sql", json={"sql": "SELECT count(*) FROM events"},
                       headers=reader).json()["rows"] == [[32176]]
    # The model check is a read too: the shared view can run it.
    assert client.get(f"/api/traces/{tid}/conform", headers=reader).status_code == 200
    # Revocation takes effect on the very next request, with the message that says why and what to do.
    assert client.delete(f"/api/traces/{tid}/share", headers=owner).status_code == 204
    assert _reads(client, tid, reader) == [404] * 5
    detail = client.get(f"/api/traces/{tid}", headers=reader).json()["detail"]
    assert f"no trace '{tid}'" in detail and PRIVATE in detail and "share link" in detail
    assert client.get(f"/api/traces/{tid}/conform", headers=reader).status_code == 404
    # The owner still reads it.
    assert _reads(client, tid, owner) == [200, 200, 200, 200, 204]


def test_share_token_is_read_only(client: TestClient, sim_trace: Path) -> None:
    tid, owner = _upload(client, sim_trace.read_bytes(), "hb.txt")
    share = client.post(f"/api/traces/{tid}/share", headers=owner).json()["share"]
    for headers in ({"X-Kscope-Share": share}, {"X-Kscope-Token": share}):
        assert client.delete(f"/api/traces/{tid}", headers=headers).status_code == 404
        assert client.post(f"/api/traces/{tid}/share", headers=headers).status_code == 404
        assert client.delete(f"/api/traces/{tid}/share", headers=headers).status_code == 404
        assert client.get(f"/api/traces/{tid}/share", headers=headers).status_code == 404
        assert client.get("/api/traces", headers=headers).json() == []
    # Nothing changed: the trace and its share both still work.
    assert client.get(f"/api/traces/{tid}", headers=owner).status_code == 200
    assert client.get(f"/api/traces/{tid}", headers={"X-Kscope-Share": share}).status_code == 200
    # An upload with a share token as the owner token makes a new owner, it does not reach this trace.
    other, other_owner = _upload(client, sim_trace.read_bytes(), "mine.txt", token=share)
    assert [t["id"] for t in client.get("/api/traces", headers=owner).json()] == [tid]
    assert client.get(f"/api/traces/{tid}", headers=other_owner).status_code == 404


def test_cross_trace_isolation_and_replacement(client: TestClient, sim_trace: Path) -> None:
    a, owner = _upload(client, sim_trace.read_bytes(), "a.txt")
    b, _ = _upload(client, sim_trace.read_bytes(), "b.txt", token=owner["X-Kscope-Token"])
    share_a = client.post(f"/api/traces/{a}/share", headers=owner).json()["share"]
    # A's share opens A only, even for the same owner's other trace.
    assert _reads(client, b, {"X-Kscope-Share": share_a}) == [404] * 5
    share_b = client.post(f"/api/traces/{b}/share", headers=owner).json()["share"]
    assert _reads(client, a, {"X-Kscope-Share": share_b}) == [404] * 5
    assert _reads(client, b, {"X-Kscope-Share": share_b})[0] == 200
    # A new share of A replaces the old one at once.
    new_a = client.post(f"/api/traces/{a}/share", headers=owner).json()["share"]
    assert new_a != share_a
    assert client.get(f"/api/traces/{a}", headers={"X-Kscope-Share": share_a}).status_code == 404
    assert client.get(f"/api/traces/{a}", headers={"X-Kscope-Share": new_a}).status_code == 200
    # Deleting a trace ends its share; the other trace's share is untouched.
    assert client.delete(f"/api/traces/{a}", headers=owner).status_code == 204
    assert client.get(f"/api/traces/{a}", headers={"X-Kscope-Share": new_a}).status_code == 404
    assert client.app.state.store.meta.share_of(a) is None
    assert client.get(f"/api/traces/{b}", headers={"X-Kscope-Share": share_b}).status_code == 200


def test_cli_share_create_status_revoke(sim_trace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("KSCOPE_DATA_DIR", str(tmp_path / "data"))
    get_settings.cache_clear()
    try:
        assert main(["ingest", str(sim_trace), "--json"]) == 0
        tid = json.loads(capsys.readouterr().out)["trace_id"]
        assert main(["share", "status", tid]) == 0
        assert capsys.readouterr().out.strip() == "not shared"
        assert main(["share", "create", tid, "--base", "http://127.0.0.1:8000/", "--json"]) == 0
        doc = json.loads(capsys.readouterr().out)
        assert doc["url"] == f"http://127.0.0.1:8000/traces?trace={tid}&share={doc['share']}"
        settings = Settings(data_dir=tmp_path / "data", frontend_dist=tmp_path / "dist")
        with TestClient(create_app(settings)) as c:
            assert c.get(f"/api/traces/{tid}", headers={"X-Kscope-Share": doc["share"]}).status_code == 200
            assert main(["share", "status", tid, "--json"]) == 0
            assert json.loads(capsys.readouterr().out)["shared"] is True
            assert main(["share", "revoke", tid]) == 0
            assert "revoked" in capsys.readouterr().out
            assert c.get(f"/api/traces/{tid}", headers={"X-Kscope-Share": doc["share"]}).status_code == 404
        assert main(["share", "create", "0123456789abcdef"]) == 2
        assert "no trace" in capsys.readouterr().err
    finally:
        get_settings.cache_clear()


def test_share_readers_have_their_own_gate_slots(client: TestClient, sim_trace: Path) -> None:
    """The heavy reads' per-token cap counts a share-link reader apart from the owner: a
    class reading a shared trace cannot use up its owner's SQL, events or export slots,
    nor the owner theirs (before, every share reader was counted as the owner)."""
    from kscope.api.deps import gates_of
    from kscope.api.routes.traces import gate_key
    from kscope.store.store import hash_token

    tid, owner = _upload(client, sim_trace.read_bytes(), "hb.txt")
    share = {"X-Kscope-Share": client.post(f"/api/traces/{tid}/share", headers=owner).json()["share"]}
    gates = gates_of(client.app.state)
    sql = lambda h: client.post(f"/api/traces/{tid}/sql", json={"sql": "SELECT count(*) FROM events"},
                                headers=h).status_code
    events = lambda h: client.get(f"/api/traces/{tid}/events", params={"limit": 5}, headers=h).status_code
    export = lambda h: client.get(f"/api/traces/{tid}/export", params={"format": "ftrace"}, headers=h).status_code

    def fill(key: str) -> None:
        for gate in (gates.sql, gates.events):
            for _ in range(gate.per_token):
                gate._admit(key)

    def empty(key: str) -> None:
        for gate in (gates.sql, gates.events):
            for _ in range(gate.per_token):
                gate._release(key)

    owner_key = hash_token(owner["X-Kscope-Token"])
    fill(owner_key)
    try:
        assert [sql(owner), events(owner), export(owner)] == [429] * 3
        assert [sql(share), events(share), export(share)] == [200] * 3
    finally:
        empty(owner_key)
    class _Req:  # the TestClient's client address, as the route sees it
        client = type("C", (), {"host": "testclient"})()
    share_key = gate_key(_Req(), None, share["X-Kscope-Share"])
    assert share_key != owner_key and share_key.startswith("share:")
    fill(share_key)
    try:
        assert [sql(share), events(share), export(share)] == [429] * 3
        assert [sql(owner), events(owner), export(owner)] == [200] * 3
    finally:
        empty(share_key)
