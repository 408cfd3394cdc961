"""The guest kernel's configuration: a fragment kept in the repo, applied and checked.

    make ARCH=x86_64 allnoconfig KCONFIG_ALLCONFIG=kernel-patches/config/<name>.config
    make ARCH=x86_64 olddefconfig

then every `CONFIG_X=value` and `# CONFIG_X is not set` line of the fragment must be
in the resulting .config: Kconfig drops a request silently when a dependency is
missing (in 6.12, SCHED_MM_CID needs CGROUPS only because of where it sits in
init/Kconfig), and such a kernel would boot without the thing kscope traces.
"""

import hashlib
import re
from pathlib import Path

from kscope.core.config import REPO_ROOT

CONFIG_ROOT = REPO_ROOT / "kernel-patches" / "config"
RECIPE = "allnoconfig+fragment+olddefconfig v1"  # part of the cache key: how the fragment is used
_SET = re.compile(r"^(CONFIG_[A-Za-z0-9_]+)=(.+)$")
_UNSET = re.compile(r"^# (CONFIG_[A-Za-z0-9_]+) is not set$")


class ConfigError(ValueError):
    """An unknown config name, a malformed fragment line, or options that did not survive."""


def fragment_path(name: str, root: Path = CONFIG_ROOT) -> Path:
    path = root / f"{name}.config"
    if not re.fullmatch(r"[A-Za-z0-9_-]+", name) or not path.is_file():
        known = sorted(p.stem for p in root.glob("*.config")) if root.is_dir() else []
        raise ConfigError(f"--config {name}: no {path} (known: {', '.join(known) or 'none'})")
    return path


def parse_fragment(path: Path) -> dict[str, str]:
    """{CONFIG_X: value} with "n" for `# CONFIG_X is not set`; ConfigError names file and line."""
    wanted: dict[str, str] = {}
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.strip()
        m = _UNSET.match(line)
        if m:
            wanted[m.group(1)] = "n"
            continue
        if not line or line.startswith("#"):
            continue
        m = _SET.match(line)
        if not m:
            raise ConfigError(f"{path}:{number}: not a CONFIG_X=value line: {raw!r}")
        wanted[m.group(1)] = m.group(2)
    if not wanted:
        raise ConfigError(f"{path}: no CONFIG_ lines")
    return wanted


def parse_dotconfig(text: str) -> dict[str, str]:
    """A .config's values ("n" for the `is not set` lines)."""
    values: dict[str, str] = {}
    for line in text.splitlines():
        m = _SET.match(line) or _UNSET.match(line)
        if m:
            values[m.group(1)] = m.group(2) if m.re is _SET else "n"
    return values


def missing(wanted: dict[str, str], dotconfig: str) -> list[str]:
    """The fragment's requests the .config does not honour, as "CONFIG_X=want (got ...)"."""
    have = parse_dotconfig(dotconfig)
    out = []
    for key, value in wanted.items():
        got = have.get(key, "n")  # absent from .config: off (or its menu is off)
        if got != value:
            out.append(f"{key}={value} (got {'not set' if got == 'n' else got})")
    return out


def fragment_hash(path: Path) -> str:
    return hashlib.sha256(RECIPE.encode() + b"\0" + path.read_bytes()).hexdigest()
