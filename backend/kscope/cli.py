"""The `kscope` command line: serve the app, and report what the C core computes.

Reports go to stdout, as text or (with --json) as exactly one JSON document;
everything else (logs, errors) goes to stderr. Exit codes: 0 ok, 2 bad input,
1 internal failure.
"""

import argparse
import copy
import json
import sys
from collections.abc import Callable
from typing import Any

from kscope import __version__, text_report, topology
from kscope.core.config import get_settings
from kscope.native import core

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_BAD_INPUT = 2


def _emit(data: Any, as_json: bool, render: Callable[[Any], str]) -> None:
    print(json.dumps(data, indent=2) if as_json else render(data))


def cmd_version(_: argparse.Namespace) -> int:
    print(f"kscope {__version__} (core {core.version()})")
    return EXIT_OK


def cmd_presets(args: argparse.Namespace) -> int:
    _emit(topology.list_presets(), args.json, text_report.presets_table)
    return EXIT_OK


def cmd_topology(args: argparse.Namespace) -> int:
    if args.list:
        return cmd_presets(args)
    _emit(topology.topology_of(args.preset), args.json, text_report.topology_table)
    return EXIT_OK


def _uvicorn_log_config() -> dict[str, Any]:
    """uvicorn's logging config with the access log moved from stdout to stderr."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config["handlers"]["access"]["stream"] = "ext://sys.stderr"
    return config


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from kscope.api.app import create_app

    settings = get_settings()
    host = args.host or settings.host
    port = args.port or settings.port
    print(f"kscope {__version__}: core {core.version()} from {settings.core_lib}", file=sys.stderr)
    uvicorn.run(create_app(settings), host=host, port=port, log_config=_uvicorn_log_config())
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    """The argument parser; each subcommand's handler is in its `func` default."""
    parser = argparse.ArgumentParser(
        prog="kscope", description="Teaching visualizer for Linux kernel scheduling algorithms."
    )
    parser.add_argument("--version", action="store_true", help="print backend and core versions")
    parser.set_defaults(func=None)
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")

    serve = sub.add_parser("serve", help="serve the API and the built frontend")
    serve.add_argument("--host", help="interface to bind (default: KSCOPE_HOST or 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port to listen on (default: KSCOPE_PORT or 8000)")
    serve.set_defaults(func=cmd_serve)

    topo = sub.add_parser("topology", help="show a topology preset as computed by the C core")
    topo.add_argument("preset", nargs="?", help="preset name (see --list)")
    topo.add_argument("--list", action="store_true", help="list the presets instead")
    topo.add_argument("--json", action="store_true", help="print one JSON document")
    topo.set_defaults(func=cmd_topology)

    presets = sub.add_parser("presets", help="list the topology presets")
    presets.add_argument("--json", action="store_true", help="print one JSON document")
    presets.set_defaults(func=cmd_presets)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `kscope` console script; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.version:
        handler = cmd_version
    elif args.func is None:
        parser.print_help(sys.stderr)
        return EXIT_BAD_INPUT
    else:
        handler = args.func
    if handler is cmd_topology and not args.list and not args.preset:
        parser.error("topology: give a PRESET or --list")
    try:
        return handler(args)
    except topology.UnknownPreset as err:
        print(f"kscope: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (core.CoreLibraryMissing, core.KscopeCoreError) as err:
        print(f"kscope: {err}", file=sys.stderr)
        return EXIT_FAILURE
