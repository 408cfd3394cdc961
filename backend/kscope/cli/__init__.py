"""The `kscope` command line: a dispatcher over one module per command.

Each command's module (kscope/cli/<command>.py, or a package's own cli.py for
kernel, export and calibrate) has `add_parser(sub)`, which adds the subcommand
and sets its handler as the `func` default (and, where arguments depend on each
other, a `validate(args) -> message | None`). This module builds the parser
from them and maps errors to exit codes: 0 ok, 2 bad input, 1 internal failure.
Reports go to stdout, as text or (with --json) as exactly one JSON document;
everything else (logs, errors) goes to stderr.
"""

import argparse
import sys

from kscope import __version__
from kscope.calibrate import cli as calibrate_cli
from kscope.cli import (bench, capture, capture_vm, conform, decode, export_lesson, ingest, presets, query,
                        repro, serve, share, sim, topology, traces)
from kscope.cli.common import EXIT_BAD_INPUT, EXIT_FAILURE, EXIT_OK
from kscope.ingest.native_ingest import NativeIngestFailed
from kscope.ingest.sources import InputError
from kscope.kernel import cli as kernel_cli
from kscope.native import core
from kscope.store.errors import SqlRefused, SqlTimeout, TraceNotFound
from kscope.trace_export import cli as export_cli

__all__ = ["EXIT_BAD_INPUT", "EXIT_FAILURE", "EXIT_OK", "build_parser", "main"]

# The order of `kscope --help`.
COMMANDS = (serve, topology, presets, sim, decode, conform, ingest, traces, query, share, capture, capture_vm,
            kernel_cli, export_cli, calibrate_cli, bench, repro, export_lesson)


def bad_input_errors() -> tuple[type[BaseException], ...]:
    """Bad input (exit 2): each names what was wrong and where. Imported when an error is
    caught (an except clause evaluates its expression then), so `kscope ingest` does not
    start by importing the simulator and the topology services."""
    from kscope import simulate, topology as topology_service, topology_files

    return (topology_service.UnknownPreset, topology_files.TopologyInputError, core.ParseError,
            simulate.WorkloadFileError, InputError, TraceNotFound, SqlRefused, SqlTimeout)


def failures() -> tuple[type[BaseException], ...]:
    """Failures of the machine, not the input (exit 1)."""
    from kscope.bench import node

    return (core.CoreLibraryMissing, core.KscopeCoreError, node.NodeUnavailable, node.NodeScriptFailed,
            NativeIngestFailed)


def version(_: argparse.Namespace) -> int:
    print(f"kscope {__version__} (core {core.version()})")
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    """The argument parser; each subcommand's handler is in its `func` default."""
    parser = argparse.ArgumentParser(
        prog="kscope", description="Teaching visualizer for Linux kernel scheduling algorithms."
    )
    parser.add_argument("--version", action="store_true", help="print backend and core versions")
    parser.set_defaults(func=None, validate=None, os_error_exit=EXIT_BAD_INPUT)
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `kscope` console script; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.version:
        handler = version
    elif args.func is None:
        parser.print_help(sys.stderr)
        return EXIT_BAD_INPUT
    else:
        handler = args.func
        problem = args.validate(args) if args.validate else None
        if problem:
            parser.error(problem)
    try:
        return int(handler(args))
    except bad_input_errors() as err:
        print(f"kscope: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as err:  # an unwritable -o FILE, say
        print(f"kscope: {err}", file=sys.stderr)
        return int(args.os_error_exit)
    except failures() as err:
        print(f"kscope: {err}", file=sys.stderr)
        return EXIT_FAILURE
