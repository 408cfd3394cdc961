"""GET /api/health: is the backend up, and which core did it load."""

from fastapi import APIRouter

from kscope import __version__
from kscope.api.schemas import Health
from kscope.native import core

router = APIRouter(tags=["health"])


@router.get("/health", response_model=Health)
async def read_health() -> Health:
    """Backend and core versions; loading the core here proves it is usable. On the event loop
    (a version string from the loaded core, microseconds): it must answer while the worker
    threads are all busy (issue 20: health p99 < 0.5 s under load)."""
    return Health(status="ok", version=__version__, core_version=core.version())
