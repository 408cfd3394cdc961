"""`kscope conform`: replay a real trace through the mm_cid model, compare every cid.

A file is read as `kscope ingest` reads it (compression, format detection from
content, the registered C decoders) but not stored; a stored trace is read back
from its Parquet events (conform_store.py). Either way its ks_event records go,
in time order, to the C replay (wasm-core/include/kscope/conform.h), which
drives one variant of the mm_cid model with the trace's forks, switches,
migrations and exits, ticks it every 1/HZ while a task of an mm runs, and
compares its cid with each rseq_update's mm_cid.

The report says what the trace could not show: switch gaps (switch_gaps.py),
events the kernel dropped, processes whose tgid was inferred (tgids.py), and
for every disagreement its cause (conform.h's ks_conform_cause) in plain words.
"""

import re
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from kscope import switch_gaps, tgids
from kscope.core.config import get_settings
from kscope.ingest import formats, records
from kscope.ingest.pipeline import read_capture_header
from kscope.ingest.sources import InputError, Limits, compression_of, decompress
from kscope.native.conform import VARIANTS, Conform

DEFAULT_HZ = 250  # CONFIG_HZ of Debian's kernels, and of this machine's 6.18 (/proc/config.gz)
MAX_LISTED = 10_000  # disagreements listed in full (the API's cap)

# What each cause means, for notes and the UI (ks_conform_cause).
CAUSE_HELP = {
    "missing_events": "the trace lacks context switches near it (a switch gap), so the replay "
                      "guessed who ran",
    "scan_not_visible": "the periodic 100 ms scan (task_mm_cid_work) is not traced: it runs from a tick, "
                        "as task_work on a return to user space, and model and kernel scanned at "
                        "different times (a thread that blocks after the tick runs the scan at its "
                        "next return, after a switch-in, where the trace cannot tell it ran)",
    "state_before_trace": "the process existed before the trace began: which cids its CPUs held then "
                          "is unknown",
    "cascade": "follows an earlier disagreement in the same process: the model's cids had already "
               "diverged (--resync counts each decision from the kernel's state instead)",
    "same_time_order": "another CPU changed the process's cids (an exit, an allocation) in the same "
                       "microsecond, and ftrace text stamps microseconds: the order is unknown",
    "unexplained": "none of the above: a difference between the model and the kernel",
}


class NothingToCompare(InputError):
    """The trace has no rseq_update or no scheduling events (422)."""


class NoCidField(NothingToCompare):
    """Every rseq_update lacks the mm_cid field (kernels before 6.3, e.g. 6.1): 422."""


def kernel_version(kernel: str) -> tuple[int, int] | None:
    """(major, minor) of a kernel release ("6.12.117+deb12-amd64" -> (6, 12)), None if it has none."""
    m = re.search(r"(\d+)\.(\d+)", kernel or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


def variant_for_kernel(kernel: str) -> str:
    """v6.12 before 6.13, v6.13 for 6.13..6.17, v6.18 from 6.18 on ("" or unparsable: v6.18;
    replay() never uses that default: without a version it infers the variant from the trace)."""
    m = re.search(r"(\d+)\.(\d+)", kernel or "")
    if not m:
        return "v6.18"
    version = (int(m.group(1)), int(m.group(2)))
    if version < (6, 13):
        return "v6.12"
    if version < (6, 18):
        return "v6.13"
    return "v6.18"


def variant_for_capture(kernel: str, meta: dict[str, str]) -> tuple[str, str]:
    """(variant, what decided it: "header", the kernel release the trace names, or the boot
    parameter below): a kscope-built 6.12 with the mm_cid patch (capture-vm
    writes `# kscope: patches=` and `cmdline=`) runs the 7e019dc design, v6.13 in the model,
    when booted with kscope_mm_cid=recent, and 6.12's allocator otherwise."""
    patched = "mm_cid" in (meta.get("patches") or "").split(",")
    mode = re.search(r"(?:^|\s)kscope_mm_cid=(\S+)", meta.get("cmdline") or "")
    if patched and variant_for_kernel(kernel) == "v6.12":
        if mode and mode.group(1) == "recent":
            return "v6.13", "kscope_mm_cid=recent"
        return "v6.12", f"kscope_mm_cid={mode.group(1) if mode else 'legacy'}"
    return variant_for_kernel(kernel), "header"


def _decode(data: Path, source: str) -> tuple[np.ndarray, formats.DecodeReport]:
    fmt = formats.detect(data, source)
    batches: list[bytes] = []

    def on_batch(raw: memoryview, _arena: bytes) -> None:
        batches.append(bytes(raw))

    report = fmt.decode(data, source, on_batch, lambda done: None)
    raw = b"".join(batches)
    items = np.frombuffer(raw, records.RAW)
    order = np.argsort(items.view(records.RECORD)["ts_ns"], kind="stable")  # ties keep the file's order
    return items[order], report


def run(path: Path, variant: str = "auto", hz: int = DEFAULT_HZ, keep: int = 10,
        nr_cpus: int = 0, resync: bool = False) -> dict[str, Any]:
    """The conformance report of one trace file (InputError for unreadable input)."""
    if not path.is_file():
        raise InputError(f"{path}: no such file")
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
    items, buffer = one_buffer(items, report.extra.get("buffers") or [""])
    kernel = meta.get("kernel") or str(report.extra.get("uname") or "")
    cpus = nr_cpus or int(meta.get("smp") or 0) or report.nr_cpus
    doc = replay(items, meta, kernel, variant=variant, hz=hz, keep=keep, nr_cpus=cpus, resync=resync,
                 lost_events=report.lost_events, source=source)
    return {"file": str(path), "format": report.format, **({"buffer": buffer} if buffer is not None else {}), **doc}


def one_buffer(items: np.ndarray, names: list[str]) -> tuple[np.ndarray, str | None]:
    """A trace.dat with several trace buffers (the top one and instances, each recording
    its own copy of the events it enables) is replayed from one of them: the one with the
    most rseq_update records, then the most sched_switch records, then the most records,
    then the first. Returns
    (its records, its name), or (items, None) for a trace with one buffer."""
    rec = items.view(records.RECORD)
    present = np.unique(rec["buffer"]) if len(rec) else np.array([], np.uint16)
    if len(present) < 2:
        return items, None

    def weight(b: int) -> tuple[int, int, int, int]:
        mine = rec["buffer"] == b
        return (int(np.count_nonzero(mine & (rec["type"] == records.RSEQ))),
                int(np.count_nonzero(mine & (rec["type"] == records.SWITCH))), int(np.count_nonzero(mine)), -b)

    best = max((int(b) for b in present), key=weight)
    name = names[best] if best < len(names) else str(best)
    return items[rec["buffer"] == best], name


INFERRED = "inferred from the trace (kernel version unknown)"


def _replay_once(items: np.ndarray, variant: str, cpus: int, hz: int, max_listed: int, resync: bool,
                 scan_at: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    with Conform(variant, cpus, hz, max_listed, resync, scan_at) as conf:
        conf.feed(items.tobytes())
        return conf.summary(), conf.disagreements()


def _score(s: dict[str, Any]) -> float:
    return s["agree"] / s["compared"] if s["compared"] else -1.0


def _infer(items: np.ndarray, variants: list[str], cpus: int, hz: int, max_listed: int, resync: bool
           ) -> tuple[list[dict[str, Any]], dict[str, tuple[str, dict[str, Any], list[dict[str, Any]]]]]:
    """Every variant replayed with the scan at both places (a real kernel runs it on a return to
    user space, kscope's simulator at its modelled tick; without a kernel release the trace does
    not say which it is): each variant's best, and the rows the report lists."""
    best: dict[str, tuple[str, dict[str, Any], list[dict[str, Any]]]] = {}
    for v in variants:
        for scan_at in ("tick", "return"):  # a tie keeps the tick (the replay of a trace without a kernel before)
            s, listed = _replay_once(items, v, cpus, hz, max_listed, resync, scan_at)
            if v not in best or _score(s) > _score(best[v][1]):
                best[v] = (scan_at, s, listed)
    rows = [{"variant": v, "scan_at": sc, "compared": s["compared"], "agree": s["agree"],
             "agreement": (s["agree"] / s["compared"]) if s["compared"] else None}
            for v, (sc, s, _) in best.items()]
    return rows, best


def replay(items: np.ndarray, meta: dict[str, str], kernel: str, *, variant: str = "auto",
           hz: int = DEFAULT_HZ, keep: int = 10, nr_cpus: int = 0, resync: bool = False,
           lost_events: int = 0, source: str = "trace", max_listed: int = MAX_LISTED) -> dict[str, Any]:
    """Replays time-ordered ks_event records (records.RAW) through the mm_cid model.

    meta: the capture header (`# kscope:` lines; tasks= names the workload's tid:tgid).
    The variant: the option's; with "auto", the one of the kernel release the trace names
    (variant_from "header", or the kscope_mm_cid= boot parameter); without a release, every
    variant is replayed and the one that agrees best is chosen (variant_from "inferred", each
    variant's figures in "variants"). Never a silent default.
    NothingToCompare when there is no rseq_update or no scheduling event, NoCidField when
    the rseq_updates have no mm_cid (Linux before 6.3).
    """
    if variant != "auto" and variant not in VARIANTS:
        raise InputError(f"unknown variant {variant!r} (auto, {', '.join(VARIANTS)})")
    rec = items.view(records.RECORD)
    if len(rec) == 0:
        raise NothingToCompare(f"{source}: no events found")
    rseq = rec["type"] == records.RSEQ
    if not np.any(rseq):
        raise NothingToCompare(f"{source}: no rseq:rseq_update events: nothing to compare the model with "
                               "(capture with --events sched,rseq on Linux >= 6.3)")
    if not np.any(rec["type"] == records.SWITCH):
        raise NothingToCompare(f"{source}: no sched:sched_switch events: the replay needs the context switches")
    if not np.any(rec["r_mm_cid"][rseq] >= 0):
        version = kernel_version(kernel)
        which = f"Linux {kernel}'s" if kernel else "this trace's"
        before = " (before 6.3)" if version and version < (6, 3) else ""
        raise NoCidField(f"{source}: {which}{before} rseq:rseq_update events have no mm_cid field "
                         f"({int(rseq.sum()):,} rseq_updates, none with a cid): the tracepoint records the "
                         "mm_cid from Linux 6.3 on, so there is nothing to compare the mm_cid model with")
    items, tgid_info = tgids.fill(items, meta)
    rec = items.view(records.RECORD)
    cpus = max(nr_cpus, int(rec["cpu"].max()) + 1, 1)
    known = kernel_version(kernel) is not None
    candidates: list[dict[str, Any]] | None = None
    if known:
        # A real kernel runs the scan as task_work on a return to user space.
        chosen, decided_by = variant_for_capture(kernel, meta) if variant == "auto" else (variant, "option")
        scan_at = "return"
        s, listed = _replay_once(items, chosen, cpus, hz, max_listed, resync, scan_at)
    else:
        # No kernel release: neither the variant (unless chosen) nor where the scan runs (a real
        # kernel's return to user, or a kscope simulation's tick) is known; the best agreement decides.
        candidates, best = _infer(items, list(VARIANTS) if variant == "auto" else [variant], cpus, hz,
                                  max_listed, resync)
        top = max(_score(b[1]) for b in best.values())
        tied = [v for v, b in best.items() if _score(b[1]) == top]
        chosen = tied[-1] if variant == "auto" else variant  # a tie: the newest of the tied (said in a note)
        decided_by = "inferred" if variant == "auto" else "option"
        for row in candidates:
            row["best"] = row["variant"] in tied
        scan_at, s, listed = best[chosen]
    gaps = switch_gaps.switch_gaps(rec)
    dropped = int(meta.get("dropped_events") or 0) if (meta.get("dropped_events") or "").isdigit() else 0
    disagreements = [{"ts": d["ts_ns"], "tid": d["tid"], "tgid": d["tgid"], "cpu": d["cpu"],
                      "kernel_cid": d["kernel_cid"], "model_cid": d["model_cid"], "cause": d["cause"],
                      "why": d["why"]} for d in listed]
    doc = {
        "kernel": kernel or None, "variant": chosen,
        "variant_from": decided_by,
        "variant_label": {"inferred": INFERRED, "option": "chosen", "header": "from the trace's kernel release"}
        .get(decided_by, f"from the boot parameter {decided_by}"),
        "variants": candidates,
        "hz": s["hz"], "nr_cpus": s["nr_cpus"],
        "events": s["events"], "rseq_updates": s["rseq_updates"], "compared": s["compared"],
        "agree": s["agree"], "disagree": s["disagree"],
        "agreement": (s["agree"] / s["compared"]) if s["compared"] else None,
        "unknown_mm": s["unknown_mm"], "no_cid": s["no_cid"], "gaps": s["gaps"], "gaps_mm": s["gaps_mm"],
        "switch_gaps": gaps["gaps"], "switches": gaps["switches"], "switch_gaps_by_cpu": gaps["by_cpu"],
        "cold_starts": s["cold_starts"], "missing_migrations": s["missing_migrations"],
        "ticks": s["ticks"], "scans": s["scans"], "scan_at": scan_at,
        "scan_at_from": "header" if known else "inferred", "unprompted_rseq": s["unprompted"],
        "tasks": s["nr_tasks"], "mms": s["nr_mms"], "tgid": tgid_info,
        "stopper_migrations": s["stopper_migrations"], "resync": resync, "resyncs": s["resyncs"],
        "lost_events": lost_events, "dropped_events": dropped, "bad_events": s["bad_events"],
        "causes": {k: v for k, v in s["causes"].items() if v},
        "first_disagreements": disagreements[:keep],
        "disagreements": disagreements,
        "disagreements_truncated": s["disagree"] > len(disagreements),
    }
    doc["workload"] = workload_agreement(rec, meta, disagreements, doc["disagreements_truncated"])
    doc["notes"] = notes(doc, gaps)
    return doc


def workload_agreement(rec: np.ndarray, meta: dict[str, str], disagreements: list[dict[str, Any]],
                       truncated: bool) -> dict[str, Any] | None:
    """Agreement over the captured workload's processes only (header tasks=), None without it."""
    wanted = sorted(set(tgids.header_tasks(meta).values()))
    if not wanted:
        return None
    mine = np.isin(rec["tgid"], wanted)
    compared = int(((rec["type"] == records.RSEQ) & mine & (rec["r_mm_cid"] >= 0)).sum())
    disagree = sum(1 for d in disagreements if d["tgid"] in wanted)
    return {"tgids": wanted, "compared": compared, "agree": compared - disagree,
            "agreement": (compared - disagree) / compared if compared else None,
            "exact": not truncated}


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x * 100:.1f}%"


def notes(doc: dict[str, Any], gaps: dict[str, Any]) -> list[str]:
    """What this trace cannot show, in plain sentences."""
    out = []
    if doc["variants"]:
        figures = ", ".join(f"{r['variant']} {_pct(r['agreement'])}" for r in doc["variants"])
        tied = [r["variant"] for r in doc["variants"] if r.get("best")]
        if doc["variant_from"] == "inferred":
            out.append(f"the trace names no kernel release: every variant was replayed ({figures}) and "
                       f"{doc['variant']} agrees best" + (f" (tied with {', '.join(t for t in tied if t != doc['variant'])}: "
                                                         "the trace cannot tell them apart)" if len(tied) > 1 else ""))
        where = "a return to user space (a real kernel)" if doc["scan_at"] == "return" else \
            "the modelled tick (a kscope simulation)"
        out.append(f"the trace names no kernel release, so where the 100 ms scan runs was inferred too: "
                   f"at {where} agrees best")
    if gaps["gaps"]:
        ex = gaps["examples"][0]
        out.append(f"missing context switches: {gaps['gaps']} switch gaps in {gaps['switches']} switches "
                   f"(a CPU's next sched_switch names another prev task than the last one switched in; "
                   f"first on CPU {ex['cpu']} at {ex['ts_ns'] / 1e9:.6f}: pid {ex['expected_prev']} expected, "
                   f"pid {ex['prev_pid']} named); the replay assumes the switch at the next event")
    if doc["lost_events"] or doc["dropped_events"]:
        out.append(f"the kernel dropped events: {doc['lost_events']} reported lost in the trace, "
                   f"{doc['dropped_events']} in the ring buffer's per-CPU statistics")
    info = doc["tgid"]
    guessed = info.get("from_fork", 0) + info.get("assumed_leader", 0) + info.get("from_header", 0)
    if guessed:
        out.append(f"the trace has no TGID column for {guessed} tasks: their process was taken from the "
                   f"capture header's tasks= ({info.get('from_header', 0)}), from sched_process_fork "
                   f"({info.get('from_fork', 0)}: a child with its parent's name taken as a thread, another "
                   f"name as a new process - the event cannot tell) or assumed to lead its own process "
                   f"({info.get('assumed_leader', 0)})")
    if doc["unknown_mm"]:
        out.append(f"{doc['unknown_mm']} rseq_updates of tasks whose process is unknown were not compared")
    if doc["nr_cpus"] <= 2:
        out.append(f"only {doc['nr_cpus']} CPUs: cids are 0..{doc['nr_cpus'] - 1}, so the variants "
                   f"(v6.12 / v6.13 / v6.18) can barely differ here")
    for cause, n in doc["causes"].items():
        out.append(f"{n} disagreements: {cause}: {CAUSE_HELP.get(cause, cause)}")
    if doc["scan_at"] == "return":
        out.append(f"ticks are not traced: the replay queues the scan at modelled ticks (HZ {doc['hz']}) and "
                   f"at the {doc['unprompted_rseq']} rseq_updates no switch-in or migration explains "
                   f"(task_work's TIF_NOTIFY_RESUME), and runs it just before the task's rseq_update")
    return out


def render(doc: dict[str, Any]) -> str:
    agreement = "n/a" if doc["agreement"] is None else f"{doc['agreement']:.4f}"
    lines = [
        f"{doc['file']}: kernel {doc['kernel'] or '?'}"
        + (f" with {doc['variant_from']}" if doc["variant_from"].startswith("kscope_mm_cid=") else "")
        + f" -> mm_cid:{doc['variant']}"
        + (f" ({INFERRED})" if doc["variant_from"] == "inferred" else "")
        + f" (HZ {doc['hz']}, {doc['nr_cpus']} CPUs)",
        f"  rseq_updates {doc['rseq_updates']}  compared {doc['compared']}  agree {doc['agree']}  "
        f"agreement {agreement}",
        f"  unknown_mm {doc['unknown_mm']}  switch gaps {doc['switch_gaps']} in {doc['switches']} switches  "
        f"cold starts {doc['cold_starts']}  missing migrations {doc['missing_migrations']}  "
        f"scans {doc['scans']}  stopper migrations {doc['stopper_migrations']}"
        + (f"  resyncs {doc['resyncs']}" if doc["resync"] else ""),
    ]
    if doc["variants"]:
        lines.append("  variants: " + "  ".join(
            f"{r['variant']} {r['agree']}/{r['compared']} ({_pct(r['agreement'])}, scan at {r['scan_at']})"
            + (" *" if r["variant"] == doc["variant"] else "") for r in doc["variants"]))
    if doc["workload"] and doc["workload"]["agreement"] is not None:
        w = doc["workload"]
        lines.append(f"  workload (tgid {', '.join(map(str, w['tgids']))}): compared {w['compared']}  "
                     f"agree {w['agree']}  agreement {w['agreement']:.4f}")
    if doc["causes"]:
        lines.append("  causes: " + ", ".join(f"{k} {v}" for k, v in doc["causes"].items()))
    for d in doc["first_disagreements"]:
        lines.append(f"  {d['ts'] / 1e9:.6f} tid {d['tid']} cpu {d['cpu']}: kernel {d['kernel_cid']} "
                     f"model {d['model_cid']}: {d['why']}")
    lines += [f"  note: {n}" for n in doc["notes"]]
    return "\n".join(lines)
