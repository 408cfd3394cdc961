"""ftrace text in and out through the C decoder and exporter (kscope/ftrace.h).

Both directions stream: the decoder is fed the file in chunks and each chunk's
records land in a short-lived sink, and the exporter is pulled into one fixed
buffer that is written out piece by piece, so neither the text nor the whole
event stream has to sit in Python.
"""

import ctypes
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from kscope.native import core, events
from kscope.native import structs as st
from kscope.native.log import EventLog

TGID = 1
IRQ_INFO = 2
NSEC = 4
DEFAULT_FLAGS = TGID | IRQ_INFO
FORMATS = {0: "unknown", 1: "tracefs", 2: "trace-cmd"}  # KS_FTRACE_FORMAT_*

_PIECE = 1 << 20  # bytes per exporter read / decoder feed


def _header(nr_events: int, nr_cpus: int, flags: int) -> bytes:
    """The trace file's header for this many events (ks_ftrace_format_header)."""
    lib = core.lib()
    need = ctypes.c_int32()
    buf = ctypes.create_string_buffer(512)
    status = lib.ks_ftrace_format_header(nr_events, nr_cpus, flags, buf, len(buf), ctypes.byref(need))
    if status == core.KS_ERR_RANGE:
        buf = ctypes.create_string_buffer(need.value + 1)  # + the NUL it writes
        status = lib.ks_ftrace_format_header(nr_events, nr_cpus, flags, buf, len(buf), ctypes.byref(need))
    core.check(status)
    return buf.raw[: need.value]


def _export_log(log: EventLog, nr_cpus: int, flags: int, out: BinaryIO, skip: int) -> tuple[int, int]:
    """Writes the log as trace text to out, minus its first `skip` bytes.

    Returns (the flags the exporter used, the bytes written).
    """
    lib = core.lib()
    exporter = ctypes.c_void_p()
    core.check(lib.ks_ftrace_exporter_new(log.handle, nr_cpus, flags, ctypes.byref(exporter)))
    try:
        buf = ctypes.create_string_buffer(_PIECE)
        written = ctypes.c_int32()
        total = 0
        while True:
            core.check(lib.ks_ftrace_exporter_read(exporter, buf, _PIECE, ctypes.byref(written)))
            if written.value == 0:
                return lib.ks_ftrace_exporter_flags(exporter), total
            piece = memoryview(buf)[: written.value]
            cut = min(skip, len(piece))
            skip -= cut
            total += out.write(piece[cut:])
    finally:
        lib.ks_ftrace_exporter_free(exporter)


def needs_nsec(records: bytes) -> bool:
    """Whether any record's time is not a whole microsecond (the export then prints 9 digits)."""
    return any(ts % 1000 for ts in memoryview(records).cast("Q")[:: events.EVENT_SIZE // 8])


def meta_lines(meta: dict[str, str]) -> bytes:
    """`# kscope: key=value` lines (the header kscope capture writes, and ingest reads back).

    A value is one line: a newline in it would end the comment and start a bogus event line.
    """
    lines = []
    for key, value in meta.items():
        if not key.replace("_", "").replace("-", "").replace(".", "").isalnum() or "\n" in value or "\r" in value:
            raise ValueError(f"header key {key!r} or its value cannot be one `# kscope:` line")
        lines.append(f"# kscope: {key}={value}\n")
    return "".join(lines).encode("utf-8")


def write_trace(logs: Iterable[EventLog], nr_events: int, nr_cpus: int, flags: int,
                out: BinaryIO, meta: dict[str, str] | None = None) -> int:
    """Writes a run, given as consecutive event logs (nr_events records in all), as one `trace` file.

    flags must already hold NSEC if any record needs it (see needs_nsec), so every log
    prints alike. Each log goes through the C exporter, whose own header is dropped in
    favour of one header for the whole file; `meta` lines (`# kscope: key=value`) go before
    it. Returns the bytes written.
    """
    head = meta_lines(meta or {}) + _header(nr_events, nr_cpus, flags)
    total, seen = out.write(head), 0
    for log in logs:
        n = len(log)
        seen += n
        used, written = _export_log(log, nr_cpus, flags, out, skip=len(_header(n, nr_cpus, flags)))
        if used != flags:
            raise core.KscopeCoreError(core.KS_ERR_INVALID_ARG,
                                       f"export flags changed mid-file ({flags:#x} -> {used:#x})")
        total += written
    if seen != nr_events:
        raise core.KscopeCoreError(core.KS_ERR_INVALID_ARG,
                                   f"export header said {nr_events} events, the run gave {seen}")
    return total


@dataclass
class DecodeResult:
    """What decoding a trace gave: the decoder's counters, counts by type, the first records."""

    stats: st.KsFtraceStats
    by_type: dict[str, int]
    first: list[dict[str, Any]] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        """The JSON form `kscope decode` prints."""
        s = self.stats
        err = s.first_error
        return {
            "format": FORMATS.get(s.format, str(s.format)),
            "events": s.events,
            "by_type": self.by_type,
            "malformed_lines": s.malformed_lines,
            "first_error": None if err.line == 0 else {
                "line": err.line, "column": err.column_or_field,
                "field": core.text(err.field), "message": core.text(err.message),
            },
            "lines": s.lines,
            "generic_events": s.generic_events,
            "lost_events": s.lost_events,
            "nr_cpus": s.nr_cpus,
        }


def decode_stream(pieces: Iterable[bytes], keep: int = 0) -> DecodeResult:
    """Decodes ftrace text fed in pieces of any size; keeps the first `keep` records as dicts."""
    lib = core.lib()
    decoder = ctypes.c_void_p()
    core.check(lib.ks_ftrace_decoder_new(ctypes.byref(decoder)))
    counts: list[int] = []
    first: list[dict[str, Any]] = []

    def drain(log: EventLog) -> None:
        events.count_types(log.raw(), counts)
        if len(first) < keep:
            first.extend(log.decode(0, keep - len(first)))

    try:
        for piece in pieces:
            with EventLog() as log:
                core.check(lib.ks_ftrace_decoder_feed(decoder, piece, len(piece), log.handle))
                drain(log)
        with EventLog() as log:
            core.check(lib.ks_ftrace_decoder_finish(decoder, log.handle))
            drain(log)
        stats = st.KsFtraceStats()
        core.check(lib.ks_ftrace_decoder_stats(decoder, ctypes.byref(stats)))
    finally:
        lib.ks_ftrace_decoder_free(decoder)
    by_type = {events.EVENT_TYPES[i] if i < len(events.EVENT_TYPES) else f"type{i}": n
               for i, n in enumerate(counts) if n}
    return DecodeResult(stats, by_type, first)


def decode_file(path: Path, keep: int = 0) -> DecodeResult:
    """decode_stream over a file read in 1 MiB pieces."""
    def pieces() -> Iterable[bytes]:
        with open(path, "rb") as f:
            while piece := f.read(_PIECE):
                yield piece

    return decode_stream(pieces(), keep)


class FtraceDecoder:
    """The streaming ftrace text decoder as an object: feed pieces, get event logs back.

    Each feed() returns a fresh EventLog holding the records of the lines the piece
    completed (the caller closes it), or appends them to `into` and returns that;
    finish() likewise for the last line. stats() may be
    read at any time (counters so far). The C call runs without the GIL, so a decoder
    thread overlaps with whatever consumes the logs.
    """

    def __init__(self) -> None:
        self._lib = core.lib()
        self._handle = ctypes.c_void_p()
        core.check(self._lib.ks_ftrace_decoder_new(ctypes.byref(self._handle)))

    def feed(self, piece: bytes, into: EventLog | None = None) -> EventLog:
        log = into if into is not None else EventLog()
        try:
            core.check(self._lib.ks_ftrace_decoder_feed(self._handle, piece, len(piece), log.handle))
        except BaseException:
            if into is None:
                log.close()
            raise
        return log

    def finish(self, into: EventLog | None = None) -> EventLog:
        log = into if into is not None else EventLog()
        try:
            core.check(self._lib.ks_ftrace_decoder_finish(self._handle, log.handle))
        except BaseException:
            if into is None:
                log.close()
            raise
        return log

    def stats(self) -> dict[str, Any]:
        """The counters as a dict; first_error is None or {line, column, field, message}."""
        s = st.KsFtraceStats()
        core.check(self._lib.ks_ftrace_decoder_stats(self._handle, ctypes.byref(s)))
        err = s.first_error
        return {
            "format": FORMATS.get(s.format, str(s.format)),
            "lines": s.lines, "events": s.events, "generic_events": s.generic_events,
            "comment_lines": s.comment_lines, "malformed_lines": s.malformed_lines,
            "lost_events": s.lost_events, "nr_cpus": s.nr_cpus,
            "first_error": None if err.line == 0 else {
                "line": err.line, "column": err.column_or_field,
                "field": core.text(err.field), "message": core.text(err.message)},
        }

    def close(self) -> None:
        if self._handle:
            self._lib.ks_ftrace_decoder_free(self._handle)
            self._handle = ctypes.c_void_p()

    def __enter__(self) -> "FtraceDecoder":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
