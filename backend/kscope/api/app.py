"""The FastAPI application: API routes under /api, OpenAPI at /docs, the frontend at /."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from kscope import __version__
from kscope.api.frontend import SinglePageApp
from kscope.api.routes import conform as conform_routes
from kscope.api.routes import health, rooms, shares, topologies, traces
from kscope.core.config import Settings, get_settings
from kscope.native.core import CoreLibraryMissing, KscopeCoreError
from kscope.rooms.broker import make_broker
from kscope.rooms.hub import Hub
from kscope.store import tmp_claims


async def _core_missing(_: Request, exc: Exception) -> JSONResponse:
    return JSONResponse(status_code=503, content={"detail": str(exc)})


async def _core_failed(_: Request, exc: Exception) -> JSONResponse:
    return JSONResponse(status_code=500, content={"detail": str(exc)})


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    # Ingests left under tmp/ by a process that died (kill -9 mid-ingest) are removed now,
    # not when the store first opens (store/tmp_claims.py; live processes' ingests are locked).
    tmp_claims.sweep(Path(app.state.settings.data_dir) / "tmp")
    app.state.rooms = Hub(app.state.settings, make_broker(app.state.settings))
    await app.state.rooms.start()
    yield
    await app.state.rooms.close()
    pool = getattr(app.state, "ingest_pool", None)
    if pool is not None:
        pool.close()
    store = getattr(app.state, "store", None)  # opened on first use (api/deps.py)
    if store is not None:
        store.close()
        app.state.store = None


def create_app(settings: Settings | None = None) -> FastAPI:
    """A new application; `settings` defaults to the process-wide Settings."""
    settings = settings or get_settings()
    app = FastAPI(
        title="kscope",
        version=__version__,
        description="Models of Linux kernel scheduling algorithms, computed by the kscope C core.",
        lifespan=_lifespan,
    )
    app.state.settings = settings
    app.add_exception_handler(CoreLibraryMissing, _core_missing)
    app.add_exception_handler(KscopeCoreError, _core_failed)
    app.include_router(health.router, prefix="/api")
    app.include_router(topologies.router, prefix="/api")
    app.include_router(traces.router, prefix="/api")
    app.include_router(shares.router, prefix="/api")
    app.include_router(rooms.router, prefix="/api")
    app.include_router(conform_routes.router, prefix="/api")
    # Last: the mount at / only sees paths no API route matched.
    app.mount("/", SinglePageApp(settings.frontend_dist), name="frontend")
    return app
