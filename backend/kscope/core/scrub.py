"""Error texts without the server's absolute paths: a client learns where in *its* input a
problem is, never where the server keeps its files.

The server's own folders (the data directory, the repository with the native programs,
the Python prefix) are cut from the front of every path in a text, leaving the path
relative to them (`tmp/<id>/input`, `wasm-core/build/native/kscope-ingest`).
"""

import sys
from functools import lru_cache
from pathlib import Path

from kscope.core.config import REPO_ROOT, Settings


@lru_cache(maxsize=8)
def _roots_of(data_dir: str) -> tuple[str, ...]:
    return tuple(_roots(data_dir))


def _roots(data_dir: str) -> list[str]:
    found: set[str] = set()
    for p in (Path(data_dir), REPO_ROOT, Path(sys.prefix), Path(sys.base_prefix)):
        found.add(str(p))
        try:
            found.add(str(p.resolve()))
        except OSError:
            pass
    # The longest first, so a data dir inside the repository keeps its own relative form.
    return sorted((r.rstrip("/") for r in found if len(r) > 1), key=len, reverse=True)


def scrub_paths(text: str, settings: Settings) -> str:
    for root in _roots_of(str(settings.data_dir)):
        text = text.replace(root + "/", "").replace(root, ".")
    return text
