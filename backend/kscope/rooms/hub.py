"""The sockets of one backend process: who is connected to which room, and fan-out.

Each connection has a bounded outbound queue and one writer task, so a slow phone
never delays the others: the broker's event is encoded once and queued on every local
socket of the room (put_nowait, O(followers) with no awaits). Of states, tallies and
follower counts only the newest unsent one is kept per socket (LATEST_ONLY), so a burst
of answers cannot bury the presenter and a slow phone skips to the latest step. A socket
whose queue is still full is closed with 4408; its client reconnects and catches up.
Follower frames are rate-limited per socket (token bucket, room_client_rate per second).

A sweeper task (every room_sweep_s) closes the sockets of rooms that expired, keeps
rooms alive while their presenter is connected (presenter activity), and lets the
memory broker drop expired records.
"""

import asyncio
import contextlib
import sys
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from starlette.websockets import WebSocket

from kscope.core.config import Settings
from kscope.rooms import protocol
from kscope.rooms.broker import Broker
from kscope.rooms.model import RoomNotFound


# Frames where only the newest matters: a socket that has not sent the last one yet gets
# the newer one in its place (a busy presenter's tallies, a slow phone's states).
LATEST_ONLY = frozenset({"state", "tally", "followers"})


@dataclass(eq=False)
class Connection:
    ws: WebSocket
    code: str
    role: str  # "presenter" | "follower"
    client: str  # follower client id ("" for a presenter): the client's own name, not trusted
    address: str = ""  # the client's address (fair-use limits)
    # This connection's vote key: made here, so one socket casts at most one vote.
    id: str = field(default_factory=lambda: uuid.uuid4().hex)
    # Frames to send, in order: text, ("latest", kind) = the newest frame of that kind, None = close.
    queue: asyncio.Queue[str | tuple[str, str] | None] = field(default_factory=asyncio.Queue)
    latest: dict[str, str] = field(default_factory=dict)
    closing: tuple[int, str] | None = None
    # Token bucket of client frames: `tokens` left, refilled at the hub's rate.
    tokens: float = 0.0
    refilled: float = 0.0

    def offer(self, text: str) -> None:
        """Queues a frame; a full queue marks the socket too slow (closed by its writer)."""
        if self.closing is not None:
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.close_soon(protocol.CLOSE_TOO_SLOW, "fell too far behind; reconnect to catch up")

    def offer_latest(self, kind: str, text: str) -> None:
        """Queues a frame of a LATEST_ONLY kind, replacing one of that kind not sent yet."""
        if self.closing is not None:
            return
        pending = kind in self.latest
        self.latest[kind] = text
        if not pending:
            try:
                self.queue.put_nowait(("latest", kind))
            except asyncio.QueueFull:
                self.close_soon(protocol.CLOSE_TOO_SLOW, "fell too far behind; reconnect to catch up")

    def take(self, item: str | tuple[str, str]) -> str | None:
        """The text to send for a queue item."""
        return item if isinstance(item, str) else self.latest.pop(item[1], None)

    def close_soon(self, code: int, reason: str, last: str | None = None) -> None:
        """Closes the socket after `last` (if given), dropping anything still queued."""
        if self.closing is None:
            self.closing = (code, reason)
            self.latest.clear()
            with contextlib.suppress(asyncio.QueueEmpty):
                while True:  # the close goes out now, not after the backlog
                    self.queue.get_nowait()
            if last is not None:
                self.queue.put_nowait(last)
            self.queue.put_nowait(None)

    def admit(self, now: float, rate: float, burst: float) -> bool:
        """Whether one more client frame fits the rate (token bucket: `rate`/s, bursts of `burst`)."""
        self.tokens = min(burst, self.tokens + (now - self.refilled) * rate)
        self.refilled = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class Hub:
    def __init__(self, settings: Settings, broker: Broker) -> None:
        self.settings = settings
        self.broker = broker
        self.rooms: dict[str, set[Connection]] = {}
        self._sweeper: asyncio.Task[None] | None = None

    async def start(self) -> None:
        await self.broker.start(self.deliver)
        self._sweeper = asyncio.create_task(self._sweep())

    async def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
        for conns in list(self.rooms.values()):
            for conn in list(conns):
                conn.close_soon(1001, "server shutting down")
        await self.broker.close()

    def deliver(self, code: str, audience: str, message: dict[str, Any]) -> None:
        """A broker event: queue it on this process's sockets in room `code`."""
        conns = self.rooms.get(code)
        if not conns:
            return
        text = protocol.encode(message)
        kind = message.get("type", "")
        for conn in conns:
            if audience == "all" or conn.role == "presenter":
                if kind in LATEST_ONLY:
                    conn.offer_latest(kind, text)
                else:
                    conn.offer(text)

    def new_connection(self, ws: WebSocket, code: str, role: str, client: str, address: str = "") -> Connection:
        burst = 2.0 * self.settings.room_client_rate
        return Connection(ws=ws, code=code, role=role, client=client, address=address, tokens=burst,
                          refilled=time.monotonic(),
                          queue=asyncio.Queue(maxsize=max(2, self.settings.room_send_queue)))

    def admit(self, conn: Connection) -> bool:
        """Client frames beyond room_client_rate per second (bursts of twice that) are refused."""
        rate = self.settings.room_client_rate
        return conn.admit(time.monotonic(), rate, 2.0 * rate)

    def followers(self, code: str) -> int:
        return sum(1 for c in self.rooms.get(code, ()) if c.role == "follower")

    def followers_from(self, code: str, address: str) -> int:
        return sum(1 for c in self.rooms.get(code, ()) if c.role == "follower" and c.address == address)

    async def register(self, conn: Connection) -> None:
        self.rooms.setdefault(conn.code, set()).add(conn)
        if conn.role == "follower":
            await self._count_followers(conn.code)

    async def unregister(self, conn: Connection) -> None:
        conns = self.rooms.get(conn.code)
        if conns is None:
            return
        conns.discard(conn)
        if not conns:
            del self.rooms[conn.code]
        if conn.role == "follower":
            await self._count_followers(conn.code)
            try:  # its vote goes with it (a reconnecting follower answers again: room_client.ts)
                await self.broker.withdraw(conn.code, conn.id)
            except Exception as err:
                print(f"kscope rooms: vote of a closed socket in {conn.code} not withdrawn: {err}", file=sys.stderr)

    async def _count_followers(self, code: str) -> None:
        """Tells the broker this process's follower count; a failure (Redis away) costs only the count."""
        try:
            await self.broker.set_followers(code, self.followers(code))
        except Exception as err:
            print(f"kscope rooms: follower count of {code} not updated: {err}", file=sys.stderr)

    async def writer(self, conn: Connection) -> None:
        """Sends the queued frames in order; sends the close when one was asked for."""
        while True:
            item = await conn.queue.get()
            if item is None:
                code, reason = conn.closing or (1000, "")
                with contextlib.suppress(Exception):
                    await conn.ws.close(code=code, reason=reason)
                return
            text = conn.take(item)
            if text is None:
                continue
            try:
                await conn.ws.send_text(text)
            except Exception:  # the peer went away; the reader sees the disconnect and unregisters
                return

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(self.settings.room_sweep_s)
            purge = getattr(self.broker, "purge", None)
            if purge is not None:
                purge()
            for code, conns in list(self.rooms.items()):
                try:
                    if any(c.role == "presenter" for c in conns):
                        await self.broker.touch(code)
                    elif await self.broker.get(code) is None:
                        raise RoomNotFound(code)
                except RoomNotFound as err:
                    for conn in list(conns):
                        conn.close_soon(protocol.CLOSE_NOT_FOUND, "room expired", protocol.error(str(err)))
                except Exception:  # a Redis hiccup: try again next sweep
                    continue
