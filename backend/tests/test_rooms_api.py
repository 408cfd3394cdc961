"""Rooms over HTTP and WebSocket on one process (the memory broker), via TestClient."""

import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from kscope.api.app import create_app
from kscope.core.config import Settings
from kscope.rooms.model import CODE_ALPHABET

STATE = {"lesson": "demo-lesson", "step": 3, "toggles": {"recent_cid": False}}


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings())) as c:
        yield c


def make_client(**overrides: Any) -> TestClient:
    return TestClient(create_app(Settings(**overrides)))


def new_room(client: TestClient) -> dict[str, Any]:
    response = client.post("/api/rooms", json={"lesson": "demo-lesson"})
    assert response.status_code == 201, response.text
    return response.json()


def presenter(client: TestClient, room: dict[str, Any]):  # type: ignore[no-untyped-def]
    return client.websocket_connect(f"/api/rooms/{room['code']}/ws?role=presenter&token={room['presenter_token']}")


def follower(client: TestClient, room: dict[str, Any], cid: str = "f1"):  # type: ignore[no-untyped-def]
    return client.websocket_connect(f"/api/rooms/{room['code']}/ws?role=follower&client={cid}")


def until(ws, kind: str) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """The next frame of type `kind`, skipping others (followers counts, say)."""
    for _ in range(20):
        frame = ws.receive_json()
        if frame["type"] == kind:
            return frame
    raise AssertionError(f"no {kind} frame in 20")


def test_create_and_read(client: TestClient) -> None:
    room = new_room(client)
    code = room["code"]
    assert len(code) == 6 and set(code) <= set(CODE_ALPHABET)
    assert len(room["presenter_token"]) >= 40
    assert room["join_url"] == f"http://testserver/room/{code}"
    assert room["expires_at"] > time.time() * 1000
    public = client.get(f"/api/rooms/{code.lower()}").json()  # typed codes are normalised
    assert public == {"code": code, "lesson": "demo-lesson", "expires_at": room["expires_at"], "followers": 0}
    assert "presenter_token" not in public and "token_hash" not in public


def test_unknown_room_and_bad_lesson(client: TestClient) -> None:
    response = client.get("/api/rooms/AAAAAA")
    assert response.status_code == 404 and "no room AAAAAA" in response.json()["detail"]
    assert client.get("/api/rooms/not-a-code").status_code == 404
    response = client.post("/api/rooms", json={"lesson": "../etc"})
    assert response.status_code == 422 and "lesson '../etc'" in response.json()["detail"]


def test_follower_follows_presenter(client: TestClient) -> None:
    room = new_room(client)
    with presenter(client, room) as p, follower(client, room) as f:
        assert p.receive_json()["type"] == "welcome"
        welcome = f.receive_json()
        assert welcome == {"type": "welcome", "role": "follower", "code": room["code"], "lesson": "demo-lesson",
                           "seq": 0, "expires_at": welcome["expires_at"]}
        assert until(p, "followers")["count"] == 1
        for step in (1, 2, 3):
            p.send_json({"type": "state", "state": {**STATE, "step": step}})
            frame = f.receive_json()
            assert frame["type"] == "state" and frame["seq"] == step and frame["state"]["step"] == step
            assert abs(frame["sent_at_ms"] - time.time() * 1000) < 5000
        assert until(p, "state")["seq"] == 1  # the presenter gets its own states too


def test_late_follower_catches_up_with_hello_since(client: TestClient) -> None:
    room = new_room(client)
    with presenter(client, room) as p:
        p.receive_json()
        for step in range(5):
            p.send_json({"type": "state", "state": {**STATE, "step": step}})
        assert until(p, "state")["seq"] == 1
        with follower(client, room) as f:
            assert f.receive_json()["seq"] == 5  # welcome says where the room is
            f.send_json({"type": "hello", "since": 2})
            frame = f.receive_json()
            assert frame["type"] == "state" and frame["seq"] == 5 and frame["state"]["step"] == 4
            f.send_json({"type": "hello", "since": 5})  # up to date: nothing to send
            f.send_json({"type": "hello"})
            assert f.receive_json()["seq"] == 5


def test_only_the_presenter_drives(client: TestClient) -> None:
    room = new_room(client)
    with presenter(client, room) as p, follower(client, room) as f:
        p.receive_json()
        f.receive_json()
        for frame in ({"type": "state", "state": STATE}, {"type": "quiz_open", "quiz": {"id": "q", "choices": ["a"]}},
                      {"type": "reveal", "quiz_id": "q", "answer": "a"}):
            f.send_json(frame)
            error = f.receive_json()
            assert error["type"] == "error" and f"only the presenter can send '{frame['type']}'" in error["message"]
        p.send_json({"type": "answer", "quiz_id": "q", "choice": "a"})
        assert until(p, "error")["message"] == "only followers send 'answer'"
        p.send_json({"type": "state", "state": STATE})  # the follower's connection was kept
        assert f.receive_json()["seq"] == 1


@pytest.mark.parametrize("query, close_code, text", [
    ("role=presenter&token=wrong", 4403, "wrong presenter token"),
    ("role=presenter", 4403, "wrong presenter token"),
    ("role=teacher", 4400, "role must be presenter or follower"),
    ("role=follower", 4400, "followers need ?client="),
    ("role=follower&client=a%20b", 4400, "followers need ?client="),
])
def test_admission_refusals(client: TestClient, query: str, close_code: int, text: str) -> None:
    room = new_room(client)
    with client.websocket_connect(f"/api/rooms/{room['code']}/ws?{query}") as ws:
        assert text in ws.receive_json()["message"]
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == close_code


def test_unknown_room_socket_is_closed_4404(client: TestClient) -> None:
    with client.websocket_connect("/api/rooms/AAAAAA/ws?role=follower&client=x") as ws:
        assert "no room AAAAAA" in ws.receive_json()["message"]
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 4404


def test_quiz_answers_deduplicated_per_client_and_reveal(client: TestClient) -> None:
    room = new_room(client)
    with presenter(client, room) as p, follower(client, room, "a") as fa, follower(client, room, "b") as fb, \
            follower(client, room, "c") as fc:
        for ws in (p, fa, fb, fc):
            ws.receive_json()
        p.send_json({"type": "quiz_open", "quiz": {"id": "s5-which-cid", "choices": ["0", "1", "2"]}})
        assert until(p, "tally")["counts"] == {"0": 0, "1": 0, "2": 0}
        for ws in (fa, fb, fc):
            assert ws.receive_json() == {"type": "quiz", "quiz": {"id": "s5-which-cid", "choices": ["0", "1", "2"]}}
        fa.send_json({"type": "answer", "quiz_id": "s5-which-cid", "choice": "1"})
        fb.send_json({"type": "answer", "quiz_id": "s5-which-cid", "choice": "1"})
        fc.send_json({"type": "answer", "quiz_id": "s5-which-cid", "choice": "2"})
        fa.send_json({"type": "answer", "quiz_id": "s5-which-cid", "choice": "0"})  # a changes its mind
        tallies = [until(p, "tally")["counts"] for _ in range(4)]
        assert tallies[-1] == {"0": 1, "1": 1, "2": 1}
        fb.send_json({"type": "answer", "quiz_id": "other", "choice": "1"})
        assert "quiz 'other' is not open" in fb.receive_json()["message"]
        fb.send_json({"type": "answer", "quiz_id": "s5-which-cid", "choice": "7"})
        assert "'7' is not a choice" in fb.receive_json()["message"]
        p.send_json({"type": "reveal", "quiz_id": "s5-which-cid", "answer": "2"})
        for ws in (fa, fb, fc):
            assert ws.receive_json() == {"type": "reveal", "quiz_id": "s5-which-cid", "answer": "2"}
        fb.send_json({"type": "answer", "quiz_id": "s5-which-cid", "choice": "2"})
        assert "closed: the answer was revealed" in fb.receive_json()["message"]
        with follower(client, room, "late") as late:  # a reconnecting follower sees quiz and reveal
            late.receive_json()
            late.send_json({"type": "hello", "since": 0})
            assert late.receive_json()["type"] == "quiz"
            assert late.receive_json()["type"] == "reveal"


@pytest.mark.parametrize("frame, text", [
    ("{not json", "message is not JSON"),
    ("[1, 2]", "must be a JSON object"),
    ('{"type": "dance"}', "unknown message type 'dance'"),
    ('{"no": "type"}', "unknown message type None"),
    ('{"type": "hello", "since": -1}', "'since' must be an integer >= 0"),
    ('{"type": "state", "state": 3}', "'state' must be a JSON object"),
    ('{"type": "answer", "quiz_id": "", "choice": "a"}', "field 'quiz_id' must be a non-empty string"),
    ('{"type": "state", "state": {"pad": "' + "x" * 20000 + '"}}', "over the limit of 16384 bytes"),
])
def test_bad_frames_get_an_error_and_the_server_keeps_serving(client: TestClient, frame: str, text: str) -> None:
    room = new_room(client)
    with presenter(client, room) as p, follower(client, room) as f:
        p.receive_json()
        f.receive_json()
        f.send_text(frame)
        error = f.receive_json()
        assert error["type"] == "error" and text in error["message"]
        p.send_text(frame)
        assert text in until(p, "error")["message"]
        p.send_json({"type": "state", "state": STATE})  # both sockets still work
        assert f.receive_json()["seq"] == 1
    assert client.get("/api/health").status_code == 200


def test_binary_frame_is_read_as_text(client: TestClient) -> None:
    room = new_room(client)
    with follower(client, room) as f:
        f.receive_json()
        f.send_bytes(b"\xff\xfe")
        assert "message is not JSON" in f.receive_json()["message"]


def test_rooms_expire_unless_the_presenter_is_active() -> None:
    with make_client(room_ttl_s=0.4, room_sweep_s=0.1) as client:
        idle, presented = new_room(client), new_room(client)
        with presenter(client, presented) as p, follower(client, idle) as f:
            p.receive_json()
            f.receive_json()
            # Past the TTL the sweep (every 0.1 s) drops the idle room; a loaded machine can
            # delay the sweep, so wait for it (bounded), never less than the TTL.
            time.sleep(0.8)
            deadline = time.monotonic() + 15
            while client.get(f"/api/rooms/{idle['code']}").status_code != 404:
                assert time.monotonic() < deadline, "the idle room outlived its TTL by 15 s"
                time.sleep(0.1)
            assert client.get(f"/api/rooms/{presented['code']}").status_code == 200  # kept alive
            assert "expired or never existed" in f.receive_json()["message"]
            with pytest.raises(WebSocketDisconnect) as closed:
                f.receive_json()
            assert closed.value.code == 4404 and closed.value.reason == "room expired"


def test_room_and_follower_caps() -> None:
    with make_client(room_max_rooms=2, room_max_followers=1) as client:
        room = new_room(client)
        new_room(client)
        full = client.post("/api/rooms", json={"lesson": "demo-lesson"})
        assert full.status_code == 503 and "already holds 2 rooms" in full.json()["detail"]
        with follower(client, room, "one") as one, follower(client, room, "two") as two:
            one.receive_json()
            assert "is full: 1 followers" in two.receive_json()["message"]
            with pytest.raises(WebSocketDisconnect) as closed:
                two.receive_json()
            assert closed.value.code == 4429


def test_follower_count_follows_connects_and_disconnects(client: TestClient) -> None:
    room = new_room(client)
    with presenter(client, room) as p:
        p.receive_json()
        with follower(client, room, "a") as fa:
            fa.receive_json()
            assert until(p, "followers")["count"] == 1
            with follower(client, room, "b") as fb:
                fb.receive_json()
                assert until(p, "followers")["count"] == 2
                assert client.get(f"/api/rooms/{room['code']}").json()["followers"] == 2
            assert until(p, "followers")["count"] == 1
        assert until(p, "followers")["count"] == 0


def test_client_frames_are_rate_limited_and_the_socket_kept() -> None:
    with make_client(room_client_rate=1) as client:  # bursts of 2
        room = new_room(client)
        with presenter(client, room) as p, follower(client, room) as f:
            p.receive_json()
            f.receive_json()
            p.send_json({"type": "quiz_open", "quiz": {"id": "q", "choices": ["a", "b"]}})
            assert f.receive_json()["type"] == "quiz"
            for i in range(30):
                f.send_json({"type": "answer", "quiz_id": "q", "choice": "ab"[i % 2]})
            f.send_json({"type": "hello", "since": 99})  # a marker: everything before it was handled
            refused = 0
            for _ in range(40):
                frame = f.receive_json()
                assert frame["type"] == "error" and "too many messages: at most 1 per second" in frame["message"]
                refused += 1
                if refused == 29:
                    break
            assert refused == 29  # 2 of 31 frames fit the burst, 29 were refused
            time.sleep(1.1)  # a token comes back
            p.send_json({"type": "state", "state": STATE})
            assert f.receive_json()["seq"] == 1
