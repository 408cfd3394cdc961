"""`kscope export-lesson NAME -o DIR`: a lesson as a static folder, no backend needed.

The folder's index.html carries the lesson pages (learn, present, notes, embed),
the C core compiled to WebAssembly (embedded: the `wasm-single` build of
wasm-core/Makefile) and the lesson; it runs from any static host and from
file://. The work is done by frontend/scripts/export-lesson.mjs (Vite); this
module checks the input, builds the single-file core if needed, and reports.
"""

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from kscope.bench.node import NodeScriptFailed, node_executable
from kscope.core.config import REPO_ROOT

LESSONS = REPO_ROOT / "frontend" / "src" / "lessons"
SCRIPT = REPO_ROOT / "frontend" / "scripts" / "export-lesson.mjs"
WASM_CORE = REPO_ROOT / "wasm-core"


class LessonNotFound(ValueError):
    """NAME is not a shipped lesson (the message lists those that are)."""


def lesson_file(name: str) -> Path | None:
    """The shipped lesson NAME: frontend/src/lessons/<model>/<name>.lesson.json (None: no such lesson)."""
    found = sorted(LESSONS.glob(f"*/{name}.lesson.json"))
    return found[0] if found else None


def lesson_names() -> list[str]:
    return sorted(p.name.removesuffix(".lesson.json") for p in LESSONS.glob("*/*.lesson.json"))


def export(name: str, out: Path) -> dict[str, Any]:
    """Writes the static folder; returns {"dir", "index", "bytes", "lesson", "steps"}."""
    if not re.fullmatch(r"[a-z0-9][a-z0-9_-]*", name) or lesson_file(name) is None:
        raise LessonNotFound(f"no lesson {name!r} in {LESSONS} (shipped: {', '.join(lesson_names()) or 'none'})")
    if out.exists() and not out.is_dir():
        raise NotADirectoryError(f"{out}: exists and is not a directory")
    node = node_executable()
    make = shutil.which("make")
    if make:
        built = subprocess.run([make, "-s", "-C", str(WASM_CORE), "wasm-single"], capture_output=True, check=False)
        if built.returncode != 0:
            tail = built.stderr.decode("utf-8", "replace").strip().splitlines()[-3:]
            raise NodeScriptFailed(f"make -C wasm-core wasm-single failed: {' | '.join(tail)[:600]}")
    result = subprocess.run([node, str(SCRIPT), name, str(out)], capture_output=True, check=False)
    if result.returncode != 0:
        tail = result.stderr.decode("utf-8", "replace").strip().splitlines()[-3:]
        raise NodeScriptFailed(f"export-lesson.mjs failed (exit {result.returncode}): {' | '.join(tail)[:600]}")
    document: dict[str, Any] = json.loads(result.stdout.decode("utf-8").strip().splitlines()[-1])
    return document
