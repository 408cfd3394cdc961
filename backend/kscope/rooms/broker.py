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
    async def create(self, lesson: str, address: str = "") -> tuple[Room, str]:
        """A new room and its presenter token (returned only here). With the client `address`,
        RoomsRateLimited past its fair-use limits (model.creation_refusal). The room expires
        room_unpresented_ttl_s from now unless a presenter's activity touches it."""
    async def get(self, code: str) -> Room | None: ...
    async def touch(self, code: str) -> Room:
        """Pushes the expiry to now + TTL (presenter activity)."""
    async def publish_state(self, code: str, state: Any) -> int:
        """Stores the state under the next seq and sends it to all; returns the seq."""
    async def open_quiz(self, code: str, quiz: dict[str, Any]) -> None:
        """Opens `quiz` (a new id clears the answers; the same id keeps them)."""
    async def answer(self, code: str, voter: str, quiz_id: str, choice: str) -> None:
        """Records (or replaces) the answer of `voter` (a follower connection's server-made id:
        one vote per connection, whatever client id it claims) and sends the tally to the presenter."""
    async def withdraw(self, code: str, voter: str) -> None:
        """Drops `voter`'s answer (its connection closed); sends the tally if it had one."""
    async def reveal(self, code: str, quiz_id: str, answer: str) -> None: ...
    async def set_followers(self, code: str, local_count: int) -> None:
        """This process now has `local_count` followers in the room; sends the total to the presenter."""


def make_broker(settings: Settings) -> Broker:
    if settings.redis_url:
        from kscope.rooms.redis_broker import RedisBroker

        return RedisBroker(settings)
    from kscope.rooms.memory import MemoryBroker

    return MemoryBroker(settings)
