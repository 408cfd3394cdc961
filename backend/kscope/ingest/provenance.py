"""Where a trace's events come from: MEASURED on a real kernel, or MODELLED by kscope.

`kscope sim --export ftrace` writes `# kscope: source=modelled` above its events, with the
workload, seed, algorithm and machine of the run (simulate.export_meta). A trace whose
header says so is labelled MODELLED everywhere it is shown; every other trace (kscope
capture, plain tracefs text, trace.dat, perf script) is MEASURED. The browser's
open-locally path reads the same header lines (frontend/src/core/traces/trace_meta.ts).
"""

from typing import Any

MODELLED_KEYS = ("workload", "seed", "algo", "preset", "generator")


def provenance_of(header: dict[str, str] | None) -> dict[str, Any]:
    """{"kind": "measured"}, or {"kind": "modelled", workload, seed, algo, preset, generator}."""
    header = header or {}
    if header.get("source", "").strip().lower() != "modelled":
        return {"kind": "measured"}
    return {"kind": "modelled", **{k: header[k] for k in MODELLED_KEYS if k in header}}
