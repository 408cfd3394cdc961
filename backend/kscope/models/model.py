"""What an algorithm model tells the generic backend: its descriptor.

A model's package (kscope/models/<name>/) exports one `MODEL = Model(...)`. The
descriptor holds only names and help text, so the CLI can build its parser and the
API its query patterns without loading a model's code; the modules that compute
(`repro`, `conform`, the text report) are imported when first used.

What the generic code calls on those modules:

- conform module (`Conform.module`): `replay(items, meta, kernel, **options) -> dict`
  (the report of time-ordered ks_event records), `render(doc) -> str`,
  `variant_for_kernel(kernel) -> str` and `COMPARED_TYPE` (the ks_event type whose
  field the model's decision is compared with; it picks the busiest trace buffer).
- repro module (`Repro.module`): `run(rounds=, runs=, background=, progress=) -> dict`;
  its text (`Repro.report`): `render(doc) -> str`.
- bench module (`Bench.module`): `run(progress=, **options) -> dict`, options named by the
  descriptor's `BenchOption.dest`s; its text (`Bench.report`): `render(doc) -> str`.
"""

import importlib
from dataclasses import dataclass
from types import ModuleType


def _load(module: str) -> ModuleType:
    return importlib.import_module(module)


@dataclass(frozen=True)
class Conform:
    """`kscope conform` / GET /api/traces/{id}/conform for this model."""

    variants: tuple[str, ...]  # the model's variants, as the C replay names them
    compares: str              # what is compared, for the command's help
    needs: str                 # what the trace must hold, for the FILE help
    variant_help: str          # how "auto" picks the variant
    module: str                # the module that computes it
    hz_help: str = "CONFIG_HZ of the traced kernel: the modelled tick"  # what --hz drives in the model
    resync_help: str = "after each disagreement the model adopts the kernel's decision"  # what --resync does

    def load(self) -> ModuleType:
        return _load(self.module)


@dataclass(frozen=True)
class Repro:
    """`kscope repro NAME`: a seed's benchmark re-run on the model."""

    about: str    # one line: which seed, which benchmark, which machine
    module: str   # run(...)
    report: str   # render(doc)
    rounds_default: int = 5   # what `--rounds` is when not given, for this target
    runs_default: int = 5     # what `--runs` is when not given, for this target

    def load(self) -> ModuleType:
        return _load(self.module)

    def render(self, doc: dict) -> str:  # type: ignore[type-arg]
        text: str = _load(self.report).render(doc)
        return text


@dataclass(frozen=True)
class BenchOption:
    """One `kscope bench TARGET` flag of a model's benchmark (added to the bench parser)."""

    flag: str       # "--loops"
    dest: str       # the run() keyword
    kind: str       # "int" (>= 1), "ints" (comma-separated, each >= 0) or "words" (comma-separated)
    default: str    # as typed on the command line
    help: str
    words: tuple[str, ...] = ()   # "words": the allowed ones


@dataclass(frozen=True)
class Bench:
    """`kscope bench TARGET`: a model's benchmark of a real machine (figures, not tests)."""

    target: str                       # the TARGET word
    about: str                        # one line for --help
    module: str                       # run(progress=, **options)
    report: str                       # render(doc)
    options: tuple[BenchOption, ...] = ()

    def load(self) -> ModuleType:
        return _load(self.module)

    def render(self, doc: dict) -> str:  # type: ignore[type-arg]
        text: str = _load(self.report).render(doc)
        return text


@dataclass(frozen=True)
class Model:
    name: str
    about: str                       # one line: what the model is
    sim_algos: tuple[str, ...]       # the `kscope sim --algo` values it runs as (name:variant)
    sim_auto: str                    # when `--algo auto` picks it (the C core decides; said for --help)
    conform: Conform | None = None   # None: no trace conformance for this model yet
    repro: Repro | None = None       # None: no seed benchmark to re-run
    bench: Bench | None = None       # None: no benchmark of the real machine
