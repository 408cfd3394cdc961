"""Bad inputs: each is refused with a message naming the file, the byte or line, and the
problem; nothing half-ingested stays in the store; per-line failures in a good file are
counted, not fatal. (The API's answers to the same inputs: test_api_traces.py.)"""

import gzip
import io
import lzma
import os
import zipfile
from pathlib import Path

import pytest
import zstandard

from kscope.core.config import Settings
from kscope.ingest.pipeline import ingest
from kscope.ingest.sources import InputError
from kscope.store.store import TraceStore


@pytest.fixture
def store(tmp_path: Path) -> TraceStore:
    s = TraceStore(Settings(data_dir=tmp_path / "data", max_decompressed_bytes=64 << 20,
                            max_compression_ratio=500))
    yield s
    s.close()


def assert_nothing_stored(store: TraceStore) -> None:
    assert store.list_traces() == []
    assert list((store.root / "traces").iterdir()) == []
    assert list((store.root / "tmp").iterdir()) == []


def refused(store: TraceStore, path: Path, *patterns: str) -> InputError:
    with pytest.raises(InputError) as info:
        ingest(store, path)
    message = str(info.value)
    for pattern in (path.name, *patterns):
        assert pattern in message, message
    assert_nothing_stored(store)
    return info.value


def test_binary_garbage(store: TraceStore, tmp_path: Path) -> None:
    path = tmp_path / "garbage.txt"
    path.write_bytes(b"hello\x00" + os.urandom(4096))
    err = refused(store, path, "byte 5", "binary data")
    assert err.status == 415


def test_empty_file(store: TraceStore, tmp_path: Path) -> None:
    path = tmp_path / "empty.txt"
    path.write_bytes(b"")
    refused(store, path, "byte 0", "empty")


def test_wrong_format_text(store: TraceStore, tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("Dear diary,\ntoday I traced nothing.\n")
    refused(store, path, "line 1", "not a trace")


def test_format_lie_dat_holding_text_is_read_as_text(store: TraceStore, sim_trace: Path, tmp_path: Path) -> None:
    path = tmp_path / "trace.dat"  # says binary trace.dat, holds ftrace text: content wins
    path.write_bytes(sim_trace.read_bytes())
    assert ingest(store, path).record.format == "ftrace"


def test_format_lie_dat_holding_other_text(store: TraceStore, tmp_path: Path) -> None:
    path = tmp_path / "trace.dat"
    path.write_text("this is not a trace.dat\n")
    refused(store, path, "line 1", "not a trace")


def test_truncated_text_counts_the_cut_line(store: TraceStore, sim_trace: Path, tmp_path: Path) -> None:
    data = sim_trace.read_bytes()
    path = tmp_path / "cut.txt"
    path.write_bytes(data[: len(data) // 2 - 37])  # ends mid-line
    rec = ingest(store, path).record
    assert rec.malformed_lines == 1 and 0 < rec.events < 32176
    assert rec.summary["first_error"]["line"] > 1000


def test_broken_field_is_counted_not_fatal(store: TraceStore, sim_trace: Path, tmp_path: Path) -> None:
    lines = sim_trace.read_bytes().split(b"\n")
    lines[20] = lines[20].replace(b"] ", b"] ?", 1).replace(b": ", b" ", 1)
    path = tmp_path / "broken.txt"
    path.write_bytes(b"\n".join(lines))
    rec = ingest(store, path).record
    assert rec.malformed_lines == 1
    assert rec.summary["first_error"]["line"] == 21 and rec.summary["first_error"]["message"]


def test_mostly_malformed_is_refused(store: TraceStore, tmp_path: Path) -> None:
    good = ("          <idle>-0     [001] d..2.  100.000002: sched_switch: prev_comm=swapper/1 prev_pid=0 "
            "prev_prio=120 prev_state=R ==> next_comm=a next_pid=7 next_prio=120\n")
    path = tmp_path / "mostly.txt"
    path.write_text(good + "   x-1 [000] garbage line\n" * 5)
    refused(store, path, "malformed", "line 2")


@pytest.mark.parametrize("kind", ["gzip", "xz", "zstd", "zip"])
def test_compressed_inputs_are_read(store: TraceStore, sim_trace: Path, tmp_path: Path, kind: str) -> None:
    data = sim_trace.read_bytes()
    path = tmp_path / "t.bin"
    if kind == "gzip":
        path.write_bytes(gzip.compress(data))
    elif kind == "xz":
        path.write_bytes(lzma.compress(data))
    elif kind == "zstd":
        path.write_bytes(zstandard.ZstdCompressor().compress(data))
    else:
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("trace.txt", data)
    rec = ingest(store, path).record
    assert rec.events == 32176 and rec.summary["compression"] == kind
    assert list((store.root / "tmp").iterdir()) == []  # the decompressed copy is gone


def test_truncated_gzip(store: TraceStore, sim_trace: Path, tmp_path: Path) -> None:
    packed = gzip.compress(sim_trace.read_bytes())
    path = tmp_path / "cut.txt.gz"
    path.write_bytes(packed[: len(packed) // 2])
    refused(store, path, "byte ", "corrupt or truncated gzip")


def test_decompression_bomb(store: TraceStore, tmp_path: Path) -> None:
    path = tmp_path / "bomb.gz"
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb") as z:
        for _ in range(32):
            z.write(b"\0" * (1 << 20))
    path.write_bytes(buf.getvalue())
    err = refused(store, path, "expands more than 500x")
    assert err.status == 413


def test_oversized_decompressed(tmp_path: Path, sim_trace: Path) -> None:
    s = TraceStore(Settings(data_dir=tmp_path / "data", max_decompressed_bytes=1 << 20))
    path = tmp_path / "big.xz"
    path.write_bytes(lzma.compress(sim_trace.read_bytes()))
    err = refused(s, path, "more than the 1048576 byte limit")
    assert err.status == 413


def test_zip_with_two_members(store: TraceStore, tmp_path: Path) -> None:
    path = tmp_path / "two.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("a.txt", "a")
        z.writestr("b.txt", "b")
    refused(store, path, "exactly one trace file", "a.txt")


def test_tracedat_magic_without_decoder_or_truncated(store: TraceStore, tmp_path: Path) -> None:
    path = tmp_path / "cut.dat"
    path.write_bytes(b"\x17\x08Dtracing6\x00\x00\x08")
    with pytest.raises(InputError) as info:
        ingest(store, path)
    assert "cut.dat" in str(info.value) and "byte" in str(info.value)
    assert_nothing_stored(store)


def test_store_keeps_working_after_a_failure(store: TraceStore, sim_trace: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\0\1\2")
    with pytest.raises(InputError):
        ingest(store, bad)
    assert ingest(store, sim_trace).record.events == 32176
    assert len(store.list_traces()) == 1
