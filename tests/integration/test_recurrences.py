"""Recurring slips on DynamoDB Local: month ends, business-day shifts, count and until, edits,
failures kept on the recurrence and retried, and each occurrence posted exactly once however the
run is repeated or raced."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from kakeibo.services import recurrences as recurrence_service
from kakeibo.store import Store
from kakeibo.store.recurrences import RecurrenceOps
from tests import invariants
from tests.concurrently import fan_out
from tests.events import Client


def rent(amount: int = 80_000, **rule: Any) -> dict[str, Any]:
    return {
        "slip": {"kind": "expense", "amount": amount, "account": "bank", "category": "家賃", "memo": "家賃"},
        "rule": {"freq": "monthly", "by_month_day": 27, "start": "2026-11-01", **rule},
        "shift": "previous_business_day",
    }


def define(api: Client, body: dict[str, Any]) -> dict[str, Any]:
    reply = api.post("/recurrences", body)
    assert reply.status == 201, reply
    return reply.json  # type: ignore[no-any-return]


def run(api: Client, until: str) -> dict[str, Any]:
    reply = api.post("/recurrences/run", query={"until": until})
    assert reply.status == 200, reply
    return reply.json  # type: ignore[no-any-return]


def slips(api: Client) -> list[tuple[str, int, str]]:
    items = api.get("/slips", query={"limit": 100}).json["items"]
    return sorted((s["date"], s["amount"], s["id"]) for s in items)


def dates(api: Client) -> list[str]:
    return [date for date, _, _ in slips(api)]


def test_create_read_list_and_etag(api: Client) -> None:
    api.account("bank", 0, type="bank")
    # When a rent recurrence is defined
    reply = api.post("/recurrences", rent())
    # Then it answers 201 with its ETag and Location, and the first occurrence due
    assert reply.status == 201, reply
    made = reply.json
    assert reply.etag == '"1"' and reply.header("Location") == f"/recurrences/{made['id']}"
    assert (made["next_scheduled"], made["next_due"], made["posted_through"]) == ("2026-11-27", "2026-11-27", None)
    assert made["rule"] == {"freq": "monthly", "by_month_day": 27, "start": "2026-11-01", "interval": 1}
    one = api.get(f"/recurrences/{made['id']}")
    assert one.status == 200 and one.etag == '"1"' and one.json == made
    assert api.get("/recurrences").json == {"items": [made]}
    assert api.get("/recurrences/NOPE0000000000000000000000").status == 404


@pytest.mark.parametrize(
    ("body", "where"),
    [
        ({**rent(), "rule": {"freq": "monthly", "start": "2026-11-01", "until": "2026-12-01", "count": 2}}, "rule"),
        ({**rent(), "rule": {"freq": "monthly", "start": "2026-11-31"}}, "start"),
        ({**rent(), "rule": {"freq": "daily", "start": "2026-11-01", "by_weekday": ["MO"]}}, "rule"),
        ({**rent(), "rule": {"freq": "monthly", "start": "2026-11-01", "by_month_day": 0}}, "rule"),
        ({**rent(), "shift": "nearest"}, "shift"),
        ({**rent(), "slip": {"kind": "transfer", "amount": 1, "account": "bank"}}, "slip"),
        ({**rent(), "slip": {"kind": "expense", "amount": 1.5, "account": "bank"}}, "amount"),
        ({**rent(), "ledger": "someone-else"}, "ledger"),
        ({**rent(), "slip": {"kind": "expense", "amount": 1, "account": "nowhere"}}, "'nowhere' does not exist"),
        ({**rent(), "slip": {"kind": "transfer", "amount": 1, "account": "bank", "to_account": "closed"}}, "archived"),
    ],
)
def test_bad_definitions_are_refused_and_store_nothing(api: Client, body: dict[str, Any], where: str) -> None:
    api.account("bank", 0, type="bank")
    api.account("closed", 0, type="bank")
    assert api.patch("/accounts/closed", {"archived": True}, headers={"If-Match": '"1"'}).status == 200
    reply = api.post("/recurrences", body)
    assert reply.status == 422, reply
    assert where in reply.raw.decode()
    assert api.get("/recurrences").json == {"items": []}


def test_the_31st_in_30_day_months_and_the_last_day_of_a_leap_february(api: Client) -> None:
    # Given a bank account and two monthly rules: on the 31st, and on the last day
    api.account("bank", 1_000_000, type="bank")
    define(api, rent(10, by_month_day=31, start="2026-04-01") | {"shift": "none"})
    define(api, rent(20, by_month_day="last", start="2028-01-01", count=3) | {"shift": "none"})
    # When everything due up to March 2028 runs
    result = run(api, "2028-03-31")
    # Then the 31st became each short month's last day, and February 2028 its 29th
    posted = slips(api)
    on_31st = [date for date, amount, _ in posted if amount == 10]
    assert on_31st[:4] == ["2026-04-30", "2026-05-31", "2026-06-30", "2026-07-31"]
    assert "2027-02-28" in on_31st and "2028-02-29" in on_31st
    assert [date for date, amount, _ in posted if amount == 20] == ["2028-01-31", "2028-02-29", "2028-03-31"]
    assert result["posted"] == len(posted) == len(on_31st) + 3


def test_a_holiday_shift_into_the_previous_month_posts_on_time(api: Client) -> None:
    # Given a payment on the 1st, moved to the previous business day; 2027-01-01 is 元日 (a Friday)
    api.account("bank", 100_000, type="bank")
    made = define(api, rent(1000, by_month_day=1, start="2027-01-01", count=2))
    # Then the preview shows it posting on 2026-12-31, the last business day before
    preview = api.get(f"/recurrences/{made['id']}/occurrences", query={"from": "2026-12-01", "to": "2027-02-28"})
    assert [(o["scheduled"], o["date"], o["shifted"], o["status"]) for o in preview.json["items"]] == [
        ("2027-01-01", "2026-12-31", True, "pending"),
        ("2027-02-01", "2027-02-01", False, "pending"),
    ]
    # When the run for 2026-12-31 happens (not waiting for January)
    assert run(api, "2026-12-30")["posted"] == 0
    assert run(api, "2026-12-31")["posted"] == 1
    # Then the slip is dated 2026-12-31, and the preview marks it posted
    assert dates(api) == ["2026-12-31"]
    again = api.get(f"/recurrences/{made['id']}/occurrences", query={"from": "2026-12-01", "to": "2027-02-28"})
    assert [o["status"] for o in again.json["items"]] == ["posted", "pending"]
    assert again.json["items"][0]["slip_id"] == slips(api)[0][2]


def test_count_and_until_end_the_rule(api: Client) -> None:
    api.account("bank", 1_000_000, type="bank")
    counted = define(api, rent(1, count=3))
    bounded = define(api, rent(2, until="2027-01-27"))
    run(api, "2027-12-31")
    assert [(d, a) for d, a, _ in slips(api) if a == 1] == [("2026-11-27", 1), ("2026-12-25", 1), ("2027-01-27", 1)]
    assert [(d, a) for d, a, _ in slips(api) if a == 2] == [("2026-11-27", 2), ("2026-12-25", 2), ("2027-01-27", 2)]
    for made in (counted, bounded):
        ended = api.get(f"/recurrences/{made['id']}").json
        assert (ended["next_due"], ended["next_scheduled"], ended["posted_through"]) == (None, None, "2027-01-27")


def test_running_twice_posts_nothing_twice(api: Client, store: Store, user: str) -> None:
    api.account("bank", 1_000_000, type="bank")
    define(api, rent())
    first = run(api, "2027-02-28")
    assert first == {"until": "2027-02-28", "complete": True, "posted": 4, "failed": []}
    assert run(api, "2027-02-28")["posted"] == 0
    assert run(api, "2027-01-31")["posted"] == 0
    assert dates(api) == ["2026-11-27", "2026-12-25", "2027-01-27", "2027-02-26"]
    assert api.balances()["bank"] == 1_000_000 - 4 * 80_000
    assert invariants.check(store, user) == []


def test_eight_concurrent_runs_post_each_occurrence_once(api: Client, store: Store, user: str) -> None:
    # Given rent and a weekly transfer
    api.account("bank", 1_000_000, type="bank")
    api.account("cash", 0)
    define(api, rent())
    weekly = {"kind": "transfer", "amount": 5000, "account": "bank", "to_account": "cash"}
    define(api, {"slip": weekly, "rule": {"freq": "weekly", "by_weekday": ["FR"], "start": "2026-11-01"}})
    # When eight processes run everything due up to 2027-01-31 at the same moment
    replies = fan_out(user, [("POST", "/recurrences/run?until=2027-01-31", None, None)] * 8)
    # (a run that found its time short answers 202, not complete: what is left is run again, as its
    # caller would; how many do depends on the machine, not on the ledger)
    assert all(r.status in (200, 202) for r in replies), replies
    again = []
    while not again or again[-1].status == 202:
        assert len(again) < 20, again
        again.append(api.post("/recurrences/run", query={"until": "2027-01-31"}))
    # Then together they posted each occurrence exactly once
    posted = slips(api)
    assert len({slip_id for _, _, slip_id in posted}) == len(posted) == 3 + 13
    assert sum(r.json["posted"] for r in [*replies, *again]) == len(posted)
    assert len({(d, a) for d, a, _ in posted}) == len(posted)
    assert api.balances() == {"bank": 1_000_000 - 3 * 80_000 - 13 * 5000, "cash": 13 * 5000}
    assert invariants.check(store, user) == []
    assert run(api, "2027-01-31")["posted"] == 0


def test_an_edit_changes_what_comes_not_what_was_posted(api: Client) -> None:
    # Given rent posted for November and December
    api.account("bank", 1_000_000, type="bank")
    made = define(api, rent())
    run(api, "2026-12-31")
    before = slips(api)
    path = f"/recurrences/{made['id']}"
    # When the amount, the day and the shift change (If-Match)
    assert api.patch(path, {"slip": {"amount": 90_000}}).status == 428
    assert api.patch(path, {"slip": {"amount": 90_000}}, headers={"If-Match": '"7"'}).status == 412
    edit = {"slip": {"amount": 90_000, "memo": None}, "rule": {"by_month_day": 25}, "shift": "next_business_day"}
    reply = api.patch(path, edit, headers={"If-Match": '"1"'})
    assert reply.status == 200, reply
    assert reply.etag == '"2"'
    edited = reply.json
    assert edited["slip"] == {"kind": "expense", "amount": 90_000, "account": "bank", "category": "家賃"}
    # Then the next occurrence is the new rule's first after the last posted one (2026-12-27)
    assert (edited["posted_through"], edited["next_scheduled"], edited["next_due"]) == (
        "2026-12-27",
        "2027-01-25",
        "2027-01-25",
    )
    # And running again leaves the posted slips as they were, and posts only what comes
    assert run(api, "2026-12-31")["posted"] == 0
    assert slips(api) == before
    run(api, "2027-02-28")
    assert [(d, a) for d, a, _ in slips(api)] == [
        ("2026-11-27", 80_000),
        ("2026-12-25", 80_000),
        ("2027-01-25", 90_000),
        ("2027-02-25", 90_000),
    ]
    # And an edit that names the same definition changes nothing (same version)
    same = api.patch(path, {"shift": "next_business_day"}, headers={"If-Match": '"2"'})
    assert same.status == 200 and same.etag == '"2"'
    # And a patch that breaks the definition is refused whole
    broken = api.patch(path, {"rule": {"count": 3}, "shift": "x"}, headers={"If-Match": '"2"'})
    assert broken.status == 422
    broken = api.patch(path, {"rule": {"until": "2026-01-01"}}, headers={"If-Match": '"2"'})
    assert broken.status == 422
    broken = api.patch(path, {"slip": {"account": "nowhere"}}, headers={"If-Match": '"2"'})
    assert broken.status == 422 and broken.json["errors"][0]["loc"] == ["body", "slip", "account"]
    assert api.get(path).json["version"] == 2


def test_a_run_that_read_before_an_edit_posts_nothing_of_the_old_definition(
    api: Client, store: Store, user: str
) -> None:
    # Given a run that read the recurrence just before an edit changed its day to the 25th
    api.account("bank", 1_000_000, type="bank")
    made = define(api, rent())
    stale = store.recurrences.read_recurrence(user, made["id"])
    assert stale is not None
    edit = api.patch(f"/recurrences/{made['id']}", {"rule": {"by_month_day": 25}}, headers={"If-Match": '"1"'})
    assert edit.status == 200
    # When that run goes on with what it saw due (November 27th, under the old rule)
    tally = recurrence_service.RunTally(dt.date(2026, 11, 30))
    recurrence_service.run_recurrence(store, user, stale, tally)
    # Then nothing of the old definition is posted: each post checks the version it was read at
    assert tally.posted == 0 and dates(api) == []
    now = api.get(f"/recurrences/{made['id']}").json
    assert (now["version"], now["rule"]["by_month_day"], now["next_due"]) == (2, 25, "2026-11-25")
    # And the next run posts under the new rule, once
    assert run(api, "2026-12-31")["posted"] == 2
    assert dates(api) == ["2026-11-25", "2026-12-25"]


def test_a_run_after_a_delete_posts_nothing(api: Client, store: Store, user: str) -> None:
    # Given a run that read the recurrence just before it was deleted
    api.account("bank", 1_000_000, type="bank")
    made = define(api, rent())
    stale = store.recurrences.read_recurrence(user, made["id"])
    assert stale is not None
    assert api.delete(f"/recurrences/{made['id']}", headers={"If-Match": '"1"'}).status == 204
    # When that run goes on, then it posts nothing
    tally = recurrence_service.RunTally(dt.date(2026, 12, 31))
    recurrence_service.run_recurrence(store, user, stale, tally)
    assert tally.posted == 0 and dates(api) == []


def test_an_edit_racing_a_run_is_computed_from_where_the_run_got(
    api: Client, store: Store, user: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a run that posts November's rent right after an edit has read the recurrence
    api.account("bank", 1_000_000, type="bank")
    made = define(api, rent())
    real_read = RecurrenceOps.read_recurrence
    raced: list[bool] = []

    def read_then_run(family: RecurrenceOps, ledger: str, recurrence_id: str) -> Any:
        item = real_read(family, ledger, recurrence_id)
        if not raced:
            raced.append(True)
            recurrence_service.run_ledger(store, ledger, "2026-11-30")
        return item

    monkeypatch.setattr(RecurrenceOps, "read_recurrence", read_then_run)
    # When the edit is written
    edit = api.patch(f"/recurrences/{made['id']}", {"slip": {"amount": 90_000}}, headers={"If-Match": '"1"'})
    # Then it succeeds without rewinding the run's progress
    assert edit.status == 200, edit
    assert (edit.json["version"], edit.json["posted_through"], edit.json["next_due"]) == (2, "2026-11-27", "2026-12-25")
    monkeypatch.undo()
    assert run(api, "2026-12-31")["posted"] == 1
    assert [(d, a) for d, a, _ in slips(api)] == [("2026-11-27", 80_000), ("2026-12-25", 90_000)]


def test_delete_keeps_the_posted_slips_and_stops_the_rule(api: Client) -> None:
    api.account("bank", 1_000_000, type="bank")
    made = define(api, rent())
    run(api, "2026-11-30")
    path = f"/recurrences/{made['id']}"
    assert api.delete(path).status == 428
    assert api.delete(path, headers={"If-Match": '"2"'}).status == 412
    assert api.delete(path, headers={"If-Match": '"1"'}).status == 204
    assert api.get(path).status == 404
    assert api.delete(path, headers={"If-Match": '"1"'}).status == 404
    assert run(api, "2027-12-31")["posted"] == 0
    assert dates(api) == ["2026-11-27"]


@pytest.mark.parametrize(
    ("given", "code"),
    [
        ("insufficient_funds", "insufficient_funds"),
        ("archived", "validation_error"),
        ("strict_budget", "budget_exceeded"),
    ],
)
def test_a_failed_occurrence_is_kept_and_posted_on_a_later_run(
    api: Client, store: Store, user: str, given: str, code: str
) -> None:
    # Given rent that cannot be written on 2026-11-27
    api.account("bank", 300_000 if given != "insufficient_funds" else 50_000, type="bank")
    made = define(api, rent())
    path = f"/recurrences/{made['id']}"
    if given == "archived":
        assert api.patch("/accounts/bank", {"archived": True}, headers={"If-Match": '"1"'}).status == 200
    if given == "strict_budget":
        assert api.put("/budgets/2026-11/家賃", {"limit": 1000, "strict": True}).status == 201
    # When the run reaches it, and later ones
    result = run(api, "2027-01-31")
    # Then nothing is posted, the failure is reported and kept on the recurrence, which waits there
    assert result["posted"] == 0 and result["complete"] is True
    (failure,) = result["failed"]
    assert (failure["recurrence"], failure["date"], failure["scheduled"], failure["code"]) == (
        made["id"],
        "2026-11-27",
        "2026-11-27",
        code,
    )
    kept = api.get(path).json
    assert kept["last_error"]["code"] == code and kept["last_error"]["date"] == "2026-11-27"
    assert "context" not in kept["last_error"]
    # And it reads in Japanese when asked, worded like the problem the write met
    japanese = api.get(path, headers={"Accept-Language": "ja"}).json["last_error"]
    listed = api.get("/recurrences", headers={"Accept-Language": "ja"}).json["items"][0]["last_error"]
    assert japanese == listed and japanese["code"] == code and japanese["detail"] != kept["last_error"]["detail"]
    assert any("\u3040" <= ch <= "\u9fff" for ch in japanese["detail"]), japanese
    if given == "insufficient_funds":
        assert "¥" in japanese["detail"]  # from the error's members: the balance and the amount
    assert (kept["next_due"], kept["posted_through"]) == ("2026-11-27", None)
    assert dates(api) == []
    statuses = api.get(f"{path}/occurrences", query={"from": "2026-11-01", "to": "2026-12-31"}).json["items"]
    assert [o["status"] for o in statuses] == ["failed", "pending"]
    # When the cause is fixed and the next run comes
    if given == "insufficient_funds":
        assert api.slip(date="2026-11-20", kind="income", amount=200_000, account="bank").status == 201
    if given == "archived":
        assert api.patch("/accounts/bank", {"archived": False}, headers={"If-Match": '"2"'}).status == 200
    if given == "strict_budget":
        assert (
            api.put("/budgets/2026-11/家賃", {"limit": 100_000, "strict": True}, headers={"If-Match": '"1"'}).status
            == 200
        )
    # Then the kept occurrence and those after it are posted, once, and the error is gone
    assert run(api, "2027-01-31")["posted"] == 3
    assert dates(api)[-3:] == ["2026-11-27", "2026-12-25", "2027-01-27"]
    done = api.get(path).json
    assert done["last_error"] is None and done["posted_through"] == "2027-01-27"
    assert invariants.check(store, user) == []


def test_preview_bounds_and_bad_queries(api: Client) -> None:
    api.account("bank", 0, type="bank")
    made = define(api, rent())
    path = f"/recurrences/{made['id']}/occurrences"
    assert api.get(path, query={"from": "2027-01-01", "to": "2026-01-01"}).status == 400
    assert api.get(path, query={"from": "2020-01-01", "to": "2029-01-01"}).status == 400
    assert api.get(path, query={"from": "2026-02-30"}).status == 400
    assert api.post("/recurrences/run", query={"until": "2026-13-01"}).status == 400
    assert api.post("/recurrences/run", {"until": "2026-12-01"}).status == 400  # it takes no body
    default = api.get(path)
    assert default.status == 200 and len(default.json["items"]) in (12, 13)


def test_idempotency_key_answers_the_same_recurrence(api: Client) -> None:
    api.account("bank", 0, type="bank")
    first = api.post("/recurrences", rent(), headers={"Idempotency-Key": "rent-2026"})
    again = api.post("/recurrences", rent(), headers={"Idempotency-Key": "rent-2026"})
    assert first.status == again.status == 201
    assert first.json == again.json
    other = api.post("/recurrences", rent(1), headers={"Idempotency-Key": "rent-2026"})
    assert other.status == 422
    assert len(api.get("/recurrences").json["items"]) == 1


# ---- occurrences whose slip was moved or deleted ---------------------------------------------


def _post_then_lose_progress(api: Client, monkeypatch: pytest.MonkeyPatch, store: Store, user: str) -> tuple[str, str]:
    """A run that posts November's rent and then dies before recording it (as a crash would)."""
    api.account("bank", 1_000_000, type="bank")
    made = define(api, rent())

    def crash(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("the process died here")

    monkeypatch.setattr(RecurrenceOps, "record_progress", crash)
    with pytest.raises(RuntimeError):
        recurrence_service.run_ledger(store, user, "2026-11-30")
    monkeypatch.undo()
    assert api.get(f"/recurrences/{made['id']}").json["posted_through"] is None
    ((date, _, slip_id),) = slips(api)
    return date, slip_id


def test_a_moved_occurrence_is_not_posted_again_after_a_normal_run(api: Client) -> None:
    api.account("bank", 1_000_000, type="bank")
    define(api, rent())
    run(api, "2026-11-30")
    ((date, _, slip_id),) = slips(api)
    assert api.patch(f"/slips/{date}/{slip_id}", {"date": "2026-11-30"}, headers={"If-Match": '"1"'}).status == 200
    assert api.delete(f"/slips/2026-11-30/{slip_id}", headers={"If-Match": '"2"'}).status == 204
    assert run(api, "2026-11-30")["posted"] == 0
    assert slips(api) == []


def test_a_run_that_died_after_posting_does_not_post_again(
    api: Client, monkeypatch: pytest.MonkeyPatch, store: Store, user: str
) -> None:
    _post_then_lose_progress(api, monkeypatch, store, user)
    assert run(api, "2026-11-30")["posted"] == 0
    assert dates(api) == ["2026-11-27"]


def test_an_occurrence_moved_before_its_progress_was_recorded_is_not_posted_again(
    api: Client, monkeypatch: pytest.MonkeyPatch, store: Store, user: str
) -> None:
    # Given November's rent posted by a run that died before recording it, then moved to the 30th
    date, slip_id = _post_then_lose_progress(api, monkeypatch, store, user)
    moved = api.patch(f"/slips/{date}/{slip_id}", {"date": "2026-11-30"}, headers={"If-Match": '"1"'})
    assert moved.status == 200
    # When the next run comes
    result = run(api, "2026-11-30")
    # Then it knows the slip (wherever it is now) and posts nothing
    assert result["posted"] == 0
    assert dates(api) == ["2026-11-30"]


def test_an_occurrence_deleted_before_its_progress_was_recorded_is_not_posted_again(
    api: Client, monkeypatch: pytest.MonkeyPatch, store: Store, user: str
) -> None:
    date, slip_id = _post_then_lose_progress(api, monkeypatch, store, user)
    assert api.delete(f"/slips/{date}/{slip_id}", headers={"If-Match": '"1"'}).status == 204
    result = run(api, "2026-11-30")
    assert result["posted"] == 0
    assert slips(api) == []


def test_an_occurrence_whose_post_was_undone_or_whose_slip_was_deleted_says_deleted(api: Client) -> None:
    # Given rent posted for November, December and January
    api.account("bank", 1_000_000, type="bank")
    made = define(api, rent())
    assert run(api, "2027-01-31")["posted"] == 3
    (nov, _, nov_id), (dec, _, dec_id), (jan, _, jan_id) = slips(api)
    # When December's post is undone and January's slip is deleted
    entries = api.get("/changes", query={"since": "0", "limit": "100"}).json["changes"]
    (posting,) = [e for e in entries if any(c["id"] == dec_id and c["op"] == "create" for c in e["changes"])]
    assert api.post(f"/changes/{posting['seq']}/undo").status == 200
    assert api.delete(f"/slips/{jan}/{jan_id}", headers={"If-Match": '"1"'}).status == 204
    # Then the preview says those two were deleted, not posted, naming the slips they had
    preview = api.get(f"/recurrences/{made['id']}/occurrences", query={"from": "2026-11-01", "to": "2027-02-28"})
    items = preview.json["items"]
    assert [(o["status"], o["slip_id"]) for o in items[:3]] == [
        ("posted", nov_id), ("deleted", dec_id), ("deleted", jan_id)
    ]  # fmt: skip
    assert items[3]["status"] == "pending"
    # And the posted one's slip answers; a deleted one's answers 404, its history says it was deleted
    assert api.get(f"/slips/{nov}/{nov_id}").status == 200
    assert api.get(f"/slips/{dec}/{dec_id}").status == 404
    assert api.get(f"/slips/{dec_id}/history").json["items"][-1]["op"] == "delete"
    # And a further run posts neither again
    assert run(api, "2027-01-31")["posted"] == 0
    assert dates(api) == [nov]


def test_a_ledger_holds_a_bounded_number_of_recurrences(api: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    api.account("bank", 0, type="bank")
    monkeypatch.setattr(recurrence_service, "MAX_RECURRENCES", 2)
    define(api, rent())
    define(api, rent())
    refused = api.post("/recurrences", rent())
    assert refused.status == 409 and refused.json["limit"] == 2
    assert len(api.get("/recurrences").json["items"]) == 2


def test_a_subcategory_is_posted_with_every_occurrence(api: Client) -> None:
    # Given a phone bill kept under 通信費 > 携帯
    api.account("bank", 100_000, type="bank")
    bill = rent(5_000)
    bill["slip"] = {"kind": "expense", "amount": 5_000, "account": "bank", "category": "通信費", "subcategory": "携帯"}
    made = define(api, bill)
    assert made["slip"]["subcategory"] == "携帯"
    # When it runs, Then each slip carries the subcategory
    assert run(api, "2026-12-31")["posted"] == 2
    items = api.get("/slips", query={"limit": 100}).json["items"]
    assert {(s["category"], s["subcategory"]) for s in items} == {("通信費", "携帯")}
    # And a subcategory without a category is refused, as on a slip
    orphan = api.patch(f"/recurrences/{made['id']}", {"slip": {"category": None}}, headers={"If-Match": '"1"'})
    assert orphan.status == 422
