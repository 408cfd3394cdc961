"""Rooms: a presenter drives a lesson and followers see the same step live.

The problem. A teacher presents a lesson from one browser; students follow on laptops
and phones. The presenter's position in the lesson (a `LessonPosition`: lesson, step,
toggles, view, pointer; opaque to this package) must reach every follower quickly, a
follower who drops (Wi-Fi, a sleeping phone) must catch up without a reload, quizzes
collect one answer per student, and nobody but the presenter may drive.

The idea. A room is a small record keyed by a 6-character code: the latest state and
its sequence number `seq`, the open quiz, the answers to it (one per open follower
socket, so answering again replaces the answer, and a closed socket's answer goes), the revealed answer, an expiry time. A
*broker* holds the records and fans events out; a per-process *hub* holds the
WebSockets of that process and writes each event to its local sockets.

    presenter ws --> hub --> broker.publish_state --(event)--> hub(s) --> follower ws
                                   |                                  (each process)
                          record: seq, state, quiz, answers, revealed, expires

Two brokers with the same contract (tests run the same suite on both):
- memory.MemoryBroker: one process, events delivered by a direct call;
- redis_broker.RedisBroker (KSCOPE_REDIS_URL): records in Redis hashes with a TTL,
  each mutation a Lua script that writes and PUBLISHes in one atomic step (so the
  order of events on the channel is the order of the writes), events fanned out by
  Redis pub/sub to every backend process, so processes behind a load balancer serve
  one room.

Invariants.
- `seq` grows by one per state; a client applies a state only if its seq is newer
  than the one it has, so duplicates from catch-up + live delivery are harmless.
- Catch-up: a socket registers with its hub before it reads the record, so anything
  published after the read reaches it live and nothing in between is lost.
- Memory is bounded: rooms (settings.room_max_rooms), followers per room per process
  (room_max_followers), message size (room_max_message_bytes), and queued messages per
  socket (room_send_queue; a follower that falls that far behind is disconnected and
  catches up on reconnect).
- Fair use per client address (model.creation_refusal, both brokers): rooms made per
  window and alive at once (429 + Retry-After), followers per room (4429); a room nobody
  has presented in expires after room_unpresented_ttl_s, so a flood of empty rooms frees
  the global cap in minutes, not hours; one vote per open socket.
- Only a socket that presented the presenter token (its SHA-256 is stored, never the
  token) may send state, quiz_open or reveal; anything else gets an error message and
  keeps its connection.

Wire protocol: see protocol.py.
"""
