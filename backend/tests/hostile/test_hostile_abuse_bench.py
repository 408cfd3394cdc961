"""A small run of `kscope bench abuse` (the full one: 50 uploads + 300 followers + 20 queries,
run by hand): its checks hold and its figures are there. Its own numbers are not judged
here beyond the checks: figures belong to the benchmark, not to a timed test."""

import json
import subprocess
import sys

from kscope.bench import abuse_bench


def test_abuse_bench_small_run_passes_its_checks() -> None:
    doc = abuse_bench.run(uploads=4, followers=12, queries=3, upload_events=2_000, sql_events=5_000)
    assert doc["load"] == {"uploads": 4, "upload_events": 2_000, "followers": 12, "sql_queries": 3,
                           "sql_trace_events": 5_000}
    assert doc["errors"] == 0 and doc["lost"] == 0, json.dumps(doc, indent=1)[:3000]
    assert doc["uploads"]["stored"] + doc["uploads"]["refused"] == 4
    assert doc["uploads"]["duplicates"] == 0
    assert doc["sql"]["ok"] + doc["sql"]["refused"] == 3
    assert doc["room"]["got_final_state"] == 12
    assert doc["health"]["samples"] > 0 and doc["health"]["failures"] == 0
    assert set(doc["checks"]) == {"zero_errors", "nothing_lost", "health_p99_under_0.5_s"}
    assert "bench abuse: 4 uploads + 12 followers + 3 SQL" in abuse_bench.render(doc)


def test_abuse_bench_is_a_cli_target() -> None:
    out = subprocess.run([sys.executable, "-c", "from kscope.cli import main; raise SystemExit(main())",
                          "bench", "--help"], capture_output=True, text=True, check=True).stdout
    assert "abuse" in out and "--uploads" in out and "--queries" in out
