"""Debian's linux-source-6.12, unpacked once, with kscope's patches applied in place.

    apt-get install linux-source-6.12 + build deps   -> /usr/src/linux-source-6.12.tar.xz
    tar -xJ --strip-components=1                     -> <cache>/src-<hash of package version>/

One tree per source version, reused by every build: switching patch selections
reverse-applies the patches that differ in place (copies of them are kept in the
tree's `.kscope-applied/`; a common leading run stays) and applies the new ones, so
only the files they touch are rebuilt. A patch that does not apply is checked with `patch --dry-run` first and
reported with its file and the failing hunks; nothing of it is left in the tree,
and the patches applied before it in the same run are reversed.
"""

import hashlib
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from kscope.kernel.patches import Patch

SOURCE_PACKAGE = "linux-source-6.12"
TARBALL = Path("/usr/src/linux-source-6.12.tar.xz")
# Only what `make bzImage` of the small config needs beyond gcc/make (present for the
# C core): the Kconfig parser (flex, bison), bc (timeconst.h), libelf (objtool, which
# x86_64's ORC unwinder needs), xz to unpack, patch. No libssl-dev (no module signing,
# no trusted keyring: sign-file and extract-cert are not built), no dwarves (no BTF).
BUILD_DEPS = ("flex", "bison", "bc", "libelf-dev", "make", "gcc", "xz-utils", "patch")
APPLIED = ".kscope-applied"


class SourceError(RuntimeError):
    """The source package or a tool is missing, or unpacking failed (the message says how to fix it)."""


class PatchApplyError(RuntimeError):
    """A patch does not apply to the tree; .patch, .failures name it and its failing hunks."""

    def __init__(self, patch: Path, version: str, failures: list[str], output: str) -> None:
        where = "; ".join(failures) or output.strip()[-400:]
        super().__init__(f"{patch} does not apply to {SOURCE_PACKAGE} {version}: {where}")
        self.patch = patch
        self.failures = failures


def package_version(package: str = SOURCE_PACKAGE) -> str | None:
    done = subprocess.run(["dpkg-query", "-W", "-f=${Status}\t${Version}", package],
                          capture_output=True, text=True)
    status, _, version = done.stdout.partition("\t")
    return version if done.returncode == 0 and "installed" in status.split() and version else None


def ensure_installed(install: bool, log: list[str]) -> str:
    """The installed source package's version, installing it and the build deps with apt if allowed."""
    missing_tools = [t for t in ("flex", "bison", "bc", "make", "gcc", "patch", "xz") if not shutil.which(t)]
    version = package_version()
    have_libelf = Path("/usr/include/gelf.h").is_file()
    if version and TARBALL.is_file() and not missing_tools and have_libelf:
        return version
    command = ["apt-get", "-o", "DPkg::Lock::Timeout=900", "install", "-y", "--no-install-recommends",
               SOURCE_PACKAGE, *BUILD_DEPS]
    if not install or os.geteuid() != 0 or not shutil.which("apt-get"):
        raise SourceError(f"{SOURCE_PACKAGE} and the kernel build tools are not installed; run:\n"
                          f"    sudo {' '.join(command)}")
    log.append(" ".join(command))
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    version = package_version()
    if done.returncode != 0 or not version or not TARBALL.is_file():
        raise SourceError(f"`{' '.join(command)}` failed: {done.stderr.strip()[-600:]}")
    return version


def tree_dir(cache: Path, version: str) -> Path:
    return cache / f"src-{hashlib.sha256(version.encode()).hexdigest()[:12]}"


def unpack(tarball: Path, dest: Path, log: list[str]) -> None:
    """Unpacks tarball's top folder into dest (a half-unpacked tree is removed first)."""
    marker = dest / ".kscope-unpacked"
    if marker.is_file():
        return
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    log.append(f"tar -xJf {tarball} --strip-components=1 -C {dest}")
    done = subprocess.run(["tar", "-xJf", str(tarball), "--strip-components=1", "-C", str(dest)],
                          capture_output=True, text=True)
    if done.returncode != 0 or not (dest / "Makefile").is_file():
        raise SourceError(f"unpacking {tarball} into {dest} failed: {done.stderr.strip()[-400:]}")
    marker.write_text(tarball.name + "\n")


@dataclass
class Applied:
    name: str  # the patch's file name, for messages
    sha256: str


def applied(tree: Path) -> list[Applied]:
    """The patches applied to tree, in order (from its .kscope-applied/series.json)."""
    series = tree / APPLIED / "series.json"
    if not series.is_file():
        return []
    return [Applied(**item) for item in json.loads(series.read_text())]


def _save_series(tree: Path, items: list[Applied]) -> None:
    (tree / APPLIED).mkdir(exist_ok=True)
    (tree / APPLIED / "series.json").write_text(json.dumps([vars(i) for i in items], indent=1) + "\n")


def _patch(tree: Path, patch_file: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["patch", "-p1", "-f", "--no-backup-if-mismatch", "-i", str(patch_file.resolve()), *extra],
                          cwd=tree, capture_output=True, text=True)


def hunk_failures(output: str) -> list[str]:
    """"FILE hunk #N FAILED at LINE" for each failing hunk in GNU patch's output."""
    failures: list[str] = []
    current = "?"
    for line in output.splitlines():
        m = re.match(r"(?:patching|checking) file (.+)", line)
        if m:
            current = m.group(1).strip().strip("'")
            continue
        m = re.match(r"Hunk #(\d+) FAILED at (\d+)", line)
        if m:
            failures.append(f"{current} hunk #{m.group(1)} FAILED at line {m.group(2)}")
            continue
        m = re.match(r"can't find file to patch.*|No file to patch.*", line)
        if m:
            failures.append(f"{current}: {line.strip()}")
        if "Reversed (or previously applied) patch detected" in line:
            failures.append(f"{current}: already applied (reversed patch detected)")
    return failures


def _reverse_all(tree: Path, items: list[Applied], keep: int = 0) -> None:
    """Reverses items[keep:], last first, saving the series after each."""
    for item in reversed(items[keep:]):
        copy = tree / APPLIED / f"{item.sha256}.patch"
        done = _patch(tree, copy, "-R")
        if done.returncode != 0:
            said = (done.stdout + done.stderr).strip()[-300:]
            raise SourceError(f"could not take {item.name} back out of {tree} ({said}); delete {tree} and build again")
        items = items[:-1]
        _save_series(tree, items)


def apply(tree: Path, patches: list[Patch], version: str, log: list[str]) -> bool:
    """Makes tree hold exactly `patches` on top of the pristine source; True if anything changed.
    Patches already applied in the same order as a prefix stay in (their files keep their
    times, so make does not rebuild what they touch); only the rest is reversed and applied."""
    want = [Applied(p.path.name, p.sha256) for p in patches]
    have = applied(tree)
    keep = 0
    while keep < min(len(have), len(want)) and have[keep].sha256 == want[keep].sha256:
        keep += 1
    if keep == len(have) == len(want):
        return False
    if keep < len(have):
        log.append(f"patch -R: {', '.join(a.name for a in reversed(have[keep:]))}")
        _reverse_all(tree, have, keep)
    done_now = list(have[:keep])
    for patch in patches[keep:]:
        dry = _patch(tree, patch.path, "--dry-run")
        if dry.returncode != 0:
            _reverse_all(tree, done_now, keep)
            raise PatchApplyError(patch.path, version, hunk_failures(dry.stdout + dry.stderr), dry.stdout + dry.stderr)
        (tree / APPLIED).mkdir(exist_ok=True)
        shutil.copyfile(patch.path, tree / APPLIED / f"{patch.sha256}.patch")
        real = _patch(tree, patch.path)
        if real.returncode != 0:  # the dry run passed; this is not expected
            raise SourceError(f"{patch.path} failed after a clean dry run: {real.stdout.strip()[-300:]}")
        done_now.append(Applied(patch.path.name, patch.sha256))
        _save_series(tree, done_now)
        log.append(f"patch -p1 < {patch.label()}")
    return True
