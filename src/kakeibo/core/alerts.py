"""Alerts (§27): what a household is told once — a budget at 80% and at 100%, a shortfall the
forecast sees before a debit, points lapsing within 30 days, a card payment within 3 days.

An alert is a value: its kind, its subject (a category, an account, a card, a lot) and its period
(the month, the day). Those three are its identity, so it is raised once: raising it again is the
same alert, whatever else changed since. Computing them is pure: from a month's budgets, and from a
forecast of the next 30 days (core/forecast.py).
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from kakeibo.core.forecast import Projection  # the forecast's alerts are given its projections

Kind = Literal["budget_80", "budget_100", "shortfall", "points_lapsing", "card_payment"]
KINDS: tuple[Kind, ...] = ("budget_80", "budget_100", "shortfall", "points_lapsing", "card_payment")
AHEAD = 30  # days the forecast is read for shortfalls and lapsing points
CARD_DAYS = 3  # a card payment is told this many days before (and on) its day
BUDGET_SHARES = ((80, "budget_80"), (100, "budget_100"))


@dataclass(frozen=True, slots=True)
class Alert:
    kind: Kind
    subject: str
    period: str
    facts: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def identity(self) -> str:
        return f"{self.kind}\n{self.subject}\n{self.period}"

    @property
    def id(self) -> str:
        """Its id, the same whenever it is raised (its identity's digest)."""
        return hashlib.sha256(self.identity.encode()).hexdigest()[:24]


def budget_alerts(budgets: Iterable[Mapping[str, Any]]) -> list[Alert]:
    """The month's budgets (as the API shows them: `month`, `category`, `spent`, `available`) at or
    past 80% and 100% of what they have."""
    found = []
    for budget in budgets:
        available, spent = int(budget["available"]), int(budget["spent"])
        if available <= 0:
            continue
        for share, kind in BUDGET_SHARES:
            if spent * 100 >= available * share:
                facts = {"category": budget["category"], "spent": spent, "available": available, "share": share}
                found.append(Alert(kind, str(budget["category"]), str(budget["month"]), facts))  # type: ignore[arg-type]
    return found


def forecast_alerts(projections: Mapping[str, Projection], today: dt.date) -> list[Alert]:
    """From a forecast of the next 30 days: each account's first shortfall caused by a debit, each card
    payment within 3 days, each lot of points that lapses within 30 days."""
    found: list[Alert] = []
    horizon, soon = today + dt.timedelta(days=AHEAD), today + dt.timedelta(days=CARD_DAYS)
    for account, projection in projections.items():
        short = projection.shortfall
        if short is not None and short.cause is not None and short.date <= horizon:
            cause = short.cause
            facts = {"account": account, "date": short.date.isoformat(), "balance": short.balance,
                     "floor": short.floor, "cause": cause.kind, "memo": cause.memo,
                     "amount": -cause.change_of(account)}  # fmt: skip
            found.append(Alert("shortfall", account, short.date.isoformat(), facts))
        for day in projection.days:
            for move in day.moves:
                if move.kind == "card_payment" and move.ref == account and move.date <= soon:
                    facts = {"card": account, "date": move.date.isoformat(), "amount": move.change_of(account)}
                    found.append(Alert("card_payment", account, move.date.isoformat(), facts))
                elif move.kind == "lapse" and move.date <= horizon:
                    facts = {"account": account, "date": move.date.isoformat(), "points": -move.change_of(account)}
                    found.append(Alert("points_lapsing", f"{account}/{move.ref}", move.date.isoformat(), facts))
    unique = {alert.identity: alert for alert in found}
    return list(unique.values())
