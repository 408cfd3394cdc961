"""One VM capture: tools, kernel, workload, initramfs, boot (KVM else TCG), extract, write.

The output is a `kscope capture` file: `# kscope:` metadata lines, the guest's
topology as `# kscope-sysfs:` lines, then the guest's tracefs `trace` text.
FILE.topology holds the same flattened sysfs dump on its own (the input of
`kscope topology FILE.topology` and of ks_topology_from_sysfs).
"""

import os
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from kscope import topology_files
from kscope.core.config import REPO_ROOT
from kscope.vm import deps, guest, qemu, serial, workloads

DEFAULT_CACHE = REPO_ROOT / ".kscope" / "vm"
ACCELS = ("auto", "kvm", "tcg")
DETECT_SCAN_LINES = 400  # ks_trace_detect's look-ahead (wasm-core/src/trace/trace_detect.c)


class VmCaptureError(RuntimeError):
    """The guest did not produce a trace (the message says what happened; exit 1)."""


class VmRequestError(ValueError):
    """A request that cannot be run as given (bad shape, unknown workload, bad kernel path; exit 2)."""


@dataclass
class VmRequest:
    workload: str
    seconds: float
    output: Path
    kernel: str = "debian"  # "debian", "built" (kscope kernel build's newest) or a bzImage/vmlinuz path
    patches: str | None = None  # with "built": the patch sets the build must have (None: any)
    smp: int = 16
    numa: int = 4
    memory_mib: int = 2048
    cmdline: str = ""
    threads: int | None = None
    delay_ms: int = 200
    pin: bool = True  # intermittent: thread i pinned to CPU i % ncpu (False: the scheduler places them)
    accel: str = "auto"
    tcg_thread: str = "multi"  # "multi" (QEMU's default) or "single": qemu.Machine.tcg_thread
    timeout: float = 300.0  # whole run, per boot attempt's deadline
    kvm_boot_timeout: float = 20.0
    install: bool = True
    cache: Path = field(default_factory=lambda: Path(os.environ.get("KSCOPE_VM_CACHE", DEFAULT_CACHE)))


def _say(message: str) -> None:
    print(f"kscope capture-vm: {message}", file=sys.stderr)


def _check(req: VmRequest) -> workloads.Workload:
    if req.workload not in workloads.WORKLOADS:
        raise VmRequestError(f"unknown workload {req.workload!r} (one of: {', '.join(workloads.WORKLOADS)})")
    if req.accel not in ACCELS:
        raise VmRequestError(f"--accel {req.accel!r}: one of {', '.join(ACCELS)}")
    if req.tcg_thread not in ("multi", "single"):
        raise VmRequestError(f"--tcg-thread {req.tcg_thread!r}: multi or single")
    if not 0 < req.seconds <= 600:
        raise VmRequestError(f"--seconds {req.seconds:g}: between 0 and 600")
    try:
        qemu.numa_args(req.smp, req.numa, req.memory_mib)
    except qemu.NumaShapeError as err:
        raise VmRequestError(str(err)) from err
    return workloads.WORKLOADS[req.workload]


def _kernel(req: VmRequest, log: list[str], meta: dict[str, str]) -> Path:
    """The image to boot; meta gets kernel_image= (and build= / patches= for a kscope build)."""
    if req.kernel == "debian":
        meta["kernel_image"] = "debian"
        return deps.ensure_debian_kernel(req.cache, req.install, log)
    if req.kernel == "built":
        from kscope.kernel import build, patches

        try:
            names = None if req.patches is None else patches.parse_names(req.patches)
            doc = build.find_built(names)
        except (build.NoBuiltKernel, patches.PatchSelectionError) as err:
            raise VmRequestError(f"--kernel built: {err}") from err
        meta.update({"kernel_image": "built", "build": doc["key"], "patches": doc["patches"],
                     "source_version": doc.get("source_version", "")})
        return Path(doc["bzImage"])
    if req.patches is not None:
        raise VmRequestError("--patches goes with --kernel built")
    meta["kernel_image"] = "path"
    path = Path(req.kernel)
    if not path.is_file():
        raise VmRequestError(f"--kernel {req.kernel}: no such file (give 'debian' or a bzImage path)")
    return path


def _accels(req: VmRequest) -> list[str]:
    if req.accel != "auto":
        return [req.accel]
    return ["kvm", "tcg"] if qemu.kvm_usable() else ["tcg"]


def topology_dump(guest_text: str) -> bytes:
    """The guest's "<sysfs path>\\t<content>" lines as the flattened dump (paths relative to cpu/)."""
    out = []
    for line in guest_text.splitlines():
        path, tab, content = line.partition("\t")
        rel = topology_files.record_path(path) if tab else None
        if rel is not None:
            out.append(f"{rel}\t{content.strip()}\n")
    return "".join(out).encode()


def _header(meta: dict[str, str], sysfs: bytes) -> bytes:
    text = "".join(f"# kscope: {k}={v}\n" for k, v in meta.items()).encode()
    return text + b"".join(b"# kscope-sysfs: " + line + b"\n" for line in sysfs.splitlines() if line)


def count_events(trace: str) -> Counter[str]:
    """Events per tracepoint name in ftrace text (the word before ': ' after the timestamp)."""
    counts: Counter[str] = Counter()
    for line in trace.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        head, sep, _ = line.partition(": ")
        rest = line[len(head) + len(sep):] if sep else ""
        name = rest.split(":", 1)[0].strip() if rest else ""
        if name and " " not in name:
            counts[name] += 1
    return counts


PANIC = b"Kernel panic - not syncing"
PANIC_RETRIES = 1  # a guest that panicked is booted again this many times (same accelerator)


def _panic_line(console: bytes) -> str | None:
    """The guest kernel's panic line, when its console shows one."""
    at = console.rfind(PANIC)
    if at < 0:
        return None
    return console[at:].split(b"\n", 1)[0].decode("utf-8", "replace").strip()


def _boot(req: VmRequest, machine: qemu.Machine, data: Path, started: float,
          what: str) -> tuple[qemu.Boot, list[dict[str, Any]]]:
    """Boots with each accelerator in turn until one finishes; VmCaptureError when none does.

    A guest kernel that panics under TCG (seen here: a fault in sched_clock_cpu during boot on
    6.12; "Oops: int3" in update_sd_lb_stats on 7.3.4 with 16 vCPUs, a stale translation of
    live-patched kernel code, see qemu.Machine.tcg_thread) is booted again once, with
    single-threaded TCG (-accel tcg,thread=single), which that race cannot hit; the attempts
    list says so."""
    attempts: list[dict[str, Any]] = []
    boot = None
    queue = list(_accels(req))
    panics = 0
    while queue:
        accel = queue.pop(0)
        left = req.timeout - (time.monotonic() - started)
        if left <= 5:
            break
        _say(f"booting {machine.kernel.name} with {accel.upper()}: {what}")
        if data.exists():
            data.unlink()  # a retry must not read the failed boot's sections
        boot = qemu.run(qemu.command(machine, accel, data), guest.BOOT_MARKER, guest.DONE_MARKER,
                        req.kvm_boot_timeout if accel == "kvm" else left, left)
        panic = _panic_line(boot.console) if accel != "kvm" or boot.booted else None
        attempts.append({"accel": accel, "tcg_thread": machine.tcg_thread or "multi" if accel == "tcg" else None,
                         "booted": boot.booted, "finished": boot.finished,
                         "boot_s": _round(boot.boot_s), "total_s": _round(boot.total_s),
                         "why": f"guest {panic}" if panic else boot.why})
        if panic and panics < PANIC_RETRIES:
            panics += 1
            if accel == "tcg" and not machine.tcg_thread:
                machine = replace(machine, tcg_thread="single")
            _say(f"the guest kernel panicked ({panic}); booting it again"
                 + (" with single-threaded TCG" if machine.tcg_thread else ""))
            queue.insert(0, accel)
            continue
        if boot.finished or boot.booted:  # a guest that ran and failed will not do better elsewhere
            break
        _say(f"{accel.upper()} did not boot: {boot.why}")
    if boot is None or not boot.finished:
        tried = "; ".join(f"{a['accel']}: {a['why']}" for a in attempts) or "out of time before booting"
        raise VmCaptureError(f"no trace from the guest ({tried})" + _console_tail(boot))
    _say(f"used {boot.accel.upper()}: {_boot_time(boot)}, guest done in {boot.total_s:.1f} s")
    return boot, attempts, machine


def _boot_time(boot: qemu.Boot) -> str:
    """"booted in N s", or why that is unknown: a kernel message on the same serial line
    can swallow the guest's boot marker; the trace itself comes over the data port."""
    if boot.boot_s is None:
        return "boot marker not seen on the console (boot time unknown)"
    return f"booted in {boot.boot_s:.1f} s"


def _console_tail(boot: qemu.Boot | None) -> str:
    tail = boot.console[-2000:].decode("utf-8", "replace") if boot else ""
    return f"\n--- last console output ---\n{tail}" if tail else ""


def _sections(data: Path, boot: qemu.Boot) -> dict[str, str]:
    try:
        found = serial.sections(data.read_bytes() if data.exists() else b"")
        serial.require(found, "uname", "events", "workload", "topology", "trace")
    except serial.SerialLogError as err:
        raise VmCaptureError(f"the guest's data port: {err}{_console_tail(boot)}") from err
    return found


def _workload_result(text: str) -> tuple[str, int | None]:
    """(the workload's summary line(s), its exit status: 137 when the guest's timeout killed it)."""
    lines = [line for line in text.splitlines() if line]
    status = next((int(line[5:]) for line in lines if line.startswith("exit=") and line[5:].isdigit()), None)
    return " ".join(line for line in lines if not line.startswith("exit=")), status


def capture_vm(req: VmRequest) -> dict[str, Any]:
    """Runs one VM capture end to end and returns the --json document."""
    started = time.monotonic()
    work = _check(req)
    log: list[str] = []
    busybox = deps.ensure_host_tools(req.install, log)
    image_meta: dict[str, str] = {}
    kernel = _kernel(req, log, image_meta)
    for line in log:
        _say(f"ran: {line}")
    binary = workloads.build(work, req.cache / "bin")
    argv = work.argv(req.threads, req.seconds, req.delay_ms, req.pin)
    with tempfile.TemporaryDirectory(prefix="kscope-vm-") as tmp:
        init = guest.init_script(argv, list(work.events), work.buffer_kb, limit_s=int(req.seconds * 4) + 30)
        initrd = guest.build_initramfs(busybox, {work.name: binary}, init, Path(tmp) / "initrd.gz")
        machine = qemu.Machine(kernel, initrd, req.smp, req.numa, req.memory_mib, req.cmdline,
                               tcg_thread="single" if req.tcg_thread == "single" else "")
        data = Path(tmp) / "data.txt"
        boot, attempts, machine = _boot(req, machine, data, started, f"{req.smp} vCPUs in {req.numa} NUMA nodes, "
                               f"{req.memory_mib} MiB, workload {work.name} for {req.seconds:g} s")
        found = _sections(data, boot)
    sysfs = topology_dump(found["topology"])
    result, status = _workload_result(found["workload"])
    nodes = sum(1 for line in sysfs.splitlines() if line.startswith(b"../node/"))
    enabled = [e.strip() for e in found["events"].splitlines() if e.strip()]
    meta = {"capture": "1", "source": "qemu", "kernel": found["uname"].strip(), "machine": "x86_64",
            "accel": boot.accel, "qemu_cpu": qemu.cpu_model(machine, boot.accel), "smp": str(req.smp),
            **({"tcg_thread": machine.tcg_thread} if boot.accel == "tcg" and machine.tcg_thread else {}),
            "numa": str(nodes),
            "memory_mib": str(req.memory_mib), "events": ",".join(enabled), "workload": work.name,
            "command": " ".join(argv), "seconds": f"{req.seconds:.3f}", "result": result,
            "exit": str(status), "cmdline": f"{qemu.KERNEL_CMDLINE} {req.cmdline}".strip(), **image_meta,
            "scope": "system-wide", "trace_clock": "global",
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    if "stats" in found:  # per-CPU ring-buffer statistics (guest.py): did the kernel drop events?
        stats = guest.parse_stats(found["stats"])
        meta["cpu_stats"] = ";".join(f"{cpu}:" + ",".join(f"{k}={v}" for k, v in row.items())
                                     for cpu, row in stats.items())
        meta["dropped_events"] = str(sum(r.get("dropped", 0) + r.get("overrun", 0) for r in stats.values()))
    header = _header(meta, sysfs)
    header_lines = header.count(b"\n")
    if header_lines >= DETECT_SCAN_LINES:
        _say(f"warning: the header is {header_lines} lines; trace_detect.c reads the first "
             f"{DETECT_SCAN_LINES} lines of a file for a trace line, so `kscope ingest` may refuse it")
    req.output.parent.mkdir(parents=True, exist_ok=True)
    req.output.write_bytes(header + found["trace"].encode())
    topo_path = req.output.with_name(req.output.name + ".topology")
    topo_path.write_bytes(sysfs)
    by_type = count_events(found["trace"])
    return {"kernel": meta["kernel"], **image_meta, "cmdline": meta["cmdline"],
            "accel": boot.accel, "smp": req.smp, "numa": req.numa,
            "guest_numa_nodes": nodes, "workload": work.name, "seconds": req.seconds,
            "events": sum(by_type.values()), "by_type": dict(by_type.most_common()),
            "boot_s": _round(boot.boot_s), "total_s": _round(time.monotonic() - started),
            "output": str(req.output), "topology": str(topo_path), "result": result, "exit": status,
            "attempts": attempts, "installed": log}


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 2)
