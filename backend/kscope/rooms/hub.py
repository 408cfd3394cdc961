"""The sockets of one backend process: who is connected to which room, and fan-out.

Each connection has a bounded outbound queue and one writer task, so a slow phone
never delays the others: the broker's event is encoded once and queued on every local
socket of the room (put_nowait, O(followers) with no awaits). A socket whose queue is
full is closed with 4408; its client reconnects and catches up from the room record.

A sweeper task (every room_sweep_s) closes the sockets of rooms that expired, keeps
rooms alive while their presenter is connected (presenter activity), and lets the
memory broker drop expired records.
"""

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import Any

from starlette.websockets import WebSocket

from kscope.core.config import Settings
from kscope.rooms import protocol
from kscope.rooms.broker import Broker
from kscope.rooms.model import RoomNotFound


@dataclass(eq=False)
class Connection:
    ws: WebSocket
    code: str
    role: str  # "presenter" | "follower"
    client: str  # follower client id ("" for a presenter)
    queue: asyncio.Queue[str | None] = field(default_factory=asyncio.Queue)
    closing: tuple[int, str] | None = None

    def offer(self, text: str) -> None:
        """Queues a frame; a full queue marks the socket too slow (closed by its writer)."""
        if self.closing is not None:
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.close_soon(protocol.CLOSE_TOO_SLOW, "fell too far behind; reconnect to catch up")

    def close_soon(self, code: int, reason: str, last: str | None = None) -> None:
        """Closes the socket after `last` (if given), dropping anything still queued."""
        if self.closing is None:
            self.closing = (code, reason)
            with contextlib.suppress(asyncio.QueueEmpty):
                while True:  # the close goes out now, not after the backlog
                    self.queue.get_nowait()
            if last is not None:
                self.queue.put_nowait(last)
            self.queue.put_nowait(None)


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
        for conn in conns:
            if audience == "all" or conn.role == "presenter":
                conn.offer(text)

    def new_connection(self, ws: WebSocket, code: str, role: str, client: str) -> Connection:
        return Connection(ws=ws, code=code, role=role, client=client,
                          queue=asyncio.Queue(maxsize=max(2, self.settings.room_send_queue)))

    def followers(self, code: str) -> int:
        return sum(1 for c in self.rooms.get(code, ()) if c.role == "follower")

    async def register(self, conn: Connection) -> None:
        self.rooms.setdefault(conn.code, set()).add(conn)
        if conn.role == "follower":
            await self.broker.set_followers(conn.code, self.followers(conn.code))

    async def unregister(self, conn: Connection) -> None:
        conns = self.rooms.get(conn.code)
        if conns is None:
            return
        conns.discard(conn)
        if not conns:
            del self.rooms[conn.code]
        if conn.role == "follower":
            await self.broker.set_followers(conn.code, self.followers(conn.code))

    async def writer(self, conn: Connection) -> None:
        """Sends the queued frames in order; sends the close when one was asked for."""
        while True:
            text = await conn.queue.get()
            if text is None:
                code, reason = conn.closing or (1000, "")
                with contextlib.suppress(Exception):
                    await conn.ws.close(code=code, reason=reason)
                return
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
