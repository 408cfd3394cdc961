"""The text of `kscope repro mm_cid` (the document is repro.py's; `--json` prints it as is)."""

from typing import Any


def _ns(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def _x(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}x"


def render(doc: dict[str, Any]) -> str:
    """Seed 000's tables, the model beside the published figures, then checks and constants."""
    model = doc["model"]
    bg = model["background_bytes_per_us"]
    lines = [
        "Seed 000 (7e019dc) intermittent benchmark on the model "
        f"({model['preset']}, librseq's basic_percpu_benchmark pacing)",
        f"  {model['rounds']} measured bursts per thread after {model['warmup_sweeps']} warm-up sweeps; "
        f"mean of {model['runs']} runs (seeds {model['seeds'][0]}-{model['seeds'][-1]}); "
        f"background {bg['per_core']} B/us per core, {bg['per_llc']} B/us per L3",
        "  ns per 16 KiB burst; speedup = mm_cid / cache-local; variants: "
        + ", ".join(f"{k} {v}" for k, v in model["variants"].items()),
    ]
    head = (f"  {'':<18}{'per-cpu':>17}{'mm_cid (v6.12)':>19}{'cache-local (v6.13)':>21}{'speedup':>15}",
            f"  {'':<18}" + f"{'model':>9}{'publ.':>8}" + f"{'model':>11}{'publ.':>8}"
            + f"{'model':>13}{'publ.':>8}" + f"{'model':>8}{'publ.':>7}")
    for delay in sorted({r["delay_ms"] for r in doc["rows"]}, reverse=True):
        rows = [r for r in doc["rows"] if r["delay_ms"] == delay]
        withheld = all(r["published"] is None for r in rows)
        title = f"delay {delay} ms" + (": the model's PREDICTION (the published table is withheld)"
                                       if withheld else ": model beside the published figures")
        lines += ["", title, *head]
        for r in rows:
            p = r["published"] or {}
            lines.append(
                f"  {r['config']:<18}{_ns(r['per_cpu_ns']):>9}{_ns(p.get('per_cpu_ns')):>8}"
                f"{_ns(r['mm_cid_ns']):>11}{_ns(p.get('mm_cid_ns')):>8}"
                f"{_ns(r['cache_local_ns']):>13}{_ns(p.get('cache_local_ns')):>8}"
                f"{_x(r['speedup']):>8}{_x(p.get('speedup')):>7}")
    checks = doc["checks"]
    lines += ["", "checks (200 ms rows):"]
    for name, text in checks["definitions"].items():
        lines.append(f"  {name}: {text}")
    for c in checks["rows"]:
        ns = ", ".join(f"{k.removesuffix('_ns')} {v:.2f}" for k, v in c["ns_over_published"].items())
        lines.append(
            f"  {c['config']:<18} ordering {'holds' if c['ordering'] else 'FAILS'} "
            f"(per-cpu/cache-local {c['per_cpu_vs_cache_local']:.2f}, mm_cid/slower "
            f"{c['mm_cid_over_slower_of_the_two']:.1f}); speedup {c['speedup_over_published']:.2f} "
            f"of published: {'within 2x' if c['speedup_within_2x'] else 'NOT within 2x'}; "
            f"ns / published: {ns}")
    lines.append(f"  all: ordering {'holds' if checks['ordering_holds'] else 'FAILS'}; "
                 f"speedup within 2x: {'yes' if checks['speedup_within_2x'] else 'NO'}; "
                 f"ns within 2x: {'yes' if checks['ns_within_2x'] else 'NO'}")
    lines += ["", f"calibration: {model['calibrated']}"]
    for c in doc["calibration"]:
        fitted = f"  [calibrated on {c['calibrated_on']}]" if c["calibrated_on"] else ""
        lines.append(f"  {c['constant']}: {c['value']}{fitted}")
        lines.append(f"      source: {c['source']}")
    return "\n".join(lines)
