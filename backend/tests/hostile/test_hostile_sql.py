"""Hostile SQL (issue 20, findings 1 and 7): results bounded in bytes, memory and time; slow
queries capped per token and overall, on threads of their own, so the rest of the API answers."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx

from .conftest import Uploaded
from .hostile_support import Watch

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
    assert took < 3 + 2, f"answered after {took:.1f} s (limit KSCOPE_SQL_TIMEOUT_S=3)"
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
    for query in ("SELECT * FROM read_parquet('nope.parquet')", "SELECT no_such_column FROM events",
                  "SELECT * FROM events JOIN read_csv('x.csv') USING (cpu)"):
        r = _sql(big_server, query)
        assert r.status_code == 400, r.text[:300]
        detail = r.json()["detail"]
        assert "/traces/" not in detail and "/data" not in detail, detail


def _slow_storm(up: Uploaded, count: int, tokens: list[Uploaded] | None = None) -> list[httpx.Response]:
    """`count` queries that each run until the time limit, all at once (one client per query)."""
    owners = tokens or [up]

    def one(i: int) -> httpx.Response:
        return _sql(owners[i % len(owners)], "SELECT count(*) FROM range(10000000000) a, range(10) b", timeout=120)

    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(one, range(count)))


def _timed_gets(url: str, headers: dict[str, str], stop: threading.Event, out: list[float]) -> None:
    with httpx.Client(timeout=60) as c:
        while not stop.is_set():
            t = time.perf_counter()
            c.get(url, headers=headers)
            out.append(time.perf_counter() - t)
            stop.wait(0.05)


def test_45_slow_queries_from_one_token_leave_the_api_answering(big_server: Uploaded) -> None:
    # Before: 45 slow queries took every worker thread; GET /api/traces took 10.8 s.
    lists: list[float] = []
    stop = threading.Event()
    lister = threading.Thread(target=_timed_gets, args=(f"{big_server.server.url}/api/traces",
                                                        big_server.headers(), stop, lists))
    with Watch(big_server.server) as watch:
        lister.start()
        answers = _slow_storm(big_server, 45)
        stop.set()
        lister.join()
    codes = sorted(r.status_code for r in answers)
    busy = [r for r in answers if r.status_code == 429]
    assert set(codes) <= {408, 429}, codes
    assert len(busy) >= 45 - 4, codes  # KSCOPE_SQL_PER_TOKEN=4 admitted (running or waiting)
    assert all(int(r.headers["Retry-After"]) >= 1 for r in busy)
    assert "KSCOPE_SQL_PER_TOKEN" in busy[0].json()["detail"]
    assert lists and max(lists) < 0.5, f"GET /api/traces took up to {max(lists):.2f} s ({len(lists)} samples)"
    watch.assert_within(RSS_BUDGET_MIB)


def test_slow_queries_from_many_tokens_queue_then_get_429(big_server: Uploaded, sim_trace) -> None:
    # 12 owners (anyone gets a token by uploading a trace), 3 slow queries each, at once:
    # KSCOPE_SQL_MAX_CONCURRENT (2) run, KSCOPE_SQL_QUEUE (8) wait, the rest get 429 at once.
    owners = []
    body = sim_trace.read_bytes()
    for i in range(12):
        r = httpx.post(f"{big_server.server.url}/api/traces?name=small{i}.txt", content=body, timeout=120)
        assert r.status_code == 201, r.text[:300]
        owners.append(Uploaded(big_server.server, r.json()["id"], r.json()["token"], r.json()["events"]))
    with Watch(big_server.server) as watch:
        answers = _slow_storm(big_server, 36, owners)
    codes = [r.status_code for r in answers]
    assert set(codes) <= {408, 429}, codes
    assert codes.count(408) <= 2 + 8, codes
    assert codes.count(429) >= 36 - 10, codes
    busy = next(r for r in answers if r.status_code == 429)
    assert busy.headers["Retry-After"].isdigit()
    watch.assert_within(RSS_BUDGET_MIB)
