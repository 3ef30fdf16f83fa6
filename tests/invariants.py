"""The ledger's invariants (docs/architecture.md), checked from the raw items of one ledger (independent of the API)."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from typing import Any

from kakeibo.core.posting import (
    DAY_FIELDS,
    DAY_OF_MONTH_FIELDS,
    MONTH_OF_YEAR_FIELDS,
    ROLLUP_FIELDS,
    AccountItem,
    AccountMonthItem,
    AccountYearItem,
    CategoryMonthItem,
    DayItem,
    Entry,
    ItemKey,
    Line,
    NetsItem,
    Settlement,
    SubcategoryMonthItem,
    recompute,
)
from kakeibo.services.balances import balances
from kakeibo.store import CLEARED_INDEXED, INDEX_FORMAT, INDEXED, Store
from kakeibo.store.keys import SLIP_SEQ_SK, is_index_sk, is_legacy_index_sk, item_entries, slip_index_sks


def ledger_items(store: Store, who: str) -> list[dict[str, Any]]:
    return list(store.core.query(who, consistent=True))


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
            tuple(
                Line(int(line["amount"]), line["category"], line.get("subcategory")) for line in s.get("lines") or ()
            ),
            s.get("paid_by"),
            tuple(sorted((u, int(a)) for u, a in (s.get("shares") or {}).items() if int(a))),
            jpy_amount=None if s.get("jpy_amount") is None else int(s["jpy_amount"]),
            to_amount=None if s.get("to_amount") is None else int(s["to_amount"]),
            cleared=s.get("cleared") in ("cleared", "reconciled"),
            to_cleared=s.get("to_cleared") in ("cleared", "reconciled"),
        )
        for s in slips
    ]
    settled = [Settlement(i["payer"], i["payee"], int(i["amount"])) for i in items if i["SK"].startswith("SETTLE#")]
    expected = recompute(entries, {a: int(i["opening_balance"]) for a, i in accounts.items()}, settled)
    actual: dict[ItemKey, dict[str, int]] = {}
    for item in items:
        sk = item["SK"]
        if sk.startswith("ACCOUNT#"):
            actual[AccountItem(item["id"])] = {"balance": int(item["balance"]), "cleared": int(item.get("cleared", 0))}
        elif sk.startswith("DAY#"):
            fields = DAY_FIELDS
            actual[DayItem(item["account"], item["date"])] = {f: int(item.get(f, 0)) for f in fields}
        elif sk.startswith("MONTH#") and "#SUB#" in sk:
            fields = ("income", "expense", "count")
            key = SubcategoryMonthItem(item["month"], item["category"], item["subcategory"])
            actual[key] = {f: int(item.get(f, 0)) for f in fields}
        elif sk.startswith("MONTH#"):
            fields = ("income", "expense", "count")
            actual[CategoryMonthItem(item["month"], item["category"])] = {f: int(item.get(f, 0)) for f in fields}
        elif sk.startswith("AMONTH#"):
            fields = (*ROLLUP_FIELDS, *DAY_OF_MONTH_FIELDS)
            actual[AccountMonthItem(item["account"], item["month"])] = {f: int(item.get(f, 0)) for f in fields}
        elif sk.startswith("AYEAR#"):
            fields = (*ROLLUP_FIELDS, *MONTH_OF_YEAR_FIELDS)
            actual[AccountYearItem(item["account"], item["year"])] = {f: int(item.get(f, 0)) for f in fields}
        elif sk == "OWE":  # who paid, who owes: p#/s#/t# per member
            actual[NetsItem()] = {f: int(v) for f, v in item.items() if f[:2] in ("p#", "s#", "t#")}
    problems = _index_problems(items, slips)
    nets = actual.get(NetsItem(), {})
    total = sum(v if f[:2] != "s#" else -v for f, v in nets.items())  # paid - share + settled, every member
    if total != 0:
        problems.append(f"the nets sum to {total}, not 0")
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
    # the API's balance as of dates with a day total (read from month and year items) agrees; the
    # day before each sampled date too, so a month's or a year's first day is crossed
    dated = sorted({date for by_day in days.values() for date in by_day})
    sampled = set(dated[:: max(1, len(dated) // 12)] + dated[-1:])
    for date in sorted(sampled | {_day_before(d) for d in sampled}):
        running_by = {
            account: int(accounts[account]["opening_balance"]) + sum(d for day, d in by_day.items() if day <= date)
            for account, by_day in days.items()
        }
        read = {row["account"]: row["balance"] for row in balances(store, who, date)["items"]}
        for account, want in running_by.items():
            if read.get(account) != want:
                problems.append(f"{account}: balance as of {date} reads {read.get(account)}, day totals say {want}")
    return problems


def _index_problems(items: list[dict[str, Any]], slips: list[dict[str, Any]]) -> list[str]:
    """The slip index is exactly what the slips say (each slip's entries, nothing else, no item of
    the former layout), and the ledger's counter says so (filtered lists read the index)."""
    want = {sk for slip in slips for sk in slip_index_sks(slip)}
    have = {entry for i in items if is_index_sk(i["SK"]) for entry in item_entries(i)}
    problems = [f"index entry missing: {sk}" for sk in sorted(want - have)]
    problems += [f"index entry of no slip: {sk}" for sk in sorted(have - want)]
    problems += [f"index item of the former layout: {i['SK']}" for i in items if is_legacy_index_sk(i["SK"])]
    counter = next((i for i in items if i["SK"] == SLIP_SEQ_SK), None)
    if counter is not None and counter.get(INDEXED) != INDEX_FORMAT:
        problems.append("the slip counter does not say the ledger is indexed")
    if counter is not None and not counter.get(CLEARED_INDEXED):
        problems.append("the slip counter does not say the cleared sides are indexed")
    return problems


def _day_before(date: str) -> str:
    return (dt.date.fromisoformat(date) - dt.timedelta(days=1)).isoformat()
