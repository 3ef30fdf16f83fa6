"""Monthly reports: totals by category and by account."""

from __future__ import annotations

from typing import Any

from kakeibo.services.balances import account_month_totals
from kakeibo.store import (
    Store,
)


def monthly_report(store: Store, who: str, month: str) -> dict[str, Any]:
    by_category = []
    for item in store.month_categories(who, month):
        income, expense = int(item.get("income", 0)), int(item.get("expense", 0))
        if income or expense:
            by_category.append({"category": item["category"], "income": income, "expense": expense})
    by_account = [
        {"account": account, **totals}
        for (account, _month), totals in sorted(account_month_totals(store, who, month, month).items())
    ]
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
