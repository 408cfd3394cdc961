"""An upload body streamed to a file: no spooling, no whole body in memory, a size limit."""

from pathlib import Path

from fastapi import Request

from kscope.ingest.sources import InputError


async def receive(request: Request, dest: Path, name: str, limit: int,
                  on_progress=None) -> int:  # type: ignore[no-untyped-def]
    """Writes the request body to dest; InputError(413) past `limit` bytes (dest removed)."""
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
    except BaseException:
        dest.unlink(missing_ok=True)
        raise
    return total
