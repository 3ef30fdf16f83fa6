"""Balances now (one consistent snapshot) and as of a date, an account's daily history, and the
per-account month totals the reports show.

As of a date D an account's balance is its opening balance plus its year totals of the years
before D's, the month fields (m01..) of its item for D's year before D's month, and the day fields
(d01..) of its item for D's month up to D: the accounts (one Query), every account's year items up
to D's year (one Query) and every account's items for D's month (one Query), sent at once, whatever
the age of the ledger. An
account written before month and year items existed (no ROLLUPS_MARK until a rebuild) is read
from its day totals instead: slower, never wrong.
"""

from __future__ import annotations

import contextvars
import datetime as dt
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cache
from typing import Any, TypeVar

from kakeibo import errors
from kakeibo.core.posting import DAY_OF_MONTH_FIELDS, MONTH_OF_YEAR_FIELDS
from kakeibo.services.accounts import account_item
from kakeibo.services.common import query_date
from kakeibo.services.units import Unit, slip_rate, yen_value
from kakeibo.store import ROLLUPS_MARK, Item, Store

MAX_HISTORY_DAYS = 1830
FIRST_DAY = "0000-00-00"
T = TypeVar("T")


@cache
def _pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=3, thread_name_prefix="reads")


def together(*reads: Callable[[], T]) -> list[T]:
    """Run independent reads at the same time (the client is thread-safe): a request waits for one
    round trip, not one per read. Each read must return its items whole, not a lazy iterator."""
    futures = [_pool().submit(contextvars.copy_context().run, read) for read in reads]  # the request's deadline too
    return [future.result() for future in futures]


@dataclass(frozen=True)
class Rollups:
    """Every account's year items up to `start`'s year and month items from `start`'s month to
    `end`'s month: what a balance on any day start..end needs besides the accounts."""

    years: list[Item]
    months: list[Item]


def rollup_reads(
    store: Store, ledger: str, start: str, end: str, account: str | None = None
) -> list[Callable[[], list[Item]]]:
    """The two Queries that read `Rollups` for start..end (of every account, or of one), to run with
    others (`together`)."""
    return [
        lambda: list(store.balances.account_years(ledger, "0000", start[:4], account)),
        lambda: list(store.balances.account_months(ledger, start[:7], end[:7], account)),
    ]


@dataclass
class Changes:
    """Per account: the net change of everything dated before `start`, and each day's net change
    from `start` to `end`."""

    before: dict[str, int] = field(default_factory=dict)
    days: dict[str, dict[str, int]] = field(default_factory=dict)


def changes(store: Store, ledger: str, accounts: Iterable[Item], span: tuple[str, str], rollups: Rollups) -> Changes:
    """What moved each account's balance before `start` and on each day start..end (YYYY-MM-DD)."""
    start, end = span
    accounts = list(accounts)
    out = Changes({a["id"]: 0 for a in accounts}, {a["id"]: {} for a in accounts})
    trusted = {a["id"] for a in accounts if a.get(ROLLUPS_MARK)}
    if trusted:
        _from_rollups(rollups, trusted, start, end, out)
    for account in sorted(set(out.before) - trusted):
        for day in store.balances.day_totals(ledger, account, FIRST_DAY, end, "delta"):
            _count(out, account, day["date"], int(day.get("delta", 0)), start)
    return out


def _from_rollups(rollups: Rollups, trusted: set[str], start: str, end: str, out: Changes) -> None:
    for item in rollups.years:
        account = item["account"]
        if account not in trusted:
            continue
        if item["year"] < start[:4]:
            out.before[account] += int(item.get("delta", 0))
        else:  # start's year: its months before start's
            out.before[account] += sum(int(item.get(name, 0)) for name in MONTH_OF_YEAR_FIELDS[: int(start[5:7]) - 1])
    for item in rollups.months:
        account, month = item["account"], item["month"]
        if account not in trusted:
            continue
        for name in DAY_OF_MONTH_FIELDS:
            if value := int(item.get(name, 0)):
                _count(out, account, f"{month}-{name[1:]}", value, start)


def _count(out: Changes, account: str, date: str, delta: int, start: str) -> None:
    if date < start:
        out.before[account] += delta
    else:
        out.days[account][date] = out.days[account].get(date, 0) + delta


def balances(store: Store, ledger: str, as_of: str | None = None) -> dict[str, Any]:
    if as_of is None:
        found = store.accounts.accounts_now(ledger)
        items = [{"account": a["id"], "balance": int(a.get("balance", 0))} for a in found]
        return {"date": None, "items": _valued(store, ledger, found, items, None)}
    # the accounts and the rollups at once: one round trip of three Queries
    accounts, years, months = together(
        lambda: list(store.accounts.accounts(ledger)), *rollup_reads(store, ledger, as_of, as_of)
    )
    moved = changes(store, ledger, accounts, (as_of, as_of), Rollups(years, months))
    out = []
    for acct in accounts:
        account = acct["id"]
        total = int(acct["opening_balance"]) + moved.before[account] + moved.days[account].get(as_of, 0)
        out.append({"account": account, "balance": total})
    return {"date": as_of, "items": _valued(store, ledger, accounts, out, as_of)}


RATE_SLIPS = 50  # a foreign account's latest slips looked at for a rate


def _valued(
    store: Store, ledger: str, accounts: list[Item], items: list[dict[str, Any]], as_of: str | None
) -> list[dict[str, Any]]:
    """Each balance with its unit and its value in yen (services/units): a foreign account's at the
    rate of its latest slip (up to `as_of`) that gives one, read for those accounts only, at once."""
    by_id = {a["id"]: a for a in accounts}
    yen = {a["id"] for a in accounts if Unit.of(a).yen}
    foreign = [a["id"] for a in accounts if not (Unit.of(a).yen or Unit.of(a).points)]

    def latest(account: str) -> Callable[[], tuple[int, int, str] | None]:
        return lambda: _latest_rate(store, ledger, account, yen, as_of)

    rates = dict(zip(foreign, together(*(latest(a) for a in foreign)), strict=True)) if foreign else {}
    return [
        {**item, "unit": Unit.of(by_id[item["account"]]).code}
        | yen_value(by_id[item["account"]], item["balance"], rates.get(item["account"]))
        for item in items
    ]


def _latest_rate(
    store: Store, ledger: str, account: str, yen: set[str], as_of: str | None
) -> tuple[int, int, str] | None:
    """The rate of a foreign account's latest slip (up to `as_of`) that gives one (services/units;
    `yen`: the ledger's yen accounts): (amount in the unit, yen, date), None when none does."""
    from kakeibo.services.slips import list_slip_items  # noqa: PLC0415 (slips read balances' neighbours)

    found, _ = list_slip_items(store, ledger, date_to=as_of, account=account, limit=RATE_SLIPS)
    for slip in found:
        rate = slip_rate(slip, account, yen)
        if rate is not None:
            return rate
    return None


def rate_as_of(store: Store, ledger: str, account: str, as_of: str) -> tuple[int, int, str] | None:
    """The rate GET /balances?date=`as_of` values a foreign account at: that of its latest slip up
    to the date that gives one (amount in the unit, yen, date); None when none does."""
    yen = {str(a["id"]) for a in store.accounts.accounts(ledger) if Unit.of(a).yen}
    return _latest_rate(store, ledger, account, yen, as_of)


def history(store: Store, ledger: str, account: str, date_from: str, date_to: str) -> dict[str, Any]:
    start, end = query_date("from", date_from), query_date("to", date_to)
    if start > end:
        raise errors.BadRequest("'from' is after 'to'")
    if (end - start).days >= MAX_HISTORY_DAYS:
        raise errors.BadRequest(f"at most {MAX_HISTORY_DAYS} days per request")
    found, years, months = together(
        lambda: [account_item(store, ledger, account)], *rollup_reads(store, ledger, date_from, date_to, account)
    )
    acct = found[0]
    opening = int(acct["opening_balance"])
    moved = changes(store, ledger, [acct], (date_from, date_to), Rollups(years, months))
    balance = opening + moved.before[account]
    deltas = moved.days[account]
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
        "opening_balance": opening,
        "items": series,
    }


def account_month_totals(
    store: Store, ledger: str, span: tuple[str, str], accounts: list[Item], months: list[Item]
) -> dict[tuple[str, str], dict[str, int]]:
    """(account, month) -> {income, expense, net} for months first..last (YYYY-MM) with any, from
    the accounts and their month items of the span (read by the caller, with its other reads)."""
    first, last = span
    trusted = {a["id"] for a in accounts if a.get(ROLLUPS_MARK)}
    out: dict[tuple[str, str], dict[str, int]] = {}

    def add(account: str, month: str, item: Item) -> None:
        into = out.setdefault((account, month), {"income": 0, "expense": 0, "net": 0})
        into["income"] += int(item.get("income", 0))
        into["expense"] += int(item.get("expense", 0))
        into["net"] += int(item.get("delta", 0))

    for item in months:
        if item["account"] in trusted:
            add(item["account"], item["month"], item)
    for account in sorted({a["id"] for a in accounts} - trusted):
        for day in store.balances.day_totals(
            ledger, account, f"{first}-01", f"{last}-31", "income", "expense", "delta"
        ):
            add(account, day["date"][:7], day)
    return {key: value for key, value in out.items() if any(value.values())}
