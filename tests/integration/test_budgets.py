"""Budgets on DynamoDB Local: a strict limit holds inside the slip transactions, even under
concurrent writes; non-strict ones only report."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from kakeibo.store import Store
from tests import invariants
from tests.concurrently import fan_out
from tests.events import Client

FOOD = "/budgets/2026-11/" + quote("食費")


def expense(amount: int, date: str = "2026-11-10", category: str = "食費", account: str = "cash") -> dict[str, object]:
    return {"date": date, "kind": "expense", "amount": amount, "account": account, "category": category}


@pytest.fixture
def cash(api: Client) -> Client:
    api.account("cash", 1_000_000)
    return api


def budgets(api: Client, month: str = "2026-11") -> dict[str, dict[str, object]]:
    reply = api.get("/budgets", query={"month": month})
    assert reply.status == 200, reply
    return {b["category"]: b for b in reply.json["items"]}


def test_create_then_change_with_if_match(cash: Client) -> None:
    made = cash.put(FOOD, {"limit": 30000, "strict": True})
    assert made.status == 201 and made.etag == '"1"'
    assert made.json == {
        "month": "2026-11",
        "category": "食費",
        "category_label": "食費",
        "limit": 30000,
        "spent": 0,
        "remaining": 30000,
        "strict": True,
        "version": 1,
    }
    # a second create without If-Match: 428; with a stale ETag: 412
    assert cash.put(FOOD, {"limit": 1}).status == 428
    changed = cash.put(FOOD, {"limit": 25000, "strict": True}, headers={"If-Match": '"1"'})
    assert changed.status == 200 and changed.etag == '"2"'
    stale = cash.put(FOOD, {"limit": 1}, headers={"If-Match": '"1"'})
    assert stale.status == 412 and stale.json["current"] == 2
    assert budgets(cash)["食費"]["limit"] == 25000


def test_if_match_on_a_missing_budget_is_412(cash: Client) -> None:
    assert cash.put(FOOD, {"limit": 5}, headers={"If-Match": '"1"'}).status == 412
    assert budgets(cash) == {}


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/budgets/2026-13/x", {"limit": 1}),
        (FOOD, {"limit": -1}),
        (FOOD, {"limit": 1.5}),
        (FOOD, {"limit": 1, "strict": "yes"}),
        (FOOD, {"limit": 1, "extra": True}),
    ],
)
def test_invalid_budgets_are_422(cash: Client, path: str, body: dict[str, object]) -> None:
    reply = cash.put(path, body)
    assert reply.status == 422, reply
    assert budgets(cash) == {}


def test_a_category_with_the_key_separator_is_refused(cash: Client) -> None:
    # the decoded path /budgets/2026-11/a#b matches no route: refused before any code runs
    reply = cash.put("/budgets/2026-11/a%23b", {"limit": 1})
    assert reply.status in (404, 422), reply
    assert budgets(cash) == {}


def test_strict_budget_refuses_what_would_pass_it(cash: Client, store: Store, user: str) -> None:
    # Given a strict 1,000 yen budget with 700 spent
    cash.put(FOOD, {"limit": 1000, "strict": True})
    first = cash.slip(**expense(700))
    assert first.status == 201
    # When an expense of 400 comes: refused in the same transaction, with the numbers
    over = cash.slip(**expense(400))
    assert over.status == 409 and over.json["code"] == "budget_exceeded"
    assert (over.json["limit"], over.json["spent"], over.json["remaining"]) == (1000, 700, 300)
    # And 300 fits exactly
    assert cash.slip(**expense(300)).status == 201
    assert budgets(cash)["食費"]["remaining"] == 0
    # Raising an amount, moving in from another month or another category: all refused
    where = first.header("Location") or ""
    assert cash.patch(where, {"amount": 701}, headers={"If-Match": '"1"'}).status == 409
    other_month = cash.slip(**expense(50, date="2026-10-31"))
    move = cash.patch(other_month.header("Location") or "", {"date": "2026-11-01"}, headers={"If-Match": '"1"'})
    assert move.status == 409 and move.json["code"] == "budget_exceeded"
    other_cat = cash.slip(**expense(50, category="外食"))
    recat = cash.patch(other_cat.header("Location") or "", {"category": "食費"}, headers={"If-Match": '"1"'})
    assert recat.status == 409
    # A refund (income in the category) and a delete free room
    assert cash.slip(date="2026-11-12", kind="income", amount=200, account="cash", category="食費").status == 201
    assert budgets(cash)["食費"]["remaining"] == 200
    assert cash.delete(where, headers={"If-Match": '"1"'}).status == 204
    assert budgets(cash)["食費"]["remaining"] == 900
    assert cash.slip(**expense(900)).status == 201
    assert invariants.check(store, user) == []


def test_non_strict_budgets_only_report(cash: Client) -> None:
    cash.put(FOOD, {"limit": 1000})
    assert cash.slip(**expense(1500)).status == 201
    food = budgets(cash)["食費"]
    assert (food["spent"], food["remaining"], food["strict"]) == (1500, -500, False)


def test_a_limit_below_what_is_spent_is_allowed(cash: Client) -> None:
    cash.slip(**expense(800))
    made = cash.put(FOOD, {"limit": 500, "strict": True})
    assert made.status == 201 and made.json["remaining"] == -300
    assert cash.slip(**expense(1)).status == 409
    # spending nothing more is still possible: a memo edit does not touch the budget
    listed = cash.get("/slips").json["items"][0]
    where = f"/slips/{listed['date']}/{listed['id']}"
    assert cash.patch(where, {"memo": "まとめ買い"}, headers={"If-Match": '"1"'}).status == 200


def test_budgets_are_per_month(cash: Client) -> None:
    cash.put(FOOD, {"limit": 100, "strict": True})
    assert cash.slip(**expense(5000, date="2026-12-01")).status == 201
    assert budgets(cash, "2026-12") == {}


def test_ten_concurrent_expenses_against_a_strict_budget(cash: Client, store: Store, user: str) -> None:
    # Given a strict 1,000 yen food budget
    cash.put(FOOD, {"limit": 1000, "strict": True})
    # When 10 processes each post a 300 yen expense at the same moment
    replies = fan_out(user, [("POST", "/slips", expense(300), None)] * 10)
    # Then exactly 3 succeed and the rest are budget_exceeded (or a conflict to retry)
    statuses = [r.status for r in replies]
    assert statuses.count(201) == 3, statuses
    assert all(r.json["code"] in ("budget_exceeded", "conflict") for r in replies if r.status != 201)
    food = budgets(cash)["食費"]
    assert (food["spent"], food["remaining"]) == (900, 100)
    assert invariants.check(store, user) == []


def test_a_budget_is_removed_with_if_match_and_what_was_spent_stays(cash: Client, store: Store, user: str) -> None:
    # Given a strict food budget that an expense has used up
    made = cash.put(FOOD, {"limit": 1000, "strict": True})
    assert cash.post("/slips", expense(1000)).status == 201
    assert cash.post("/slips", expense(1)).status == 409
    # When it is removed without If-Match, or with a stale one: refused, nothing changes
    assert cash.delete(FOOD).status == 428
    assert cash.delete(FOOD, headers={"If-Match": '"7"'}).status == 412
    assert budgets(cash)["食費"]["limit"] == 1000
    # When it is removed with its ETag
    assert cash.delete(FOOD, headers={"If-Match": made.etag or ""}).status == 204
    # Then it is no longer listed, it limits nothing, and the month still counts what was spent
    assert budgets(cash) == {}
    assert cash.post("/slips", expense(500)).status == 201
    report = cash.get("/reports/monthly", query={"month": "2026-11"}).json
    assert report["expense"] == 1500
    # And removing it again is 404; setting it again starts without If-Match, from what is spent now
    assert cash.delete(FOOD, headers={"If-Match": "*"}).status == 404
    again = cash.put(FOOD, {"limit": 2000, "strict": True})
    assert again.status == 201 and again.json["spent"] == 1500 and again.json["remaining"] == 500
    assert cash.post("/slips", expense(501)).status == 409
    assert invariants.check(store, user) == []
