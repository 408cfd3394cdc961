"""Running the Node scripts of this folder against the browser's wasm module."""

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from kscope.core.config import get_settings

SCRIPTS = Path(__file__).resolve().parent


class NodeUnavailable(RuntimeError):
    """Node.js or the built wasm module is missing (the message says how to get it)."""


class NodeScriptFailed(RuntimeError):
    """A script of this folder exited non-zero (the message quotes its last stderr lines)."""


def node_executable() -> str:
    """The Node.js executable from Settings.node; NodeUnavailable if it is not there."""
    found = shutil.which(get_settings().node)
    if not found:
        raise NodeUnavailable(f"Node.js ({get_settings().node!r}) not found: install Node 20 or set KSCOPE_NODE")
    return found


def wasm_module() -> Path:
    """The browser's module (kscope_core.mjs, with its .wasm beside it)."""
    module = get_settings().wasm_module
    if not module.is_file() or not module.with_suffix(".wasm").is_file():
        raise NodeUnavailable(
            f"wasm module not found at {module}: build it with `make -C wasm-core wasm` (or `npm start`)"
        )
    return module


def script_command(script: str, **flags: object) -> list[str]:
    """The argv running SCRIPTS/script on the wasm module with `--name value` flags."""
    argv = [node_executable(), str(SCRIPTS / script), "--module", str(wasm_module())]
    for name, value in flags.items():
        argv += [f"--{name.replace('_', '-')}", str(value)]
    return argv


def run_script(script: str, stdin: bytes | None = None, **flags: object) -> dict[str, Any]:
    """Runs a script to completion and parses the one JSON line it prints."""
    result = subprocess.run(script_command(script, **flags), input=stdin, capture_output=True, check=False)
    if result.returncode != 0:
        tail = result.stderr.decode("utf-8", "replace").strip().splitlines()[-3:]
        raise NodeScriptFailed(f"{script} failed (exit {result.returncode}): {' | '.join(tail)[:600]}")
    return json.loads(result.stdout)
