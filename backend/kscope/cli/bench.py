"""`kscope bench TARGET`: benchmarks of the C core, native and wasm, and the registered models'
benchmarks of the real machine (figures, not tests). A model's target, its flags and its run
come from its descriptor (models/model.py `Bench`); this module names none."""

import argparse
import sys
from typing import Any

from kscope import text_report
from kscope.cli.common import EXIT_FAILURE, EXIT_OK, add_json, duration, emit, non_negative, positive
from kscope.models import registry
from kscope.models.model import Bench, BenchOption

CORE_TARGETS = ("core", "frame", "ingest", "rooms", "abuse")


def _model_bench(target: str) -> Bench | None:
    for model in registry.bench_targets():
        if model.bench is not None and model.bench.target == target:
            return model.bench
    return None


def _option_type(option: BenchOption) -> Any:
    """The argparse type of a model's flag (argparse applies it to the string default too)."""
    if option.kind == "int":
        return positive

    def listed(text: str) -> list[Any]:
        items = [t.strip() for t in text.split(",") if t.strip()]
        if not items:
            raise argparse.ArgumentTypeError(f"{option.flag}: give at least one value")
        if option.kind == "ints":
            return [non_negative(t) for t in items]
        unknown = [t for t in items if t not in option.words]
        if unknown:
            raise argparse.ArgumentTypeError(f"{option.flag}: unknown {', '.join(unknown)} "
                                             f"(choose from {', '.join(option.words)})")
        return items

    return listed


def run_model_bench(bench: Bench, args: argparse.Namespace) -> int:
    options = {o.dest: getattr(args, o.dest) for o in bench.options}
    module = bench.load()
    try:
        document = module.run(progress=lambda m: print(f"kscope bench {bench.target}: {m}", file=sys.stderr),
                              **options)
    except module.BenchFailed as err:
        print(f"kscope: bench {bench.target}: {err}", file=sys.stderr)
        return EXIT_FAILURE
    emit(document, args.json, bench.render)
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    model_bench = _model_bench(args.target)
    if model_bench is not None:
        return run_model_bench(model_bench, args)
    from kscope.bench import core_bench, frame_bench, ingest_bench

    if args.target in ("rooms", "abuse"):  # benches that start servers of their own
        import importlib

        bench = importlib.import_module(f"kscope.bench.{args.target}_bench")
        run_args = ((args.followers, args.backends, args.steps) if args.target == "rooms"
                    else (args.uploads, args.followers, args.queries))
        try:
            document = bench.run(*run_args,
                                 progress=lambda m: print(f"kscope bench {args.target}: {m}", file=sys.stderr))
        except bench.BenchFailed as err:
            print(f"kscope: bench {args.target}: {err}", file=sys.stderr)
            return EXIT_FAILURE
        emit(document, args.json, bench.render)
        # abuse checks its own targets (errors, losses, health p99); rooms only measures
        return EXIT_OK if document.get("passed", True) else EXIT_FAILURE
    if args.target == "ingest":
        document = ingest_bench.run(args.events if args.events != 5_000_000 else 1_000_000, args.big,
                                    dat_events=args.dat_events)
    elif args.target == "core":
        try:
            document = core_bench.run(args.events, args.repeat)
        except core_bench.HashMismatch as err:
            emit(err.document, args.json, text_report.bench_report)
            print(f"kscope: {err}", file=sys.stderr)
            return EXIT_FAILURE
    else:
        document = frame_bench.run(args.frames, args.tick, args.warmup)
    emit(document, args.json, text_report.bench_report)
    return EXIT_OK


def add_parser(sub: Any) -> None:
    model_benches = [m.bench for m in registry.bench_targets() if m.bench is not None]
    bench = sub.add_parser("bench", help="benchmarks of the C core, native and wasm, and of this machine for "
                                         "the models (figures, not tests)")
    bench.add_argument("target", choices=[*CORE_TARGETS, *(b.target for b in model_benches)],
                       help="core: events/s native vs wasm; frame: one animation frame of 480 CPUs in wasm; "
                            "ingest: real-trace ingest (MB/s, RSS, bytes/event, summary latency); "
                            "rooms: step-broadcast latency to WebSocket followers, 1 and 2 backends; "
                            "abuse: uploads + room followers + SQL at once against one server (errors, "
                            "lost, health p99)"
                            + "".join(f"; {b.target}: {b.about}" for b in model_benches))
    bench.add_argument("--events", type=positive, default=5_000_000,
                       help="core: events per run (default 5M); ingest: the small trace (default 1M)")
    bench.add_argument("--big", type=non_negative, default=10_000_000,
                       help="ingest: the big trace's events (default 10M; 0 skips it)")
    bench.add_argument("--dat-events", type=non_negative, default=1_000_000,
                       help="ingest: events of the trace.dat captured from this kernel (default 1M; 0 skips it)")
    bench.add_argument("--repeat", type=positive, default=3, help="core: runs per side, best counts (default 3)")
    bench.add_argument("--frames", type=positive, default=500, help="frame: timed frames (default 500)")
    bench.add_argument("--tick", type=duration, default=100_000, metavar="DURATION",
                       help="frame: simulated time per frame (default 100us)")
    bench.add_argument("--warmup", type=int, default=10, help="frame: untimed frames first (default 10)")
    bench.add_argument("--followers", type=positive, default=300,
                       help="rooms, abuse: follower sockets (default 300)")
    bench.add_argument("--uploads", type=positive, default=50, help="abuse: concurrent uploads (default 50)")
    bench.add_argument("--queries", type=positive, default=20, help="abuse: concurrent SQL queries (default 20)")
    bench.add_argument("--backends", type=int, choices=[1, 2],
                       help="rooms: 1 (memory broker) or 2 (Redis); default: both, with the p99 ratio")
    bench.add_argument("--steps", type=positive, default=100, help="rooms: states the presenter sends (default 100)")
    for model_bench in model_benches:
        for option in model_bench.options:
            bench.add_argument(option.flag, dest=option.dest, type=_option_type(option), default=option.default,
                               help=f"{model_bench.target}: {option.help} (default {option.default})")
    add_json(bench)
    # An OSError here is the machine's (a benchmark's scratch file), not the user's input.
    bench.set_defaults(func=run, os_error_exit=EXIT_FAILURE)
