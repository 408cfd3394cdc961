"""The text of `kscope repro cpupri` (the document is repro.py's; `--json` prints it as is)."""

from typing import Any


def _n(v: Any) -> str:
    return "-" if v is None else f"{v:,}" if isinstance(v, int) else f"{v}"


def _table(rows: list[dict[str, Any]], limit: int = 40) -> list[str]:
    out = [f"    {'Rmt Hitm%':>9} {'Lcl Hitm%':>9} {'St L1Hit%':>9} {'offset':>6} {'cycles':>7} "
           f"{'records':>9} {'share':>6}  symbol"]
    for r in rows[:limit]:
        out.append(f"    {r['rmt_hitm_pct']:>8.2f}% {r['lcl_hitm_pct']:>8.2f}% {r['store_l1_hit_pct']:>8.2f}% "
                   f"{hex(r['offset']):>6} {r['load_cycles']:>7} {r['records']:>9} "
                   f"{100 * r['records_share']:>5.1f}%  {r['symbol']}")
    return out


def render(doc: dict[str, Any]) -> str:
    res = doc["published"].get("results", {})
    w = doc["workload"]
    cpl, rng = doc["c2c_cycles_per_load"], doc["c2c_cycles_per_load_rows"]
    lines = [
        f"Seed 001 (cpupri per NUMA node) on the model ({doc['preset']}, {doc['duration_ms']} ms simulated, "
        f"seeds {doc['seeds']})",
        f"  workload: {w['instances']} instances x {w['cpus_per_instance']} CPUs, {w['prio']}, "
        f"{w['threads_per_instance']} threads each woken every {w['period_us']} us for {w['runtime_us']} us "
        f"(ASSUMED: {', '.join(w['assumptions'])})",
        "",
        "Cycles per load on the mask line            MEASURED (seed)        MODELLED",
        f"  global  (before)                          {res.get('c2c_cycles_per_load_before')}   "
        f"{_n(cpl['global'])} (rows {rng['global']})",
        f"  pernode (after, the seed's split)         {res.get('c2c_cycles_per_load_after')}   "
        f"{_n(cpl['pernode'])} (rows {rng['pernode']})",
        f"  pernode-kscope (kscope's 6.12 patch)      -                      "
        f"{_n(cpl.get('pernode-kscope'))} (rows {rng.get('pernode-kscope')})",
        f"  seed's appendix, records-weighted mean: {doc['c2c_table']['seed_line']['records_weighted_cycles']} cycles; "
        f"model waiting part: {doc['c2c_wait_cycles_per_load']}",
        f"  hot line: {doc['hot_line']}; remote share of its HITMs: {doc['remote_hitm_share']} "
        f"(seed: {doc['c2c_table']['seed_line']['rmt_hitm']} of "
        f"{doc['c2c_table']['seed_line']['rmt_hitm'] + doc['c2c_table']['seed_line']['lcl_hitm']})",
        f"  mask line utilisation (busy transfer time / time): {doc['mask_line_utilisation']}",
        "  the same line by cost model v2's analytic contended line (MVA, ks_cost_contended_line), ns per request:",
        *[f"    {v:<15} simulated {c['simulated_ns_per_request']} (waiting {c['simulated_wait_ns_per_request']}), "
          f"MVA {c['mva_ns_per_request']} (waiting {c['mva_wait_ns_per_request']}); N = {c['accessors']}, "
          f"think {c['think_ns']} ns"
          for v, c in doc["contended_line_check"].items() if c],
        "",
        "Kernel-time share                            MEASURED (seed)        MODELLED (cpupri accesses only)",
        f"  global -> pernode                         {res.get('kernel_cycles_pct_before')}% -> "
        f"{res.get('kernel_cycles_pct_after')}%          {doc['kernel_share_pct']['global']}% -> "
        f"{doc['kernel_share_pct']['pernode']}% ({doc['kernel_share_pct']['delta_pp']:+} pp)",
        "",
        "c2c table of the hot line, MODELLED (global), by offset and symbol:",
        *_table(doc["c2c_table"]["model_global"]),
        "",
        f"c2c table, MEASURED (seed's appendix, line {doc['c2c_table']['seed_line']['address']}), "
        "perf rows merged by offset and symbol:",
        *_table(doc["c2c_table"]["seed"]),
    ]
    if doc["sensitivity"]:
        lines += ["", "Sensitivity to the assumptions (burst = period / 2; 5 ms, seed 1): cycles per load, "
                  "and the global mask line's utilisation",
                  f"    {'period us':>9} {'threads':<22} {'global':>8} {'pernode':>8} {'util.':>6}"]
        for p in doc["sensitivity"]:
            over = "  overloaded: open loop, waits grow with the run" if p["global"]["mask_line_utilisation"] >= 1 else ""
            lines.append(f"    {p['period_us']:>9} {p['threads']:<22} {_n(p['global']['cycles_per_load']):>8} "
                         f"{_n(p['pernode']['cycles_per_load']):>8} {p['global']['mask_line_utilisation']:>6}{over}")
    sn = doc["side"].get("stress_ng_cyclic")
    if sn:
        lines += ["", "stress-ng --cyclic 480 --cyclic-policy fifo (seed: +5.9% after the split), MODELLED mask line:",
                  f"    {'':<9} {'cycles/load':>11} {'waiting':>8} {'remote':>7} {'util.':>6} {'kernel %':>9}"]
        for v, r in sn.items():
            lines.append(f"    {v:<9} {_n(r['cycles_per_load']):>11} {_n(r['wait_cycles_per_load']):>8} "
                         f"{_n(r['remote_share']):>7} {r['mask_line_utilisation']:>6} {r['kernel_share_pct']:>9}")
    lines += ["", "Checks (computed; the targets are the experiment, not guaranteed):"]
    for c in doc["checks"]:
        lines.append(f"  [{'pass' if c['pass'] else 'FAIL'}] {c['name']}")
    lines += ["", f"  not modelled: {doc['side']['note']}"]
    return "\n".join(lines)
