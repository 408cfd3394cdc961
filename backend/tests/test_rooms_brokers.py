"""The broker contract, run on both brokers: the memory one and Redis (a private redis-server)."""

import asyncio
import time

from typing import Any

import pytest

from kscope.core.config import Settings
from kscope.rooms.model import QuizRefused, RoomNotFound, RoomsFull

Events = list[tuple[str, str, dict[str, Any]]]



async def started(settings: Settings) -> tuple[Any, Events]:
    from kscope.rooms.broker import make_broker

    broker = make_broker(settings)
    events: Events = []
    await broker.start(lambda code, to, msg: events.append((code, to, msg)))
    if settings.redis_url:  # start from an empty Redis
        await broker._redis.flushdb()
    return broker, events


async def settle(events: Events, count: int) -> None:
    """Pub/sub is asynchronous: wait (at most 2 s) until `count` events arrived."""
    for _ in range(200):
        if len(events) >= count:
            return
        await asyncio.sleep(0.01)


def test_state_seq_and_catch_up_record(settings_for) -> None:  # type: ignore[no-untyped-def]
    async def scenario() -> None:
        broker, events = await started(settings_for())
        room, token = await broker.create("demo-lesson")
        assert (await broker.get(room.code)).seq == 0
        for step in range(3):
            assert await broker.publish_state(room.code, {"lesson": "demo-lesson", "step": step, "x": 0.25}) == step + 1
        await settle(events, 3)
        assert [(to, m["seq"], m["state"]["step"]) for _, to, m in events] == [("all", 1, 0), ("all", 2, 1),
                                                                               ("all", 3, 2)]
        assert all(code == room.code for code, _, _ in events)
        record = await broker.get(room.code)
        assert record.seq == 3 and record.state == {"lesson": "demo-lesson", "step": 2, "x": 0.25}
        assert record.sent_at_ms == events[-1][2]["sent_at_ms"] and record.lesson == "demo-lesson"
        await broker.close()
    asyncio.run(scenario())


def test_quiz_dedup_tally_reveal(settings_for) -> None:  # type: ignore[no-untyped-def]
    async def scenario() -> None:
        broker, events = await started(settings_for())
        room, _ = await broker.create("demo-lesson")
        await broker.open_quiz(room.code, {"id": "q1", "choices": ["cid 0", "cid 1"]})
        await broker.answer(room.code, "a", "q1", "cid 1")
        await broker.answer(room.code, "b", "q1", "cid 1")
        await broker.answer(room.code, "a", "q1", "cid 0")  # a changed its answer
        with pytest.raises(QuizRefused, match="not a choice"):
            await broker.answer(room.code, "c", "q1", "cid 9")
        with pytest.raises(QuizRefused, match="'q2' is not open"):
            await broker.answer(room.code, "c", "q2", "cid 0")
        await broker.reveal(room.code, "q1", "cid 0")
        with pytest.raises(QuizRefused, match="closed"):
            await broker.answer(room.code, "c", "q1", "cid 0")
        with pytest.raises(QuizRefused, match="'q9' is not open"):
            await broker.reveal(room.code, "q9", "cid 0")
        await settle(events, 6)
        kinds = [(to, m["type"]) for _, to, m in events]
        assert kinds[:6] == [("all", "quiz"), ("presenter", "tally"), ("presenter", "tally"), ("presenter", "tally"),
                             ("presenter", "tally"), ("all", "reveal")]
        assert [m["counts"] for _, _, m in events if m["type"] == "tally"] == [
            {"cid 0": 0, "cid 1": 0}, {"cid 0": 0, "cid 1": 1}, {"cid 0": 0, "cid 1": 2}, {"cid 0": 1, "cid 1": 1}]
        assert events[5][2] == {"type": "reveal", "quiz_id": "q1", "answer": "cid 0"}
        record = await broker.get(room.code)
        assert record.tally() == {"cid 0": 1, "cid 1": 1} and record.revealed == {"quiz_id": "q1", "answer": "cid 0"}
        await broker.reveal(room.code, "q1", "cid 7")  # the model's answer may lie outside the choices
        assert (await broker.get(room.code)).revealed == {"quiz_id": "q1", "answer": "cid 7"}
        await broker.open_quiz(room.code, {"id": "q1", "choices": ["cid 0", "cid 1"]})  # same quiz: kept
        assert (await broker.get(room.code)).tally() == {"cid 0": 1, "cid 1": 1}
        await broker.open_quiz(room.code, {"id": "q2", "choices": ["yes", "no"]})  # a new quiz starts empty
        record = await broker.get(room.code)
        assert record.answers == {} and record.revealed is None and record.quiz == {"id": "q2", "choices": ["yes", "no"]}
        await broker.close()
    asyncio.run(scenario())


def test_followers_total_and_expiry(settings_for) -> None:  # type: ignore[no-untyped-def]
    async def scenario() -> None:
        broker, events = await started(settings_for(room_ttl_s=0.3))
        room, _ = await broker.create("demo-lesson")
        await broker.set_followers(room.code, 4)
        await settle(events, 1)
        assert events[-1][1:] == ("presenter", {"type": "followers", "count": 4})
        await asyncio.sleep(0.2)
        await broker.touch(room.code)  # presenter activity pushes the expiry back
        await asyncio.sleep(0.2)
        assert await broker.get(room.code) is not None
        await asyncio.sleep(0.25)
        assert await broker.get(room.code) is None
        for call in (broker.touch(room.code), broker.publish_state(room.code, {}),
                     broker.open_quiz(room.code, {"id": "q", "choices": ["a"]}),
                     broker.answer(room.code, "a", "q", "a"), broker.reveal(room.code, "q", "a")):
            with pytest.raises(RoomNotFound, match=f"no room {room.code}"):
                await call
        await broker.close()
    asyncio.run(scenario())


def test_room_cap_counts_live_rooms_only(settings_for) -> None:  # type: ignore[no-untyped-def]
    async def scenario() -> None:
        broker, _ = await started(settings_for(room_max_rooms=2, room_ttl_s=0.2))
        await broker.create("a")
        await broker.create("b")
        with pytest.raises(RoomsFull, match="already holds 2 rooms"):
            await broker.create("c")
        time.sleep(0.3)  # both expire: room for new ones
        await broker.create("d")
        await broker.close()
    asyncio.run(scenario())


def test_redis_down_is_a_clear_error() -> None:
    async def scenario() -> None:
        from kscope.rooms.model import RoomStoreUnavailable
        from kscope.rooms.redis_broker import RedisBroker
        from rooms_support import free_port

        broker = RedisBroker(Settings(redis_url=f"redis://127.0.0.1:{free_port()}/0"))
        with pytest.raises(RoomStoreUnavailable, match="room store \\(Redis at redis://127.0.0.1:.*\\) unavailable"):
            await broker.create("demo-lesson")
        with pytest.raises(RoomStoreUnavailable):
            await broker.get("ACDEFG")
        await broker.close()
    asyncio.run(scenario())
