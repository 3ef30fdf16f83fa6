"""Points about to lapse (GET /accounts/{id}/expiring) and the daily job's lapses (ポイント失効): per
lot the points left at its expiry, posted once through the one posting path (services/scheduled.py),
as recurring slips and card payments are. The lots themselves are kept by services/points.py."""

from __future__ import annotations

import datetime as dt
from typing import Any

from kakeibo.core import points
from kakeibo.core.ids import derived_id
from kakeibo.core.units import POINTS
from kakeibo.models.slips import SlipIn
from kakeibo.services import points as points_service
from kakeibo.services.accounts import account_item
from kakeibo.services.common import TimeLeft
from kakeibo.services.scheduled import RunTally, out_of_time, post, poster_for
from kakeibo.services.units import Unit
from kakeibo.settings import today
from kakeibo.store import Store

LAPSE_CATEGORY = "ポイント失効"


class LapseIn(SlipIn):
    """A lapse the daily job posts: an expense of the points left in the lot `lapse_of` (its earning)."""

    lapse_of: str


# ---- reading: what lapses when ------------------------------------------------------------------


def expiring(store: Store, ledger: str, account: str, within: int) -> dict[str, Any]:
    """GET /accounts/{id}/expiring: the lots with points left that lapse within `within` days
    (those lapsed and not posted yet first), each with its points and their yen."""
    days = within
    item = account_item(store, ledger, account)
    unit = Unit.of(item)
    now = today()
    until = (now + dt.timedelta(days=days)).isoformat()
    items: list[dict[str, Any]] = []
    if unit.points:
        events, _ = points_service.events(store, ledger, account, fresh=True)
        plan = points.plan(points.events_of(events), today=now.isoformat())
        for lot in plan.expiring(now.isoformat(), until):
            left = lot.pending + lot.open
            items.append(
                {
                    "lot": lot.id,
                    "earned_on": lot.earned_on,
                    "expires_on": lot.expires_on,
                    "lapses_on": lot.lapses_on,
                    "earned": lot.amount,
                    "points": left,
                    "jpy_value": left * unit.point_value,
                    "lapsed": lot.pending > 0,
                }
            )
    return {
        "account": account,
        "within": days,
        "as_of": now.isoformat(),
        "points": sum(i["points"] for i in items),
        "items": items,
    }


# ---- the daily job: lapses ----------------------------------------------------------------------


def lapse_slip_id(account: str, lot: str, lapsed: int) -> str:
    """The lapse of what a lot held beyond the `lapsed` points already posted: one id, whoever posts it."""
    return derived_id(f"lapse\n{account}\n{lot}\n{lapsed}")


def run_lapses(store: Store, ledger: str, account: str, tally: RunTally, *, time_left: TimeLeft | None) -> None:
    """Post what lapsed in the account's lots by `tally.until`: per lot one ポイント失効 of the points
    left at its expiry, dated the day after, under an id derived from the lot (and what it already
    lapsed), through the one posting path. Whoever runs it, however often, each is posted once."""
    item = store.points.lots(ledger, account)
    if item is None:
        return
    points_service.remember(ledger, account, item)
    until = tally.until.isoformat()
    plan = points.plan(points.events_of({str(k): str(v) for k, v in (item.get("events") or {}).items()}), today=until)
    poster = poster_for(ledger, item.get("by"), "point_lapse")
    for lot in plan.due(until):
        if out_of_time(time_left):
            tally.complete = False
            return
        lapses_on = dt.date.fromisoformat(lot.lapses_on or until)
        if poster is None:
            continue
        body = {
            "date": lapses_on.isoformat(),
            "kind": "expense",
            "amount": lot.pending,
            "account": account,
            "category": LAPSE_CATEGORY,
            "memo": f"{LAPSE_CATEGORY} ({lot.expires_on})",
            "lapse_of": lot.id,
        }
        posted = post(
            store,
            poster,
            body,
            slip_id=lapse_slip_id(account, lot.id, lot.lapsed),
            when=(lapses_on, dt.date.fromisoformat(lot.expires_on or until)),
            revoked="the member these points lapse as is no longer an editor",
            model=LapseIn,
        )
        if posted is True:
            tally.posted += 1
        elif isinstance(posted, dict):
            tally.failed.append(
                {"points": account, **{k: posted[k] for k in ("date", "scheduled", "code", "detail", "context")}}
            )


def run_ledger_lapses(store: Store, ledger: str, tally: RunTally, *, time_left: TimeLeft | None) -> None:
    """Every points account of the ledger: what lapsed by `tally.until`."""
    for account in store.accounts.accounts(ledger):
        if account.get("unit") == POINTS:
            run_lapses(store, ledger, str(account["id"]), tally, time_left=time_left)
