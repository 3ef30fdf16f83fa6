"""Webhooks: an owner's subscriptions to a ledger's journal (each entry POSTed, signed, in order).

Making and removing one is a change like any other (journaled, under the owner's guard); the URL
is checked against server-side request forgery when it is made (webhooks.check_url) and again at
every delivery. The secret is shown once, in the answer that makes it.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

from kakeibo import errors, webhooks
from kakeibo.core.ids import new_slip_id
from kakeibo.models import WebhookIn
from kakeibo.services.common import now_iso, valid_id
from kakeibo.store import Change, Item, Store, WriteContext

MAX_LISTED_DELIVERIES = 50


def webhook_view(item: Item) -> dict[str, Any]:
    return {
        "id": item["id"],
        "url": item["url"],
        "description": item.get("description"),
        "created_at": item["created_at"],
        "created_by": item.get("created_by"),
        "delivered": int(item.get("delivered", 0)),
    }


def webhook_record(item: Item) -> dict[str, Any]:
    """A webhook as the journal keeps it (every member reads the journal: never its secret)."""
    return {k: item.get(k) for k in ("id", "url", "description", "created_at", "created_by")}


def create(store: Store, ctx: WriteContext, body: WebhookIn) -> dict[str, Any]:
    try:
        webhooks.check_url(body.url)
    except webhooks.RefusedUrl as exc:
        raise errors.ValidationFailed(
            str(exc), errors=[{"loc": ["body", "url"], "msg": str(exc), "type": "value_error"}]
        ) from None
    item: Item = {
        "type": "webhook",
        "id": new_slip_id(),
        "url": body.url,
        "description": body.description,
        "secret": "whsec_" + secrets.token_urlsafe(32),
        "created_at": now_iso(),
        "created_by": ctx.actor,
    }
    stored = {k: v for k, v in item.items() if v is not None}
    change = Change("webhook", item["id"], "create", 1, None, webhook_record(item))
    seq = store.create_webhook(ctx, stored, changes=[change], count=len(store.webhooks(ctx.ledger)))
    return {**webhook_view({**item, "delivered": seq}), "secret": item["secret"]}


def list_webhooks(store: Store, who: str) -> dict[str, Any]:
    return {"items": [webhook_view(item) for item in store.webhooks(who)]}


def _read(store: Store, who: str, webhook_id: str) -> Item:
    found = store.webhook(who, webhook_id) if valid_id(webhook_id) else None
    if found is None:
        raise errors.NotFound("webhook not found")
    return found


def delete(store: Store, ctx: WriteContext, webhook_id: str) -> None:
    item = _read(store, ctx.ledger, webhook_id)
    change = Change("webhook", webhook_id, "delete", 2, webhook_record(item), None)
    store.delete_webhook(ctx, webhook_id, changes=[change], at=now_iso())


def deliveries(store: Store, who: str, webhook_id: str) -> dict[str, Any]:
    _read(store, who, webhook_id)
    items = store.deliveries(who, webhook_id, limit=MAX_LISTED_DELIVERIES)
    return {
        "items": [
            {
                "seq": int(i["seq"]),
                "attempts": int(i["attempts"]),
                "delivered": bool(i.get("delivered")),
                "first_at": i["first_at"],
                "last": json.loads(i["last"]),
            }
            for i in items
        ]
    }
