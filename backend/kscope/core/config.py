"""The one Settings object: every tunable of the backend, read from `KSCOPE_*` env vars.

A plain dataclass: `Settings(data_dir=...)` takes a field as given, and every field not
given is read from `KSCOPE_<FIELD>` (upper case) if set, else its default. The standard
library only: `kscope ingest` reads its settings before anything else, and importing
pydantic-settings took ~0.12 s of its start-up (python -X importtime).
"""

import dataclasses
import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

# backend/kscope/core/config.py -> the repository root (the package is installed editable).
REPO_ROOT = Path(__file__).resolve().parents[3]

MIB = 1 << 20
GIB = 1 << 30


ENV_PREFIX = "KSCOPE_"

# The decompression-bomb limits, shared with the browser's Open locally (one definition).
DECOMPRESSION = json.loads((Path(__file__).resolve().parents[1] / "data" / "decompression.json").read_text())


class SettingsError(ValueError):
    """An environment variable that does not read as its field's type."""


def _from_env(name: str, kind: type, text: str) -> Any:
    try:
        if kind is bool:
            if text.strip().lower() in ("1", "true", "yes", "on"):
                return True
            if text.strip().lower() in ("0", "false", "no", "off", ""):
                return False
            raise ValueError(text)
        return kind(text.strip()) if kind in (int, float) else kind(text)
    except ValueError:
        raise SettingsError(f"{ENV_PREFIX}{name.upper()}={text!r}: expected {kind.__name__}") from None


@dataclasses.dataclass(init=False)
class Settings:
    """Backend settings; each field can be overridden by `KSCOPE_<FIELD>`."""

    host: str = "127.0.0.1"
    port: int = 8000
    core_lib: Path = REPO_ROOT / "wasm-core" / "build" / "native" / "libkscope.so"
    # The native ingest program (wasm-core/tools/ingest): decodes a trace into the store's files.
    ingest_program: Path = REPO_ROOT / "wasm-core" / "build" / "native" / "kscope-ingest"
    # The browser's wasm module (the .wasm beside it), run under Node by the benchmarks
    # and the native/wasm cross-check.
    wasm_module: Path = REPO_ROOT / "wasm-core" / "build" / "wasm" / "kscope_core.mjs"
    node: str = "node"  # the Node.js executable (a name on PATH or a path)
    frontend_dist: Path = REPO_ROOT / "frontend" / "dist"

    # Trace store: metadata in <data_dir>/meta.sqlite (or PostgreSQL when database_url is
    # a postgresql:// URL), events and summaries in <data_dir>/traces/<id>/.
    data_dir: Path = REPO_ROOT / ".kscope" / "data"
    database_url: str = ""
    # Uploads: bytes accepted on the wire (compressed or not), default 4 GiB.
    max_upload_bytes: int = 4 * GIB
    # Decompressed size limit (bytes) and the largest decompressed/compressed ratio a
    # compressed input may reach (measured once more than 1 MiB came out): bomb guards.
    # Defaults from kscope/data/decompression.json, which the browser reads too.
    max_decompressed_bytes: int = DECOMPRESSION["max_decompressed_bytes"]  # 16 GiB
    max_compression_ratio: int = DECOMPRESSION["max_compression_ratio"]
    # Records per batch of kscope-ingest (one row group per CPU per batch; raised to 2048 per
    # CPU seen, so row groups stay big on many-CPU machines). Memory in flight is a few
    # batches: ~96 bytes a record decoded, ~120 as columns. 0: by input size (32 Ki under
    # 256 MiB, else 64 Ki; wasm-core/tools/ingest/ingest_main.c says why).
    ingest_batch_events: int = 0
    # Threads decoding one text trace side by side (files over 32 MiB); 0: one per CPU, at most 4.
    ingest_decode_threads: int = 0
    # Ingests a server runs at once (each a kscope-ingest process), and how many more may wait
    # their turn; past that an upload is refused with 503 + Retry-After before its body is read.
    # They run ingest_nice levels below the event loop (threads and kscope-ingest processes).
    ingest_workers: int = 2
    ingest_queue: int = 64
    ingest_nice: int = 10
    # Read-only SQL over a trace (POST /api/traces/{id}/sql). sql_timeout_s: wall-clock limit
    # (seconds) on running, fetching and encoding a result (DuckDB is interrupted past it);
    # rows returned at most (more: "truncated"); bytes of the encoded result at most (more:
    # 422); the memory DuckDB may use for one query (more: 422).
    sql_timeout_s: float = 10.0
    sql_max_rows: int = 100_000
    sql_max_bytes: int = 32 * MIB
    sql_memory_bytes: int = 256 * MIB
    # Queries run on their own sql_max_concurrent threads (the rest of the API never waits for
    # them); up to sql_queue more wait; one token may have sql_per_token running or waiting.
    # Past either: 429 with Retry-After.
    sql_max_concurrent: int = 2
    sql_queue: int = 32
    sql_per_token: int = 8
    # GET /events: rows per page at most, Arrow and JSON (a JSON row costs ~10x an Arrow one);
    # more rows: the X-Kscope-Next-Cursor header gives the next page. Reads and encodings run
    # on events_max_concurrent threads of their own, with a queue and a per-token cap as for SQL.
    events_max_rows: int = 200_000
    events_max_json_rows: int = 20_000
    events_max_concurrent: int = 2
    events_queue: int = 8
    events_per_token: int = 4
    # GET /{id}/export and `kscope export`: events in one export at most (the window or the whole
    # trace); more: 422 naming the count and asking for a narrower window. Bounds the memory
    # (the rows are read, then written out a batch at a time).
    export_max_events: int = 2_000_000

    # Rooms (kscope/rooms/): a room lives room_ttl_s seconds after the presenter's last
    # activity (a connected presenter counts as active). Limits bound the memory: rooms
    # per server, followers per room in one process, bytes per client frame (frames over
    # it get an error reply), frames queued per socket before a lagging follower is
    # disconnected (it reconnects and catches up). room_sweep_s: how often expiry is checked.
    room_ttl_s: float = 4 * 3600.0
    room_max_rooms: int = 1000
    room_max_followers: int = 500
    room_max_message_bytes: int = 16 * 1024
    room_send_queue: int = 256
    # Follower frames per second per socket (bursts of twice that); more get an error reply.
    room_client_rate: float = 20.0
    room_sweep_s: float = 5.0
    # Fair use (issue 20: one client created 996 rooms in 2.4 s and shut everyone out for 4 h;
    # one filled a room with 500 made-up followers). Per client address (the TCP peer, or what a
    # trusted proxy forwards): rooms it may create per room_create_window_s seconds, rooms it
    # created that may be alive at once, and follower sockets it may hold in one room (per
    # process). Past a limit POST /api/rooms answers 429 with Retry-After, a follower socket is
    # refused with 4429. A room nobody has presented in yet expires room_unpresented_ttl_s after
    # it was made (a presenter's activity gives it room_ttl_s).
    room_create_per_address: int = 10
    room_create_window_s: float = 600.0
    room_max_rooms_per_address: int = 20
    room_max_followers_per_address: int = 60
    room_unpresented_ttl_s: float = 900.0
    # Rooms in Redis (redis://host:port/db) so several backend processes serve one room
    # through pub/sub; empty: rooms live in this process.
    redis_url: str = ""

    def __init__(self, **given: Any) -> None:
        fields = {f.name: f for f in dataclasses.fields(self)}
        unknown = set(given) - set(fields)
        if unknown:
            raise TypeError(f"Settings: no field {', '.join(sorted(unknown))}")
        for name, f in fields.items():
            kind = f.type  # a class: this module has no `from __future__ import annotations`
            if name in given:
                value = given[name]
            elif (text := os.environ.get(f"{ENV_PREFIX}{name.upper()}")) is not None:
                value = _from_env(name, kind, text)
            else:
                value = f.default
            setattr(self, name, Path(value) if kind is Path else value)


@lru_cache
def get_settings() -> Settings:
    """The settings of this process, read once from the environment."""
    return Settings()
