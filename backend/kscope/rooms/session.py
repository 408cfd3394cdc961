"""One room WebSocket from accept to close: admission, then a loop over client frames.

Admission refusals (bad role or client id, unknown or expired room, wrong presenter
token, room full) send one error frame and close with a 44xx code naming why. After
admission nothing a client sends closes its socket: a bad frame (not JSON, unknown
type, oversized, a follower trying to drive) gets an error frame and the loop goes on.
"""

import asyncio
import contextlib
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from kscope.rooms import protocol
from kscope.rooms.hub import Connection, Hub
from kscope.rooms.model import RoomError, RoomNotFound, normalize_code, token_matches


async def _refuse(ws: WebSocket, close_code: int, message: str) -> None:
    await ws.send_text(protocol.error(message))
    await ws.close(code=close_code, reason=message[:120])


async def serve(hub: Hub, ws: WebSocket, code: str, role: str, token: str, client: str) -> None:
    await ws.accept()
    address = ws.client.host if ws.client else ""
    canonical = normalize_code(code)
    if role not in ("presenter", "follower"):
        return await _refuse(ws, protocol.CLOSE_BAD_REQUEST, "query parameter role must be presenter or follower")
    if role == "follower" and not protocol.valid_client_id(client):
        return await _refuse(ws, protocol.CLOSE_BAD_REQUEST,
                             "followers need ?client=<id>: 1..64 characters of A-Z a-z 0-9 - _")
    room = await hub.broker.get(canonical) if canonical else None
    if room is None:
        return await _refuse(ws, protocol.CLOSE_NOT_FOUND, str(RoomNotFound(code)))
    if role == "presenter" and not token_matches(token, room.token_hash):
        return await _refuse(ws, protocol.CLOSE_FORBIDDEN, "wrong presenter token for room " + room.code)
    if role == "follower" and hub.followers(room.code) >= hub.settings.room_max_followers:
        return await _refuse(ws, protocol.CLOSE_FULL, f"room {room.code} is full: "
                             f"{hub.settings.room_max_followers} followers (KSCOPE_ROOM_MAX_FOLLOWERS)")

    per_address = hub.settings.room_max_followers_per_address
    if role == "follower" and address and hub.followers_from(room.code, address) >= per_address:
        return await _refuse(ws, protocol.CLOSE_FULL, f"{address} already has {per_address} followers in room "
                             f"{room.code} (KSCOPE_ROOM_MAX_FOLLOWERS_PER_ADDRESS); retry when one of them leaves")

    conn = hub.new_connection(ws, room.code, role, client if role == "follower" else "", address)
    await hub.register(conn)
    writer = asyncio.create_task(hub.writer(conn))
    conn.offer(protocol.encode({"type": "welcome", "role": role, "code": room.code, "lesson": room.lesson,
                                "seq": room.seq, "expires_at": room.expires_ms}))
    try:
        while not writer.done():
            frame = await ws.receive()
            if frame["type"] == "websocket.disconnect":
                break
            text = frame.get("text")
            await handle(hub, conn, text if text is not None else frame.get("bytes") or b"")
    except (WebSocketDisconnect, RuntimeError):  # the peer went away mid-receive
        pass
    finally:
        await hub.unregister(conn)
        if not writer.done():
            conn.close_soon(1000, "")
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer, timeout=1)
        writer.cancel()


async def handle(hub: Hub, conn: Connection, text: str | bytes) -> None:
    """One client frame; every failure becomes an error frame on this socket."""
    # Followers are rate-limited; the presenter (token holder, trusted) is not: a held arrow key
    # must never drop the state that followers should end on.
    if conn.role == "follower" and not hub.admit(conn):
        return conn.offer(protocol.error(f"too many messages: at most {hub.settings.room_client_rate:g} per second "
                                         f"(KSCOPE_ROOM_CLIENT_RATE); this one was dropped"))
    try:
        message = protocol.parse(text, hub.settings.room_max_message_bytes)
    except protocol.BadMessage as err:
        return conn.offer(protocol.error(str(err)))
    body = message.body
    if message.type in protocol.PRESENTER_TYPES and conn.role != "presenter":
        return conn.offer(protocol.error(f"only the presenter can send {message.type!r}; "
                                         f"this connection is a {conn.role}"))
    if message.type in protocol.FOLLOWER_TYPES and conn.role != "follower":
        return conn.offer(protocol.error(f"only followers send {message.type!r}"))
    broker = hub.broker
    try:
        if message.type == "hello":
            await _catch_up(hub, conn, body.get("since", 0))
        elif message.type == "state":
            await broker.publish_state(conn.code, body["state"])
        elif message.type == "quiz_open":
            await broker.open_quiz(conn.code, body["quiz"])
        elif message.type == "reveal":
            await broker.reveal(conn.code, body["quiz_id"], body["answer"])
        elif message.type == "answer":
            await broker.answer(conn.code, conn.id, body["quiz_id"], body["choice"])
    except RoomNotFound as err:
        conn.close_soon(protocol.CLOSE_NOT_FOUND, "room expired", protocol.error(str(err)))
    except RoomError as err:
        conn.offer(protocol.error(str(err)))
    except Exception as err:  # e.g. Redis unreachable: say so, keep the socket
        conn.offer(protocol.error(f"server could not handle {message.type!r}: {type(err).__name__}: {err}"))


async def _catch_up(hub: Hub, conn: Connection, since: int) -> None:
    """What a (re)connecting client missed: the latest state if newer than `since`, the open quiz,
    the reveal, and for the presenter the tally and the follower count."""
    room = await hub.broker.touch(conn.code) if conn.role == "presenter" else await hub.broker.get(conn.code)
    if room is None:
        raise RoomNotFound(conn.code)
    frames: list[dict[str, Any]] = []
    if room.seq > since and room.state is not None:
        frames.append({"type": "state", "seq": room.seq, "state": room.state, "sent_at_ms": room.sent_at_ms})
    if room.quiz is not None:
        frames.append({"type": "quiz", "quiz": room.quiz})
        if conn.role == "presenter":
            frames.append({"type": "tally", "quiz_id": room.quiz["id"], "counts": room.tally()})
    if room.revealed is not None:
        frames.append({"type": "reveal", **room.revealed})
    if conn.role == "presenter":
        frames.append({"type": "followers", "count": room.followers})
    for frame in frames:
        conn.offer(protocol.encode(frame))
