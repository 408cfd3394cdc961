"""scripts/kscope, the CLI launcher: set-up on first use and after a change, never otherwise.

Each test runs the real launcher in a scratch copy of the repository's shape, with a fake
set-up (it logs that it ran and writes the stamp, as scripts/setup.sh does) and a fake
program (it prints its arguments and working directory), so what is checked is the
launcher's decision and what it passes on, not the real set-up's minute of work.
"""
import os
import shutil
import subprocess
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _scratch(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "scripts").mkdir(parents=True)
    shutil.copy(REPO / "scripts" / "kscope", root / "scripts" / "kscope")
    (root / "scripts" / "setup.sh").write_text(
        "set -eu\ncd \"$(dirname \"$0\")/..\"\n"
        "echo 'setup: noise on stdout'\n"
        "echo ran >> setup.log\n"
        "mkdir -p .kscope/stamps && touch .kscope/stamps/setup-complete\n")
    prog = root / ".venv" / "bin" / "kscope"
    prog.parent.mkdir(parents=True)
    prog.write_text("#!/bin/sh\necho \"args=$*\"\necho \"cwd=$(pwd)\"\n")
    prog.chmod(0o755)
    for d in ("wasm-core/src", "frontend/src", "backend"):
        (root / d).mkdir(parents=True)
    (root / "wasm-core" / "src" / "a.c").write_text("int a;\n")
    (root / "package-lock.json").write_text("{}\n")
    return root


def _run(root: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(root / "scripts" / "kscope"), *args], cwd=cwd,
                          capture_output=True, text=True, timeout=30, check=True)


def _setup_runs(root: Path) -> int:
    log = root / "setup.log"
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_first_use_runs_setup_then_the_program_with_stdout_clean(tmp_path):
    root = _scratch(tmp_path)
    out = _run(root, "decode", "x y.txt", "--json", cwd=tmp_path)
    assert _setup_runs(root) == 1
    # set-up's own stdout goes to stderr: a --json command still prints one document
    assert out.stdout.splitlines() == ["args=decode x y.txt --json", f"cwd={tmp_path}"]
    assert "noise on stdout" in out.stderr


def test_set_up_tree_execs_at_once(tmp_path):
    root = _scratch(tmp_path)
    _run(root, "--version", cwd=tmp_path)
    _run(root, "--version", cwd=tmp_path)
    _run(root, "--version", cwd=root)
    assert _setup_runs(root) == 1


def test_a_changed_input_runs_setup_again(tmp_path):
    root = _scratch(tmp_path)
    _run(root, "--version", cwd=tmp_path)
    later = time.time() + 5
    src = root / "wasm-core" / "src" / "a.c"
    os.utime(src, (later, later))
    _run(root, "--version", cwd=tmp_path)
    assert _setup_runs(root) == 2


def test_a_missing_program_runs_setup(tmp_path):
    root = _scratch(tmp_path)
    _run(root, "--version", cwd=tmp_path)
    prog = root / ".venv" / "bin" / "kscope"
    text = prog.read_text()
    prog.unlink()
    # the fake set-up does not rebuild the venv: put the program back from set-up's log hook
    (root / "scripts" / "setup.sh").write_text(
        (root / "scripts" / "setup.sh").read_text()
        + f"mkdir -p .venv/bin && printf '%s' '{text}' > .venv/bin/kscope && chmod +x .venv/bin/kscope\n")
    out = _run(root, "--version", cwd=tmp_path)
    assert _setup_runs(root) == 2
    assert out.stdout.startswith("args=--version")


def test_setup_sh_writes_the_stamp_the_launcher_reads():
    setup = (REPO / "scripts" / "setup.sh").read_text()
    launcher = (REPO / "scripts" / "kscope").read_text()
    assert setup.rstrip().endswith('touch "$stamps/setup-complete"')
    assert ".kscope/stamps/setup-complete" in launcher
