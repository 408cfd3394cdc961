"""`kscope query ID SQL`: one read-only SELECT over a stored trace's events."""

import argparse
from typing import Any

from kscope import text_report
from kscope.cli.common import EXIT_OK, add_json, emit, open_store


def run(args: argparse.Namespace) -> int:
    store = open_store()
    try:
        store.get(args.trace_id)
        result = store.sql(args.trace_id, args.sql)
    finally:
        store.close()
    emit(result, args.json, text_report.query_table)
    return EXIT_OK


def add_parser(sub: Any) -> None:
    query = sub.add_parser("query", help="run one read-only SQL SELECT over a stored trace's `events`")
    query.add_argument("trace_id", metavar="ID", help="trace id (see `kscope traces`)")
    query.add_argument("sql", metavar="SQL", help='e.g. "SELECT type, count(*) FROM events GROUP BY 1"')
    add_json(query)
    query.set_defaults(func=run)
