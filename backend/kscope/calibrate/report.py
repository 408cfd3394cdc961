"""Joins the measured figures, the model's values and the cited rows; renders the table."""

import os
import platform
import time
from pathlib import Path
from typing import Any

from kscope.calibrate import cited, model, model_v2, runner

# The seed's machine (EPYC 9654): its model column is shown too when this CPU maps elsewhere.
SEED_PRESET = "epyc-9654-2s"

# What each figure measures, in the table's words.
MECHANISMS = {
    "sweep16k.hot": "16 KiB sweep, hot",
    "sweep16k.sleep_1ms": "16 KiB sweep after 1 ms sleep",
    "sweep16k.sleep_10ms": "16 KiB sweep after 10 ms sleep",
    "sweep16k.sleep_100ms": "16 KiB sweep after 100 ms sleep",
    "sweep16k.sleep_200ms": "16 KiB sweep after 200 ms sleep",
    "sweep16k.sleep_1000ms": "16 KiB sweep after 1000 ms sleep",
    "sweep16k.after_remote_write": "16 KiB sweep after the other vCPU wrote it",
    "sweep16k.first_touch": "16 KiB sweep, never-touched memory",
    "sweep16k.ref_llc": "16 KiB sweep, area out of L2 (LLC reference)",
    "sweep16k.ref_dram": "16 KiB sweep after clflush (DRAM reference)",
    "sweep16k.tlbwarm.sleep_200ms": "16 KiB sweep after 200 ms sleep, TLB warmed",
    "pingpong.one_way": "line ping-pong, one way",
    "latency.l1": "load-to-use, L1 (chase)",
    "latency.l2": "load-to-use, L2 (chase)",
    "latency.llc": "load-to-use, LLC (chase)",
    "latency.dram": "dependent load chase, DRAM",
    "mlp.independent": "independent loads, DRAM",
    "mlp.misses_in_flight": "misses in flight (MLP)",
    "prefetch.sequential": "sequential sweep, per line",
    "prefetch.random": "random sweep, per line",
    "prefetch.gain": "prefetch effect (random/sequential)",
    "pagewalk.spread": "chase, 1 line per page",
    "pagewalk.packed": "chase, 64 lines per page",
    "pagewalk.cost": "page-walk cost (TLB miss)",
    "atomic.uncontended": "atomic add, one CPU",
    "atomic.contended": "contended atomic, both CPUs",
    "spinlock.handoff": "spinlock hand-off",
    "bandwidth.dram_read": "DRAM read bandwidth, one core",
    "idlechase.hot": "chase of the 16 KiB area, hot (ns per line)",
    "idlechase.ref_l2evict": "chase of the area out of L2 (LLC reference)",
    "idlechase.ref_dram": "chase of the area after clflush (DRAM reference)",
    "idlechase.sleep_1ms": "chase of the area after 1 ms sleep",
    "idlechase.tlbwarm.sleep_1ms": "the same, TLB warmed first",
    "idlechase.walk.sleep_1ms": "page walk after 1 ms sleep (per walk)",
    "idlebusy.wait_1ms": "chase after 1 ms busy wait (no idle)",
    "idlebusy.rt_wait_1ms": "chase after 1 ms SCHED_FIFO busy wait",
    "idlebusy.quiet_wait_1ms": "the same, the other CPU held quiet too",
    "idleclock.sleep_1ms": "ALU chain after 1 ms sleep (clock ramp)",
    "idlechase.sleep_10ms": "chase of the area after 10 ms sleep",
    "idlechase.tlbwarm.sleep_10ms": "the same, TLB warmed first",
    "idlechase.walk.sleep_10ms": "page walk after 10 ms sleep (per walk)",
    "idlebusy.wait_10ms": "chase after 10 ms busy wait (no idle)",
    "idlebusy.rt_wait_10ms": "chase after 10 ms SCHED_FIFO busy wait",
    "idlebusy.quiet_wait_10ms": "the same, the other CPU held quiet too",
    "idleclock.sleep_10ms": "ALU chain after 10 ms sleep (clock ramp)",
    "idlechase.sleep_100ms": "chase of the area after 100 ms sleep",
    "idlechase.tlbwarm.sleep_100ms": "the same, TLB warmed first",
    "idlechase.walk.sleep_100ms": "page walk after 100 ms sleep (per walk)",
    "idlebusy.wait_100ms": "chase after 100 ms busy wait (no idle)",
    "idlebusy.rt_wait_100ms": "chase after 100 ms SCHED_FIFO busy wait",
    "idlebusy.quiet_wait_100ms": "the same, the other CPU held quiet too",
    "idleclock.sleep_100ms": "ALU chain after 100 ms sleep (clock ramp)",
    "idlechase.sleep_200ms": "chase of the area after 200 ms sleep",
    "idlechase.tlbwarm.sleep_200ms": "the same, TLB warmed first",
    "idlechase.walk.sleep_200ms": "page walk after 200 ms sleep (per walk)",
    "idlebusy.wait_200ms": "chase after 200 ms busy wait (no idle)",
    "idlebusy.rt_wait_200ms": "chase after 200 ms SCHED_FIFO busy wait",
    "idlebusy.quiet_wait_200ms": "the same, the other CPU held quiet too",
    "idleclock.sleep_200ms": "ALU chain after 200 ms sleep (clock ramp)",
    "idleclock.hot": "ALU chain, hot (2048 multiply-adds)",
}


def cpu_info() -> dict[str, Any]:
    """Vendor, family, model and name of CPU 0 (/proc/cpuinfo), and the CPU count."""
    info: dict[str, Any] = {"vendor": None, "family": None, "model": None, "model_name": None,
                            "cpus": os.cpu_count(), "machine": platform.machine()}
    caches = {}
    for index in sorted(Path("/sys/devices/system/cpu/cpu0/cache").glob("index*")):
        try:
            level, kind = (index / "level").read_text().strip(), (index / "type").read_text().strip()
            caches[f"L{level}{'d' if kind == 'Data' else 'i' if kind == 'Instruction' else ''}"] = \
                (index / "size").read_text().strip()
        except OSError:
            continue
    info["caches"] = caches
    try:
        text = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        return info
    keys = {"vendor_id": "vendor", "cpu family": "family", "model": "model", "model name": "model_name"}
    for line in text.split("\n\n", 1)[0].splitlines():
        name, _, value = line.partition(":")
        key = keys.get(name.strip())
        if key:
            value = value.strip()
            info[key] = int(value) if key in ("family", "model") and value.isdigit() else value
    return info


def preset_for(info: dict[str, Any]) -> tuple[str, str]:
    """The preset whose latency table describes this CPU best, and why."""
    vendor, family, model_id = info.get("vendor"), info.get("family"), info.get("model")
    if vendor == "AuthenticAMD" and family == 25:
        return "epyc-9654-2s", "AMD family 25 (Zen 3/4): the Genoa table"
    if vendor == "GenuineIntel" and family == 6 and model_id in (143, 207):
        return "spr-2s", f"Intel family 6 model {model_id} (Sapphire/Emerald Rapids): the SPR table"
    if vendor == "GenuineIntel" and family == 6 and model_id in (173, 174):
        return "gnr-2s-snc", f"Intel family 6 model {model_id} (Granite Rapids): the GNR table"
    return "epyc-9654-2s", f"{vendor} family {family} model {model_id}: no table of its own; the Genoa table"


def _sig(x: float) -> float:
    """Six significant figures (a ratio of 0.035 keeps its digits)."""
    return float(f"{float(x):.6g}")


def build(quick: bool, preset: str | None = None, timeout_s: float | None = None) -> dict[str, Any]:
    info = cpu_info()
    chosen, why = preset_for(info)
    if preset:
        chosen, why = preset, "chosen with --preset"
    cpus = runner.pick_cpus()
    load_before = os.getloadavg()
    started = time.monotonic()
    figures = runner.run(quick, cpus, timeout_s or (300.0 if quick else 1800.0))
    seconds = time.monotonic() - started
    load_after = os.getloadavg()
    values = model.model_values(chosen)
    values_v2 = model_v2.model_values(chosen)["values"]
    seed = model.model_values(SEED_PRESET)["values"] if chosen != SEED_PRESET else None
    seed_v2 = model_v2.model_values(SEED_PRESET)["values"] if chosen != SEED_PRESET else None
    rows = []
    for fig in figures:
        value, how = values["values"].get(fig["id"], (None, "no model counterpart"))
        ratio = fig["median"] / value if value else None
        value_v2, how_v2 = values_v2.get(fig["id"], (None, "no v2 counterpart"))
        ratio_v2 = fig["median"] / value_v2 if value_v2 else None
        row = {**fig, "kind": "measured", "mechanism": MECHANISMS.get(fig["id"], fig["id"]),
               "model": None if value is None else _sig(value), "model_how": how,
               "ratio": None if ratio is None else _sig(ratio),
               "model_v2": None if value_v2 is None else _sig(value_v2), "model_v2_how": how_v2,
               "ratio_v2": None if ratio_v2 is None else _sig(ratio_v2),
               "source": f"MEASURED here (kscope-calibrate, cpus {','.join(map(str, cpus))})"}
        if seed is not None and seed_v2 is not None:
            seed_value = seed.get(fig["id"], (None, ""))[0]
            row["model_seed"] = None if seed_value is None else _sig(seed_value)
            seed_value_v2 = seed_v2.get(fig["id"], (None, ""))[0]
            row["model_v2_seed"] = None if seed_value_v2 is None else _sig(seed_value_v2)
        rows.append(row)
    rows += cited.cited_rows()
    busy = max(load_before[0], load_after[0]) > (info["cpus"] or 1)
    return {
        "cpu": info, "cpus_used": list(cpus), "quick": quick, "seconds": round(seconds, 1),
        "model": {"preset": chosen, "why": why, "seed_preset": SEED_PRESET if seed is not None else None, "core_mhz": values["core_mhz"],
                  "cpu_a": values["cpu_a"], "cpu_b": values["cpu_b"], "params": values["params"]},
        "load": {"before": [round(x, 2) for x in load_before], "after": [round(x, 2) for x in load_after],
                 "busy": busy},
        "note": ("medians of short trials; p10-p90 is the spread; min is the least disturbed trial. "
                 "v1 = the cache model (serial trips, default background); v2 = the cost model v2 "
                 "(docs/cost_model_v2.md, background 0). ratio = measured median / model." + (" The machine was busy (load average above its "
                 "CPU count): figures involving both CPUs or sleeps are noisy." if busy else "")),
        "to_check": cited.TO_CHECK,
        "rows": rows,
    }


def _num(x: float | None) -> str:
    if x is None:
        return "-"
    if abs(x) >= 100:
        return f"{x:.0f}"
    return f"{x:.3g}"


def render(doc: dict[str, Any]) -> str:
    cpu, m = doc["cpu"], doc["model"]
    caches = ", ".join(f"{k} {v}" for k, v in cpu.get("caches", {}).items())
    lines = [f"kscope calibrate: {cpu['model_name']} ({cpu['vendor']} family {cpu['family']} model {cpu['model']}), "
             f"cpus {doc['cpus_used']}, {'quick, ' if doc['quick'] else ''}{doc['seconds']} s",
             f"caches (sysfs, cpu 0): {caches or 'not reported'}",
             f"model: preset {m['preset']} ({m['why']}), cpus {m['cpu_a']}/{m['cpu_b']}, "
             f"background {m['params']['private_background_bytes_per_us']} B/us per core",
             f"load average before {doc['load']['before'][0]}, after {doc['load']['after'][0]}",
             ""]
    seed = m.get("seed_preset")
    header = ("mechanism", "unit", "median", "p10-p90", "min", f"v1 {m['preset']}", "ratio",
              f"v2 {m['preset']}", "ratio v2", *((f"v1 {seed}", f"v2 {seed}") if seed else ()), "source")
    table = [header]
    for r in doc["rows"]:
        band = "-" if r["p10"] is None else f"{_num(r['p10'])}-{_num(r['p90'])}"
        # a cited row's value is its own preset's table entry, whatever the column's preset
        source = "measured" if r["kind"] == "measured" else f"CITED ({r['id'].split('.')[1]} table)"
        table.append((r["mechanism"], r["unit"], _num(r["median"]), band, _num(r["min"]), _num(r["model"]),
                      "-" if r["ratio"] is None else f"{r['ratio']:.2f}x",
                      _num(r.get("model_v2")), "-" if r.get("ratio_v2") is None else f"{r['ratio_v2']:.2f}x",
                      *((_num(r.get("model_seed")), _num(r.get("model_v2_seed"))) if seed else ()), source))
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for row in table:
        lines.append("  ".join(c.ljust(w) if i in (0, 1, len(header) - 1) else c.rjust(w)
                               for i, (c, w) in enumerate(zip(row, widths))).rstrip())
    lines += ["", doc["note"], "model columns: " + "; ".join(
        f"{r['mechanism']}: v1 {r['model_how']}; {r.get('model_v2_how', '')}" for r in doc["rows"]
        if r["kind"] == "measured"
        and r["id"] in ("sweep16k.sleep_200ms", "pingpong.one_way", "mlp.misses_in_flight", "pagewalk.cost")),
        "cited rows (not measured on 2 vCPUs):"]
    lines += [f"  {r['mechanism']}: {r['model']} ns - {r['source']}" for r in doc["rows"] if r["kind"] == "cited"]
    lines.append(f"to check: {doc['to_check']}")
    return "\n".join(lines)
