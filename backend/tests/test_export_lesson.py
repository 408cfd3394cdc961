"""`kscope export-lesson`: a bad name is bad input; a real export is one self-contained page."""

import json
import re
from pathlib import Path

import pytest

from kscope.cli import main


def test_unknown_lesson_is_bad_input_naming_the_shipped_ones(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export-lesson", "cpupri", "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "no lesson 'cpupri'" in err and "shipped: mm_cid" in err
    assert not (tmp_path / "out").exists()
    assert main(["export-lesson", "../etc", "-o", str(tmp_path / "out")]) == 2


def test_output_that_is_a_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "file"
    target.write_text("x")
    assert main(["export-lesson", "mm_cid", "-o", str(target)]) == 2
    assert "is not a directory" in capsys.readouterr().err


def test_export_is_one_page_with_the_app_the_wasm_and_the_lesson(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "lesson"
    assert main(["export-lesson", "mm_cid", "-o", str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["lesson"] == "mm_cid" and doc["steps"] >= 10
    html = (out / "index.html").read_text()
    assert doc["bytes"] == len(html.encode())
    # No file beside it is loaded: no script src, no module script, no stylesheet link.
    assert not re.search(r"<script[^>]*\bsrc=", html)
    assert 'type="module"' not in html
    assert not re.search(r"<link[^>]*stylesheet", html)
    # The C core's wasm is inside (base64 data URI of the -sSINGLE_FILE build), as is the lesson.
    assert "data:application/octet-stream;base64," in html
    assert "What is a concurrency ID?" in html
    shipped = Path(__file__).resolve().parents[2] / "frontend" / "src" / "lessons" / "mm_cid" / "mm_cid.lesson.json"
    assert (out / "mm_cid.lesson.json").read_bytes() == shipped.read_bytes()
    assert "index.html#/present/mm_cid" in (out / "README.txt").read_text()
