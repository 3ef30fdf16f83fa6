"""Monthly reports: totals by category and by account."""

from __future__ import annotations

from typing import Any

from kakeibo.store import (
    Store,
)


def monthly_report(store: Store, who: str, month: str) -> dict[str, Any]:
    by_category = []
    for item in store.month_categories(who, month):
        income, expense = int(item.get("income", 0)), int(item.get("expense", 0))
        if income or expense:
            by_category.append({"category": item["category"], "income": income, "expense": expense})
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
