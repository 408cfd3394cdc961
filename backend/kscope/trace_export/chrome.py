"""Stored events -> Chrome trace-event JSON, the format Perfetto UI and chrome://tracing open.

    {"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}

The layout (CPU-centric, as Perfetto draws an ftrace trace):

- one process "CPUs" (pid CPU_PID) with one thread per CPU (tid CPU_PID + cpu), named by
  "M" metadata events (process_name, thread_name "CPU 3", thread_sort_index);
- a complete ("X") slice per stretch a task ran on a CPU, from the sched_switch that put
  it there to the one that took it off, named by the task's comm; its args hold pid, tgid,
  prio, and `switch_in` / `switch_out`: the switch records at either end (prev/next task,
  prev_state as its number and as the kernel's letters). A stretch already running when
  the export begins starts at the window's start (the whole trace: its first event) with
  `switch_in` absent; one still
  running at the end stops at the last event's time with `switch_out` absent; one whose
  switch-out the trace lacks (lost events) stops at the CPU's next switch with `cut` saying
  so. The idle task (pid 0) gets no slices: idle is the gap. Each switch is kept exactly
  once: as the `switch_in` of the slice it starts, else (a switch into idle) as the
  `switch_out` of the slice it ends, else as a "sched_switch" instant;
- every other event an instant ("i", scope "t") on its CPU's thread, named after the
  tracepoint (a generic event by its own name), its fields as args; the current task of
  the event (the waker, for a wakeup) as `cur_pid` / `cur_comm`.

Times are microseconds, as the format says, written with three decimals from the integer
nanoseconds (never through a float), so they are exact; "displayTimeUnit": "ns" asks
the viewer to show nanoseconds. Slices and instants come out in time order.
"""

import json
from collections.abc import Iterator
from typing import Any

import pyarrow as pa

CPU_PID = 10_000_000  # above Linux's largest pid_max (2^22), so it never names a real task
STATE_LETTERS = "SDTtXZPI"  # TASK_REPORT bits 0..7 as the kernel prints them; none set: "R"
PREEMPTED = 0x100


def state_text(state: int) -> str:
    """prev_state as sched_switch prints it: "S", "D|W"-style letters, "R", "R+"."""
    bits = [STATE_LETTERS[i] for i in range(len(STATE_LETTERS)) if state & (1 << i)]
    if state & ~(PREEMPTED | 0xFF):
        return str(state)
    return ("|".join(bits) or "R") + ("+" if state & PREEMPTED else "")


def us(ns: int) -> str:
    """Integer nanoseconds as the format's microseconds, exactly ("1273158974.123")."""
    sign = "-" if ns < 0 else ""
    ns = abs(ns)
    return f"{sign}{ns // 1000}.{ns % 1000:03d}"


_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode  # one encoder, made once


def _q(text: Any) -> str:
    return _ENCODE(text)


def _args(d: dict[str, Any]) -> str:
    return _ENCODE(d)


class ChromeWriter:
    """Turns batches of rows (time order, SCHEMA columns) into trace-event JSON text."""

    def __init__(self, t_begin: int | None) -> None:
        self.t_begin = t_begin   # time of the export's first event (stretches already running start here)
        self.t_last: int | None = None
        self.running: dict[int, dict[str, Any]] = {}  # cpu -> the open stretch
        self.cpus: set[int] = set()
        self.switched: set[int] = set()  # CPUs whose first switch has been seen
        self.tgids: dict[int, int] = {}  # pid -> tgid, as the events' current-task columns said
        self.first = True
        self.events = 0

    def _item(self, text: str) -> str:
        sep = "\n" if self.first else ",\n"
        self.first = False
        self.events += 1
        return sep + text

    def _slice(self, cpu: int, stretch: dict[str, Any], end: int, switch_out: dict[str, Any] | None) -> str:
        args = {"pid": stretch["pid"], "prio": stretch["prio"], "cpu": cpu}
        tgid = self.tgids.get(stretch["pid"], -1)
        if tgid >= 0:
            args["tgid"] = tgid
        if stretch["switch_in"] is not None:
            args["switch_in"] = stretch["switch_in"]
        if switch_out is not None:
            args["switch_out"] = switch_out
        if "cut" in stretch:
            args["cut"] = stretch["cut"]
        return self._item(
            f'{{"ph":"X","cat":"sched","name":{_q(stretch["comm"])},"pid":{CPU_PID},"tid":{CPU_PID + cpu},'
            f'"ts":{us(stretch["start"])},"dur":{us(end - stretch["start"])},"args":{_args(args)}}}')

    def _instant(self, name: str, cpu: int, ts: int, args: dict[str, Any]) -> str:
        return self._item(f'{{"ph":"i","s":"t","cat":"sched","name":{_q(name)},"pid":{CPU_PID},'
                          f'"tid":{CPU_PID + cpu},"ts":{us(ts)},"args":{_args(args)}}}')

    def batch(self, table: pa.Table) -> str:
        out: list[str] = []
        for r in table.to_pylist():
            ts, cpu, kind = r["ts_ns"], r["cpu"], r["type"]
            if self.t_begin is None:
                self.t_begin = ts
            self.t_last = ts
            self.cpus.add(cpu)
            if r["tgid"] is not None and r["tgid"] >= 0:
                self.tgids[r["pid"]] = r["tgid"]
            if kind == "sched_switch":
                out.append(self._switch(r))
                continue
            args = self._fields(r)
            args["cur_pid"], args["cur_comm"] = r["pid"], r["comm"]
            if r["tgid"] is not None and r["tgid"] >= 0:
                args["cur_tgid"] = r["tgid"]
            name = (r["name"] or "generic") if kind == "generic" else kind
            out.append(self._instant(name, cpu, ts, args))
        return "".join(out)

    @staticmethod
    def _fields(r: dict[str, Any]) -> dict[str, Any]:
        kind = r["type"]
        if kind == "generic":
            return {"fields": r["fields"] or ""}
        if kind in ("sched_waking", "sched_wakeup", "sched_wakeup_new"):
            keys = ("task_pid", "task_comm", "prio", "target_cpu")
        elif kind == "sched_migrate_task":
            keys = ("task_pid", "task_comm", "prio", "orig_cpu", "dest_cpu")
        elif kind == "sched_process_fork":
            keys = ("task_pid", "task_comm", "child_pid", "child_comm")
        elif kind in ("sched_process_exit", "sched_process_free"):
            keys = ("task_pid", "task_comm", "prio", "group_dead")
        elif kind == "rseq_update":
            keys = ("cpu_id", "node_id", "mm_cid")
        else:
            keys = ()
        names = {"task_pid": "pid", "task_comm": "comm"}
        return {names.get(k, k): r[k] for k in keys if r.get(k) is not None}

    def _switch(self, r: dict[str, Any]) -> str:
        """A sched_switch: ends the CPU's open stretch (switch_out), opens the next task's
        (switch_in). Every switch is kept once: by the slice it opens, or (into idle) by the
        slice it ends, or else as a "sched_switch" instant."""
        ts, cpu = r["ts_ns"], r["cpu"]
        state = r["prev_state"] or 0
        text = ""
        open_ = self.running.pop(cpu, None)
        prev = {"prev_pid": r["prev_pid"], "prev_comm": r["prev_comm"], "prev_prio": r["prev_prio"],
                "prev_state": state, "prev_state_text": state_text(state)}
        out = {**prev, "next_pid": r["next_pid"], "next_comm": r["next_comm"], "next_prio": r["next_prio"]}
        if open_ is not None and open_["pid"] != r["prev_pid"]:
            # The trace lost the switch that took this task off: cut its stretch here, saying so.
            open_["cut"] = "the trace has no switch-out of this task (lost events?)"
            text += self._slice(cpu, open_, ts, None)
            open_ = None
        first_on_cpu = cpu not in self.switched
        self.switched.add(cpu)
        if open_ is None and first_on_cpu and r["prev_pid"] != 0 and self.t_begin is not None and ts > self.t_begin:
            # The task switched out ran since before the export's first event.
            open_ = {"start": self.t_begin, "pid": r["prev_pid"], "comm": r["prev_comm"], "prio": r["prev_prio"],
                     "switch_in": None}
        if open_ is not None:
            text += self._slice(cpu, open_, ts, out)
        if r["next_pid"] != 0:
            self.running[cpu] = {"start": ts, "pid": r["next_pid"], "comm": r["next_comm"],
                                 "prio": r["next_prio"], "switch_in": prev}
        elif open_ is None:
            text += self._instant("sched_switch", cpu, ts, out)
        return text

    def finish(self) -> str:
        """The stretches still running (cut at the last event's time) and the metadata."""
        out: list[str] = []
        end = self.t_last if self.t_last is not None else 0
        for cpu, stretch in sorted(self.running.items()):
            out.append(self._slice(cpu, stretch, end, None))
        self.running.clear()
        out.append(self._item(f'{{"ph":"M","name":"process_name","pid":{CPU_PID},"tid":{CPU_PID},'
                              f'"args":{{"name":"CPUs"}}}}'))
        for cpu in sorted(self.cpus):
            tid = CPU_PID + cpu
            out.append(self._item(f'{{"ph":"M","name":"thread_name","pid":{CPU_PID},"tid":{tid},'
                                  f'"args":{{"name":"CPU {cpu}"}}}}'))
            out.append(self._item(f'{{"ph":"M","name":"thread_sort_index","pid":{CPU_PID},"tid":{tid},'
                                  f'"args":{{"sort_index":{cpu}}}}}'))
        return "".join(out)


def write_chrome(batches: Iterator[pa.Table], other: dict[str, Any], t_begin: int | None = None) -> Iterator[bytes]:
    """The whole JSON document, a piece per batch of rows. t_begin: where the window begins
    (stretches already running start there); None: at the first event."""
    writer = ChromeWriter(t_begin)
    yield b'{"displayTimeUnit":"ns","otherData":' + _args(other).encode() + b',"traceEvents":['
    for table in batches:
        text = writer.batch(table)
        if text:
            yield text.encode("utf-8")
    yield (writer.finish() + "\n]}\n").encode("utf-8")
