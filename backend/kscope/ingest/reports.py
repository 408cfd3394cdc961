"""A decoder's stats -> the DecodeReport an ingest keeps, or the InputError it refuses with.

Both ways of decoding end here: kscope-ingest (the native ingest program, which
prints each decoder's stats in its report) and the in-process decoders of
decoders.py (conform and the kernel harness read records themselves). The stats
are dicts named as kscope.native's bindings name them.

An ftrace text decoded in parts has one stats dict per part: the counters add up,
and the first problem's line number is made absolute by adding the lines of the
parts before it. The header (#P:N, the dialect) is in part 0.
"""

from typing import Any

from kscope.ingest.formats import DecodeReport
from kscope.ingest.sources import InputError


def ftrace(stats: list[dict[str, Any]]) -> DecodeReport:
    first_error, lines_before = None, 0
    for s in stats:
        err = s["first_error"]
        if first_error is None and err is not None and err["line"] != 0:
            first_error = {**err, "line": err["line"] + lines_before}
        lines_before += s["lines"]
    total = {k: sum(s[k] for s in stats) for k in ("events", "malformed_lines", "lost_events", "lines",
                                                   "generic_events")}
    head = stats[0]
    return DecodeReport(format="ftrace", events=total["events"], malformed=total["malformed_lines"],
                        first_error=first_error, nr_cpus=head["nr_cpus"], lost_events=total["lost_events"],
                        extra={"dialect": head["format"], "lines": total["lines"],
                               "generic_events": total["generic_events"], "decode_threads": len(stats)})


def _error(err: dict[str, Any] | None) -> dict[str, Any] | None:
    """None when the error says nothing (line 0 and no message)."""
    if err is None or (err["line"] == 0 and not err["message"]):
        return None
    return err


def perf(stats: dict[str, Any], source: str) -> DecodeReport:
    if stats["dialect"] == "perf-report":
        raise InputError(f"{source}: line 1: a `perf report` summary holds no events: "
                         f"give `perf script` output instead", status=415)
    return DecodeReport(format="perf", events=stats["events"], malformed=stats["malformed"],
                        first_error=_error(stats["first_error"]), nr_cpus=stats["nr_cpus"],
                        extra={"dialect": stats["dialect"], "lines": stats["lines"], "samples": stats["samples"],
                               "generic_events": stats["generic_events"]})


def systrace(stats: dict[str, Any]) -> DecodeReport:
    return DecodeReport(format="systrace", events=stats["events"], malformed=stats["malformed"],
                        first_error=_error(stats["first_error"]), nr_cpus=stats["nr_cpus"],
                        lost_events=stats["lost_events"],
                        extra={"text_blocks": stats["text_blocks"], "json_blocks": stats["json_blocks"],
                               "generic_events": stats["generic_events"]})


def tracedat(stats: dict[str, Any], source: str) -> DecodeReport:
    err = _error(stats["first_error"])
    if stats["status"] != 0:
        what = (err or {}).get("message") or "unreadable"
        section = f" in the {err['field']}" if err and err.get("field") else ""
        raise InputError(f"{source}: byte {max(stats['error_offset'], 0)}: trace.dat{section}: {what}")
    return DecodeReport(format="trace.dat", events=stats["events"], malformed=stats["malformed"],
                        first_error=err, nr_cpus=stats["nr_cpus"], lost_events=stats["lost_events"],
                        extra={"version": stats["version"], "uname": stats["uname"],
                               "trace_clock": stats["trace_clock"], "pages": stats["pages"],
                               "generic_events": stats["generic_events"],
                               **({"buffers": stats["buffers"]} if "buffers" in stats else {})})


def of(format_name: str, stats: list[dict[str, Any]], source: str) -> DecodeReport:
    """The report of a registered format's decoder stats (one dict per part)."""
    if format_name == "ftrace":
        return ftrace(stats)
    if format_name == "perf":
        return perf(stats[0], source)
    if format_name == "systrace":
        return systrace(stats[0])
    if format_name == "trace.dat":
        return tracedat(stats[0], source)
    raise ValueError(f"no report for format {format_name!r}")
