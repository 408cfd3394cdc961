"""Issue 20, finding 3: zip members compressed with bzip2 or LZMA were expanded whole in
memory before the ratio check (zipfile decompresses each chunk it reads with no output
limit for those methods). Every member now streams through the same limits as gzip/xz/zstd.

The bombs are made here: 24 MiB of zeros per member (a few hundred bytes to ~4 KB
zipped). Before the fix, refusing one held all 24 MiB at once; now the refusal comes
after ~1 MiB with only a piece in memory."""

import tracemalloc
import zipfile
from pathlib import Path

import httpx
import pytest

from kscope.ingest.sources import InputError, Limits, decompress
from .hostile_support import Watch, start_server

BOMB_BYTES = 24 << 20
# Python memory allowed at once while refusing a bomb: a few 1 MiB pieces, plus for LZMA the
# dictionary its header declares (8 MiB at zipfile's default preset), which liblzma allocates
# through Python's allocator.
BUDGET = {"bzip2": 6 << 20, "deflate": 6 << 20, "lzma": 14 << 20}
# The server's RSS growth allowed while it refuses one (its allocator keeps some of what it frees).
SERVER_BUDGET = 20 << 20


@pytest.fixture(scope="module")
def bombs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = {}
    zeros = b"\0" * BOMB_BYTES
    for method, name in ((zipfile.ZIP_BZIP2, "bzip2"), (zipfile.ZIP_LZMA, "lzma"), (zipfile.ZIP_DEFLATED, "deflate")):
        path = tmp_path_factory.mktemp("zips") / f"bomb-{name}.zip"
        with zipfile.ZipFile(path, "w", method) as z:
            z.writestr("trace.txt", zeros)
        out[name] = path
    return out


@pytest.mark.parametrize("method", ["bzip2", "lzma", "deflate"])
def test_zip_bomb_refused_in_bounded_memory(bombs: dict[str, Path], tmp_path: Path, method: str) -> None:
    path = bombs[method]
    tracemalloc.start()
    try:
        with pytest.raises(InputError) as info:
            decompress(path, path.name, "zip", tmp_path / "out", Limits(max_bytes=16 << 30, max_ratio=500))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    print(f"{method}: {path.stat().st_size}-byte zip refused holding at most {peak} bytes")
    assert peak < BUDGET[method], f"{method}: {peak} bytes held at once refusing a {path.stat().st_size}-byte zip"
    message = str(info.value)
    assert info.value.status == 413, message
    assert f"{path.name}:trace.txt" in message and "expands more than 500x" in message, message
    assert f"zip ({method})" in message, message
    # Refused early: a little past the 1 MiB the ratio check waits for, not the whole 24 MiB.
    assert (tmp_path / "out").stat().st_size <= 6 << 20


@pytest.mark.parametrize("method", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA])
def test_zip_members_of_every_method_read_back(tmp_path: Path, method: int) -> None:
    data = b"".join(b"line %d of a trace\n" % i for i in range(200_000))  # ~4 MB, compresses ~10x
    path = tmp_path / "t.zip"
    with zipfile.ZipFile(path, "w", method) as z:
        z.writestr("t.txt", data)
    n = decompress(path, "t.zip", "zip", tmp_path / "out", Limits(max_bytes=1 << 30, max_ratio=500))
    assert n == len(data) and (tmp_path / "out").read_bytes() == data


def test_zip_crc_mismatch_named(tmp_path: Path) -> None:
    path = tmp_path / "crc.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr("t.txt", b"hello trace\n" * 10)
    raw = bytearray(path.read_bytes())
    at = raw.index(b"hello")
    raw[at] ^= 0x20  # one flipped bit in the stored data
    path.write_bytes(bytes(raw))
    with pytest.raises(InputError) as info:
        decompress(path, "crc.zip", "zip", tmp_path / "out", Limits(max_bytes=1 << 30, max_ratio=500))
    assert "crc.zip:t.txt" in str(info.value) and "CRC-32 mismatch" in str(info.value)


def test_zip_unsupported_method_named(tmp_path: Path) -> None:
    path = tmp_path / "odd.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr("t.txt", b"x" * 100)
    raw = bytearray(path.read_bytes())
    # compression method: local header offset 8, central directory entry offset 10
    raw[8:10] = (9).to_bytes(2, "little")
    cd = raw.index(b"PK\x01\x02")
    raw[cd + 10:cd + 12] = (9).to_bytes(2, "little")
    path.write_bytes(bytes(raw))
    with pytest.raises(InputError) as info:
        decompress(path, "odd.zip", "zip", tmp_path / "out", Limits(max_bytes=1 << 30, max_ratio=500))
    assert info.value.status == 415
    assert "odd.zip:t.txt" in str(info.value) and "compression method 9 is not supported" in str(info.value)


def test_zip_lzma_member_declaring_a_huge_dictionary_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "dict.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_LZMA) as z:
        z.writestr("t.txt", b"x" * 1000)
    raw = bytearray(path.read_bytes())
    props = raw.index(b"PK\x03\x04") + 30 + len("t.txt") + 4  # after the 4-byte zip LZMA header
    raw[props + 1:props + 5] = (0xFFFFFFFF).to_bytes(4, "little")  # a 4 GiB dictionary
    path.write_bytes(bytes(raw))
    with pytest.raises(InputError) as info:
        decompress(path, "dict.zip", "zip", tmp_path / "out", Limits(max_bytes=1 << 30, max_ratio=500))
    assert info.value.status == 415
    assert "dict.zip:t.txt" in str(info.value) and "4294967295-byte dictionary" in str(info.value)


def test_zip_bomb_upload_server_memory_and_health(bombs: dict[str, Path], tmp_path: Path) -> None:
    """The same bombs uploaded to a real server: each refused with 413 naming the member, the
    server's RSS moves by less than SERVER_BUDGET while it refuses, /api/health stays quick."""
    server = start_server(tmp_path)
    data = server.data_dir
    try:
        warm = tmp_path / "warm.zip"  # the first ingest's imports and buffers are not the bomb's
        with zipfile.ZipFile(warm, "w", zipfile.ZIP_BZIP2) as z:
            z.writestr("t.txt", b"not a trace\n")
        httpx.post(f"{server.url}/api/traces", params={"name": "warm.zip"}, content=warm.read_bytes(), timeout=60)
        for method in ("bzip2", "lzma"):
            with Watch(server) as watch:
                r = httpx.post(f"{server.url}/api/traces", params={"name": bombs[method].name},
                               content=bombs[method].read_bytes(), timeout=60)
            grew = watch.rss_growth_mib * (1 << 20)
            print(f"{method}: server RSS +{grew:.0f} bytes refusing it; {watch.report()}")
            assert r.status_code == 413 and f"{bombs[method].name}:trace.txt" in r.json()["detail"], r.text
            assert grew < SERVER_BUDGET, f"{method}: the server grew by {grew} bytes refusing a zip bomb"
            assert not watch.failures and watch.health_max_s < 0.5, watch.report()
        assert list((data / "tmp").iterdir()) == []
    finally:
        server.stop()
