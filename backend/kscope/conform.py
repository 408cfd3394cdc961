"""`kscope conform`: replay a real trace through the mm_cid model, compare every cid.

The file is read as `kscope ingest` reads it (compression, format detection from
content, the registered C decoders) but not stored: its ks_event records go, in
time order, to the C replay (wasm-core/include/kscope/conform.h), which drives one
variant of the mm_cid model with the trace's forks, switches, migrations and exits,
ticks it every 1/HZ while a task of an mm runs, and compares its cid with each
rseq_update's mm_cid.
"""

import re
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from kscope.core.config import get_settings
from kscope.ingest import formats, records
from kscope.ingest.pipeline import read_capture_header
from kscope.ingest.sources import InputError, Limits, compression_of, decompress
from kscope.native.conform import VARIANTS, Conform

DEFAULT_HZ = 250  # CONFIG_HZ of Debian's kernels, and of this machine's 6.18 (/proc/config.gz)


def variant_for_kernel(kernel: str) -> str:
    """v6.12 before 6.13, v6.13 for 6.13..6.17, v6.18 from 6.18 on ("" or unparsable: v6.18)."""
    m = re.search(r"(\d+)\.(\d+)", kernel or "")
    if not m:
        return "v6.18"
    version = (int(m.group(1)), int(m.group(2)))
    if version < (6, 13):
        return "v6.12"
    if version < (6, 18):
        return "v6.13"
    return "v6.18"


def _decode(data: Path, source: str) -> tuple[np.ndarray, formats.DecodeReport]:
    fmt = formats.detect(data, source)
    parts: dict[int, list[bytes]] = {}

    def on_batch(raw: memoryview, _arena: bytes, part: int = 0) -> None:
        parts.setdefault(part, []).append(bytes(raw))

    report = fmt.decode(data, source, on_batch, lambda done: None, threads=1)
    raw = b"".join(b"".join(parts[p]) for p in sorted(parts))
    items = np.frombuffer(raw, records.RAW)
    order = np.argsort(items.view(records.RECORD)["ts_ns"], kind="stable")  # ties keep the file's order
    return items[order], report


def run(path: Path, variant: str = "auto", hz: int = DEFAULT_HZ, keep: int = 10,
        nr_cpus: int = 0, resync: bool = False) -> dict[str, Any]:
    """The conformance report of one trace file (InputError for unreadable input)."""
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    if variant != "auto" and variant not in VARIANTS:
        raise InputError(f"unknown variant {variant!r} (auto, {', '.join(VARIANTS)})")
    source = path.name
    settings = get_settings()
    with tempfile.TemporaryDirectory(prefix="kscope-conform-") as tmp:
        data = path
        with open(path, "rb") as f:
            kind = compression_of(f.read(8))
        if kind:
            data = Path(tmp) / "input"
            decompress(path, source, kind, data, Limits(settings.max_decompressed_bytes,
                                                        settings.max_compression_ratio))
        meta, _sysfs = read_capture_header(data)
        items, report = _decode(data, source)
    rec = items.view(records.RECORD)
    kernel = meta.get("kernel") or str(report.extra.get("uname") or "")
    chosen = variant_for_kernel(kernel) if variant == "auto" else variant
    cpus = nr_cpus or int(meta.get("smp") or 0) or report.nr_cpus
    if len(rec):
        cpus = max(cpus, int(rec["cpu"].max()) + 1)
    if len(rec) == 0:
        raise InputError(f"{source}: no events found")
    with Conform(chosen, max(cpus, 1), hz, keep, resync, "return" if kernel else "tick") as replay:
        replay.feed(items.tobytes())
        s = replay.summary()
        first = replay.disagreements()
    return {
        "file": str(path), "format": report.format, "kernel": kernel or None, "variant": chosen,
        "variant_from": "kernel" if variant == "auto" else "option", "hz": s["hz"], "nr_cpus": s["nr_cpus"],
        "events": s["events"], "rseq_updates": s["rseq_updates"], "compared": s["compared"],
        "agree": s["agree"], "disagree": s["disagree"],
        "agreement": (s["agree"] / s["compared"]) if s["compared"] else None,
        "unknown_mm": s["unknown_mm"], "no_cid": s["no_cid"], "gaps": s["gaps"], "gaps_mm": s["gaps_mm"],
        "cold_starts": s["cold_starts"], "missing_migrations": s["missing_migrations"],
        "ticks": s["ticks"], "scans": s["scans"], "tasks": s["nr_tasks"], "mms": s["nr_mms"],
        "stopper_migrations": s["stopper_migrations"], "resync": resync, "resyncs": s["resyncs"],
        "lost_events": report.lost_events, "bad_events": s["bad_events"],
        "first_disagreements": [{k: d[k] for k in ("ts", "tid", "cpu", "kernel_cid", "model_cid", "why")}
                                for d in first],
    }


def render(doc: dict[str, Any]) -> str:
    agreement = "n/a" if doc["agreement"] is None else f"{doc['agreement']:.4f}"
    lines = [
        f"{doc['file']}: kernel {doc['kernel'] or '?'} -> mm_cid:{doc['variant']} (HZ {doc['hz']}, "
        f"{doc['nr_cpus']} CPUs)",
        f"  rseq_updates {doc['rseq_updates']}  compared {doc['compared']}  agree {doc['agree']}  "
        f"agreement {agreement}",
        f"  unknown_mm {doc['unknown_mm']}  gaps {doc['gaps']} (in rseq mms: {doc['gaps_mm']})  "
        f"cold starts {doc['cold_starts']}  missing migrations {doc['missing_migrations']}  "
        f"scans {doc['scans']}  stopper migrations {doc['stopper_migrations']}"
        + (f"  resyncs {doc['resyncs']}" if doc["resync"] else ""),
    ]
    for d in doc["first_disagreements"]:
        lines.append(f"  {d['ts']:.6f} tid {d['tid']} cpu {d['cpu']}: kernel {d['kernel_cid']} "
                     f"model {d['model_cid']}: {d['why']}")
    return "\n".join(lines)
