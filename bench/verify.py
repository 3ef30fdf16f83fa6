"""Recompute every balance item of a ledger from its slips alone and compare with what is stored.

This is the ledger's invariant (docs/architecture.md), checked after the fact: account balances, day totals and
(optionally) month x category totals and the accounts' month and year totals must equal what the
slips say. Any difference is drift.
"""

from __future__ import annotations

from typing import Any

from kakeibo.core import posting
from kakeibo.core.posting import (
    AccountItem,
    AccountMonthItem,
    AccountYearItem,
    CategoryMonthItem,
    DayItem,
    ItemKey,
    SubcategoryMonthItem,
)
from kakeibo.services.slips import entry_of
from kakeibo.store import Store
from kakeibo.store.keys import derived_key

DAY_FIELDS = ("delta", "count", "income", "expense")
CATEGORY_FIELDS = ("income", "expense", "count")


def stored_items(store: Store, ledger: str) -> list[dict[str, Any]]:
    return list(store.core.query(ledger, consistent=True))


def verify(store: Store, ledger: str, *, categories: bool = True) -> dict[str, Any]:
    """Mismatches between stored and recomputed items; `drift_yen` sums |stored - expected| balances."""
    items = stored_items(store, ledger)
    slips = [i for i in items if i["SK"].startswith("SLIP#")]
    accounts = {i["id"]: i for i in items if i["SK"].startswith("ACCOUNT#")}
    expected = posting.recompute(
        (entry_of(s) for s in slips), {a: int(i["opening_balance"]) for a, i in accounts.items()}
    )
    stored: dict[ItemKey, dict[str, Any]] = {}
    for item in items:
        sk = item["SK"]
        if sk.startswith("ACCOUNT#"):
            stored[AccountItem(item["id"])] = item
        elif sk.startswith("DAY#"):
            stored[DayItem(item["account"], item["date"])] = item
        elif categories and sk.startswith("MONTH#") and "#CAT#" in sk:
            stored[CategoryMonthItem(item["month"], item["category"])] = item
        elif categories and isinstance(
            key := derived_key(sk), AccountMonthItem | AccountYearItem | SubcategoryMonthItem
        ):
            stored[key] = item
    mismatches: list[dict[str, Any]] = []
    drift = day_drift = 0
    for key in sorted(set(expected) | set(stored), key=repr):
        if (
            isinstance(key, CategoryMonthItem | SubcategoryMonthItem | AccountMonthItem | AccountYearItem)
            and not categories
        ):
            continue
        want, have = expected.get(key, {}), stored.get(key, {})
        fields: tuple[str, ...] = DAY_FIELDS
        if isinstance(key, AccountItem):
            fields = ("balance",)
        elif isinstance(key, CategoryMonthItem):
            fields = CATEGORY_FIELDS
        elif isinstance(key, AccountMonthItem | AccountYearItem | SubcategoryMonthItem):
            fields = posting.FIELDS[type(key)]
        for name in fields:
            w, h = int(want.get(name, 0)), int(have.get(name, 0))
            if w != h:
                mismatches.append({"item": repr(key), "field": name, "stored": h, "expected": w})
                if isinstance(key, AccountItem):
                    drift += abs(h - w)
                elif name == "delta":
                    day_drift += abs(h - w)
    return {
        "slips": len(slips),
        "accounts": len(accounts),
        "items_checked": len(set(expected) | set(stored)),
        "mismatched_items": len({m["item"] for m in mismatches}),
        "balance_drift_yen": drift,
        "day_total_drift_yen": day_drift,
        "mismatches": mismatches[:20],
    }
