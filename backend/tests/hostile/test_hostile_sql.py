"""Hostile SQL (issue 20, findings 1 and 7): results bounded in bytes, memory and time; slow
queries capped per token and overall, on threads of their own, so the rest of the API answers."""

import http.client
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from pathlib import Path
from typing import Any

import httpx

from .conftest import Uploaded
from .hostile_support import Server, Watch

# The server's memory (its process and the SQL child processes) may grow by at most this much
# during one probe: one SQL child's limit (KSCOPE_SQL_MEMORY_BYTES, 256 MiB) is inside it.
RSS_BUDGET_MIB = 400


def _sql(up: Uploaded, query: str, timeout: float = 120, client: httpx.Client | None = None) -> httpx.Response:
    c = client or httpx
    return c.post(f"{up.server.url}/api/traces/{up.trace_id}/sql", json={"sql": query},
                  headers=up.headers(), timeout=timeout)


def test_a_gigabyte_result_is_refused_within_the_time_limit_and_memory_budget(big_server: Uploaded) -> None:
    # Before: 1 GB answered after ~25 s, server RSS 0.17 -> 4.08 GB.
    with Watch(big_server.server) as watch:
        t = time.monotonic()
        r = _sql(big_server, "SELECT repeat('x', 10000000) FROM range(100)")
        took = time.monotonic() - t
    assert r.status_code == 422, r.text[:300]
    assert "KSCOPE_SQL_MEMORY_BYTES" in r.json()["detail"] or "KSCOPE_SQL_MAX_BYTES" in r.json()["detail"]
    assert took < 10 + 2, f"answered after {took:.1f} s (limit KSCOPE_SQL_TIMEOUT_S=10, + 1 s grace)"
    watch.assert_within(RSS_BUDGET_MIB)


def test_a_result_over_the_byte_limit_gets_a_clear_422(big_server: Uploaded) -> None:
    # 100 k rows (the row limit) of 1 kB each: 100 MB of JSON, over KSCOPE_SQL_MAX_BYTES (32 MiB).
    with Watch(big_server.server) as watch:
        r = _sql(big_server, "SELECT repeat('y', 1000) AS wide FROM range(100000)")
    assert r.status_code == 422, r.text[:300]
    detail = r.json()["detail"]
    assert "byte limit (KSCOPE_SQL_MAX_BYTES)" in detail and "LIMIT" in detail
    watch.assert_within(RSS_BUDGET_MIB)


def test_a_blob_result_is_text_not_a_500(big_server: Uploaded) -> None:
    r = _sql(big_server, "SELECT '\\xff'::BLOB AS b, 'a\\x00b'::BLOB AS c, 1.5 AS d, 'NaN'::DOUBLE AS e")
    assert r.status_code == 200, r.text[:300]
    assert r.json()["rows"] == [["\\xFF", "a\\x00b", 1.5, "NaN"]]


def test_sql_error_texts_name_no_server_path(big_server: Uploaded) -> None:
    # A guard, not a regression test: DuckDB's errors never named the trace's folder (it passed
    # before the fix too); the server now also cuts that folder out of any error text.
    for query in ("SELECT * FROM read_parquet('nope.parquet')", "SELECT no_such_column FROM events",
                  "SELECT * FROM events JOIN read_csv('x.csv') USING (cpu)"):
        r = _sql(big_server, query)
        assert r.status_code == 400, r.text[:300]
        detail = r.json()["detail"]
        assert "/traces/" not in detail and "/data" not in detail, detail


def test_sql_reads_no_server_path_from_duckdb_itself(big_server: Uploaded) -> None:
    # Before, the view's text (duckdb_views()), current_setting('allowed_directories') and the
    # temp/secret directory settings named the trace's folder in the store and the server's
    # home; the query now sees only a private hard-linked copy's folder under the temp dir.
    query = ("SELECT (SELECT string_agg(sql, ' ') FROM duckdb_views()) || ' ' || "
             "(SELECT string_agg(name || '=' || value, ' ') FROM duckdb_settings()) || ' ' || "
             "current_setting('allowed_directories')::VARCHAR AS seen")
    r = _sql(big_server, query)
    assert r.status_code == 200, r.text[:300]
    seen = r.json()["rows"][0][0]
    assert "read_parquet" in seen and "kscope-sql-" in seen, seen
    data_dir = str(big_server.server.data_dir.resolve())
    assert data_dir not in seen and big_server.trace_id not in seen and "/root" not in seen, seen
    count = _sql(big_server, "SELECT count(*) FROM events").json()["rows"][0][0]
    assert count == big_server.events
    # the private folders (links to this trace's events file) are gone once the queries ended
    import tempfile
    inode = next(big_server.server.data_dir.rglob(f"{big_server.trace_id}/events.parquet")).stat().st_ino
    left = [p for d in Path(tempfile.gettempdir()).glob("kscope-sql-*") for p in d.glob("*.parquet")
            if p.stat().st_ino == inode]
    assert not left, left


STORM_TIMEOUT_S = 2  # KSCOPE_SQL_TIMEOUT_S of the storm's server: each slow query ends there


def _owners(server: Server, trace: Path, count: int) -> list[Uploaded]:
    """`count` owners, each with one trace (anyone gets a token by uploading)."""
    owners = []
    for i in range(count):
        r = httpx.post(f"{server.url}/api/traces?name=small{i}.txt", content=trace.read_bytes(), timeout=120)
        assert r.status_code == 201, r.text[:300]
        owners.append(Uploaded(server, r.json()["id"], r.json()["token"], r.json()["events"]))
    return owners


class _Answer:
    """What a storm query got back: status, headers, body (parsed by .json())."""

    def __init__(self, status: int, headers: Any, body: bytes) -> None:
        self.status_code, self.headers, self.body = status, headers, body

    def json(self) -> Any:
        return json.loads(self.body)


def _slow_storm(owners: list[Uploaded], count: int) -> list[_Answer]:
    """`count` queries that each run until the time limit, all at once: each client opens its
    connection first, then all send together (a barrier), so every query arrives while the
    first ones still run. Plain http.client: 45 httpx clients take seconds to set up."""
    barrier = threading.Barrier(count)
    query = json.dumps({"sql": "SELECT count(*) FROM range(10000000000) a, range(10) b"})

    def one(i: int) -> _Answer:
        up = owners[i % len(owners)]
        host, port = up.server.url.removeprefix("http://").split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=120)
        try:
            conn.connect()
            barrier.wait(60)
            conn.request("POST", f"/api/traces/{up.trace_id}/sql", body=query,
                         headers={"Content-Type": "application/json", **up.headers()})
            r = conn.getresponse()
            return _Answer(r.status, r.msg, r.read())  # r.msg: headers, case-insensitive
        finally:
            conn.close()

    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(one, range(count)))


def test_45_slow_queries_from_one_token_leave_the_api_answering(server_factory, sim_trace: Path) -> None:
    # Before: 45 slow queries took every worker thread; GET /api/traces took 10.8 s.
    server = server_factory(sql_timeout_s=STORM_TIMEOUT_S)
    (owner,) = _owners(server, sim_trace, 1)
    with Watch(server, also={"/api/traces": owner.token}) as watch:
        answers = _slow_storm([owner], 45)
    print(watch.report())
    codes = sorted(r.status_code for r in answers)
    busy = [r for r in answers if r.status_code == 429]
    assert set(codes) <= {408, 429}, codes
    assert len(busy) >= 45 - 8, codes  # KSCOPE_SQL_PER_TOKEN=8 admitted (running or waiting)
    assert all(int(r.headers["Retry-After"]) >= 1 for r in busy)
    assert "KSCOPE_SQL_PER_TOKEN" in busy[0].json()["detail"]
    watch.assert_within(RSS_BUDGET_MIB)  # /api/health and /api/traces each under 0.5 s


def test_slow_queries_from_many_tokens_queue_then_get_429(server_factory, sim_trace: Path) -> None:
    # 4 owners, 3 slow queries each, at once (under the per-token cap): KSCOPE_SQL_MAX_CONCURRENT
    # (2) run, KSCOPE_SQL_QUEUE (2 on this server) wait, the rest get 429 at once.
    server = server_factory(sql_timeout_s=STORM_TIMEOUT_S, sql_queue=2)
    owners = _owners(server, sim_trace, 4)
    with Watch(server) as watch:
        answers = _slow_storm(owners, 12)
    print(watch.report())
    codes = [r.status_code for r in answers]
    assert set(codes) <= {408, 429}, codes
    assert codes.count(408) <= 2 + 2, codes
    busy = [r for r in answers if r.status_code == 429]
    assert len(busy) >= 12 - 4, codes
    assert all(r.headers["Retry-After"].isdigit() for r in busy)
    assert "KSCOPE_SQL_QUEUE" in busy[0].json()["detail"]
    watch.assert_within(RSS_BUDGET_MIB)
