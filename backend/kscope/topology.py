"""Topology presets as plain data: what the API and CLI show, computed by the C core."""

from typing import Any

from kscope.native import core


class UnknownPreset(KeyError):
    """No built-in topology preset has this name."""

    def __init__(self, name: str, known: list[str]) -> None:
        super().__init__(name)
        self.name = name
        self.known = known

    def __str__(self) -> str:
        return f"unknown topology preset {self.name!r}; known presets: {', '.join(self.known)}"


def list_presets() -> list[dict[str, str]]:
    """Name and one-line description of every built-in preset."""
    return [
        {"name": name, "description": description}
        for name, description in core.preset_names_and_descriptions()
    ]


def topology_of(name: str) -> dict[str, Any]:
    """The preset's counts, cache sizes and per-CPU placement (cpu_list in CPU order)."""
    presets = {p["name"]: p["description"] for p in list_presets()}
    try:
        built_name, summary, cpus = core.topology_from_preset(name)
    except core.KscopeCoreError as err:
        if err.status == core.KS_ERR_NOT_FOUND:
            raise UnknownPreset(name, list(presets)) from err
        raise
    return {
        "name": built_name,
        "description": presets[built_name],
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
