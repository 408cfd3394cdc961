"""The text of `kscope repro sheaves`: each table with the published figure beside the model's,
labelled MEASURED (the seed's kernels) and MODELLED, with units."""

from typing import Any


def _f(x: Any, digits: int = 2) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:+.{digits}f}" if digits >= 0 else f"{x:.0f}"
    return str(x)


def render(doc: dict[str, Any]) -> str:
    out: list[str] = []
    calls = doc["calls_per_mmap"]
    pub = doc["calls_per_mmap_published"]
    n = doc["calls_25s"]["nr_tasks"]
    out.append(f"Calls per mmap, epyc-9654-2s, {n} tasks (MEASURED: the seed's bpftrace at 384 tasks, "
               "counts / mmap; MODELLED: counters / iterations)")
    out.append(f"  {'function':<28}{'nofix pub':>11}{'nofix model':>13}{'fix pub':>11}{'fix model':>11}")
    for fn in calls["nofix"]:
        out.append(f"  {fn:<28}{pub['nofix'][fn]:>11.5f}{calls['nofix'][fn]:>13.5f}"
                   f"{pub['fix'][fn]:>11.5f}{calls['fix'][fn]:>11.5f}")
    t = doc["calls_25s"]
    out.append(f"  25 s totals (model: per mmap x model ops/s x {n} x 25 s):")
    for fn in t["model"]["nofix"]:
        out.append(f"  {fn:<28}{t['published']['nofix'][fn]:>13,}{t['model']['nofix'][fn]:>15,}"
                   f"{t['published']['fix'][fn]:>15,}{t['model']['fix'][fn]:>15,}")
    for machine, rows in doc["ops_delta"].items():
        out.append(f"ops/s per task, fix vs nofix, {machine} (%; published MEASURED, model MODELLED)")
        out.append(f"  {'nr_tasks':>8}{'published':>11}{'model':>9}{'model nofix':>13}{'model fix':>11}")
        for r in rows:
            out.append(f"  {r['nr_tasks']:>8}{_f(r['published_pct']):>11}{_f(r['model_pct']):>9}"
                       f"{r['model_ops_nofix']:>13,}{r['model_ops_fix']:>11,}")
    out.append("vs 3accabda4 (maple_node without sheaves), gnr-2s-snc (%)")
    out.append(f"  {'nr_tasks':>8}{'nofix pub':>11}{'model':>9}{'fix pub':>10}{'model':>9}")
    for r in doc["vs_baseline"]:
        p = r["published_pct"] or {}
        out.append(f"  {r['nr_tasks']:>8}{_f(p.get('nofix')):>11}{_f(r['model_pct']['nofix']):>9}"
                   f"{_f(p.get('fix')):>10}{_f(r['model_pct']['fix']):>9}")
    s = doc["spinlock_share"]
    out.append("Spinlock share of CPU time, epyc-9654-2s (%; published: native_queued_spin_lock_slowpath "
               "self, perf; model: lock spin + hand-off)")
    for v in ("nofix", "fix"):
        out.append(f"  {v:<6} published {s[v]['published_pct']:6.2f}  model {s[v]['model_pct']:6.2f}"
                   f"  (barn {s[v]['model_barn_wait_pct']:.2f}, list_lock {s[v]['model_list_lock_wait_pct']:.2f})")
    out.append("Capacity sweep, gnr-2s-snc, vs 3accabda4 (%; PREDICTED: the seed's table is withheld)")
    caps = sorted({r["capacity"] for r in doc["capacity_sweep"]})
    tasks = sorted({r["nr_tasks"] for r in doc["capacity_sweep"]})
    head = "".join(f"{'C=' + str(c) + (' fix' if f else ''):>12}" for c in caps for f in (False, True))
    out.append(f"  {'nr_tasks':>8}{head}")
    cell = {(r["capacity"], r["fix"], r["nr_tasks"]): r["delta_pct"] for r in doc["capacity_sweep"]}
    for n_ in tasks:
        out.append(f"  {n_:>8}" + "".join(f"{_f(cell.get((c, f, n_))):>12}" for c in caps for f in (False, True)))
    out.append("Grace-period sensitivity (the default 12 ms is an ASSUMPTION): fix vs nofix ops/s, %")
    for r in doc.get("grace_period_sensitivity", []):
        out.append(f"  {r['machine']} {r['nr_tasks']} tasks, grace period {r['rcu_gp_ms']} ms: "
                   f"{_f(r['model_pct'])}  (barn_put_empty_sheaf per mmap {r['barn_put_empty_per_mmap_nofix']}"
                   f" -> {r['barn_put_empty_per_mmap_fix']})")
    out.append("Checks")
    for name, c in doc["checks"].items():
        out.append(f"  {name}: {'pass' if c['pass'] else 'FAIL'}  "
                   + ", ".join(f"{k}={v}" for k, v in c.items() if k not in ("pass", "rows")))
        for row in c.get("rows", []):
            out.append(f"    {row['machine']} {row['nr_tasks']}: published {row['published_pct']:+.1f}, "
                       f"model {row['model_pct']:+.1f} {'same sign' if row['same_sign'] else 'OPPOSITE'}")
    out.append("Inputs (nothing fitted to the published tables)")
    for i in doc["inputs"]:
        out.append(f"  {i['name']}: {i['value']}  [{i['source']}]")
    return "\n".join(out)
