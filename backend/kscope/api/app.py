"""The FastAPI application: API routes under /api, OpenAPI at /docs, the frontend at /."""

import asyncio
import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.responses import JSONResponse, Response

from starlette.exceptions import HTTPException

from kscope import __version__
from kscope.api.busy import RefuseWhenBusy
from kscope.api.frontend import SinglePageApp
from kscope.api.routes import conform as conform_routes
from kscope.api.routes import exports as export_routes
from kscope.api.routes import health, rooms, shares, topologies, traces
from kscope.core.config import Settings, get_settings
from kscope.core.scrub import scrub_paths
from kscope.native.core import CoreLibraryMissing, KscopeCoreError
from kscope.rooms.broker import make_broker
from kscope.rooms.hub import Hub
from kscope.store import tmp_claims
from kscope.store import sql_process


async def _core_missing(request: Request, exc: Exception) -> JSONResponse:
    return JSONResponse(status_code=503, content={"detail": scrub_paths(str(exc), request.app.state.settings)})


async def _core_failed(request: Request, exc: Exception) -> JSONResponse:
    return JSONResponse(status_code=500, content={"detail": scrub_paths(str(exc), request.app.state.settings)})


async def _http_error(request: Request, exc: Exception) -> Response:
    """Every HTTPException's text, without the server's absolute paths (core/scrub.py)."""
    assert isinstance(exc, HTTPException)
    if isinstance(exc.detail, str):
        exc.detail = scrub_paths(exc.detail, request.app.state.settings)
    return await http_exception_handler(request, exc)


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    # Ingests left under tmp/ by a process that died (kill -9 mid-ingest) are removed now,
    # not when the store first opens (store/tmp_claims.py; live processes' ingests are locked).
    tmp_claims.sweep(Path(app.state.settings.data_dir) / "tmp")
    app.state.rooms = Hub(app.state.settings, make_broker(app.state.settings))
    await app.state.rooms.start()
    # The SQL fork server (store/sql_process.py) starts now, in the background, rather than
    # inside the first query (and the attack that query may be part of).
    asyncio.get_running_loop().run_in_executor(None, sql_process.warm_up)
    # Everything loaded so far lives as long as the server: out of the collector's way, so a
    # full collection (triggered by a burst of requests) does not pause the loop to scan it.
    gc.freeze()
    yield
    await app.state.rooms.close()
    pool = getattr(app.state, "ingest_pool", None)
    if pool is not None:
        pool.close()
    if getattr(app.state, "gates", None) is not None:
        app.state.gates.close()
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
    app.add_exception_handler(HTTPException, _http_error)
    app.include_router(health.router, prefix="/api")
    app.include_router(topologies.router, prefix="/api")
    app.include_router(traces.router, prefix="/api")
    app.include_router(export_routes.router, prefix="/api")
    app.include_router(shares.router, prefix="/api")
    app.include_router(rooms.router, prefix="/api")
    app.include_router(conform_routes.router, prefix="/api")
    app.add_middleware(RefuseWhenBusy)
    # Last: the mount at / only sees paths no API route matched.
    app.mount("/", SinglePageApp(settings.frontend_dist), name="frontend")
    return app
