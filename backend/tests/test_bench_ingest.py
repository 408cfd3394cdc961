"""`kscope bench ingest` with tiny sizes: one JSON document with the documented keys (no timing asserts)."""

import json
import subprocess

from conftest import KSCOPE


def test_bench_ingest_json(tmp_path) -> None:  # type: ignore[no-untyped-def]
    run = subprocess.run([str(KSCOPE), "bench", "ingest", "--events", "20000", "--big", "0", "--dat-events", "0",
                          "--json"],
                         capture_output=True, text=True, check=True)
    doc = json.loads(run.stdout)
    ((size, r),) = doc["ftrace_text"].items()
    assert r["events"] >= 20000 and r["wc_lines"] > r["events"]
    assert {"mb_per_s", "events_per_s", "ingest_over_wc", "peak_rss_bytes", "peak_rss_over_input",
            "bytes_per_event", "summary"} <= set(r)
    assert set(doc["met"]) == set(doc["targets"]) and doc["met"]["summary_p95_ms_10m"] is None
    assert "trace_dat" in doc and "ingest_over_wc" in r
    assert doc["startup"]["cpu_s"] > 0 and doc["arithmetic"]["startup_cpu_s"] == doc["startup"]["cpu_s"]
    for dat in doc["trace_dat"].get("files", []):
        if "skipped" not in dat:
            assert {"ingest", "wc_l", "trace_cmd_report"} <= set(dat) and dat["ingest"]["cpu_s"] > 0
