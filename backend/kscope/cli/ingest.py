"""`kscope ingest FILE`: a trace decoded and stored (format detected from content)."""

import argparse
from pathlib import Path
from typing import Any

from kscope import text_report
from kscope.cli.common import EXIT_OK, add_json, emit, open_store
from kscope.ingest.sources import InputError


def run(args: argparse.Namespace) -> int:
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
    store = open_store()
    try:
        done = ingest(store, path, name=path.name, topology=attached)
    finally:
        store.close()
    document = {**done.record.summary, "token": done.token}
    emit(document, args.json, text_report.ingest_summary)
    return EXIT_OK


def add_parser(sub: Any) -> None:
    ingest = sub.add_parser("ingest", help="decode a trace file and store it (format detected from content)")
    ingest.add_argument("file", metavar="FILE",
                        help="ftrace text (tracefs `trace`, `trace-cmd report`, `kscope capture`), "
                             "plain or gzip/xz/zstd/zip compressed")
    ingest.add_argument("--topology", metavar="FILE",
                        help="the machine's CPU topology, for a trace without kscope's sysfs header: `lscpu -p` "
                             "output, a flattened sysfs dump, a sysfs directory or a tarball of one (as "
                             "`kscope topology FILE` reads them); refused unless its CPU count is the trace's")
    add_json(ingest)
    ingest.set_defaults(func=run)
