"""/api/traces/{id}/share: a trace's read-only share token, made and revoked by its owner.

The owner (X-Kscope-Token) POSTs to get a new token (replacing any earlier one) and
DELETEs to revoke it; from the next request on, the revoked token reads nothing. A
share token is sent as the X-Kscope-Share header and opens the trace's read routes only (routes/traces.py `readable`):
never delete, upload, share or any change.
"""

from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Header, HTTPException, Response

from kscope.api.deps import get_store
from kscope.api.schemas import ShareCreated, ShareState
from kscope.store.store import TraceNotFound, TraceStore

router = APIRouter(prefix="/traces", tags=["traces"])

Store = Annotated[TraceStore, Depends(get_store)]
Token = Annotated[str | None, Header(alias="X-Kscope-Token")]
NOT_OWNER = {404: {"description": "no such trace, or not with this owner token (a share token does not count)"}}


def not_found(trace_id: str) -> HTTPException:
    """The 404 every trace route answers without the owner's token or a working share token."""
    return HTTPException(status_code=404, detail=(
        f"no trace {trace_id!r} for this browser: a stored trace is private to the browser that uploaded it, "
        "and a share link works only until its owner revokes it. Ask the owner for a share link "
        "(the Share button on the trace's page, or `kscope share create ID`)."))


def _owner_only(store: TraceStore, trace_id: str, token: str | None) -> None:
    if not token:
        raise not_found(trace_id)
    try:
        store.get(trace_id, token)
    except TraceNotFound as err:
        raise not_found(trace_id) from err


def share_url(trace_id: str, share: str) -> str:
    return f"/traces?{urlencode({'trace': trace_id, 'share': share})}"


@router.post("/{trace_id}/share", status_code=201, response_model=ShareCreated, responses=NOT_OWNER)
def create_share(trace_id: str, store: Store, token: Token = None) -> dict[str, Any]:
    """A new read-only share token for the trace; the previous one (if any) stops working."""
    _owner_only(store, trace_id, token)
    share, record = store.create_share(trace_id, token)
    return {"trace_id": trace_id, "share": share, "created_at": record.created_at, "url": share_url(trace_id, share)}


@router.get("/{trace_id}/share", response_model=ShareState, responses=NOT_OWNER)
def read_share(trace_id: str, store: Store, token: Token = None) -> dict[str, Any]:
    _owner_only(store, trace_id, token)
    record = store.share_of(trace_id, token)
    return {"trace_id": trace_id, "shared": record is not None, "created_at": record.created_at if record else None}


@router.delete("/{trace_id}/share", status_code=204, responses=NOT_OWNER)
def revoke_share(trace_id: str, store: Store, token: Token = None) -> Response:
    """Revokes the trace's share token at once (204 also when there was none)."""
    _owner_only(store, trace_id, token)
    store.revoke_share(trace_id, token)
    return Response(status_code=204)
