"""The QEMU side: the machine's command line, and one boot with its timeouts.

A guest of `smp` vCPUs in `numa` nodes is `numa` sockets of smp/numa cores,
node i holding socket i's CPUs and 1/numa of the memory:

    -smp 16,sockets=4,cores=4,threads=1
    -object memory-backend-ram,id=m0,size=512M -numa node,nodeid=0,cpus=0-3,memdev=m0   (x4)

The console (ttyS0) is QEMU's stdout, read line by line for the boot marker;
the data port (ttyS1) is a file. KVM is tried first with a short boot
timeout (nested VMs often expose /dev/kvm yet never boot a guest); TCG is
the fallback. Every run has an overall deadline after which QEMU is killed.
"""

import os
import selectors
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

QEMU = "qemu-system-x86_64"
# Console text meaning KVM cannot run this guest here: give up on it at once.
KVM_FAILURES = (b"KVM internal error", b"emulation failure", b"failed to initialize kvm",
                b"Could not access KVM kernel module")
# TCG's "max" model with Intel's vendor string: the guest reads cache topology from
# CPUID leaf 4 and gets one L3 per socket with matching ids (with the default AMD
# vendor, 6.12 numbers every CPU's L3 id apart while shared_cpu_list says per socket).
TCG_CPU = "max,vendor=GenuineIntel"
KERNEL_CMDLINE = "console=ttyS0 quiet loglevel=3 panic=-1 mitigations=off rdinit=/init"


class QemuUnavailable(RuntimeError):
    """No QEMU binary (the message says how to install it)."""


class NumaShapeError(ValueError):
    """--smp/--numa/memory that do not make a machine (the message says why)."""


def numa_args(smp: int, numa: int, memory_mib: int) -> list[str]:
    """-smp and one memory backend + -numa node per node; NumaShapeError for uneven shapes."""
    if smp < 1 or numa < 1:
        raise NumaShapeError(f"--smp {smp} --numa {numa}: both must be at least 1")
    if smp % numa:
        raise NumaShapeError(f"--smp {smp} does not split evenly into --numa {numa} nodes")
    if memory_mib < 64 * numa:
        raise NumaShapeError(f"{memory_mib} MiB is too little for {numa} nodes (64 MiB each at least)")
    per_node = smp // numa
    args = ["-smp", f"{smp},sockets={numa},cores={per_node},threads=1"]
    base = memory_mib // numa
    for node in range(numa):
        size = base + (memory_mib - base * numa if node == numa - 1 else 0)
        first = node * per_node
        cpus = str(first) if per_node == 1 else f"{first}-{first + per_node - 1}"
        args += ["-object", f"memory-backend-ram,id=m{node},size={size}M",
                 "-numa", f"node,nodeid={node},cpus={cpus},memdev=m{node}"]
    return args


def find_qemu() -> str | None:
    return shutil.which(QEMU)


def kvm_usable() -> bool:
    return os.access("/dev/kvm", os.R_OK | os.W_OK)


@dataclass
class Machine:
    kernel: Path
    initrd: Path
    smp: int
    numa: int
    memory_mib: int = 2048
    cmdline: str = ""  # appended to KERNEL_CMDLINE
    cpu: str = ""  # QEMU -cpu model; default: host under KVM, max under TCG
    # TCG's threading: "" = QEMU's default (one host thread per vCPU), "single" = every vCPU on
    # one thread. A multi-threaded guest can execute a stale translation of code the kernel has
    # just live-patched (a static key flipped through text_poke's int3 protocol) after the
    # patch completed: "Oops: int3" in update_sd_lb_stats at boot, then "Fatal exception in
    # interrupt" (Debian 7.3.4, 16 vCPUs, traces/README.md). Single-threaded TCG runs one vCPU
    # at a time, so no vCPU can be inside old code while another patches it.
    tcg_thread: str = ""


def cpu_model(m: Machine, accel: str) -> str:
    return m.cpu or ("host" if accel == "kvm" else TCG_CPU)


def command(m: Machine, accel: str, data_file: Path, qemu: str = QEMU) -> list[str]:
    accel_arg = f"tcg,thread={m.tcg_thread}" if accel == "tcg" and m.tcg_thread else accel
    return [qemu, "-accel", accel_arg, "-cpu", cpu_model(m, accel), "-m", f"{m.memory_mib}M",
            *numa_args(m.smp, m.numa, m.memory_mib),
            "-kernel", str(m.kernel), "-initrd", str(m.initrd),
            "-append", f"{KERNEL_CMDLINE} {m.cmdline}".strip(),
            "-nographic", "-no-reboot", "-monitor", "none",
            "-serial", "stdio", "-serial", f"file:{data_file}",
            "-nic", "none"]


@dataclass
class Boot:
    accel: str
    booted: bool  # the boot marker came
    finished: bool  # the done marker came and QEMU exited
    returncode: int | None
    boot_s: float | None  # launch to boot marker
    total_s: float
    console: bytes
    why: str = ""  # what went wrong, when something did
    argv: list[str] = field(default_factory=list)


def _kill(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.wait()


def run(argv: list[str], boot_marker: str, done_marker: str, boot_timeout: float, deadline: float) -> Boot:
    """Runs QEMU to its exit; killed when no boot marker by boot_timeout s or still running at deadline s."""
    accel = argv[argv.index("-accel") + 1]
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert proc.stdout is not None
    os.set_blocking(proc.stdout.fileno(), False)
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    console = bytearray()
    boot_s: float | None = None
    why = ""
    try:
        while True:
            now = time.monotonic() - start
            if boot_s is None and boot_marker.encode() in console:
                boot_s = now
            failure = next((f for f in KVM_FAILURES if f in console), None) if accel == "kvm" else None
            if boot_s is None and failure is not None:
                why = f"KVM failed: {failure.decode()}"
                break
            if boot_s is None and now > boot_timeout:
                why = f"no boot marker after {boot_timeout:g} s"
                break
            if now > deadline:
                why = f"still running after {deadline:g} s (overall timeout): killed"
                break
            for _ in sel.select(timeout=0.2):
                chunk = proc.stdout.read(65536)
                if chunk:
                    console += chunk
            if proc.poll() is not None:
                rest = proc.stdout.read()
                console += rest or b""
                break
    finally:
        sel.close()
        _kill(proc)
    if boot_s is None and boot_marker.encode() in console:
        boot_s = time.monotonic() - start
    # The guest's last console line can be lost to `poweroff -f` (the UART had not sent
    # it yet), so a clean exit counts as finished too; the caller checks the data port.
    finished = not why and (done_marker.encode() in console or proc.returncode == 0)
    if not why and not finished:
        why = f"QEMU exited with status {proc.returncode} before the guest finished"
    return Boot(accel, boot_s is not None, finished, proc.returncode, boot_s, time.monotonic() - start,
                bytes(console), why, argv)
