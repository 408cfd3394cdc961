"""GET /api/traces/{id}/conform: a stored trace replayed through a model (conform_store.py).

Owner or share token as for the other trace read routes (404 without either). 422 when the trace
has none of the events the model is compared with (e.g. rseq_update) or no scheduling events,
or is too large to replay.
"""

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, HTTPException, Query
from fastapi.concurrency import run_in_threadpool

from kscope import conform_store
from kscope.api.deps import get_store
from kscope.api.routes.traces import readable
from kscope.ingest.sources import InputError
from kscope.models import registry
from kscope.store.store import TraceStore

router = APIRouter(prefix="/traces", tags=["traces"])

Store = Annotated[TraceStore, Depends(get_store)]
Token = Annotated[str | None, Header(alias="X-Kscope-Token")]
Share = Annotated[str | None, Header(alias="X-Kscope-Share")]
# The registered models with a conform module, and their variants (models/registry.py).
ALGO = registry.pattern([m.name for m in registry.conform_models()])
VARIANT = registry.pattern(["auto", *registry.conform_variants()])
DEFAULT_ALGO = registry.default_conform().name


@router.get("/{trace_id}/conform",
            responses={404: {"description": "no such trace, or not with this token"},
                       422: {"description": "no rseq_update or no scheduling events, or too many events"}})
async def conform_trace(trace_id: str, store: Store, token: Token = None, share: Share = None,
                        algo: Annotated[str, Query(pattern=ALGO)] = DEFAULT_ALGO,
                        variant: Annotated[str, Query(pattern=VARIANT)] = "auto",
                        resync: Annotated[int, Query(ge=0, le=1)] = 0) -> dict[str, Any]:
    """The kernel's decisions beside the model's (`algo`; the variant of the trace's kernel by
    default): agreement, all disagreements (up to 10,000, in time order) with why, counts by
    cause, and notes on what the trace cannot show. A variant the model does not have: 422."""
    rec = readable(store, trace_id, token, share)  # the owner, or a read-only share token
    try:
        return await run_in_threadpool(conform_store.run_stored, store, rec, variant, bool(resync),
                                      algo=algo)
    except InputError as err:
        raise HTTPException(status_code=422, detail=str(err)) from err
