"""The `kscope` CLI: in-process through main(), and once as a real subprocess."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kscope.cli import main
from kscope.topology import topology_of

# The machines of the seed write-ups (shared/seeds/), plus the classroom one.
SEED_MACHINES = {"classroom-8", "epyc-9654-2s", "genoa-4n", "spr-2s", "gnr-2s-snc", "hcc-2s-480"}

KSCOPE = Path(sys.executable).parent / "kscope"


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == "kscope 0.1.0 (core 0.1.0)\n"


def test_topology_json_is_one_document(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["topology", "epyc-9654-2s", "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) == topology_of("epyc-9654-2s")
    assert err == ""


def test_topology_text_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["topology", "classroom-8"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("classroom-8: ")
    assert "0-1,4-5" in out and "2-3,6-7" in out


@pytest.mark.parametrize("argv", [["presets", "--json"], ["topology", "--list", "--json"]])
def test_presets_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 0
    assert {p["name"] for p in json.loads(capsys.readouterr().out)} >= SEED_MACHINES


def test_presets_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["presets"]) == 0
    name, description = capsys.readouterr().out.splitlines()[0].split(maxsplit=1)
    assert name == "classroom-8"
    assert description.startswith("Teaching machine")


def test_unknown_preset_exits_2_with_message_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["topology", "pdp-11", "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "unknown topology preset 'pdp-11'" in err and "epyc-9654-2s" in err


def test_topology_without_preset_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["topology"])
    assert caught.value.code == 2
    assert "PRESET or --list" in capsys.readouterr().err


def test_missing_core_library_exits_1(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from kscope.core.config import get_settings
    from kscope.native import core

    monkeypatch.setenv("KSCOPE_CORE_LIB", "/nonexistent/libkscope.so")
    get_settings.cache_clear()
    core.lib.cache_clear()
    try:
        assert main(["presets", "--json"]) == 1
    finally:
        get_settings.cache_clear()
        core.lib.cache_clear()
    out, err = capsys.readouterr()
    assert out == ""
    assert "/nonexistent/libkscope.so" in err and "npm start" in err


def test_subprocess_json_on_stdout_only() -> None:
    result = subprocess.run(
        [str(KSCOPE), "topology", "epyc-9654-2s", "--json"], capture_output=True, text=True, check=True
    )
    document = json.loads(result.stdout)  # raises unless stdout is exactly one JSON document
    assert document["cpus"] == 384 and len(document["cpu_list"]) == 384
    assert "{" not in result.stderr


def test_subprocess_unknown_preset_exits_2() -> None:
    result = subprocess.run([str(KSCOPE), "topology", "pdp-11"], capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stdout == ""
    assert "unknown topology preset 'pdp-11'" in result.stderr
