"""Budgets on DynamoDB Local: a strict limit holds inside the slip transactions, even under
concurrent writes; non-strict ones only report."""

from __future__ import annotations

import datetime as dt
from urllib.parse import quote

import pytest

from kakeibo import settings
from kakeibo.store import Store
from kakeibo.store.codec import to_ddb
from tests import invariants
from tests.concurrently import fan_out
from tests.events import Client

FOOD = "/budgets/2026-11/" + quote("食費")


def expense(amount: int, date: str = "2026-11-10", category: str = "食費", account: str = "cash") -> dict[str, object]:
    return {"date": date, "kind": "expense", "amount": amount, "account": account, "category": category}


@pytest.fixture(autouse=True)
def clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Now is 2026-11-22 16:00 UTC: 23 November in Tokyo, 8 days of the month left."""
    monkeypatch.setattr(settings, "utc_now", lambda: dt.datetime(2026, 11, 22, 16, 0, tzinfo=dt.UTC))


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
        "rollover": False,
        "carried": 0,
        "available": 30000,
        "per_day": 3750,
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
        (FOOD, {"limit": 1, "rollover": "true"}),
        (FOOD, {"limit": 1, "rollover": 1}),
        (FOOD, {"limit": -1, "rollover": True}),
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


def food(month: str) -> str:
    return f"/budgets/{month}/" + quote("食費")


def rolled_over_year(api: Client, limit: int = 10_000, *, last_strict: bool = False) -> None:
    """A food budget of `limit` in every month of 2026, each rolling over (December strict if told)."""
    for number in range(1, 13):
        strict = last_strict and number == 12
        made = api.put(food(f"2026-{number:02d}"), {"limit": limit, "rollover": not strict, "strict": strict})
        assert made.status == 201, made


def test_an_edit_of_january_is_seen_in_december_at_once(cash: Client, store: Store, user: str) -> None:
    # Given every month of 2026 rolling 10,000 yen over and 3,000 spent in January
    rolled_over_year(cash)
    january = cash.slip(**expense(3000, date="2026-01-15"))
    december = budgets(cash, "2026-12")["食費"]
    assert (december["carried"], december["available"], december["remaining"]) == (107_000, 117_000, 117_000)
    # When the January slip is raised to 5,000
    where = january.header("Location") or ""
    assert cash.patch(where, {"amount": 5000}, headers={"If-Match": '"1"'}).status == 200
    # Then December's very next read carries 2,000 less, and each month between too
    december = budgets(cash, "2026-12")["食費"]
    assert (december["carried"], december["available"]) == (105_000, 115_000)
    assert [budgets(cash, f"2026-{n:02d}")["食費"]["carried"] for n in (2, 6)] == [5_000, 45_000]
    # And the carry stays within the year: January 2027 starts from 0
    assert cash.put(food("2027-01"), {"limit": 10_000, "rollover": True}).status == 201
    assert budgets(cash, "2027-01")["食費"]["carried"] == 0
    assert invariants.check(store, user) == []


def test_an_overspent_month_carries_a_negative_amount_and_the_pace_follows(cash: Client) -> None:
    # Given October rolling 30,000 over with 36,000 spent, November 30,000 with 2,000 spent
    assert cash.put(food("2026-10"), {"limit": 30_000, "rollover": True}).status == 201
    assert cash.slip(**expense(36_000, date="2026-10-05")).status == 201
    assert cash.slip(**expense(2_000, date="2026-11-05")).status == 201
    made = cash.put(food("2026-11"), {"limit": 30_000})
    # Then November carries -6,000: 24,000 available, 22,000 left over the 8 days from the 23rd
    assert made.status == 201
    assert (made.json["carried"], made.json["available"], made.json["remaining"]) == (-6_000, 24_000, 22_000)
    assert made.json["per_day"] == 2_750
    # And a month that is not the current one has no pace
    assert budgets(cash, "2026-10")["食費"]["per_day"] is None
    # When October stops rolling over (If-Match: its version): November carries nothing
    stop = cash.put(food("2026-10"), {"limit": 30_000, "rollover": False}, headers={"If-Match": '"1"'})
    assert stop.status == 200 and stop.json["rollover"] is False
    assert budgets(cash)["食費"]["carried"] == 0


def test_a_strict_month_is_held_to_its_available_carry_included(cash: Client, store: Store, user: str) -> None:
    # Given January rolls 10,000 over unspent into a strict February of 1,000
    assert cash.put(food("2026-01"), {"limit": 10_000, "rollover": True}).status == 201
    assert cash.put(food("2026-02"), {"limit": 1_000, "strict": True, "rollover": True}).status == 201
    # Then February makes 11,000 available, and its slip transactions hold it to that, not to 1,000
    february = budgets(cash, "2026-02")["食費"]
    assert (february["carried"], february["available"]) == (10_000, 11_000)
    over = cash.slip(**expense(11_001, date="2026-02-10"))
    assert over.status == 409 and over.json["code"] == "budget_exceeded"
    assert (over.json["month"], over.json["available"], over.json["remaining"]) == ("2026-02", 11_000, 11_000)
    assert cash.slip(**expense(10_600, date="2026-02-10")).status == 201
    # And it hands on what is left of it: March receives 400
    assert cash.put(food("2026-03"), {"limit": 0}).json["carried"] == 400
    assert invariants.check(store, user) == []


def test_an_edit_of_an_earlier_month_that_would_leave_a_later_strict_month_over_is_refused(
    cash: Client, store: Store, user: str
) -> None:
    # Given January and February rolling 10,000 each over into a strict March of 1,000, and March
    # has spent 20,500 of the 21,000 it makes available (500 left)
    assert cash.put(food("2026-01"), {"limit": 10_000, "rollover": True}).status == 201
    assert cash.put(food("2026-02"), {"limit": 10_000, "rollover": True}).status == 201
    assert cash.put(food("2026-03"), {"limit": 1_000, "strict": True}).status == 201
    assert cash.slip(**expense(20_500, date="2026-03-10")).status == 201
    january = cash.slip(**expense(300, date="2026-01-10"))
    assert january.status == 201
    head = cash.get("/changes", query={"since": "0"}).json["knowledge"]
    # When a January expense of 300 more comes, in Japanese: refused naming March, nothing written
    over = cash.post("/slips", expense(300, date="2026-01-20"), headers={"Accept-Language": "ja"})
    assert over.status == 409 and over.json["code"] == "budget_exceeded"
    assert (over.json["month"], over.json["remaining"], over.json["needed"]) == ("2026-03", 200, 300)
    assert "2026年3月" in over.json["detail"]
    # And so is raising the January slip past it, lowering January's budget, or February no longer
    # rolling over (March would lose its carry); English names March too
    where = january.header("Location") or ""
    raised = cash.patch(where, {"amount": 501}, headers={"If-Match": '"1"'})
    assert raised.status == 409 and raised.json["month"] == "2026-03" and "2026-03" in raised.json["detail"]
    assert cash.put(food("2026-01"), {"limit": 9_000, "rollover": True}, headers={"If-Match": '"1"'}).status == 409
    assert cash.put(food("2026-02"), {"limit": 10_000}, headers={"If-Match": '"1"'}).status == 409
    assert cash.get("/changes", query={"since": "0"}).json["knowledge"] == head
    assert budgets(cash, "2026-03")["食費"]["remaining"] == 200
    # While what fits goes in: 200 more in January leaves March exactly at its available
    assert cash.patch(where, {"amount": 500}, headers={"If-Match": '"1"'}).status == 200
    march = budgets(cash, "2026-03")["食費"]
    assert (march["available"], march["spent"], march["remaining"]) == (20_500, 20_500, 0)
    # And a January refund makes room again
    assert cash.slip(date="2026-01-25", kind="income", amount=100, account="cash", category="食費").status == 201
    assert cash.slip(**expense(100, date="2026-02-05")).status == 201
    assert budgets(cash, "2026-03")["食費"]["remaining"] == 0
    assert invariants.check(store, user) == []


@pytest.mark.parametrize(
    ("body", "words"),
    [({"limit": 1, "rollover": "yes"}, ("繰越", "rollover")), ({"limit": -1, "rollover": True}, ("上限額", "limit"))],
    ids=["rollover-not-a-boolean", "limit-below-zero"],
)
def test_bad_budgets_are_422_naming_the_field_in_the_callers_words(
    cash: Client, body: dict[str, object], words: tuple[str, str]
) -> None:
    for language, word in zip(("ja", "en"), words, strict=True):
        reply = cash.put(FOOD, body, headers={"Accept-Language": language})
        assert reply.status == 422 and reply.json["code"] == "validation_error"
        assert word in reply.json["detail"], reply.json
    assert budgets(cash) == {}


def test_eight_concurrent_writers_never_pass_a_rolled_over_strict_month(cash: Client, store: Store, user: str) -> None:
    # Given January rolling 10,000 over unspent into a strict February of 1,000: 11,000 for both
    assert cash.put(food("2026-01"), {"limit": 10_000, "rollover": True}).status == 201
    assert cash.put(food("2026-02"), {"limit": 1_000, "strict": True, "rollover": True}).status == 201
    # When 8 processes each post a 2,500 yen expense at once, 4 in January and 4 in February
    january = [("POST", "/slips", expense(2_500, date="2026-01-10"), None)] * 4
    february = [("POST", "/slips", expense(2_500, date="2026-02-10"), None)] * 4
    replies = fan_out(user, [*january, *february])
    # Then at most 4 went in (a fifth would pass February's 11,000), the others were refused as over
    # budget (or as a conflict to retry), and exactly 4 unless a conflict stood in the way
    statuses = [r.status for r in replies]
    refused = [r.json["code"] for r in replies if r.status != 201]
    assert set(statuses) <= {201, 409}, statuses
    assert set(refused) <= {"budget_exceeded", "conflict"}, refused
    assert statuses.count(201) == 4 or (statuses.count(201) < 4 and "conflict" in refused), refused
    # And February is never past what it makes available, its figures those of the slips that went in
    jan, feb = budgets(cash, "2026-01")["食費"], budgets(cash, "2026-02")["食費"]
    assert jan["spent"] + feb["spent"] == 2_500 * statuses.count(201)
    assert feb["available"] == 11_000 - jan["spent"] and feb["remaining"] >= 0
    assert invariants.check(store, user) == []


def test_copy_from_keeps_rollover_and_strictness_and_leaves_set_budgets_alone(cash: Client) -> None:
    # Given October: food 30,000 rolling over, 日用品 strict 5,000; November already has 日用品 at 4,000
    assert cash.put(food("2026-10"), {"limit": 30_000, "rollover": True}).status == 201
    assert cash.put("/budgets/2026-10/" + quote("日用品"), {"limit": 5_000, "strict": True}).status == 201
    assert cash.put("/budgets/2026-11/" + quote("日用品"), {"limit": 4_000}).status == 201
    # When October's budgets are copied into November
    reply = cash.post("/budgets/2026-11/copy-from/2026-10")
    # Then food is created as it was (rollover kept, so it carries October's 30,000), 日用品 is kept
    assert reply.status == 200, reply
    assert (reply.json["copied"], reply.json["kept"]) == (["食費"], ["日用品"])
    listed = budgets(cash)
    assert (listed["食費"]["limit"], listed["食費"]["rollover"], listed["食費"]["strict"]) == (30_000, True, False)
    assert listed["日用品"]["limit"] == 4_000 and listed["日用品"]["strict"] is False
    assert listed["食費"]["carried"] == 30_000
    # And copying again changes nothing; a bad month is 422
    again = cash.post("/budgets/2026-11/copy-from/2026-10")
    assert (again.json["copied"], again.json["kept"]) == ([], ["日用品", "食費"])
    assert cash.post("/budgets/2026-11/copy-from/2026-13").status == 422


def test_copying_a_month_s_budgets_into_itself_is_refused_in_words_and_changes_nothing(cash: Client) -> None:
    # Given November's food budget
    assert cash.put(food("2026-11"), {"limit": 30_000}).status == 201
    before = budgets(cash)
    # When November's budgets are copied into November, in English and in Japanese
    english = cash.post("/budgets/2026-11/copy-from/2026-11")
    japanese = cash.post("/budgets/2026-11/copy-from/2026-11", headers={"Accept-Language": "ja"})
    # Then 422 names the month copied from and says to copy from another one
    assert english.status == 422 and english.json["code"] == "validation_error", english
    assert english.json["errors"][0]["loc"] == ["path", "source"], english.json
    assert "copy the budgets from another month" in english.json["detail"], english.json
    assert japanese.status == 422 and "別の月から予算をコピー" in japanese.json["detail"], japanese.json
    # And the month's budgets are as they were
    assert budgets(cash) == before


def test_copy_from_lists_a_budget_whose_carry_a_later_strict_month_refuses_and_copies_the_rest(cash: Client) -> None:
    # Given January's food (100, rolling over) and 日用品 (2,000); February spends 5,000 on food with
    # no budget yet, and March's food is strict, rolling over, and spent to its limit
    assert cash.put(food("2026-01"), {"limit": 100, "rollover": True}).status == 201
    assert cash.put("/budgets/2026-01/" + quote("日用品"), {"limit": 2_000}).status == 201
    assert cash.slip(**expense(5_000, date="2026-02-10")).status == 201
    assert cash.put(food("2026-03"), {"limit": 1_000, "strict": True, "rollover": True}).status == 201
    assert cash.slip(**expense(1_000, date="2026-03-10")).status == 201
    # When January's budgets are copied into February
    reply = cash.post("/budgets/2026-02/copy-from/2026-01")
    # Then 日用品 is copied, and food is refused naming March: its carry (-4,800) would leave March over
    assert reply.status == 200, reply
    assert reply.json["copied"] == ["日用品"] and reply.json["kept"] == []
    assert [(r["category"], r["month"]) for r in reply.json["refused"]] == [("食費", "2026-03")], reply.json
    # And February has no food budget; March still holds
    assert set(budgets(cash, "2026-02")) == {"日用品"}
    assert budgets(cash, "2026-03")["食費"]["remaining"] == 0


def test_budgets_written_before_they_were_packed_read_the_same(cash: Client, store: Store, user: str) -> None:
    # Given a rolled-over January and a strict February, and 1,000 spent in January
    assert cash.put(food("2026-01"), {"limit": 10_000, "rollover": True}).status == 201
    assert cash.put(food("2026-02"), {"limit": 5_000, "strict": True}).status == 201
    assert cash.slip(**expense(1_000, date="2026-01-10")).status == 201
    read = budgets(cash, "2026-02")
    assert (read["食費"]["carried"], read["食費"]["available"]) == (9_000, 14_000)
    # When January's item loses its packed budget (as an item written before it was kept)
    store.core.client.update_item(
        TableName=store.core.table,
        Key=to_ddb({"PK": f"LEDGER#{user}", "SK": "MONTH#2026-01#CAT#食費"}),
        UpdateExpression="REMOVE #b",
        ExpressionAttributeNames={"#b": "budget"},
    )
    # Then February reads the same figures
    assert budgets(cash, "2026-02") == read


def test_a_budget_kept_before_rollover_existed_is_linked_by_the_first_rollover_budget_of_its_year(
    cash: Client, store: Store, user: str
) -> None:
    # Given a strict February of 1,000 as budgets were kept before carry-over: no rollover, no packed
    # budget, no carry mark
    store.core.client.put_item(
        TableName=store.core.table,
        Item=to_ddb(
            {
                "PK": f"LEDGER#{user}",
                "SK": "MONTH#2026-02#CAT#食費",
                "type": "category_month",
                "month": "2026-02",
                "category": "食費",
                "limit": 1_000,
                "strict": True,
                "spent": 0,
                "remaining": 1_000,
                "budget_version": 1,
            }
        ),
    )
    assert budgets(cash, "2026-02")["食費"]["available"] == 1_000
    # When January is given a budget of 2,000 that rolls over (the only way a carry can begin)
    assert cash.put(food("2026-01"), {"limit": 2_000, "rollover": True}).status == 201
    # Then February carries it, and a January expense that would leave February over is refused
    # naming February: the old item was marked by that budget write
    assert budgets(cash, "2026-02")["食費"]["available"] == 3_000
    assert cash.slip(**expense(800, date="2026-02-10")).status == 201
    over = cash.slip(**expense(2_300, date="2026-01-10"))
    assert over.status == 409 and over.json["month"] == "2026-02"
    assert cash.slip(**expense(2_200, date="2026-01-10")).status == 201
    assert budgets(cash, "2026-02")["食費"]["remaining"] == 0
    assert invariants.check(store, user) == []
