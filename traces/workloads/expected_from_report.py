"""Writes <file>.expected.json for a trace.dat from `trace-cmd report -t` (run here):
events, by_type, by_buffer, cpus, first and last time, as trace-cmd counts them.

    python3 traces/workloads/expected_from_report.py traces/sleep-instance-linux6.18.v7.dat ...
"""
import json
import re
import subprocess
import sys
from collections import Counter

LINE = re.compile(r"^(?:(\S+): )?\s*.*?\[(\d+)\]\s+(\d+)\.(\d{9}): (\w+):")

for path in sys.argv[1:]:
    text = subprocess.run(["trace-cmd", "report", "-t", "-i", path], capture_output=True, text=True,
                          check=True).stdout
    uname = subprocess.run(["trace-cmd", "dump", "--options", "-i", path], capture_output=True,
                           text=True, check=True).stdout
    kernel = uname.split("[Option UNAME", 1)[1].split("\n")[1].strip()
    version = 6 if b"6\0" == open(path, "rb").read()[10:12] else 7
    types, buffers, cpus, times = Counter(), Counter(), set(), []
    for line in text.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        buf, cpu, sec, ns, name = m.groups()
        types[name] += 1
        buffers[buf or ""] += 1
        cpus.add(int(cpu))
        times.append(int(sec) * 10**9 + int(ns))
    doc = {"format": "trace.dat", "events": sum(types.values()),
           "by_type": dict(sorted(types.items(), key=lambda kv: (-kv[1], kv[0]))),
           "by_buffer": dict(sorted(buffers.items())), "cpus": len(cpus),
           "t_first_ns": min(times), "t_last_ns": max(times), "kernel": kernel, "version": version,
           "malformed_lines": 0, "first_error": None, "lost_events": 0}
    with open(path + ".expected.json", "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    print(path, doc["events"], doc["by_buffer"])
