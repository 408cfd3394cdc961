"""`kscope bench rooms`: how long a presenter's step takes to reach every follower.

Starts its own servers on 127.0.0.1 (free ports): one `kscope serve` (memory broker),
and/or two `kscope serve` sharing a private redis-server (`--save '' --appendonly no`,
temp dir). Opens one room, connects N follower WebSockets (spread evenly over the
backends) and a presenter (on the first backend), then the presenter publishes
`steps` states, one every `interval_ms`. For each state and each follower, latency =
the follower's receive time - the presenter's send time, both read from this
process's monotonic clock (so one clock, no skew). It is end to end: the server's
fan-out, loopback, and this client's own event loop reading 300 sockets (one Python
process on the same cores as the servers), which makes the figure an upper bound of
what a follower on its own machine would see. `server_to_follower_*` splits off the
part after the server accepted the state (its `sent_at_ms`, wall clock of the same
host, ms resolution): fan-out, Redis pub/sub for 2 backends, loopback, this client.

With no --backends, runs 1 then 2 backends and reports the ratio of their p99s.
"""

import asyncio
import json
import os
import shutil
import sys
import time
import uuid
from contextlib import ExitStack, contextmanager
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from kscope.bench import local_servers

TARGET_P99_MS = 100  # issue 8: 300 followers, one backend, loopback
CONNECT_BATCH = 50  # follower sockets opened concurrently


class BenchFailed(RuntimeError):
    pass


@contextmanager
def _redis() -> Iterator[str]:
    exe = shutil.which("redis-server")
    if exe is None:
        raise BenchFailed("redis-server not found: 2 backends need it (scripts/setup.sh installs the Debian "
                          "package redis-server)")
    with local_servers.redis_server(exe, prefix="kscope-bench-redis-") as url:
        yield url


@contextmanager
def _backends(count: int, followers: int) -> Iterator[tuple[list[str], list[int]]]:
    with ExitStack() as stack:
        # Every follower comes from 127.0.0.1: the per-address cap must let them all in.
        env = {**os.environ, "KSCOPE_ROOM_MAX_FOLLOWERS": str(followers + 10),
               "KSCOPE_ROOM_MAX_FOLLOWERS_PER_ADDRESS": str(followers + 10), "KSCOPE_REDIS_URL": ""}
        urls, pids = [], []
        try:
            if count > 1:
                env["KSCOPE_REDIS_URL"] = stack.enter_context(_redis())
            for _ in range(count):
                port = local_servers.free_port()
                argv = [sys.executable, "-c", "from kscope.cli import main; raise SystemExit(main())",
                        "serve", "--port", str(port)]
                pids.append(stack.enter_context(local_servers.process(argv, port, f"kscope serve --port {port}",
                                                                      env)))
                urls.append(f"127.0.0.1:{port}")
        except local_servers.ServerFailed as err:
            raise BenchFailed(str(err)) from err
        yield urls, pids


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds a process has used (/proc/PID/stat fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _percentile(sorted_ms: list[float], q: float) -> float:
    if not sorted_ms:
        return float("nan")
    index = min(len(sorted_ms) - 1, max(0, round(q * (len(sorted_ms) - 1))))
    return round(sorted_ms[index], 2)


async def _follower(url: str, received: dict[int, list[float]], fanout: list[float], ready: asyncio.Event) -> None:
    """Records when each state arrives (and how long after the server accepted it), until cancelled."""
    import websockets

    async with websockets.connect(f"{url}&client={uuid.uuid4().hex}", max_queue=None) as ws:
        await ws.recv()  # welcome
        ready.set()
        async for text in ws:
            now = time.perf_counter()
            wall_ms = time.time() * 1000
            frame = json.loads(text)
            if frame["type"] == "state":
                received.setdefault(frame["state"]["step"], []).append(now)
                fanout.append(wall_ms - frame["sent_at_ms"])


async def _one_run(backends: list[str], pids: list[int], followers: int, steps: int,
                   interval_ms: float) -> dict[str, Any]:
    import websockets

    async with httpx.AsyncClient() as http:
        room = (await http.post(f"http://{backends[0]}/api/rooms", json={"lesson": "bench"})).json()
    code = room["code"]
    received: dict[int, list[float]] = {}
    fanout: list[float] = []  # server accepted the state (sent_at_ms) -> follower received, wall clock ms
    tasks: list[asyncio.Task[None]] = []
    started = time.perf_counter()
    for batch in range(0, followers, CONNECT_BATCH):
        readies = []
        for i in range(batch, min(followers, batch + CONNECT_BATCH)):
            ready = asyncio.Event()
            readies.append(ready)
            url = f"ws://{backends[i % len(backends)]}/api/rooms/{code}/ws?role=follower"
            tasks.append(asyncio.create_task(_follower(url, received, fanout, ready)))
        waiting = [asyncio.create_task(r.wait()) for r in readies]
        finished, _ = await asyncio.wait(waiting, timeout=30)
        failed = [t for t in tasks if t.done() and t.exception() is not None]
        if failed:
            raise BenchFailed(f"a follower could not connect: {failed[0].exception()}")
        if len(finished) != len(waiting):
            raise BenchFailed("followers did not connect within 30 s")
    connect_s = time.perf_counter() - started

    sent: dict[int, float] = {}
    presenter_url = f"ws://{backends[0]}/api/rooms/{code}/ws?role=presenter&token={room['presenter_token']}"
    async with websockets.connect(presenter_url, max_queue=None) as presenter:
        drain = asyncio.create_task(_drain(presenter))
        await asyncio.sleep(0.5)  # the followers-count frames settle
        cpu0 = [_cpu_s(pid) for pid in pids], time.process_time()
        for step in range(steps):
            frame = json.dumps({"type": "state", "state": {"lesson": "bench", "step": step, "toggles": {}}})
            sent[step] = time.perf_counter()
            await presenter.send(frame)
            await asyncio.sleep(interval_ms / 1000)
        deadline = time.perf_counter() + 5
        while len(received.get(steps - 1, [])) < followers and time.perf_counter() < deadline:
            await asyncio.sleep(0.02)
        drain.cancel()
        cpu1 = [_cpu_s(pid) for pid in pids], time.process_time()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)

    latencies = sorted((t - sent[step]) * 1000 for step, times in received.items() for t in times)
    expected = steps * followers
    return {
        "backends": len(backends),
        "p50_ms": _percentile(latencies, 0.50),
        "p95_ms": _percentile(latencies, 0.95),
        "p99_ms": _percentile(latencies, 0.99),
        "max_ms": round(latencies[-1], 2) if latencies else float("nan"),
        "mean_ms": round(sum(latencies) / len(latencies), 2) if latencies else float("nan"),
        "server_to_follower_p50_ms": _percentile(sorted(fanout), 0.50),
        "server_to_follower_p99_ms": _percentile(sorted(fanout), 0.99),
        # CPU per broadcast (whole steps phase / steps): what the figures cost when a core is free.
        "server_cpu_ms_per_step": round(1000 * sum(b - a for a, b in zip(cpu0[0], cpu1[0])) / steps, 2),
        "client_cpu_ms_per_step": round(1000 * (cpu1[1] - cpu0[1]) / steps, 2),
        "samples": len(latencies),
        "missed": expected - len(latencies),
        "connect_s": round(connect_s, 2),
    }


async def _drain(ws: Any) -> None:
    async for _ in ws:  # the presenter's copies of its states, followers counts
        pass


def run(followers: int = 300, backends: int | None = None, steps: int = 100, interval_ms: float = 100,
        progress: Any = None) -> dict[str, Any]:
    """The document `kscope bench rooms --json` prints."""
    runs = []
    for count in ([backends] if backends else [1, 2]):
        if progress:
            progress(f"{count} backend(s), {followers} followers, {steps} steps")
        with _backends(count, followers) as (urls, pids):
            runs.append(asyncio.run(_one_run(urls, pids, followers, steps, interval_ms)))
    document: dict[str, Any] = {
        "followers": followers,
        "steps": steps,
        "interval_ms": interval_ms,
        "runs": runs,
        "target_p99_ms": TARGET_P99_MS,
        "measure": "presenter send -> follower receive, one monotonic clock in the bench process, loopback; "
                   "includes the bench client's own event loop reading every socket",
        "load_average_1m": round(os.getloadavg()[0], 2),
        "cpus": os.cpu_count(),
    }
    if len(runs) == 2:
        document["p99_ratio_2_over_1"] = round(runs[1]["p99_ms"] / runs[0]["p99_ms"], 2) if runs[0]["p99_ms"] else None
    return document


def render(doc: dict[str, Any]) -> str:
    lines = [f"bench rooms: {doc['followers']} followers, {doc['steps']} steps every {doc['interval_ms']} ms "
             f"(target p99 < {doc['target_p99_ms']} ms on 1 backend)"]
    for r in doc["runs"]:
        lines.append(f"  {r['backends']} backend(s): p50 {r['p50_ms']} ms  p95 {r['p95_ms']} ms  p99 {r['p99_ms']} ms  "
                     f"max {r['max_ms']} ms  ({r['samples']} deliveries, {r['missed']} missed; after the server "
                     f"accepted it: p50 {r['server_to_follower_p50_ms']} ms, p99 {r['server_to_follower_p99_ms']} ms)")
        lines.append(f"      CPU per step: server(s) {r['server_cpu_ms_per_step']} ms, bench client "
                     f"{r['client_cpu_ms_per_step']} ms")
    lines.append(f"  load average {doc['load_average_1m']} on {doc['cpus']} CPUs")
    if "p99_ratio_2_over_1" in doc:
        lines.append(f"  p99 ratio, 2 backends / 1: {doc['p99_ratio_2_over_1']}")
    return "\n".join(lines)
