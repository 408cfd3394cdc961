"""`kscope repro TARGET` / `kscope repro --list`: a seed's benchmark re-run on a registered model,
beside the published figures (the targets are models/registry.py's models with a `repro`)."""

import argparse
import sys
from typing import Any

from kscope.cli.common import EXIT_OK, add_json, emit, non_negative, positive
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

    rounds = args.rounds if args.rounds is not None else repro.rounds_default
    runs = args.runs if args.runs is not None else repro.runs_default
    document = repro.load().run(rounds=rounds, runs=runs, background=args.background,
                                progress=None if args.json else progress)
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
    add_json(repro)
    repro.set_defaults(func=run, validate=validate)
