"""Account month and year totals on DynamoDB Local: balances as of any date and account history
read them in a fixed number of calls and agree with a day-by-day reference; a ledger written
before they existed reads correctly anyway, and a rebuild brings it up to date."""

from __future__ import annotations

import datetime as dt
import random
from collections import Counter, defaultdict
from collections.abc import Iterator
from typing import Any

import pytest

from kakeibo.store import ROLLUPS_MARK, Store
from kakeibo.store.codec import to_ddb
from kakeibo.store.keys import pk
from tests.events import Client
from tests.invariants import check

ACCOUNTS = {"cash": 50_000, "bank": 300_000, "suica": 2_000}


@pytest.fixture
def calls(store: Store) -> Iterator[Counter[str]]:
    seen: Counter[str] = Counter()

    def count(event_name: str, **kwargs: Any) -> None:
        seen[event_name.rsplit(".", 1)[-1]] += 1

    store.core.client.meta.events.register("before-call.dynamodb.*", count)
    yield seen
    store.core.client.meta.events.unregister("before-call.dynamodb.*", count)


def random_ledger(api: Client, seed: int, slips: int = 60) -> dict[str, dict[str, int]]:
    """Accounts and `slips` random slips over three years (some edited, moved or deleted).
    Returns the reference: account -> date -> net change, from what the API answered."""
    rng = random.Random(seed)
    for account, opening in ACCOUNTS.items():
        api.account(account, opening, allow_negative=True)
    live: dict[str, tuple[str, dict[str, Any]]] = {}  # location -> (etag, body)
    first = dt.date(2024, 1, 1)
    for _ in range(slips):
        date = (first + dt.timedelta(days=rng.randrange(3 * 366))).isoformat()
        kind = rng.choice(["expense", "expense", "income", "transfer"])
        account = rng.choice(list(ACCOUNTS))
        body: dict[str, Any] = {"date": date, "kind": kind, "amount": rng.randrange(1, 20_000), "account": account}
        if kind == "transfer":
            body["to_account"] = rng.choice([a for a in ACCOUNTS if a != account])
        made = api.slip(**body)
        assert made.status == 201, made.json
        live[made.header("Location") or ""] = (made.etag or "", body)
        if live and rng.random() < 0.3:  # change an earlier one: move it, or delete it
            where = rng.choice(sorted(live))
            etag, old = live.pop(where)
            if rng.random() < 0.5:
                moved_to = (first + dt.timedelta(days=rng.randrange(3 * 366))).isoformat()
                reply = api.patch(where, {"date": moved_to}, headers={"If-Match": etag})
                assert reply.status == 200, reply.json
                live[reply.header("Location") or ""] = (reply.etag or "", {**old, "date": moved_to})
            else:
                assert api.delete(where, headers={"If-Match": etag}).status == 204
    reference: dict[str, dict[str, int]] = {a: defaultdict(int) for a in ACCOUNTS}
    for _etag, body in live.values():
        signed = -body["amount"] if body["kind"] != "income" else body["amount"]
        reference[body["account"]][body["date"]] += signed
        if body["kind"] == "transfer":
            reference[body["to_account"]][body["date"]] += body["amount"]
    return reference


def as_of(reference: dict[str, dict[str, int]], date: str) -> dict[str, int]:
    return {a: ACCOUNTS[a] + sum(d for day, d in reference[a].items() if day <= date) for a in ACCOUNTS}


def interesting_dates(reference: dict[str, dict[str, int]]) -> list[str]:
    """Every edge a rollup could get wrong: year and month boundaries, and each slip's date and the day before."""
    dates = {"2023-12-31", "2024-01-01", "2024-02-29", "2025-12-31", "2026-01-01", "2027-06-30"}
    for by_day in reference.values():
        for day in by_day:
            dates |= {day, (dt.date.fromisoformat(day) - dt.timedelta(days=1)).isoformat()}
    return sorted(dates)


def test_as_of_and_history_agree_with_a_day_by_day_reference(api: Client, store: Store, user: str) -> None:
    # Given three years of random slips, some moved across months and years, some deleted
    reference = random_ledger(api, seed=17)
    # Then the balance as of every interesting date is the opening plus every change up to it
    for date in interesting_dates(reference):
        assert api.balances(date) == as_of(reference, date), date
    # And each account's history over a span crossing a year is the same running sum
    for account in ACCOUNTS:
        reply = api.get(f"/accounts/{account}/history?from=2024-11-20&to=2025-02-10")
        assert reply.status == 200
        running = as_of(reference, "2024-11-19")[account]
        for row in reply.json["items"]:
            running += reference[account].get(row["date"], 0)
            assert (row["delta"], row["balance"]) == (reference[account].get(row["date"], 0), running), row
    assert check(store, user) == []


def test_as_of_reads_three_queries_whatever_the_ledger_holds(api: Client, calls: Counter[str]) -> None:
    # Given a ledger with slips over three years
    random_ledger(api, seed=5, slips=20)
    # When balances as of a date are read
    calls.clear()
    assert api.get("/balances?date=2026-08-15").status == 200
    # Then: the accounts, every account's years before, every account's months of that year (and the
    # person's tombstone, which a personal ledger's read meets first)
    assert calls == Counter({"GetItem": 1, "Query": 3})
    # And an account's history: the account, then the same two queries
    calls.clear()
    assert api.get("/accounts/cash/history?from=2025-01-10&to=2026-03-01").status == 200
    assert calls == Counter({"GetItem": 2, "Query": 2})


def strip_rollups(store: Store, user: str) -> None:
    """Make the ledger look as one written before month and year items existed."""
    for item in list(store.core.query(user)):
        sk = item["SK"]
        key = to_ddb({"PK": pk(user), "SK": sk})
        if sk.startswith(("AMONTH#", "AYEAR#")):
            store.core.client.delete_item(TableName=store.core.table, Key=key)
        elif sk.startswith("ACCOUNT#"):
            store.core.client.update_item(
                TableName=store.core.table,
                Key=key,
                UpdateExpression="REMOVE #r",
                ExpressionAttributeNames={"#r": ROLLUPS_MARK},
            )


def test_a_ledger_from_before_rollups_reads_right_and_rebuild_backfills_it(
    api: Client, store: Store, user: str, calls: Counter[str]
) -> None:
    # Given a ledger written before month and year totals existed
    reference = random_ledger(api, seed=3, slips=30)
    strip_rollups(store, user)
    # And a slip written since (it updates month and year items that lack everything older)
    assert api.slip(date="2026-12-01", kind="expense", amount=999, account="cash").status == 201
    reference["cash"]["2026-12-01"] -= 999
    # Then balances as of any date are still right (read from the day totals)
    for date in ("2024-06-30", "2025-12-31", "2026-12-01"):
        assert api.balances(date) == as_of(reference, date)
    # And verify names the month and year items that are missing
    verified = api.post("/ledger/verify").json
    assert verified["ok"] is False
    assert {m["item"].split("#")[0] for m in verified["mismatches"]} == {"AMONTH", "AYEAR"}

    # When the ledger is rebuilt
    rebuilt = api.post("/ledger/rebuild")
    # Then it verifies, every account is marked complete, and as-of reads the rollups again
    assert rebuilt.status == 200 and rebuilt.json["complete"] is True
    assert api.post("/ledger/verify").json["ok"] is True
    assert all(store.core.get(user, f"ACCOUNT#{a}", consistent=True)[ROLLUPS_MARK] for a in ACCOUNTS)  # type: ignore[index]
    for date in interesting_dates(reference):
        assert api.balances(date) == as_of(reference, date), date
    calls.clear()
    api.balances("2026-03-03")
    assert calls == Counter({"GetItem": 1, "Query": 3})  # GetItem: the person's tombstone
    assert check(store, user) == []


def test_yearly_report_is_its_twelve_monthly_reports_in_three_queries(api: Client, calls: Counter[str]) -> None:
    # Given slips over three years, with categories
    random_ledger(api, seed=11, slips=20)
    for date, category, amount in (
        ("2025-01-05", "食費", 1200),
        ("2025-03-31", "食費", 800),
        ("2025-12-31", "光熱費", 5000),
    ):
        assert api.slip(date=date, kind="expense", amount=amount, account="cash", category=category).status == 201
    assert api.slip(date="2025-07-25", kind="income", amount=250_000, account="bank", category="給与").status == 201
    lunch = {"kind": "expense", "amount": 900, "account": "cash", "category": "食費", "subcategory": "外食"}
    assert api.slip(date="2025-03-02", **lunch).status == 201
    # When the year's report is read
    calls.clear()
    reply = api.get("/reports/yearly", query={"year": "2025"})
    # Then it took the accounts, the months' categories and the accounts' months: three queries (and
    # the person's tombstone)
    assert reply.status == 200
    assert calls == Counter({"GetItem": 1, "Query": 3})
    report = reply.json
    # And each of its twelve months is that month's report
    assert [m["month"] for m in report["months"]] == [f"2025-{m:02d}" for m in range(1, 13)]
    for month in report["months"]:
        assert month == api.get("/reports/monthly", query={"month": month["month"]}).json
    # And the year adds its months up
    assert report["year"] == "2025"
    assert report["income"] == sum(m["income"] for m in report["months"]) >= 250_000
    assert report["net"] == report["income"] - report["expense"]
    food = next(c for c in report["by_category"] if c["category"] == "食費")
    assert food["expense"] == 2900
    assert food["subcategories"] == [
        {"subcategory": "外食", "income": 0, "expense": 900},
        {"subcategory": None, "income": 0, "expense": 2000},
    ]
    for row in report["by_account"]:
        monthly = [a for m in report["months"] for a in m["by_account"] if a["account"] == row["account"]]
        assert row["net"] == sum(a["net"] for a in monthly)
