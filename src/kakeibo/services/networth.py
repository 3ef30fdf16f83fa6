"""GET /reports/net-worth: assets, liabilities and net at each month's end (core/networth.py), from
the rollups: the accounts, every account's year items up to the first month's year and its month
items of the span (the three Queries at once, as GET /accounts/{id}/history reads them), and for a
foreign account the rate of its latest slip by the span's end. O(months), never a scan of slips.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from kakeibo import errors
from kakeibo.core import networth
from kakeibo.core.networth import Valuation
from kakeibo.core.recurrence import LAST_DAY, month_day
from kakeibo.models.base import check_month
from kakeibo.services.balances import Rollups, changes, rate_as_of, rollup_reads, together
from kakeibo.services.cards import months_before
from kakeibo.services.units import Unit
from kakeibo.settings import today
from kakeibo.store import Item, Store

MAX_MONTHS = 240
DEFAULT_MONTHS = 12


def _month(name: str, value: str) -> str:
    try:
        return check_month(value)
    except ValueError as exc:
        raise errors.BadRequest(f"'{name}' {exc}") from None


def net_worth(store: Store, ledger: str, first: str | None, last: str | None) -> dict[str, Any]:
    last = _month("to", last) if last is not None else today().strftime("%Y-%m")
    first = _month("from", first) if first is not None else months_before(last, DEFAULT_MONTHS - 1)
    if first > last:
        raise errors.BadRequest("'from' is after 'to'")
    span = networth.months(first, last)
    if len(span) > MAX_MONTHS:
        raise errors.BadRequest(f"at most {MAX_MONTHS} months per request")
    start, end = f"{first}-01", month_day(int(last[:4]), int(last[5:7]), LAST_DAY).isoformat()
    accounts, years, months = together(
        lambda: list(store.accounts.accounts(ledger)), *rollup_reads(store, ledger, start, end)
    )
    moved = changes(store, ledger, accounts, (start, end), Rollups(years, months))
    by_month: dict[tuple[str, str], int] = defaultdict(int)
    for account, days in moved.days.items():
        for day, delta in days.items():
            by_month[(account, day[:7])] += delta
    before = {str(a["id"]): int(a["opening_balance"]) + moved.before[a["id"]] for a in accounts}
    valuations = {str(a["id"]): _valuation(store, ledger, a, end) for a in accounts}
    points = networth.net_worth(span, before, by_month, valuations)
    return {
        "from": first,
        "to": last,
        "items": [{"month": p.month, "assets": p.assets, "liabilities": p.liabilities, "net": p.net} for p in points],
        "unvalued": sorted(account for account, valuation in valuations.items() if valuation is None),
    }


def _valuation(store: Store, ledger: str, account: Item, end: str) -> Valuation | None:
    unit = Unit.of(account)
    if unit.yen:
        return Valuation()
    if unit.points:
        return Valuation(1, unit.point_value)
    rate = rate_as_of(store, ledger, str(account["id"]), end)
    return None if rate is None else Valuation(rate[0], rate[1])
