"""An upload body streamed to a file: no spooling, no whole body in memory, a size limit.

A multipart/form-data upload (a trace and its topology in one request) needs a
Content-Length within the limits, so its parts (spooled by Starlette's parser to
temporary files, not memory) cannot outgrow them either.
"""

import shutil
from pathlib import Path

from fastapi import Request
from starlette.datastructures import UploadFile
from fastapi.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect

from kscope.ingest.sources import InputError


# Body bytes gathered before one write (on a worker thread).
WRITE_BYTES = 1 << 20


async def receive(request: Request, dest: Path, name: str, limit: int,
                  on_progress=None) -> int:  # type: ignore[no-untyped-def]
    """Writes the request body to dest; InputError(413) past `limit` bytes, InputError(400) when
    the client disconnects mid-body (dest removed either way)."""
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit:
        raise InputError(f"{name}: byte {limit}: upload of {declared} bytes is over the {limit} byte limit",
                         status=413)
    total = 0
    pending: list[bytes] = []
    pending_bytes = 0
    try:
        with open(dest, "wb") as out:
            async for chunk in request.stream():
                total += len(chunk)
                if total > limit:
                    raise InputError(f"{name}: byte {limit}: upload is over the {limit} byte limit", status=413)
                pending.append(chunk)
                pending_bytes += len(chunk)
                if pending_bytes >= WRITE_BYTES:
                    # Off the event loop: a write can wait seconds when the kernel throttles dirty
                    # pages (50 uploads at once on a busy disk), and the loop serves everyone.
                    await run_in_threadpool(out.write, b"".join(pending))
                    pending, pending_bytes = [], 0
                if on_progress:
                    on_progress(total)
            if pending:
                await run_in_threadpool(out.write, b"".join(pending))
    except ClientDisconnect:
        # The client went away: a clean refusal (logged as one line by uvicorn, never a traceback).
        dest.unlink(missing_ok=True)
        raise InputError(f"{name}: byte {total}: the client closed the connection before the upload ended "
                         f"({total} bytes received, nothing stored)", status=400) from None
    except BaseException:
        dest.unlink(missing_ok=True)
        raise
    return total


def is_form(request: Request) -> bool:
    return request.headers.get("content-type", "").lower().startswith("multipart/form-data")


async def receive_form(request: Request, dest: Path, name: str, limit: int, topology_limit: int
                       ) -> tuple[str, object]:
    """A form with the trace in part `trace` (written to dest) and an optional `topology` part:
    (the trace's name, pipeline.AttachedTopology or None). InputError for a bad form or topology."""
    from kscope import trace_topology
    from kscope.ingest.pipeline import AttachedTopology

    declared = request.headers.get("content-length", "")
    if not declared.isdigit():
        raise InputError(f"{name}: a multipart upload needs a Content-Length", status=411)
    if int(declared) > limit + topology_limit:
        raise InputError(f"{name}: byte {limit}: upload of {declared} bytes is over the {limit} byte limit",
                         status=413)
    try:
        form = await request.form(max_files=2, max_fields=2)
    except Exception as err:  # the parser's own errors (bad boundary, too many parts)
        raise InputError(f"{name}: not a readable multipart/form-data body: {err}", status=422) from err
    try:
        trace, topo = form.get("trace"), form.get("topology")
        unknown = sorted(set(form.keys()) - {"trace", "topology"})
        if unknown:
            raise InputError(f"{name}: form field {unknown[0]!r}: expected the parts \"trace\" and \"topology\"")
        if not isinstance(trace, UploadFile):
            raise InputError(f"{name}: form field \"trace\": missing (the trace file goes in a part named trace)")
        trace_name = (trace.filename or name)[:255]
        if (trace.size or 0) > limit:
            raise InputError(f"{trace_name}: byte {limit}: upload is over the {limit} byte limit", status=413)
        attached = None
        if topo is not None and not isinstance(topo, UploadFile):
            raise InputError(f"{trace_name}: form field \"topology\": expected a file")
        if isinstance(topo, UploadFile):
            topo_name = (topo.filename or "topology")[:255]
            data = await topo.read(topology_limit + 1)
            dump, described = trace_topology.read_topology_bytes(data, topo_name)
            attached = AttachedTopology(dump, described, topo_name)
        await trace.seek(0)
        await run_in_threadpool(_copy_file, trace.file, dest)
        return trace_name, attached
    except BaseException:
        dest.unlink(missing_ok=True)
        raise
    finally:
        await form.close()


def _copy_file(src, dest: Path) -> None:
    """Copies an spooled upload part to dest, 1 MiB at a time (off the event loop)."""
    with open(dest, "wb") as out:
        shutil.copyfileobj(src, out, 1 << 20)
