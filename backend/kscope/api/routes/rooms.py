"""Rooms: POST /api/rooms, GET /api/rooms/{code}, and the room WebSocket (kscope/rooms/)."""

import math
import re

from fastapi import APIRouter, HTTPException, Request, WebSocket

from kscope.api.schemas import RoomCreate, RoomCreated, RoomPublic
from kscope.rooms import session
from kscope.rooms.hub import Hub
from kscope.rooms.model import RoomsFull, RoomsRateLimited, RoomStoreUnavailable, normalize_code

router = APIRouter(tags=["rooms"])

_LESSON_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")


def _hub(request: Request | WebSocket) -> Hub:
    return request.app.state.rooms


@router.post("/rooms", response_model=RoomCreated, status_code=201)
async def create_room(body: RoomCreate, request: Request) -> RoomCreated:
    """A new room for `lesson`; the presenter token is in this response only."""
    if not _LESSON_ID.fullmatch(body.lesson):
        raise HTTPException(422, f"lesson {body.lesson!r}: expected a lesson id, the <id> of a <id>.lesson.json "
                                 "(a-z, 0-9, _ and -, at most 64 characters)")
    address = request.client.host if request.client else ""
    try:
        room, token = await _hub(request).broker.create(body.lesson, address)
    except RoomsRateLimited as err:
        raise HTTPException(429, str(err), headers={"Retry-After": str(math.ceil(err.retry_after_s))}) from None
    except (RoomsFull, RoomStoreUnavailable) as err:
        raise HTTPException(503, str(err)) from None
    return RoomCreated(code=room.code, presenter_token=token, join_url=f"{request.base_url}room/{room.code}",
                       expires_at=room.expires_ms)


@router.get("/rooms/{code}", response_model=RoomPublic)
async def read_room(code: str, request: Request) -> RoomPublic:
    canonical = normalize_code(code)
    try:
        room = await _hub(request).broker.get(canonical) if canonical else None
    except RoomStoreUnavailable as err:
        raise HTTPException(503, str(err)) from None
    if room is None:
        raise HTTPException(404, f"no room {code}: it expired or never existed")
    return RoomPublic(code=room.code, lesson=room.lesson, expires_at=room.expires_ms, followers=room.followers)


@router.websocket("/rooms/{code}/ws")
async def room_socket(ws: WebSocket, code: str, role: str = "", token: str = "", client: str = "") -> None:
    """The room's live channel; protocol in kscope/rooms/protocol.py."""
    await session.serve(_hub(ws), ws, code, role, token, client)
