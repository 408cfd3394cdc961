"""Compressed trace.dat v7 through `ingest`: zstd (a real capture, traces/) and zlib
(the 6.18 fixture recompressed by scripts/tracedat-zlib.py) ingest like their
uncompressed selves; a damaged or cut compressed file is refused with a message naming
the file, the byte offset and the section, and leaves nothing in the store."""

import gzip
import json
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from kscope.core.config import Settings
from kscope.ingest.pipeline import ingest
from kscope.ingest.sources import InputError
from kscope.store.store import TraceStore

REPO = Path(__file__).resolve().parents[2]
ZSTD_TRACE = REPO / "traces" / "threads4-linux6.18.v7-zstd.dat"
V7_FIXTURE = REPO / "wasm-core" / "tests" / "fixtures" / "tracecmd_6.18_v7.dat.gz"


@pytest.fixture
def store(tmp_path: Path) -> TraceStore:
    s = TraceStore(Settings(data_dir=tmp_path / "data"))
    yield s
    s.close()


def v7_layout(data: bytes) -> dict:
    """The little-endian v7 file's section offsets (by option id) and the top instance's
    per-CPU compressed blocks, read here independently of the C decoder."""
    pos = 18
    for _ in range(2):
        pos = data.index(b"\0", pos) + 1
    out: dict = {"compression": 18, "sections": {}, "cpus": []}
    (off,) = struct.unpack_from("<Q", data, pos)
    while off:
        _, _, _, size = struct.unpack_from("<HHIQ", data, off)
        p, end, off = off + 16, off + 16 + size, 0
        while p < end:
            oid, osize = struct.unpack_from("<HI", data, p)
            value = data[p + 6: p + 6 + osize]
            p += 6 + osize
            if oid == 0:
                (off,) = struct.unpack_from("<Q", value)
                break
            if 16 <= oid <= 21:
                out["sections"][oid] = struct.unpack_from("<Q", value)[0]
            if oid == 3 and value[8] == 0:
                k = value.index(b"\0", 9) + 1
                (cpus,) = struct.unpack_from("<I", value, k + 4)
                out["cpus"] = [struct.unpack_from("<IQQ", value, k + 8 + 20 * i)[1:] for i in range(cpus)]
    return out


def chunk_offset(data: bytes, block: int, index: int) -> int:
    p = block + 4
    for _ in range(index):
        p += 8 + struct.unpack_from("<I", data, p)[0]
    return p


def refused(store: TraceStore, path: Path, *patterns: str) -> str:
    with pytest.raises(InputError) as info:
        ingest(store, path)
    message = str(info.value)
    for pattern in (path.name, *patterns):
        assert pattern in message, message
    assert store.list_traces() == []
    assert list((store.root / "traces").iterdir()) == []
    return message


def test_zlib_v7_ingests_as_the_uncompressed_v7(store: TraceStore, tmp_path: Path) -> None:
    plain = tmp_path / "v7.dat"
    plain.write_bytes(gzip.decompress(V7_FIXTURE.read_bytes()))
    packed = tmp_path / "v7-zlib.dat"
    subprocess.run([sys.executable, str(REPO / "scripts" / "tracedat-zlib.py"), str(plain), str(packed)], check=True)
    assert packed.read_bytes()[18:23] == b"zlib\0"
    assert packed.stat().st_size < plain.stat().st_size / 5
    a = ingest(store, plain).record.summary
    b = ingest(store, packed).record.summary
    assert b["events"] == a["events"] == 130  # trace-cmd report's count (wasm-core/tests/test_tracedat.c)
    for key in ("by_type", "cpus", "t_first_ns", "t_last_ns", "tasks", "kernel", "malformed_lines"):
        assert b[key] == a[key], key


def test_zstd_capture_has_its_trace_cmd_counts(store: TraceStore) -> None:
    expected = json.loads((ZSTD_TRACE.parent / (ZSTD_TRACE.name + ".expected.json")).read_text())
    doc = ingest(store, ZSTD_TRACE).record.summary
    assert doc["by_type"] == expected["by_type"]
    assert doc["events"] == sum(expected["by_type"].values())


def test_damaged_chunk_names_cpu_chunk_and_offset(store: TraceStore, tmp_path: Path) -> None:
    data = bytearray(ZSTD_TRACE.read_bytes())
    layout = v7_layout(bytes(data))
    cpu0 = layout["cpus"][0][0]
    c2 = chunk_offset(bytes(data), cpu0, 2)
    data[c2 + 8] ^= 1  # the chunk's zstd frame magic
    path = tmp_path / "bad-chunk.dat"
    path.write_bytes(bytes(data))
    refused(store, path, f"byte {c2 + 8}:", "flyrecord data", "CPU 0's zstd-compressed data, chunk 2",
            f"(at byte {c2})", "zstd: ")
    # the store still works
    assert ingest(store, ZSTD_TRACE).record.events == 6429


def test_damaged_section_names_the_section(store: TraceStore, tmp_path: Path) -> None:
    data = bytearray(ZSTD_TRACE.read_bytes())
    formats = v7_layout(bytes(data))["sections"][18]
    data[formats + 25] ^= 0x10
    path = tmp_path / "bad-formats.dat"
    path.write_bytes(bytes(data))
    refused(store, path, f"byte {formats + 24}:", "event formats", "does not decompress", "zstd: ")


def test_cut_compressed_file_is_refused(store: TraceStore, tmp_path: Path) -> None:
    data = ZSTD_TRACE.read_bytes()
    cut = chunk_offset(data, v7_layout(data)["cpus"][1][0], 1) + 100
    path = tmp_path / "cut.dat"
    path.write_bytes(data[:cut])
    refused(store, path, "byte ", "truncated")


def test_unknown_algorithm_is_named(store: TraceStore, tmp_path: Path) -> None:
    data = bytearray(ZSTD_TRACE.read_bytes())
    assert data[18:23] == b"zstd\0"
    data[18:22] = b"lz4x"
    path = tmp_path / "lz4.dat"
    path.write_bytes(bytes(data))
    refused(store, path, "compressed with 'lz4x' 1.5.4", "kscope does not decompress")
