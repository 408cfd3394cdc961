"""`kscope sim`: a workload run in the C scheduler core, summarized (optionally exported)."""

import argparse
from pathlib import Path
from typing import Any

from kscope import text_report
from kscope.cli.common import EXIT_OK, add_json, duration, emit, seed
from kscope.models import registry


def run(args: argparse.Namespace) -> int:
    from kscope import simulate

    request = simulate.SimRequest(topology=args.preset, workload=Path(args.workload), seed=args.seed,
                                  until_ns=args.until, algo=args.algo, hash_events=not args.no_hash,
                                  cost_model=args.cost_model)
    document = simulate.run(request, export_to=Path(args.output) if args.export else None)
    emit(document, args.json, text_report.sim_summary)
    return EXIT_OK


def validate(args: argparse.Namespace) -> str | None:
    return None if bool(args.export) == bool(args.output) else "sim: --export FORMAT and -o FILE go together"


def _algo_help() -> str:
    models = registry.models()
    algos = ", ".join("|".join([m.sim_algos[0], *(a.split(":", 1)[-1] for a in m.sim_algos[1:])])
                      for m in models if m.sim_algos)
    auto = "; ".join(m.sim_auto for m in models if m.sim_auto)
    return f"scheduling algorithm model: none, {algos}, or auto (default): {auto}, else none"


def add_parser(sub: Any) -> None:
    sim = sub.add_parser("sim", help="run a workload in the C scheduler core and summarize the run")
    sim.add_argument("--preset", required=True, metavar="PRESET|FILE",
                     help="topology preset, or a topology file/directory/tarball (see `topology`)")
    sim.add_argument("--workload", required=True, metavar="W.json",
                     help="workload JSON (schema: wasm-core/src/sched/workload.c)")
    sim.add_argument("--seed", type=seed, default=0, help="RNG seed (default 0)")
    sim.add_argument("--until", type=duration, required=True, metavar="DURATION",
                     help="simulated time to run to: 2s, 150ms, 500us, 1000ns (the run stops after "
                          "the first event at or past it, or when the workload ends)")
    sim.add_argument("--algo", default="auto", help=_algo_help())
    sim.add_argument("--cost-model", choices=("v1", "v2"), default="v1",
                     help="what prices a burst: v1 (default: the cache model's trips one after another) "
                          "or v2 (docs/cost_model_v2.md; the summary gives each mechanism's mean ns)")
    add_json(sim)
    sim.add_argument("--no-hash", action="store_true",
                     help="skip the event-stream hash (FNV-1a 64 over the records, in C)")
    sim.add_argument("--export", choices=["ftrace"], help="also write the run's events in this format")
    sim.add_argument("-o", "--output", metavar="FILE", help="file for --export")
    sim.set_defaults(func=run, validate=validate)
