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
from pathlib import Path
from typing import Any

from kscope import __version__, simulate, text_report, topology, topology_files, units
from kscope.bench import node
from kscope.core.config import get_settings
from kscope.native import core

# Bad input (exit 2): each names what was wrong and where.
BAD_INPUT_ERRORS = (
    topology.UnknownPreset,
    topology_files.TopologyInputError,
    core.ParseError,
    simulate.WorkloadFileError,
)
# Failures of the machine, not the input (exit 1).
FAILURES = (core.CoreLibraryMissing, core.KscopeCoreError, node.NodeUnavailable, node.NodeScriptFailed)

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
    _emit(topology.topology_of_spec(args.preset), args.json, text_report.topology_table)
    return EXIT_OK


def cmd_sim(args: argparse.Namespace) -> int:
    request = simulate.SimRequest(topology=args.preset, workload=Path(args.workload), seed=args.seed,
                                  until_ns=args.until, algo=args.algo, hash_events=not args.no_hash)
    document = simulate.run(request, export_to=Path(args.output) if args.export else None)
    _emit(document, args.json, text_report.sim_summary)
    return EXIT_OK


def cmd_decode(args: argparse.Namespace) -> int:
    from kscope.native import ftrace

    path = Path(args.file)
    if not path.is_file():
        print(f"kscope: {path}: no such trace file", file=sys.stderr)
        return EXIT_BAD_INPUT
    document = {"file": str(path), **ftrace.decode_file(path).summary()}
    _emit(document, args.json, text_report.decode_summary)
    return EXIT_OK


def cmd_bench(args: argparse.Namespace) -> int:
    from kscope.bench import core_bench, frame_bench

    if args.target == "core":
        try:
            document = core_bench.run(args.events, args.repeat)
        except core_bench.HashMismatch as err:
            _emit(err.document, args.json, text_report.bench_report)
            print(f"kscope: {err}", file=sys.stderr)
            return EXIT_FAILURE
    else:
        document = frame_bench.run(args.frames, args.tick, args.warmup)
    _emit(document, args.json, text_report.bench_report)
    return EXIT_OK


def cmd_repro(args: argparse.Namespace) -> int:
    from kscope.repro import mm_cid

    def progress(message: str) -> None:
        print(f"kscope repro: {message}", file=sys.stderr)

    document = mm_cid.run(rounds=args.rounds, runs=args.runs, background=args.background,
                          progress=None if args.json else progress)
    _emit(document, args.json, text_report.repro_mm_cid)
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

    topo = sub.add_parser("topology", help="show a topology (preset or your machine's dump) as the C core reads it")
    topo.add_argument("preset", nargs="?", metavar="FILE|PRESET",
                      help="preset name (see --list), or lscpu -p output, a flattened sysfs dump, "
                           "a /sys/devices/system/cpu directory or a tarball of one")
    topo.add_argument("--list", action="store_true", help="list the presets instead")
    topo.add_argument("--json", action="store_true", help="print one JSON document")
    topo.set_defaults(func=cmd_topology)

    presets = sub.add_parser("presets", help="list the topology presets")
    presets.add_argument("--json", action="store_true", help="print one JSON document")
    presets.set_defaults(func=cmd_presets)

    _add_sim_parser(sub)
    _add_decode_parser(sub)
    _add_bench_parser(sub)
    _add_repro_parser(sub)
    return parser


def _duration(text: str) -> int:
    try:
        ns = units.parse_duration_ns(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from err
    if ns == 0:
        raise argparse.ArgumentTypeError(f"bad duration {text!r}: must be more than 0")
    return ns


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        value = -1
    if not 0 <= value < 1 << 64:
        raise argparse.ArgumentTypeError(f"expected an integer 0..2^64-1, got {text!r}")
    return value


def _add_sim_parser(sub: Any) -> None:
    sim = sub.add_parser("sim", help="run a workload in the C scheduler core and summarize the run")
    sim.add_argument("--preset", required=True, metavar="PRESET|FILE",
                     help="topology preset, or a topology file/directory/tarball (see `topology`)")
    sim.add_argument("--workload", required=True, metavar="W.json",
                     help="workload JSON (schema: wasm-core/src/sched/workload.c)")
    sim.add_argument("--seed", type=_seed, default=0, help="RNG seed (default 0)")
    sim.add_argument("--until", type=_duration, required=True, metavar="DURATION",
                     help="simulated time to run to: 2s, 150ms, 500us, 1000ns (the run stops after "
                          "the first event at or past it, or when the workload ends)")
    sim.add_argument("--algo", default="none", help="scheduling algorithm model (default: none)")
    sim.add_argument("--json", action="store_true", help="print one JSON document")
    sim.add_argument("--no-hash", action="store_true",
                     help="skip the event-stream hash (computed in Python, ~7 us per event: "
                          "for runs of millions of events)")
    sim.add_argument("--export", choices=["ftrace"], help="also write the run's events in this format")
    sim.add_argument("-o", "--output", metavar="FILE", help="file for --export")
    sim.set_defaults(func=cmd_sim)


def _add_decode_parser(sub: Any) -> None:
    decode = sub.add_parser("decode", help="decode an ftrace text file with the C decoder")
    decode.add_argument("file", metavar="FILE", help="tracefs `trace` text or `trace-cmd report` output")
    decode.add_argument("--json", action="store_true", help="print one JSON document")
    decode.set_defaults(func=cmd_decode)


def _add_bench_parser(sub: Any) -> None:
    bench = sub.add_parser("bench", help="benchmarks of the C core, native and wasm (figures, not tests)")
    bench.add_argument("target", choices=["core", "frame"],
                       help="core: events/s native vs wasm; frame: one animation frame of 480 CPUs in wasm")
    bench.add_argument("--events", type=_positive, default=5_000_000, help="core: events per run (default 5M)")
    bench.add_argument("--repeat", type=_positive, default=3, help="core: runs per side, best counts (default 3)")
    bench.add_argument("--frames", type=_positive, default=500, help="frame: timed frames (default 500)")
    bench.add_argument("--tick", type=_duration, default=100_000, metavar="DURATION",
                       help="frame: simulated time per frame (default 100us)")
    bench.add_argument("--warmup", type=int, default=10, help="frame: untimed frames first (default 10)")
    bench.add_argument("--json", action="store_true", help="print one JSON document")
    bench.set_defaults(func=cmd_bench)


def _non_negative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}")
    return value


def _add_repro_parser(sub: Any) -> None:
    repro = sub.add_parser("repro", help="re-run a seed's benchmark on the models, beside the published figures")
    repro.add_argument("target", choices=["mm_cid"],
                       help="mm_cid: seed 000 (7e019dc), librseq's intermittent benchmark on epyc-9654-2s")
    repro.add_argument("--rounds", type=_positive, default=5,
                       help="measured bursts per thread (default 5, librseq's LOOPS_PER_THREAD)")
    repro.add_argument("--runs", type=_positive, default=5,
                       help="runs averaged, seeds 1..N (default 5, as the seed averages 5 runs)")
    repro.add_argument("--background", type=_non_negative, default=0, metavar="B",
                       help="background traffic evicting cached lines, bytes/us per core (x8 per L3); "
                            "default 0: the machine runs only the benchmark")
    repro.add_argument("--json", action="store_true", help="print one JSON document")
    repro.set_defaults(func=cmd_repro)


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
    if handler is cmd_sim and bool(args.export) != bool(args.output):
        parser.error("sim: --export FORMAT and -o FILE go together")
    try:
        return handler(args)
    except BAD_INPUT_ERRORS as err:
        print(f"kscope: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as err:  # an unwritable -o FILE, say
        print(f"kscope: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT if handler is not cmd_bench else EXIT_FAILURE
    except FAILURES as err:
        print(f"kscope: {err}", file=sys.stderr)
        return EXIT_FAILURE
