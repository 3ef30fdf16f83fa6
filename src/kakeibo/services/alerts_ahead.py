"""The alerts the daily job raises from the months ahead (§27): for each ledger with something due in
the next 30 days, this month's budgets at 80% or 100%, and what its 30-day forecast sees — a shortfall
before a debit, a card payment within 3 days, points lapsing within 30 days. Raised once each
(services/alerts.py); never by a read.

A step of its own after the job's posting (jobs.py, `make run`'s daily run, POST /jobs/run): the
posting's cost stays what it was (one due-index Query per shard, no ledger read without work due).
"""

from __future__ import annotations

import datetime as dt

from kakeibo import errors
from kakeibo.core import alerts as core
from kakeibo.services import alerts, forecast
from kakeibo.services.budgets import list_budgets
from kakeibo.services.common import TimeLeft
from kakeibo.services.scheduled import out_of_time
from kakeibo.store import Store, WriteContext
from kakeibo.store.journal import LedgerGone
from kakeibo.store.recurrences import DELETION


def evaluate(store: Store, ctx: WriteContext, today: dt.date) -> list[str]:
    """The daily job's look at one ledger: this month's budgets, and the next 30 days' forecast."""
    found = core.budget_alerts(list_budgets(store, ctx.ledger, today.strftime("%Y-%m"))["items"])
    projections = forecast.project(store, ctx.ledger, today, today + dt.timedelta(days=core.AHEAD))
    found += core.forecast_alerts(projections.found, today)
    return alerts.raise_alerts(store, ctx, found)


def raise_due(store: Store, day: dt.date, *, time_left: TimeLeft | None = None) -> dict[str, object]:
    """Every ledger with something due by `day` + 30 days (the due index, each ledger once): its alerts.
    How many were raised, and whether every ledger was looked at (time may run out)."""
    ahead = (day + dt.timedelta(days=core.AHEAD)).isoformat()
    seen: set[str] = set()
    raised, complete = 0, True
    if out_of_time(time_left):  # no time to read the index: the next run looks
        return {"alerts": 0, "complete": False}
    for due in store.recurrences.due(ahead):
        ledger = due.ledger
        if str(ledger) in seen or due.kind == DELETION:
            continue
        seen.add(str(ledger))
        if out_of_time(time_left):
            complete = False
            break
        try:
            ctx = alerts.job_context(store, ledger)
            raised += len(evaluate(store, ctx, day)) if ctx is not None else 0
        except (LedgerGone, errors.ApiError):
            continue  # gone, or refused now: the next day's run looks again
    return {"alerts": raised, "complete": complete}


def raise_for(store: Store, ledger: str, day: dt.date) -> list[str]:
    """POST /jobs/run's alerts: what the daily job would raise for this ledger."""
    ctx = alerts.job_context(store, ledger)
    return evaluate(store, ctx, day) if ctx is not None else []
