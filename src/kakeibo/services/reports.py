"""Monthly and yearly reports: totals by category (each broken down by subcategory) and by
account, from the month x category and subcategory items and the accounts' month items. A month
and a year are both three Queries, sent at once."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from kakeibo import errors
from kakeibo.core import posting
from kakeibo.core.posting import CategoryMonthItem, ItemKey, SubcategoryMonthItem
from kakeibo.models.base import MAX_YEAR, MIN_YEAR
from kakeibo.services.balances import account_month_totals, together
from kakeibo.store import Item, Store, balance_key


def monthly_report(store: Store, ledger: str, month: str, basis: str = "date") -> dict[str, Any]:
    """A month's totals. On the `payment` basis a credit card's income and expense count in the month
    its cycle is paid, not the month of each slip (cards with billing; others as dated)."""
    found, accounts, months = _reads(store, ledger, month, month)
    by_month = _category_totals(found)
    totals = account_month_totals(store, ledger, (month, month), accounts, months)
    categories = by_month.get(month, {})
    if basis == "payment":
        from kakeibo.services import payment_basis  # noqa: PLC0415 - the cycle arithmetic loads when asked for

        shift = payment_basis.payment_basis(store, ledger, month, accounts)
        categories = _shifted(categories, shift.categories)
        for account, moved in shift.accounts.items():
            row = totals.setdefault((account, month), {"income": 0, "expense": 0, "net": 0})
            row["income"] += moved["income"]
            row["expense"] += moved["expense"]
        totals = {key: row for key, row in totals.items() if any(row.values())}
    by_account = [{"account": account, **row} for (account, _month), row in sorted(totals.items())]
    return _report(month, posting.by_category(categories), by_account)


def _shifted(
    totals: dict[ItemKey, dict[str, int]], moved: dict[ItemKey, dict[str, int]]
) -> dict[ItemKey, dict[str, int]]:
    out = {key: dict(value) for key, value in totals.items()}
    for key, change in moved.items():
        into = out.setdefault(key, {"income": 0, "expense": 0})
        for name, value in change.items():
            into[name] = into.get(name, 0) + value
    return out


def yearly_report(store: Store, ledger: str, year: str) -> dict[str, Any]:
    if not MIN_YEAR <= int(year) <= MAX_YEAR:
        raise errors.BadRequest(f"'year' must be between {MIN_YEAR} and {MAX_YEAR}")
    first, last = f"{year}-01", f"{year}-12"
    found, accounts_found, months_found = _reads(store, ledger, first, last)
    by_month = _category_totals(found)
    accounts: dict[str, list[dict[str, Any]]] = {f"{year}-{m:02d}": [] for m in range(1, 13)}
    for (account, month), row in sorted(
        account_month_totals(store, ledger, (first, last), accounts_found, months_found).items()
    ):
        accounts[month].append({"account": account, **row})
    months = [_report(month, posting.by_category(by_month.get(month, {})), accounts[month]) for month in accounts]
    # the year's categories: every month's items added up under the year (a key is only a label there)
    whole: dict[ItemKey, dict[str, int]] = defaultdict(lambda: {"income": 0, "expense": 0})
    for totals in by_month.values():
        for key, value in totals.items():
            as_year: ItemKey = (
                SubcategoryMonthItem(year, key.category, key.subcategory)
                if isinstance(key, SubcategoryMonthItem)
                else CategoryMonthItem(year, key.category)  # type: ignore[union-attr]
            )
            for name in ("income", "expense"):
                whole[as_year][name] += value[name]
    by_account = _summed((a for m in months for a in m["by_account"]), "account")
    return _report(year, posting.by_category(dict(whole)), by_account, key="year") | {"months": months}


def _reads(store: Store, ledger: str, first: str, last: str) -> list[list[Item]]:
    """The month x category and subcategory items, the accounts, and the accounts' month items of
    months first..last (only the totals a report shows): three Queries, sent at once."""
    return together(
        lambda: list(store.balances.months_category_totals(ledger, first, last)),
        lambda: list(store.accounts.accounts(ledger)),
        lambda: list(store.balances.account_months_totals(ledger, first, last)),
    )


def _category_totals(items: Iterable[Item]) -> dict[str, dict[ItemKey, dict[str, int]]]:
    """month -> month x category and subcategory key -> {income, expense}."""
    out: dict[str, dict[ItemKey, dict[str, int]]] = defaultdict(dict)
    for item in items:
        key = balance_key(item)
        if isinstance(key, CategoryMonthItem | SubcategoryMonthItem):
            out[key.month][key] = {"income": int(item.get("income", 0)), "expense": int(item.get("expense", 0))}
    return out


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
