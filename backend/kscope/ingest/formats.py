"""Trace formats: detection from content (never from the file name) and the decoder registry.

A decoder turns a file into batches of ks_event records. `detect()` asks the C
detector (ks_trace_detect, on the first 64 KiB) which format a file holds and
picks the registered format that takes that name; a core without the detector
falls back to the Python sniffers. Formats whose C decoder is not in the loaded
libkscope.so are not registered. `kscope ingest` decodes in the native kscope-ingest program
(native_ingest.py); `decode` runs the same C decoders in this process (decoders.py).

    decode(path, source, on_batch, progress, batch_events=0) -> DecodeReport
        on_batch(records, arena) is called per batch, in input order
"""

import re
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
    sniff: Callable[[bytes], bool] | None  # fallback when the core has no detector
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


def _in_process(name: str) -> Callable[..., DecodeReport]:
    """decoders.<name>, imported on first call (it imports numpy; `kscope ingest` never calls it)."""
    def decode(*args: Any, **kwargs: Any) -> DecodeReport:
        from kscope.ingest import decoders

        return getattr(decoders, name)(*args, **kwargs)
    return decode


def registry() -> list[Format]:
    """The formats whose C decoder the loaded core has (registered on first call)."""
    if not REGISTRY:
        from kscope.native import decoders

        available = decoders.available()
        register(Format("ftrace", ("ftrace-text", "trace-cmd-report"), sniff_ftrace, _in_process("decode_ftrace"),
                        "ftrace text: tracefs `trace`, atrace, `trace-cmd report` output"))
        if available["trace.dat"]:
            register(Format("trace.dat", ("trace.dat",), None, _in_process("decode_tracedat"),
                            "trace-cmd trace.dat, v6/v7"))
        if available["perf"]:
            register(Format("perf", ("perf-script", "perf-sched-timehist"), None, _in_process("decode_perf"),
                            "`perf script` / `perf sched timehist` text"))
        if available["systrace"]:
            register(Format("systrace", ("systrace-html",), None, _in_process("decode_systrace"),
                            "Android systrace HTML"))
    return REGISTRY


def names() -> list[str]:
    return [f.name for f in registry()]


# "  <idle>-0     [001] d..2.  1273.158974: sched_switch: ..." (TGID column optional)
_FTRACE_LINE = re.compile(rb"^\s*.+-\d+\s+(\(\s*[\d-]+\)\s+)?\[\d+\]\s+(\S+\s+)?\d+(\.\d+)?:\s+\S+:", re.M)
TRACEDAT_MAGIC = b"\x17\x08Dtracing"


def looks_binary(head: bytes) -> int:
    """Offset of the first byte no text trace holds (NUL or a C0 control but tab/CR/LF), or -1."""
    for i, b in enumerate(head):
        if b < 0x20 and b not in (9, 10, 13):
            return i
    return -1


def sniff_ftrace(head: bytes) -> bool:
    if looks_binary(head) >= 0:
        return False
    text = head.lstrip()
    if text.startswith((b"# tracer:", b"version = ", b"cpus=")):
        return True
    return _FTRACE_LINE.search(head) is not None


def detect(path: Path, source: str) -> Format:
    """The format of the file's content; InputError naming the file and what was found."""
    with open(path, "rb") as f:
        head = f.read(HEAD)
    if not head:
        raise InputError(f"{source}: byte 0: the file is empty")
    from kscope.native import decoders

    formats = registry()
    if decoders.available()["detect"]:
        found = decoders.detect(head)
        for fmt in formats:
            if found in fmt.detected_as:
                return fmt
        if found in NOT_DECODED:
            raise InputError(f"{source}: byte 0: {NOT_DECODED[found]}", status=415)
    else:
        for fmt in formats:
            if fmt.sniff is not None and fmt.sniff(head):
                return fmt
    if head.startswith(TRACEDAT_MAGIC):
        raise InputError(f"{source}: byte 0: a trace-cmd trace.dat, but this kscope's C core has no "
                         f"trace.dat decoder (formats: {', '.join(names())})", status=415)
    bad = looks_binary(head)
    if bad >= 0:
        raise InputError(f"{source}: byte {bad}: binary data (byte 0x{head[bad]:02x}) and no known "
                         f"trace magic: not a trace kscope reads (formats: {', '.join(names())})", status=415)
    first = head.split(b"\n", 1)[0][:80].decode("utf-8", "replace")
    raise InputError(f"{source}: line 1: text that is not a trace kscope reads ({first!r}; "
                     f"formats: {', '.join(names())})", status=415)
