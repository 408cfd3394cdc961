"""The room wire protocol: JSON text frames over one WebSocket per client.

Connect: /api/rooms/<CODE>/ws?role=presenter&token=<presenter_token>
     or  /api/rooms/<CODE>/ws?role=follower&client=<client id, e.g. a uuid>

client -> server
    {"type": "hello", "since": <seq the client has, 0 for none>}     catch-up request
    {"type": "state", "state": <LessonPosition object>}               presenter
    {"type": "quiz_open", "quiz": {"id": str, "choices": [str, ...]}} presenter
    {"type": "reveal", "quiz_id": str, "answer": str}                 presenter
    {"type": "answer", "quiz_id": str, "choice": str}                 follower

server -> client
    {"type": "welcome", "role": .., "code": .., "lesson": .., "seq": n, "expires_at": ms}
                                                          first frame on a good connection
    {"type": "state", "seq": n, "state": .., "sent_at_ms": ms}
    {"type": "quiz", "quiz": {...}}
    {"type": "tally", "quiz_id": .., "counts": {choice: n}}   presenter only
    {"type": "followers", "count": n}                          presenter only
    {"type": "reveal", "quiz_id": .., "answer": ..}
    {"type": "error", "message": ..}      the connection stays open

`welcome` and `followers` extend the contract in /work/briefs (classroom-contract.md);
a client may ignore them. A connection is closed only when it cannot be served:
4400 bad query, 4403 wrong presenter token, 4404 no such room (or it expired),
4408 fell too far behind (reconnect and catch up), 4429 room full.
"""

import json
from dataclasses import dataclass
from typing import Any

CLOSE_BAD_REQUEST = 4400
CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404
CLOSE_TOO_SLOW = 4408
CLOSE_FULL = 4429

PRESENTER_TYPES = frozenset({"state", "quiz_open", "reveal"})
FOLLOWER_TYPES = frozenset({"answer"})
ALL_TYPES = PRESENTER_TYPES | FOLLOWER_TYPES | {"hello"}

MAX_ID_CHARS = 64
MAX_CHOICES = 16
MAX_CHOICE_CHARS = 200


class BadMessage(Exception):
    """A frame the server cannot use; the message names the field."""


@dataclass(frozen=True)
class Message:
    type: str
    body: dict[str, Any]


def parse(text: str | bytes, max_bytes: int) -> Message:
    """One client frame, checked: size, JSON, a known type and that type's fields."""
    size = len(text.encode() if isinstance(text, str) else text)
    if size > max_bytes:
        raise BadMessage(f"message of {size} bytes is over the limit of {max_bytes} bytes "
                         f"(KSCOPE_ROOM_MAX_MESSAGE_BYTES)")
    try:
        body = json.loads(text)
    except (ValueError, UnicodeDecodeError) as err:
        raise BadMessage(f"message is not JSON: {err}") from None
    except RecursionError:  # a RuntimeError: uncaught, it ended the socket's loop (close 1000)
        raise BadMessage("message is nested too deeply to read") from None
    if not isinstance(body, dict):
        raise BadMessage("message must be a JSON object with a \"type\" field")
    kind = body.get("type")
    if kind not in ALL_TYPES:
        raise BadMessage(f"unknown message type {kind!r} (expected one of {sorted(ALL_TYPES)})")
    _CHECKS[kind](body)
    return Message(kind, body)


def _text(body: dict[str, Any], name: str, limit: int = MAX_ID_CHARS) -> str:
    value = body.get(name)
    if not isinstance(value, str) or not value or len(value) > limit:
        raise BadMessage(f"{body['type']}: field {name!r} must be a non-empty string of at most {limit} characters")
    return value


def _check_hello(body: dict[str, Any]) -> None:
    since = body.get("since", 0)
    if not isinstance(since, int) or isinstance(since, bool) or since < 0:
        raise BadMessage("hello: field 'since' must be an integer >= 0")


def _check_state(body: dict[str, Any]) -> None:
    if not isinstance(body.get("state"), dict):
        raise BadMessage("state: field 'state' must be a JSON object (a LessonPosition)")


def _check_quiz_open(body: dict[str, Any]) -> None:
    quiz = body.get("quiz")
    if not isinstance(quiz, dict):
        raise BadMessage("quiz_open: field 'quiz' must be an object {id, choices}")
    _text(quiz | {"type": "quiz_open.quiz"}, "id")
    choices = quiz.get("choices")
    if (not isinstance(choices, list) or not 1 <= len(choices) <= MAX_CHOICES
            or not all(isinstance(c, str) and 0 < len(c) <= MAX_CHOICE_CHARS for c in choices)):
        raise BadMessage(f"quiz_open: field 'quiz.choices' must be 1..{MAX_CHOICES} non-empty strings "
                         f"of at most {MAX_CHOICE_CHARS} characters")
    if len(set(choices)) != len(choices):
        raise BadMessage("quiz_open: field 'quiz.choices' has duplicates")


def _check_reveal(body: dict[str, Any]) -> None:
    _text(body, "quiz_id")
    _text(body, "answer", MAX_CHOICE_CHARS)


def _check_answer(body: dict[str, Any]) -> None:
    _text(body, "quiz_id")
    _text(body, "choice", MAX_CHOICE_CHARS)


_CHECKS = {"hello": _check_hello, "state": _check_state, "quiz_open": _check_quiz_open,
           "reveal": _check_reveal, "answer": _check_answer}


def valid_client_id(text: str | None) -> bool:
    """A follower's client id: 1..64 characters of [A-Za-z0-9_-] (a uuid fits)."""
    return bool(text) and len(text) <= MAX_ID_CHARS and all(ch.isascii() and (ch.isalnum() or ch in "-_")
                                                             for ch in text)


def encode(message: dict[str, Any]) -> str:
    return json.dumps(message, separators=(",", ":"))


def error(message: str) -> str:
    return encode({"type": "error", "message": message})
