"""`kscope repro ...`: seed benchmarks re-run on the models, printed beside the published figures.

Each target (a model's repro module, kscope/models/<name>/repro.py, listed by
`kscope repro --list` from models/registry.py) runs one seed's benchmark through
the C core and reports the model's
numbers, the published ones (kscope/data/published.json, a verbatim copy of the
seeds' transcription), computed checks, and every constant the numbers depend on
with its source and whether it was calibrated (and on what).
"""

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

PUBLISHED = Path(__file__).resolve().parents[1] / "data" / "published.json"


@lru_cache(maxsize=1)
def published() -> dict[str, Any]:
    """The published figures, as transcribed from the seed documents."""
    return json.loads(PUBLISHED.read_text(encoding="utf-8"))
