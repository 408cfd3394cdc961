"""`kscope traces`: the stored traces."""

import argparse
from typing import Any

from kscope import text_report
from kscope.cli.common import EXIT_OK, add_json, emit, open_store


def run(args: argparse.Namespace) -> int:
    store = open_store()
    try:
        rows = [{k: v for k, v in vars(r).items() if k not in ("owner_hash", "summary")}
                for r in store.list_traces()]
    finally:
        store.close()
    emit(rows, args.json, text_report.traces_table)
    return EXIT_OK


def add_parser(sub: Any) -> None:
    traces = sub.add_parser("traces", help="list the stored traces")
    add_json(traces)
    traces.set_defaults(func=run)
