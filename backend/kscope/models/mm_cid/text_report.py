"""The text of `kscope repro mm_cid` (the document is repro.py's; `--json` prints it as is)."""

from typing import Any

COLUMNS = (("per_cpu", "per-cpu"), ("mm_cid", "mm_cid (v6.12)"), ("cache_local", "cache-local (v6.13)"))


def _ns(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def _x(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}x"


def _r(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _table(rows: list[dict[str, Any]]) -> list[str]:
    """model, published and model/published per column, then the speedups."""
    lines = [f"  {'':<18}" + "".join(f"{title:>24}" for _, title in COLUMNS) + f"{'speedup':>22}",
             f"  {'':<18}" + f"{'model':>9}{'publ.':>8}{'m/p':>7}" * 3 + f"{'model':>8}{'publ.':>7}{'m/p':>7}"]
    for r in rows:
        p = r["published"] or {}
        ratio = r.get("model_over_published") or {}
        cells = "".join(f"{_ns(r[f'{key}_ns']):>9}{_ns(p.get(f'{key}_ns')):>8}{_r(ratio.get(key)):>7}"
                        for key, _ in COLUMNS)
        lines.append(f"  {r['config']:<18}{cells}{_x(r['speedup']):>8}{_x(p.get('speedup')):>7}"
                     f"{_r(ratio.get('speedup')):>7}")
    return lines


def _breakdown(rows: list[dict[str, Any]]) -> list[str]:
    lines = []
    for r in rows:
        for key, title in COLUMNS:
            parts = r["breakdown"][key]
            text = ", ".join(f"{name} {ns:,.0f}" for name, ns in parts.items()) or "(v1: no parts)"
            lines.append(f"  {r['config']:<18}{title:<21}{_ns(r[f'{key}_ns']):>7} ns = {text}; "
                         f"first-touch bursts {r['first_touch_bursts'][key]:.1%}")
    return lines


def render(doc: dict[str, Any]) -> str:
    """Seed 000's tables, the model beside the published figures with the breakdown, the
    suspects of the cells off by more than 2x, then the checks and the constants."""
    model = doc["model"]
    bg = model["background_bytes_per_us"]
    lines = [
        "Seed 000 (7e019dc) intermittent benchmark on the model "
        f"({model['preset']}, librseq's basic_percpu_benchmark pacing), cost model {model['cost_model']}",
        f"  {model['rounds']} measured bursts per thread after {model['warmup_sweeps']} warm-up sweeps; "
        f"mean of {model['runs']} runs (seeds {model['seeds'][0]}-{model['seeds'][-1]}); "
        f"background {bg['per_core']} B/us per core, {bg['per_llc']} B/us per L3 (a workload parameter)",
        "  ns per 16 KiB burst (MODELLED beside PUBLISHED); m/p = model / published; "
        "speedup = mm_cid / cache-local; variants: " + ", ".join(f"{k} {v}" for k, v in model["variants"].items()),
    ]
    for delay in sorted({r["delay_ms"] for r in doc["rows"]}, reverse=True):
        rows = [r for r in doc["rows"] if r["delay_ms"] == delay]
        withheld = all(r["published"] is None for r in rows)
        title = f"delay {delay} ms" + (": the model's PREDICTION (the published table is withheld)"
                                       if withheld else ": model beside the published figures")
        lines += ["", title, *_table(rows), "", f"  breakdown, ns per burst by mechanism (delay {delay} ms):",
                  *_breakdown(rows)]
        suspects = [(r["config"], key, text) for r in rows for key, text in r["suspects"].items()]
        if suspects:
            lines += ["", f"  cells off by more than 2x (delay {delay} ms), and the suspect:"]
            lines += [f"  {config} {key}: {text}" for config, key, text in suspects]
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
