"""A live ks_event_log: the sink simulations and decoders append records to."""

import ctypes
from functools import lru_cache
from typing import Any

from kscope.native import core, events


class EventLog:
    """An owned ks_event_log *: records back to back + the text arena of generic ones."""

    def __init__(self) -> None:
        self._handle = ctypes.c_void_p()
        core.check(core.lib().ks_event_log_new(ctypes.byref(self._handle)))

    @property
    def handle(self) -> ctypes.c_void_p:
        """The raw handle, for the other native wrappers."""
        if not self._handle:
            raise ValueError("event log is closed")
        return self._handle

    def __len__(self) -> int:
        return core.lib().ks_event_log_count(self.handle)

    def raw(self, start: int = 0, stop: int | None = None) -> bytes:
        """Records [start, stop) as bytes (a copy, 96 bytes per record)."""
        n = len(self)
        stop = n if stop is None else min(stop, n)
        if start >= stop:
            return b""
        base = core.lib().ks_event_log_data(self.handle)
        return ctypes.string_at(base + start * events.EVENT_SIZE, (stop - start) * events.EVENT_SIZE)

    def text(self, offset: int) -> str:
        """The arena text at a generic record's name_off/fields_off."""
        return core.text(core.lib().ks_event_log_text(self.handle, offset))

    def decode(self, start: int = 0, stop: int | None = None) -> list[dict[str, Any]]:
        """Records [start, stop) as dicts, generic ones with their name and fields text."""
        return events.decode_events(self.raw(start, stop), self.text)

    def clear(self) -> None:
        """Empties the log, keeping its memory (views of its records go stale)."""
        _clear_fn()(self.handle)

    def close(self) -> None:
        """Frees the log (idempotent)."""
        if self._handle:
            core.lib().ks_event_log_free(self._handle)
            self._handle = ctypes.c_void_p()

    def __enter__(self) -> "EventLog":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def records_view(log: EventLog) -> memoryview:
    """The log's records as a read-only view of the C array (no copy).

    Valid only while the log lives and nothing is appended to it.
    """
    n = len(log)
    if n == 0:
        return memoryview(b"")
    base = core.lib().ks_event_log_data(log.handle)
    return memoryview((ctypes.c_char * (n * events.EVENT_SIZE)).from_address(base)).cast("B")


def has_text(log: EventLog) -> bool:
    """Whether the log's text arena holds anything (it does iff a generic record was appended)."""
    return bool(_text_address(log.handle, 0))


def text_arena(log: EventLog, last_fields_off: int) -> bytes:
    """The text arena up to and including the string at last_fields_off (a copy).

    Generic records append "name\\0fields\\0" back to back, so the arena up to the
    last generic record's fields text holds every name and fields text of the log.
    """
    start = _text_address(log.handle, 0)
    if not start:
        return b""
    end = _text_address(log.handle, last_fields_off)
    tail = ctypes.string_at(end)
    return ctypes.string_at(start, end - start + len(tail) + 1)


@lru_cache(maxsize=1)
def _clear_fn():  # type: ignore[no-untyped-def]
    fn = core.lib()["ks_event_log_clear"]
    fn.argtypes = [ctypes.c_void_p]
    fn.restype = None
    return fn


@lru_cache(maxsize=1)
def _text_address_fn():  # type: ignore[no-untyped-def]
    fn = core.lib()["ks_event_log_text"]  # a second prototype of it: the address, not a str
    fn.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
    fn.restype = ctypes.c_void_p
    return fn


def _text_address(handle: ctypes.c_void_p, offset: int) -> int:
    return _text_address_fn()(handle, offset) or 0
