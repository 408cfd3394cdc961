"""A machine topology attached to a stored trace that has none of its own.

kscope's capture writes the machine's sysfs topology into the trace's header
(`# kscope-sysfs:` lines, kept at ingest as topology.sysfs); other tools' traces
(plain tracefs text, perf script, trace.dat) do not, and the timeline then stacks
every CPU lane flat. A user can add the topology later or at upload: an `lscpu -p`
file, a flattened sysfs dump, or a tarball of /sys/devices/system (any compression
kscope reads), the inputs of `kscope topology FILE` (topology_files.py).

The file is read by the C importers (located errors: file, line, column or field),
checked against the trace's CPUs (a topology of another machine is refused, saying
both counts), and stored as a flattened sysfs dump, the one format the timeline reads:
a sysfs input as given (only the files the importer reads), an lscpu one rewritten
from what the importer found (each CPU's package and core, its LLC as a level-3
cache index shared by the LLC's CPUs, the NUMA nodes' cpulists).
"""

import os
import tempfile
from pathlib import Path
from typing import Any

from kscope import topology, topology_files
from kscope.core.config import get_settings
from kscope.ingest.sources import InputError, Limits, compression_of, decompress
from kscope.native.core import ParseError
from kscope.native.machine import Topology

MAX_TOPOLOGY_BYTES = 16 << 20  # an lscpu -p of 10,000 CPUs is ~0.5 MB; a sysfs tarball a few MB
TOPOLOGY_FILE = "topology.sysfs"  # as kscope.ingest.pipeline writes it


class TopologyRefused(InputError):
    """Not a topology kscope reads, or not this trace's machine (422, the message says why)."""


def _cpu_list(cpus: list[int]) -> str:
    """0-3,8-11 from [0, 1, 2, 3, 8, 9, 10, 11]."""
    out: list[str] = []
    for c in sorted(set(cpus)):
        if out and "-" in out[-1] and int(out[-1].split("-")[1]) == c - 1:
            out[-1] = f"{out[-1].split('-')[0]}-{c}"
        elif out and "-" not in out[-1] and int(out[-1]) == c - 1:
            out[-1] = f"{out[-1]}-{c}"
        else:
            out.append(str(c))
    return ",".join(out)


def sysfs_dump_of(described: dict[str, Any]) -> bytes:
    """A flattened sysfs dump with the placement the importer found (topology.describe())."""
    cpus = described["cpu_list"]
    by_llc: dict[int, list[int]] = {}
    by_node: dict[int, list[int]] = {}
    for c in cpus:
        by_llc.setdefault(c["llc"], []).append(c["cpu"])
        by_node.setdefault(c["node"], []).append(c["cpu"])
    lines = []
    for c in cpus:
        n = c["cpu"]
        lines += [f"cpu{n}/topology/physical_package_id\t{c['socket']}", f"cpu{n}/topology/core_id\t{c['core']}",
                  f"cpu{n}/cache/index3/level\t3", f"cpu{n}/cache/index3/type\tUnified",
                  f"cpu{n}/cache/index3/shared_cpu_list\t{_cpu_list(by_llc[c['llc']])}"]
    lines += [f"../node/node{node}/cpulist\t{_cpu_list(members)}" for node, members in sorted(by_node.items())]
    return ("\n".join(lines) + "\n").encode()


def read_topology_bytes(data: bytes, source: str) -> tuple[bytes, dict[str, Any]]:
    """(the sysfs dump to store, topology.describe() of it) from a file's bytes;
    TopologyRefused naming the file and place when the importer refuses it."""
    if len(data) > MAX_TOPOLOGY_BYTES:
        raise TopologyRefused(f"{source}: {len(data):,} bytes: over the {MAX_TOPOLOGY_BYTES >> 20} MiB a "
                              "topology file may have (lscpu -p output or a sysfs tarball is far smaller)", 413)
    if not data.strip():
        raise TopologyRefused(f"{source}: empty: expected `lscpu -p` output, a flattened sysfs dump or a "
                              "tarball of /sys/devices/system")
    settings = get_settings()
    with tempfile.TemporaryDirectory(prefix="kscope-topology-") as tmp:
        path = Path(tmp) / "topology"
        path.write_bytes(data)
        kind = compression_of(data[:8])
        if kind:
            plain = Path(tmp) / "plain"
            decompress(path, source, kind, plain, Limits(min(settings.max_decompressed_bytes, 64 << 20),
                                                         settings.max_compression_ratio))
            os.replace(plain, path)
        try:
            found = topology_files.read_topology_input(path)
        except topology_files.TopologyInputError as err:
            raise TopologyRefused(str(err).replace(str(path), source)) from err
        if found.format == topology_files.LSCPU and b"\0" in found.text[:4096]:
            raise TopologyRefused(f"{source}: binary data: not `lscpu -p` text, a sysfs dump or a tarball")
        try:
            opener = Topology.from_sysfs if found.format == topology_files.SYSFS else Topology.from_lscpu
            with opener(found.text, source) as topo:
                described = topology.describe(topo)
        except ParseError as err:
            raise TopologyRefused(str(err)) from err
    dump = found.text if found.format == topology_files.SYSFS else sysfs_dump_of(described)
    described["format"] = found.format
    return dump, described


def read_topology_path(path: Path) -> tuple[bytes, dict[str, Any]]:
    """read_topology_bytes for a path (the CLI's): a sysfs directory is flattened first."""
    source = str(path)
    if path.is_dir():
        try:
            return read_topology_bytes(topology_files.flatten_sysfs_dir(path), source)
        except topology_files.TopologyInputError as err:
            raise TopologyRefused(str(err)) from err
    if not path.is_file():
        raise TopologyRefused(f"{source}: no such file or directory")
    if path.stat().st_size > MAX_TOPOLOGY_BYTES:
        raise TopologyRefused(f"{source}: {path.stat().st_size:,} bytes: over the {MAX_TOPOLOGY_BYTES >> 20} MiB "
                              "a topology file may have", 413)
    return read_topology_bytes(path.read_bytes(), source)


def check_matches_trace(described: dict[str, Any], source: str, trace_name: str, cpu_ids: list[int],
                        nr_cpus_header: int) -> None:
    """TopologyRefused unless the topology can be the trace's machine: the same CPU count as the
    trace's header says (#P:N, trace.dat's CPU count), and every CPU the trace has events on."""
    n = int(described["cpus"])
    if nr_cpus_header and nr_cpus_header != n:
        raise TopologyRefused(f"{source}: {n} CPUs, but the trace {trace_name} was recorded on {nr_cpus_header} "
                              f"CPUs (its header): not this trace's machine")
    outside = sorted(c for c in cpu_ids if c >= n)
    if outside:
        raise TopologyRefused(f"{source}: {n} CPUs (0-{n - 1}), but the trace {trace_name} has events on CPU "
                              f"{_cpu_list(outside)}: not this trace's machine")


def attach(trace_dir: Path, dump: bytes) -> None:
    """Writes the dump beside the trace's events (replacing one attached before), atomically."""
    tmp = trace_dir / (TOPOLOGY_FILE + ".new")
    tmp.write_bytes(dump)
    os.replace(tmp, trace_dir / TOPOLOGY_FILE)


def public(described: dict[str, Any], source: str) -> dict[str, Any]:
    """What the API and CLI say about an attached topology."""
    return {"source": source, "format": described["format"], "cpus": described["cpus"],
            "nodes": described["nodes"], "llcs": described["llcs"], "sockets": described["sockets"],
            "cores": described["cores"]}
