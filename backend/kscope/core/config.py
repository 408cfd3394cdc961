"""The one Settings object: every tunable of the backend, read from `KSCOPE_*` env vars."""

from functools import lru_cache
from pathlib import Path

from pydantic_settings import BaseSettings, SettingsConfigDict

# backend/kscope/core/config.py -> the repository root (the package is installed editable).
REPO_ROOT = Path(__file__).resolve().parents[3]

MIB = 1 << 20
GIB = 1 << 30


class Settings(BaseSettings):
    """Backend settings; each field can be overridden by `KSCOPE_<FIELD>`."""

    model_config = SettingsConfigDict(env_prefix="KSCOPE_")

    host: str = "127.0.0.1"
    port: int = 8000
    core_lib: Path = REPO_ROOT / "wasm-core" / "build" / "native" / "libkscope.so"
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
    max_decompressed_bytes: int = 16 * GIB
    max_compression_ratio: int = 500
    # Records per Parquet write (bounds ingest memory: ~300 bytes each while in flight;
    # raised to 2048 per CPU seen, so row groups stay big on many-CPU machines). 64 Ki: with
    # 128 Ki a 10 M-event text ingest ran 354 MB/s instead of 320, but a 1 M-event one peaked
    # at 2.0x its input's size instead of 1.4x and ran 165 MB/s instead of 193 (kscope bench
    # ingest, same quiet machine, one run each).
    ingest_batch_events: int = 1 << 16
    # Threads decoding one text trace side by side (files over 32 MiB); 0: one per CPU, at most 4.
    ingest_decode_threads: int = 0
    # Read-only SQL over a trace: wall-clock limit (seconds) and rows returned at most.
    sql_timeout_s: float = 10.0
    sql_max_rows: int = 100_000
    # Rows /events returns at most per request.
    events_max_rows: int = 1_000_000

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
    # Rooms in Redis (redis://host:port/db) so several backend processes serve one room
    # through pub/sub; empty: rooms live in this process.
    redis_url: str = ""


@lru_cache
def get_settings() -> Settings:
    """The settings of this process, read once from the environment."""
    return Settings()
