"""`kscope decode FILE`: an ftrace text file through the C decoder, summarized."""

import argparse
import sys
from pathlib import Path
from typing import Any

from kscope import text_report
from kscope.cli.common import EXIT_BAD_INPUT, EXIT_OK, add_json, emit


def run(args: argparse.Namespace) -> int:
    from kscope.native import ftrace

    path = Path(args.file)
    if not path.is_file():
        print(f"kscope: {path}: no such trace file", file=sys.stderr)
        return EXIT_BAD_INPUT
    from kscope.ingest.formats import TRACEDAT_MAGIC

    with open(path, "rb") as f:
        if f.read(len(TRACEDAT_MAGIC)) == TRACEDAT_MAGIC:
            print(f"kscope: {path}: byte 0: a trace-cmd trace.dat; `decode` reads ftrace text "
                  f"(use `kscope ingest {path}` or `kscope conform {path}`)", file=sys.stderr)
            return EXIT_BAD_INPUT
    document = {"file": str(path), **ftrace.decode_file(path).summary()}
    emit(document, args.json, text_report.decode_summary)
    return EXIT_OK


def add_parser(sub: Any) -> None:
    decode = sub.add_parser("decode", help="decode an ftrace text file with the C decoder")
    decode.add_argument("file", metavar="FILE", help="tracefs `trace` text or `trace-cmd report` output")
    add_json(decode)
    decode.set_defaults(func=run)
