"""Monthly and yearly reports: totals by category and by account, from the month x category
items and the accounts' month items (a year is three Queries, like a month)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kakeibo import errors
from kakeibo.models import MAX_YEAR, MIN_YEAR
from kakeibo.services.balances import account_month_totals, together
from kakeibo.store import (
    Item,
    Store,
)


def monthly_report(store: Store, who: str, month: str) -> dict[str, Any]:
    categories, accounts, months = _reads(store, who, month, month)
    by_category = []
    for item in categories:
        income, expense = int(item.get("income", 0)), int(item.get("expense", 0))
        if income or expense:
            by_category.append({"category": item["category"], "income": income, "expense": expense})
    by_account = [
        {"account": account, **totals}
        for (account, _month), totals in sorted(
            account_month_totals(store, who, (month, month), accounts, months).items()
        )
    ]
    return _report(month, by_category, by_account)


def yearly_report(store: Store, who: str, year: str) -> dict[str, Any]:
    if not MIN_YEAR <= int(year) <= MAX_YEAR:
        raise errors.BadRequest(f"'year' must be between {MIN_YEAR} and {MAX_YEAR}")
    first, last = f"{year}-01", f"{year}-12"
    found, accounts_found, months_found = _reads(store, who, first, last)
    categories: dict[str, list[dict[str, Any]]] = {f"{year}-{m:02d}": [] for m in range(1, 13)}
    for item in found:
        income, expense = int(item.get("income", 0)), int(item.get("expense", 0))
        if income or expense:
            categories[item["month"]].append({"category": item["category"], "income": income, "expense": expense})
    accounts: dict[str, list[dict[str, Any]]] = {month: [] for month in categories}
    totals_found = account_month_totals(store, who, (first, last), accounts_found, months_found)
    for (account, month), totals in sorted(totals_found.items()):
        accounts[month].append({"account": account, **totals})
    months = [_report(month, categories[month], accounts[month]) for month in categories]
    return _report(
        year,
        _summed((c for m in months for c in m["by_category"]), "category"),
        _summed((a for m in months for a in m["by_account"]), "account"),
        key="year",
    ) | {"months": months}


def _report(
    period: str, by_category: list[dict[str, Any]], by_account: list[dict[str, Any]], key: str = "month"
) -> dict[str, Any]:
    income = sum(c["income"] for c in by_category)
    expense = sum(c["expense"] for c in by_category)
    return {
        key: period,
        "income": income,
        "expense": expense,
        "net": income - expense,
        "by_category": by_category,
        "by_account": by_account,
    }


def _summed(rows: Iterable[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    """Rows with the same `name` added up, field by field, in `name` order."""
    out: dict[str, dict[str, Any]] = {}
    for row in rows:
        into = out.setdefault(row[name], {name: row[name]})
        for field, value in row.items():
            if field != name:
                into[field] = into.get(field, 0) + value
    return [out[k] for k in sorted(out)]


def _reads(store: Store, who: str, first: str, last: str) -> list[list[Item]]:
    """The month x category items, the accounts and their month items of months first..last: three
    Queries, sent at once."""
    return together(
        lambda: list(store.months_categories(who, first, last)),
        lambda: list(store.accounts(who)),
        lambda: list(store.account_months(who, first, last)),
    )
