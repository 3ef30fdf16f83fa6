"""Alerts (§27): their items. The only module that knows how alerts are stored.

`ALERT#{id}` holds an alert raised in the ledger: its kind, subject, period and facts, when it was
raised and, once dismissed, when and by whom. Its id is its identity's digest (core/alerts.py), and it
is written only if absent: an alert is raised once, whoever raises it again. Raising and dismissing
are journal entries (type `alert`), so webhooks are told of them as of any change.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from kakeibo import errors
from kakeibo.store.codec import Item
from kakeibo.store.journal import Change
from kakeibo.store.keys import alert_sk
from kakeibo.store.transactions import StoreCore
from kakeibo.store.write import WriteContext, WriteOps

PREFIX = alert_sk("")


class AlertOps:
    """A ledger's alerts."""

    def __init__(self, core: StoreCore, write: WriteOps) -> None:
        self.core = core
        self.write = write

    def alerts(self, ledger: str) -> Iterator[Item]:
        return self.core.query(ledger, begins_with=PREFIX)

    def raised(self, ledger: str, alert_ids: Sequence[str]) -> set[str]:
        """Which of these alerts were raised already (one consistent read of their keys, not of every
        alert the ledger ever had)."""
        found = self.core.batch_get(ledger, [alert_sk(a) for a in dict.fromkeys(alert_ids)]) if alert_ids else {}
        return {str(item["id"]) for item in found.values()}

    def alert(self, ledger: str, alert_id: str) -> Item | None:
        return self.core.get(ledger, alert_sk(alert_id), consistent=True)

    def raise_alert(self, ctx: WriteContext, item: Item, view: dict[str, Any]) -> bool:
        """Write a new alert with its journal entry: False when it was raised already (nothing written)."""
        alert_id = str(item["id"])
        op = self.core.put_op(
            ctx.ledger,
            {"SK": alert_sk(alert_id), **{k: v for k, v in item.items() if v is not None}},
            "attribute_not_exists(SK)",
            lambda old: errors.AlreadyExists(f"alert '{alert_id}' was raised already", id=alert_id),
        )
        try:
            self.write.commit(ctx, [op], [Change.between("alert", alert_id, None, view)], at=str(item["raised_at"]))
        except errors.AlreadyExists:
            return False
        return True

    def dismiss_alert(
        self, ctx: WriteContext, alert_id: str, *, at: str, before: dict[str, Any], after: dict[str, Any]
    ) -> None:
        """Mark an open alert dismissed, journaled; NotFound when it is not there or dismissed already."""
        op = self.core.update_op(
            ctx.ledger,
            alert_sk(alert_id),
            "SET #at = :at, #by = :by ADD #ver :one",
            lambda old: errors.NotFound(f"no open alert '{alert_id}'"),
            "attribute_exists(SK) AND attribute_not_exists(#at)",
            names={"#at": "dismissed_at", "#by": "dismissed_by", "#ver": "version"},
            values={":at": at, ":by": ctx.actor, ":one": 1},
        )
        self.write.commit(ctx, [op], [Change.between("alert", alert_id, before, after)], at=at)
