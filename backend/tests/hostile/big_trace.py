"""A big ftrace text made on the spot: enough for kscope-ingest to run for a second or more,
so a test can catch it mid-ingest."""

from pathlib import Path

LINE = ("{comm:>16}-{pid:<5} [{cpu:03d}] d..2. {sec}.{usec:06d}: sched_switch: prev_comm={comm} prev_pid={pid} "
        "prev_prio=120 prev_state=S ==> next_comm=worker{nxt} next_pid={nxt} next_prio=120\n")


def write_big_ftrace(path: Path, events: int, cpus: int = 8) -> Path:
    """`events` sched_switch lines over `cpus` CPUs, 1 us apart (~170 bytes a line)."""
    block = 100_000
    with open(path, "w") as out:
        out.write("# tracer: nop\n#\n")
        for start in range(0, events, block):
            out.write("".join(
                LINE.format(comm=f"worker{i % 97}", pid=1000 + i % 97, cpu=i % cpus, sec=100 + i // 1_000_000,
                            usec=i % 1_000_000, nxt=1000 + (i + 1) % 97)
                for i in range(start, min(events, start + block))))
    return path
