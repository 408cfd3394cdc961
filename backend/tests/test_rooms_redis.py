"""Two `kscope serve` processes sharing rooms through a real redis-server (KSCOPE_REDIS_URL)."""

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import websockets

from rooms_support import kscope_servers, redis_server


@pytest.fixture(scope="module")
def two_backends() -> Iterator[list[str]]:
    with redis_server() as url, kscope_servers(2, redis_url=url) as backends:
        yield backends


async def next_of(ws: Any, kind: str, timeout: float = 5) -> dict[str, Any]:
    """The next frame of type `kind` (others skipped)."""
    async with asyncio.timeout(timeout):
        while True:
            frame = json.loads(await ws.recv())
            if frame["type"] == kind:
                return frame


def ws_url(base: str, code: str, query: str) -> str:
    return f"{base.replace('http', 'ws', 1)}/api/rooms/{code}/ws?{query}"


def test_follower_on_one_backend_sees_presenter_on_the_other(two_backends: list[str]) -> None:
    a, b = two_backends
    room = httpx.post(f"{a}/api/rooms", json={"lesson": "demo-lesson"}).json()
    code = room["code"]
    assert httpx.get(f"{b}/api/rooms/{code}").json()["lesson"] == "demo-lesson"  # B knows A's room

    async def scenario() -> None:
        async with websockets.connect(ws_url(a, code, f"role=presenter&token={room['presenter_token']}")) as p, \
                websockets.connect(ws_url(b, code, "role=follower&client=on-b")) as fb, \
                websockets.connect(ws_url(a, code, "role=follower&client=on-a")) as fa:
            await next_of(fb, "welcome")
            await next_of(fa, "welcome")
            await p.send(json.dumps({"type": "hello", "since": 0}))
            followers = await next_of(p, "followers")
            while followers["count"] != 2:  # counts of both processes add up
                followers = await next_of(p, "followers")
            for step in (1, 2, 3):
                await p.send(json.dumps({"type": "state", "state": {"lesson": "demo-lesson", "step": step, "toggles": {}}}))
                on_b, on_a = await next_of(fb, "state"), await next_of(fa, "state")
                assert on_b["seq"] == on_a["seq"] == step and on_b["state"]["step"] == step

            # Quiz answers from followers on both processes reach the presenter's tally on A.
            await p.send(json.dumps({"type": "quiz_open", "quiz": {"id": "s5", "choices": ["0", "1", "2"]}}))
            assert (await next_of(fb, "quiz"))["quiz"]["id"] == "s5"
            await fb.send(json.dumps({"type": "answer", "quiz_id": "s5", "choice": "2"}))
            await fa.send(json.dumps({"type": "answer", "quiz_id": "s5", "choice": "1"}))
            await fb.send(json.dumps({"type": "answer", "quiz_id": "s5", "choice": "1"}))  # B changes its answer
            tally = await next_of(p, "tally")
            while tally["counts"] != {"0": 0, "1": 2, "2": 0}:
                tally = await next_of(p, "tally")
            await p.send(json.dumps({"type": "reveal", "quiz_id": "s5", "answer": "1"}))
            assert await next_of(fb, "reveal") == {"type": "reveal", "quiz_id": "s5", "answer": "1"}

            # A follower on B that can't drive gets an error and stays connected.
            await fb.send(json.dumps({"type": "state", "state": {"step": 99}}))
            assert "only the presenter" in (await next_of(fb, "error"))["message"]

        # Reconnecting to the other process catches up from Redis at once.
        async with websockets.connect(ws_url(a, code, f"role=presenter&token={room['presenter_token']}")) as p, \
                websockets.connect(ws_url(b, code, "role=follower&client=on-b")) as fb:
            await next_of(fb, "welcome")
            await p.send(json.dumps({"type": "state", "state": {"lesson": "demo-lesson", "step": 4, "toggles": {}}}))
            assert (await next_of(fb, "state"))["seq"] == 4
            await fb.send(json.dumps({"type": "hello", "since": 1}))
            caught_up = await next_of(fb, "state")
            assert caught_up["seq"] == 4 and caught_up["state"]["step"] == 4
            await next_of(fb, "quiz")
            assert (await next_of(fb, "reveal"))["answer"] == "1"

    asyncio.run(scenario())


def test_wrong_token_on_the_other_backend_is_refused(two_backends: list[str]) -> None:
    a, b = two_backends
    room = httpx.post(f"{a}/api/rooms", json={"lesson": "demo-lesson"}).json()

    async def scenario() -> None:
        async with websockets.connect(ws_url(b, room["code"], "role=presenter&token=nope")) as ws:
            assert "wrong presenter token" in (await next_of(ws, "error"))["message"]
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await ws.recv()
            assert closed.value.rcvd.code == 4403

    asyncio.run(scenario())


def test_frame_over_the_socket_limit_closes_only_that_socket(two_backends: list[str]) -> None:
    a, _ = two_backends
    room = httpx.post(f"{a}/api/rooms", json={"lesson": "demo-lesson"}).json()

    async def scenario() -> None:
        async with websockets.connect(ws_url(a, room["code"], "role=follower&client=big"), max_size=None) as ws:
            await next_of(ws, "welcome")
            # Over uvicorn's ws_max_size (1 MiB): the server closes with 1009, message too big.
            # It may close while the 2 MiB are still going out: then send() is what raises.
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await ws.send("x" * (2 << 20))
                await ws.recv()
            assert closed.value.rcvd.code == 1009
        assert httpx.get(f"{a}/api/rooms/{room['code']}").status_code == 200  # the server kept serving

    asyncio.run(scenario())


def test_presenter_tokens_never_reach_the_server_log(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import os
    import subprocess
    import time

    from conftest import KSCOPE
    from rooms_support import free_port

    port = free_port()
    log = tmp_path / "serve.log"
    with log.open("w") as err:
        proc = subprocess.Popen([str(KSCOPE), "serve", "--port", str(port)], stdout=subprocess.DEVNULL, stderr=err,
                                env={**os.environ, "KSCOPE_REDIS_URL": ""})
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(200):
            try:
                httpx.get(f"{base}/api/health")
                break
            except httpx.HTTPError:
                time.sleep(0.05)
        room = httpx.post(f"{base}/api/rooms", json={"lesson": "demo-lesson"}).json()

        async def scenario() -> None:
            async with websockets.connect(ws_url(base, room["code"], f"role=presenter&token={room['presenter_token']}")) as p:
                await next_of(p, "welcome")

        asyncio.run(scenario())
        time.sleep(0.3)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    text = log.read_text()
    assert f"/api/rooms/{room['code']}/ws?role=presenter&token=***" in text
    assert room["presenter_token"] not in text
