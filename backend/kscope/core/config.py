"""The one Settings object: every tunable of the backend, read from `KSCOPE_*` env vars."""

from functools import lru_cache
from pathlib import Path

from pydantic_settings import BaseSettings, SettingsConfigDict

# backend/kscope/core/config.py -> the repository root (the package is installed editable).
REPO_ROOT = Path(__file__).resolve().parents[3]


class Settings(BaseSettings):
    """Backend settings; each field can be overridden by `KSCOPE_<FIELD>`."""

    model_config = SettingsConfigDict(env_prefix="KSCOPE_")

    host: str = "127.0.0.1"
    port: int = 8000
    core_lib: Path = REPO_ROOT / "wasm-core" / "build" / "native" / "libkscope.so"
    # The browser's wasm module (the .wasm beside it), run under Node by the benchmarks
    # and the native/wasm cross-check.
    wasm_module: Path = REPO_ROOT / "wasm-core" / "build" / "wasm" / "kscope_core.mjs"
    node: str = "node"  # the Node.js executable (a name on PATH or a path)
    frontend_dist: Path = REPO_ROOT / "frontend" / "dist"


@lru_cache
def get_settings() -> Settings:
    """The settings of this process, read once from the environment."""
    return Settings()
