"""`kscope export-lesson`: a bad name is bad input; a real export is one self-contained page.
The lesson exported is a shipped one of the first registered model that ships any (lessons
live in frontend/src/lessons/<model>/, found by folder): the command is generic."""

import json
import re
from pathlib import Path

import pytest

from kscope import export_lesson
from kscope.cli import main
from kscope.models import registry


def a_shipped_lesson() -> Path:
    """frontend/src/lessons/<model>/<id>.lesson.json of the first registered model with one."""
    for model in registry.models():
        found = sorted((export_lesson.LESSONS / model.name).glob("*.lesson.json"))
        if found:
            return found[0]
    raise AssertionError(f"no registered model ships a lesson in {export_lesson.LESSONS}")


LESSON = a_shipped_lesson()
NAME = LESSON.name.removesuffix(".lesson.json")


def test_unknown_lesson_is_bad_input_naming_the_shipped_ones(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export-lesson", "no-such-lesson", "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "no lesson 'no-such-lesson'" in err and f"shipped: {', '.join(export_lesson.lesson_names())})" in err
    assert NAME in export_lesson.lesson_names()
    assert not (tmp_path / "out").exists()
    assert main(["export-lesson", "../etc", "-o", str(tmp_path / "out")]) == 2


def test_output_that_is_a_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "file"
    target.write_text("x")
    assert main(["export-lesson", NAME, "-o", str(target)]) == 2
    assert "is not a directory" in capsys.readouterr().err


def test_export_is_one_page_with_the_app_the_wasm_and_the_lesson(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "lesson"
    assert main(["export-lesson", NAME, "-o", str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    lesson = json.loads(LESSON.read_text())
    assert doc["lesson"] == NAME and doc["steps"] == len(lesson["steps"]) >= 2
    html = (out / "index.html").read_text()
    assert doc["bytes"] == len(html.encode())
    # No file beside it is loaded: no script src, no module script, no stylesheet link.
    assert not re.search(r"<script[^>]*\bsrc=", html)
    assert 'type="module"' not in html
    assert not re.search(r"<link[^>]*stylesheet", html)
    # The C core's wasm is inside (base64 data URI of the -sSINGLE_FILE build), as is the lesson.
    assert "data:application/octet-stream;base64," in html
    assert lesson["steps"][0]["title"] in html
    assert (out / LESSON.name).read_bytes() == LESSON.read_bytes()
    assert f"index.html#/present/{NAME}" in (out / "README.txt").read_text()
