"""The decompression limits and magics have one definition (kscope/data/decompression.json),
read by the server and by the browser's Open locally (frontend/src/engine/decompress.ts,
whose test decompress.test.ts refuses the same bomb files): the server's defaults are that
file's values, and the server refuses the committed bombs the browser refuses."""

import json
from pathlib import Path

import re

import pytest

from kscope.core.config import DECOMPRESSION, Settings
from kscope.ingest import sources
from kscope.ingest.pipeline import ingest
from kscope.ingest.sources import InputError
from kscope.store.store import TraceStore

SHARED = Path(__file__).resolve().parents[1] / "kscope" / "data" / "decompression.json"
BOMBS = Path(__file__).resolve().parents[2] / "traces" / "compressed"


def test_server_defaults_are_the_shared_definition() -> None:
    shared = json.loads(SHARED.read_text())
    assert DECOMPRESSION == shared
    s = Settings()
    assert (s.max_decompressed_bytes, s.max_compression_ratio) == (16 << 30, 500)
    assert (s.max_decompressed_bytes, s.max_compression_ratio) == (shared["max_decompressed_bytes"],
                                                                   shared["max_compression_ratio"])
    assert sources.PIECE == shared["ratio_checked_after_bytes"] == 1 << 20
    assert sources.MAGICS == {b"\x1f\x8b": "gzip", b"\xfd7zXZ\x00": "xz", b"\x28\xb5\x2f\xfd": "zstd",
                              b"PK\x03\x04": "zip"}


@pytest.mark.parametrize("name, kind", [("zeros-64MiB.xz", "xz"), ("zeros-64MiB.zst", "zstd"),
                                        ("zeros-64MiB.zip", "zip")])
def test_server_refuses_the_bombs_the_browser_refuses(tmp_path: Path, name: str, kind: str) -> None:
    store = TraceStore(Settings(data_dir=tmp_path / "data"))
    try:
        with pytest.raises(InputError) as err:
            ingest(store, BOMBS / name, name=name)
        assert err.value.status == 413
        # zip names its member's method too: "zip (deflate) data expands ..."
        assert re.search(rf"{kind}( \(\w+\))? data expands more than 500x \(a decompression bomb\?\)", str(err.value))
        assert store.list_traces() == []
    finally:
        store.close()
