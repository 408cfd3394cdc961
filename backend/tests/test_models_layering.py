"""Nothing in the backend package names an algorithm model outside the model's own package
(kscope/models/<name>/) and the registry (kscope/models/registry.py): adding a model is one
folder plus one registry line. A name that is generic data, not the model, is allowed in
ALLOWED below, each with its reason; the list must stay short and current."""

import importlib
import re
from pathlib import Path

import kscope
from kscope.models import registry
from kscope.models.model import Model

PACKAGE = Path(kscope.__file__).resolve().parent

# Files (relative to kscope/) that may name a model, and why. An entry whose file no longer
# names one fails test_allow_list_is_current, so the list only shrinks with the code.
ALLOWED = {
    # rseq:rseq_update's fields are cpu_id, node_id and mm_cid: the kernel tracepoint's field
    # name, a column of every stored trace, not the model.
    "ingest/records.py": "rseq_update's mm_cid field: the records' layout and the Parquet column",
    "native/events.py": "rseq_update's mm_cid field in the event layouts (owned by the C-core bindings)",
    "native/from_arrow.py": "rseq_update's mm_cid column back into records (the inverse of ingest/records.py)",
    "trace_export/chrome.py": "rseq_update's fields written as the Chrome event's args",
    "conform_store.py": "rseq_update's mm_cid column read back for the replay",
    # A simulated task's mm_cid is the rseq ABI field (struct rseq's mm_cid, what rseq_update
    # reports), which every frame carries whatever model runs; the C-core bindings mirror it.
    "native/structs.py": "ks_sim_task's mm_cid field (the rseq ABI field), as sim.h lays it out",
    "native/sim.py": "ks_sim_task's mm_cid field (the rseq ABI field) in a frame's task dict",
    # The kernel-patches layer has its own folders, named after the upstream patches.
    "kernel/patches.py": "the kernel patch sets: kernel-patches/<set>/ folder names (all seeds)",
    "kernel/config.py": "the Kconfig symbol SCHED_MM_CID, in a note on the guest kernel's config",
    "vm/workloads/__init__.py": "the capture-vm workloads: which seed each reproduces (all four) and "
                                "the kscope_* tracepoints kernel-patches/ adds",
    "vm/workloads/intermittent.c": "librseq's benchmark, which indexes by rseq's mm_cid field",
    "data/published.json": "the seeds' published figures, keyed by seed (all four), read by the frontend too",
}


def _model_dirs(root: Path) -> list[Path]:
    return [root / "models" / name for name in registry.names()]


def leaks(root: Path = PACKAGE, names: tuple[str, ...] = registry.names()) -> dict[str, list[str]]:
    """{file relative to root: ["line: text", ...]} naming a model (any case) outside
    models/<name>/ and models/registry.py."""
    pattern = re.compile("|".join(re.escape(n) for n in names), re.IGNORECASE)
    own = [root / "models" / n for n in names]
    found: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts or path.suffix in (".pyc", ".so"):
            continue
        if path == root / "models" / "registry.py" or any(d in path.parents for d in own):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        hits = [f"{i}: {line.strip()}" for i, line in enumerate(text.splitlines(), 1) if pattern.search(line)]
        if hits:
            found[path.relative_to(root).as_posix()] = hits
    return found


def test_no_model_name_outside_its_package() -> None:
    found = {f: lines for f, lines in leaks().items() if f not in ALLOWED}
    report = "\n".join(f"kscope/{f}:{line}" for f, lines in found.items() for line in lines[:5])
    assert not found, ("a model is named outside kscope/models/<name>/ and the registry; move the code "
                       "into the model's package, ask the registry, or allow it in ALLOWED with a "
                       f"reason:\n{report}")


def test_allow_list_is_current() -> None:
    named = leaks()
    stale = [f for f in ALLOWED if f not in named]
    assert not stale, f"ALLOWED entries whose file names no model any more (remove them): {stale}"


def test_the_check_finds_a_leak_in_any_case(tmp_path: Path) -> None:
    (tmp_path / "models" / "toy").mkdir(parents=True)
    (tmp_path / "models" / "toy" / "conform.py").write_text("TOY = 'toy'\n")  # its own package: fine
    (tmp_path / "models" / "registry.py").write_text("MODELS = {'toy': 'kscope.models.toy'}\n")
    (tmp_path / "generic.py").write_text("import os\nif algo == 'Toy':\n    pass\n")
    assert leaks(tmp_path, ("toy",)) == {"generic.py": ["2: if algo == 'Toy':"]}


def test_every_registered_model_is_its_own_package() -> None:
    assert registry.names(), "no model registered"
    for name in registry.names():
        assert registry.MODELS[name] == f"kscope.models.{name}"
        assert (PACKAGE / "models" / name / "__init__.py").is_file()
        model = registry.get(name)
        assert isinstance(model, Model) and model.name == name
        assert all(a.startswith(f"{name}:") for a in model.sim_algos)


def test_each_model_provides_what_the_generic_code_calls() -> None:
    for model in registry.models():
        if model.conform is not None:
            module = model.conform.load()
            for attr in ("replay", "render", "variant_for_kernel", "COMPARED_TYPE"):
                assert hasattr(module, attr), f"{model.conform.module} has no {attr}"
            assert module.variant_for_kernel("") in model.conform.variants
        if model.repro is not None:
            assert callable(model.repro.load().run)
            assert callable(importlib.import_module(model.repro.report).render)
    assert registry.repro_targets() and registry.conform_models()


def test_patterns_match_exactly_the_words() -> None:
    rx = re.compile(registry.pattern(["auto", "v6.12"]))
    assert rx.match("v6.12") and rx.match("auto")
    assert not rx.match("v6x12") and not rx.match("auto2") and not rx.match("")
