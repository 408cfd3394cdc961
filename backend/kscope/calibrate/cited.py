"""Figures two vCPUs cannot measure (another CCD / LLC, another socket): CITED, not measured.

Each value is read from the model's own table (latency_tables.c via ks_topology_latency), so
the row shows exactly what the model uses; the citation repeats that file's source note.
"""

from typing import Any

from kscope.native.machine import Topology

# (preset, table entry, what, citation) - the citations are latency_tables.c's.
CITED = (
    ("epyc-9654-2s", "other_llc", "Genoa: line from another CCD (cross-CCD core-to-core)",
     "[c2c-lat] github.com/nviennot/core-to-core-latency: EPYC 7R13 (Milan) ~107 ns across CCXs, a "
     "stand-in for Genoa; AnandTech Ryzen 9 7950X review (2022): up to 79.5 ns across Zen 4 CCDs"),
    ("epyc-9654-2s", "other_socket", "Genoa: line from the other socket",
     "[c2c-lat] EPYC 7R13 (Milan) 2S: 197 ns across sockets (stand-in for Genoa)"),
    ("epyc-9654-2s", "dram_remote", "Genoa: remote-socket DRAM",
     "derived in latency_tables.c: local DRAM 122 ns [AnandTech Rome review] + (197 - 107) ns socket hop "
     "(ASSUMPTION)"),
    ("spr-2s", "other_socket", "Sapphire Rapids: line from the other socket",
     "[c2c-lat] Xeon Platinum 8375C (Ice Lake-SP) 2S: 108 ns (stand-in for SPR)"),
    ("spr-2s", "same_llc_core", "Sapphire Rapids: line from another core on the mesh",
     "[c2c-lat] Ice Lake-SP: 51 ns within a socket (stand-in; SPR's larger mesh likely slower)"),
    ("gnr-2s-snc", "other_socket", "Granite Rapids: line from the other socket",
     "[c2c-lat] Ice Lake-SP 2S: 108 ns (stand-in, as for SPR)"),
)
# Where a newer measurement should be checked first (not yet read into the table).
TO_CHECK = ("Chips and Cheese, \"Core to Core Latency Data on Large Systems\" (2023-11-07): SPR and "
            "large AMD systems measured with a CAS ping-pong; not yet read into latency_tables.c")


def cited_rows() -> list[dict[str, Any]]:
    rows = []
    for preset, source, what, citation in CITED:
        with Topology.from_preset(preset) as topo:
            table = topo.latency()
        ns = table["cycles"][source] * 1000.0 / table["core_mhz"]
        rows.append({"id": f"cited.{preset}.{source}", "kind": "cited", "mechanism": what, "unit": "ns",
                     "median": None, "p10": None, "p90": None, "min": None, "max": None, "trials": 0,
                     "model": round(ns, 1), "ratio": None,
                     "model_how": f"latency_tables.c {preset} {source}: {table['cycles'][source]} cycles "
                                  f"at {table['core_mhz']} MHz",
                     "source": f"CITED, not measured: {citation}"})
    return rows
