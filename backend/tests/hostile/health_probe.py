"""GET /api/health (or another path, with a token) one after another until stdin closes; then
prints the latencies (JSON). "ready" on stderr once the first one is timed. Usage: health_probe.py URL PERIOD_S [PATH [TOKEN]]

Run by hostile_support.Watch in a process of its own: in the test's process, the attack's
client threads would share the interpreter lock with the timing and inflate it."""

import json
import sys
import threading
import time

import httpx


def main() -> None:
    url, period = sys.argv[1], float(sys.argv[2])
    path = sys.argv[3] if len(sys.argv) > 3 else "/api/health"
    headers = {"X-Kscope-Token": sys.argv[4]} if len(sys.argv) > 4 else {}
    stop = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    latencies: list[float] = []
    failures: list[str] = []
    with httpx.Client(base_url=url, timeout=60) as client:
        while not stop.is_set():
            t = time.perf_counter()
            try:
                r = client.get(path, headers=headers)
                if r.status_code != 200:
                    failures.append(f"{path} {r.status_code}")
            except httpx.HTTPError as err:
                failures.append(f"{path} {type(err).__name__}")
            latencies.append(time.perf_counter() - t)
            if len(latencies) == 1:
                sys.stderr.write("ready\n")  # Watch waits for this before the attack starts
                sys.stderr.flush()
            stop.wait(period)
    print(json.dumps({"latencies": latencies, "failures": failures}))


if __name__ == "__main__":
    main()
