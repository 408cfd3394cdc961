"""Refusing at the door: a SQL or event-page request the gate would refuse gets its 429 before
routing, body parsing or validation (ASGI middleware).

A burst of 45 queries at once used to cost the event loop the whole FastAPI path 45 times
just to say 429 to 41 of them, and /api/health waited behind that. The route checks again
(api/routes/traces.py), and only the route admits.
"""

import json
from typing import Any

from kscope.api.deps import gates_of
from kscope.api.gate import Busy, Gate
from kscope.store.store import hash_token

_TOKEN_HEADER = b"x-kscope-token"


def _gate_for(scope: dict[str, Any]) -> Gate | None:
    path, method = scope.get("path", ""), scope.get("method", "")
    if not path.startswith("/api/traces/"):
        return None
    if method == "POST" and path.endswith("/sql"):
        return gates_of(scope["app"].state).sql
    if method == "GET" and path.endswith("/events"):
        return gates_of(scope["app"].state).events
    return None


class RefuseWhenBusy:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        gate = _gate_for(scope) if scope["type"] == "http" else None
        if gate is not None:
            token = next((v.decode("latin-1") for k, v in scope["headers"] if k == _TOKEN_HEADER), "")
            try:
                gate.check(hash_token(token))
            except Busy as err:
                body = json.dumps({"detail": str(err)}).encode()
                await send({"type": "http.response.start", "status": 429,
                            "headers": [(b"content-type", b"application/json"),
                                        (b"content-length", str(len(body)).encode()),
                                        (b"retry-after", err.retry_after.encode())]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)
