"""/goals: savings goals (目標貯金) with what is saved, what remains, what each month needs and whether
the forecast reaches it, changed and deleted under their versions. Today is fixed: 10 November 2026."""

from __future__ import annotations

import datetime as dt

import pytest

from kakeibo import settings
from tests.events import Client

TOKYO = dt.timezone(dt.timedelta(hours=9))


@pytest.fixture(autouse=True)
def _today(monkeypatch: pytest.MonkeyPatch) -> None:
    instant = dt.datetime(2026, 11, 10, 10, 0, tzinfo=TOKYO)
    monkeypatch.setattr(settings, "utc_now", lambda: instant.astimezone(dt.UTC))


def _savings(api: Client) -> None:
    """100,000 saved, and 30,000 more on the 25th of every month."""
    api.account("savings", 100_000, type="bank")
    monthly = {
        "slip": {"kind": "income", "amount": 30_000, "account": "savings", "category": "積立"},
        "rule": {"freq": "monthly", "by_month_day": 25, "start": "2026-11-01"},
    }
    assert api.post("/recurrences", monthly).status == 201


def test_a_goal_says_what_it_needs_each_month_and_whether_the_forecast_reaches_it(api: Client) -> None:
    # Given savings that grow by 30,000 a month
    _savings(api)
    # When goals are set: reachable by March, out of reach by March, without a day, and past a year
    reachable = api.post("/goals", {"name": "旅行", "target": 250_000, "by": "2027-03-31", "account": "savings"})
    beyond = api.post("/goals", {"name": "車", "target": 400_000, "by": "2027-03-31", "account": "savings"})
    open_ended = api.post("/goals", {"name": "生活防衛資金", "target": 50_000, "account": "savings"})
    later = api.post("/goals", {"name": "頭金", "target": 600_000, "by": "2028-05-31", "account": "savings"})
    for made in (reachable, beyond, open_ended, later):
        assert made.status == 201 and made.etag == '"1"', made
        assert made.header("Location") == f"/goals/{made.json['id']}"
    # Then each answers with its progress: five months (November to March) left for March's
    trip = reachable.json
    assert (trip["saved"], trip["remaining"], trip["months_left"], trip["monthly_needed"]) == (
        100_000,
        150_000,
        5,
        30_000,
    )
    assert (trip["projected"], trip["on_track"]) == (250_000, True)  # the 25th of November to March: 5 x 30,000
    car = beyond.json
    assert (car["remaining"], car["monthly_needed"], car["projected"], car["on_track"]) == (300_000, 60_000, 250_000,
                                                                                           False)  # fmt: skip
    fund = open_ended.json
    assert (fund["remaining"], fund["months_left"], fund["monthly_needed"], fund["on_track"]) == (0, None, None, None)
    # And past a year ahead, the year's pace carried on reaches it (460,000 in a year: about 660,000 by then)
    assert later.json["months_left"] == 19 and later.json["on_track"] is True and later.json["projected"] > 600_000
    # And the list holds them in the order they were set
    listed = api.get("/goals").json["items"]
    assert [g["name"] for g in listed] == ["旅行", "車", "生活防衛資金", "頭金"]
    assert listed[0] == trip


def test_a_goal_is_changed_and_deleted_under_its_version(api: Client) -> None:
    # Given a goal
    _savings(api)
    made = api.post("/goals", {"name": "旅行", "target": 250_000, "by": "2027-03-31", "account": "savings"})
    where = made.header("Location") or ""
    # When it is changed without If-Match, with a stale one, then with its own
    assert api.patch(where, {"target": 1}).status == 428
    assert api.patch(where, {"target": 1}, headers={"If-Match": '"9"'}).status == 412
    changed = api.patch(where, {"target": 160_000, "by": None}, headers={"If-Match": made.etag or ""})
    # Then only the last one counts, and no day means no monthly amount
    assert changed.status == 200 and changed.etag == '"2"', changed
    assert (changed.json["target"], changed.json["by"], changed.json["remaining"], changed.json["on_track"]) == (
        160_000, None, 60_000, None)  # fmt: skip
    assert api.get(where).json == changed.json
    # And a goal on an account the ledger has not, or a bad target, is refused
    assert api.post("/goals", {"name": "x", "target": 1, "account": "nowhere"}).status == 404
    assert api.patch(where, {"account": "nowhere"}, headers={"If-Match": '"2"'}).status == 404
    bad = api.post("/goals", {"name": "x", "target": 0, "account": "savings"}, headers={"Accept-Language": "ja"})
    assert bad.status == 422 and bad.json["errors"][0]["loc"] == ["body", "target"], bad
    assert "目標額" in bad.json["detail"]
    # And it is deleted under its version, once
    assert api.delete(where, headers={"If-Match": '"1"'}).status == 412
    assert api.delete(where, headers={"If-Match": '"2"'}).status == 204
    assert api.get(where).status == 404
    assert api.delete(where, headers={"If-Match": '"2"'}).status == 404
