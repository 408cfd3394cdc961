"""`kscope calibrate [--json] [--quick] [--preset P]`: the parser and handler (registered by kscope.cli)."""

import argparse
import json
import sys
from typing import Any

EXIT_OK, EXIT_FAILURE = 0, 1


def cmd_calibrate(args: argparse.Namespace) -> int:
    from kscope.calibrate import report, runner

    print(f"kscope calibrate: running the microbenchmarks ({'about 10 s' if args.quick else 'a few minutes'}; "
          "keep the machine otherwise idle for clean figures)", file=sys.stderr)
    try:
        doc = report.build(quick=args.quick, preset=args.preset)
    except runner.CalibrateFailed as err:
        print(f"kscope: calibrate: {err}", file=sys.stderr)
        return EXIT_FAILURE
    print(json.dumps(doc, indent=2) if args.json else report.render(doc))
    return EXIT_OK


def add_parser(sub: Any) -> None:
    cal = sub.add_parser("calibrate", help="measure the cost model's mechanisms on this CPU, beside the "
                                           "model's values (docs/calibrate.md)")
    cal.add_argument("--json", action="store_true", help="print one JSON document")
    cal.add_argument("--quick", action="store_true", help="few short trials, small buffers (a smoke run, ~10 s)")
    cal.add_argument("--preset", default=None,
                     help="compare with this preset's model (default: chosen from /proc/cpuinfo)")
    cal.set_defaults(func=cmd_calibrate)
