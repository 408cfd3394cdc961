"""What a broker does (the contract both brokers meet), and choosing one from Settings.

A broker owns the room records and delivers events to the hub of every process that
serves the room: `deliver(code, audience, message)` with audience "all" (presenter
and followers) or "presenter". Every mutating call refreshes the room's expiry; a
call on an expired or unknown room raises RoomNotFound.
"""

from collections.abc import Callable
from typing import Any, Protocol

from kscope.core.config import Settings
from kscope.rooms.model import Room

Deliver = Callable[[str, str, dict[str, Any]], None]


class Broker(Protocol):
    async def start(self, deliver: Deliver) -> None: ...
    async def close(self) -> None: ...
    async def create(self, lesson: str) -> tuple[Room, str]:
        """A new room and its presenter token (returned only here)."""
    async def get(self, code: str) -> Room | None: ...
    async def touch(self, code: str) -> Room:
        """Pushes the expiry to now + TTL (presenter activity)."""
    async def publish_state(self, code: str, state: Any) -> int:
        """Stores the state under the next seq and sends it to all; returns the seq."""
    async def open_quiz(self, code: str, quiz: dict[str, Any]) -> None:
        """Opens `quiz` (a new id clears the answers; the same id keeps them)."""
    async def answer(self, code: str, client: str, quiz_id: str, choice: str) -> None:
        """Records (or replaces) `client`'s answer and sends the tally to the presenter."""
    async def reveal(self, code: str, quiz_id: str, answer: str) -> None: ...
    async def set_followers(self, code: str, local_count: int) -> None:
        """This process now has `local_count` followers in the room; sends the total to the presenter."""


def make_broker(settings: Settings) -> Broker:
    if settings.redis_url:
        from kscope.rooms.redis_broker import RedisBroker

        return RedisBroker(settings)
    from kscope.rooms.memory import MemoryBroker

    return MemoryBroker(settings)
