"""The guest side: the initramfs's /init script and what goes into the initramfs.

/init (busybox sh) mounts proc, sys, devtmpfs and tracefs, prints the boot
marker on the console (the host's sign that this accelerator works), enables
the tracepoints for every task (as `kscope capture` does: a pid filter would
drop the switches between other tasks - the kworkers and the migration
stoppers a workload's threads alternate with - and leave gaps in each CPU's
switch sequence; the guest runs little else), with the "global" trace clock (one
clock for all CPUs), runs the workload once (killed if it overstays a limit),
stops tracing, and writes sections to the data port (ttyS1, a file on the host)
between serial.py's markers:

    uname     the guest kernel release
    events    tracefs set_event: the tracepoints actually enabled
    workload  the workload's own output (its summary line)
    topology  "<path>\\t<first line>" for the sysfs files ks_topology_from_sysfs reads
    stats     "cpuN entries: E overrun: O dropped events: D" per CPU (per_cpu/cpuN/stats)
    trace     the tracefs `trace` text

then powers off (QEMU runs with -no-reboot, so a panic ends the run too).
"""

import shlex
from pathlib import Path

from kscope.vm import initramfs, serial

BOOT_MARKER = "KSCOPE-GUEST-BOOTED"
DONE_MARKER = "KSCOPE-GUEST-DONE"
DATA_PORT = "/dev/ttyS1"
TRACEFS = "/sys/kernel/tracing"
# Only the sysfs files ks_topology_from_sysfs reads (topology.h): the capture header
# stays short (16 CPUs: ~370 lines), and the trace detectors scan a file's first lines.
TOPOLOGY_FILES = ("physical_package_id", "core_id")
CACHE_FILES = ("level", "type", "size", "id", "shared_cpu_list")

_INIT = r"""#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tracefs tracefs {tracefs}
echo "{boot} $(uname -r) cpus=$(nproc)"
T={tracefs}
echo 0 > $T/tracing_on
echo {buffer_kb} > $T/buffer_size_kb
echo 1 > $T/options/record-tgid
echo global > $T/trace_clock
echo > $T/trace
for e in {events}; do
  echo 1 > $T/events/${{e%%:*}}/${{e#*:}}/enable 2>/dev/null || echo "kscope-guest: no tracepoint $e"
done
{filters}
echo 1 > $T/tracing_on
timeout -s KILL {limit} {argv} > /tmp/workload.out 2>&1
echo "exit=$?" >> /tmp/workload.out
echo 0 > $T/tracing_on
stty -F {port} raw -echo 2>/dev/null
section() {{ echo "{begin_fmt}"; cat; echo; echo "{end_fmt}"; }}
{{
  uname -r | section uname
  cat $T/set_event | section events
  cat /tmp/workload.out | section workload
  for f in {topology_globs} \
           {cache_globs} \
           /sys/devices/system/node/node[0-9]*/cpulist; do
    [ -f "$f" ] && printf '%s\t%s\n' "$f" "$(head -n 1 "$f" 2>/dev/null)"
  done | section topology
  for d in $T/per_cpu/cpu[0-9]*; do
    echo "${{d##*/}} $(grep -E '^(entries|overrun|dropped events):' $d/stats | tr '\n' ' ')"
  done | section stats
  cat $T/trace | section trace
}} > {port}
echo "{done}"
poweroff -f
"""

# Slab caches the mmap workload churns (the seed's barn traffic), to keep kmem traces small.
KMEM_FILTER = 'name ~ "vm_area_struct" || name ~ "maple_node"'


def init_script(argv: list[str], events: list[str], buffer_kb: int, limit_s: int = 600) -> str:
    """The /init text for one capture; the workload is killed after limit_s seconds (the trace still comes)."""
    filters = ""
    for e in events:
        if e.startswith("kmem:kmem_cache_"):
            system, name = e.split(":")
            filters += f"echo '{KMEM_FILTER}' > $T/events/{system}/{name}/filter 2>/dev/null\n"
    topology_globs = " ".join(f"/sys/devices/system/cpu/cpu[0-9]*/topology/{f}" for f in TOPOLOGY_FILES)
    cache_globs = " \\\n           ".join(f"/sys/devices/system/cpu/cpu[0-9]*/cache/index[0-9]*/{f}"
                                          for f in CACHE_FILES)
    return _INIT.format(boot=BOOT_MARKER, done=DONE_MARKER, buffer_kb=buffer_kb, events=" ".join(events),
                        filters=filters.rstrip(), argv=shlex.join(argv), tracefs=TRACEFS, limit=limit_s,
                        port=DATA_PORT,
                        begin_fmt=serial.BEGIN.format("$1"), end_fmt=serial.END.format("$1"),
                        topology_globs=topology_globs, cache_globs=cache_globs)


def build_initramfs(busybox: Path, binaries: dict[str, Path], init: str, out: Path) -> Path:
    """/init, /bin/busybox, /work/<name> for each workload binary, and the mount points."""
    archive = initramfs.Archive()
    for d in ("bin", "dev", "proc", "sys", "tmp", "work"):
        archive.dir(d)
    archive.chardev("dev/console", 5, 1)
    archive.chardev("dev/null", 1, 3, 0o666)
    archive.file("bin/busybox", busybox.read_bytes(), 0o755)
    archive.symlink("bin/sh", "busybox")
    for name, path in binaries.items():
        archive.file(f"work/{name}", path.read_bytes(), 0o755)
    archive.file("init", init.encode(), 0o755)
    return initramfs.write_gz(archive, out)


def parse_stats(text: str) -> dict[int, dict[str, int]]:
    """The stats section -> {cpu: {"entries": E, "overrun": O, "dropped": D}} (as capture.cpu_stats)."""
    out: dict[int, dict[str, int]] = {}
    for line in text.splitlines():
        name, _, rest = line.strip().partition(" ")
        if not name.startswith("cpu") or not name[3:].isdigit():
            continue
        words = rest.replace("dropped events:", "dropped:").split()
        row = {}
        for key, value in zip(words[0::2], words[1::2]):
            if key.endswith(":") and value.isdigit():
                row[key[:-1]] = int(value)
        out[int(name[3:])] = row
    return out
