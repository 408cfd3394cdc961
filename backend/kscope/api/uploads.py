"""An upload body streamed to a file: no spooling, no whole body in memory, a size limit."""

from pathlib import Path

from fastapi import Request
from fastapi.concurrency import run_in_threadpool

from kscope.ingest.sources import InputError


# Body bytes gathered before one write (on a worker thread).
WRITE_BYTES = 1 << 20


async def receive(request: Request, dest: Path, name: str, limit: int,
                  on_progress=None) -> int:  # type: ignore[no-untyped-def]
    """Writes the request body to dest; InputError(413) past `limit` bytes (dest removed)."""
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
    except BaseException:
        dest.unlink(missing_ok=True)
        raise
    return total
