"""/api/traces: upload (ingest), list, read, delete, events, summary, SQL, progress.

Every trace belongs to the token returned at upload: send it back as the
X-Kscope-Token header (or `?token=` where a browser cannot set headers, as
for EventSource). Without the owner's token a trace does not exist (404).
"""

import asyncio
import io
import json
from collections.abc import AsyncIterator
from typing import Annotated, Any

import pyarrow as pa
from fastapi import APIRouter, Depends, Header, HTTPException, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, StreamingResponse

from kscope.api import uploads
from kscope.api.deps import gates, get_jobs, get_store
from kscope.api.gate import Busy, Gate
from kscope.api.schemas import (IngestAccepted, IngestProgress, OccupancySummary, SqlRequest, SqlResult,
                                TraceCreated, TracePublic)
from kscope.ingest.jobs import Jobs
from kscope.ingest.sources import InputError
from kscope.store.meta import TraceRecord
from kscope.store.events import BadCursor
from kscope.store.store import (SqlRefused, SqlTimeout, SqlTooBig, TraceNotFound, TraceStore, hash_token,
                                new_token, new_trace_id)

router = APIRouter(prefix="/traces", tags=["traces"])

ARROW_STREAM = "application/vnd.apache.arrow.stream"
Store = Annotated[TraceStore, Depends(get_store)]
JobsDep = Annotated[Jobs, Depends(get_jobs)]
Token = Annotated[str | None, Header(alias="X-Kscope-Token")]
NOT_FOUND = {404: {"description": "no such trace, or not with this token"}}


def _public(rec: TraceRecord) -> dict[str, Any]:
    data = {k: v for k, v in vars(rec).items() if k not in ("owner_hash", "summary")}
    data["by_type"] = rec.summary.get("by_type", {})
    data["first_error"] = rec.summary.get("first_error")
    return data


def _owned(store: TraceStore, trace_id: str, token: str | None) -> TraceRecord:
    if not token:
        raise HTTPException(status_code=404, detail=f"no trace {trace_id!r}")
    try:
        return store.get(trace_id, token)
    except TraceNotFound as err:
        raise HTTPException(status_code=404, detail=str(err)) from err


def _bad_input(err: InputError) -> HTTPException:
    return HTTPException(status_code=err.status, detail=str(err))


@router.post("", status_code=201, response_model=TraceCreated | IngestAccepted,
             responses={413: {"description": "over a size limit"}, 415: {"description": "not a trace"},
                        422: {"description": "unreadable trace"}})
async def upload_trace(request: Request, store: Store, jobs: JobsDep, token: Token = None,
                       name: Annotated[str, Query(max_length=255)] = "upload",
                       background: bool = False) -> Any:
    """Streams the body (a trace file, maybe gzip/xz/zstd/zip) to disk and ingests it.

    Synchronous by default (201 with the trace, or 4xx naming the file, place and
    problem); with `background=true`, 202 once the body is in, and the ingest goes
    on (GET /{id}/progress). The owner token is the X-Kscope-Token sent, or a new one.
    """
    token = token or new_token()
    trace_id = new_trace_id()
    settings = store.settings
    declared = request.headers.get("content-length", "")
    size = int(declared) if declared.isdigit() else 0
    jobs.start(trace_id, hash_token(token), name, size)
    dest = store.root / "tmp" / f"upload-{trace_id}"
    try:
        await uploads.receive(request, dest, name, settings.max_upload_bytes,
                              lambda n: jobs.update(trace_id, "upload", n, max(size, n), 0))
    except InputError as err:
        jobs.fail(trace_id, str(err), err.status)
        raise _bad_input(err) from err
    if background:
        asyncio.get_running_loop().run_in_executor(None, _run_quietly, jobs, store, dest, name, token, trace_id)
        return JSONResponse(status_code=202, content=IngestAccepted(
            id=trace_id, token=token, progress_url=f"/api/traces/{trace_id}/progress").model_dump())
    try:
        done = await run_in_threadpool(jobs.run, store, dest, name, token, trace_id)
    except InputError as err:
        raise _bad_input(err) from err
    return {**_public(done.record), "token": done.token}


def _run_quietly(jobs: Jobs, store: TraceStore, dest: Any, name: str, token: str, trace_id: str) -> None:
    try:
        jobs.run(store, dest, name, token, trace_id)
    except Exception:  # recorded in the job; nobody waits on this thread
        pass


@router.get("", response_model=list[TracePublic])
def list_traces(store: Store, token: Token = None) -> list[dict[str, Any]]:
    """The traces this token owns (none without a token)."""
    return [_public(r) for r in store.list_traces(token)] if token else []


@router.get("/{trace_id}", response_model=TracePublic, responses=NOT_FOUND)
def read_trace(trace_id: str, store: Store, token: Token = None) -> dict[str, Any]:
    return _public(_owned(store, trace_id, token))


@router.delete("/{trace_id}", status_code=204, responses=NOT_FOUND)
def delete_trace(trace_id: str, store: Store, token: Token = None) -> Response:
    _owned(store, trace_id, token)
    store.delete(trace_id, token)
    return Response(status_code=204)


@router.get("/{trace_id}/progress", responses={200: {"content": {"text/event-stream": {}}}, **NOT_FOUND})
async def ingest_progress(trace_id: str, jobs: JobsDep, token: Token = None,
                          query_token: Annotated[str | None, Query(alias="token")] = None) -> StreamingResponse:
    """Server-sent events, one IngestProgress per change, until done or error."""
    token = token or query_token
    job = jobs.get(trace_id)
    if job is None or not token or job.owner_hash != hash_token(token):
        raise HTTPException(status_code=404, detail=f"no ingest {trace_id!r}")

    async def stream() -> AsyncIterator[bytes]:
        last = None
        while True:
            current = jobs.get(trace_id)
            if current is None:
                return
            data = IngestProgress(**current.public()).model_dump()
            if data != last:
                yield f"event: {current.phase}\ndata: {json.dumps(data)}\n\n".encode()
                last = data
            if current.finished:
                return
            await asyncio.sleep(0.1)

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache"})


I64 = Annotated[int | None, Query(ge=-(1 << 63), le=(1 << 63) - 1, description="ns (a 64-bit integer)")]


def _int_list(text: str | None, what: str) -> list[int] | None:
    if not text:
        return None
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError as err:
        raise HTTPException(status_code=422, detail=f"{what}: expected comma-separated integers, "
                                                    f"got {text[:80]!r}") from err
    if any(not -(1 << 31) <= v < (1 << 31) for v in values):
        raise HTTPException(status_code=422, detail=f"{what}: each must fit in 32 bits")
    return values


def _json_rows(table: pa.Table) -> bytes:
    """The rows as a JSON array of objects (as table.to_pylist() would give), encoded by DuckDB's
    to_json: ~5x faster than Python objects + json.dumps, and outside the interpreter lock, so
    the event loop keeps answering (/api/health) while a page is encoded."""
    import duckdb

    conn = duckdb.connect(":memory:", config={"threads": 1})
    try:
        rows = conn.from_arrow(table).query("page", "SELECT to_json(r) FROM page r").fetchall()
    finally:
        conn.close()
    return ("[" + ",".join(r[0] for r in rows) + "]").encode()


SEND_CHUNK = 256 * 1024


def _streamed(body: bytes, media_type: str, headers: dict[str, str] | None = None) -> StreamingResponse:
    """A built body sent a chunk at a time. One 20 MB write would sit in the socket transport's
    buffer, which asyncio (3.11) trims from the front after every partial send: a memmove of the
    rest each time, on the event loop. Chunks go out as the client takes them."""

    async def chunks() -> AsyncIterator[bytes]:
        view = memoryview(body)
        for start in range(0, len(view), SEND_CHUNK):
            yield bytes(view[start:start + SEND_CHUNK])

    return StreamingResponse(chunks(), media_type=media_type,
                             headers={**(headers or {}), "Content-Length": str(len(body))})


def _busy(err: Busy) -> HTTPException:
    return HTTPException(status_code=429, detail=str(err), headers={"Retry-After": err.retry_after})


def _refuse_if_busy(gate: Gate, token: str | None) -> None:
    """429 at once, on the event loop, when the gate is full: a storm of refused requests costs
    no worker thread (the owner check comes after)."""
    try:
        gate.check(hash_token(token or ""))
    except Busy as err:
        raise _busy(err) from err


@router.get("/{trace_id}/events", responses={200: {"content": {ARROW_STREAM: {}}}, 429: {"description": "busy"},
                                             **NOT_FOUND})
async def read_events(request: Request, trace_id: str, store: Store, token: Token = None,
                      t0: I64 = None, t1: I64 = None, cpus: str | None = None,
                      types: Annotated[str | None, Query(max_length=4096)] = None,
                      limit: Annotated[int, Query(gt=0)] = 100_000,
                      format: Annotated[str, Query(pattern="^(arrow|json)$")] = "arrow",
                      cursor: Annotated[str | None, Query(max_length=64)] = None) -> Response:
    """Events with t0 <= ts_ns < t1 on `cpus` (e.g. 0,3) of `types` (e.g. sched_switch),
    by time: an Arrow IPC stream, or JSON rows with format=json.

    One page holds at most `limit` rows, and at most KSCOPE_EVENTS_MAX_ROWS (Arrow) or
    KSCOPE_EVENTS_MAX_JSON_ROWS (JSON). When more rows match, the X-Kscope-Next-Cursor
    header holds the cursor of the next page (pass it as `cursor=`, the other parameters
    unchanged; it replaces t0) and the Link header the next page's URL."""
    gate = gates(request).events
    _refuse_if_busy(gate, token)
    rec = await run_in_threadpool(_owned, store, trace_id, token)
    cpu_list = _int_list(cpus, "cpus")
    type_list = [t for t in types.split(",") if t] if types else None
    settings = store.settings
    cap = settings.events_max_json_rows if format == "json" else settings.events_max_rows
    page = min(limit, cap)

    def work() -> tuple[bytes, str | None]:
        table, nxt = store.events_page(rec.id, t0, t1, cpu_list, type_list, page, cursor)
        if format == "json":
            return _json_rows(table), nxt
        sink = io.BytesIO()
        with pa.ipc.new_stream(sink, table.schema) as writer:
            writer.write_table(table)
        return sink.getvalue(), nxt

    try:
        body, nxt = await gate.run(rec.owner_hash, work)
    except Busy as err:
        raise _busy(err) from err
    except BadCursor as err:
        raise HTTPException(status_code=422, detail=str(err)) from err
    headers = {"X-Kscope-Page-Limit": str(page)}
    if nxt is not None:
        headers["X-Kscope-Next-Cursor"] = nxt
        headers["Link"] = f'<{request.url.include_query_params(cursor=nxt)}>; rel="next"'
    return _streamed(body, "application/json" if format == "json" else ARROW_STREAM, headers)


@router.get("/{trace_id}/summary", response_model=OccupancySummary, responses=NOT_FOUND)
def read_summary(trace_id: str, store: Store, token: Token = None, t0: I64 = None,
                 t1: I64 = None, buckets: Annotated[int, Query(gt=0, le=10_000)] = 500) -> dict[str, Any]:
    """Per-CPU occupancy for a timeline overview (from the summaries written at ingest)."""
    rec = _owned(store, trace_id, token)
    try:
        return store.summary(rec, t0, t1, buckets)
    except ValueError as err:
        raise HTTPException(status_code=422, detail=str(err)) from err


@router.post("/{trace_id}/sql", response_model=SqlResult,
             responses={400: {"description": "not one read-only SELECT, or it failed"},
                        408: {"description": "time limit"},
                        422: {"description": "result or memory over a limit"},
                        429: {"description": "too many queries at once (Retry-After)"},
                        **NOT_FOUND})
async def run_sql(request: Request, trace_id: str, body: SqlRequest, store: Store,
                  token: Token = None) -> StreamingResponse:
    """One read-only SELECT over the DuckDB view `events`, bounded in time (KSCOPE_SQL_TIMEOUT_S,
    fetching and encoding included), rows, bytes and memory; on the SQL threads (KSCOPE_SQL_MAX_CONCURRENT)."""
    gate = gates(request).sql
    _refuse_if_busy(gate, token)
    rec = await run_in_threadpool(_owned, store, trace_id, token)
    try:
        return _streamed(await gate.run(rec.owner_hash, store.sql_json, rec.id, body.sql), "application/json")
    except Busy as err:
        raise _busy(err) from err
    except SqlRefused as err:
        raise HTTPException(status_code=400, detail=str(err)) from err
    except SqlTooBig as err:
        raise HTTPException(status_code=422, detail=str(err)) from err
    except SqlTimeout as err:
        raise HTTPException(status_code=408, detail=str(err)) from err


@router.get("/{trace_id}/topology", responses={200: {"content": {"text/plain": {}}},
                                               204: {"description": "the capture had no topology dump"},
                                               **NOT_FOUND})
def read_topology(trace_id: str, store: Store, token: Token = None) -> Response:
    """The capture's `# kscope-sysfs:` topology dump ("path<TAB>value" lines), as written at ingest;
    the timeline groups CPU lanes by LLC and NUMA node from it."""
    from kscope.ingest.pipeline import TOPOLOGY_FILE

    _owned(store, trace_id, token)
    path = store.trace_dir(trace_id) / TOPOLOGY_FILE
    if not path.is_file():
        return Response(status_code=204)
    return Response(path.read_bytes(), media_type="text/plain; charset=utf-8")
