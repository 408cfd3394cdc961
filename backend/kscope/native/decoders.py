"""Every C trace decoder behind one interface (trace_decoder.h), and the format detector.

The C registry (src/trace/trace_decoder.c) says which decoder reads which detected
format; nothing here chooses again. One loop drives every decoder:

    with TraceDecoder.for_format("perf-script") as dec:     # or TraceDecoder.open(head)
        while (want := dec.want())[1]:
            log, going = dec.feed(want[0], pread(fd, want[1], want[0]), into=log)
            if not going: break                             # the input cannot be decoded further
        dec.finish(into=log)
        dec.stats()                                         # the format's own counters, as a dict

Text formats ask for the file front to back (`piece` bytes at a time) until fed b"";
trace.dat asks by offset, so a caller reads with pread and memory stays bounded. Each
feed returns a fresh EventLog the caller closes, or appends to the log passed as `into`.
The subclass per registry name (ftrace, perf, systrace, trace.dat) only reads that
decoder's own stats struct into a plain dict, named as before.
"""

import ctypes
from functools import lru_cache
from typing import Any, ClassVar

from kscope.native import core
from kscope.native import structs as st
from kscope.native.ftrace import FORMATS as FTRACE_DIALECTS
from kscope.native.log import EventLog

KS_ERR_PARSE = core.KS_ERR_PARSE


def detect(head: bytes) -> str:
    """The C detector's name for a file's first bytes ("ftrace-text", "trace.dat", ..., "unknown")."""
    lib = core.lib()
    return core.text(lib.ks_trace_format_name(lib.ks_trace_detect(head, len(head))))


@lru_cache(maxsize=1)
def format_names() -> tuple[str, ...]:
    """Every format name the detector knows, by id (ks_trace_format_name)."""
    lib, names = core.lib(), []
    while (name := lib.ks_trace_format_name(len(names))) is not None:
        names.append(core.text(name))
    return tuple(names)


def decoder_of(format_name: str) -> str | None:
    """The registry's decoder for a detected format ("perf-script" -> "perf"); None if not decoded."""
    names = format_names()
    if format_name not in names:
        return None
    found = core.lib().ks_trace_format_decoder(names.index(format_name))
    return core.text(found) if found is not None else None


def registry() -> dict[str, tuple[str, ...]]:
    """Decoder name -> the detected formats it reads, in the C registry's order."""
    out: dict[str, list[str]] = {}
    for name in format_names():
        if (decoder := decoder_of(name)) is not None:
            out.setdefault(decoder, []).append(name)
    return {k: tuple(v) for k, v in out.items()}


def _error(err: st.KsParseError) -> dict[str, Any] | None:
    if err.line == 0 and not err.message:
        return None
    return {"line": err.line, "column": err.column_or_field, "field": core.text(err.field),
            "message": core.text(err.message)}


class TraceDecoder:
    """One ks_trace_decoder. Made by for_format() / open(), which pick the subclass of the
    decoder the C registry names."""

    name: ClassVar[str] = ""
    _stats_struct: ClassVar[type[ctypes.Structure]]
    _by_name: ClassVar[dict[str, type["TraceDecoder"]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        TraceDecoder._by_name[cls.name] = cls

    def __init__(self, format_name: str | None = None) -> None:
        """A decoder of this class's kind; format_name (a detected name) defaults to its first."""
        self._lib = core.lib()
        self._h = ctypes.c_void_p()
        format_name = format_name or registry()[self.name][0]
        core.check(self._lib.ks_trace_decoder_new(format_names().index(format_name), ctypes.byref(self._h)))
        made = core.text(self._lib.ks_trace_decoder_name(self._h))
        if made != self.name:
            self.close()
            raise ValueError(f"{format_name} is read by the {made} decoder, not {self.name}")

    @staticmethod
    def for_format(format_name: str) -> "TraceDecoder":
        """The registry's decoder for a detected format name; ValueError if none reads it."""
        decoder = decoder_of(format_name)
        if decoder is None:
            raise ValueError(f"no decoder reads {format_name!r}")
        return TraceDecoder._by_name[decoder](format_name)

    @staticmethod
    def open(head: bytes) -> "TraceDecoder":
        """Detects the format of a file's first bytes and makes its decoder."""
        return TraceDecoder.for_format(detect(head))

    @property
    def format(self) -> str:
        return format_names()[self._lib.ks_trace_decoder_format(self._h)]

    def set_piece(self, nbytes: int) -> None:
        """Bytes a text decoder asks for at once."""
        core.check(self._lib.ks_trace_decoder_set_piece(self._h, nbytes))

    def want(self) -> tuple[int, int]:
        """(file offset, useful length) of the next bytes needed; length 0 when done."""
        off, n = ctypes.c_int64(), ctypes.c_int32()
        core.check(self._lib.ks_trace_decoder_want(self._h, ctypes.byref(off), ctypes.byref(n)))
        return off.value, n.value

    def _into_log(self, call, *args: Any, into: EventLog | None = None) -> tuple[EventLog, int]:  # type: ignore[no-untyped-def]
        """Runs call(handle, *args, log) into `into` if given, else a fresh log; KS_ERR_PARSE
        (the input cannot be decoded further: the stats say why) is not an error here."""
        log = into if into is not None else EventLog()
        status = call(self._h, *args, log.handle)
        if status not in (core.KS_OK, KS_ERR_PARSE):
            if into is None:
                log.close()
            core.check(status)
        return log, status

    def feed(self, offset: int, data: bytes, into: EventLog | None = None) -> tuple[EventLog, bool]:
        """Feeds bytes read at offset (b"" = end of file); (records, still going)."""
        log, status = self._into_log(self._lib.ks_trace_decoder_feed, offset, data, len(data), into=into)
        return log, status == core.KS_OK

    def finish(self, into: EventLog | None = None) -> EventLog:
        return self._into_log(self._lib.ks_trace_decoder_finish, into=into)[0]

    def common_stats(self) -> dict[str, Any]:
        """What every decoder counts (ks_trace_stats)."""
        s = st.KsTraceStats()
        core.check(self._lib.ks_trace_decoder_stats(self._h, ctypes.byref(s)))
        return {"format": format_names()[s.format], "status": s.status, "events": s.events,
                "generic_events": s.generic_events, "malformed": s.malformed, "lost_events": s.lost_events,
                "nr_cpus": s.nr_cpus, "lines": s.lines, "bytes_fed": s.bytes_fed,
                "error_offset": s.error_offset, "first_error": _error(s.first_error)}

    def _own_stats(self) -> Any:
        s = self._stats_struct()
        core.check(self._lib.ks_trace_decoder_format_stats(self._h, ctypes.byref(s), ctypes.sizeof(s)))
        return s

    def stats(self) -> dict[str, Any]:
        """The decoder's own counters as a dict (the subclass knows its struct)."""
        raise NotImplementedError

    def close(self) -> None:
        if self._h:
            self._lib.ks_trace_decoder_free(self._h)
            self._h = ctypes.c_void_p()

    def __enter__(self):  # type: ignore[no-untyped-def]
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class FtraceTextDecoder(TraceDecoder):
    """tracefs `trace`, atrace, `trace-cmd report` text (ftrace.h)."""

    name = "ftrace"
    _stats_struct = st.KsFtraceStats

    def stats(self) -> dict[str, Any]:
        s = self._own_stats()
        return {"format": FTRACE_DIALECTS.get(s.format, str(s.format)), "lines": s.lines, "events": s.events,
                "generic_events": s.generic_events, "comment_lines": s.comment_lines,
                "malformed_lines": s.malformed_lines, "lost_events": s.lost_events, "nr_cpus": s.nr_cpus,
                "first_error": None if s.first_error.line == 0 else _error(s.first_error)}


class PerfDecoder(TraceDecoder):
    """perf script / perf sched timehist text (perf.h)."""

    name = "perf"
    _stats_struct = st.KsPerfStats
    FORMATS = {0: "unknown", 1: "perf-script", 2: "perf-sched-timehist", 3: "perf-report"}

    def stats(self) -> dict[str, Any]:
        s = self._own_stats()
        return {"dialect": self.FORMATS.get(s.format, str(s.format)), "lines": s.lines, "events": s.events,
                "generic_events": s.generic_events, "samples": s.samples, "malformed": s.malformed_lines,
                "nr_cpus": s.nr_cpus, "status": s.status, "first_error": _error(s.first_error)}


class SystraceDecoder(TraceDecoder):
    """Android systrace HTML: the ftrace text inside its trace-data blocks (systrace.h)."""

    name = "systrace"
    _stats_struct = st.KsSystraceStats

    def stats(self) -> dict[str, Any]:
        s = self._own_stats()
        f = s.ftrace
        return {"lines": f.lines, "events": f.events, "generic_events": f.generic_events,
                "malformed": f.malformed_lines, "lost_events": f.lost_events, "nr_cpus": f.nr_cpus,
                "text_blocks": s.text_blocks, "json_blocks": s.json_blocks, "html_lines": s.html_lines,
                "first_error": _error(f.first_error)}


class TracedatDecoder(TraceDecoder):
    """trace-cmd trace.dat v6/v7, read by offset (tracedat.h)."""

    name = "trace.dat"
    _stats_struct = st.KsTracedatStats

    def _inner(self) -> int:
        return self._lib.ks_trace_decoder_inner(self._h)

    def buffer_names(self) -> list[str]:
        """The trace buffers the records' `buffer` indexes name ("" = the top one)."""
        n = self._lib.ks_tracedat_decoder_buffer_count(self._inner())
        return [self._lib.ks_tracedat_decoder_buffer_name(self._inner(), i).decode("utf-8", "replace")
                for i in range(n)]

    def held_peak(self) -> int:
        """Most bytes of page batches and decompressed chunks held at once."""
        return int(self._lib.ks_tracedat_decoder_held_peak(self._inner()))

    def stats(self) -> dict[str, Any]:
        s = self._own_stats()
        return {"events": s.events, "generic_events": s.generic_events, "malformed": s.malformed,
                "lost_events": s.lost_events, "pages": s.pages, "nr_cpus": s.nr_cpus, "version": s.version,
                "status": s.status, "error_offset": s.error_offset, "bytes_fed": s.bytes_fed,
                "uname": core.text(s.uname), "trace_clock": core.text(s.trace_clock),
                "skipped_buffers": s.skipped_buffers, "first_error": _error(s.first_error),
                "buffers": self.buffer_names()}
