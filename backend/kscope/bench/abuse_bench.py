"""`kscope bench abuse`: the load a server must hold (issue 20, "load held").

Starts its own `kscope serve` on 127.0.0.1 (a free port, a temp data dir), uploads one
trace for the queries, opens a room with its presenter, then at once:

- `uploads` concurrent uploads, each a distinct ftrace text made here with its own token;
- `followers` follower sockets joining the room while the presenter sends states;
- `queries` SQL queries over the first trace;

and probes GET /api/health every 50 ms throughout (from its own process, so the bench's
event loop reading the sockets does not delay the probe). Then it checks:

- errors: transport failures, or answers other than success or a clean refusal (a 4xx,
  or 503 with Retry-After, each with a `detail`) — must be 0;
- nothing lost: each upload answered 201 is listed exactly once under its token with the
  events it was made with, each refused one left nothing under its token; every follower
  received the presenter's last state;
- health p99 < 0.5 s.

Every follower connects from 127.0.0.1, so the server runs with
KSCOPE_ROOM_MAX_FOLLOWERS_PER_ADDRESS raised to let them in (the per-address cap is
tested by backend/tests/hostile/test_hostile_rooms.py, not here). The figures include
the bench client itself, on the same cores as the server.
"""

import asyncio
import json
import os
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

from kscope.bench import local_servers

HEALTH_P99_LIMIT_S = 0.5
HEALTH_EVERY_S = 0.05
CONNECT_BATCH = 50
LINE = ("{comm:>16}-{pid:<5} [{cpu:03d}] d..2. {sec}.{usec:06d}: sched_switch: prev_comm={comm} prev_pid={pid} "
        "prev_prio=120 prev_state=S ==> next_comm={nxt_comm} next_pid={nxt} next_prio=120\n")


class BenchFailed(RuntimeError):
    pass


def write_ftrace(path: Path, events: int, cpus: int = 8, pid_base: int = 1000) -> Path:
    """`events` sched_switch lines over `cpus` CPUs, 1 us apart (~170 bytes a line)."""
    block = 100_000
    with open(path, "w") as out:
        out.write("# tracer: nop\n#\n")
        for start in range(0, events, block):
            out.write("".join(
                LINE.format(comm=f"w{pid_base + i % 97}", pid=pid_base + i % 97, cpu=i % cpus,
                            sec=100 + i // 1_000_000, usec=i % 1_000_000, nxt=pid_base + (i + 1) % 97,
                            nxt_comm=f"w{pid_base + (i + 1) % 97}")
                for i in range(start, min(events, start + block))))
    return path


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def _cpu_s(pid: int) -> tuple[float, float]:
    """User + system CPU seconds of a process, and of its children it waited for (/proc/PID/stat 14-17)."""
    fields = [int(x) for x in Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[11:15]]
    tick = os.sysconf("SC_CLK_TCK")
    return (fields[0] + fields[1]) / tick, (fields[2] + fields[3]) / tick


def _rss_mb(pid: int) -> tuple[float, float]:
    """(current RSS, peak RSS) of a process in MB, from /proc/PID/status."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0]) / 1024
    return round(fields.get("VmRSS", 0.0), 1), round(fields.get("VmHWM", 0.0), 1)


# The health probe runs in its own process: in this one, the bench's event loop reading 300
# sockets would hold the GIL and delay the probe's own reads (measuring the client, not the server).
_PROBE = r"""
import json, sys, threading, time
import httpx
base, every = sys.argv[1], float(sys.argv[2])
stop = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
latencies, failures = [], []
with httpx.Client(timeout=30) as client:
    while not stop.is_set():
        t0 = time.perf_counter()
        try:
            r = client.get(base + "/api/health")
            if r.status_code != 200:
                failures.append("health answered %d" % r.status_code)
        except httpx.HTTPError as err:
            failures.append("health: %s: %s" % (type(err).__name__, err))
        latencies.append(time.perf_counter() - t0)
        stop.wait(every)
print(json.dumps({"latencies": latencies, "failures": failures}))
"""


class _HealthProbe:
    """GET /api/health every HEALTH_EVERY_S from a child process until finish(); latencies in s."""

    def __init__(self, base: str) -> None:
        import subprocess

        self.proc = subprocess.Popen([sys.executable, "-c", _PROBE, base, str(HEALTH_EVERY_S)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.latencies: list[float] = []
        self.failures: list[str] = []

    def finish(self) -> None:
        out, _ = self.proc.communicate("stop\n", timeout=60)
        try:
            result = json.loads(out)
        except ValueError:
            self.failures.append(f"the health probe printed no result (exit {self.proc.returncode})")
            return
        self.latencies, self.failures = result["latencies"], result["failures"]


# 429s a query is retried after its Retry-After before it counts as refused (the page: 3).
SQL_RETRIES = 8

def _clean_refusal(r: httpx.Response) -> bool:
    """A refusal the client can act on: 4xx, or 503 with Retry-After, with a JSON detail."""
    try:
        detail = r.json().get("detail")
    except ValueError:
        return False
    if not detail:
        return False
    return 400 <= r.status_code < 500 or (r.status_code == 503 and "retry-after" in r.headers)


async def _upload(http: httpx.AsyncClient, base: str, path: Path, events: int) -> dict[str, Any]:
    token = uuid.uuid4().hex
    t0 = time.perf_counter()
    outcome: dict[str, Any] = {"name": path.name, "token": token, "events_sent": events}
    try:
        r = await http.post(f"{base}/api/traces", params={"name": path.name}, content=path.read_bytes(),
                            headers={"X-Kscope-Token": token})
        outcome["status"] = r.status_code
        if r.status_code == 201:
            outcome["id"] = r.json()["id"]
        elif not _clean_refusal(r):
            outcome["error"] = f"{r.status_code}: {r.text[:200]}"
        else:
            outcome["refused"] = r.json()["detail"]
    except httpx.HTTPError as err:
        outcome["error"] = f"{type(err).__name__}: {err}"
    outcome["seconds"] = time.perf_counter() - t0
    return outcome


async def _query(http: httpx.AsyncClient, base: str, trace_id: str, token: str, n: int) -> dict[str, Any]:
    sql = ("SELECT cpu, next_pid % 7 AS k, count(*) AS n, min(ts_ns) AS first, max(ts_ns) AS last "
           f"FROM events WHERE ts_ns % 3 <> {n % 3} GROUP BY cpu, k ORDER BY n DESC")
    t0 = time.perf_counter()
    retries = 0
    try:
        # As the page's client does (core/shared/fetch_retry.ts): a 429 is retried after the
        # Retry-After it names, a few times; what is still refused then counts as refused.
        while True:
            r = await http.post(f"{base}/api/traces/{trace_id}/sql", json={"sql": sql},
                                headers={"X-Kscope-Token": token})
            if r.status_code != 429 or retries >= SQL_RETRIES:
                break
            retries += 1
            await asyncio.sleep(min(float(r.headers.get("retry-after", "1") or 1), 5.0))
        if r.status_code == 200:
            outcome: dict[str, Any] = {"ok": True, "rows": len(r.json()["rows"])}
        elif _clean_refusal(r):
            outcome = {"refused": r.json()["detail"], "status": r.status_code}
        else:
            outcome = {"error": f"{r.status_code}: {r.text[:200]}"}
    except httpx.HTTPError as err:
        outcome = {"error": f"{type(err).__name__}: {err}"}
    outcome["seconds"] = time.perf_counter() - t0
    outcome["retries"] = retries
    return outcome


async def _follower(url: str, last: dict[str, int], ready: asyncio.Event, failures: list[str]) -> None:
    import websockets

    try:
        async with websockets.connect(url, max_queue=None, open_timeout=60) as ws:
            welcome = json.loads(await ws.recv())
            if welcome["type"] != "welcome":
                failures.append(f"follower refused: {welcome}")
                ready.set()
                return
            await ws.send(json.dumps({"type": "hello", "since": 0}))
            ready.set()
            async for text in ws:
                frame = json.loads(text)
                if frame["type"] == "state":
                    last[url] = max(last.get(url, 0), frame["seq"])
    except asyncio.CancelledError:
        raise
    except Exception as err:
        failures.append(f"follower: {type(err).__name__}: {err}")
        ready.set()


async def _room_load(http: httpx.AsyncClient, base: str, followers: int, states: int) -> dict[str, Any]:
    import websockets

    room = (await http.post(f"{base}/api/rooms", json={"lesson": "bench"})).json()
    code = room["code"]
    ws_base = base.replace("http://", "ws://")
    last: dict[str, int] = {}
    failures: list[str] = []
    tasks: list[asyncio.Task[None]] = []
    t0 = time.perf_counter()
    async with websockets.connect(f"{ws_base}/api/rooms/{code}/ws?role=presenter&token={room['presenter_token']}",
                                  max_queue=None) as presenter:
        drain = asyncio.create_task(_drain(presenter))
        sender = asyncio.create_task(_send_states(presenter, states))
        for batch in range(0, followers, CONNECT_BATCH):
            readies = []
            for _ in range(batch, min(followers, batch + CONNECT_BATCH)):
                ready = asyncio.Event()
                readies.append(ready)
                url = f"{ws_base}/api/rooms/{code}/ws?role=follower&client={uuid.uuid4().hex}"
                tasks.append(asyncio.create_task(_follower(url, last, ready, failures)))
            await asyncio.wait([asyncio.create_task(r.wait()) for r in readies], timeout=60)
        connect_s = time.perf_counter() - t0
        final_seq = await sender
        deadline = time.perf_counter() + 10
        while time.perf_counter() < deadline and sum(1 for s in last.values() if s >= final_seq) < followers:
            await asyncio.sleep(0.05)
        drain.cancel()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    got_last = sum(1 for s in last.values() if s >= final_seq)
    return {"followers": followers, "connected": len(last) if last else 0, "connect_s": round(connect_s, 2),
            "states_sent": states, "final_seq": final_seq, "got_final_state": got_last,
            "missed_final_state": followers - got_last, "errors": failures[:5], "error_count": len(failures)}


async def _send_states(presenter: Any, states: int) -> int:
    for step in range(states):
        await presenter.send(json.dumps({"type": "state", "state": {"lesson": "bench", "step": step}}))
        await asyncio.sleep(0.1)
    return states


async def _drain(ws: Any) -> None:
    async for _ in ws:
        pass


async def _storm(base: str, first: dict[str, Any], files: list[tuple[Path, int]], followers: int,
                 queries: int) -> dict[str, Any]:
    limits = httpx.Limits(max_connections=len(files) + queries + 10)
    async with httpx.AsyncClient(timeout=600, limits=limits) as http:
        t0 = time.perf_counter()
        uploads = asyncio.gather(*(_upload(http, base, p, n) for p, n in files))
        sql = asyncio.gather(*(_query(http, base, first["id"], first["token"], i) for i in range(queries)))
        rooms = _room_load(http, base, followers, states=30)
        up, q, room = await asyncio.gather(uploads, sql, rooms)
        storm_s = time.perf_counter() - t0
        # Nothing lost: each upload's token lists exactly what it was answered.
        for outcome in up:
            r = await http.get(f"{base}/api/traces", headers={"X-Kscope-Token": outcome["token"]})
            listed = r.json()
            if "id" in outcome:
                matching = [t for t in listed if t["id"] == outcome["id"]]
                outcome["stored_times"] = len(matching)
                outcome["events_stored"] = matching[0]["events"] if matching else 0
                outcome["lost"] = len(matching) != 1 or len(listed) != 1 or \
                    outcome["events_stored"] != outcome["events_sent"]
            else:
                outcome["lost"] = bool(listed)  # a refused upload must leave nothing behind
    return {"uploads": up, "sql": q, "room": room, "storm_s": storm_s}


def run(uploads: int = 50, followers: int = 300, queries: int = 20, upload_events: int = 10_000,
        sql_events: int = 200_000, progress: Any = None) -> dict[str, Any]:
    """The document `kscope bench abuse --json` prints."""
    say = progress or (lambda m: None)
    with tempfile.TemporaryDirectory(prefix="kscope-bench-abuse-") as tmp_name:
        tmp = Path(tmp_name)
        (tmp / "data").mkdir()
        say(f"making {uploads} upload files of {upload_events} events and a {sql_events}-event trace")
        files = [(write_ftrace(tmp / f"up-{i:03d}.txt", upload_events, pid_base=1000 + 100 * i), upload_events)
                 for i in range(uploads)]
        sql_trace = write_ftrace(tmp / "sql.txt", sql_events)
        port = local_servers.free_port()
        env = {**os.environ, "KSCOPE_DATA_DIR": str(tmp / "data"), "KSCOPE_REDIS_URL": "",
               "KSCOPE_ROOM_MAX_FOLLOWERS": str(followers + 10),
               "KSCOPE_ROOM_MAX_FOLLOWERS_PER_ADDRESS": str(followers + 10)}
        argv = [sys.executable, "-c", "from kscope.cli import main; raise SystemExit(main())",
                "serve", "--port", str(port)]
        base = f"http://127.0.0.1:{port}"
        try:
            with local_servers.process(argv, port, f"kscope serve --port {port}", env) as pid:
                with httpx.Client(timeout=120) as c:
                    r = c.post(f"{base}/api/traces", params={"name": "sql.txt"}, content=sql_trace.read_bytes())
                    if r.status_code != 201:
                        raise BenchFailed(f"the SQL trace was not stored: {r.status_code} {r.text[:200]}")
                    first = {"id": r.json()["id"], "token": r.json()["token"]}
                rss_before, _ = _rss_mb(pid)
                cpu_before, client_before = _cpu_s(pid), time.process_time()
                say(f"storm: {uploads} uploads + {followers} followers + {queries} SQL queries at once")
                probe = _HealthProbe(base)
                time.sleep(0.5)  # the probe's interpreter is up before the storm starts
                rss_samples: list[float] = []
                sampling = threading.Event()

                def sample() -> None:
                    while not sampling.wait(0.1):
                        rss_samples.append(_rss_mb(pid)[0])

                sampler = threading.Thread(target=sample, daemon=True)
                sampler.start()
                try:
                    result = asyncio.run(_storm(base, first, files, followers, queries))
                finally:
                    probe.finish()
                    sampling.set()
                    sampler.join()
                rss_after, rss_peak = _rss_mb(pid)
                cpu_after = _cpu_s(pid)
                cpu = {"server_s": round(cpu_after[0] - cpu_before[0], 2),
                       "ingest_processes_s": round(cpu_after[1] - cpu_before[1], 2),
                       "bench_client_s": round(time.process_time() - client_before, 2)}
        except local_servers.ServerFailed as err:
            raise BenchFailed(str(err)) from err
    return _document(result, probe, uploads, followers, queries, upload_events, sql_events,
                     {"before": rss_before, "after": rss_after, "peak_sampled": max(rss_samples, default=0.0),
                      "peak_hwm": rss_peak}, cpu)


def _document(result: dict[str, Any], probe: _HealthProbe, uploads: int, followers: int, queries: int,
              upload_events: int, sql_events: int, rss: dict[str, float], cpu: dict[str, float]) -> dict[str, Any]:
    up, q, room = result["uploads"], result["sql"], result["room"]
    upload_errors = [o["error"] for o in up if "error" in o]
    sql_errors = [o["error"] for o in q if "error" in o]
    lat = probe.latencies
    health = {"samples": len(lat), "p50_s": round(_percentile(lat, 0.5), 4), "p99_s": round(_percentile(lat, 0.99), 4),
              "max_s": round(max(lat, default=float("nan")), 4), "failures": len(probe.failures)}
    errors = len(upload_errors) + len(sql_errors) + room["error_count"] + len(probe.failures)
    lost = sum(1 for o in up if o.get("lost")) + room["missed_final_state"]
    checks = {
        "zero_errors": errors == 0,
        "nothing_lost": lost == 0,
        f"health_p99_under_{HEALTH_P99_LIMIT_S}_s": bool(lat) and health["p99_s"] < HEALTH_P99_LIMIT_S,
    }
    up_times = [o["seconds"] for o in up]
    q_times = [o["seconds"] for o in q]
    return {
        "load": {"uploads": uploads, "upload_events": upload_events, "followers": followers, "sql_queries": queries,
                 "sql_trace_events": sql_events},
        "storm_s": round(result["storm_s"], 2),
        "uploads": {"stored": sum(1 for o in up if "id" in o), "refused": sum(1 for o in up if "refused" in o),
                    "errors": len(upload_errors), "lost": sum(1 for o in up if o.get("lost")),
                    "duplicates": sum(1 for o in up if o.get("stored_times", 1) > 1),
                    "p50_s": round(_percentile(up_times, 0.5), 2), "max_s": round(max(up_times, default=0.0), 2),
                    "first_errors": upload_errors[:5]},
        "sql": {"ok": sum(1 for o in q if o.get("ok")), "refused": sum(1 for o in q if "refused" in o),
                "retries_after_429": sum(o.get("retries", 0) for o in q),
                "errors": len(sql_errors), "p50_s": round(_percentile(q_times, 0.5), 2),
                "max_s": round(max(q_times, default=0.0), 2), "first_errors": sql_errors[:5]},
        "room": room,
        "health": health,
        "server_rss_mb": rss,
        # CPU used during the storm: the server process, the kscope-ingest processes it ran, and
        # this bench's own process (the clients, on the same cores).
        "cpu": cpu,
        "errors": errors,
        "lost": lost,
        "checks": checks,
        "passed": all(checks.values()),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "cpus": os.cpu_count(),
        "measure": "one kscope serve on 127.0.0.1 (memory broker), the bench client on the same cores; "
                   "health probed every 50 ms from its own process",
    }


def render(doc: dict[str, Any]) -> str:
    load, up, sql, room, health = doc["load"], doc["uploads"], doc["sql"], doc["room"], doc["health"]
    lines = [
        f"bench abuse: {load['uploads']} uploads + {load['followers']} followers + {load['sql_queries']} SQL "
        f"queries at once, {doc['storm_s']} s",
        f"  uploads: {up['stored']} stored, {up['refused']} refused cleanly, {up['errors']} errors, "
        f"{up['lost']} lost, {up['duplicates']} duplicated (p50 {up['p50_s']} s, max {up['max_s']} s)",
        f"  sql: {sql['ok']} ok, {sql['refused']} refused cleanly, {sql['errors']} errors "
        f"(p50 {sql['p50_s']} s, max {sql['max_s']} s)",
        f"  room: {room['connected']}/{room['followers']} followers connected in {room['connect_s']} s, "
        f"{room['got_final_state']} got the last state, {room['error_count']} errors",
        f"  health: {health['samples']} probes, p50 {health['p50_s'] * 1000:.1f} ms, "
        f"p99 {health['p99_s'] * 1000:.1f} ms, max {health['max_s'] * 1000:.1f} ms, {health['failures']} failures",
        f"  server RSS: {doc['server_rss_mb']['before']} MB before, peak {doc['server_rss_mb']['peak_hwm']} MB; "
        f"CPU during the storm: server {doc['cpu']['server_s']} s, kscope-ingest {doc['cpu']['ingest_processes_s']} s, "
        f"bench clients {doc['cpu']['bench_client_s']} s; "
        f"load average {doc['load_average_1m']} on {doc['cpus']} CPUs",
        "  " + ", ".join(f"{name}: {'yes' if ok else 'NO'}" for name, ok in doc["checks"].items()),
    ]
    return "\n".join(lines)
