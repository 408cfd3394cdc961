"""`kscope conform FILE`: a trace replayed through a registered model, its decisions beside the
kernel's (the models and their variants come from kscope/models/registry.py)."""

import argparse
from pathlib import Path
from typing import Any

from kscope.cli.common import EXIT_OK, add_json, emit, positive
from kscope.models import registry


def run(args: argparse.Namespace) -> int:
    from kscope import conform

    document = conform.run(Path(args.file), variant=args.variant, hz=args.hz, keep=args.keep,
                           resync=args.resync, algo=args.algo)
    emit(document, args.json, lambda doc: conform.render(doc, args.algo))
    return EXIT_OK


def _each(models: list[Any], text: Any) -> str:
    """One model's text as is; several: each prefixed with its name."""
    if len(models) == 1:
        return str(text(models[0]))
    return "; ".join(f"{m.name}: {text(m)}" for m in models)


def add_parser(sub: Any) -> None:
    models = registry.conform_models()
    default = registry.default_conform().name
    compares = "; ".join(f"{m.name}: {m.conform.compares}" for m in models)
    conf = sub.add_parser("conform", help="replay a trace's scheduling events through a model and compare "
                                          f"its decisions with the kernel's ({compares})")
    conf.add_argument("file", metavar="FILE", help=f"a trace with {_each(models, lambda m: m.conform.needs)} "
                                                   "(any format `ingest` reads, e.g. from `kscope capture`)")
    conf.add_argument("--algo", choices=[m.name for m in models], default=default,
                      help=f"the model (default {default})")
    conf.add_argument("--variant", choices=["auto", *registry.conform_variants()], default="auto",
                      help=f"model variant; auto: {_each(models, lambda m: m.conform.variant_help)}, or, "
                           "when the trace names no kernel, every variant replayed and the best agreement "
                           "chosen (variant_from \"inferred\", each variant's figures in \"variants\")")
    conf.add_argument("--hz", type=positive, default=250,
                      help=f"{_each(models, lambda m: m.conform.hz_help)} (default 250)")
    conf.add_argument("--keep", type=positive, default=10, help="disagreements to list (default 10)")
    conf.add_argument("--resync", action="store_true", help=_each(models, lambda m: m.conform.resync_help))
    add_json(conf)
    conf.set_defaults(func=run)
