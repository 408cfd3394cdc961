"""`kscope kernel build|list`: the subcommand's parser and handlers (registered by kscope.cli)."""

import argparse
import json
import sys
from typing import Any

EXIT_OK, EXIT_FAILURE, EXIT_BAD_INPUT = 0, 1, 2


def cmd_kernel_build(args: argparse.Namespace) -> int:
    from kscope.kernel import build, config, patches, source

    req = build.BuildRequest(patches=patches.parse_names(args.patches), config=args.config, jobs=args.jobs or 0,
                             install=not args.no_install)
    try:
        doc = build.build(req)
    except (patches.PatchSelectionError, config.ConfigError, source.PatchApplyError) as err:
        print(f"kscope: kernel build: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (source.SourceError, build.BuildError) as err:
        print(f"kscope: kernel build: {err}", file=sys.stderr)
        return EXIT_FAILURE
    if args.json:
        print(json.dumps(doc, indent=2))
    else:
        how = "cached" if doc.get("cached") else f"built in {doc['make_s'] / 60:.1f} min of make"
        print(f"{doc['bzImage']}  ({doc['release']}, patches {doc['patches']}, config {doc['config']}, {how})")
    return EXIT_OK


def cmd_kernel_list(args: argparse.Namespace) -> int:
    from kscope.kernel import build

    docs = build.builds()
    if args.json:
        print(json.dumps(docs, indent=2))
        return EXIT_OK
    for d in docs:
        print(f"{d['built_at']}  {d['patches']:<22} {d['config']:<6} {d.get('release')}  {d['bzImage']}")
    if not docs:
        from kscope.kernel.patches import SET_ORDER

        print(f"no kernels built yet (scripts/kscope kernel build --patches {SET_ORDER[0]},trace)", file=sys.stderr)
    return EXIT_OK


def add_parser(sub: Any) -> None:
    from kscope.kernel.patches import SET_ORDER

    kernel = sub.add_parser("kernel", help="build kscope's patched Debian 6.12 guest kernels for capture-vm")
    ksub = kernel.add_subparsers(dest="kernel_command", required=True)
    b = ksub.add_parser("build", help="apt-get linux-source-6.12, apply kernel-patches/, configure small, "
                                      "make bzImage (cached by source version, patches and config)")
    b.add_argument("--patches", default="", metavar="SETS",
                   help=f"comma-separated: {', '.join(SET_ORDER)}, trace (the sets' kscope_* tracepoints); "
                        "default none")
    b.add_argument("--config", default="small", help="kernel-patches/config/NAME.config (default small)")
    b.add_argument("-j", "--jobs", type=int, help="make -j (default: the CPU count)")
    b.add_argument("--no-install", action="store_true", help="never run apt; print what to install instead")
    b.add_argument("--json", action="store_true", help="print build.json")
    b.set_defaults(func=cmd_kernel_build)
    lst = ksub.add_parser("list", help="the cached kernel builds, newest first")
    lst.add_argument("--json", action="store_true")
    lst.set_defaults(func=cmd_kernel_list)
