"""Runs kscope-ingest, the native half of an ingest: a decoded-ready file in, events.parquet
and lod.npz in the work folder, its JSON report back.

The program (wasm-core/tools/ingest, built with the C core) decodes with the same C
decoders as everything else, builds the store's columns, writes Parquet and the
summaries, and prints one JSON object: totals, CPUs, times and each decoder's stats.
With --progress it prints "progress BYTES EVENTS" lines on stderr as it goes, and
"summaries" when it starts on them; other stderr lines are its error message.

A separate process, not a library call: `kscope ingest` needs no numpy or pyarrow in
the Python process (its start-up was a third of a 1 M-event ingest, issue 7), and a
server's ingest runs with its memory in another process and returns it when done.
"""

import json
import os
import signal
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kscope.core.config import Settings

# progress(phase, bytes done, events so far)
NativeProgress = Callable[[str, int, int], None]


class NativeIngestFailed(RuntimeError):
    """kscope-ingest could not finish (not a problem of the input: memory, disk, a bug)."""


def program(settings: Settings) -> Path:
    path = Path(settings.ingest_program)
    if not path.is_file():
        raise NativeIngestFailed(f"{path}: no kscope-ingest program: build it with `make -C wasm-core native` "
                                 f"(npm start / npm test do)")
    return path


def run(data: Path, format_name: str, work: Path, settings: Settings,
        progress: NativeProgress | None = None) -> dict[str, Any]:
    """Decodes `data` (format_name: a registered format) into `work`; the program's report."""
    argv = [str(program(settings)), "--format", format_name, str(data), str(work),
            "--threads", str(settings.ingest_decode_threads), "--batch", str(settings.ingest_batch_events),
            "--progress", "--parent", str(os.getpid())]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    errors: list[str] = []

    def read_stderr() -> None:
        assert proc.stderr is not None
        for raw in proc.stderr:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            head, _, rest = line.partition(" ")
            if head == "progress" and progress:
                done, _, events = rest.partition(" ")
                progress("decode", int(done), int(events))
            elif head == "summaries" and progress:
                progress("summaries", -1, -1)
            elif head not in ("progress", "summaries"):
                errors.append(line)

    reader = threading.Thread(target=read_stderr, name="kscope-ingest-stderr", daemon=True)
    reader.start()
    try:
        assert proc.stdout is not None
        out = proc.stdout.read()
        code = proc.wait()
    except BaseException:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        raise
    finally:
        reader.join()
    if code < 0:
        said = f" (it said: {'; '.join(errors)})" if errors else ""
        raise NativeIngestFailed(f"the ingest process kscope-ingest (pid {proc.pid}) was killed by "
                                 f"{_signal_name(-code)} before it finished{said}")
    if code != 0:
        what = "; ".join(errors) or f"exit status {code}"
        raise NativeIngestFailed(f"kscope-ingest: {what}")
    try:
        return json.loads(out)
    except ValueError as err:
        raise NativeIngestFailed(f"kscope-ingest printed no report ({err}): {out[:200]!r}") from err


def _signal_name(number: int) -> str:
    try:
        return f"signal {number} ({signal.Signals(number).name})"
    except ValueError:
        return f"signal {number}"


def by_type(report: dict[str, Any]) -> dict[str, int]:
    """Events per type, most first: typed events by tracepoint name, generic ones by their
    own name (a typed event whose fields did not read counts under its name too)."""
    counts = {name: n for name, n in report["type_counts"].items() if n and name != "generic"}
    for name, n in report["generic_names"].items():
        counts[name] = counts.get(name, 0) + n
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


