"""The Redis broker: rooms shared by every backend process that points at one Redis.

Chosen when KSCOPE_REDIS_URL is set. Keys of room CODE (all expire together):

    kscope:room:CODE            hash  lesson token_hash created_ms expires_ms seq state
                                      sent_at_ms quiz revealed            (PEXPIRE = TTL)
    kscope:room:CODE:answers    hash  follower connection id -> choice (the open quiz's)
    kscope:room:CODE:followers  hash  backend process id -> its connected followers
    kscope:rooms                zset  CODE -> expires_ms (counts live rooms for the cap)
    kscope:roomsby:ADDRESS      zset  CODE -> created_ms (the rooms a client address made: fair use)
    channel kscope:roomev:CODE        {"to": "all"|"presenter", "msg": <server frame>}

Each mutation is one Lua script that checks, writes and PUBLISHes atomically, so the
channel carries events in the order of the writes (two processes taking answers at
the same moment cannot publish an older tally after a newer one), and `seq` comes
from HINCRBY inside the same script. Every process PSUBSCRIBEs kscope:roomev:* once
and hands each event to its hub, which drops events of rooms it has no socket in
(simple and enough for classroom-sized deployments; per-room SUBSCRIBE would scale
to many more rooms).

Simplification: a backend process that dies without closing its sockets leaves its
followers count in the hash until the room expires (the presenter's follower count
is then too high); its followers reconnect to another process and are counted there.
Likewise the answers of its sockets stay counted until the room expires (a socket's
answer is withdrawn when it closes, and a process killed with -9 closes nothing).
"""

import asyncio
import json
import sys
import uuid
from typing import Any

from kscope.core.config import Settings
from kscope.rooms.broker import Deliver
from kscope.rooms.model import (QuizRefused, Room, RoomNotFound, RoomsFull, RoomStoreUnavailable, creation_refusal,
                                hash_token, new_code, new_token, now_ms)

ROOMS_ZSET = "kscope:rooms"
CREATORS_PREFIX = "kscope:roomsby:"  # + client address: zset of the codes it made -> created_ms
CHANNEL_PATTERN = "kscope:roomev:*"

# KEYS: room, answers, followers, rooms zset. ARGV: code, now_ms, ttl_ms, channel, then per script.
_PRELUDE = """
local R, A, F, Z = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local code, now, ttl, chan = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local function touch()
  local exp = now + ttl
  redis.call('HSET', R, 'expires_ms', exp)
  redis.call('PEXPIRE', R, ttl)
  redis.call('PEXPIRE', A, ttl)
  redis.call('PEXPIRE', F, ttl)
  redis.call('ZADD', Z, exp, code)
end
local function tally(quiz_json)
  local quiz = cjson.decode(quiz_json)
  local counts = {}
  for _, c in ipairs(quiz.choices) do counts[c] = 0 end
  for _, c in ipairs(redis.call('HVALS', A)) do
    if counts[c] ~= nil then counts[c] = counts[c] + 1 end
  end
  local body = '{"to":"presenter","msg":{"type":"tally","quiz_id":' .. cjson.encode(quiz.id)
  if next(counts) == nil then return body .. ',"counts":{}}}' end
  return body .. ',"counts":' .. cjson.encode(counts) .. '}}'
end
local function open_quiz_is(quiz_id)
  local q = redis.call('HGET', R, 'quiz')
  if not q then return nil end
  local quiz = cjson.decode(q)
  if quiz.id ~= quiz_id then return nil end
  return quiz, q
end
local function has(list, item)
  for _, v in ipairs(list) do if v == item then return true end end
  return false
end
if redis.call('EXISTS', R) == 0 then return 'notfound' end
"""

# KEYS: room, rooms zset, the creator's zset (code -> created_ms). ARGV: code, lesson, token_hash,
# now_ms, first ttl_ms (room_unpresented_ttl_s), max rooms, creator address ('' = no limits),
# window ms, rooms per window, live rooms per address, how long the creator's zset lives (ms).
# Over a per-address limit: {'limited', creation times in the window, expiries of its live rooms}
# (as JSON), decided here so that concurrent creations cannot pass the limit together.
_CREATE = """
local now = tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('EXISTS', KEYS[1]) == 1 then return 'exists' end
if ARGV[7] ~= '' then
  local made, live = {}, {}
  local window = tonumber(ARGV[8])
  local entries = redis.call('ZRANGE', KEYS[3], 0, -1, 'WITHSCORES')
  for i = 1, #entries, 2 do
    local c, t = entries[i], tonumber(entries[i + 1])
    local exp = redis.call('ZSCORE', KEYS[2], c)
    if exp then table.insert(live, tonumber(exp)) end
    if t > now - window then table.insert(made, t) end
    if not exp and t <= now - window then redis.call('ZREM', KEYS[3], c) end
  end
  if #made >= tonumber(ARGV[9]) or #live >= tonumber(ARGV[10]) then
    return {'limited', cjson.encode(made), cjson.encode(live)}
  end
end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[6]) then return 'full' end
local exp = now + tonumber(ARGV[5])
redis.call('HSET', KEYS[1], 'lesson', ARGV[2], 'token_hash', ARGV[3], 'created_ms', ARGV[4],
           'expires_ms', exp, 'seq', 0, 'sent_at_ms', 0, 'creator', ARGV[7])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('ZADD', KEYS[2], exp, ARGV[1])
if ARGV[7] ~= '' then
  redis.call('ZADD', KEYS[3], now, ARGV[1])
  redis.call('PEXPIRE', KEYS[3], ARGV[11])
end
return 'ok'
"""

_TOUCH = _PRELUDE + """
touch()
return 'ok'
"""

# ARGV[5]: the state, already JSON (spliced into the frame as is).
_STATE = _PRELUDE + """
touch()
local seq = redis.call('HINCRBY', R, 'seq', 1)
redis.call('HSET', R, 'state', ARGV[5], 'sent_at_ms', now)
redis.call('PUBLISH', chan, '{"to":"all","msg":{"type":"state","seq":' .. seq .. ',"sent_at_ms":' .. ARGV[2]
           .. ',"state":' .. ARGV[5] .. '}}')
return seq
"""

# ARGV[5]: the quiz as canonical JSON {"id","choices"}.
_QUIZ_OPEN = _PRELUDE + """
touch()
if redis.call('HGET', R, 'quiz') ~= ARGV[5] then
  redis.call('DEL', A)
  redis.call('HDEL', R, 'revealed')
end
redis.call('HSET', R, 'quiz', ARGV[5])
redis.call('PUBLISH', chan, '{"to":"all","msg":{"type":"quiz","quiz":' .. ARGV[5] .. '}}')
redis.call('PUBLISH', chan, tally(ARGV[5]))
return 'ok'
"""

# ARGV[5..7]: client id, quiz id, choice.
_ANSWER = _PRELUDE + """
local quiz, quiz_json = open_quiz_is(ARGV[6])
if not quiz then return 'notopen' end
local rev = redis.call('HGET', R, 'revealed')
if rev and cjson.decode(rev).quiz_id == ARGV[6] then return 'closed' end
if not has(quiz.choices, ARGV[7]) then return 'badchoice' end
redis.call('HSET', A, ARGV[5], ARGV[7])
redis.call('PEXPIRE', A, redis.call('PTTL', R))
redis.call('PUBLISH', chan, tally(quiz_json))
return 'ok'
"""

# ARGV[5..6]: quiz id, answer (the model's: not checked against the choices); ARGV[7]: the reveal as JSON.
_REVEAL = _PRELUDE + """
local quiz = open_quiz_is(ARGV[5])
if not quiz then return 'notopen' end
touch()
redis.call('HSET', R, 'revealed', ARGV[7])
redis.call('PUBLISH', chan, '{"to":"all","msg":{"type":"reveal","quiz_id":' .. cjson.encode(ARGV[5])
           .. ',"answer":' .. cjson.encode(ARGV[6]) .. '}}')
return 'ok'
"""

# ARGV[5]: the voter (a follower connection's id) whose answer goes: its socket closed.
_WITHDRAW = _PRELUDE + """
if redis.call('HDEL', A, ARGV[5]) == 0 then return 'none' end
local q = redis.call('HGET', R, 'quiz')
if q then redis.call('PUBLISH', chan, tally(q)) end
return 'ok'
"""

# ARGV[5..6]: this process's id, its follower count.
_FOLLOWERS = _PRELUDE + """
if tonumber(ARGV[6]) == 0 then redis.call('HDEL', F, ARGV[5]) else redis.call('HSET', F, ARGV[5], ARGV[6]) end
redis.call('PEXPIRE', F, redis.call('PTTL', R))
local total = 0
for _, n in ipairs(redis.call('HVALS', F)) do total = total + tonumber(n) end
redis.call('PUBLISH', chan, '{"to":"presenter","msg":{"type":"followers","count":' .. total .. '}}')
return 'ok'
"""


def _keys(code: str) -> list[str]:
    room = f"kscope:room:{code}"
    return [room, f"{room}:answers", f"{room}:followers", ROOMS_ZSET]


class RedisBroker:
    def __init__(self, settings: Settings) -> None:
        import redis.asyncio as aioredis

        self._url = settings.redis_url
        self._ttl_ms = int(settings.room_ttl_s * 1000)
        self._fresh_ttl_ms = int(min(settings.room_unpresented_ttl_s, settings.room_ttl_s) * 1000)
        self._max_rooms = settings.room_max_rooms
        self._settings = settings
        self._redis = aioredis.from_url(settings.redis_url, decode_responses=True)
        self._process = uuid.uuid4().hex[:12]
        self._scripts = {name: self._redis.register_script(body) for name, body in
                         (("create", _CREATE), ("touch", _TOUCH), ("state", _STATE), ("quiz", _QUIZ_OPEN),
                          ("answer", _ANSWER), ("reveal", _REVEAL), ("followers", _FOLLOWERS),
                          ("withdraw", _WITHDRAW))}
        self._reader: asyncio.Task[None] | None = None
        self._subscribed = asyncio.Event()

    async def start(self, deliver: Deliver) -> None:
        self._reader = asyncio.create_task(self._listen(deliver))
        try:
            await asyncio.wait_for(self._subscribed.wait(), timeout=10)
        except TimeoutError:  # serve the rest of the app; rooms answer 503 until Redis is back
            print(f"kscope rooms: no pub/sub from Redis at {self._url} after 10 s; still trying", file=sys.stderr)

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            try:
                await self._reader
            except (asyncio.CancelledError, Exception):
                pass
        await self._redis.aclose()

    async def _listen(self, deliver: Deliver) -> None:
        """Hands every room event on the channel to `deliver`; resubscribes after a Redis outage."""
        delay = 0.1
        while True:
            pubsub = self._redis.pubsub()
            try:
                await pubsub.psubscribe(CHANNEL_PATTERN)
                self._subscribed.set()
                delay = 0.1
                async for item in pubsub.listen():
                    if item["type"] != "pmessage":
                        continue
                    code = item["channel"].rsplit(":", 1)[1]
                    envelope = json.loads(item["data"])
                    deliver(code, envelope["to"], envelope["msg"])
            except asyncio.CancelledError:
                await pubsub.aclose()
                raise
            except Exception as err:  # Redis went away: retry with backoff, keep serving
                print(f"kscope rooms: redis pub/sub at {self._url}: {err}; retrying in {delay:.1f} s",
                      file=sys.stderr)
                await pubsub.aclose()
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)

    async def _call(self, coro: Any) -> Any:
        """Awaits a Redis call; a connection failure becomes RoomStoreUnavailable (503 / an error frame)."""
        import redis.exceptions

        try:
            return await coro
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError) as err:
            raise RoomStoreUnavailable(f"room store (Redis at {self._url}) unavailable: {err}") from None

    async def _run(self, name: str, code: str, *extra: Any) -> Any:
        result = await self._call(self._scripts[name](keys=_keys(code),
                                                      args=[code, now_ms(), self._ttl_ms, f"kscope:roomev:{code}",
                                                            *extra]))
        if result == "notfound":
            raise RoomNotFound(code)
        return result

    async def create(self, lesson: str, address: str = "") -> tuple[Room, str]:
        token = new_token()
        limits = self._settings
        window_ms = int(limits.room_create_window_s * 1000)
        for _ in range(20):
            code = new_code()
            now = now_ms()
            keys = _keys(code)
            result = await self._call(self._scripts["create"](
                keys=[keys[0], ROOMS_ZSET, f"{CREATORS_PREFIX}{address}"],
                args=[code, lesson, hash_token(token), now, self._fresh_ttl_ms, self._max_rooms, address,
                      window_ms, limits.room_create_per_address, limits.room_max_rooms_per_address,
                      max(self._ttl_ms, window_ms)]))
            if isinstance(result, list) and result and result[0] == "limited":
                made, live = (list(json.loads(x) or []) for x in result[1:3])
                refusal = creation_refusal(address, [int(t) for t in made], [int(t) for t in live], now,
                                           limits.room_create_per_address, window_ms,
                                           limits.room_max_rooms_per_address)
                assert refusal is not None
                raise refusal
            if result == "full":
                raise RoomsFull(self._max_rooms)
            if result == "ok":
                return Room(code=code, lesson=lesson, token_hash=hash_token(token), created_ms=now,
                            expires_ms=now + self._fresh_ttl_ms, creator=address), token
        raise RuntimeError("20 room codes in a row were taken")  # 1.5e8 codes: never in practice

    async def get(self, code: str) -> Room | None:
        keys = _keys(code)
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.hgetall(keys[0]).hgetall(keys[1]).hvals(keys[2])
            fields, answers, followers = await self._call(pipe.execute())
        if not fields:
            return None
        return Room(code=code, lesson=fields["lesson"], token_hash=fields["token_hash"],
                    created_ms=int(float(fields["created_ms"])), expires_ms=int(float(fields["expires_ms"])),
                    seq=int(fields["seq"]), state=json.loads(fields["state"]) if "state" in fields else None,
                    sent_at_ms=int(float(fields["sent_at_ms"])),
                    quiz=json.loads(fields["quiz"]) if "quiz" in fields else None, answers=answers,
                    revealed=json.loads(fields["revealed"]) if "revealed" in fields else None,
                    followers=sum(int(n) for n in followers), creator=fields.get("creator", ""))

    async def touch(self, code: str) -> Room:
        await self._run("touch", code)
        room = await self.get(code)
        if room is None:
            raise RoomNotFound(code)
        return room

    async def publish_state(self, code: str, state: Any) -> int:
        return int(await self._run("state", code, json.dumps(state, separators=(",", ":"))))

    async def open_quiz(self, code: str, quiz: dict[str, Any]) -> None:
        canonical = json.dumps({"id": quiz["id"], "choices": list(quiz["choices"])}, separators=(",", ":"))
        await self._run("quiz", code, canonical)

    async def answer(self, code: str, voter: str, quiz_id: str, choice: str) -> None:
        _refusal(await self._run("answer", code, voter, quiz_id, choice), code, quiz_id, choice)

    async def withdraw(self, code: str, voter: str) -> None:
        try:
            await self._run("withdraw", code, voter)
        except RoomNotFound:
            pass

    async def reveal(self, code: str, quiz_id: str, answer: str) -> None:
        revealed = json.dumps({"quiz_id": quiz_id, "answer": answer}, separators=(",", ":"))
        _refusal(await self._run("reveal", code, quiz_id, answer, revealed), code, quiz_id, answer)

    async def set_followers(self, code: str, local_count: int) -> None:
        try:
            await self._run("followers", code, self._process, local_count)
        except RoomNotFound:
            pass


def _refusal(result: str, code: str, quiz_id: str, choice: str) -> None:
    """The same messages as model.check_answer / check_reveal, from the script's verdict."""
    if result == "notopen":
        raise QuizRefused(f"quiz {quiz_id!r} is not open in room {code}")
    if result == "closed":
        raise QuizRefused(f"quiz {quiz_id!r} is closed: the answer was revealed")
    if result == "badchoice":
        raise QuizRefused(f"{choice!r} is not a choice of quiz {quiz_id!r}")
