"""Nothing in the backend names an algorithm model outside the model's own folders and the
registry: adding a model is one folder per layer plus one registry line.

- the package: kscope/models/<name>/ and kscope/models/registry.py;
- the tests: tests/models/<name>/ and tests_kernel/models/<name>/ (a model's own tests:
  its repro, conform, text report, the CLI and API on its figures); generic tests take a
  model from kscope.models.registry when they need one.

A name that is generic data, not the model, is allowed in ALLOWED / ALLOWED_TESTS below,
each with its reason; the lists must stay short and current (an entry whose file names no
model any more fails). Most entries are one kernel field: the rseq ABI's concurrency-id
field, which the kernel named after the feature (struct rseq at byte 24, the third field of
rseq:rseq_update); every stored trace has it as a column whichever model runs, so it is the
event model, not a plug-in. They are called "the rseq cid field" below."""

import importlib
import re
from pathlib import Path

import kscope
from kscope.models import registry
from kscope.models.model import Model

PACKAGE = Path(kscope.__file__).resolve().parent
BACKEND = PACKAGE.parent
TEST_ROOTS = ("tests", "tests_kernel")

# Files (relative to kscope/) that may name a model, and why. An entry whose file no longer
# names one fails test_allow_list_is_current, so the list only shrinks with the code.
ALLOWED = {
    "ingest/records.py": "the rseq cid field: the records' layout and the Parquet column",
    "native/events.py": "the rseq cid field in the event layouts (owned by the C-core bindings)",
    "native/from_arrow.py": "the rseq cid column back into records (the inverse of ingest/records.py)",
    "trace_export/chrome.py": "rseq_update's fields written as the Chrome event's args",
    "conform_store.py": "the rseq cid column read back for the replay",
    # A simulated task carries the rseq cid field whatever model runs (sim.h: "rseq ABI field
    # rseq->...: the plugged model's cid"); the C-core bindings mirror it.
    "native/structs.py": "ks_sim_task's rseq cid field, as sim.h lays it out",
    "native/sim.py": "ks_sim_task's rseq cid field in a frame's task dict",
    # The kernel-patches layer has its own folders, named after the upstream patches.
    "kernel/patches.py": "the kernel patch sets: kernel-patches/<set>/ folder names (all seeds)",
    "kernel/config.py": "the kernel's Kconfig symbol for the feature, in a note on the guest kernel's config",
    "vm/workloads/__init__.py": "the capture-vm workloads: which seed each reproduces (all four) and "
                                "the kscope_* tracepoints kernel-patches/ adds",
    "vm/workloads/intermittent.c": "librseq's benchmark, which indexes by the rseq cid field",
    "vm/workloads/mmap_loop.c": "seed 002's capture-vm workload: its comment names the SLUB feature it exercises "
                                "by the kernel's word",
    "data/published.json": "the seeds' published figures, keyed by seed (all four), read by the frontend too",
    "vm/workloads/rt_periodic.c": "the capture-vm RT workload of seed 001: the kernel functions it drives",
    "vm/guest.py": "the kernel functions an RT wakeup runs, named in a note on guest timing",
}

# Files (relative to backend/) of the generic tests that may name a model, and why; the same
# rules as ALLOWED (test_tests_allow_list_is_current).
ALLOWED_TESTS = {
    "tests/test_records.py": "rseq_update lines and their decoded rseq cid field (trace text is data)",
    "tests/test_columns.py": "the records' rseq cid column",
    "tests/test_struct_layouts.py": "the rseq cid field's offset in ks_event, checked against offsetof",
    "tests/test_store.py": "the stored events' columns, the rseq cid column among them",
    "tests/test_capture.py": "the rseq cid column of a captured trace, counted in SQL",
    "tests/test_traces_golden.py": "the rseq cid column of a shipped trace, counted in SQL",
    "tests/test_vm_capture.py": "an rseq_update line of a guest's trace and its decoded rseq cid field",
    # The kernel-patches layer is per seed, not per model (as kernel/patches.py above).
    "tests/test_kernel_build.py": "kernel patch set names (kernel-patches/<set>/), the boot parameter "
                                  "and Kconfig symbol those patches add, as `kscope kernel build` and "
                                  "`capture-vm --patches` take them",
    "tests/test_trace_export.py": "a shipped 16-vCPU capture used as a fixture, named by its file name",
    "tests/test_rt_model_vs_trace.py": "the core's RT placement against the shipped RT captures (by file "
                                       "name) and the kernel function the core's search stands in for",
}


def _scan(root: Path, tops: tuple[str, ...], names: tuple[str, ...], own: list[Path],
          skip: tuple[Path, ...] = ()) -> dict[str, list[str]]:
    """{file relative to root: ["line: text", ...]} naming a model (any case), for the files
    under root/<top> for each top ("" = root itself), outside the `own` folders and `skip`."""
    pattern = re.compile("|".join(re.escape(n) for n in names), re.IGNORECASE)
    found: dict[str, list[str]] = {}
    for top in tops:
        for path in sorted((root / top).rglob("*")):
            if not path.is_file() or "__pycache__" in path.parts or path.suffix in (".pyc", ".so"):
                continue
            if path in skip or any(d in path.parents for d in own):
                continue
            try:
                text = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue
            hits = [f"{i}: {line.strip()}" for i, line in enumerate(text.splitlines(), 1) if pattern.search(line)]
            if hits:
                found[path.relative_to(root).as_posix()] = hits
    return found


def leaks(root: Path = PACKAGE, names: tuple[str, ...] = registry.names()) -> dict[str, list[str]]:
    """The package's files naming a model outside models/<name>/ and models/registry.py."""
    return _scan(root, ("",), names, [root / "models" / n for n in names], (root / "models" / "registry.py",))


def test_leaks(root: Path = BACKEND, names: tuple[str, ...] = registry.names()) -> dict[str, list[str]]:
    """The test files (tests/, tests_kernel/) naming a model outside <tests>/models/<name>/."""
    return _scan(root, TEST_ROOTS, names, [root / t / "models" / n for t in TEST_ROOTS for n in names])


test_leaks.__test__ = False  # type: ignore[attr-defined]  # a helper, not a test


def _report(found: dict[str, list[str]], prefix: str) -> str:
    return "\n".join(f"{prefix}{f}:{line}" for f, lines in found.items() for line in lines[:5])


def test_no_model_name_outside_its_package() -> None:
    found = {f: lines for f, lines in leaks().items() if f not in ALLOWED}
    assert not found, ("a model is named outside kscope/models/<name>/ and the registry; move the code "
                       "into the model's package, ask the registry, or allow it in ALLOWED with a "
                       f"reason:\n{_report(found, 'kscope/')}")


def test_allow_list_is_current() -> None:
    named = leaks()
    stale = [f for f in ALLOWED if f not in named]
    assert not stale, f"ALLOWED entries whose file names no model any more (remove them): {stale}"


def test_no_model_name_in_the_generic_tests() -> None:
    found = {f: lines for f, lines in test_leaks().items() if f not in ALLOWED_TESTS}
    assert not found, ("a model is named by a generic test; move a model's own test into "
                       "tests/models/<name>/ (tests_kernel/models/<name>/), take the model from "
                       "kscope.models.registry, or allow it in ALLOWED_TESTS with a reason:\n"
                       f"{_report(found, 'backend/')}")


def test_tests_allow_list_is_current() -> None:
    named = test_leaks()
    stale = [f for f in ALLOWED_TESTS if f not in named]
    assert not stale, f"ALLOWED_TESTS entries whose file names no model any more (remove them): {stale}"


def test_every_allowed_entry_says_why() -> None:
    for entries in (ALLOWED, ALLOWED_TESTS):
        for path, reason in entries.items():
            assert len(reason.split()) >= 4, f"{path}: say why it may name a model"


def test_the_check_finds_a_leak_in_any_case(tmp_path: Path) -> None:
    (tmp_path / "models" / "toy").mkdir(parents=True)
    (tmp_path / "models" / "toy" / "conform.py").write_text("TOY = 'toy'\n")  # its own package: fine
    (tmp_path / "models" / "registry.py").write_text("MODELS = {'toy': 'kscope.models.toy'}\n")
    (tmp_path / "generic.py").write_text("import os\nif algo == 'Toy':\n    pass\n")
    assert leaks(tmp_path, ("toy",)) == {"generic.py": ["2: if algo == 'Toy':"]}


def test_the_tests_check_finds_a_leak_outside_the_models_test_folders(tmp_path: Path) -> None:
    for folder in ("tests/models/toy", "tests_kernel/models/toy", "tests/hostile"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "tests" / "models" / "toy" / "test_toy_repro.py").write_text("run('toy')\n")  # its own: fine
    (tmp_path / "tests_kernel" / "models" / "toy" / "test_kernel_toy.py").write_text("PATCHES = 'toy'\n")
    (tmp_path / "tests" / "test_api.py").write_text("import x\n\nparams = {'algo': 'TOY'}\n")
    (tmp_path / "tests" / "hostile" / "test_rooms.py").write_text("lesson = 'a-toy-lesson'\n")
    (tmp_path / "tests_kernel" / "test_boot.py").write_text("# boots the toy kernel\n")
    (tmp_path / "kscope").mkdir()
    (tmp_path / "kscope" / "generic.py").write_text("toy = 1\n")  # the package is leaks()'s, not this
    assert test_leaks(tmp_path, ("toy",)) == {
        "tests/hostile/test_rooms.py": ["1: lesson = 'a-toy-lesson'"],
        "tests/test_api.py": ["3: params = {'algo': 'TOY'}"],
        "tests_kernel/test_boot.py": ["1: # boots the toy kernel"],
    }


def test_every_registered_model_is_its_own_package() -> None:
    assert registry.names(), "no model registered"
    for name in registry.names():
        assert registry.MODELS[name] == f"kscope.models.{name}"
        assert (PACKAGE / "models" / name / "__init__.py").is_file()
        assert list((BACKEND / "tests" / "models" / name).glob("test_*.py")), \
            f"backend/tests/models/{name}/ holds no tests of the model"
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
