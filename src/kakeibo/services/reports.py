"""Monthly reports: totals by category (each broken down by subcategory) and by account."""

from __future__ import annotations

from typing import Any

from kakeibo import ledger
from kakeibo.ledger import ItemKey
from kakeibo.store import Store, derived_key


def monthly_report(store: Store, who: str, month: str) -> dict[str, Any]:
    totals: dict[ItemKey, dict[str, int]] = {}
    for item in store.month_totals(who, month):  # categories and subcategories
        key = derived_key(item["SK"])
        if key is not None:
            totals[key] = {"income": int(item.get("income", 0)), "expense": int(item.get("expense", 0))}
    by_category = ledger.by_category(totals)
    by_account = []
    for account in store.account_ids(who):
        income = expense = net = 0
        for day in store.day_totals(who, account, f"{month}-01", f"{month}-31", "income", "expense", "delta"):
            income += int(day.get("income", 0))
            expense += int(day.get("expense", 0))
            net += int(day.get("delta", 0))
        if income or expense or net:
            by_account.append({"account": account, "income": income, "expense": expense, "net": net})
    income = sum(c["income"] for c in by_category)
    expense = sum(c["expense"] for c in by_category)
    return {
        "month": month,
        "income": income,
        "expense": expense,
        "net": income - expense,
        "by_category": by_category,
        "by_account": by_account,
    }
