"""/api/traces: upload (ingest), list, read, delete, events, summary, SQL, progress.

Every trace belongs to the token returned at upload: send it back as the
X-Kscope-Token header (or `?token=` where a browser cannot set headers, as
for EventSource). Without the owner's token a trace does not exist (404).
The read routes also accept the trace's read-only share token (X-Kscope-Share,
routes/shares.py); delete and every other change take the owner's token only.
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

from kscope import trace_topology
from kscope.api import uploads
from kscope.api.deps import gates, get_ingest_pool, get_jobs, get_store
from kscope.api.gate import Busy, Gate
from kscope.api.ingest_pool import IngestPool, IngestQueueFull
from kscope.api.routes.shares import not_found
from kscope.api.schemas import (IngestAccepted, IngestProgress, OccupancySummary, SqlRequest, SqlResult,
                                TraceCreated, TracePublic)
from kscope.ingest.jobs import Jobs
from kscope.ingest.native_ingest import NativeIngestFailed
from kscope.ingest.pipeline import AttachedTopology
from kscope.ingest.provenance import provenance_of
from kscope.ingest.sources import InputError
from kscope.store.meta import TraceRecord
from kscope.store.events import BadCursor
from kscope.store.store import (SqlRefused, SqlTimeout, SqlTooBig, TraceNotFound, TraceStore, hash_token,
                                new_token, new_trace_id)

router = APIRouter(prefix="/traces", tags=["traces"])

ARROW_STREAM = "application/vnd.apache.arrow.stream"
Store = Annotated[TraceStore, Depends(get_store)]
JobsDep = Annotated[Jobs, Depends(get_jobs)]
PoolDep = Annotated[IngestPool, Depends(get_ingest_pool)]
Token = Annotated[str | None, Header(alias="X-Kscope-Token")]
Share = Annotated[str | None, Header(alias="X-Kscope-Share")]
NOT_FOUND = {404: {"description": "no such trace, or not with this token"}}


def _public(rec: TraceRecord) -> dict[str, Any]:
    data = {k: v for k, v in vars(rec).items() if k not in ("owner_hash", "summary")}
    data["by_type"] = rec.summary.get("by_type", {})
    data["first_error"] = rec.summary.get("first_error")
    # Traces stored before provenance was recorded: read it from their capture header.
    data["provenance"] = rec.summary.get("provenance") or provenance_of(rec.summary.get("capture"))
    return data


def _owned(store: TraceStore, trace_id: str, token: str | None) -> TraceRecord:
    """The trace, for its owner only (changes: delete and such)."""
    if not token:
        raise not_found(trace_id)
    try:
        return store.get(trace_id, token)
    except TraceNotFound as err:
        raise not_found(trace_id) from err


def readable(store: TraceStore, trace_id: str, token: str | None, share: str | None) -> TraceRecord:
    """The trace, for its owner or the holder of its current share token (reads only)."""
    try:
        return store.readable(trace_id, token, share)
    except TraceNotFound as err:
        raise not_found(trace_id) from err


def _bad_input(err: InputError) -> HTTPException:
    return HTTPException(status_code=err.status, detail=str(err))


@router.post("", status_code=201, response_model=TraceCreated | IngestAccepted,
             responses={413: {"description": "over a size limit"}, 415: {"description": "not a trace"},
                        422: {"description": "unreadable trace"},
                        503: {"description": "too many ingests at once (Retry-After)"}})
async def upload_trace(request: Request, store: Store, jobs: JobsDep, pool: PoolDep, token: Token = None,
                       name: Annotated[str, Query(max_length=255)] = "upload",
                       background: bool = False) -> Any:
    """Streams the body (a trace file, maybe gzip/xz/zstd/zip) to disk and ingests it.

    Or a multipart/form-data body (with Content-Length): the trace in the part `trace`, and the
    machine's topology in an optional part `topology` (`lscpu -p` output, a flattened sysfs dump
    or a tarball of /sys/devices/system) for a trace without kscope's sysfs header; a bad
    topology, or one of another CPU count, refuses the upload (422) and stores nothing.

    Synchronous by default (201 with the trace, or 4xx naming the file, place and
    problem); with `background=true`, 202 once the body is in, and the ingest goes
    on (GET /{id}/progress). The owner token is the X-Kscope-Token sent, or a new one.
    Ingests run KSCOPE_INGEST_WORKERS at a time; past KSCOPE_INGEST_QUEUE more waiting,
    503 with Retry-After before the body is read.
    """
    try:
        pool.admit()
    except IngestQueueFull as err:
        raise HTTPException(status_code=503, detail=f"{name}: {err}",
                            headers={"Retry-After": str(err.retry_after_s)}) from None
    token = token or new_token()
    trace_id = new_trace_id()
    settings = store.settings
    declared = request.headers.get("content-length", "")
    size = int(declared) if declared.isdigit() else 0
    handed_off = False
    try:
        jobs.start(trace_id, hash_token(token), name, size)
        # The id's tmp/ entries are claimed before the body lands there (store/tmp_claims.py): if this
        # process dies mid-ingest, the next start-up sweeps them. Released when the ingest is over.
        await run_in_threadpool(store.claims.claim, trace_id)
        try:
            dest = store.root / "tmp" / f"upload-{trace_id}"
            topology: AttachedTopology | None = None
            try:
                if uploads.is_form(request):
                    # A form: the trace in the part `trace` (its file name names it), an optional `topology` part.
                    name, topology = await uploads.receive_form(request, dest, name, settings.max_upload_bytes,
                                                                trace_topology.MAX_TOPOLOGY_BYTES)
                else:
                    await uploads.receive(request, dest, name, settings.max_upload_bytes,
                                          lambda n: jobs.update(trace_id, "upload", n, max(size, n), 0))
            except InputError as err:
                jobs.fail(trace_id, str(err), err.status)
                raise _bad_input(err) from err
            if background:
                pool.submit(_run_quietly, jobs, store, pool, dest, name, token, trace_id, topology)
                handed_off = True
                return JSONResponse(status_code=202, content=IngestAccepted(
                    id=trace_id, token=token, progress_url=f"/api/traces/{trace_id}/progress").model_dump())
            try:
                done = await pool.run(jobs.run, store, dest, name, token, trace_id, topology)
            except InputError as err:
                raise _bad_input(err) from err
            except NativeIngestFailed as err:
                raise HTTPException(status_code=500, detail=f"{name}: ingest failed, nothing was stored: {err}. "
                                                            f"Try the upload again.") from err
            return {**_public(done.record), "token": done.token}
        finally:
            if not handed_off:
                await run_in_threadpool(store.claims.release, trace_id)
    finally:
        if not handed_off:
            pool.release()


def _run_quietly(jobs: Jobs, store: TraceStore, pool: IngestPool, dest: Any, name: str, token: str,
                 trace_id: str, topology: AttachedTopology | None) -> None:
    try:
        jobs.run(store, dest, name, token, trace_id, topology)
    except Exception:  # recorded in the job; nobody waits on this thread
        pass
    finally:
        store.claims.release(trace_id)
        pool.release()


@router.get("", response_model=list[TracePublic])
def list_traces(store: Store, token: Token = None) -> list[dict[str, Any]]:
    """The traces this token owns (none without a token)."""
    return [_public(r) for r in store.list_traces(token)] if token else []


@router.get("/{trace_id}", response_model=TracePublic, responses=NOT_FOUND)
def read_trace(trace_id: str, store: Store, token: Token = None, share: Share = None) -> dict[str, Any]:
    return _public(readable(store, trace_id, token, share))


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


def gate_key(request: Request, token: str | None, share: str | None) -> str:
    """Whose request this is, for a gate's per-token cap: the caller's own token, or, for a
    share-link reader, the share token and the client's address. Share readers therefore
    never use up the owner's slots, and one class reading one link is not one bucket."""
    if token:
        return hash_token(token)
    if share:
        client = request.client.host if request.client else "?"
        return f"share:{hash_token(share)}@{client}"
    return hash_token("")


def _refuse_if_busy(gate: Gate, key: str) -> None:
    """429 at once, on the event loop, when the gate is full for `key` (gate_key): a storm of
    refused requests costs no worker thread (the owner check comes after)."""
    try:
        gate.check(key)
    except Busy as err:
        raise _busy(err) from err


@router.get("/{trace_id}/events", responses={200: {"content": {ARROW_STREAM: {}}}, 429: {"description": "busy"},
                                             **NOT_FOUND})
async def read_events(request: Request, trace_id: str, store: Store, token: Token = None, share: Share = None,
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
    key = gate_key(request, token, share)
    _refuse_if_busy(gate, key)
    rec = await run_in_threadpool(readable, store, trace_id, token, share)
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
        body, nxt = await gate.run(key, work)
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
def read_summary(trace_id: str, store: Store, token: Token = None, share: Share = None, t0: I64 = None,
                 t1: I64 = None, buckets: Annotated[int, Query(gt=0, le=10_000)] = 500) -> dict[str, Any]:
    """Per-CPU occupancy for a timeline overview (from the summaries written at ingest)."""
    rec = readable(store, trace_id, token, share)
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
                  token: Token = None, share: Share = None) -> StreamingResponse:
    """One read-only SELECT over the DuckDB view `events`, bounded in time (KSCOPE_SQL_TIMEOUT_S,
    fetching and encoding included), rows, bytes and memory; on the SQL threads (KSCOPE_SQL_MAX_CONCURRENT)."""
    gate = gates(request).sql
    key = gate_key(request, token, share)
    _refuse_if_busy(gate, key)
    rec = await run_in_threadpool(readable, store, trace_id, token, share)
    try:
        return _streamed(await gate.run(key, store.sql_json, rec.id, body.sql), "application/json")
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
def read_topology(trace_id: str, store: Store, token: Token = None, share: Share = None) -> Response:
    """The capture's `# kscope-sysfs:` topology dump ("path<TAB>value" lines), as written at ingest;
    the timeline groups CPU lanes by LLC and NUMA node from it."""
    from kscope.ingest.pipeline import TOPOLOGY_FILE

    readable(store, trace_id, token, share)
    path = store.trace_dir(trace_id) / TOPOLOGY_FILE
    if not path.is_file():
        return Response(status_code=204)
    return Response(path.read_bytes(), media_type="text/plain; charset=utf-8")


MAX_TOPOLOGY_BODY = trace_topology.MAX_TOPOLOGY_BYTES


@router.put("/{trace_id}/topology",
            responses={413: {"description": "over the topology size limit"},
                       422: {"description": "not a topology kscope reads, or not this trace's CPUs"},
                       **NOT_FOUND})
async def attach_topology(trace_id: str, request: Request, store: Store, token: Token = None,
                          name: Annotated[str, Query(max_length=255)] = "topology") -> dict[str, Any]:
    """Attaches the machine's topology to a stored trace (replacing the one it had): the body is
    `lscpu -p` output, a flattened sysfs dump or a tarball of /sys/devices/system (maybe
    compressed). 422 naming the file and line when the importer refuses it, or when its CPU count
    is not the trace's. The timeline then groups the CPU lanes by NUMA node and LLC."""
    rec = _owned(store, trace_id, token)
    dest = store.root / "tmp" / f"topology-{trace_id}-{new_token()[:8]}"
    try:
        await uploads.receive(request, dest, name, MAX_TOPOLOGY_BODY)
        data = dest.read_bytes()
    except InputError as err:
        raise _bad_input(err) from err
    finally:
        dest.unlink(missing_ok=True)
    try:
        dump, described = await run_in_threadpool(trace_topology.read_topology_bytes, data, name)
        trace_topology.check_matches_trace(described, name, rec.name, rec.summary.get("cpu_ids") or [],
                                           int(rec.summary.get("nr_cpus_header") or 0))
    except InputError as err:
        raise _bad_input(err) from err
    trace_topology.attach(store.trace_dir(trace_id), dump)
    return trace_topology.public(described, name)
