"""Human-readable renderings of topology data for the CLI (the JSON forms need none)."""

import json
from itertools import groupby
from typing import Any


def cpulist(cpus: list[int]) -> str:
    """Linux cpulist form of a set of CPU numbers: [0,1,2,3,192,193] -> "0-3,192-193"."""
    ordered = sorted(cpus)
    runs = groupby(enumerate(ordered), key=lambda pair: pair[1] - pair[0])
    parts = []
    for _, run in runs:
        members = [cpu for _, cpu in run]
        parts.append(str(members[0]) if len(members) == 1 else f"{members[0]}-{members[-1]}")
    return ",".join(parts)


def presets_table(presets: list[dict[str, str]]) -> str:
    """One line per preset: name, then description."""
    width = max((len(p["name"]) for p in presets), default=0)
    return "\n".join(f"{p['name']:<{width}}  {p['description']}" for p in presets)


def topology_table(topo: dict[str, Any]) -> str:
    """Counts, cache sizes, then one row per LLC with its node, socket and CPUs."""
    cache = topo["cache_kib"]
    lines = [
        f"{topo['name']}: {topo['description']}",
        f"  cpus {topo['cpus']}  cores {topo['cores']}  llcs {topo['llcs']}  "
        f"nodes {topo['nodes']}  sockets {topo['sockets']}  threads/core {topo['threads_per_core']}",
        f"  cache: L1d {cache['l1d']} KiB/core  L2 {cache['l2']} KiB/core  L3 {cache['l3']} KiB/LLC",
        "",
        "  llc  node  socket  cpus",
    ]
    by_llc: dict[int, list[dict[str, int]]] = {}
    for cpu in topo["cpu_list"]:
        by_llc.setdefault(cpu["llc"], []).append(cpu)
    for llc, members in sorted(by_llc.items()):
        first = members[0]
        cpus = cpulist([c["cpu"] for c in members])
        lines.append(f"  {llc:>3}  {first['node']:>4}  {first['socket']:>6}  {cpus}")
    return "\n".join(lines)


def _ms(ns: int | float | None) -> str:
    return "-" if ns is None else f"{ns / 1e6:.3f} ms"


def sim_summary(doc: dict[str, Any]) -> str:
    """A few lines about a run: what ran, how many events of which kind, CPU and cache use."""
    by_type = ", ".join(f"{name} {n}" for name, n in doc["events_by_type"].items() if n)
    cpus = doc["cpus"]
    busy = [c["busy_pct"] for c in cpus]
    mean_busy = sum(busy) / len(busy) if busy else 0.0
    cache, bursts = doc["cache"], doc["bursts"]
    lines_from = ", ".join(f"{src} {n}" for src, n in cache["lines_from"].items() if n) or "none"
    lines = [
        f"{doc['workload']} on {doc['preset']} (algo {doc['algo']}, seed {doc['seed']}): "
        f"{doc['events']} events in {_ms(doc['now_ns'])} simulated",
        f"  events: {by_type or 'none'}",
        f"  hash:   {doc['event_stream_hash'] or 'not computed (--no-hash)'}",
        f"  cpus:   {len(cpus)}, busy mean {mean_busy:.2f}%, max {max(busy, default=0.0):.2f}%",
        f"  cache:  access {_ms(cache['access_ns'])}, lines from {lines_from}, "
        f"HITM local {cache['local_hitm']} remote {cache['remote_hitm']}",
    ]
    if bursts["count"]:
        lines.append(f"  bursts: {bursts['count']}, mean {bursts['mean_ns'] / 1e3:.3f} us, "
                     f"p50 {bursts['p50_ns'] / 1e3:.3f} us, p95 {bursts['p95_ns'] / 1e3:.3f} us "
                     f"(cost model {doc.get('cost_model', 'v1')})")
        if bursts.get("parts_mean_ns"):
            lines.append("          by mechanism, mean ns per burst: "
                         + ", ".join(f"{name} {ns:,.0f}" for name, ns in bursts["parts_mean_ns"].items()))
    if "export" in doc:
        lines.append(f"  export: {doc['export']['file']} ({doc['export']['bytes']} bytes of ftrace text)")
    return "\n".join(lines)


def decode_summary(doc: dict[str, Any]) -> str:
    """Format, counts by type and the first malformed line of a decoded trace."""
    by_type = ", ".join(f"{name} {n}" for name, n in doc["by_type"].items())
    lines = [
        f"{doc['file']}: {doc['format']} text, {doc['events']} events in {doc['lines']} lines"
        f" ({doc['nr_cpus']} cpus)",
        f"  events: {by_type or 'none'}",
        f"  malformed lines: {doc['malformed_lines']}",
    ]
    err = doc["first_error"]
    if err:
        lines.append(f"  first: line {err['line']}, column {err['column']} ({err['field']}): {err['message']}")
    return "\n".join(lines)


def _ingest_bench(doc: dict[str, Any]) -> str:
    t, met = doc["targets"], doc["met"]
    lines = [f"bench ingest on {doc['machine']['cpus']} CPUs (targets: >= {t['ingest_mb_per_s']} MB/s, "
             f"RSS <= {t['peak_rss_over_input']}x input, <= {t['bytes_per_event']} B/event, "
             f"summary p95 <= {t['summary_p95_ms_10m']} ms at 10M and <= {t['summary_10m_over_1m']}x 1M)"]
    for r in doc["ftrace_text"].values():
        lines.append(
            f"  ftrace text {r['events']} events, {r['input_bytes'] / 1e6:.0f} MB: {r['ingest_s']} s = "
            f"{r['mb_per_s']} MB/s (median of {len(r.get('runs', [0]))}; best {r.get('mb_per_s_best')}, "
            f"worst {r.get('mb_per_s_worst')}), {r['events_per_s'] / 1e6:.2f} M events/s ({r['ingest_over_wc']}x `wc -l` "
            f"{r['wc_l_s']} s); peak RSS {r['peak_rss_bytes'] / 1e6:.0f} MB native + "
            f"{(r['peak_rss_tree_bound_bytes'] - r['peak_rss_bytes']) / 1e6:.0f} MB Python = "
            f"{r['peak_rss_over_input']}x input; "
            f"{r['bytes_per_event']} B/event stored; summary p50 {r['summary']['p50_ms']} ms "
            f"p95 {r['summary']['p95_ms']} ms")
    dat = doc["trace_dat"]
    if "skipped" in dat:
        lines.append(f"  trace.dat: skipped ({dat['skipped']})")
    for d in dat.get("files", []):
        if "events" not in d:
            lines.append(f"  trace.dat: {json.dumps(d)}")
            continue
        report = d.get("trace_cmd_report")
        lines.append(f"  trace.dat {d['file']}: {d['events']} events, {d['input_bytes'] / 1e6:.1f} MB: "
                     f"{d['ingest']['wall_s']} s ({d['ingest']['mb_per_s']} MB/s)" +
                     (f"; `trace-cmd report` {report['wall_s']} s: ingest {d['trace_cmd_over_ingest']}x faster "
                      f"(CPU {d['trace_cmd_over_ingest_cpu']}x)" if isinstance(report, dict) else ""))
    peers = doc.get("against_peers") or {}
    if peers.get("trace_cmd_text_mb_per_s"):
        lines.append(f"  against peers in this run: trace-cmd renders text at {peers['trace_cmd_text_mb_per_s']} MB/s; "
                     f"the target is {peers['target_over_trace_cmd_text']}x that on the issue's machine; ingest: " +
                     ", ".join(f"{n} events {p['over_trace_cmd_text']}x "
                               f"({'met' if p['met_vs_trace_cmd_text'] else 'NOT met'})" for n, p in peers.items()
                               if isinstance(p, dict) and p.get("over_trace_cmd_text")))
    lines.append("  met: " + ", ".join(f"{k} {'yes' if v else ('n/a' if v is None else 'NO')}" for k, v in met.items()))
    return "\n".join(lines)


def bench_report(doc: dict[str, Any]) -> str:
    """The benchmark's figures next to its targets."""
    if "ftrace_text" in doc:
        return _ingest_bench(doc)
    if "native_events_per_s" in doc:
        targets = doc["targets"]
        return "\n".join([
            f"bench core: {doc['events']} events of {doc['workload']} on {doc['preset']} (best of {doc['repeat']})",
            f"  native {doc['native_events_per_s'] / 1e6:.2f} M events/s "
            f"(target >= {targets['native_events_per_s'] / 1e6:.0f} M)",
            f"  wasm   {doc['wasm_events_per_s'] / 1e6:.2f} M events/s, "
            f"{doc['wasm_over_native_time']:.2f}x native time (target <= {targets['wasm_over_native_time']}x)",
            f"  event stream hash {doc['event_stream_hash']}",
        ])
    return "\n".join([
        f"bench frame: {doc['frames']} frames of {doc['workload']} on {doc['preset']} "
        f"({doc['cpus']} cpus, {doc['tasks']} tasks), tick {doc['tick_ns'] / 1e6:g} ms simulated, "
        f"{doc['events_per_frame_mean']} events/frame",
        f"  p50 {doc['p50_ms']} ms  p95 {doc['p95_ms']} ms (target <= {doc['target_p95_ms']})  "
        f"max {doc['max_ms']} ms; frame_get + read p95 {doc['frame_read_p95_ms']} ms",
    ])


def ingest_summary(doc: dict[str, Any]) -> str:
    """What `kscope ingest` stored: id, format, counts by type, span, problems."""
    span_ms = (doc["t_last_ns"] - doc["t_first_ns"]) / 1e6
    lines = [
        f"trace {doc['trace_id']}: {doc['name']} ({doc['format']}), {doc['events']} events, "
        f"{doc['cpus']} CPUs, {doc['tasks']} tasks, {span_ms:.3f} ms",
        f"  kernel: {doc['kernel'] or '(not recorded)'}   stored: {doc['bytes_stored']} bytes "
        f"({doc['bytes_per_event']} B/event)",
    ]
    lines += [f"  {name:<24} {count}" for name, count in doc["by_type"].items()]
    if doc["malformed_lines"]:
        err = doc["first_error"] or {}
        lines.append(f"  malformed lines: {doc['malformed_lines']} (first: line {err.get('line')}: "
                     f"{err.get('message')})")
    if doc.get("token"):
        lines.append(f"  owner token: {doc['token']}")
    return "\n".join(lines)


def traces_table(traces: list[dict[str, Any]]) -> str:
    """One line per stored trace."""
    if not traces:
        return "no traces stored"
    rows = [f"{'id':<16}  {'format':<8}  {'events':>10}  {'cpus':>4}  name"]
    rows += [f"{t['id']:<16}  {t['format']:<8}  {t['events']:>10}  {t['cpus']:>4}  {t['name']}" for t in traces]
    return "\n".join(rows)


def query_table(result: dict[str, Any]) -> str:
    """A query's rows as tab-separated text under a header line."""
    lines = ["\t".join(result["columns"])]
    lines += ["\t".join("" if v is None else str(v) for v in row) for row in result["rows"]]
    if result.get("truncated"):
        lines.append(f"(truncated at {len(result['rows'])} rows)")
    return "\n".join(lines)
