"""The text of `kscope bench rseq` (rseq_bench.py's document)."""

from typing import Any


def _ns(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def render(doc: dict[str, Any]) -> str:
    h = doc["host"]
    lines = [
        f"kscope bench rseq: {doc['benchmark']}",
        f"MEASURED {doc['date']} on {h['cpu']} ({h['cpu_id']}), CPUs {h['cpus_allowed']}, kernel {h['kernel']}, "
        f"{h['glibc']}; load average {doc['load_average']['before'][0]} before, "
        f"{doc['load_average']['after'][0]} after ({doc['seconds']} s)",
        f"{doc['loops']} measured bursts per thread after {doc['warmup_sweeps']} warm-up sweeps; ns per "
        f"{doc['area_bytes'] // 1024} KiB burst (median / mean over threads x loops bursts); faults: minor "
        "faults during the measured bursts",
        "",
        f"{'indexing':<8} {'thr':>3} {'delay':>6} {'median':>8} {'mean':>8} {'min':>7} {'max':>8} {'faults':>6}  "
        f"{'mm_cid seen':<16} first touch (ns, faults)",
    ]
    for r in doc["rows"]:
        seen = " ".join("{" + ",".join(map(str, s)) + "}" for s in r["mm_cid_seen"])
        touch = " ".join(f"{ns:,}/{f}" for ns, f in zip(r["first_touch_ns"], r["first_touch_minflt"]))
        line = (f"{r['indexing']:<8} {r['threads']:>3} {r['delay_ms']:>4}ms {_ns(r['median_ns']):>8} "
                f"{_ns(r['mean_ns']):>8} {_ns(r['min_ns']):>7} {_ns(r['max_ns']):>8} {r['measured_minflt']:>6}  "
                f"{seen:<16} {touch}")
        if "model" in r:
            m = r["model"]
            line += (f"  (model cost: median {_ns(m['median_cost_ns'])} ns; model's cid = kernel's in "
                     f"{m['kernel_agrees']}/{m['bursts']} bursts)")
        if "fresh" in r:
            f = r["fresh"]
            line += (f"  (first burst, never-touched index: "
                     + " ".join(f"{ns:,}/{flt}" for ns, flt in zip(f["first_burst_ns"], f["first_burst_minflt"]))
                     + f" ns/faults; the others {_ns(f['other_median_ns'])})")
        if not r["cpu_id_is_sched_getcpu"]:
            line += "  [rseq cpu_id != sched_getcpu]"
        lines.append(line)
    lines += [f"skipped: {k['indexing']} {k['threads']} threads {k['delay_ms']} ms: {k['why']}"
              for k in doc.get("skipped", [])]
    lines += ["", "model: indexes from the " + doc["model_variant"] + " model on the same schedule; "
              "its modelled cost beside the measured one, and how often its cid is the one the kernel gave; "
              "fresh: each thread's first measured burst on an index nobody touched (the pool's first-touch faults)"]
    return "\n".join(lines)
