"""The guest workloads: C sources here, built static on the host, run by the guest's init.

Each is one small C file shaped like a seed's benchmark (its opening comment
says which); `Workload.argv` turns the capture's options into its command line.
Binaries are cached under the build directory by a hash of source and flags.
"""

import hashlib
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

SOURCES = Path(__file__).parent
CFLAGS = ("-static", "-O2", "-Wall", "-pthread")

SCHED = ("sched:sched_switch", "sched:sched_waking", "sched:sched_wakeup", "sched:sched_wakeup_new",
         "sched:sched_migrate_task", "sched:sched_process_fork", "sched:sched_process_exit",
         "sched:sched_process_free", "sched:sched_process_exec")
RSEQ = ("rseq:rseq_update",)
# The tick handler's hrtimer firing (and every other hrtimer's): where the kernel's ticks ran,
# which the mm_cid replay needs to place the scan (task_work a tick queues; kscope/conform.py).
TICKS = ("timer:hrtimer_expire_entry",)
KMEM = ("kmem:kmem_cache_alloc", "kmem:kmem_cache_free")
# kernel-patches/cpupri-per-node/6.12's tracepoints (a kernel without them just skips them).
KSCOPE_CPUPRI = ("kscope:kscope_cpupri_set", "kscope:kscope_cpupri_find")


class WorkloadBuildError(RuntimeError):
    """gcc is missing or failed (the message has its output)."""


@dataclass(frozen=True)
class Workload:
    name: str
    source: str
    seed: str  # which seed patch it illustrates
    events: tuple[str, ...]
    default_threads: int
    buffer_kb: int  # per-CPU trace buffer in the guest
    about: str

    def argv(self, threads: int | None, seconds: float, delay_ms: int, pin: bool = True) -> list[str]:
        n = str(threads or self.default_threads)
        s = f"{seconds:g}"
        if self.name == "intermittent":  # its 4th argument PIN: 1 thread i on CPU i % ncpu, 0 not pinned
            return [f"/work/{self.name}", n, str(delay_ms), s] + ([] if pin else ["0"])
        if self.name == "rt":
            return [f"/work/{self.name}", n, "1000", s, "99"]
        if self.name == "hackbench":
            return [f"/work/{self.name}", "1", n, s]  # one group of n senders x n receivers
        return [f"/work/{self.name}", n, s]


# kscope's own tracepoint (kernel-patches/mm_cid-7e019dc/6.12/, `kscope kernel build --patches
# mm_cid,trace`); a kernel without it just skips it (the guest says so on the console).
KSCOPE_MM_CID = ("kscope:kscope_mm_cid_get",)

WORKLOADS = {w.name: w for w in (
    Workload("intermittent", "intermittent.c", "000/003 mm_cid 7e019dc", SCHED + RSEQ + TICKS + KSCOPE_MM_CID, 8, 4096,
             "threads take turns (random order, DELAY ms apart), each pinned to its own CPU, "
             "incrementing 16 KiB indexed by its rseq mm_cid"),
    Workload("rt", "rt_periodic.c", "001 cpupri per-node", SCHED + KSCOPE_CPUPRI, 4, 4096,
             "SCHED_FIFO 99 threads waking every 1 ms (cyclictest-like)"),
    Workload("hackbench", "hackbench.c", "004 cache-aware scheduling v2", SCHED, 4, 4096,
             "one group of N sender and N receiver threads exchanging 100-byte messages over pipes"),
    Workload("mmap", "mmap_loop.c", "002 SLUB sheaves spare", SCHED + KMEM, 4, 256,
             "N processes mapping and unmapping 128 MiB anonymous regions (will-it-scale mmap2-like)"),
)}


def find_gcc() -> str | None:
    return shutil.which("gcc") or shutil.which("cc")


def build(workload: Workload, out_dir: Path) -> Path:
    """The static binary for workload, compiled unless cached; WorkloadBuildError if it can't be."""
    src = SOURCES / workload.source
    gcc = find_gcc()
    if gcc is None:
        raise WorkloadBuildError("no C compiler: install gcc and libc6-dev (apt-get install gcc libc6-dev)")
    digest = hashlib.sha256(src.read_bytes() + " ".join(CFLAGS).encode()).hexdigest()[:16]
    out = out_dir / f"{workload.name}-{digest}"
    if out.is_file():
        return out
    out_dir.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    done = subprocess.run([gcc, *CFLAGS, "-o", str(tmp), str(src)], capture_output=True, text=True)
    if done.returncode != 0:
        hint = " (static glibc is in libc6-dev)" if "cannot find -lc" in done.stderr else ""
        raise WorkloadBuildError(f"gcc failed on {src.name}{hint}:\n{done.stderr.strip()}")
    tmp.rename(out)
    return out
