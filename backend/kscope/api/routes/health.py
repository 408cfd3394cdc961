"""GET /api/health: is the backend up, and which core did it load."""

from fastapi import APIRouter

from kscope import __version__
from kscope.api.schemas import Health
from kscope.native import core

router = APIRouter(tags=["health"])


@router.get("/health", response_model=Health)
def read_health() -> Health:
    """Backend and core versions; loading the core here proves it is usable."""
    return Health(status="ok", version=__version__, core_version=core.version())
