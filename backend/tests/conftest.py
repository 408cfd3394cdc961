"""Shared paths and helpers of the backend tests."""

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
WORKLOADS = REPO / "wasm-core" / "workloads"
KSCOPE = Path(sys.executable).parent / "kscope"


@pytest.fixture
def workloads() -> Path:
    """wasm-core/workloads: the example workloads the C tests also run."""
    return WORKLOADS
