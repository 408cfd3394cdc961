"""A user's own machine as topology text: format detection and sysfs flattening.

The C importers read two texts (wasm-core/include/kscope/topology.h):

* `lscpu -p` output ("# CPU,Core,Socket,Node,..." then "0,0,0,0,...");
* a flattened sysfs dump, one "<path>\\t<content>" line per file, paths relative
  to /sys/devices/system/cpu ("cpu3/topology/core_id\\t1",
  "../node/node1/cpulist\\t96-191").

This module turns what a user has into one of those: a text file (either
format, detected), a directory (a copy of /sys/devices/system/cpu, its parent
/sys/devices/system, or /sys itself; the live /sys works too), or a tarball of
such a tree. Only the files the importer reads are collected.
"""

import re
import tarfile
from dataclasses import dataclass
from pathlib import Path

LSCPU = "lscpu"
SYSFS = "sysfs"

_CACHE_FILES = ("level", "type", "size", "id", "shared_cpu_list")
_CPU_RECORD = rf"(cpu\d+/(?:topology/[^/]+|cache/index\d+/(?:{'|'.join(_CACHE_FILES)})))"
_CPU_PATHS = (re.compile(rf"(?:^|/)cpu/{_CPU_RECORD}$"), re.compile(rf"^{_CPU_RECORD}$"))
_NODE_PATH = re.compile(r"(?:^|/)node/(node\d+/cpulist)$")
_NUMBERED = re.compile(r"(cpu|node|index)(\d+)$")


class TopologyInputError(ValueError):
    """A path that is not a topology dump we can read (the message says which and why)."""


@dataclass
class TopologyText:
    """Text for one of the C importers."""

    format: str  # LSCPU or SYSFS
    text: bytes
    source: str  # what the user named, for error messages


def _first_line(content: bytes) -> str:
    # Tarred sysfs files can be NUL-padded to their 4 KiB st_size.
    return content.split(b"\n", 1)[0].strip(b"\0 \t\r").decode("utf-8", "replace")


def _dump(records: list[tuple[str, str]], source: str) -> bytes:
    if not any(p.startswith("cpu") for p, _ in records):
        raise TopologyInputError(
            f"{source}: no cpuN/topology or cpuN/cache files found (give /sys/devices/system/cpu, "
            f"its parent, or a tarball of them)"
        )
    return "".join(f"{path}\t{content}\n" for path, content in records).encode("utf-8")


def _numbered(path: Path) -> tuple[int, str]:
    match = _NUMBERED.search(path.name)
    return (int(match.group(2)) if match else -1, path.name)


def _children(parent: Path, prefix: str) -> list[Path]:
    """parent's subdirectories named <prefix><number>, in numeric order."""
    if not parent.is_dir():
        return []
    found = [p for p in parent.iterdir() if re.fullmatch(rf"{prefix}\d+", p.name) and p.is_dir()]
    return sorted(found, key=_numbered)


def _read(path: Path) -> str | None:
    try:
        return _first_line(path.read_bytes())
    except OSError:  # unreadable sysfs attribute: the importer does not need it
        return None


def _sysfs_roots(root: Path) -> tuple[Path, Path]:
    """(cpu dir, node dir) for a copy of /sys/devices/system/cpu, /sys/devices/system or /sys."""
    for cpu_dir in (root, root / "cpu", root / "devices" / "system" / "cpu"):
        if _children(cpu_dir, "cpu"):
            return cpu_dir, cpu_dir.resolve().parent / "node"
    raise TopologyInputError(f"{root}: no cpuN directories (expected a copy of /sys/devices/system/cpu)")


def flatten_sysfs_dir(root: Path) -> bytes:
    """The flattened dump of a sysfs tree (records in CPU, then node order)."""
    cpu_root, node_root = _sysfs_roots(root)
    records: list[tuple[str, str]] = []

    def add(rel: str, path: Path) -> None:
        content = _read(path)
        if content is not None:
            records.append((rel, content))

    for cpu in _children(cpu_root, "cpu"):
        topo = cpu / "topology"
        if topo.is_dir():
            for f in sorted(topo.iterdir()):
                if f.is_file():
                    add(f"{cpu.name}/topology/{f.name}", f)
        for index in _children(cpu / "cache", "index"):
            for name in _CACHE_FILES:
                if (index / name).is_file():
                    add(f"{cpu.name}/cache/{index.name}/{name}", index / name)
    for node in _children(node_root, "node"):
        if (node / "cpulist").is_file():
            add(f"../node/{node.name}/cpulist", node / "cpulist")
    return _dump(records, str(root))


def record_path(member: str) -> str | None:
    """The dump path of a tarball member (any prefix before cpu/ or node/), or None to skip."""
    name = member.lstrip("/")
    while name.startswith("./"):
        name = name[2:]
    for pattern in _CPU_PATHS:
        if match := pattern.search(name):
            return match.group(1)
    if match := _NODE_PATH.search(name):
        return f"../node/{match.group(1)}"
    return None


def flatten_sysfs_tar(path: Path) -> bytes:
    """The flattened dump of a tarball (any compression tarfile reads) of a sysfs tree."""
    records: list[tuple[str, str]] = []
    try:
        with tarfile.open(path) as tar:
            for member in tar:
                rel = record_path(member.name) if member.isfile() else None
                data = tar.extractfile(member) if rel else None
                if data is not None:
                    records.append((rel, _first_line(data.read(4096))))
    except (tarfile.TarError, OSError) as err:
        raise TopologyInputError(f"{path}: cannot read the tarball: {err}") from err
    return _dump(records, str(path))


def detect_text_format(text: bytes) -> str:
    """SYSFS if the first record line has a TAB ("<path>\\t<content>"), else LSCPU."""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith(b"#"):
            return SYSFS if b"\t" in line else LSCPU
    return LSCPU


def read_topology_input(path: Path) -> TopologyText:
    """What a path holds, as text for an importer: a directory or tarball is a sysfs tree,
    a text file is lscpu or sysfs as its first record line says."""
    source = str(path)
    if path.is_dir():
        return TopologyText(SYSFS, flatten_sysfs_dir(path), source)
    if not path.is_file():
        raise TopologyInputError(f"{source}: not a file or directory")
    if tarfile.is_tarfile(path):
        return TopologyText(SYSFS, flatten_sysfs_tar(path), source)
    try:
        text = path.read_bytes()
    except OSError as err:
        raise TopologyInputError(f"{source}: {err.strerror}") from err
    return TopologyText(detect_text_format(text), text, source)
