"""`kscope repro TARGET` / `kscope repro --list`: a seed's benchmark re-run on a registered model,
beside the published figures (the targets are models/registry.py's models with a `repro`)."""

import argparse
import inspect
import sys
from typing import Any

from kscope.cli.common import EXIT_BAD_INPUT, EXIT_OK, add_json, emit, non_negative, positive
from kscope.models import registry


def listing() -> list[dict[str, str]]:
    return [{"target": m.name, "about": m.repro.about} for m in registry.repro_targets()]  # type: ignore[union-attr]


def _listing_text(rows: list[dict[str, str]]) -> str:
    width = max((len(r["target"]) for r in rows), default=0)
    return "\n".join(f"{r['target']:<{width}}  {r['about']}" for r in rows)


def run(args: argparse.Namespace) -> int:
    if args.list:
        emit(listing(), args.json, _listing_text)
        return EXIT_OK
    repro = registry.get(args.target).repro
    assert repro is not None  # the parser's choices are the targets with one

    def progress(message: str) -> None:
        print(f"kscope repro: {message}", file=sys.stderr)

    run_fn = repro.load().run
    options: dict[str, Any] = {}
    if args.cost_model is not None:
        # only a target whose run() takes cost_model can switch how a burst is priced (a
        # target whose costs are a contended line's queue has no v1/v2 choice)
        if "cost_model" not in inspect.signature(run_fn).parameters:
            print(f"kscope repro: error: {args.target} has no --cost-model choice", file=sys.stderr)
            return EXIT_BAD_INPUT
        options["cost_model"] = args.cost_model
    rounds = args.rounds if args.rounds is not None else repro.rounds_default
    runs = args.runs if args.runs is not None else repro.runs_default
    document = run_fn(rounds=rounds, runs=runs, background=args.background,
                      progress=None if args.json else progress, **options)
    emit(document, args.json, repro.render)
    return EXIT_OK


def validate(args: argparse.Namespace) -> str | None:
    if args.list == bool(args.target):
        return "repro: give a TARGET or --list, not both" if args.list else "repro: give a TARGET or --list"
    return None


def add_parser(sub: Any) -> None:
    targets = registry.repro_targets()
    repro = sub.add_parser("repro", help="re-run a seed's benchmark on the models, beside the published figures")
    repro.add_argument("target", nargs="?", choices=[m.name for m in targets], metavar="TARGET",
                       help="; ".join(f"{m.name}: {m.repro.about}" for m in targets)  # type: ignore[union-attr]
                            + " (--list prints them)")
    repro.add_argument("--list", action="store_true", help="list the targets, one line each")
    repro.add_argument("--rounds", type=positive, default=None,
                       help="measured bursts per thread (default 5, librseq's LOOPS_PER_THREAD); "
                            "a target may read it its own way and have its own default (its repro module says)")
    repro.add_argument("--runs", type=positive, default=None,
                       help="runs averaged, seeds 1..N (default 5, as the seed averages 5 runs; "
                            "or the target's own default)")
    repro.add_argument("--background", type=non_negative, default=0, metavar="B",
                       help="background traffic evicting cached lines, bytes/us per core (x8 per L3); "
                            "default 0: the machine runs only the benchmark")
    repro.add_argument("--cost-model", choices=("v1", "v2"), default=None,
                       help="for targets that can switch: what prices a burst: v2 (the target's default; docs/cost_model_v2.md: overlapped misses, "
                            "prefetch, C-state flushes, capacity, page walks, first-touch faults, each a part "
                            "of the breakdown) or v1 (the cache model's trips one after another)")
    add_json(repro)
    repro.set_defaults(func=run, validate=validate)
