"""mm_cid conformance: a real trace's rseq_update mm_cids beside the model's.

The generic host (kscope/conform.py) reads the trace into time-ordered ks_event
records; here they go to the C replay (wasm-core/include/kscope/mm_cid/native/conform.h), which
drives one variant of the mm_cid model with the trace's forks, switches,
migrations and exits, ticks it every 1/HZ while a task of an mm runs, and
compares its cid with each rseq_update's mm_cid.

The variant is the one the trace's kernel release runs (or the kscope_mm_cid=
boot parameter of a kscope-built kernel), or, without a release, the one that
agrees best. The report says what the trace could not show (the generic notes
of kscope/conform.py) and, for every disagreement, its cause (conform.h's
ks_conform_cause) in plain words.
"""

import re
from typing import Any

import numpy as np

from kscope import switch_gaps, tgids
from kscope.conform import DEFAULT_HZ, MAX_LISTED, NothingToCompare, kernel_version, pct, trace_notes
from kscope.ingest import records
from kscope.ingest.sources import InputError
from kscope.models.mm_cid.native.conform import VARIANTS, Conform

# The record type whose field the model's decision is compared with (picks the trace buffer).
COMPARED_TYPE = records.RSEQ

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


class NoCidField(NothingToCompare):
    """Every rseq_update lacks the mm_cid field (kernels before 6.3, e.g. 6.1): 422."""


def variant_for_kernel(kernel: str) -> str:
    """v6.12 before 6.13, v6.13 for 6.13..6.17, v6.18 for 6.18, v6.19 from 6.19 on (the
    ownership-mode rework; Debian's 7.x kernels) ("" or unparsable: v6.18;
    replay() never uses that default: without a version it infers the variant from the trace)."""
    m = re.search(r"(\d+)\.(\d+)", kernel or "")
    if not m:
        return "v6.18"
    version = (int(m.group(1)), int(m.group(2)))
    if version < (6, 13):
        return "v6.12"
    if version < (6, 18):
        return "v6.13"
    if version < (6, 19):
        return "v6.18"
    return "v6.19"


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


INFERRED = "inferred from the trace (kernel version unknown)"


def _replay_once(items: np.ndarray, variant: str, cpus: int, hz: int, max_listed: int, resync: bool,
                 scan_at: str, ticks: list[tuple[int, int]] | None = None
                 ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    with Conform(variant, cpus, hz, max_listed, resync, scan_at) as conf:
        if ticks and scan_at == "return":
            conf.set_ticks([t for t, _ in ticks], [c for _, c in ticks])
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
           lost_events: int = 0, source: str = "trace", max_listed: int = MAX_LISTED,
           ticks: list[tuple[int, int]] | None = None) -> dict[str, Any]:
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
        s, listed = _replay_once(items, chosen, cpus, hz, max_listed, resync, scan_at, ticks)
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
        "ticks": s["ticks"], "recorded_ticks": len(ticks) if ticks and known else 0,
        "scans": s["scans"], "scan_at": scan_at,
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
    doc["known_start"] = known_start_agreement(rec, disagreements, doc["disagreements_truncated"])
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


def known_start_agreement(rec: np.ndarray, disagreements: list[dict[str, Any]], truncated: bool
                          ) -> dict[str, Any]:
    """Agreement without the processes whose state before the trace showed (a
    state_before_trace disagreement: a process alive before the trace had cids on its CPUs
    that no event shows, the replay starts it with none, and its later rseq_updates cascade
    from that unknown start). Every rseq_update of those processes is left out, agreeing or
    not; the plain agreement keeps them. Exact only when no disagreement was left unlisted."""
    excluded = sorted({d["tgid"] for d in disagreements if d["cause"] == "state_before_trace"})
    mask = (rec["type"] == records.RSEQ) & (rec["r_mm_cid"] >= 0) & ~np.isin(rec["tgid"], excluded)
    compared = int(mask.sum())
    disagree = sum(1 for d in disagreements if d["tgid"] not in excluded)
    return {"excluded_tgids": excluded, "compared": compared, "agree": compared - disagree,
            "agreement": (compared - disagree) / compared if compared else None, "exact": not truncated}


def notes(doc: dict[str, Any], gaps: dict[str, Any]) -> list[str]:
    """What this trace cannot show, in plain sentences."""
    out = []
    if doc["variants"]:
        figures = ", ".join(f"{r['variant']} {pct(r['agreement'])}" for r in doc["variants"])
        tied = [r["variant"] for r in doc["variants"] if r.get("best")]
        if doc["variant_from"] == "inferred":
            out.append(f"the trace names no kernel release: every variant was replayed ({figures}) and "
                       f"{doc['variant']} agrees best" + (f" (tied with {', '.join(t for t in tied if t != doc['variant'])}: "
                                                         "the trace cannot tell them apart)" if len(tied) > 1 else ""))
        where = "a return to user space (a real kernel)" if doc["scan_at"] == "return" else \
            "the modelled tick (a kscope simulation)"
        out.append(f"the trace names no kernel release, so where the 100 ms scan runs was inferred too: "
                   f"at {where} agrees best")
    out += trace_notes(doc, gaps)
    if doc["unknown_mm"]:
        out.append(f"{doc['unknown_mm']} rseq_updates of tasks whose process is unknown were not compared")
    if doc["nr_cpus"] <= 2:
        out.append(f"only {doc['nr_cpus']} CPUs: cids are 0..{doc['nr_cpus'] - 1}, so the variants "
                   f"(v6.12 / v6.13 / v6.18) can barely differ here")
    for cause, n in doc["causes"].items():
        out.append(f"{n} disagreements: {cause}: {CAUSE_HELP.get(cause, cause)}")
    if doc["variant"] == "v6.19":
        out.append("v6.19 has no periodic scan (6.19 removed task_mm_cid_work and the migrate-to "
                   "hand-over): cids change only at fork, exit, a switch-in and an ownership-mode change, "
                   "all traced or inferred from the switches")
    elif doc["scan_at"] == "return" and doc.get("recorded_ticks"):
        out.append(f"the trace recorded the kernel's ticks ({doc['recorded_ticks']} tick handler runs, "
                   f"timer:hrtimer_expire_entry): each queues the scan on the task current there, and it runs at "
                   f"that task's next rseq_update (its return to user space)")
    elif doc["scan_at"] == "return":
        out.append(f"ticks are not traced: the scan is task_work a tick queues; the replay runs it at the "
                   f"{doc['unprompted_rseq']} rseq_updates no switch-in or migration explains (the return "
                   f"to user space after a tick that found the task in user space: TIF_NOTIFY_RESUME), just "
                   f"before the update; a tick that found a thread in the kernel ran its work unseen at the "
                   f"thread's next return, after its next switch-in (scan_not_visible)")
    known = doc.get("known_start")
    if known and known["excluded_tgids"] and known["agreement"] is not None:
        out.append(f"without the processes alive before the trace whose earlier cids decided a disagreement "
                   f"(tgid {', '.join(map(str, known['excluded_tgids']))}): {known['agree']}/{known['compared']} "
                   f"({pct(known['agreement'])})")
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
            f"{r['variant']} {r['agree']}/{r['compared']} ({pct(r['agreement'])}, scan at {r['scan_at']})"
            + (" *" if r["variant"] == doc["variant"] else "") for r in doc["variants"]))
    if doc["workload"] and doc["workload"]["agreement"] is not None:
        w = doc["workload"]
        lines.append(f"  workload (tgid {', '.join(map(str, w['tgids']))}): compared {w['compared']}  "
                     f"agree {w['agree']}  agreement {w['agreement']:.4f}")
    known = doc.get("known_start")
    if known and known["excluded_tgids"] and known["agreement"] is not None:
        lines.append(f"  without tgid {', '.join(map(str, known['excluded_tgids']))} (state before the trace): "
                     f"compared {known['compared']}  agree {known['agree']}  agreement {known['agreement']:.4f}")
    if doc["causes"]:
        lines.append("  causes: " + ", ".join(f"{k} {v}" for k, v in doc["causes"].items()))
    for d in doc["first_disagreements"]:
        lines.append(f"  {d['ts'] / 1e9:.6f} tid {d['tid']} cpu {d['cpu']}: kernel {d['kernel_cid']} "
                     f"model {d['model_cid']}: {d['why']}")
    lines += [f"  note: {n}" for n in doc["notes"]]
    return "\n".join(lines)
