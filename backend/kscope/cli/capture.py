"""`kscope capture`: scheduler events recorded from the running kernel (tracefs, root)."""

import argparse
import sys
from pathlib import Path
from typing import Any

from kscope.cli.common import EXIT_FAILURE, EXIT_OK, add_json, emit, positive
from kscope.ingest.sources import InputError


def run(args: argparse.Namespace) -> int:
    from kscope import capture

    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if command and args.pid:
        raise InputError("capture: give --pid P or -- CMD, not both")
    request = capture.CaptureRequest(seconds=args.seconds, events=args.events or [], output=Path(args.output),
                                     pid=args.pid, command=command or None)
    try:
        document = (capture.capture_trace_cmd if args.trace_cmd else capture.capture)(request)
    except capture.CaptureRefused as err:
        print(f"kscope: capture refused: {err}", file=sys.stderr)
        return EXIT_FAILURE
    except KeyboardInterrupt:
        print("kscope: capture interrupted; tracing state restored", file=sys.stderr)
        return 130
    emit(document, args.json, lambda d: f"wrote {d['output']} ({d['bytes']} bytes, {d['seconds']} s)")
    return EXIT_OK


def add_parser(sub: Any) -> None:
    cap = sub.add_parser("capture", help="record scheduler events from the running kernel (tracefs, root)")
    cap.add_argument("--seconds", type=float, default=1.0, help="how long to record (default 1; with CMD: at most)")
    cap.add_argument("--events", action="append", metavar="LIST",
                     help="comma-separated: sched, rseq, the presets irq, softirq, idle, freq, sched_stat "
                          "(see capture.PRESETS), SYSTEM:*, SYSTEM:EVENT (default: kscope's sched "
                          "tracepoints and rseq_update)")
    cap.add_argument("--pid", type=positive, help="only this process (and its children/threads)")
    cap.add_argument("--trace-cmd", action="store_true", help="record a trace.dat with trace-cmd instead")
    cap.add_argument("-o", "--output", required=True, metavar="FILE", help="where to write the trace")
    add_json(cap)
    cap.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD ...",
                     help="run CMD and record it (and its threads/children) while it runs")
    cap.set_defaults(func=run)
