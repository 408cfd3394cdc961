"""The in-process broker: room records in a dict, events delivered by a direct call.

The default when KSCOPE_REDIS_URL is unset; one backend process serves every room.
Expired rooms are dropped when touched and by `purge` (the hub calls it periodically),
so the dict never holds more than room_max_rooms live records.
"""

from typing import Any

from kscope.core.config import Settings
from kscope.rooms.broker import Deliver
from kscope.rooms.model import (Room, RoomNotFound, RoomsFull, check_answer, check_reveal, creation_refusal,
                                hash_token, new_code, new_token, now_ms)


class MemoryBroker:
    def __init__(self, settings: Settings) -> None:
        self._ttl_ms = int(settings.room_ttl_s * 1000)
        self._fresh_ttl_ms = int(min(settings.room_unpresented_ttl_s, settings.room_ttl_s) * 1000)
        self._max_rooms = settings.room_max_rooms
        self._settings = settings
        self._rooms: dict[str, Room] = {}
        # Creation times (ms) by client address, within the last room_create_window_s.
        self._made: dict[str, list[int]] = {}
        self._deliver: Deliver = lambda code, audience, message: None

    async def start(self, deliver: Deliver) -> None:
        self._deliver = deliver

    async def close(self) -> None:
        self._rooms.clear()

    def purge(self) -> None:
        now = now_ms()
        for code in [c for c, room in self._rooms.items() if room.expires_ms <= now]:
            del self._rooms[code]

    async def create(self, lesson: str, address: str = "") -> tuple[Room, str]:
        self.purge()
        now = now_ms()
        if address:
            window_ms = int(self._settings.room_create_window_s * 1000)
            made = [t for t in self._made.get(address, ()) if t > now - window_ms]
            self._made[address] = made
            for key in [a for a, times in self._made.items() if not times]:
                del self._made[key]
            live = [r.expires_ms for r in self._rooms.values() if r.creator == address]
            refusal = creation_refusal(address, made, live, now, self._settings.room_create_per_address, window_ms,
                                       self._settings.room_max_rooms_per_address)
            if refusal is not None:
                raise refusal
        if len(self._rooms) >= self._max_rooms:
            raise RoomsFull(self._max_rooms)
        code = new_code()
        while code in self._rooms:
            code = new_code()
        token = new_token()
        room = Room(code=code, lesson=lesson, token_hash=hash_token(token), created_ms=now,
                    expires_ms=now + self._fresh_ttl_ms, creator=address)
        self._rooms[code] = room
        if address:
            self._made.setdefault(address, []).append(now)
        return _copy(room), token

    def _live(self, code: str) -> Room:
        room = self._rooms.get(code)
        if room is None or room.expires_ms <= now_ms():
            self._rooms.pop(code, None)
            raise RoomNotFound(code)
        return room

    async def get(self, code: str) -> Room | None:
        try:
            return _copy(self._live(code))
        except RoomNotFound:
            return None

    async def touch(self, code: str) -> Room:
        room = self._live(code)
        room.expires_ms = now_ms() + self._ttl_ms
        return _copy(room)

    async def publish_state(self, code: str, state: Any) -> int:
        room = self._live(code)
        room.expires_ms = now_ms() + self._ttl_ms
        room.seq += 1
        room.state = state
        room.sent_at_ms = now_ms()
        self._deliver(code, "all", {"type": "state", "seq": room.seq, "state": state, "sent_at_ms": room.sent_at_ms})
        return room.seq

    async def open_quiz(self, code: str, quiz: dict[str, Any]) -> None:
        room = self._live(code)
        room.expires_ms = now_ms() + self._ttl_ms
        if room.quiz is None or room.quiz["id"] != quiz["id"] or room.quiz["choices"] != quiz["choices"]:
            room.answers = {}
            room.revealed = None
        room.quiz = {"id": quiz["id"], "choices": list(quiz["choices"])}
        self._deliver(code, "all", {"type": "quiz", "quiz": room.quiz})
        self._deliver(code, "presenter", {"type": "tally", "quiz_id": quiz["id"], "counts": room.tally()})

    async def answer(self, code: str, voter: str, quiz_id: str, choice: str) -> None:
        room = self._live(code)
        check_answer(room, quiz_id, choice)
        room.answers[voter] = choice
        self._deliver(code, "presenter", {"type": "tally", "quiz_id": quiz_id, "counts": room.tally()})

    async def withdraw(self, code: str, voter: str) -> None:
        room = self._rooms.get(code)
        if room is None or room.answers.pop(voter, None) is None or room.quiz is None:
            return
        self._deliver(code, "presenter", {"type": "tally", "quiz_id": room.quiz["id"], "counts": room.tally()})

    async def reveal(self, code: str, quiz_id: str, answer: str) -> None:
        room = self._live(code)
        check_reveal(room, quiz_id)
        room.expires_ms = now_ms() + self._ttl_ms
        room.revealed = {"quiz_id": quiz_id, "answer": answer}
        self._deliver(code, "all", {"type": "reveal", **room.revealed})

    async def set_followers(self, code: str, local_count: int) -> None:
        room = self._rooms.get(code)
        if room is None:
            return
        room.followers = local_count
        self._deliver(code, "presenter", {"type": "followers", "count": local_count})


def _copy(room: Room) -> Room:
    return Room(**{**vars(room), "answers": dict(room.answers)})
