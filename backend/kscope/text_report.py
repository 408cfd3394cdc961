"""Human-readable renderings of topology data for the CLI (the JSON forms need none)."""

from itertools import groupby
from typing import Any


def cpulist(cpus: list[int]) -> str:
    """Linux cpulist form of a set of CPU numbers: [0,1,2,3,192,193] -> "0-3,192-193"."""
    ordered = sorted(cpus)
    runs = groupby(enumerate(ordered), key=lambda pair: pair[1] - pair[0])
    parts = []
    for _, run in runs:
        members = [cpu for _, cpu in run]
        parts.append(str(members[0]) if len(members) == 1 else f"{members[0]}-{members[-1]}")
    return ",".join(parts)


def presets_table(presets: list[dict[str, str]]) -> str:
    """One line per preset: name, then description."""
    width = max((len(p["name"]) for p in presets), default=0)
    return "\n".join(f"{p['name']:<{width}}  {p['description']}" for p in presets)


def topology_table(topo: dict[str, Any]) -> str:
    """Counts, cache sizes, then one row per LLC with its node, socket and CPUs."""
    cache = topo["cache_kib"]
    lines = [
        f"{topo['name']}: {topo['description']}",
        f"  cpus {topo['cpus']}  cores {topo['cores']}  llcs {topo['llcs']}  "
        f"nodes {topo['nodes']}  sockets {topo['sockets']}  threads/core {topo['threads_per_core']}",
        f"  cache: L1d {cache['l1d']} KiB/core  L2 {cache['l2']} KiB/core  L3 {cache['l3']} KiB/LLC",
        "",
        "  llc  node  socket  cpus",
    ]
    by_llc: dict[int, list[dict[str, int]]] = {}
    for cpu in topo["cpu_list"]:
        by_llc.setdefault(cpu["llc"], []).append(cpu)
    for llc, members in sorted(by_llc.items()):
        first = members[0]
        cpus = cpulist([c["cpu"] for c in members])
        lines.append(f"  {llc:>3}  {first['node']:>4}  {first['socket']:>6}  {cpus}")
    return "\n".join(lines)
