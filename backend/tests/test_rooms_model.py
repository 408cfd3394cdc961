"""Room codes, tokens, tallies, and a lagging socket's bounded queue."""

import asyncio

from kscope.rooms import protocol
from kscope.rooms.hub import Connection
from kscope.rooms.model import (CODE_ALPHABET, CODE_LENGTH, Room, hash_token, new_code, new_token,
                                normalize_code, token_matches)


def test_codes_avoid_look_alikes() -> None:
    assert not set(CODE_ALPHABET) & set("0O1IL5S2Z8BUV")
    codes = {new_code() for _ in range(200)}
    assert len(codes) > 190 and all(len(c) == CODE_LENGTH and set(c) <= set(CODE_ALPHABET) for c in codes)


def test_normalize_code() -> None:
    assert normalize_code("xk4-q7p") == "XK4Q7P"  # case, spaces and dashes as people type them
    assert normalize_code(" ack 4-3m ") == "ACK43M"
    assert normalize_code("ACK43") is None  # too short
    assert normalize_code("ACK43MM") is None  # too long
    assert normalize_code("ACK43O") is None  # O is not in the alphabet
    assert normalize_code("") is None


def test_token_is_checked_against_its_hash() -> None:
    token = new_token()
    assert token_matches(token, hash_token(token))
    assert not token_matches(token + "x", hash_token(token))


def test_tally_counts_each_choice_zeros_included() -> None:
    room = Room(code="ACDEFG", lesson="demo-lesson", token_hash="", created_ms=0, expires_ms=1,
                quiz={"id": "q", "choices": ["a", "b", "c"]}, answers={"x": "a", "y": "a", "z": "c"})
    assert room.tally() == {"a": 2, "b": 0, "c": 1}


def test_a_lagging_socket_is_closed_not_buffered_forever() -> None:
    async def scenario() -> Connection:
        conn = Connection(ws=None, code="ACDEFG", role="follower", client="f",  # type: ignore[arg-type]
                          queue=asyncio.Queue(maxsize=4))
        for i in range(10):
            conn.offer(f"frame {i}")
        return conn

    conn = asyncio.run(scenario())
    assert conn.closing == (protocol.CLOSE_TOO_SLOW, "fell too far behind; reconnect to catch up")
    assert conn.queue.qsize() == 1 and conn.queue.get_nowait() is None  # the backlog was dropped


def test_only_the_newest_state_tally_or_count_waits_per_socket() -> None:
    async def scenario() -> tuple[Connection, list[str | None]]:
        conn = Connection(ws=None, code="ACDEFG", role="presenter", client="",  # type: ignore[arg-type]
                          queue=asyncio.Queue(maxsize=4))
        conn.offer_latest("tally", "tally 1")
        conn.offer("quiz")
        for i in range(2, 500):  # a burst of answers: never more than one tally waits
            conn.offer_latest("tally", f"tally {i}")
        conn.offer_latest("state", "state 1")
        conn.offer_latest("state", "state 2")
        sent = []
        while not conn.queue.empty():
            sent.append(conn.take(conn.queue.get_nowait()))
        return conn, sent

    conn, sent = asyncio.run(scenario())
    assert conn.closing is None
    assert sent == ["tally 499", "quiz", "state 2"]
    conn.offer_latest("state", "state 3")  # sent already: a new one queues again
    assert conn.take(conn.queue.get_nowait()) == "state 3"


def test_token_bucket() -> None:
    conn = Connection(ws=None, code="ACDEFG", role="follower", client="f", tokens=4, refilled=0.0)  # type: ignore[arg-type]
    assert [conn.admit(0.0, rate=2, burst=4) for _ in range(5)] == [True, True, True, True, False]
    assert conn.admit(0.5, rate=2, burst=4) is True  # one token back after 0.5 s at 2/s
    assert conn.admit(0.5, rate=2, burst=4) is False
    assert sum(conn.admit(100.0, rate=2, burst=4) for _ in range(10)) == 4  # never more than the burst


def test_log_filter_redacts_tokens_and_keeps_uvicorns_access_arguments() -> None:
    import logging

    from uvicorn.logging import AccessFormatter

    from kscope.api.log_filters import RedactTokens

    record = logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
                               ("127.0.0.1:5", "GET", "/api/traces/x/progress?token=s3cret&a=1", "1.1", 200), None)
    assert RedactTokens().filter(record)
    line = AccessFormatter('%(client_addr)s - "%(request_line)s" %(status_code)s', use_colors=False).format(record)
    assert line == '127.0.0.1:5 - "GET /api/traces/x/progress?token=***&a=1 HTTP/1.1" 200 OK'
    ws = logging.LogRecord("uvicorn.error", logging.INFO, __file__, 1, '%s - "WebSocket %s" [accepted]',
                           ("127.0.0.1:5", "/api/rooms/ACDEFG/ws?role=presenter&token=abc-DEF_1"), None)
    RedactTokens().filter(ws)
    assert ws.getMessage() == '127.0.0.1:5 - "WebSocket /api/rooms/ACDEFG/ws?role=presenter&token=***" [accepted]'
