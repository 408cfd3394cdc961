"""`kscope share create|status|revoke ID`: a stored trace's read-only share link."""

import argparse
from typing import Any

from kscope.cli.common import EXIT_OK, add_json, emit, open_store


def _share_text(doc: dict[str, Any]) -> str:
    if "url" in doc:
        return (f"{doc['url']}\n(read-only; replaces any earlier share link of this trace; "
                f"revoke with `kscope share revoke {doc['trace_id']}`)")
    if "revoked" in doc:
        return "revoked: its links open nothing from now on" if doc["revoked"] else "it had no share link"
    return f"shared since {doc['created_at']}" if doc["shared"] else "not shared"


def run(args: argparse.Namespace) -> int:
    """The store's operator (like `kscope query`, no owner token needed) makes, shows or
    revokes a trace's read-only share token; the API does the same for the owner."""
    from kscope.api.routes.shares import share_url

    store = open_store()
    try:
        if args.action == "create":
            share, record = store.create_share(args.trace_id)
            doc: dict[str, Any] = {"trace_id": args.trace_id, "share": share, "created_at": record.created_at,
                                   "url": args.base.rstrip("/") + share_url(args.trace_id, share)}
        elif args.action == "revoke":
            doc = {"trace_id": args.trace_id, "revoked": store.revoke_share(args.trace_id)}
        else:
            current = store.share_of(args.trace_id)
            doc = {"trace_id": args.trace_id, "shared": current is not None,
                   "created_at": current.created_at if current else None}
    finally:
        store.close()
    emit(doc, args.json, _share_text)
    return EXIT_OK


def add_parser(sub: Any) -> None:
    share = sub.add_parser("share", help="make, show or revoke a stored trace's read-only share link")
    share.add_argument("action", choices=["create", "status", "revoke"],
                       help="create: a new token (replacing the old one); revoke: end it at once")
    share.add_argument("trace_id", metavar="ID", help="trace id (see `kscope traces`)")
    share.add_argument("--base", default="", metavar="URL",
                       help="the server's address to print a whole link with, e.g. http://127.0.0.1:8000")
    add_json(share)
    share.set_defaults(func=run)
