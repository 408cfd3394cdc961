"""`kscope topology FILE|PRESET`: a topology as the C core reads it (--list: the presets)."""

import argparse
from typing import Any

from kscope import text_report
from kscope.cli import presets
from kscope.cli.common import EXIT_OK, add_json, emit


def run(args: argparse.Namespace) -> int:
    if args.list:
        return presets.run(args)
    from kscope import topology

    emit(topology.topology_of_spec(args.preset), args.json, text_report.topology_table)
    return EXIT_OK


def validate(args: argparse.Namespace) -> str | None:
    return None if args.list or args.preset else "topology: give a PRESET or --list"


def add_parser(sub: Any) -> None:
    topo = sub.add_parser("topology", help="show a topology (preset or your machine's dump) as the C core reads it")
    topo.add_argument("preset", nargs="?", metavar="FILE|PRESET",
                      help="preset name (see --list), or lscpu -p output, a flattened sysfs dump, "
                           "a /sys/devices/system/cpu directory or a tarball of one")
    topo.add_argument("--list", action="store_true", help="list the presets instead")
    add_json(topo)
    topo.set_defaults(func=run, validate=validate)
