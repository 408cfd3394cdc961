"""`kscope serve`: the API and the built frontend, under uvicorn."""

import argparse
import copy
import sys
from typing import Any

from kscope.cli.common import EXIT_OK


def _uvicorn_log_config() -> dict[str, Any]:
    """uvicorn's logging config with the access log moved from stdout to stderr."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config["handlers"]["access"]["stream"] = "ext://sys.stderr"
    # Query-string tokens (room presenter, trace owner) are written as token=***.
    config.setdefault("filters", {})["redact_tokens"] = {"()": "kscope.api.log_filters.RedactTokens"}
    for handler in config["handlers"].values():
        handler.setdefault("filters", []).append("redact_tokens")
    return config


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from kscope import __version__
    from kscope.api.app import create_app
    from kscope.core.config import get_settings
    from kscope.native import core

    settings = get_settings()
    host = args.host or settings.host
    port = args.port or settings.port
    print(f"kscope {__version__}: core {core.version()} from {settings.core_lib}", file=sys.stderr)
    # ws_max_size: a WebSocket frame over 1 MiB closes its socket (1009); frames up to that
    # are read and the rooms refuse those over KSCOPE_ROOM_MAX_MESSAGE_BYTES with an error frame.
    # No permessage-deflate: room frames are ~100 bytes, and compressing each one for each
    # follower cost a third of the server's CPU per broadcast (kscope bench rooms: 11.5 -> 7.7 ms
    # for 300 followers).
    uvicorn.run(create_app(settings), host=host, port=port, log_config=_uvicorn_log_config(),
                ws_max_size=1 << 20, ws_per_message_deflate=False)
    return EXIT_OK


def add_parser(sub: Any) -> None:
    serve = sub.add_parser("serve", help="serve the API and the built frontend")
    serve.add_argument("--host", help="interface to bind (default: KSCOPE_HOST or 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port to listen on (default: KSCOPE_PORT or 8000)")
    serve.set_defaults(func=run)
