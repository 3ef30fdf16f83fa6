"""Webhooks: an owner's subscriptions to a ledger's journal (each entry POSTed, signed, in order).

Making, removing and resuming one is a change like any other (journaled, under the owner's guard);
the URL is checked against server-side request forgery when it is made (outbound.check_url) and
again at every delivery. The secret is shown once, in the answer that makes it.

A webhook belongs to the owner who made it: when that member is removed or no longer an owner, the
same transaction disables their webhooks (`disabling`), and the sender checks the creator's role
before each send (delivery.py) — nothing committed after the removal is sent.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from typing import Any

from kakeibo import errors
from kakeibo.core.ids import new_slip_id
from kakeibo.models.webhooks import WebhookIn
from kakeibo.services.common import now_iso, valid_id
from kakeibo.services.webhooks import outbound
from kakeibo.store import Change, Item, Store, WriteContext
from kakeibo.store.transactions import TxOp
from kakeibo.store.webhooks import ACTIVE, DISABLED, FAILING

MAX_LISTED_DELIVERIES = 50
CREATOR_GONE = "its creator is no longer an owner of the ledger"


def _iso_ms(value: Any) -> str | None:
    if value is None:
        return None
    import datetime as dt  # noqa: PLC0415

    return dt.datetime.fromtimestamp(int(value) / 1000, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def webhook_view(item: Item) -> dict[str, Any]:
    return {
        "id": item["id"],
        "url": item["url"],
        "description": item.get("description"),
        "created_at": item["created_at"],
        "created_by": item.get("created_by"),
        "delivered": int(item.get("delivered", 0)),
        "state": str(item.get("state", ACTIVE)),
        "last_error": item.get("last_error"),
        "failing_since": _iso_ms(item.get("failing_since_ms")),
        "next_attempt_at": _iso_ms(item.get("retry_at_ms")),
    }


def webhook_record(item: Item) -> dict[str, Any]:
    """A webhook as the journal keeps it (every member reads the journal: never its secret)."""
    record = {k: item.get(k) for k in ("id", "url", "description", "created_at", "created_by")}
    return {**record, "state": str(item.get("state", ACTIVE))}


def create(store: Store, ctx: WriteContext, body: WebhookIn) -> dict[str, Any]:
    try:
        outbound.check_url(body.url)
    except outbound.RefusedUrl as exc:
        raise errors.WebhookUrlRefused(
            str(exc),
            reason=exc.reason,
            errors=[{"loc": ["body", "url"], "msg": str(exc), "type": "value_error"}],
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
    seq = store.webhooks.create_webhook(ctx, stored, changes=[change], count=len(store.webhooks.webhooks(ctx.ledger)))
    return {**webhook_view({**item, "delivered": seq}), "secret": item["secret"]}


def list_webhooks(store: Store, ledger: str) -> dict[str, Any]:
    return {"items": [webhook_view(item) for item in store.webhooks.webhooks(ledger)]}


def _read(store: Store, ledger: str, webhook_id: str) -> Item:
    found = store.webhooks.webhook(ledger, webhook_id) if valid_id(webhook_id) else None
    if found is None:
        raise errors.NotFound("webhook not found")
    return found


def delete(store: Store, ctx: WriteContext, webhook_id: str) -> None:
    item = _read(store, ctx.ledger, webhook_id)
    change = Change("webhook", webhook_id, "delete", int(item.get("version", 1)) + 1, webhook_record(item), None)
    store.webhooks.delete_webhook(ctx, webhook_id, changes=[change], at=now_iso())


def resume(store: Store, ctx: WriteContext, webhook_id: str) -> dict[str, Any]:
    """A failing webhook active again: it is sent what it missed, from its cursor, in order (the
    journal entry of this change wakes the sender for it). A disabled one stays disabled (409)."""
    item = _read(store, ctx.ledger, webhook_id)
    state = str(item.get("state", ACTIVE))
    if state == DISABLED:
        raise errors.NotResumable("this webhook was disabled: its creator is no longer an owner of the ledger")
    if state != FAILING:
        raise errors.NotResumable("this webhook is active: there is nothing to resume")
    after = {**item, "state": ACTIVE, "version": int(item.get("version", 1)) + 1}
    change = Change("webhook", webhook_id, "update", int(after["version"]), webhook_record(item), webhook_record(after))
    store.webhooks.resume_webhook(ctx, item, changes=[change], at=now_iso())
    return webhook_view({**after, "last_error": item.get("last_error"), "failures": 0, "failing_since_ms": None,
                         "retry_at_ms": None})  # fmt: skip


def disabling(store: Store, ledger: str, creator: str) -> tuple[list[Change], list[TxOp]]:
    """What disables `creator`'s webhooks in the transaction that removes or demotes them: the
    journal's changes and the operations."""
    changes: list[Change] = []
    ops: list[TxOp] = []
    for item in store.webhooks.webhooks(ledger):
        if item.get("created_by") != creator or item.get("state") == DISABLED:
            continue
        after = {**item, "state": DISABLED, "version": int(item.get("version", 1)) + 1}
        changes.append(
            Change(
                "webhook", str(item["id"]), "update", int(after["version"]), webhook_record(item), webhook_record(after)
            )
        )
        ops.append(store.webhooks.disable_webhook_op(ledger, item, CREATOR_GONE))
    return changes, ops


def _attempt(raw: str) -> dict[str, Any]:
    attempt: dict[str, Any] = json.loads(raw)
    return {"at": attempt["at"], "status": attempt.get("status"), "error": attempt.get("error"),
            "ms": int(attempt.get("ms", 0))}  # fmt: skip


def deliveries(store: Store, ledger: str, webhook_id: str) -> dict[str, Any]:
    _read(store, ledger, webhook_id)
    items = store.webhooks.deliveries(ledger, webhook_id, limit=MAX_LISTED_DELIVERIES)
    out = []
    for i in items:
        tries: Sequence[str] = i.get("tries") or [i["last"]]
        out.append(
            {
                "seq": int(i["seq"]),
                "attempts": int(i["attempts"]),
                "delivered": bool(i.get("delivered")),
                "dead_lettered": bool(i.get("dead_lettered")),
                "first_at": i["first_at"],
                "last": _attempt(i["last"]),
                "tries": [_attempt(t) for t in tries],
            }
        )
    return {"items": out}
