"""`kscope conform`: replay a real trace through an algorithm model, compare its decisions
with the kernel's.

A file is read as `kscope ingest` reads it (compression, format detection from
content, the registered C decoders) but not stored; a stored trace is read back
from its Parquet events (conform_store.py). Either way its ks_event records, in
time order, go to the chosen model's conform module (kscope/models/<name>/,
found through models/registry.py), which replays them and builds the report.

What is the same for every model lives here: reading the trace, choosing one
trace buffer, the kernel release, and the notes on what a trace cannot show
(switch gaps (switch_gaps.py), events the kernel dropped, processes whose tgid
was inferred (tgids.py)).
"""

import re
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from kscope.core.config import get_settings
from kscope.ingest import formats, records
from kscope.ingest.pipeline import read_capture_header
from kscope.ingest.sources import InputError, Limits, compression_of, decompress
from kscope.models import registry
from kscope.models.model import Model

DEFAULT_HZ = 250  # CONFIG_HZ of Debian's kernels, and of this machine's 6.18 (/proc/config.gz)
MAX_LISTED = 10_000  # disagreements listed in full (the API's cap)


class NothingToCompare(InputError):
    """The trace has none of the events the model is compared with, or no scheduling events (422)."""


def kernel_version(kernel: str) -> tuple[int, int] | None:
    """(major, minor) of a kernel release ("6.12.117+deb12-amd64" -> (6, 12)), None if it has none."""
    m = re.search(r"(\d+)\.(\d+)", kernel or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


def model_of(algo: str | None) -> Model:
    """The registered model to replay through (None: the first that conforms); InputError otherwise."""
    if algo is None:
        return registry.default_conform()
    try:
        model = registry.get(algo)
    except registry.UnknownModel as err:
        raise InputError(str(err)) from None
    if model.conform is None:
        raise InputError(f"model {algo!r} has no trace conformance yet")
    return model


def _conform_module(algo: str | None) -> Any:
    return model_of(algo).conform.load()  # type: ignore[union-attr]


def variant_for_kernel(kernel: str, algo: str | None = None) -> str:
    """The variant of the model (default: the first registered) that this kernel release runs."""
    return str(_conform_module(algo).variant_for_kernel(kernel))


def _decode(data: Path, source: str, ticks: list[tuple[int, int]] | None = None
            ) -> tuple[np.ndarray, formats.DecodeReport]:
    """The trace's records in time order; ticks (if given) receives the kernel's recorded ticks."""
    fmt = formats.detect(data, source)
    batches: list[bytes] = []

    def on_batch(raw: memoryview, arena: bytes) -> None:
        batches.append(bytes(raw))
        if ticks is not None and arena:
            ticks.extend(recorded_ticks(np.frombuffer(bytes(raw), records.RAW), arena))

    report = fmt.decode(data, source, on_batch, lambda done: None)
    raw = b"".join(batches)
    items = np.frombuffer(raw, records.RAW)
    order = np.argsort(items.view(records.RECORD)["ts_ns"], kind="stable")  # ties keep the file's order
    if ticks is not None:
        ticks.sort()
    return items[order], report


# The tick's hrtimer (tick_sched_timer until 6.9, tick_nohz_handler since): its
# timer:hrtimer_expire_entry records are the kernel's ticks, on the CPU they fire on.
TICK_FUNCTIONS = (b"function=tick_nohz_handler", b"function=tick_sched_timer")


def recorded_ticks(items: np.ndarray, arena: bytes) -> list[tuple[int, int]]:
    """(ts_ns, cpu) of every tick handler run among a batch's generic records."""
    rec = items.view(records.RECORD)
    out = []
    for i in np.flatnonzero(rec["type"] == records.GENERIC):
        name_off, fields_off = int(rec["g_name_off"][i]), int(rec["g_fields_off"][i])
        if arena[name_off:name_off + 21] != b"hrtimer_expire_entry\0":
            continue
        fields = arena[fields_off:arena.find(b"\0", fields_off)]
        if any(f in fields for f in TICK_FUNCTIONS):
            out.append((int(rec["ts_ns"][i]), int(rec["cpu"][i])))
    return out


def run(path: Path, variant: str = "auto", hz: int = DEFAULT_HZ, keep: int = 10,
        nr_cpus: int = 0, resync: bool = False, algo: str | None = None) -> dict[str, Any]:
    """The conformance report of one trace file (InputError for unreadable input)."""
    module = _conform_module(algo)
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    source = path.name
    settings = get_settings()
    with tempfile.TemporaryDirectory(prefix="kscope-conform-") as tmp:
        data = path
        with open(path, "rb") as f:
            kind = compression_of(f.read(8))
        if kind:
            data = Path(tmp) / "input"
            decompress(path, source, kind, data, Limits(settings.max_decompressed_bytes,
                                                        settings.max_compression_ratio))
        meta, _sysfs = read_capture_header(data)
        ticks: list[tuple[int, int]] = []
        items, report = _decode(data, source, ticks)
    items, buffer = one_buffer(items, report.extra.get("buffers") or [""], module.COMPARED_TYPE)
    kernel = meta.get("kernel") or str(report.extra.get("uname") or "")
    cpus = nr_cpus or int(meta.get("smp") or 0) or report.nr_cpus
    doc = module.replay(items, meta, kernel, variant=variant, hz=hz, keep=keep, nr_cpus=cpus, resync=resync,
                        lost_events=report.lost_events, source=source, **({"ticks": ticks} if ticks else {}))
    return {"file": str(path), "format": report.format, **({"buffer": buffer} if buffer is not None else {}), **doc}


def one_buffer(items: np.ndarray, names: list[str], compared: int | None = None
               ) -> tuple[np.ndarray, str | None]:
    """A trace.dat with several trace buffers (the top one and instances, each recording
    its own copy of the events it enables) is replayed from one of them: the one with the
    most records of the type the model is compared with (`compared`, the model's
    COMPARED_TYPE; None: the default model's), then the most sched_switch records, then
    the most records, then the first. Returns (its records, its name), or (items, None)
    for a trace with one buffer."""
    rec = items.view(records.RECORD)
    present = np.unique(rec["buffer"]) if len(rec) else np.array([], np.uint16)
    if len(present) < 2:
        return items, None
    if compared is None:
        compared = _conform_module(None).COMPARED_TYPE

    def weight(b: int) -> tuple[int, int, int, int]:
        mine = rec["buffer"] == b
        return (int(np.count_nonzero(mine & (rec["type"] == compared))),
                int(np.count_nonzero(mine & (rec["type"] == records.SWITCH))), int(np.count_nonzero(mine)), -b)

    best = max((int(b) for b in present), key=weight)
    name = names[best] if best < len(names) else str(best)
    return items[rec["buffer"] == best], name


def replay(items: np.ndarray, meta: dict[str, str], kernel: str, *, algo: str | None = None,
           **options: Any) -> dict[str, Any]:
    """Replays time-ordered ks_event records (records.RAW) through the model `algo` (None:
    the first registered); options are the model's (variant, hz, keep, nr_cpus, resync,
    lost_events, source, max_listed)."""
    doc: dict[str, Any] = _conform_module(algo).replay(items, meta, kernel, **options)
    return doc


def render(doc: dict[str, Any], algo: str | None = None) -> str:
    """The report as text, by the model that made it."""
    return str(_conform_module(algo).render(doc))


def pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x * 100:.1f}%"


def trace_notes(doc: dict[str, Any], gaps: dict[str, Any]) -> list[str]:
    """What any replay of this trace cannot see, in plain sentences: switch gaps, dropped
    events, processes whose tgid was guessed (doc: lost_events, dropped_events, tgid)."""
    out = []
    if gaps["gaps"]:
        ex = gaps["examples"][0]
        out.append(f"missing context switches: {gaps['gaps']} switch gaps in {gaps['switches']} switches "
                   f"(a CPU's next sched_switch names another prev task than the last one switched in; "
                   f"first on CPU {ex['cpu']} at {ex['ts_ns'] / 1e9:.6f}: pid {ex['expected_prev']} expected, "
                   f"pid {ex['prev_pid']} named); the replay assumes the switch at the next event")
    if doc["lost_events"] or doc["dropped_events"]:
        out.append(f"the kernel dropped events: {doc['lost_events']} reported lost in the trace, "
                   f"{doc['dropped_events']} in the ring buffer's per-CPU statistics")
    info = doc["tgid"]
    guessed = info.get("from_fork", 0) + info.get("assumed_leader", 0) + info.get("from_header", 0)
    if guessed:
        out.append(f"the trace has no TGID column for {guessed} tasks: their process was taken from the "
                   f"capture header's tasks= ({info.get('from_header', 0)}), from sched_process_fork "
                   f"({info.get('from_fork', 0)}: a child with its parent's name taken as a thread, another "
                   f"name as a new process - the event cannot tell) or assumed to lead its own process "
                   f"({info.get('assumed_leader', 0)})")
    return out
