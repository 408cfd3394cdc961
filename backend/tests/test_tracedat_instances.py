"""trace.dat files with tracefs instance buffers (traces/sleep-*instance*.dat, recorded with
traces/workloads/instance_traces.sh) through the ingest and conform paths, and a crafted
v7 file whose chunks declare far more memory than they hold (issue 20, finding 4)."""

import json
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from kscope import conform
from kscope.core.config import Settings
from kscope.ingest.sources import InputError
from kscope.ingest import records
from kscope.ingest.pipeline import ingest
from kscope.store.store import TraceStore

TRACES = Path(__file__).resolve().parents[2] / "traces"
KINDS = ["v6", "v7", "v7-zstd"]


@pytest.mark.parametrize("kind", KINDS)
def test_ingest_keeps_each_records_buffer(kind: str, tmp_path: Path) -> None:
    store = TraceStore(Settings(data_dir=tmp_path / "data"))
    try:
        rec = ingest(store, TRACES / f"sleep-top-instance-linux6.18.{kind}.dat").record
        rows = store.sql(rec.id, "SELECT buffer, type, count(*) FROM events GROUP BY 1, 2 ORDER BY 1, 2")["rows"]
        assert rows == [["", "sched_process_exit", 4], ["", "sched_switch", 27],
                        ["ksgold", "sched_process_exit", 4], ["ksgold", "sched_process_fork", 4],
                        ["ksgold", "sched_switch", 27], ["ksgold", "sched_wakeup", 14],
                        ["ksgold", "sched_wakeup_new", 4]]
        assert rec.summary["by_buffer"] == {"": 31, "ksgold": 53}
        alone = ingest(store, TRACES / f"sleep-instance-linux6.18.{kind}.dat").record
        assert store.sql(alone.id, "SELECT DISTINCT buffer FROM events")["rows"] == [["ksgold"]]
        text = ingest(store, TRACES / "threads4-linux6.18.txt").record  # no buffers: all ""
        assert store.sql(text.id, "SELECT DISTINCT buffer FROM events")["rows"] == [[""]]
    finally:
        store.close()


@pytest.mark.parametrize("kind", KINDS)
def test_conform_path_reads_instance_buffers(kind: str) -> None:
    """The in-process decoders (kscope conform) read every buffer; the replay takes one."""
    items, report = conform._decode(TRACES / f"sleep-top-instance-linux6.18.{kind}.dat", "t.dat")
    rec = items.view(records.RECORD)
    assert report.extra["buffers"] == ["", "ksgold"]
    assert np.bincount(rec["buffer"]).tolist() == [31, 53]
    assert np.all(np.diff(rec["ts_ns"].astype(np.int64)) >= 0)
    kept, name = conform.one_buffer(items, report.extra["buffers"])
    assert name == "ksgold" and len(kept) == 53  # no rseq, 27 switches each: the one with more records
    assert conform.one_buffer(kept, ["ksgold"])[1] is None  # one buffer: kept as is
    # no rseq_update in these files: the conform run gets past decoding and says so
    with pytest.raises(Exception, match="rseq_update"):
        conform.run(TRACES / f"sleep-instance-linux6.18.{kind}.dat")


# ---- a crafted v7 file: many CPUs, each one zstd chunk declaring 16 MiB --------------------------

def _zstd_frame(usize: int, raw: int, ts: int) -> bytes:
    """A zstd frame of usize bytes: one raw block (a ring-buffer page with one event of an
    unknown id, then zeros), then RLE blocks of zeros."""
    page = bytearray(raw)
    struct.pack_into("<QQ", page, 0, ts, 12)
    struct.pack_into("<IH", page, 16, 2, 0xFFFE)
    out = bytearray(struct.pack("<IBI", 0xFD2FB528, 0xA0, usize))
    out += (raw << 3).to_bytes(3, "little") + page
    left = usize - raw
    while left:
        n = min(left, 128 << 10)
        left -= n
        out += (n << 3 | 1 << 1 | (left == 0)).to_bytes(3, "little") + b"\0"
    return bytes(out)


def amplified_trace(cpus: int, usize: int, raw: int) -> bytes:
    """The real instance-only v7 zstd file plus a chained options section naming a buffer
    'amp' of `cpus` CPUs, each one chunk of `usize` bytes (`raw` of them stored)."""
    b = bytearray((TRACES / "sleep-instance-linux6.18.v7-zstd.dat").read_bytes())
    pos = 18
    for _ in range(2):
        pos = b.index(b"\0", pos) + 1
    off, done_at = struct.unpack_from("<Q", b, pos)[0], None
    while off:
        p = off + 16
        end = p + struct.unpack_from("<Q", b, off + 8)[0]
        off = 0
        while p + 6 <= end:
            oid, size = struct.unpack_from("<HI", b, p)
            if oid == 0:
                done_at, off = p + 6, struct.unpack_from("<Q", b, p + 6)[0]
                break
            p += 6 + size
    assert done_at is not None
    data_at = len(b)
    b += struct.pack("<HHIQ", 3, 1, 0, 0)
    offs, sizes = [], []
    for c in range(cpus):
        frame = _zstd_frame(usize, raw, 1000 + c)
        offs.append(len(b))
        b += struct.pack("<III", 1, len(frame), usize) + frame
        sizes.append(len(b) - offs[-1] - 4)
    struct.pack_into("<Q", b, data_at + 8, len(b) - data_at - 16)
    struct.pack_into("<Q", b, done_at, len(b))
    opt = struct.pack("<Q", data_at) + b"amp\0local\0" + struct.pack("<II", 4096, cpus)
    opt += b"".join(struct.pack("<IQQ", c, offs[c], sizes[c]) for c in range(cpus))
    b += struct.pack("<HHIQ", 0, 0, 0, 6 + len(opt) + 6 + 8)
    b += struct.pack("<HI", 3, len(opt)) + opt + struct.pack("<HIQ", 0, 8, 0)
    return bytes(b)


_PEAK = """
import resource, sys
from pathlib import Path
from kscope.ingest import decoders
from kscope.native.decoders import TracedatDecoder
held = []
orig = TracedatDecoder.stats
def stats(self):
    held.append(self.held_peak())
    return orig(self)
TracedatDecoder.stats = stats
try:
    decoders.decode_tracedat(Path(sys.argv[1]), "amp.dat", lambda raw, arena: None, lambda done: None)
    error = ""
except Exception as e:
    error = str(e)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, held[-1] if held else -1, error, sep="\\n")
"""


def test_declared_chunk_sizes_do_not_amplify_memory(tmp_path: Path) -> None:
    """64 CPUs x one 16 MiB chunk stored in 16.9 KB each (ratio ~990, under the ratio
    limit): a 1.1 MB file that made the decoder hold 1 GiB. Now it stops at the chunk
    that passes 128 MiB, naming where, with the process's peak RSS well under that."""
    crafted = tmp_path / "amp.dat"
    crafted.write_bytes(amplified_trace(64, 16 << 20, 16 << 10))
    assert crafted.stat().st_size < 1_200_000
    def peak(path: Path) -> tuple[int, int, str]:
        out = subprocess.run([sys.executable, "-c", _PEAK, str(path)], capture_output=True, text=True,
                             timeout=120, check=True).stdout.splitlines()
        return int(out[0]), int(out[1]), out[2]

    rss_kb, held, error = peak(crafted)
    base_kb, _, base_error = peak(TRACES / "sleep-instance-linux6.18.v7-zstd.dat")  # the interpreter's own
    assert base_error == ""
    assert "past the 128 MiB held at once" in error, error
    assert "CPU " in error and "chunk 0 (at byte " in error and "byte " in error
    assert held <= 128 << 20
    # the decoder's 128 MiB and slack; it was 1 GiB more before the bound
    assert rss_kb - base_kb < 200_000, f"peak RSS {rss_kb} KB, {base_kb} KB for a small file"


def test_declared_ratio_is_refused_by_ingest(tmp_path: Path) -> None:
    """A 1 KB frame declaring 16 MiB (ratio ~16,000) is refused at its chunk header."""
    crafted = tmp_path / "ratio.dat"
    crafted.write_bytes(amplified_trace(4, 16 << 20, 512))
    store = TraceStore(Settings(data_dir=tmp_path / "data"))
    try:
        with pytest.raises(InputError, match=r"byte \d+: trace.dat in the flyrecord data: .*usize 16777216 > 1024x csize"):
            ingest(store, crafted)
    finally:
        store.close()
