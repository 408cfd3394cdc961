"""Trace formats: detection from content (never from the file name) and the decoder registry.

A decoder turns a file into batches of ks_event records. `detect()` asks the C
detector (ks_trace_detect, on the first 64 KiB) which format a file holds; the
registry is the C core's (trace_decoder.h: which decoder reads which detected
format), read once, so the choice is made in one place. `kscope ingest` decodes in
the native kscope-ingest program (native_ingest.py); `decode` runs the same C
decoders in this process (decoders.py).

    decode(path, source, on_batch, progress, batch_events=0) -> DecodeReport
        on_batch(records, arena) is called per batch, in input order
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kscope.ingest.sources import InputError

HEAD = 64 << 10

Batch = Callable[[memoryview, bytes], None]  # (records, text arena)
Progress = Callable[[int], None]  # bytes of the input consumed so far


@dataclass
class DecodeReport:
    """What a decoder says about the whole input, beside its records."""

    format: str
    events: int
    malformed: int
    first_error: dict[str, Any] | None
    nr_cpus: int = 0
    lost_events: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Format:
    name: str
    detected_as: tuple[str, ...]  # ks_trace_format_name()s this decoder takes
    decode: Callable[..., DecodeReport]  # (path, source, on_batch, progress, batch_events=0)
    description: str


REGISTRY: list[Format] = []

# What to tell the user about formats that are recognised but not decoded.
NOT_DECODED = {
    "perf-report": "a `perf report` summary holds no events: give `perf script` output instead",
    "perf.data": "a binary perf.data: run `perf script -i perf.data > perf.txt` and give perf.txt",
}


def register(fmt: Format) -> None:
    REGISTRY.append(fmt)


# What the user reads about each of the C registry's decoders (kscope formats, the API).
DESCRIPTIONS = {
    "ftrace": "ftrace text: tracefs `trace`, atrace, `trace-cmd report` output",
    "trace.dat": "trace-cmd trace.dat, v6/v7",
    "perf": "`perf script` / `perf sched timehist` text",
    "systrace": "Android systrace HTML",
}


def _in_process(format_name: str) -> Callable[..., DecodeReport]:
    """decoders.decode for that format, imported on first call (it imports numpy; `kscope
    ingest` never calls it)."""
    def decode(*args: Any, **kwargs: Any) -> DecodeReport:
        from kscope.ingest import decoders

        return decoders.decode(*args, **kwargs, format_name=format_name)
    return decode


def registry() -> list[Format]:
    """The C core's decoders, each with the detected formats it reads (registered on first call)."""
    if not REGISTRY:
        from kscope.native import decoders

        for name, detected_as in decoders.registry().items():
            register(Format(name, detected_as, _in_process(detected_as[0]), DESCRIPTIONS.get(name, name)))
    return REGISTRY


def names() -> list[str]:
    return [f.name for f in registry()]


TRACEDAT_MAGIC = b"\x17\x08Dtracing"  # trace-cmd's magic (the CLI checks a file for it before decoding)


def looks_binary(head: bytes) -> int:
    """Offset of the first byte no text trace holds (NUL or a C0 control but tab/CR/LF), or -1."""
    for i, b in enumerate(head):
        if b < 0x20 and b not in (9, 10, 13):
            return i
    return -1


def detect(path: Path, source: str) -> Format:
    """The format of the file's content; InputError naming the file and what was found."""
    with open(path, "rb") as f:
        head = f.read(HEAD)
    if not head:
        raise InputError(f"{source}: byte 0: the file is empty")
    from kscope.native import decoders

    found = decoders.detect(head)
    for fmt in registry():
        if found in fmt.detected_as:
            return fmt
    if found in NOT_DECODED:
        raise InputError(f"{source}: byte 0: {NOT_DECODED[found]}", status=415)
    bad = looks_binary(head)
    if bad >= 0:
        raise InputError(f"{source}: byte {bad}: binary data (byte 0x{head[bad]:02x}) and no known "
                         f"trace magic: not a trace kscope reads (formats: {', '.join(names())})", status=415)
    first = head.split(b"\n", 1)[0][:80].decode("utf-8", "replace")
    raise InputError(f"{source}: line 1: text that is not a trace kscope reads ({first!r}; "
                     f"formats: {', '.join(names())})", status=415)
