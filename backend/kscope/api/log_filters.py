"""Logging filters for `kscope serve`: secrets never reach the logs.

uvicorn logs each request and WebSocket with its query string; a room's presenter
token (`/api/rooms/X/ws?role=presenter&token=...`) and a trace owner's token
(`/api/traces/ID/progress?token=...`) would be written out in full. This filter
replaces the value of every `token=` query parameter with `***`.
"""

import logging
import re

_TOKEN = re.compile(r"([?&]token=)[^&\s\"']+")


def _redact(value: object) -> object:
    return _TOKEN.sub(r"\1***", value) if isinstance(value, str) and "token=" in value else value


class RedactTokens(logging.Filter):
    """Redacts in place: the message and each string argument (uvicorn's access formatter
    unpacks the arguments, so their number and order are kept)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = _redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(_redact(a) for a in record.args)
        elif isinstance(record.args, dict):
            record.args = {k: _redact(v) for k, v in record.args.items()}
        return True
