"""An upload body streamed to a file: no spooling, no whole body in memory, a size limit."""

from pathlib import Path

from fastapi import Request
from starlette.requests import ClientDisconnect

from kscope.ingest.sources import InputError


async def receive(request: Request, dest: Path, name: str, limit: int,
                  on_progress=None) -> int:  # type: ignore[no-untyped-def]
    """Writes the request body to dest; InputError(413) past `limit` bytes, InputError(400) when
    the client disconnects mid-body (dest removed either way)."""
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit:
        raise InputError(f"{name}: byte {limit}: upload of {declared} bytes is over the {limit} byte limit",
                         status=413)
    total = 0
    try:
        with open(dest, "wb") as out:
            async for chunk in request.stream():
                total += len(chunk)
                if total > limit:
                    raise InputError(f"{name}: byte {limit}: upload is over the {limit} byte limit", status=413)
                out.write(chunk)
                if on_progress:
                    on_progress(total)
    except ClientDisconnect:
        # The client went away: a clean refusal (logged as one line by uvicorn, never a traceback).
        dest.unlink(missing_ok=True)
        raise InputError(f"{name}: byte {total}: the client closed the connection before the upload ended "
                         f"({total} bytes received, nothing stored)", status=400) from None
    except BaseException:
        dest.unlink(missing_ok=True)
        raise
    return total
