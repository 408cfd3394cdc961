"""`kscope export ID --format chrome-json|ftrace [-o FILE] [--from NS --to NS]`: a stored trace
(or a window of it) as Chrome trace-event JSON (Perfetto UI, chrome://tracing) or ftrace text.
Registered by kscope.cli; the store's operator needs no owner token (as `kscope query`)."""

import argparse
import sys
from typing import Any

EXIT_OK, EXIT_FAILURE, EXIT_BAD_INPUT = 0, 1, 2


def cmd_export(args: argparse.Namespace) -> int:
    from kscope.core.config import get_settings
    from kscope.store.store import TraceNotFound, TraceStore
    from kscope.trace_export import export

    store = TraceStore(get_settings())
    try:
        try:
            rec = store.get(args.trace_id)
        except TraceNotFound:
            print(f"kscope: export: no stored trace {args.trace_id!r} (see `kscope traces`)", file=sys.stderr)
            return EXIT_BAD_INPUT
        try:
            ex = export.prepare(store, rec, args.format, args.t0, args.t1)
        except ValueError as err:
            print(f"kscope: export: {err}", file=sys.stderr)
            return EXIT_BAD_INPUT
        size = 0
        if args.output == "-":
            out = sys.stdout.buffer
            for chunk in ex.chunks():
                size += out.write(chunk)
            out.flush()
        else:
            with open(args.output, "wb") as f:
                for chunk in ex.chunks():
                    size += f.write(chunk)
            print(f"wrote {args.output} ({ex.table.num_rows} events, {size} bytes, {args.format})", file=sys.stderr)
    finally:
        store.close()
    return EXIT_OK


def add_parser(sub: Any) -> None:
    exp = sub.add_parser("export", help="write a stored trace (or a window of it) as Perfetto-readable Chrome "
                                        "trace-event JSON or as ftrace text")
    exp.add_argument("trace_id", metavar="ID", help="the stored trace's id (see `kscope traces`)")
    exp.add_argument("--format", required=True, choices=("chrome-json", "ftrace"),
                     help="chrome-json: opens in Perfetto UI and chrome://tracing; ftrace: a tracefs `trace` file")
    exp.add_argument("-o", "--output", default="-", metavar="FILE", help="where to write (default: stdout)")
    exp.add_argument("--from", dest="t0", type=int, metavar="NS", help="window start, ns (the trace's clock)")
    exp.add_argument("--to", dest="t1", type=int, metavar="NS", help="window end, ns (exclusive)")
    exp.set_defaults(func=cmd_export)
