"""The room record, its codes and tokens, and the errors of room operations."""

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

# Room codes: 6 characters from an alphabet without look-alikes (no 0/O, 1/I/L, 5/S,
# 2/Z, 8/B, U/V): 23^6 ~ 1.5e8 codes, easy to read off a projector and type on a phone.
CODE_ALPHABET = "ACDEFGHJKMNPQRTWXY34679"
CODE_LENGTH = 6


def new_code() -> str:
    """A random room code (the broker retries on the rare collision)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalize_code(text: str) -> str | None:
    """The canonical code for what a person typed ("xk 4q-7p" -> "XK4Q7P"), or None."""
    code = "".join(ch for ch in text.upper() if ch not in " -")
    if len(code) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in code):
        return None
    return code


def new_token() -> str:
    """The presenter token: 32 random bytes, URL-safe; given to the creator once."""
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def token_matches(token: str, token_hash: str) -> bool:
    return hmac.compare_digest(hash_token(token), token_hash)


def now_ms() -> int:
    """Wall-clock milliseconds: expiry times and `sent_at_ms` (shared by processes on a host)."""
    return int(time.time() * 1000)


@dataclass
class Room:
    """What a broker knows about a room (a snapshot; brokers own the live record)."""

    code: str
    lesson: str
    token_hash: str
    created_ms: int
    expires_ms: int
    seq: int = 0
    state: Any = None  # the presenter's LessonPosition, as JSON
    sent_at_ms: int = 0  # when the server accepted that state
    quiz: dict[str, Any] | None = None  # {"id": str, "choices": [str, ...]}
    answers: dict[str, str] = field(default_factory=dict)  # follower connection id -> choice
    revealed: dict[str, str] | None = None  # {"quiz_id": str, "answer": str}
    followers: int = 0  # connected followers, all processes
    creator: str = ""  # the client address that made the room (fair-use limits)

    def tally(self) -> dict[str, int]:
        """Answers per choice of the open quiz (every choice present, zeros included)."""
        counts = {choice: 0 for choice in (self.quiz or {}).get("choices", [])}
        for choice in self.answers.values():
            if choice in counts:
                counts[choice] += 1
        return counts


class RoomError(Exception):
    """A room operation refused; the message says why and is safe to show the client."""


class RoomNotFound(RoomError):
    def __init__(self, code: str) -> None:
        super().__init__(f"no room {code}: it expired or never existed")
        self.code = code


class RoomsFull(RoomError):
    def __init__(self, limit: int) -> None:
        super().__init__(f"this server already holds {limit} rooms (KSCOPE_ROOM_MAX_ROOMS); try again later")


class RoomsRateLimited(RoomError):
    """A client address over a fair-use limit; `retry_after_s`: when the limit lets it in again."""

    def __init__(self, message: str, retry_after_s: float) -> None:
        super().__init__(message)
        self.retry_after_s = max(1.0, retry_after_s)


def creation_refusal(address: str, made_in_window: list[int], live_expiries: list[int], now: int,
                     per_window: int, window_ms: int, max_live: int) -> RoomsRateLimited | None:
    """Why `address` may not make another room now, or None: both brokers decide with this.

    made_in_window: creation times (ms) of its rooms within the window; live_expiries: the
    expiry times (ms) of its rooms still alive."""
    if len(made_in_window) >= per_window:
        wait = (min(made_in_window) + window_ms - now) / 1000
        return RoomsRateLimited(f"{address} made {len(made_in_window)} rooms in the last {window_ms / 1000:g} s, "
                                f"the most allowed (KSCOPE_ROOM_CREATE_PER_ADDRESS); try again in {wait:.0f} s",
                                wait)
    if len(live_expiries) >= max_live:
        wait = (min(live_expiries) - now) / 1000
        return RoomsRateLimited(f"{address} already has {len(live_expiries)} open rooms, the most allowed "
                                f"(KSCOPE_ROOM_MAX_ROOMS_PER_ADDRESS); one expires in {wait:.0f} s", wait)
    return None


class QuizRefused(RoomError):
    """An answer or reveal that does not fit the open quiz."""


class RoomStoreUnavailable(RoomError):
    """The shared room store (Redis) did not answer."""


def check_answer(room: Room, quiz_id: str, choice: str) -> None:
    """Raises QuizRefused unless `choice` answers the room's open, unrevealed quiz `quiz_id`."""
    quiz = room.quiz
    if quiz is None or quiz["id"] != quiz_id:
        raise QuizRefused(f"quiz {quiz_id!r} is not open in room {room.code}")
    if room.revealed is not None and room.revealed["quiz_id"] == quiz_id:
        raise QuizRefused(f"quiz {quiz_id!r} is closed: the answer was revealed")
    if choice not in quiz["choices"]:
        raise QuizRefused(f"{choice!r} is not a choice of quiz {quiz_id!r} (choices: {quiz['choices']})")


def check_reveal(room: Room, quiz_id: str) -> None:
    """A reveal must name the open quiz. The answer is the model's, computed in the presenter's
    browser; it may lie outside the lesson's choices (the lesson then says so), so it is not checked."""
    quiz = room.quiz
    if quiz is None or quiz["id"] != quiz_id:
        raise QuizRefused(f"quiz {quiz_id!r} is not open in room {room.code}")
