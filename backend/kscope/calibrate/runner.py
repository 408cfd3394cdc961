"""Runs kscope-calibrate (wasm-core/tools/calibrate) and parses its JSON lines."""

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from kscope.core.config import get_settings

# The mechanisms that need two CPUs at once (the others run on CPU A alone).
TWO_CPU = ("sweep_idle", "pingpong", "atomic", "spinlock", "idle_busy")
ONE_CPU = ("mlp", "prefetch", "pagewalk", "bandwidth", "idle_chase", "idle_clock")
FIGURE_KEYS = ("id", "unit", "median", "p10", "p90", "min", "max", "trials", "detail")


class CalibrateFailed(RuntimeError):
    """The benchmark program is missing, failed, or printed something that is not a figure."""


def program() -> Path:
    path = get_settings().core_lib.parent / "kscope-calibrate"
    if not path.is_file():
        raise CalibrateFailed(f"{path}: no kscope-calibrate program: build it with `make -C wasm-core native`")
    return path


def pick_cpus() -> tuple[int, ...]:
    """The first two CPUs this process may run on (one if that is all there is)."""
    return tuple(sorted(os.sched_getaffinity(0))[:2])


def parse(out: str) -> list[dict[str, Any]]:
    """One figure per line; anything else is an error naming the line."""
    figures = []
    for n, line in enumerate(out.splitlines(), 1):
        if not line.strip():
            continue
        try:
            fig = json.loads(line)
        except json.JSONDecodeError as err:
            raise CalibrateFailed(f"kscope-calibrate stdout line {n}: not JSON ({err}): {line[:120]!r}") from err
        missing = [k for k in FIGURE_KEYS if k not in fig]
        if missing:
            raise CalibrateFailed(f"kscope-calibrate stdout line {n}: missing {', '.join(missing)}")
        figures.append(fig)
    return figures


def run(quick: bool, cpus: tuple[int, ...], timeout_s: float) -> list[dict[str, Any]]:
    """Runs every mechanism this machine can (two-CPU ones need two CPUs)."""
    argv = [str(program())]
    if quick:
        argv.append("--quick")
    if len(cpus) >= 2:
        argv += ["--cpus", f"{cpus[0]},{cpus[1]}"]
    else:
        argv += ["--cpus", f"{cpus[0]},{cpus[0] + 1}", *ONE_CPU]
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired as err:
        raise CalibrateFailed(f"kscope-calibrate did not finish in {timeout_s:.0f} s") from err
    if proc.returncode != 0:
        raise CalibrateFailed(f"kscope-calibrate exited {proc.returncode}: {proc.stderr.strip()[:300]}")
    return parse(proc.stdout)
