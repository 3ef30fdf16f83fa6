"""Alerts (§27): raised once where the change that causes them is written, or by the daily job;
never by a read. Listed (`GET /alerts`: the open ones) and dismissed (`POST /alerts/{id}/dismiss`).

- A budget at 80% and at 100% of what it has this month: raised after the slip that spends it is
  written (one Query of its year's budgets, the month's carries included), and by the daily job.
- A shortfall the 30-day forecast sees before a debit, a card payment within 3 days, points lapsing
  within 30 days: raised by the daily job (services/alerts_ahead.py), for every ledger with
  something due in the next 30 days (found through the due index: a ledger with nothing ahead costs
  nothing).

Each is an item written only if absent, with its journal entry (type `alert`): webhooks are told of
it once, as of any change.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from kakeibo import errors, messages
from kakeibo.core import alerts
from kakeibo.settings import today, utc_now
from kakeibo.store import Item, SharedLedger, Store, WriteContext

LOG = logging.getLogger(__name__)


def _instant() -> str:
    return utc_now().astimezone(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _plain(value: Any) -> Any:
    """A stored fact as JSON shows it (DynamoDB gives numbers back as Decimal)."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


def alert_view(item: Item, lang: messages.Lang = "en") -> dict[str, Any]:
    facts = {k: _plain(v) for k, v in dict(item.get("facts") or {}).items()}
    return {
        "id": item["id"],
        "kind": item["kind"],
        "subject": item["subject"],
        "period": item["period"],
        "facts": facts,
        "message": messages.alert_text(str(item["kind"]), facts, lang),
        "raised_at": item["raised_at"],
        "dismissed_at": item.get("dismissed_at"),
        "dismissed_by": item.get("dismissed_by"),
        "version": int(item.get("version", 1)),
    }


def raise_alerts(store: Store, ctx: WriteContext, found: Iterable[alerts.Alert]) -> list[str]:
    """Write each alert not raised before (one transaction each, with its journal entry): their ids.
    Those raised already are read first (one read of their keys), so an alert told once costs no failing
    transaction each time its cause is written again; two writers raising one at once meet the item's
    condition, and one of them raises it."""
    raised = []
    found = list(found)
    existing = store.alerts.raised(ctx.ledger, [alert.id for alert in found])
    for alert in found:
        if alert.id in existing:
            continue
        item: Item = {
            "type": "alert",
            "id": alert.id,
            "kind": alert.kind,
            "subject": alert.subject,
            "period": alert.period,
            "facts": dict(alert.facts),
            "raised_at": _instant(),
            "version": 1,
        }
        if store.alerts.raise_alert(ctx, item, alert_view(item)):
            raised.append(alert.id)
    return raised


def after_spending(store: Store, ctx: WriteContext, slips: Iterable[Item]) -> list[str]:
    """After slips are written: this month's budgets, when an expense of this month was among them,
    at 80% or 100% (one Query of the year's budgets). The slips are written whatever happens here: an
    alert that cannot be raised now is raised by the daily job."""
    from kakeibo.services.budgets import list_budgets  # noqa: PLC0415 - budgets' module on a write only

    month = today().strftime("%Y-%m")
    spent = any(s.get("kind") == "expense" and s.get("category") and str(s["date"])[:7] == month for s in slips)
    months = [month] if spent else []
    try:
        found = [a for m in months for a in alerts.budget_alerts(list_budgets(store, ctx.ledger, m)["items"])]
        return raise_alerts(store, ctx, found) if found else []
    except (errors.ApiError, BotoCoreError, ClientError) as exc:
        LOG.warning("alerts not raised after a write: %s", type(exc).__name__)
        return []


def job_context(store: Store, ledger: str) -> WriteContext | None:
    """Who the job raises a ledger's alerts as: its owner (a personal ledger), or one of its owners."""
    if not isinstance(ledger, SharedLedger):
        return WriteContext.personal(str(ledger), origin="job")
    owners = [str(m["user"]) for m in store.ledgers.members(str(ledger)) if m.get("role") == "owner"]
    return WriteContext.member(str(ledger), owners[0], ("owner",), origin="job") if owners else None


def list_alerts(store: Store, ledger: str, lang: messages.Lang, *, dismissed: bool = False) -> dict[str, Any]:
    """GET /alerts: the open alerts, newest first (with `dismissed=true`, the dismissed ones too)."""
    found = [
        alert_view(item, lang) for item in store.alerts.alerts(ledger) if dismissed or not item.get("dismissed_at")
    ]
    found.sort(key=lambda a: (a["raised_at"], a["id"]), reverse=True)
    return {"items": found}


def dismiss(store: Store, ctx: WriteContext, alert_id: str, lang: messages.Lang) -> dict[str, Any]:
    """POST /alerts/{id}/dismiss: the alert is no longer open (it is not raised again: its identity stays)."""
    well_formed = alert_id.isascii() and alert_id.isalnum() and len(alert_id) <= 64
    item = store.alerts.alert(ctx.ledger, alert_id) if well_formed else None
    if item is None or item.get("dismissed_at"):
        raise errors.NotFound(f"no open alert '{alert_id[:64]}'")
    at = _instant()
    after = {**item, "dismissed_at": at, "dismissed_by": ctx.actor, "version": int(item.get("version", 1)) + 1}
    store.alerts.dismiss_alert(ctx, alert_id, at=at, before=alert_view(item), after=alert_view(after))
    return alert_view(after, lang)
