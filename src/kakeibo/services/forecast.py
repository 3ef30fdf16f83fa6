"""GET /forecast: every balance of the ledger projected day by day up to `until` (core/forecast.py
has the rules), with the first day each falls short.

What it reads is the window's, never the history: the accounts, every account's year items and its
month items of today's month (today's balances, as GET /balances?date= reads them), the slips dated
from tomorrow to `until`, the recurrences (at most 200), and per card with billing its rollups of
the cycles paid in the window and their payments' identities; per points account its lots item.
The first four are sent at once.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from kakeibo import errors, messages
from kakeibo.core import forecast, points
from kakeibo.core.forecast import Move, Projection, Start
from kakeibo.core.recurrence import month_day
from kakeibo.services import points as points_service
from kakeibo.services.balances import Rollups, changes, rollup_reads, together
from kakeibo.services.cards import forecast_card
from kakeibo.services.common import query_date
from kakeibo.services.recurrences import Definition
from kakeibo.services.slips import entry_of
from kakeibo.services.units import Unit
from kakeibo.settings import today
from kakeibo.store import Dates, Item, Store

DEFAULT_MONTHS = 3
TITLE = {"en": "Shortfall expected", "ja": "残高不足の見込み"}


def months_ahead(day: dt.date, months: int) -> dt.date:
    """The same day `months` months on (a day the month lacks: its last day)."""
    index = day.year * 12 + day.month - 1 + months
    return month_day(index // 12, index % 12 + 1, day.day)


def window(until: str | None) -> tuple[dt.date, dt.date]:
    """Today and the last day asked for: `until` (today to a year ahead), by default three months on."""
    now = today()
    last = months_ahead(now, 12)
    if until is None:
        return now, months_ahead(now, DEFAULT_MONTHS)
    end = query_date("until", until)
    if end < now:
        message = f"until ({end.isoformat()}) is before today ({now.isoformat()})"
        raise errors.ValidationFailed(message, errors=[{"loc": ["query", "until"], "msg": message}])
    if end > last:
        message = f"until ({end.isoformat()}) is more than a year ahead: at most {last.isoformat()}"
        raise errors.ValidationFailed(message, errors=[{"loc": ["query", "until"], "msg": message}])
    return now, end


def project(store: Store, ledger: str, now: dt.date, until: dt.date, account: str | None = None) -> Projections:
    """Every account's projection (or those `account`'s depends on: it, and the cards it pays)."""
    start, first, last = now.isoformat(), (now + dt.timedelta(days=1)).isoformat(), until.isoformat()
    accounts, years, months, slips, recurrences = together(
        lambda: list(store.accounts.accounts(ledger)),
        *rollup_reads(store, ledger, start, start),
        lambda: list(store.slips.slips_within(ledger, Dates(first, last))) if until > now else [],
        lambda: list(store.recurrences.list_recurrences(ledger)),
    )
    if account is not None and account not in {a["id"] for a in accounts}:
        raise errors.NotFound(f"account '{account}' not found")
    moved = changes(store, ledger, accounts, (start, start), Rollups(years, months))
    starts = {
        str(a["id"]): Start(
            int(a["opening_balance"]) + moved.before[a["id"]] + moved.days[a["id"]].get(start, 0),
            forecast.floor_of(str(a["type"]), None if a.get("low_balance") is None else int(a["low_balance"])),
        )
        for a in accounts
    }
    wanted = {str(a["id"]) for a in accounts} if account is None else {account}
    cards = [
        card
        for a in accounts
        if a.get("billing") and (a["id"] in wanted or dict(a["billing"]).get("pay_from") in wanted)
        if (card := forecast_card(store, ledger, a, until)) is not None
    ]
    lapses = [
        move
        for a in accounts
        if Unit.of(a).points and a["id"] in wanted
        for move in forecast.lapse_moves(str(a["id"]), _plan(store, ledger, str(a["id"]), until), now, until)
    ]
    found = forecast.forecast(
        starts,
        slips=[forecast.slip_move(str(s["id"]), entry_of(s), s.get("memo")) for s in slips],
        recurring=[_recurring(item) for item in recurrences],
        cards=cards,
        lapses=lapses,
        today=now,
        until=until,
    )
    shown = [a for a in accounts if (a["id"] in wanted and not a.get("archived")) or a["id"] == account]
    return Projections({str(a["id"]): a for a in shown}, found)


class Projections:
    """The projections of the accounts shown, with the account items they are of."""

    def __init__(self, accounts: dict[str, Item], found: dict[str, Projection]) -> None:
        self.accounts = accounts
        self.found = {k: v for k, v in found.items() if k in accounts}


def _plan(store: Store, ledger: str, account: str, until: dt.date) -> points.Plan:
    events, _ = points_service.events(store, ledger, account, fresh=True)
    return points.plan(points.events_of(events), today=until.isoformat())


def _recurring(item: Item) -> forecast.Recurring:
    current = Definition.of(item)
    return forecast.Recurring(
        id=current.id,
        rule=current.schedule,
        shift=current.shift,
        posted_through=current.posted_through,
        changes=forecast.template_changes(current.slip),
        memo=current.slip.get("memo") or current.slip.get("category"),
    )


def get_forecast(
    store: Store, ledger: str, until: str | None, account: str | None, lang: messages.Lang = "en"
) -> dict[str, Any]:
    """GET /forecast."""
    now, end = window(until)
    projections = project(store, ledger, now, end, account)
    items = [
        projection_view(projections.accounts[name], found, lang) for name, found in sorted(projections.found.items())
    ]
    return {"from": now.isoformat(), "until": end.isoformat(), "items": items}


def projection_view(account: Item, found: Projection, lang: messages.Lang) -> dict[str, Any]:
    name = str(account["id"])
    shortfall = found.shortfall
    return {
        "account": name,
        "name": account["name"],
        "type": account["type"],
        "unit": Unit.of(account).code,
        "balance": found.balance,
        "low_balance": None if account.get("low_balance") is None else int(account["low_balance"]),
        "final_balance": found.final,
        "days": [
            {
                "date": day.date.isoformat(),
                "change": day.change,
                "balance": day.balance,
                "moves": [move_view(move, name) for move in day.moves],
            }
            for day in found.days
        ],
        "first_shortfall": None
        if shortfall is None
        else {
            "title": TITLE[lang],
            "date": shortfall.date.isoformat(),
            "balance": shortfall.balance,
            "floor": shortfall.floor,
            "cause": None if shortfall.cause is None else move_view(shortfall.cause, name),
        },
    }


def move_view(move: Move, account: str) -> dict[str, Any]:
    """One move as an account sees it: what it adds to that account, and what it is."""
    view: dict[str, Any] = {
        "kind": move.kind,
        "date": move.date.isoformat(),
        "amount": move.change_of(account),
        "memo": move.memo,
    }
    others = [acct for acct, _ in move.changes if acct != account]
    view["counterpart"] = others[0] if others else None
    if move.kind == "slip":
        view["slip_id"] = move.ref
    elif move.kind == "recurrence":
        view["recurrence"] = move.ref
        view["scheduled"] = move.scheduled.isoformat() if move.scheduled else None
    elif move.kind == "card_payment":
        view["card"] = move.ref
        view["closing_date"] = move.scheduled.isoformat() if move.scheduled else None
    else:
        view["lot"] = move.ref
    return view
