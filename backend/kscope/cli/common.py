"""What every `kscope` command shares: exit codes, output, argument types, the store.

Reports go to stdout, as text or (with --json) as exactly one JSON document;
everything else (logs, errors) goes to stderr. Exit codes: 0 ok, 2 bad input,
1 internal failure.
"""

import argparse
import json
from collections.abc import Callable
from typing import Any

from kscope import units

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_BAD_INPUT = 2


def emit(data: Any, as_json: bool, render: Callable[[Any], str]) -> None:
    print(json.dumps(data, indent=2) if as_json else render(data))


def add_json(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON document")


def open_store():  # type: ignore[no-untyped-def]
    from kscope.core.config import get_settings
    from kscope.store.store import TraceStore

    return TraceStore(get_settings())


def duration(text: str) -> int:
    try:
        ns = units.parse_duration_ns(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from err
    if ns == 0:
        raise argparse.ArgumentTypeError(f"bad duration {text!r}: must be more than 0")
    return ns


def positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def non_negative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}")
    return value


def seed(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        value = -1
    if not 0 <= value < 1 << 64:
        raise argparse.ArgumentTypeError(f"expected an integer 0..2^64-1, got {text!r}")
    return value
