"""The algorithm models the backend knows: the only place that lists their names.

Adding a model is one line in MODELS (name -> its package, kscope/models/<name>/, which
exports `MODEL`, a models.model.Model). The CLI's choices (`kscope conform --algo`,
`--variant`, `kscope repro TARGET`, `kscope repro --list`, a model's `kscope bench TARGET`),
the conform route's query patterns and the default model all come from here; nothing outside
a model's package names a model (backend/tests/test_models_layering.py checks it, as `grep -ri NAME` would:
any case, also inside longer words, so a name must be distinctive: "cpupri", not "rt").
"""

import re
from functools import lru_cache

from kscope.models.model import Model

MODELS: dict[str, str] = {
    "mm_cid": "kscope.models.mm_cid",
    "cpupri": "kscope.models.cpupri",
    "sheaves": "kscope.models.sheaves",
}


class UnknownModel(ValueError):
    """A model name that is not registered."""


def names() -> tuple[str, ...]:
    return tuple(MODELS)


@lru_cache(maxsize=None)
def get(name: str) -> Model:
    """The registered model's descriptor (UnknownModel for another name)."""
    if name not in MODELS:
        raise UnknownModel(f"unknown model {name!r} (known: {', '.join(MODELS)})")
    from importlib import import_module

    model: Model = import_module(MODELS[name]).MODEL
    if model.name != name:
        raise RuntimeError(f"{MODELS[name]}.MODEL is named {model.name!r}, registered as {name!r}")
    return model


def models() -> list[Model]:
    return [get(name) for name in MODELS]


def default() -> Model:
    """The first registered model: what `--algo` means when not given."""
    return get(next(iter(MODELS)))


def conform_models() -> list[Model]:
    """The models `kscope conform` can replay a trace through."""
    return [m for m in models() if m.conform is not None]


def default_conform() -> Model:
    return conform_models()[0]


def conform_variants() -> list[str]:
    """Every conform model's variants, in registry order, once each."""
    return list(dict.fromkeys(v for m in conform_models() for v in m.conform.variants))  # type: ignore[union-attr]


def repro_targets() -> list[Model]:
    """The models with a seed benchmark to re-run (`kscope repro --list`)."""
    return [m for m in models() if m.repro is not None]


def bench_targets() -> list[Model]:
    """The models with a benchmark of the real machine (`kscope bench TARGET`)."""
    return [m for m in models() if m.bench is not None]


def pattern(words: list[str]) -> str:
    """An anchored regular expression matching exactly these words (FastAPI's Query pattern)."""
    return "^(" + "|".join(re.escape(w) for w in words) + ")$"
