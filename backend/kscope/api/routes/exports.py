"""GET /api/traces/{id}/export: a stored trace, or a window of it, as ftrace text or Chrome
trace-event JSON (Perfetto UI, chrome://tracing), streamed as a download.

Read access as for the other read routes (the owner's X-Kscope-Token or the trace's share
token, X-Kscope-Share; `?token=` / `?share=` for a plain browser download link); run on the
events gate (its threads, queue and per-token cap: 429 when full), at most
KSCOPE_EXPORT_MAX_EVENTS events (422 past it, before anything is sent).

The whole file is written on the gate's thread, into a spooled temporary file (memory up
to SPOOL_MEMORY_BYTES, then disk), and only then sent: the CPU of writing it is bounded
by the gate like any other heavy read, not spread over the server's shared thread pool
while the client downloads.
"""

import tempfile
from collections.abc import Iterator
from typing import IO, Annotated

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import StreamingResponse
from starlette.background import BackgroundTask

from kscope.api.deps import gates, get_store
from kscope.api.gate import Busy
from kscope.api.routes.traces import I64, NOT_FOUND, Share, Token, _busy, _refuse_if_busy, gate_key, readable
from kscope.store.store import TraceStore
from kscope.trace_export import export

router = APIRouter(prefix="/traces", tags=["traces"])
Store = Annotated[TraceStore, Depends(get_store)]

SPOOL_MEMORY_BYTES = 8 << 20   # an export larger than this is spooled to a temporary file
READ_CHUNK = 1 << 20


def _render(store: TraceStore, rec, fmt: str, t0: int | None, t1: int | None) -> tuple[export.Export, IO[bytes]]:
    """On the gate's thread: the export's rows read and the whole file written (spooled)."""
    ex = export.prepare(store, rec, fmt, t0, t1)
    out = tempfile.SpooledTemporaryFile(max_size=SPOOL_MEMORY_BYTES)
    try:
        for chunk in ex.chunks():
            out.write(chunk)
        out.seek(0)
    except BaseException:
        out.close()
        raise
    return ex, out


@router.get("/{trace_id}/export",
            responses={200: {"content": {"application/json": {}, "text/plain": {}}},
                       422: {"description": "bad window, or more events than one export writes"},
                       429: {"description": "busy"}, **NOT_FOUND})
async def export_trace(request: Request, trace_id: str, store: Store, token: Token = None, share: Share = None,
                       format: Annotated[str, Query(pattern="^(chrome-json|ftrace)$")] = "chrome-json",
                       t0: I64 = None, t1: I64 = None,
                       query_token: Annotated[str | None, Query(alias="token", max_length=128)] = None,
                       query_share: Annotated[str | None, Query(alias="share", max_length=128)] = None
                       ) -> StreamingResponse:
    """The events with t0 <= ts_ns < t1 (default: all), as `format`: chrome-json (Chrome
    trace-event JSON: per-CPU tracks of X slices for what ran, instants for the rest) or
    ftrace (the text a 6.18 tracefs `trace` file holds, from kscope's C exporter).
    Content-Disposition names the file."""
    token = token or query_token
    share = share or query_share
    gate = gates(request).events
    key = gate_key(request, token, share)
    _refuse_if_busy(gate, key)
    rec = await run_in_threadpool(readable, store, trace_id, token, share)
    try:
        ex, out = await gate.run(key, _render, store, rec, format, t0, t1)
    except Busy as err:
        raise _busy(err) from err
    except ValueError as err:  # ExportTooBig too
        raise HTTPException(status_code=422, detail=str(err)) from err

    def body() -> Iterator[bytes]:
        while chunk := out.read(READ_CHUNK):
            yield chunk

    return StreamingResponse(body(), media_type=export.MEDIA[format], background=BackgroundTask(out.close),
                             headers={"Content-Disposition": f'attachment; filename="{ex.filename}"',
                                      "X-Kscope-Export-Events": str(ex.table.num_rows),
                                      "Access-Control-Expose-Headers": "Content-Disposition, X-Kscope-Export-Events"})
