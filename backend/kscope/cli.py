"""The `kscope` command line: serve the app, and report what the C core computes.

Reports go to stdout, as text or (with --json) as exactly one JSON document;
everything else (logs, errors) goes to stderr. Exit codes: 0 ok, 2 bad input,
1 internal failure.
"""

import argparse
import copy
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kscope import __version__, text_report, units
from kscope.core.config import get_settings
from kscope.calibrate import cli as calibrate_cli
from kscope.kernel import cli as kernel_cli
from kscope.trace_export import cli as export_cli
from kscope.ingest.native_ingest import NativeIngestFailed
from kscope.ingest.sources import InputError
from kscope.native import core
from kscope.store.errors import SqlRefused, SqlTimeout, TraceNotFound


def bad_input_errors() -> tuple[type[BaseException], ...]:
    """Bad input (exit 2): each names what was wrong and where. Imported when an error is
    caught (an except clause evaluates its expression then), so `kscope ingest` does not
    start by importing the simulator and the topology services."""
    from kscope import simulate, topology, topology_files

    return (topology.UnknownPreset, topology_files.TopologyInputError, core.ParseError,
            simulate.WorkloadFileError, InputError, TraceNotFound, SqlRefused, SqlTimeout)


def failures() -> tuple[type[BaseException], ...]:
    """Failures of the machine, not the input (exit 1)."""
    from kscope.bench import node

    return (core.CoreLibraryMissing, core.KscopeCoreError, node.NodeUnavailable, node.NodeScriptFailed,
            NativeIngestFailed)

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_BAD_INPUT = 2


def _emit(data: Any, as_json: bool, render: Callable[[Any], str]) -> None:
    print(json.dumps(data, indent=2) if as_json else render(data))


def cmd_version(_: argparse.Namespace) -> int:
    print(f"kscope {__version__} (core {core.version()})")
    return EXIT_OK


def cmd_presets(args: argparse.Namespace) -> int:
    from kscope import topology

    _emit(topology.list_presets(), args.json, text_report.presets_table)
    return EXIT_OK


def cmd_topology(args: argparse.Namespace) -> int:
    if args.list:
        return cmd_presets(args)
    from kscope import topology

    _emit(topology.topology_of_spec(args.preset), args.json, text_report.topology_table)
    return EXIT_OK


def cmd_sim(args: argparse.Namespace) -> int:
    from kscope import simulate

    request = simulate.SimRequest(topology=args.preset, workload=Path(args.workload), seed=args.seed,
                                  until_ns=args.until, algo=args.algo, hash_events=not args.no_hash)
    document = simulate.run(request, export_to=Path(args.output) if args.export else None)
    _emit(document, args.json, text_report.sim_summary)
    return EXIT_OK


def cmd_decode(args: argparse.Namespace) -> int:
    from kscope.native import ftrace

    path = Path(args.file)
    if not path.is_file():
        print(f"kscope: {path}: no such trace file", file=sys.stderr)
        return EXIT_BAD_INPUT
    from kscope.ingest.formats import TRACEDAT_MAGIC

    with open(path, "rb") as f:
        if f.read(len(TRACEDAT_MAGIC)) == TRACEDAT_MAGIC:
            print(f"kscope: {path}: byte 0: a trace-cmd trace.dat; `decode` reads ftrace text "
                  f"(use `kscope ingest {path}` or `kscope conform {path}`)", file=sys.stderr)
            return EXIT_BAD_INPUT
    document = {"file": str(path), **ftrace.decode_file(path).summary()}
    _emit(document, args.json, text_report.decode_summary)
    return EXIT_OK


def cmd_conform(args: argparse.Namespace) -> int:
    from kscope import conform

    document = conform.run(Path(args.file), variant=args.variant, hz=args.hz, keep=args.keep,
                           resync=args.resync)
    _emit(document, args.json, conform.render)
    return EXIT_OK


def cmd_bench(args: argparse.Namespace) -> int:
    from kscope.bench import core_bench, frame_bench, ingest_bench

    if args.target == "rooms":
        from kscope.bench import rooms_bench

        try:
            document = rooms_bench.run(args.followers, args.backends, args.steps,
                                       progress=lambda m: print(f"kscope bench rooms: {m}", file=sys.stderr))
        except rooms_bench.BenchFailed as err:
            print(f"kscope: bench rooms: {err}", file=sys.stderr)
            return EXIT_FAILURE
        _emit(document, args.json, rooms_bench.render)
        return EXIT_OK
    if args.target == "abuse":
        from kscope.bench import abuse_bench

        try:
            document = abuse_bench.run(args.uploads, args.followers, args.queries,
                                       progress=lambda m: print(f"kscope bench abuse: {m}", file=sys.stderr))
        except abuse_bench.BenchFailed as err:
            print(f"kscope: bench abuse: {err}", file=sys.stderr)
            return EXIT_FAILURE
        _emit(document, args.json, abuse_bench.render)
        return EXIT_OK if document["passed"] else EXIT_FAILURE
    if args.target == "ingest":
        document = ingest_bench.run(args.events if args.events != 5_000_000 else 1_000_000, args.big,
                                    dat_events=args.dat_events)
    elif args.target == "core":
        try:
            document = core_bench.run(args.events, args.repeat)
        except core_bench.HashMismatch as err:
            _emit(err.document, args.json, text_report.bench_report)
            print(f"kscope: {err}", file=sys.stderr)
            return EXIT_FAILURE
    else:
        document = frame_bench.run(args.frames, args.tick, args.warmup)
    _emit(document, args.json, text_report.bench_report)
    return EXIT_OK


def cmd_repro(args: argparse.Namespace) -> int:
    from kscope.repro import mm_cid

    def progress(message: str) -> None:
        print(f"kscope repro: {message}", file=sys.stderr)

    document = mm_cid.run(rounds=args.rounds, runs=args.runs, background=args.background,
                          progress=None if args.json else progress)
    _emit(document, args.json, text_report.repro_mm_cid)
    return EXIT_OK


def _open_store():  # type: ignore[no-untyped-def]
    from kscope.store.store import TraceStore

    return TraceStore(get_settings())


def cmd_ingest(args: argparse.Namespace) -> int:
    from kscope.ingest.pipeline import ingest

    path = Path(args.file)
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    attached = None
    if args.topology:
        from kscope import trace_topology
        from kscope.ingest.pipeline import AttachedTopology

        dump, described = trace_topology.read_topology_path(Path(args.topology))
        attached = AttachedTopology(dump, described, args.topology)
    store = _open_store()
    try:
        done = ingest(store, path, name=path.name, topology=attached)
    finally:
        store.close()
    document = {**done.record.summary, "token": done.token}
    _emit(document, args.json, text_report.ingest_summary)
    return EXIT_OK


def cmd_traces(args: argparse.Namespace) -> int:
    store = _open_store()
    try:
        rows = [{k: v for k, v in vars(r).items() if k not in ("owner_hash", "summary")}
                for r in store.list_traces()]
    finally:
        store.close()
    _emit(rows, args.json, text_report.traces_table)
    return EXIT_OK


def cmd_query(args: argparse.Namespace) -> int:
    store = _open_store()
    try:
        store.get(args.trace_id)
        result = store.sql(args.trace_id, args.sql)
    finally:
        store.close()
    _emit(result, args.json, text_report.query_table)
    return EXIT_OK


def _share_text(doc: dict[str, Any]) -> str:
    if "url" in doc:
        return (f"{doc['url']}\n(read-only; replaces any earlier share link of this trace; "
                f"revoke with `kscope share revoke {doc['trace_id']}`)")
    if "revoked" in doc:
        return "revoked: its links open nothing from now on" if doc["revoked"] else "it had no share link"
    return f"shared since {doc['created_at']}" if doc["shared"] else "not shared"


def cmd_share(args: argparse.Namespace) -> int:
    """The store's operator (like `kscope query`, no owner token needed) makes, shows or
    revokes a trace's read-only share token; the API does the same for the owner."""
    from kscope.api.routes.shares import share_url

    store = _open_store()
    try:
        if args.action == "create":
            share, record = store.create_share(args.trace_id)
            doc: dict[str, Any] = {"trace_id": args.trace_id, "share": share, "created_at": record.created_at,
                                   "url": args.base.rstrip("/") + share_url(args.trace_id, share)}
        elif args.action == "revoke":
            doc = {"trace_id": args.trace_id, "revoked": store.revoke_share(args.trace_id)}
        else:
            current = store.share_of(args.trace_id)
            doc = {"trace_id": args.trace_id, "shared": current is not None,
                   "created_at": current.created_at if current else None}
    finally:
        store.close()
    _emit(doc, args.json, _share_text)
    return EXIT_OK


def cmd_capture(args: argparse.Namespace) -> int:
    from kscope import capture

    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if command and args.pid:
        raise InputError("capture: give --pid P or -- CMD, not both")
    request = capture.CaptureRequest(seconds=args.seconds, events=args.events or [], output=Path(args.output),
                                     pid=args.pid, command=command or None)
    try:
        document = (capture.capture_trace_cmd if args.trace_cmd else capture.capture)(request)
    except capture.CaptureRefused as err:
        print(f"kscope: capture refused: {err}", file=sys.stderr)
        return EXIT_FAILURE
    except KeyboardInterrupt:
        print("kscope: capture interrupted; tracing state restored", file=sys.stderr)
        return 130
    _emit(document, args.json, lambda d: f"wrote {d['output']} ({d['bytes']} bytes, {d['seconds']} s)")
    return EXIT_OK


def cmd_capture_vm(args: argparse.Namespace) -> int:
    from kscope.vm import capture_vm, deps, workloads

    request = capture_vm.VmRequest(workload=args.workload, seconds=args.seconds, output=Path(args.output),
                                   kernel=args.kernel, smp=args.smp, numa=args.numa, memory_mib=args.memory,
                                   cmdline=" ".join(args.cmdline or []), threads=args.threads,
                                   delay_ms=args.delay_ms, accel=args.accel, timeout=args.timeout,
                                   install=not args.no_install, patches=args.patches)
    try:
        document = capture_vm.capture_vm(request)
    except (deps.MissingTool, capture_vm.VmRequestError) as err:
        print(f"kscope: capture-vm: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (capture_vm.VmCaptureError, workloads.WorkloadBuildError) as err:
        print(f"kscope: capture-vm: {err}", file=sys.stderr)
        return EXIT_FAILURE
    _emit(document, args.json, lambda d: f"wrote {d['output']} ({d['events']} events, {d['kernel']}, "
                                         f"{d['accel']}, boot {d['boot_s']} s, total {d['total_s']} s)")
    return EXIT_OK


def _uvicorn_log_config() -> dict[str, Any]:
    """uvicorn's logging config with the access log moved from stdout to stderr."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config["handlers"]["access"]["stream"] = "ext://sys.stderr"
    # Query-string tokens (room presenter, trace owner) are written as token=***.
    config.setdefault("filters", {})["redact_tokens"] = {"()": "kscope.api.log_filters.RedactTokens"}
    for handler in config["handlers"].values():
        handler.setdefault("filters", []).append("redact_tokens")
    return config


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from kscope.api.app import create_app

    settings = get_settings()
    host = args.host or settings.host
    port = args.port or settings.port
    print(f"kscope {__version__}: core {core.version()} from {settings.core_lib}", file=sys.stderr)
    # ws_max_size: a WebSocket frame over 1 MiB closes its socket (1009); frames up to that
    # are read and the rooms refuse those over KSCOPE_ROOM_MAX_MESSAGE_BYTES with an error frame.
    # No permessage-deflate: room frames are ~100 bytes, and compressing each one for each
    # follower cost a third of the server's CPU per broadcast (kscope bench rooms: 11.5 -> 7.7 ms
    # for 300 followers).
    uvicorn.run(create_app(settings), host=host, port=port, log_config=_uvicorn_log_config(),
                ws_max_size=1 << 20, ws_per_message_deflate=False)
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    """The argument parser; each subcommand's handler is in its `func` default."""
    parser = argparse.ArgumentParser(
        prog="kscope", description="Teaching visualizer for Linux kernel scheduling algorithms."
    )
    parser.add_argument("--version", action="store_true", help="print backend and core versions")
    parser.set_defaults(func=None)
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")

    serve = sub.add_parser("serve", help="serve the API and the built frontend")
    serve.add_argument("--host", help="interface to bind (default: KSCOPE_HOST or 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port to listen on (default: KSCOPE_PORT or 8000)")
    serve.set_defaults(func=cmd_serve)

    topo = sub.add_parser("topology", help="show a topology (preset or your machine's dump) as the C core reads it")
    topo.add_argument("preset", nargs="?", metavar="FILE|PRESET",
                      help="preset name (see --list), or lscpu -p output, a flattened sysfs dump, "
                           "a /sys/devices/system/cpu directory or a tarball of one")
    topo.add_argument("--list", action="store_true", help="list the presets instead")
    topo.add_argument("--json", action="store_true", help="print one JSON document")
    topo.set_defaults(func=cmd_topology)

    presets = sub.add_parser("presets", help="list the topology presets")
    presets.add_argument("--json", action="store_true", help="print one JSON document")
    presets.set_defaults(func=cmd_presets)

    _add_sim_parser(sub)
    _add_decode_parser(sub)
    _add_conform_parser(sub)
    _add_store_parsers(sub)
    _add_capture_parser(sub)
    _add_capture_vm_parser(sub)
    kernel_cli.add_parser(sub)
    export_cli.add_parser(sub)
    calibrate_cli.add_parser(sub)
    _add_bench_parser(sub)
    _add_repro_parser(sub)
    _add_export_lesson_parser(sub)
    return parser


def _duration(text: str) -> int:
    try:
        ns = units.parse_duration_ns(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from err
    if ns == 0:
        raise argparse.ArgumentTypeError(f"bad duration {text!r}: must be more than 0")
    return ns


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        value = -1
    if not 0 <= value < 1 << 64:
        raise argparse.ArgumentTypeError(f"expected an integer 0..2^64-1, got {text!r}")
    return value


def _add_sim_parser(sub: Any) -> None:
    sim = sub.add_parser("sim", help="run a workload in the C scheduler core and summarize the run")
    sim.add_argument("--preset", required=True, metavar="PRESET|FILE",
                     help="topology preset, or a topology file/directory/tarball (see `topology`)")
    sim.add_argument("--workload", required=True, metavar="W.json",
                     help="workload JSON (schema: wasm-core/src/sched/workload.c)")
    sim.add_argument("--seed", type=_seed, default=0, help="RNG seed (default 0)")
    sim.add_argument("--until", type=_duration, required=True, metavar="DURATION",
                     help="simulated time to run to: 2s, 150ms, 500us, 1000ns (the run stops after "
                          "the first event at or past it, or when the workload ends)")
    sim.add_argument("--algo", default="auto",
                     help="scheduling algorithm model: none, mm_cid:v6.12|v6.13|v6.18, or auto (default): "
                          "mm_cid:v6.18, as a current kernel runs it, when a process of the workload "
                          "registers rseq, else none")
    sim.add_argument("--json", action="store_true", help="print one JSON document")
    sim.add_argument("--no-hash", action="store_true",
                     help="skip the event-stream hash (FNV-1a 64 over the records, in C)")
    sim.add_argument("--export", choices=["ftrace"], help="also write the run's events in this format")
    sim.add_argument("-o", "--output", metavar="FILE", help="file for --export")
    sim.set_defaults(func=cmd_sim)


def _add_decode_parser(sub: Any) -> None:
    decode = sub.add_parser("decode", help="decode an ftrace text file with the C decoder")
    decode.add_argument("file", metavar="FILE", help="tracefs `trace` text or `trace-cmd report` output")
    decode.add_argument("--json", action="store_true", help="print one JSON document")
    decode.set_defaults(func=cmd_decode)


def _add_conform_parser(sub: Any) -> None:
    conf = sub.add_parser("conform", help="replay a trace's scheduling events through a model and compare "
                                          "its decisions with the kernel's (mm_cid: rseq_update's mm_cid)")
    conf.add_argument("file", metavar="FILE", help="a trace with rseq:rseq_update events (any format "
                                                   "`ingest` reads, e.g. from `kscope capture`)")
    conf.add_argument("--algo", choices=["mm_cid"], default="mm_cid", help="the model (default mm_cid)")
    conf.add_argument("--variant", choices=["auto", "v6.12", "v6.13", "v6.18"], default="auto",
                      help="model variant; auto: from the trace's kernel version (< 6.13: v6.12, "
                           "6.13-6.17: v6.13, >= 6.18: v6.18; variant_from \"header\"), or, when the trace "
                           "names no kernel, every variant replayed and the best agreement chosen "
                           "(variant_from \"inferred\", each variant's figures in \"variants\")")
    conf.add_argument("--hz", type=_positive, default=250,
                      help="CONFIG_HZ of the traced kernel: the modelled tick that runs the 100 ms scan "
                           "(default 250)")
    conf.add_argument("--keep", type=_positive, default=10, help="disagreements to list (default 10)")
    conf.add_argument("--resync", action="store_true",
                      help="after each disagreement the model adopts the kernel's cid: agreement then "
                           "counts decisions taken from the kernel's state (no cascade)")
    conf.add_argument("--json", action="store_true", help="print one JSON document")
    conf.set_defaults(func=cmd_conform)


def _add_store_parsers(sub: Any) -> None:
    ingest = sub.add_parser("ingest", help="decode a trace file and store it (format detected from content)")
    ingest.add_argument("file", metavar="FILE",
                        help="ftrace text (tracefs `trace`, `trace-cmd report`, `kscope capture`), "
                             "plain or gzip/xz/zstd/zip compressed")
    ingest.add_argument("--topology", metavar="FILE",
                        help="the machine's CPU topology, for a trace without kscope's sysfs header: `lscpu -p` "
                             "output, a flattened sysfs dump, a sysfs directory or a tarball of one (as "
                             "`kscope topology FILE` reads them); refused unless its CPU count is the trace's")
    ingest.add_argument("--json", action="store_true", help="print one JSON document")
    ingest.set_defaults(func=cmd_ingest)

    traces = sub.add_parser("traces", help="list the stored traces")
    traces.add_argument("--json", action="store_true", help="print one JSON document")
    traces.set_defaults(func=cmd_traces)

    query = sub.add_parser("query", help="run one read-only SQL SELECT over a stored trace's `events`")
    query.add_argument("trace_id", metavar="ID", help="trace id (see `kscope traces`)")
    query.add_argument("sql", metavar="SQL", help='e.g. "SELECT type, count(*) FROM events GROUP BY 1"')
    query.add_argument("--json", action="store_true", help="print one JSON document")
    query.set_defaults(func=cmd_query)

    share = sub.add_parser("share", help="make, show or revoke a stored trace's read-only share link")
    share.add_argument("action", choices=["create", "status", "revoke"],
                       help="create: a new token (replacing the old one); revoke: end it at once")
    share.add_argument("trace_id", metavar="ID", help="trace id (see `kscope traces`)")
    share.add_argument("--base", default="", metavar="URL",
                       help="the server's address to print a whole link with, e.g. http://127.0.0.1:8000")
    share.add_argument("--json", action="store_true", help="print one JSON document")
    share.set_defaults(func=cmd_share)


def _add_capture_parser(sub: Any) -> None:
    cap = sub.add_parser("capture", help="record scheduler events from the running kernel (tracefs, root)")
    cap.add_argument("--seconds", type=float, default=1.0, help="how long to record (default 1; with CMD: at most)")
    cap.add_argument("--events", action="append", metavar="LIST",
                     help="comma-separated: sched, rseq, the presets irq, softirq, idle, freq, sched_stat "
                          "(see capture.PRESETS), SYSTEM:*, SYSTEM:EVENT (default: kscope's sched "
                          "tracepoints and rseq_update)")
    cap.add_argument("--pid", type=_positive, help="only this process (and its children/threads)")
    cap.add_argument("--trace-cmd", action="store_true", help="record a trace.dat with trace-cmd instead")
    cap.add_argument("-o", "--output", required=True, metavar="FILE", help="where to write the trace")
    cap.add_argument("--json", action="store_true", help="print one JSON document")
    cap.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD ...",
                     help="run CMD and record it (and its threads/children) while it runs")
    cap.set_defaults(func=cmd_capture)


def _add_capture_vm_parser(sub: Any) -> None:
    from kscope.vm.workloads import WORKLOADS

    vm = sub.add_parser("capture-vm", help="boot a kernel in QEMU with a chosen CPU/NUMA shape, run a workload, "
                                           "record its scheduler events")
    vm.add_argument("--kernel", default="debian",
                    help="'debian' (Debian's 6.12 image, fetched into .kscope/vm/ without installing it), "
                         "'built' (the newest `kscope kernel build`) or a bzImage path (default debian)")
    vm.add_argument("--patches", metavar="SETS", help="with --kernel built: the build's patch sets "
                                                      "(e.g. mm_cid,trace; default: the newest build)")
    vm.add_argument("--smp", type=_positive, default=16, help="vCPUs (default 16)")
    vm.add_argument("--numa", type=_positive, default=4, help="NUMA nodes, one socket each (default 4)")
    vm.add_argument("--memory", type=_positive, default=2048, metavar="MIB", help="guest memory (default 2048)")
    vm.add_argument("--workload", required=True, choices=list(WORKLOADS),
                    help="; ".join(f"{w.name}: {w.about} [seed {w.seed}]" for w in WORKLOADS.values()))
    vm.add_argument("--seconds", type=float, default=2.0, help="how long the workload runs (default 2)")
    vm.add_argument("--threads", type=_positive, help="workload threads/processes (default: per workload)")
    vm.add_argument("--delay-ms", type=_non_negative, default=200, help="intermittent: delay between turns (default 200)")
    vm.add_argument("--cmdline", action="append", metavar="ARGS", help="extra kernel command line")
    vm.add_argument("--accel", default="auto", choices=["auto", "kvm", "tcg"],
                    help="auto: KVM with a short boot timeout, then TCG (default)")
    vm.add_argument("--timeout", type=float, default=300.0, help="overall limit in seconds; QEMU is killed (default 300)")
    vm.add_argument("--no-install", action="store_true", help="never run apt; print what to install instead")
    vm.add_argument("-o", "--output", required=True, metavar="FILE", help="where to write the trace (and FILE.topology)")
    vm.add_argument("--json", action="store_true", help="print one JSON document")
    vm.set_defaults(func=cmd_capture_vm)


def _add_bench_parser(sub: Any) -> None:
    bench = sub.add_parser("bench", help="benchmarks of the C core, native and wasm (figures, not tests)")
    bench.add_argument("target", choices=["core", "frame", "ingest", "rooms", "abuse"],
                       help="core: events/s native vs wasm; frame: one animation frame of 480 CPUs in wasm; "
                            "ingest: real-trace ingest (MB/s, RSS, bytes/event, summary latency); "
                            "rooms: step-broadcast latency to WebSocket followers, 1 and 2 backends; "
                            "abuse: uploads + room followers + SQL at once against one server (errors, "
                            "lost, health p99)")
    bench.add_argument("--events", type=_positive, default=5_000_000,
                       help="core: events per run (default 5M); ingest: the small trace (default 1M)")
    bench.add_argument("--big", type=_non_negative, default=10_000_000,
                       help="ingest: the big trace's events (default 10M; 0 skips it)")
    bench.add_argument("--dat-events", type=_non_negative, default=1_000_000,
                       help="ingest: events of the trace.dat captured from this kernel (default 1M; 0 skips it)")
    bench.add_argument("--repeat", type=_positive, default=3, help="core: runs per side, best counts (default 3)")
    bench.add_argument("--frames", type=_positive, default=500, help="frame: timed frames (default 500)")
    bench.add_argument("--tick", type=_duration, default=100_000, metavar="DURATION",
                       help="frame: simulated time per frame (default 100us)")
    bench.add_argument("--warmup", type=int, default=10, help="frame: untimed frames first (default 10)")
    bench.add_argument("--followers", type=_positive, default=300,
                       help="rooms, abuse: follower sockets (default 300)")
    bench.add_argument("--uploads", type=_positive, default=50, help="abuse: concurrent uploads (default 50)")
    bench.add_argument("--queries", type=_positive, default=20, help="abuse: concurrent SQL queries (default 20)")
    bench.add_argument("--backends", type=int, choices=[1, 2],
                       help="rooms: 1 (memory broker) or 2 (Redis); default: both, with the p99 ratio")
    bench.add_argument("--steps", type=_positive, default=100, help="rooms: states the presenter sends (default 100)")
    bench.add_argument("--json", action="store_true", help="print one JSON document")
    bench.set_defaults(func=cmd_bench)


def _non_negative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}")
    return value


def _add_repro_parser(sub: Any) -> None:
    repro = sub.add_parser("repro", help="re-run a seed's benchmark on the models, beside the published figures")
    repro.add_argument("target", choices=["mm_cid"],
                       help="mm_cid: seed 000 (7e019dc), librseq's intermittent benchmark on epyc-9654-2s")
    repro.add_argument("--rounds", type=_positive, default=5,
                       help="measured bursts per thread (default 5, librseq's LOOPS_PER_THREAD)")
    repro.add_argument("--runs", type=_positive, default=5,
                       help="runs averaged, seeds 1..N (default 5, as the seed averages 5 runs)")
    repro.add_argument("--background", type=_non_negative, default=0, metavar="B",
                       help="background traffic evicting cached lines, bytes/us per core (x8 per L3); "
                            "default 0: the machine runs only the benchmark")
    repro.add_argument("--json", action="store_true", help="print one JSON document")
    repro.set_defaults(func=cmd_repro)


def cmd_export_lesson(args: argparse.Namespace) -> int:
    from kscope import export_lesson

    try:
        document = export_lesson.export(args.name, Path(args.output))
    except export_lesson.LessonNotFound as err:
        print(f"kscope: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    _emit(document, args.json,
          lambda d: f"wrote {d['index']} ({d['bytes']} bytes, {d['steps']} steps): open it in a browser, no server needed")
    return EXIT_OK


def _add_export_lesson_parser(sub: Any) -> None:
    exp = sub.add_parser("export-lesson", help="write a lesson as a static folder (app + wasm + lesson) that runs "
                                               "from any static host or file://, no backend")
    exp.add_argument("name", help="lesson id, e.g. mm_cid (frontend/src/lessons/NAME.lesson.json)")
    exp.add_argument("-o", "--output", required=True, metavar="DIR", help="folder to write (created if missing)")
    exp.add_argument("--json", action="store_true", help="print one JSON document")
    exp.set_defaults(func=cmd_export_lesson)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `kscope` console script; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.version:
        handler = cmd_version
    elif args.func is None:
        parser.print_help(sys.stderr)
        return EXIT_BAD_INPUT
    else:
        handler = args.func
    if handler is cmd_topology and not args.list and not args.preset:
        parser.error("topology: give a PRESET or --list")
    if handler is cmd_sim and bool(args.export) != bool(args.output):
        parser.error("sim: --export FORMAT and -o FILE go together")
    try:
        return handler(args)
    except bad_input_errors() as err:
        print(f"kscope: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as err:  # an unwritable -o FILE, say
        print(f"kscope: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT if handler is not cmd_bench else EXIT_FAILURE
    except failures() as err:
        print(f"kscope: {err}", file=sys.stderr)
        return EXIT_FAILURE
