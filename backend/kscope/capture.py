"""`kscope capture`: record scheduler events from the running kernel through tracefs.

Writes ftrace text (the tracefs `trace` file) preceded by a header kscope reads
and every ftrace tool skips (`#` comment lines):

    # kscope: capture=1
    # kscope: kernel=6.18.44            uname -r
    # kscope: events=sched:sched_switch,...
    # kscope: command=python3 work.py   (or pid=P, or nothing but scope=)
    # kscope: scope=system-wide         every task's events are recorded (see below)
    # kscope: filter=rseq:rseq_update:common_pid >= 4242   (with a workload: see below)
    # kscope: seconds=1.000
    # kscope: trace_clock=global
    # kscope: tracefs=instance          a tracefs instance of the capture's own (see below)
    # kscope: tasks=4242:4242,4243:4242 the workload's tid:tgid pairs, read from /proc while it ran
    # kscope: cpu_stats=0:entries=812,overrun=0,dropped=0;1:...   per-CPU ring-buffer stats
    # kscope: dropped_events=0          events the ring buffer refused (full): gaps the trace has
    # kscope-sysfs: cpu0/topology/core_id<TAB>0     the CPU topology, flattened
    ...                                              (topology.h: ks_topology_from_sysfs)
    # tracer: nop                                    then the kernel's own text

Scheduling events are recorded for every task, not only the workload's: a
sched_switch between two other tasks still says who runs on that CPU, and a
trace filtered by pid (set_event_pid) loses it, so a CPU's next switch seems to
come from nowhere (a "switch gap"; the conformance replay and the runqueue view
both need the complete sequence). The workload is named instead: its command or
pid, and its threads' tid:tgid pairs (`tasks=`, read from /proc every 20 ms while
it runs), so readers can pick it out (and know its tgid where a trace format has
no TGID column). The file stays small by keeping captures short (a second or
two) and by one event filter: with a workload, rseq_update (as frequent as
sched_switch, and only compared for the workload) is kept for pids from the
workload's up (its threads and children get larger pids; the filter is in the
header). The per-CPU ring-buffer statistics say whether the kernel dropped events.

Text captures record into a tracefs instance of their own (instances/kscope-PID:
its own ring buffer, events, filters, clock and tracing_on), so another tracefs
user - trace-cmd, or a second capture - and this one cannot switch each other's
events off halfway (seen: two test runs at once left one trace nearly empty).
The instance is removed afterwards. Where instances are unavailable, and for
trace-cmd extract (which reads the top-level buffer), the top level is used.

Top-level tracing state is global to the machine, so everything changed is saved first
and restored afterwards - events enabled, tracing_on, buffer_size_kb,
trace_clock, the options touched, set_event_pid, the tracefs mount - even on
Ctrl-C, SIGTERM or an exception.
"""

import os
import platform
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kscope import topology_files

TRACEFS = Path("/sys/kernel/tracing")
# The tracepoints kscope decodes into typed records (event.h).
DEFAULT_EVENTS = ("sched:sched_switch", "sched:sched_waking", "sched:sched_wakeup", "sched:sched_wakeup_new",
                  "sched:sched_migrate_task", "sched:sched_process_fork", "sched:sched_process_exit",
                  "sched:sched_process_free", "rseq:rseq_update")
OPTIONS = ("record-tgid", "irq-info", "event-fork", "overwrite")
# A clock every CPU shares: events of different CPUs (a migration on one, the switch-in
# on another) keep their order (the default "local" clock is per CPU).
TRACE_CLOCK = "global"
MAX_TASKS_LISTED = 4000  # tasks= pairs in the header (one line; readers take 64 KiB)
BUFFER_KB = 16384  # per CPU while capturing
SYSFS_CPU = Path("/sys/devices/system/cpu")


# Run by the child: wait for the go byte on the inherited pipe, then become the command.
_GATE = "import os, sys; os.read(int(sys.argv[1]), 1); os.close(int(sys.argv[1])); os.execvp(sys.argv[2], sys.argv[2:])"


class CaptureRefused(RuntimeError):
    """Tracing is not available or not permitted here (the message says why)."""


@dataclass
class CaptureRequest:
    seconds: float
    events: list[str]
    output: Path
    pid: int | None = None
    command: list[str] | None = None


# --events presets beyond the typed ones: the events the Traces page draws as slice or counter
# tracks (kept as generic records). A preset's name wins over a tracefs system of the same
# name ("irq" is the two handler events; "irq:*" still asks for the whole system).
PRESETS = {
    "irq": ("irq:irq_handler_entry", "irq:irq_handler_exit"),
    "softirq": ("irq:softirq_entry", "irq:softirq_exit", "irq:softirq_raise"),
    "idle": ("power:cpu_idle",),
    "freq": ("power:cpu_frequency",),
    "sched_stat": ("sched:sched_stat_runtime", "sched:sched_stat_wait", "sched:sched_stat_sleep",
                   "sched:sched_stat_iowait", "sched:sched_stat_blocked"),
}
# Events a preset asks for only where the kernel has them: sched_stat_wait/sleep/iowait/blocked
# need CONFIG_SCHEDSTATS (this machine's 6.18 has sched_stat_runtime alone). A missing one is
# left out with a warning naming it; every other missing event refuses the capture.
OPTIONAL_EVENTS = frozenset(PRESETS["sched_stat"])


def expand_events(spec: list[str] | None) -> list[str]:
    """"sched" -> kscope's sched tracepoints; "rseq" -> rseq:rseq_update; a PRESETS name -> its
    events; "sys:ev" and "sys:*" as given; another bare name -> "name:*" (a whole system)."""
    if not spec:
        return list(DEFAULT_EVENTS)
    out: list[str] = []
    for item in (e.strip() for s in spec for e in s.split(",")):
        if not item:
            continue
        if item in ("sched", "rseq"):
            out += [e for e in DEFAULT_EVENTS if e.startswith(item + ":")]
        elif item in PRESETS:
            out += PRESETS[item]
        else:
            out.append(item if ":" in item else f"{item}:*")
    return list(dict.fromkeys(out))


def present_events(root: Path, events: list[str]) -> tuple[list[str], list[str]]:
    """(the events to enable, the optional ones this kernel lacks); CaptureRefused naming any
    other missing event, or when every event asked for is missing."""
    missing = [e for e in events if not _event_dir(root, e).is_dir()]
    required = [e for e in missing if e not in OPTIONAL_EVENTS]
    if required:
        raise CaptureRefused(f"this kernel has no tracepoint {', '.join(required)} "
                             f"(see {root}/available_events)")
    kept = [e for e in events if e not in missing]
    if not kept:
        raise CaptureRefused(f"this kernel has none of the tracepoints asked for ({', '.join(missing)}; "
                             f"sched_stat_* other than sched_stat_runtime need CONFIG_SCHEDSTATS)")
    return kept, missing


def _event_dir(root: Path, event: str) -> Path:
    system, _, name = event.partition(":")
    return root / "events" / system / ("" if name in ("*", "") else name)


def _read(path: Path) -> str:
    return path.read_text().strip()


def _write(path: Path, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


def _append_lines(path: Path, lines: list[str]) -> None:
    """Adds lines to a tracefs list file (set_event): O_APPEND, one write per line (no seek)."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        for line in lines:
            os.write(fd, (line + "\n").encode())
    finally:
        os.close(fd)


@contextmanager
def tracefs_mounted() -> Iterator[Path]:
    """tracefs at /sys/kernel/tracing, mounted for the capture if it was not (and unmounted after)."""
    if (TRACEFS / "trace").exists():
        yield TRACEFS
        return
    if not TRACEFS.is_dir():
        raise CaptureRefused(f"{TRACEFS} does not exist: this kernel has no tracefs (CONFIG_FTRACE off?)")
    mounted = subprocess.run(["mount", "-t", "tracefs", "nodev", str(TRACEFS)], capture_output=True, text=True)
    if mounted.returncode != 0 or not (TRACEFS / "trace").exists():
        raise CaptureRefused(f"tracefs is not mounted at {TRACEFS} and mounting it failed "
                             f"({mounted.stderr.strip() or 'not permitted'}): run as root")
    try:
        yield TRACEFS
    finally:
        subprocess.run(["umount", str(TRACEFS)], capture_output=True)


RSEQ_FILTER = "events/rseq/rseq_update/filter"


class TracingState:
    """Everything a capture changes, saved so it can be put back exactly."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.rseq_filter = _read(root / RSEQ_FILTER) if (root / RSEQ_FILTER).exists() else None
        self.tracing_on = _read(root / "tracing_on")
        self.buffer_size_kb = _read(root / "buffer_size_kb")
        self.current_tracer = _read(root / "current_tracer")
        self.trace_clock = next((w[1:-1] for w in _read(root / "trace_clock").split() if w.startswith("[")), "local")
        self.set_event = [line for line in _read(root / "set_event").splitlines() if line]
        self.set_event_pid = _read(root / "set_event_pid").split()
        self.options = {name: _read(root / "options" / name) for name in OPTIONS if (root / "options" / name).exists()}

    def restore(self) -> None:
        """Puts every saved value back; each step is tried even if an earlier one fails."""
        r = self.root
        steps = [
            lambda: _write(r / "tracing_on", "0"),
            lambda: _write(r / "set_event", ""),
            lambda: _append_lines(r / "set_event", self.set_event),
            lambda: _write(r / "set_event_pid", " ".join(self.set_event_pid)),
            lambda: (_write(r / RSEQ_FILTER, "0" if self.rseq_filter == "none" else self.rseq_filter)
                     if self.rseq_filter is not None else None),
            *[(lambda n=name, v=value: _write(r / "options" / n, v)) for name, value in self.options.items()],
            lambda: _write(r / "trace_clock", self.trace_clock),
            lambda: _write(r / "current_tracer", self.current_tracer),
            # "X (expanded: Y)" while the buffer was never used: leave it as is.
            lambda: _write(r / "buffer_size_kb", self.buffer_size_kb) if self.buffer_size_kb.isdigit() else None,
            lambda: _write(r / "tracing_on", self.tracing_on),
        ]
        failed = []
        for step in steps:
            try:
                step()
            except OSError as err:
                failed.append(str(err))
        if failed:
            raise CaptureRefused(f"could not restore all tracing state: {'; '.join(failed)}")


def _check_events(root: Path, events: list[str]) -> list[str]:
    """The events to enable; warns (stderr) about optional ones this kernel lacks."""
    kept, missing = present_events(root, events)
    if missing:
        print(f"kscope: capture: this kernel has no tracepoint {', '.join(missing)} (needs CONFIG_SCHEDSTATS); "
              f"recording without {'it' if len(missing) == 1 else 'them'}", file=sys.stderr)
    return kept


def _parent_of(pid: int) -> int | None:
    """The parent pid of process pid (/proc/PID/stat's 4th field), None if it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2:].split()
    return int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else None


class WorkloadTasks:
    """tid -> tgid of a process and its descendants, learned from /proc while they run.

    (This kernel may lack /proc/PID/task/TID/children: new processes are found by
    their parent pid among the pids above the root's - pids grow - and other pids
    are remembered as not ours so each /proc/PID/stat is read once.)
    """

    def __init__(self, root: int) -> None:
        self.root = root
        self.tgids: set[int] = {root}
        self.others: set[int] = set()
        self.tasks: dict[int, int] = {}

    def poll(self) -> None:
        try:
            pids = [int(n) for n in os.listdir("/proc") if n.isdigit()]
        except OSError:
            return
        for pid in sorted(pids):
            if pid <= self.root or pid in self.tgids or pid in self.others:
                continue
            parent = _parent_of(pid)
            if parent is None:
                continue
            (self.tgids if parent in self.tgids else self.others).add(pid)
        for tgid in self.tgids:
            try:
                tids = os.listdir(f"/proc/{tgid}/task")
            except OSError:
                continue
            for tid in tids:
                if tid.isdigit():
                    self.tasks.setdefault(int(tid), tgid)

    def header_value(self) -> str:
        pairs = sorted(self.tasks.items())[:MAX_TASKS_LISTED]
        return ",".join(f"{tid}:{tgid}" for tid, tgid in pairs)


def cpu_stats(root: Path) -> dict[int, dict[str, int]]:
    """Per CPU: entries, overrun, dropped (events the full ring buffer refused) from per_cpu/cpuN/stats."""
    out: dict[int, dict[str, int]] = {}
    names = {"entries": "entries", "overrun": "overrun", "dropped events": "dropped"}
    for d in sorted((root / "per_cpu").glob("cpu[0-9]*"), key=lambda p: int(p.name[3:])):
        try:
            text = (d / "stats").read_text()
        except OSError:
            continue
        row = {}
        for line in text.splitlines():
            key, _, value = line.partition(":")
            if key.strip() in names and value.strip().isdigit():
                row[names[key.strip()]] = int(value.strip())
        out[int(d.name[3:])] = row
    return out


def header_lines(req: CaptureRequest, events: list[str], elapsed: float, tasks: str = "",
                 stats: dict[int, dict[str, int]] | None = None, clock: str = TRACE_CLOCK,
                 filters: dict[str, str] | None = None, tracefs: str = "top-level") -> bytes:
    lines = ["capture=1", f"kernel={platform.release()}", f"machine={platform.machine()}",
             f"events={','.join(events)}", f"seconds={elapsed:.3f}",
             f"date={time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}"]
    if req.command:
        lines.append(f"command={shlex.join(req.command)}")
    elif req.pid:
        lines.append(f"pid={req.pid}")
    lines += ["scope=system-wide", f"trace_clock={clock}", f"tracefs={tracefs}"]
    lines += [f"filter={event}:{text}" for event, text in (filters or {}).items()]
    if tasks:
        lines.append(f"tasks={tasks}")
    if stats is not None:
        lines.append("cpu_stats=" + ";".join(f"{cpu}:" + ",".join(f"{k}={v}" for k, v in row.items())
                                             for cpu, row in stats.items()))
        lines.append(f"dropped_events={sum(row.get('dropped', 0) + row.get('overrun', 0) for row in stats.values())}")
    text = "".join(f"# kscope: {line}\n" for line in lines).encode()
    try:
        sysfs = topology_files.flatten_sysfs_dir(SYSFS_CPU)
    except (topology_files.TopologyInputError, OSError):
        sysfs = b""
    text += b"".join(b"# kscope-sysfs: " + line + b"\n" for line in sysfs.splitlines() if line)
    return text


@contextmanager
def private_instance(root: Path) -> Iterator[Path | None]:
    """instances/kscope-PID for the capture (removed after), or None where it cannot be made."""
    inst = root / "instances" / f"kscope-{os.getpid()}"
    try:
        os.mkdir(inst)
    except OSError:
        yield None
        return
    try:
        yield inst
    finally:
        try:
            _write(inst / "tracing_on", "0")
        except OSError:
            pass
        for _ in range(50):  # rmdir fails while the kernel still holds the buffer open
            try:
                os.rmdir(inst)
                break
            except OSError:
                time.sleep(0.02)


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    previous = signal.getsignal(signal.SIGTERM)

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    try:
        signal.signal(signal.SIGTERM, interrupt)
    except ValueError:  # not the main thread: keep the default
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def capture(req: CaptureRequest, extract_with: str | None = None) -> dict[str, Any]:
    """Records req.seconds (or while req.command runs, at most req.seconds); returns a summary.

    extract_with: a trace-cmd executable to write the ring buffer as a trace.dat instead
    of the ftrace text.
    """
    if os.geteuid() != 0:
        raise CaptureRefused("capturing kernel events needs root (tracefs is root-only)")
    events = expand_events(req.events)
    with _sigterm_as_interrupt(), tracefs_mounted() as root, \
            (private_instance(root) if not extract_with else nullcontext(None)) as inst:
        base = inst or root  # where this capture's buffer, events and switches are
        events = _check_events(base, events)
        saved = None
        if inst is None:
            try:
                saved = TracingState(root)
            except OSError as err:
                raise CaptureRefused(f"cannot read the tracing state in {root}: {err.strerror}") from err
        child = None
        started = time.monotonic()
        try:
            _write(base / "tracing_on", "0")
            _write(base / "current_tracer", "nop")
            _write(base / "set_event", "")
            _write(base / "buffer_size_kb", str(BUFFER_KB))
            for option in ("record-tgid", "irq-info"):
                if (base / "options" / option).exists():
                    _write(base / "options" / option, "1")
            _write(base / "options" / "overwrite", "0")  # keep the start when the buffer fills
            clocks = _read(base / "trace_clock").replace("[", " ").replace("]", " ").split()
            clock = TRACE_CLOCK if TRACE_CLOCK in clocks else \
                next((w[1:-1] for w in _read(base / "trace_clock").split() if w.startswith("[")), "local")
            _write(base / "trace_clock", clock)
            _write(base / "set_event_pid", "")  # every task: see the essay
            _write(base / "trace", "")  # clears the ring buffer
            gate_w = None
            if req.command:
                # The child waits on a pipe until tracing is on (its exec is then in the trace).
                gate_r, gate_w = os.pipe()
                # (A Python gate, not sh: dash cannot redirect from fds above 9.)
                child = subprocess.Popen([sys.executable, "-c", _GATE, str(gate_r), *req.command],
                                         pass_fds=(gate_r,))
                os.close(gate_r)
            target = child.pid if child else req.pid
            workload = WorkloadTasks(target) if target else None
            filters = {}
            if target and "rseq:rseq_update" in events and (base / RSEQ_FILTER).exists():
                filters["rseq:rseq_update"] = f"common_pid >= {target}"
                _write(base / RSEQ_FILTER, filters["rseq:rseq_update"])
            _append_lines(base / "set_event", events)
            _write(base / "tracing_on", "1")
            started = time.monotonic()
            if gate_w is not None:
                os.write(gate_w, b"go\n")
                os.close(gate_w)
            deadline = started + req.seconds
            while time.monotonic() < deadline:
                if workload:
                    workload.poll()
                if child and child.poll() is not None:
                    break
                time.sleep(min(0.02, max(0.0, deadline - time.monotonic())))
            _write(base / "tracing_on", "0")
            elapsed = time.monotonic() - started
            stats = cpu_stats(base)
            if extract_with:
                # trace-cmd's own default format (v7, zstd-compressed where it has zstd),
                # which kscope's trace.dat decoder reads.
                run = subprocess.run([extract_with, "extract", "-o", str(req.output)],
                                     capture_output=True, text=True, timeout=120)
                if run.returncode != 0:
                    raise CaptureRefused(f"trace-cmd extract failed ({run.returncode}): "
                                         f"{run.stderr.strip()[-400:]}")
            else:
                with open(req.output, "wb") as out:
                    out.write(header_lines(req, events, elapsed, workload.header_value() if workload else "",
                                           stats, clock, filters, "instance" if inst else "top-level"))
                    with open(base / "trace", "rb") as trace:
                        shutil.copyfileobj(trace, out, 1 << 20)
        finally:
            if child and child.poll() is None:
                child.terminate()
            if child:
                child.wait()
            if saved is not None:
                saved.restore()
    gaps = None if extract_with else check_switches(req.output)
    return {"output": str(req.output), "format": "trace.dat" if extract_with else "ftrace-text",
            "bytes": req.output.stat().st_size, "seconds": round(elapsed, 3),
            "events": events, "command": req.command, "pid": req.pid, "scope": "system-wide",
            "trace_clock": clock, "tracefs": "instance" if inst else "top-level", "workload_tasks": len(workload.tasks) if workload else 0,
            "dropped_events": sum(r.get("dropped", 0) + r.get("overrun", 0) for r in stats.values()),
            "switch_gaps": gaps,
            "exit_status": child.returncode if child else None}


def check_switches(path: Path) -> dict[str, Any] | None:
    """The written trace's switch gaps (switch_gaps.py), said on stderr when there are any."""
    from kscope import conform, switch_gaps
    from kscope.ingest import records
    from kscope.ingest.sources import InputError

    try:
        items, _ = conform._decode(path, path.name)
    except InputError as err:
        print(f"kscope capture: could not check the trace: {err}", file=sys.stderr)
        return None
    gaps = switch_gaps.switch_gaps(items.view(records.RECORD))
    if gaps["gaps"]:
        first = gaps["examples"][0]
        print(f"kscope capture: {gaps['gaps']} switch gaps in {gaps['switches']} switches (a CPU's sched_switch "
              f"names another prev task than the one last switched in there, first on CPU {first['cpu']}: "
              f"pid {first['expected_prev']}'s switch-out is missing; the header's dropped_events says whether the kernel dropped any)", file=sys.stderr)
    return {"gaps": gaps["gaps"], "switches": gaps["switches"], "by_cpu": gaps["by_cpu"]}


def capture_trace_cmd(req: CaptureRequest) -> dict[str, Any]:
    """The same capture, written as a trace.dat by Debian's `trace-cmd extract`.

    (`trace-cmd record` would set tracing up itself, but it first writes
    /proc/sys/kernel/ftrace_enabled, which containers often keep read-only;
    extract only reads the ring buffer this capture filled.) A trace.dat has no
    room for kscope's header: its own UNAME option records the kernel.
    """
    exe = shutil.which("trace-cmd")
    if exe is None:
        raise CaptureRefused("trace-cmd is not installed (apt-get install trace-cmd)")
    return capture(req, extract_with=exe)
