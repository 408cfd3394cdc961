"""`kscope presets`: the topology presets the C core knows."""

import argparse
from typing import Any

from kscope import text_report
from kscope.cli.common import EXIT_OK, add_json, emit


def run(args: argparse.Namespace) -> int:
    from kscope import topology

    emit(topology.list_presets(), args.json, text_report.presets_table)
    return EXIT_OK


def add_parser(sub: Any) -> None:
    presets = sub.add_parser("presets", help="list the topology presets")
    add_json(presets)
    presets.set_defaults(func=run)
