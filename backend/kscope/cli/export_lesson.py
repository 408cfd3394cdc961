"""`kscope export-lesson NAME -o DIR`: a lesson as a static folder (app + wasm + lesson)."""

import argparse
import sys
from pathlib import Path
from typing import Any

from kscope.cli.common import EXIT_BAD_INPUT, EXIT_OK, add_json, emit
from kscope.models import registry


def run(args: argparse.Namespace) -> int:
    from kscope import export_lesson

    try:
        document = export_lesson.export(args.name, Path(args.output))
    except export_lesson.LessonNotFound as err:
        print(f"kscope: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    emit(document, args.json,
         lambda d: f"wrote {d['index']} ({d['bytes']} bytes, {d['steps']} steps): open it in a browser, no server needed")
    return EXIT_OK


def add_parser(sub: Any) -> None:
    exp = sub.add_parser("export-lesson", help="write a lesson as a static folder (app + wasm + lesson) that runs "
                                               "from any static host or file://, no backend")
    exp.add_argument("name", help=f"lesson id, e.g. {registry.default().name} "
                                  "(frontend/src/lessons/NAME.lesson.json)")
    exp.add_argument("-o", "--output", required=True, metavar="DIR", help="folder to write (created if missing)")
    add_json(exp)
    exp.set_defaults(func=run)
