"""`kscope kernel build`: Debian's 6.12 + kscope's patches + a small config -> a cached bzImage.

Steps (each skipped when its result is already there):

  1. apt-get install linux-source-6.12 and the build tools (source.ensure_installed);
  2. unpack the tarball into <cache>/src-<hash of the package version>/ (one tree per version);
  3. make the tree hold exactly the chosen patches (source.apply: reverse the old, apply the new);
  4. configure from kernel-patches/config/<name>.config and check every option survived;
  5. `nice -n 10 make -jN bzImage`, make's progress lines on stderr;
  6. copy bzImage, .config and build.json to <cache>/<key>/.

The key is sha256(package version, each patch file's sha256 in order, the fragment's
hash with the recipe), so editing a patch or the fragment gives a new key while the
tree is rebuilt incrementally (only what the change touched).
"""

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kscope.core.config import REPO_ROOT
from kscope.kernel import config as kconfig
from kscope.kernel import patches as kpatches
from kscope.kernel import source

DEFAULT_CACHE = REPO_ROOT / ".kscope" / "kernel"
ARCH = "x86_64"
IMAGE = Path("arch/x86/boot/bzImage")


class BuildError(RuntimeError):
    """make failed (the message has the end of its output)."""


class NoBuiltKernel(LookupError):
    """No cached build matches (the message says the command that makes one)."""


def default_cache() -> Path:
    return Path(os.environ.get("KSCOPE_KERNEL_CACHE", DEFAULT_CACHE))


@dataclass
class BuildRequest:
    patches: list[str] = field(default_factory=list)  # set names (patches.SETS, "trace")
    config: str = "small"
    jobs: int = 0  # 0: os.cpu_count()
    install: bool = True
    cache: Path = field(default_factory=default_cache)
    nice: int = 10


def cache_key(version: str, chosen: list[kpatches.Patch], config_hash: str) -> str:
    h = hashlib.sha256()
    h.update(f"{source.SOURCE_PACKAGE} {version}\0".encode())
    for p in chosen:
        h.update(f"{p.set}/{p.path.name} {p.sha256}\0".encode())
    h.update(f"config {config_hash}\0".encode())
    return h.hexdigest()[:16]


def _say(message: str) -> None:
    print(f"kscope kernel build: {message}", file=sys.stderr, flush=True)


def _make(tree: Path, args: list[str], nice: int, stream: bool) -> str:
    argv = ["nice", "-n", str(nice), "make", f"ARCH={ARCH}", *args]
    proc = subprocess.Popen(argv, cwd=tree, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    tail: list[str] = []
    for line in proc.stdout:
        if stream:
            sys.stderr.write(line)
        tail = (tail + [line])[-60:]
    if proc.wait() != 0:
        raise BuildError(f"`{' '.join(argv)}` in {tree} failed (exit {proc.returncode}):\n{''.join(tail)}")
    return "".join(tail)


def configure(tree: Path, fragment: Path, nice: int) -> None:
    """allnoconfig + fragment + olddefconfig, unless the tree already has this fragment's config;
    ConfigError listing the options that did not survive."""
    stamp = tree / ".kscope-config"
    want_hash = kconfig.fragment_hash(fragment)
    wanted = kconfig.parse_fragment(fragment)
    if not (stamp.is_file() and stamp.read_text().strip() == want_hash and (tree / ".config").is_file()):
        _make(tree, ["allnoconfig", f"KCONFIG_ALLCONFIG={fragment}"], nice, stream=False)
        _make(tree, ["olddefconfig"], nice, stream=False)
    lost = kconfig.missing(wanted, (tree / ".config").read_text())
    if lost:
        stamp.unlink(missing_ok=True)
        raise kconfig.ConfigError(f"{fragment}: options Kconfig dropped (a dependency is off): {'; '.join(lost)}")
    stamp.write_text(want_hash + "\n")


def _load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


@contextlib.contextmanager
def _tree_lock(cache: Path):  # type: ignore[no-untyped-def]
    """One build at a time per cache: they share the source tree (a second one waits)."""
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / ".build.lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            _say(f"waiting for another kscope kernel build in {cache}")
            fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def build(req: BuildRequest) -> dict[str, Any]:
    """Builds (or finds cached) the kernel for req; returns build.json's document."""
    with _tree_lock(req.cache):
        return _build(req)


def _build(req: BuildRequest) -> dict[str, Any]:
    started = time.monotonic()
    chosen = kpatches.resolve(req.patches)
    label = kpatches.selection_label(req.patches)
    fragment = kconfig.fragment_path(req.config)
    log: list[str] = []
    version = source.ensure_installed(req.install, log)
    key = cache_key(version, chosen, kconfig.fragment_hash(fragment))
    out = req.cache / key
    if (out / "bzImage").is_file() and (out / "build.json").is_file():
        doc = json.loads((out / "build.json").read_text())
        doc["cached"] = True
        _say(f"cached: {out / 'bzImage'} ({label})")
        return doc
    tree = source.tree_dir(req.cache, version)
    _say(f"source {source.SOURCE_PACKAGE} {version} in {tree}")
    source.unpack(source.TARBALL, tree, log)
    source.apply(tree, chosen, version, log)
    for line in log:
        _say(f"ran: {line}")
    configure(tree, fragment, req.nice)
    jobs = req.jobs or os.cpu_count() or 1
    load_before = _load()
    _say(f"make -j{jobs} bzImage (nice {req.nice}; load average {load_before})")
    make_started = time.monotonic()
    _make(tree, [f"-j{jobs}", "bzImage"], req.nice, stream=True)
    make_s = time.monotonic() - make_started
    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    shutil.copyfile(tree / IMAGE, tmp / "bzImage")
    shutil.copyfile(tree / ".config", tmp / "config")
    release = (tree / "include/config/kernel.release")
    doc = {
        "key": key, "source_package": source.SOURCE_PACKAGE, "source_version": version,
        "release": release.read_text().strip() if release.is_file() else None,
        "patches": label, "patch_files": [{"set": p.set, "file": p.label(), "sha256": p.sha256} for p in chosen],
        "config": req.config, "config_fragment": str(fragment.relative_to(REPO_ROOT))
        if fragment.is_relative_to(REPO_ROOT) else str(fragment),
        "config_hash": kconfig.fragment_hash(fragment), "jobs": jobs, "make_s": round(make_s, 1),
        "total_s": round(time.monotonic() - started, 1), "load_before": load_before, "load_after": _load(),
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "bzImage": str(out / "bzImage"),
        "tree": str(tree), "cached": False,
    }
    (tmp / "build.json").write_text(json.dumps(doc, indent=1) + "\n")
    shutil.rmtree(out, ignore_errors=True)
    tmp.rename(out)
    _say(f"built {out / 'bzImage'} in {make_s / 60:.1f} min of make (load {load_before} -> {doc['load_after']})")
    return doc


def builds(cache: Path | None = None) -> list[dict[str, Any]]:
    """Every cached build's build.json, newest first."""
    root = cache or default_cache()
    docs = []
    for meta in root.glob("*/build.json") if root.is_dir() else []:
        if (meta.parent / "bzImage").is_file():
            try:
                docs.append(json.loads(meta.read_text()))
            except (OSError, ValueError):
                continue
            docs[-1]["bzImage"] = str(meta.parent / "bzImage")
    return sorted(docs, key=lambda d: d.get("built_at", ""), reverse=True)


def find_built(names: list[str] | None, cache: Path | None = None) -> dict[str, Any]:
    """The newest cached build with exactly these patch sets (any, when names is None)."""
    label = None if names is None else kpatches.selection_label(names)
    for doc in builds(cache):
        if label is None or doc.get("patches") == label:
            return doc
    which = "" if label is None else f" with --patches {label}"
    flag = "" if label is None or label == "none" else f" --patches {label}"
    raise NoBuiltKernel(f"no kernel built{which} in {cache or default_cache()}; build one with:\n"
                        f"    scripts/kscope kernel build{flag}")
