"""Serving the built frontend (frontend/dist) as a single-page app next to the API.

Static files are served as they are; any other non-/api path gets index.html so
the frontend's own router can handle it. Paths under /api never fall back: they
stay JSON 404s. Before the frontend is built, pages are a 503 saying how to build it.
"""

import mimetypes
import os
from pathlib import Path

from starlette.exceptions import HTTPException
from starlette.responses import HTMLResponse, Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

# The browser compiles wasm with instantiateStreaming only when served as application/wasm.
mimetypes.add_type("application/wasm", ".wasm")
mimetypes.add_type("text/javascript", ".mjs")

NOT_BUILT_PAGE = """<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>kscope: frontend not built</title></head>
<body>
<h1>The kscope frontend is not built</h1>
<p>No <code>index.html</code> in <code>{dist}</code>.</p>
<p>Run <code>npm start</code> at the repository root: it builds the C core, the wasm
module and the frontend, then starts this server.</p>
<p>The API is up meanwhile: <a href="/docs">/docs</a>.</p>
</body>
</html>
"""


def _is_api_path(path: str) -> bool:
    return path == "api" or path.startswith("api" + os.sep)


def _is_asset_path(path: str) -> bool:
    """A built file (hashed assets, favicon): missing means 404, never the app page."""
    return path.startswith("assets" + os.sep) or os.path.splitext(path)[1] != ""


class SinglePageApp(StaticFiles):
    """StaticFiles with an index.html fallback, a 503 page when unbuilt, and /api left alone."""

    def __init__(self, dist: Path) -> None:
        super().__init__(directory=dist, check_dir=False)
        self.dist = dist

    async def check_config(self) -> None:
        """No start-up check: the frontend may be built after the server starts."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        """The file at `path`, else index.html; a 503 page if nothing is built."""
        if _is_api_path(path):
            raise HTTPException(status_code=404)
        if not (self.dist / "index.html").is_file():
            return HTMLResponse(NOT_BUILT_PAGE.format(dist=self.dist), status_code=503)
        try:
            return await super().get_response(path, scope)
        except HTTPException as exc:
            if exc.status_code != 404 or _is_asset_path(path):
                raise
            return await super().get_response("index.html", scope)
