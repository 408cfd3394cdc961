"""The CLI's model choices come from models/registry.py: `kscope repro --list`, `repro TARGET`,
`conform --algo/--variant`. A toy model registered for one test shows up everywhere without
any other file changing."""

import json
import sys
import types
from dataclasses import replace
from collections.abc import Iterator
from typing import Any

import pytest

from kscope.cli import EXIT_BAD_INPUT, build_parser, main
from kscope.models import registry
from kscope.models.model import Conform, Model, Repro


def _toy_run(rounds: int, runs: int, background: int, progress: Any) -> dict[str, Any]:
    return {"rounds": rounds, "runs": runs, "background": background}


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    package = types.ModuleType("kscope.models.toy")
    package.MODEL = Model(  # type: ignore[attr-defined]
        name="toy", about="a toy", sim_algos=("toy:a",), sim_auto="never",
        conform=Conform(variants=("a", "b"), compares="its cids", needs="toy events", variant_help="a",
                        module="kscope.models.toy.conform"),
        repro=Repro(about="the toy's benchmark", module="kscope.models.toy.repro",
                    report="kscope.models.toy.text_report"))
    repro = types.ModuleType("kscope.models.toy.repro")
    repro.run = _toy_run  # type: ignore[attr-defined]
    report = types.ModuleType("kscope.models.toy.text_report")
    report.render = lambda doc: f"toy rounds {doc['rounds']}"  # type: ignore[attr-defined]
    for module in (package, repro, report):
        monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(registry.MODELS, "toy", "kscope.models.toy")
    registry.get.cache_clear()
    yield
    registry.get.cache_clear()


def test_repro_list_prints_each_target_on_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["repro", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == [m.name for m in registry.repro_targets()]
    assert all(m.repro and m.repro.about in line for m, line in zip(registry.repro_targets(), lines))
    assert main(["repro", "--list", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == [{"target": m.name, "about": m.repro.about}  # type: ignore[union-attr]
                                                   for m in registry.repro_targets()]


def test_repro_wants_a_target_or_list() -> None:
    with pytest.raises(SystemExit) as e:
        main(["repro"])
    assert e.value.code == EXIT_BAD_INPUT
    with pytest.raises(SystemExit) as e:
        main(["repro", registry.repro_targets()[0].name, "--list"])
    assert e.value.code == EXIT_BAD_INPUT
    with pytest.raises(SystemExit) as e:
        main(["repro", "nosuchmodel"])
    assert e.value.code == EXIT_BAD_INPUT


def test_a_registered_model_is_a_repro_target_and_a_conform_choice(toy: None,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["repro", "--list"]) == 0
    listed = {line.split(maxsplit=1)[0]: line.split(maxsplit=1)[1] for line in capsys.readouterr().out.splitlines()}
    assert listed["toy"] == "the toy's benchmark"
    assert main(["repro", "toy", "--rounds", "2", "--runs", "1"]) == 0
    assert capsys.readouterr().out.strip() == "toy rounds 2"
    args = build_parser().parse_args(["conform", "t.txt", "--algo", "toy", "--variant", "b"])
    assert (args.algo, args.variant) == ("toy", "b")
    with pytest.raises(SystemExit):
        main(["conform", "--help"])
    conform_help = " ".join(capsys.readouterr().out.split())
    assert "toy: toy events" in conform_help  # the FILE help, from the descriptors
    # the conform choices: the registered models that have a conform (not every model does)
    assert "--algo {" + ",".join(m.name for m in registry.conform_models()) + "}" in conform_help
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "toy: its cids" in " ".join(capsys.readouterr().out.split())


def test_conform_choices_are_the_registry_s(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["conform", "t.txt", "--algo", "toy"])
    assert "invalid choice: 'toy'" in capsys.readouterr().err
    variants = registry.conform_variants()
    args = build_parser().parse_args(["conform", "t.txt", "--variant", variants[-1]])
    assert args.algo == registry.default_conform().name and args.variant == variants[-1]


def test_cost_model_goes_only_to_targets_that_take_it(capsys: pytest.CaptureFixture[str]) -> None:
    """--cost-model is passed to a target's run() only when it has the parameter; a target
    without it refuses the flag (exit 2, naming it) instead of failing inside its run."""
    import inspect
    without = [m for m in registry.repro_targets()
               if "cost_model" not in inspect.signature(m.repro.load().run).parameters]  # type: ignore[union-attr]
    for m in without:
        assert main(["repro", m.name, "--cost-model", "v1"]) == EXIT_BAD_INPUT
        assert f"{m.name} has no --cost-model choice" in capsys.readouterr().err


def test_a_target_has_its_own_defaults(toy: None, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["repro", "toy", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"rounds": 5, "runs": 5, "background": 0}
    model = registry.get("toy")
    assert model.repro is not None
    monkeypatch.setattr(sys.modules["kscope.models.toy"], "MODEL",
                        replace(model, repro=replace(model.repro, runs_default=1)))
    registry.get.cache_clear()
    assert main(["repro", "toy", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"rounds": 5, "runs": 1, "background": 0}
    assert main(["repro", "toy", "--json", "--runs", "3"]) == 0
    assert json.loads(capsys.readouterr().out)["runs"] == 3
