"""The C decoders other than ftrace text (tracedat.h, perf.h, systrace.h) and the format
detector (trace_detect.h), as small Python objects.

Text decoders (perf script, systrace HTML) are fed pieces like the ftrace one;
the trace.dat decoder asks for file offsets (want) and is fed from there, so a
caller reads the file with pread and memory stays bounded. Each feed returns a
fresh EventLog the caller closes, or appends to the log passed as `into`. Stats come back as plain dicts.
"""

import ctypes
from typing import Any

from kscope.native import core
from kscope.native import structs as st
from kscope.native.log import EventLog

KS_ERR_PARSE = core.KS_ERR_PARSE


def detect(head: bytes) -> str:
    """The C detector's name for a file's first bytes ("ftrace-text", "trace.dat", ..., "unknown")."""
    lib = core.lib()
    return core.text(lib.ks_trace_format_name(lib.ks_trace_detect(head, len(head))))


def available() -> dict[str, bool]:
    """Which optional decoders the loaded core exports."""
    return {"detect": core.has("ks_trace_detect"), "trace.dat": core.has("ks_tracedat_decoder_new"),
            "perf": core.has("ks_perf_decoder_new"), "systrace": core.has("ks_systrace_decoder_new")}


def _error(err: st.KsParseError) -> dict[str, Any] | None:
    if err.line == 0 and not err.message:
        return None
    return {"line": err.line, "column": err.column_or_field, "field": core.text(err.field),
            "message": core.text(err.message)}


class _Handle:
    _prefix = ""

    def __init__(self) -> None:
        self._lib = core.lib()
        self._h = ctypes.c_void_p()
        core.check(getattr(self._lib, f"{self._prefix}_new")(ctypes.byref(self._h)))

    def _into_log(self, call, *args: Any, ok: tuple[int, ...] = (core.KS_OK,),  # type: ignore[no-untyped-def]
                  into: EventLog | None = None) -> tuple[EventLog, int]:
        """Runs call(handle, *args, log): into `into` if given, else a fresh log."""
        log = into if into is not None else EventLog()
        status = call(self._h, *args, log.handle)
        if status not in ok:
            if into is None:
                log.close()
            core.check(status)
        return log, status

    def close(self) -> None:
        if self._h:
            getattr(self._lib, f"{self._prefix}_free")(self._h)
            self._h = ctypes.c_void_p()

    def __enter__(self):  # type: ignore[no-untyped-def]
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class PerfDecoder(_Handle):
    """perf script / perf sched timehist text (perf.h)."""

    _prefix = "ks_perf_decoder"
    FORMATS = {0: "unknown", 1: "perf-script", 2: "perf-sched-timehist", 3: "perf-report"}

    def feed(self, piece: bytes, into: EventLog | None = None) -> EventLog:
        return self._into_log(self._lib.ks_perf_decoder_feed, piece, len(piece), into=into)[0]

    def finish(self, into: EventLog | None = None) -> EventLog:
        return self._into_log(self._lib.ks_perf_decoder_finish, into=into)[0]

    def stats(self) -> dict[str, Any]:
        s = st.KsPerfStats()
        core.check(self._lib.ks_perf_decoder_stats(self._h, ctypes.byref(s)))
        return {"dialect": self.FORMATS.get(s.format, str(s.format)), "lines": s.lines, "events": s.events,
                "generic_events": s.generic_events, "samples": s.samples, "malformed": s.malformed_lines,
                "nr_cpus": s.nr_cpus, "status": s.status, "first_error": _error(s.first_error)}


class SystraceDecoder(_Handle):
    """Android systrace HTML: the ftrace text inside its trace-data blocks (systrace.h)."""

    _prefix = "ks_systrace_decoder"

    def feed(self, piece: bytes, into: EventLog | None = None) -> EventLog:
        return self._into_log(self._lib.ks_systrace_decoder_feed, piece, len(piece), into=into)[0]

    def finish(self, into: EventLog | None = None) -> EventLog:
        return self._into_log(self._lib.ks_systrace_decoder_finish, into=into)[0]

    def stats(self) -> dict[str, Any]:
        s = st.KsSystraceStats()
        core.check(self._lib.ks_systrace_decoder_stats(self._h, ctypes.byref(s)))
        f = s.ftrace
        return {"lines": f.lines, "events": f.events, "generic_events": f.generic_events,
                "malformed": f.malformed_lines, "lost_events": f.lost_events, "nr_cpus": f.nr_cpus,
                "text_blocks": s.text_blocks, "json_blocks": s.json_blocks, "html_lines": s.html_lines,
                "first_error": _error(f.first_error)}


class TracedatDecoder(_Handle):
    """trace-cmd trace.dat v6/v7, read by offset (tracedat.h)."""

    _prefix = "ks_tracedat_decoder"

    def want(self) -> tuple[int, int]:
        """(file offset, useful length) of the next bytes needed; length 0 when done."""
        off, n = ctypes.c_int64(), ctypes.c_int32()
        core.check(self._lib.ks_tracedat_decoder_want(self._h, ctypes.byref(off), ctypes.byref(n)))
        return off.value, n.value

    def feed(self, offset: int, data: bytes, into: EventLog | None = None) -> tuple[EventLog, bool]:
        """Feeds bytes read at offset (b"" = end of file); (records, still going)."""
        log, status = self._into_log(self._lib.ks_tracedat_decoder_feed, offset, data, len(data),
                                     ok=(core.KS_OK, KS_ERR_PARSE), into=into)
        return log, status == core.KS_OK

    def finish(self, into: EventLog | None = None) -> EventLog:
        return self._into_log(self._lib.ks_tracedat_decoder_finish, ok=(core.KS_OK, KS_ERR_PARSE), into=into)[0]

    def buffer_names(self) -> list[str]:
        """The trace buffers the records' `buffer` indexes name ("" = the top one)."""
        n = self._lib.ks_tracedat_decoder_buffer_count(self._h)
        return [self._lib.ks_tracedat_decoder_buffer_name(self._h, i).decode("utf-8", "replace")
                for i in range(n)]

    def held_peak(self) -> int:
        """Most bytes of page batches and decompressed chunks held at once."""
        return int(self._lib.ks_tracedat_decoder_held_peak(self._h))

    def stats(self) -> dict[str, Any]:
        s = st.KsTracedatStats()
        core.check(self._lib.ks_tracedat_decoder_stats(self._h, ctypes.byref(s)))
        return {"events": s.events, "generic_events": s.generic_events, "malformed": s.malformed,
                "lost_events": s.lost_events, "pages": s.pages, "nr_cpus": s.nr_cpus, "version": s.version,
                "status": s.status, "error_offset": s.error_offset, "bytes_fed": s.bytes_fed,
                "uname": core.text(s.uname), "trace_clock": core.text(s.trace_clock),
                "skipped_buffers": s.skipped_buffers, "first_error": _error(s.first_error)}
