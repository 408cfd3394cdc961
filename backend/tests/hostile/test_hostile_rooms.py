"""Issue 20, finding 6: rooms could be exhausted by one client.

- one client created 996 rooms in 2.4 s, after which POST /api/rooms answered 503 for
  everyone for 4 hours;
- one client opened 500 follower sockets with made-up client ids and filled a room;
- one client cast 200 quiz votes (a vote per self-declared client id).

Now: rooms per client address per window and alive at once (429 with Retry-After), rooms
nobody presents in expire after room_unpresented_ttl_s, followers per address per room,
one vote per open socket. The broker rules run on both brokers (memory and a private
redis-server); the HTTP/WebSocket ones on real `kscope serve` processes on loopback
(a second client address is 127.0.0.2, which loopback also answers)."""

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from kscope.core.config import Settings
from kscope.rooms.model import RoomsFull, RoomsRateLimited
from .hostile_support import Server, Watch, start_server



async def started(settings: Settings) -> Any:
    from kscope.rooms.broker import make_broker

    broker = make_broker(settings)
    events: list[tuple[str, str, dict[str, Any]]] = []
    await broker.start(lambda code, to, msg: events.append((code, to, msg)))
    if settings.redis_url:
        await broker._redis.flushdb()
    broker.events = events
    return broker


def test_creation_per_address_in_a_window(settings_for) -> None:  # type: ignore[no-untyped-def]
    async def scenario() -> None:
        broker = await started(settings_for(room_create_per_address=3, room_create_window_s=60,
                                            room_max_rooms_per_address=100))
        for _ in range(3):
            await broker.create("demo-lesson", "10.0.0.1")
        t0 = time.time()
        with pytest.raises(RoomsRateLimited, match=r"10\.0\.0\.1 made 3 rooms in the last 60 s") as info:
            await broker.create("demo-lesson", "10.0.0.1")
        assert 58 <= info.value.retry_after_s <= 60 + (time.time() - t0)
        await broker.create("demo-lesson", "10.0.0.2")  # another client is not held back
        await broker.close()
    asyncio.run(scenario())


def test_live_rooms_per_address(settings_for) -> None:  # type: ignore[no-untyped-def]
    async def scenario() -> None:
        broker = await started(settings_for(room_create_per_address=100, room_max_rooms_per_address=2,
                                            room_unpresented_ttl_s=0.4))
        await broker.create("a", "10.0.0.1")
        await broker.create("b", "10.0.0.1")
        with pytest.raises(RoomsRateLimited, match="already has 2 open rooms") as info:
            await broker.create("c", "10.0.0.1")
        assert info.value.retry_after_s == 1.0  # never less than a second
        await asyncio.sleep(0.5)  # both expire unpresented: room for new ones
        await broker.create("d", "10.0.0.1")
        await broker.close()
    asyncio.run(scenario())


def test_rooms_nobody_presents_in_expire_early(settings_for) -> None:  # type: ignore[no-untyped-def]
    async def scenario() -> None:
        broker = await started(settings_for(room_unpresented_ttl_s=0.3, room_ttl_s=30))
        idle, _ = await broker.create("demo-lesson", "10.0.0.1")
        used, _ = await broker.create("demo-lesson", "10.0.0.1")
        assert idle.expires_ms - idle.created_ms == 300
        await broker.touch(used.code)  # a presenter connected
        await asyncio.sleep(0.4)
        assert await broker.get(idle.code) is None
        room = await broker.get(used.code)
        assert room is not None and room.expires_ms - int(time.time() * 1000) > 25_000
        await broker.close()
    asyncio.run(scenario())


def test_global_cap_is_freed_by_unpresented_expiry(settings_for) -> None:  # type: ignore[no-untyped-def]
    """The 996-rooms attack, in small: many addresses fill the cap; the rooms nobody presents in
    go after room_unpresented_ttl_s instead of holding the server for room_ttl_s (4 h)."""
    async def scenario() -> None:
        broker = await started(settings_for(room_max_rooms=5, room_unpresented_ttl_s=0.3, room_ttl_s=4 * 3600))
        for i in range(5):
            await broker.create("demo-lesson", f"10.0.1.{i}")
        with pytest.raises(RoomsFull):
            await broker.create("demo-lesson", "10.0.2.1")
        await asyncio.sleep(0.4)
        await broker.create("demo-lesson", "10.0.2.1")
        await broker.close()
    asyncio.run(scenario())


def test_a_closed_socket_vote_is_withdrawn(settings_for) -> None:  # type: ignore[no-untyped-def]
    async def scenario() -> None:
        broker = await started(settings_for())
        room, _ = await broker.create("demo-lesson", "10.0.0.1")
        await broker.open_quiz(room.code, {"id": "q1", "choices": ["a", "b"]})
        await broker.answer(room.code, "conn-1", "q1", "a")
        await broker.answer(room.code, "conn-2", "q1", "b")
        await broker.withdraw(room.code, "conn-1")
        await broker.withdraw(room.code, "conn-1")  # twice: harmless
        await broker.withdraw(room.code, "never-voted")
        assert (await broker.get(room.code)).tally() == {"a": 0, "b": 1}
        for _ in range(200):
            tallies = [m for _, _, m in broker.events if m["type"] == "tally"]
            if tallies and tallies[-1]["counts"] == {"a": 0, "b": 1}:
                break
            await asyncio.sleep(0.01)
        assert tallies[-1] == {"type": "tally", "quiz_id": "q1", "counts": {"a": 0, "b": 1}}
        await broker.close()
    asyncio.run(scenario())


# --- the same attacks against a real server -----------------------------------------------------

def _client(address: str = "127.0.0.1") -> httpx.Client:
    return httpx.Client(transport=httpx.HTTPTransport(local_address=address), timeout=10)


@pytest.fixture(params=["memory", "redis"])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Server]:
    env = {"room_create_per_address": "10", "room_max_followers_per_address": "5"}
    if request.param == "redis":
        url = request.getfixturevalue("redis_url")
        import redis

        redis.Redis.from_url(url).flushdb()
        env["redis_url"] = url
    s = start_server(tmp_path, **env)
    try:
        yield s
    finally:
        s.stop()


def test_room_flood_gets_429_with_retry_after_and_others_still_create(server: Server) -> None:
    with Watch(server) as watch, _client() as c:
        answers = [c.post(f"{server.url}/api/rooms", json={"lesson": "demo-lesson"}) for _ in range(200)]
    assert not watch.failures and watch.health_max_s < 0.5, watch.report()
    server = server.url
    codes = [r.status_code for r in answers]
    assert codes[:10] == [201] * 10 and set(codes[10:]) == {429}, codes
    refused = answers[10]
    retry = int(refused.headers["retry-after"])
    assert 500 <= retry <= 600, refused.headers
    assert "127.0.0.1 made 10 rooms" in refused.json()["detail"]
    assert "KSCOPE_ROOM_CREATE_PER_ADDRESS" in refused.json()["detail"]
    with _client("127.0.0.2") as other:  # everyone else is served
        assert other.post(f"{server}/api/rooms", json={"lesson": "demo-lesson"}).status_code == 201


def _ws(base: str, code: str, query: str) -> str:
    return base.replace("http://", "ws://") + f"/api/rooms/{code}/ws?{query}"


async def _next(ws: Any, kind: str, timeout: float = 5) -> dict[str, Any]:
    async def read() -> dict[str, Any]:
        while True:
            frame = json.loads(await ws.recv())
            if frame["type"] == kind:
                return frame
    return await asyncio.wait_for(read(), timeout)


def test_made_up_followers_from_one_address_cannot_fill_a_room(server: Server) -> None:
    server = server.url
    with _client() as c:
        room = c.post(f"{server}/api/rooms", json={"lesson": "demo-lesson"}).json()
    code = room["code"]

    async def scenario() -> None:
        held, refused = [], []
        for i in range(20):
            ws = await websockets.connect(_ws(server, code, f"role=follower&client=fake-{i}"))
            first = json.loads(await ws.recv())
            if first["type"] == "welcome":
                held.append(ws)
            else:
                refused.append(first["message"])
                with pytest.raises(websockets.ConnectionClosed) as info:
                    await ws.recv()
                assert info.value.rcvd.code == 4429
        assert len(held) == 5 and len(refused) == 15
        assert "127.0.0.1 already has 5 followers in room" in refused[0], refused[0]
        # A student at another address still gets in.
        async with websockets.connect(_ws(server, code, "role=follower&client=student"),
                                      local_addr=("127.0.0.2", 0)) as ws:
            assert json.loads(await ws.recv())["type"] == "welcome"
        for ws in held:
            await ws.close()
    asyncio.run(scenario())


def test_one_vote_per_socket_not_per_claimed_id(server: Server) -> None:
    """The 200-votes attack: connect with a made-up id, vote, leave, again and again. Before,
    each id's vote stayed; now a vote lasts as long as its socket."""
    server = server.url
    with _client() as c:
        room = c.post(f"{server}/api/rooms", json={"lesson": "demo-lesson"}).json()
    code, token = room["code"], room["presenter_token"]

    async def scenario() -> None:
        async with websockets.connect(_ws(server, code, f"role=presenter&token={token}")) as p:
            await _next(p, "welcome")
            await p.send(json.dumps({"type": "quiz_open", "quiz": {"id": "q1", "choices": ["a", "b"]}}))
            await _next(p, "tally")
            for i in range(30):
                async with websockets.connect(_ws(server, code, f"role=follower&client=voter-{i}")) as f:
                    await f.send(json.dumps({"type": "hello", "since": 0}))
                    await _next(f, "quiz")
                    for _ in range(3):  # the same socket answering again replaces its vote
                        await f.send(json.dumps({"type": "answer", "quiz_id": "q1", "choice": "a"}))
                    await _next(p, "tally")
            async with websockets.connect(_ws(server, code, "role=follower&client=honest")) as f:
                await f.send(json.dumps({"type": "hello", "since": 0}))
                await _next(f, "quiz")
                await f.send(json.dumps({"type": "answer", "quiz_id": "q1", "choice": "b"}))
                deadline = time.monotonic() + 5
                while time.monotonic() < deadline:
                    tally = await _next(p, "tally")
                    if tally["counts"] == {"a": 0, "b": 1}:
                        break
                assert tally["counts"] == {"a": 0, "b": 1}, tally
    asyncio.run(scenario())
