"""kscope's patch sets for Debian's 6.12 source: which files, in which order.

A patch set is a name on the command line (`--patches mm_cid,cpupri,trace`) and a
folder of `git format-patch` files:

    mm_cid   kernel-patches/mm_cid-7e019dc/6.12/*.patch    (cache-local mm_cid, seed 000/003)
    cpupri   kernel-patches/cpupri-per-node/6.12/*.patch   (per-node cpupri masks, seed 001)
    trace    not a folder: the `*-trace-*.patch` files of the other chosen sets, i.e. the
             kscope_* tracepoints; without it only their behaviour patches are applied

Sets are always applied in SET_ORDER whatever order the user wrote them in, and the
files of one set in file-name order (format-patch numbers them), so one selection
always gives one tree and one cache key. A tracepoint patch goes right after the
behaviour patches of its own set (it edits the code they add).
"""

import hashlib
from dataclasses import dataclass
from pathlib import Path

from kscope.core.config import REPO_ROOT

PATCH_ROOT = REPO_ROOT / "kernel-patches"
BASE = "6.12"  # the subfolder of each set: patches against Debian's linux-source-6.12
SETS = {"mm_cid": "mm_cid-7e019dc", "cpupri": "cpupri-per-node"}
SET_ORDER = ("mm_cid", "cpupri")
TRACE = "trace"
TRACE_MARK = "-trace-"  # in the file name of a tracepoint patch


class PatchSelectionError(ValueError):
    """An unknown set name, or a set with no patch files (the message says which)."""


@dataclass(frozen=True)
class Patch:
    set: str
    path: Path
    sha256: str

    @property
    def is_trace(self) -> bool:
        return TRACE_MARK in self.path.name

    def label(self, root: Path = PATCH_ROOT) -> str:
        try:
            return str(self.path.relative_to(root.parent))
        except ValueError:
            return str(self.path)


def parse_names(text: str | None) -> list[str]:
    """"mm_cid,trace" -> ["mm_cid", "trace"]; blanks dropped, duplicates kept once."""
    names: list[str] = []
    for part in (text or "").split(","):
        name = part.strip()
        if name and name not in names:
            names.append(name)
    return names


def canonical(names: list[str]) -> list[str]:
    """The names in application order (SET_ORDER, then trace last); PatchSelectionError if unknown."""
    known = (*SET_ORDER, TRACE)
    for name in names:
        if name not in known:
            raise PatchSelectionError(f"--patches: unknown patch set {name!r} (known: {', '.join(known)})")
    if names == [TRACE]:
        raise PatchSelectionError("--patches trace: the tracepoints belong to a set; "
                                  f"give it too (e.g. mm_cid,trace)")
    return [n for n in known if n in names]


def resolve(names: list[str], root: Path = PATCH_ROOT) -> list[Patch]:
    """The patch files to apply, in order; PatchSelectionError for an unknown or empty set."""
    chosen = canonical(names)
    with_trace = TRACE in chosen
    out: list[Patch] = []
    for name in chosen:
        if name == TRACE:
            continue
        folder = root / SETS[name] / BASE
        files = sorted(folder.glob("*.patch")) if folder.is_dir() else []
        if not files:
            raise PatchSelectionError(f"--patches {name}: no patch files in {folder}")
        patches = [Patch(name, f, hashlib.sha256(f.read_bytes()).hexdigest()) for f in files]
        out += [p for p in patches if not p.is_trace]
        if with_trace:
            out += [p for p in patches if p.is_trace]
    return out


def selection_label(names: list[str]) -> str:
    """The canonical "mm_cid,trace" spelling ("none" for stock)."""
    return ",".join(canonical(names)) or "none"
