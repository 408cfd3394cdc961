"""`kscope capture-vm`: a kernel booted in QEMU with a chosen CPU/NUMA shape, a workload run,
its scheduler events recorded."""

import argparse
import sys
from pathlib import Path
from typing import Any

from kscope.cli.common import EXIT_BAD_INPUT, EXIT_FAILURE, EXIT_OK, add_json, emit, non_negative, positive


def run(args: argparse.Namespace) -> int:
    from kscope.vm import capture_vm, deps, workloads

    request = capture_vm.VmRequest(workload=args.workload, seconds=args.seconds, output=Path(args.output),
                                   kernel=args.kernel, smp=args.smp, numa=args.numa, memory_mib=args.memory,
                                   cmdline=" ".join(args.cmdline or []), threads=args.threads,
                                   delay_ms=args.delay_ms, pin=not args.no_pin, accel=args.accel,
                                   tcg_thread=args.tcg_thread, timeout=args.timeout,
                                   install=not args.no_install, patches=args.patches)
    try:
        document = capture_vm.capture_vm(request)
    except (deps.MissingTool, capture_vm.VmRequestError) as err:
        print(f"kscope: capture-vm: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (capture_vm.VmCaptureError, workloads.WorkloadBuildError) as err:
        print(f"kscope: capture-vm: {err}", file=sys.stderr)
        return EXIT_FAILURE
    emit(document, args.json, lambda d: f"wrote {d['output']} ({d['events']} events, {d['kernel']}, "
                                        f"{d['accel']}, boot {d['boot_s']} s, total {d['total_s']} s)")
    return EXIT_OK


def add_parser(sub: Any) -> None:
    from kscope.vm.workloads import WORKLOADS

    vm = sub.add_parser("capture-vm", help="boot a kernel in QEMU with a chosen CPU/NUMA shape, run a workload, "
                                           "record its scheduler events")
    vm.add_argument("--kernel", default="debian",
                    help="'debian' (Debian's 6.12 image, fetched into .kscope/vm/ without installing it), "
                         "'built' (the newest `kscope kernel build`) or a bzImage path (default debian)")
    vm.add_argument("--patches", metavar="SETS", help="with --kernel built: the build's patch sets, as given to "
                                                      "`kscope kernel build --patches` (default: the newest build)")
    vm.add_argument("--smp", type=positive, default=16, help="vCPUs (default 16)")
    vm.add_argument("--numa", type=positive, default=4, help="NUMA nodes, one socket each (default 4)")
    vm.add_argument("--memory", type=positive, default=2048, metavar="MIB", help="guest memory (default 2048)")
    vm.add_argument("--workload", required=True, choices=list(WORKLOADS),
                    help="; ".join(f"{w.name}: {w.about} [seed {w.seed}]" for w in WORKLOADS.values()))
    vm.add_argument("--seconds", type=float, default=2.0, help="how long the workload runs (default 2)")
    vm.add_argument("--threads", type=positive, help="workload threads/processes (default: per workload)")
    vm.add_argument("--delay-ms", type=non_negative, default=200, help="intermittent: delay between turns (default 200)")
    vm.add_argument("--no-pin", action="store_true",
                    help="intermittent: leave the threads unpinned (default: thread i pinned to CPU i %% vCPUs)")
    vm.add_argument("--cmdline", action="append", metavar="ARGS", help="extra kernel command line")
    vm.add_argument("--accel", default="auto", choices=["auto", "kvm", "tcg"],
                    help="auto: KVM with a short boot timeout, then TCG (default)")
    vm.add_argument("--tcg-thread", default="multi", choices=["multi", "single"],
                    help="TCG only: one host thread per vCPU (multi, QEMU's default) or all vCPUs on one "
                         "(single: immune to the stale-code int3 oops a multi-threaded guest can hit while "
                         "its kernel live-patches itself at boot; measured here, 16 vCPUs on a loaded 2-core "
                         "host, booted in 31 s vs 91 s). A TCG panic is retried single-threaded anyway")
    vm.add_argument("--timeout", type=float, default=300.0, help="overall limit in seconds; QEMU is killed (default 300)")
    vm.add_argument("--no-install", action="store_true", help="never run apt; print what to install instead")
    vm.add_argument("-o", "--output", required=True, metavar="FILE", help="where to write the trace (and FILE.topology)")
    add_json(vm)
    vm.set_defaults(func=run)
