"""Topologies as plain data: what the API and CLI show, computed by the C core.

A topology is named by a preset ("epyc-9654-2s") or by a path to the user's own
machine: lscpu -p output, a flattened sysfs dump, a sysfs directory or a tarball
of one (topology_files.py reads them; the C importers parse them).
"""

from pathlib import Path
from typing import Any

from kscope import topology_files
from kscope.native import core
from kscope.native.machine import Topology


class UnknownPreset(KeyError):
    """No built-in topology preset has this name."""

    def __init__(self, name: str, known: list[str], files_too: bool = False) -> None:
        super().__init__(name)
        self.name = name
        self.known = known
        self.files_too = files_too  # the name was also looked for as a file

    def __str__(self) -> str:
        nofile = " (and no such file)" if self.files_too else ""
        return f"unknown topology preset {self.name!r}{nofile}; known presets: {', '.join(self.known)}"


def list_presets() -> list[dict[str, str]]:
    """Name and one-line description of every built-in preset."""
    return [
        {"name": name, "description": description}
        for name, description in core.preset_names_and_descriptions()
    ]


def open_topology(spec: str, allow_files: bool = True) -> Topology:
    """A live topology from a preset name or (allow_files) a path; a path wins when it exists.

    Raises UnknownPreset, TopologyInputError (unreadable path) or TopologyFileError
    (the importer's located parse error); the caller closes the result. The HTTP API
    passes allow_files=False: a request must never name a file on the server.
    """
    path = Path(spec)
    if allow_files and path.exists():
        found = topology_files.read_topology_input(path)
        if found.format == topology_files.SYSFS:
            return Topology.from_sysfs(found.text, found.source)
        return Topology.from_lscpu(found.text, found.source)
    try:
        return Topology.from_preset(spec)
    except core.KscopeCoreError as err:
        if err.status == core.KS_ERR_NOT_FOUND:
            raise UnknownPreset(spec, [p["name"] for p in list_presets()], allow_files) from err
        raise


def describe(topo: Topology) -> dict[str, Any]:
    """Counts, cache sizes and per-CPU placement (cpu_list in CPU order) of a live topology."""
    presets = {p["name"]: p["description"] for p in list_presets()}
    name, summary, cpus = topo.name, topo.summary(), topo.cpus()
    description = presets.get(name) or f"imported from {topo.source} ({name})"
    return {
        "name": name,
        "description": description,
        "cpus": summary.cpus,
        "cores": summary.cores,
        "llcs": summary.llcs,
        "nodes": summary.nodes,
        "sockets": summary.sockets,
        "threads_per_core": summary.threads_per_core,
        "cache_kib": {"l1d": summary.l1d_kib, "l2": summary.l2_kib, "l3": summary.l3_kib},
        "cpu_list": [
            {
                "cpu": c.cpu,
                "core": c.core,
                "llc": c.llc,
                "node": c.node,
                "socket": c.socket,
                "smt_index": c.smt_index,
            }
            for c in cpus
        ],
    }


def topology_of(name: str) -> dict[str, Any]:
    """describe() of a built-in preset (never a file: the API serves this)."""
    with open_topology(name, allow_files=False) as topo:
        return describe(topo)


def topology_of_spec(spec: str) -> dict[str, Any]:
    """describe() of a preset or a topology file (the CLI's `kscope topology FILE|PRESET`)."""
    with open_topology(spec) as topo:
        return describe(topo)
