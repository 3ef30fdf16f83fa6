"""Balances now (one consistent snapshot) and as of a date, and an account's daily history."""

from __future__ import annotations

import datetime as dt
from typing import Any

from kakeibo import errors
from kakeibo.services.accounts import get_account
from kakeibo.services.common import query_date
from kakeibo.store import (
    Store,
)

MAX_HISTORY_DAYS = 1830


def balances(store: Store, who: str, as_of: str | None = None) -> dict[str, Any]:
    if as_of is None:
        items = [{"account": a["id"], "balance": int(a.get("balance", 0))} for a in store.accounts_now(who)]
        return {"date": None, "items": items}
    out = []
    # One Query gives every account's opening balance; then one Query of day totals per account.
    for acct in store.accounts(who):
        total = int(acct["opening_balance"])
        total += sum(
            int(day.get("delta", 0)) for day in store.day_totals(who, acct["id"], "0000-00-00", as_of, "delta")
        )
        out.append({"account": acct["id"], "balance": total})
    return {"date": as_of, "items": out}


def history(store: Store, who: str, account: str, date_from: str, date_to: str) -> dict[str, Any]:
    start, end = query_date("from", date_from), query_date("to", date_to)
    if start > end:
        raise errors.BadRequest("'from' is after 'to'")
    if (end - start).days >= MAX_HISTORY_DAYS:
        raise errors.BadRequest(f"at most {MAX_HISTORY_DAYS} days per request")
    acct = get_account(store, who, account)
    balance = acct["opening_balance"]
    deltas: dict[str, int] = {}
    for day in store.day_totals(who, account, "0000-00-00", date_to, "delta"):
        if day["date"] < date_from:
            balance += int(day.get("delta", 0))
        else:
            deltas[day["date"]] = int(day.get("delta", 0))
    series = []
    day_ = start
    while day_ <= end:
        iso = day_.isoformat()
        delta = deltas.get(iso, 0)
        balance += delta
        series.append({"date": iso, "delta": delta, "balance": balance})
        day_ += dt.timedelta(days=1)
    return {
        "account": account,
        "from": date_from,
        "to": date_to,
        "opening_balance": acct["opening_balance"],
        "items": series,
    }
