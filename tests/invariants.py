"""DESIGN §2 invariants, checked from the raw items of one ledger (independent of the API)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from kakeibo.ledger import AccountItem, CategoryMonthItem, DayItem, Entry, ItemKey, SubcategoryMonthItem, recompute
from kakeibo.store import Store


def ledger_items(store: Store, who: str) -> list[dict[str, Any]]:
    return list(store.query(who, consistent=True))


def check(store: Store, who: str) -> list[str]:
    """Every mismatch between the stored derived items and what the slips say they must be."""
    items = ledger_items(store, who)
    slips = [i for i in items if i["SK"].startswith("SLIP#")]
    accounts = {i["id"]: i for i in items if i["SK"].startswith("ACCOUNT#")}
    entries = [
        Entry(
            s["date"],
            s["kind"],
            int(s["amount"]),
            s["account"],
            s.get("to_account"),
            s.get("category"),
            s.get("subcategory"),
        )
        for s in slips
    ]
    expected = recompute(entries, {a: int(i["opening_balance"]) for a, i in accounts.items()})
    actual: dict[ItemKey, dict[str, int]] = {}
    for item in items:
        sk = item["SK"]
        if sk.startswith("ACCOUNT#"):
            actual[AccountItem(item["id"])] = {"balance": int(item["balance"])}
        elif sk.startswith("DAY#"):
            fields = ("delta", "count", "income", "expense")
            actual[DayItem(item["account"], item["date"])] = {f: int(item.get(f, 0)) for f in fields}
        elif sk.startswith("MONTH#") and "#SUB#" in sk:
            fields = ("income", "expense", "count")
            key = SubcategoryMonthItem(item["month"], item["category"], item["subcategory"])
            actual[key] = {f: int(item.get(f, 0)) for f in fields}
        elif sk.startswith("MONTH#"):
            fields = ("income", "expense", "count")
            actual[CategoryMonthItem(item["month"], item["category"])] = {f: int(item.get(f, 0)) for f in fields}
    problems = []
    for key in sorted(set(expected) | set(actual), key=repr):
        want = {k: v for k, v in expected.get(key, {}).items() if v}
        got = {k: v for k, v in actual.get(key, {}).items() if v}
        if want != got:
            problems.append(f"{key}: expected {want}, stored {got}")
    # balance as of D == opening + sum of day totals <= D, for every day that has a total
    days: dict[str, dict[str, int]] = defaultdict(dict)
    for key, value in actual.items():
        if isinstance(key, DayItem):
            days[key.account][key.date] = value.get("delta", 0)
    for account, by_day in days.items():
        running = int(accounts[account]["opening_balance"])
        for _date, delta in sorted(by_day.items()):
            running += delta
        if running != int(accounts[account]["balance"]):
            problems.append(f"{account}: day totals end at {running}, balance is {accounts[account]['balance']}")
    return problems
