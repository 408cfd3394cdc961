"""Logging filters for `kscope serve`: secrets never reach the logs.

uvicorn logs each request and WebSocket with its query string; a room's presenter
token (`/api/rooms/X/ws?role=presenter&token=...`) and a trace owner's token
(`/api/traces/ID/progress?token=...`) would be written out in full. This filter
replaces the value of every `token=` query parameter with `***`.
"""

import logging
import re

_TOKEN = re.compile(r"([?&]token=)[^&\s\"']+")


class RedactTokens(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "token=" in message:
            record.msg = _TOKEN.sub(r"\1***", message)
            record.args = ()
        return True
