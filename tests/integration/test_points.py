"""Point lots on DynamoDB Local: points earned with an expiry, spends taking the earliest-expiring lots,
the points about to lapse, the daily job's ポイント失効 posted once per lot (under concurrent jobs too),
a spend moved before a lapse re-planning it, and the input refused (nothing written)."""

from __future__ import annotations

import datetime as dt

import pytest

from kakeibo.core import points as core_points
from kakeibo.services import points as points_service
from kakeibo.settings import today
from kakeibo.store import Store
from kakeibo.store.codec import to_ddb
from tests import invariants
from tests.concurrently import fan_out
from tests.events import Client, Reply
from tests.faults import before_next_transaction


def _day(offset: int) -> str:
    return (today() + dt.timedelta(days=offset)).isoformat()


def _earn(api: Client, amount: int, date: str, expires_on: str | None = None) -> dict[str, object]:
    body = {"date": date, "kind": "income", "amount": amount, "account": "pts", "category": "ポイント獲得"}
    reply = api.slip(**body, **({"expires_on": expires_on} if expires_on else {}))
    assert reply.status == 201, reply
    return dict(reply.json)


def _spend(api: Client, amount: int, date: str) -> Reply:
    return api.slip(date=date, kind="expense", amount=amount, account="pts", category="食費")


def _points_account(api: Client, point_value: int = 1) -> None:
    made = api.account("pts", 0, type="other", unit="points", point_value=point_value, program="楽天ポイント")
    assert made["unit"] == "points"


def _run_jobs(api: Client) -> int:
    """The daily job for this ledger, as of today, run until done (under load a run may stop early: 202)."""
    posted = 0
    while True:
        reply = api.post("/jobs/run", query={"until": _day(0)})
        assert reply.status in {200, 202}, reply
        posted += reply.json["posted"]
        if reply.json["complete"]:
            return posted


def _lapses(api: Client) -> list[dict[str, object]]:
    items = api.get("/slips", query={"account": "pts", "category": "ポイント失効"}).json["items"]
    return list(items)


def test_spends_take_the_earliest_expiring_lot_and_what_is_left_shows_as_expiring(api: Client) -> None:
    # Given 1,000 points worth ¥2 each expiring in 60 days and 500 expiring in 10 days
    _points_account(api, point_value=2)
    late = _earn(api, 1000, _day(-5), _day(60))
    soon = _earn(api, 500, _day(-3), _day(10))
    assert late["expires_on"] == _day(60)
    # When 600 points pay for groceries
    assert _spend(api, 600, _day(-1)).status == 201
    # Then the lot expiring soonest was spent whole, and 900 of the other lapse within 90 days
    found = api.get("/accounts/pts/expiring", query={"within": "90"}).json
    assert (found["account"], found["within"], found["points"]) == ("pts", 90, 900)
    (lot,) = found["items"]
    assert (lot["lot"], lot["points"], lot["jpy_value"], lot["lapses_on"]) == (late["id"], 900, 1800, _day(61))
    assert lot["lapsed"] is False and soon["id"] not in {i["lot"] for i in found["items"]}
    # And within 30 days nothing lapses
    assert api.get("/accounts/pts/expiring", query={"within": "30"}).json["items"] == []


def test_a_spend_after_everything_is_planned_without_replaying_the_history_and_a_back_dated_one_with_it(
    api: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given 100 points expiring in 10 days and 100 in 60, and a first spend (the lots planned whole)
    _points_account(api)
    _earn(api, 100, _day(-5), _day(60))
    soon = _earn(api, 100, _day(-4), _day(10))
    assert _spend(api, 30, _day(-3)).status == 201
    replayed: list[int] = []
    whole = core_points.planned
    monkeypatch.setattr(core_points, "planned", lambda events, **kw: replayed.append(1) or whole(events, **kw))
    # When two more spends come, each dated after everything planned
    assert _spend(api, 50, _day(-2)).status == 201
    assert _spend(api, 30, _day(-1)).status == 201
    # Then neither replayed the history, and they took the lot expiring first, then the other
    assert replayed == []
    found = api.get("/accounts/pts/expiring", query={"within": "90"}).json
    assert found["points"] == 90 and soon["id"] not in {i["lot"] for i in found["items"]}
    # And a spend dated before the last ones is planned with the whole history: with it the later
    # spends are no longer covered, so it is refused
    assert _spend(api, 100, _day(-3)).status == 409
    assert replayed


def test_the_daily_job_posts_each_lapse_once_even_under_four_concurrent_jobs(
    api: Client, store: Store, user: str
) -> None:
    # Given 300 points that expired yesterday, 100 of them spent, and 50 that never expire
    _points_account(api)
    lot = _earn(api, 300, _day(-20), _day(-1))
    _earn(api, 50, _day(-20))
    assert _spend(api, 100, _day(-10)).status == 201
    expiring = api.get("/accounts/pts/expiring").json
    assert [(i["lot"], i["points"], i["lapsed"]) for i in expiring["items"]] == [(lot["id"], 200, True)]
    # When four daily jobs run at once
    replies = fan_out(user, [("POST", f"/jobs/run?until={_day(0)}", None, None)] * 4)
    # (a run out of time under load answers 202: run again until one is done)
    posted = sum(r.json["posted"] for r in replies)
    assert all(r.status in {200, 202} for r in replies), replies
    posted += _run_jobs(api)
    # Then one ポイント失効 of 200 points was posted, dated the day after the expiry
    assert posted == 1
    (lapse,) = _lapses(api)
    assert (lapse["amount"], lapse["date"], lapse["lapse_of"], lapse["kind"]) == (200, _day(0), lot["id"], "expense")
    assert api.balances()["pts"] == 50
    # And a further run posts nothing, and nothing lapses any more
    assert _run_jobs(api) == 0
    assert len(_lapses(api)) == 1
    assert api.get("/accounts/pts/expiring").json["items"] == []
    assert invariants.check(store, user) == []
    assert api.post("/ledger/verify").json["ok"] is True


def test_a_spend_moved_before_a_lapse_re_plans_it(api: Client, store: Store, user: str) -> None:
    # Given 1,000 points that expired 5 days ago, 1,000 that never expire, and 300 spent after the expiry
    _points_account(api)
    lot = _earn(api, 1000, _day(-30), _day(-5))
    _earn(api, 1000, _day(-30))
    spent = _spend(api, 300, _day(-2))
    assert spent.status == 201, spent
    assert api.get("/accounts/pts/expiring").json["points"] == 1000
    # When the spend moves to before the expiry
    where, etag = spent.header("Location") or "", spent.etag or ""
    moved = api.patch(where, {"date": _day(-10)}, headers={"If-Match": etag})
    assert moved.status == 200, moved
    # Then the lot lapses 300 points less, and the job posts 700
    expiring = api.get("/accounts/pts/expiring").json
    assert [(i["lot"], i["points"]) for i in expiring["items"]] == [(lot["id"], 700)]
    assert _run_jobs(api) == 1
    assert [x["amount"] for x in _lapses(api)] == [700]
    assert api.balances()["pts"] == 1000
    # And once it has lapsed, a spend moved back before the expiry cannot take the lapsed points:
    # it takes the lot that does not expire
    moved_back = api.patch(moved.header("Location") or "", {"date": _day(-2)}, headers={"If-Match": moved.etag or ""})
    assert moved_back.status == 200, moved_back
    again = api.patch(
        moved_back.header("Location") or "", {"date": _day(-10)}, headers={"If-Match": moved_back.etag or ""}
    )
    assert again.status == 200, again
    assert _run_jobs(api) == 0
    assert invariants.check(store, user) == []


def test_an_earnings_expiry_changed_alone_is_a_change_that_re_plans_its_lot(
    api: Client, store: Store, user: str
) -> None:
    # Given 1,000 points earned 5 days ago, expiring in 60 days
    _points_account(api)
    lot = _earn(api, 1000, _day(-5), _day(60))
    where = f"/slips/{lot['date']}/{lot['id']}"
    assert api.get("/accounts/pts/expiring", query={"within": "30"}).json["items"] == []
    # When only its expiry is patched to 10 days from now
    patched = api.patch(where, {"expires_on": _day(10)}, headers={"If-Match": '"1"'})
    # Then it is a change: a new version, the new expiry kept, and the lot now lapses within 30 days
    assert patched.status == 200 and patched.etag == '"2"', patched
    assert api.get(where).json["expires_on"] == _day(10)
    (soon,) = api.get("/accounts/pts/expiring", query={"within": "30"}).json["items"]
    assert (soon["lot"], soon["lapses_on"], soon["points"]) == (lot["id"], _day(11), 1000)
    # When a PUT of the same slip changes only its expiry back
    body = {k: lot[k] for k in ("date", "kind", "amount", "account", "category")} | {"expires_on": _day(60)}
    put = api.put(where, body, headers={"If-Match": '"2"'})
    # Then that is a change too
    assert put.status == 200 and put.etag == '"3"' and put.json["expires_on"] == _day(60), put
    assert api.get("/accounts/pts/expiring", query={"within": "30"}).json["items"] == []
    # And the expiry removed (null), the lot never lapses
    removed = api.patch(where, {"expires_on": None}, headers={"If-Match": '"3"'})
    assert removed.status == 200 and removed.etag == '"4"' and "expires_on" not in removed.json, removed
    assert api.get("/accounts/pts/expiring", query={"within": "3650"}).json["items"] == []
    assert api.post("/ledger/verify").json["ok"] is True
    assert invariants.check(store, user) == []


def test_points_not_held_on_the_spends_date_and_an_earning_that_lapsed_are_refused(api: Client) -> None:
    # Given 100 points that expired a week ago (lapse posted) and 50 that never expire
    _points_account(api)
    lot = _earn(api, 100, _day(-30), _day(-7))
    _earn(api, 50, _day(-30))
    assert _run_jobs(api) == 1
    # When 80 points are spent today: only 50 are held
    refused = _spend(api, 80, _day(0))
    # Then it is refused in the caller's language, and nothing is written
    assert refused.status == 409 and refused.json["code"] == "insufficient_funds", refused
    body = {"date": _day(0), "kind": "expense", "amount": 80, "account": "pts", "category": "食費"}
    ja = api.post("/slips", body, headers={"Accept-Language": "ja"})
    assert "ポイント" in ja.json["detail"], ja
    assert api.balances()["pts"] == 50
    # And the earning whose points lapsed cannot be deleted while its lapse stands
    earned = api.get(f"/slips/{lot['date']}/{lot['id']}")
    deleted = api.delete(f"/slips/{lot['date']}/{lot['id']}", headers={"If-Match": earned.etag or ""})
    assert deleted.status == 409 and deleted.json["code"] == "points_lapsed", deleted


def test_a_spend_racing_the_lapse_of_its_lot_is_refused_as_points_lapsed(api: Client, store: Store, user: str) -> None:
    # Given 300 points that expired 5 days ago, their lapse not posted yet, and nothing else
    _points_account(api)
    lot = _earn(api, 300, _day(-30), _day(-5))
    # When 100 of them are spent on a day they were still open, and the daily job posts their lapse
    # after the spend has planned its lots, right before its transaction
    before_next_transaction(store, lambda: _run_jobs(Client(user)))
    refused = _spend(api, 100, _day(-10))
    # Then the spend is refused as the docs say: those points have lapsed (ポイント失効 posted), naming the lot
    assert refused.status == 409 and refused.json["code"] == "points_lapsed", refused
    assert refused.json["lot"] == lot["id"], refused
    # And nothing of it was written: the lapse of the 300 points stands alone
    assert [x["amount"] for x in _lapses(api)] == [300]
    assert api.balances()["pts"] == 0
    assert api.post("/ledger/verify").json["ok"] is True
    assert invariants.check(store, user) == []


def test_an_earning_shrunk_while_its_lapse_is_posted_is_refused_as_points_lapsed(
    api: Client, store: Store, user: str
) -> None:
    # Given 300 points that expired 5 days ago, their lapse not posted yet, and nothing else
    _points_account(api)
    lot = _earn(api, 300, _day(-30), _day(-5))
    where = f"/slips/{lot['date']}/{lot['id']}"
    # When the earning is patched down to 100, and the daily job posts the lapse of all 300 right
    # before the patch's transaction (after it read the slip and planned the lots)
    before_next_transaction(store, lambda: _run_jobs(Client(user)))
    refused = api.patch(where, {"amount": 100}, headers={"If-Match": '"1"', "Accept-Language": "ja"})
    # Then the patch is refused as points_lapsed (the lot would hold less than its lapse), in Japanese
    assert refused.status == 409 and refused.json["code"] == "points_lapsed", refused
    assert refused.json["lot"] == lot["id"] and "失効" in refused.json["detail"], refused
    # And the earning is as it was, its lapse posted once
    assert api.get(where).json["amount"] == 300 and api.get(where).etag == '"1"'
    assert [x["amount"] for x in _lapses(api)] == [300]
    assert api.balances()["pts"] == 0
    assert api.post("/ledger/verify").json["ok"] is True
    assert invariants.check(store, user) == []


def test_bad_expiry_and_bad_within_are_refused_naming_the_field(api: Client) -> None:
    _points_account(api)
    api.account("cash", 1000)
    cases = [
        {"date": "2026-08-10", "kind": "income", "amount": 10, "account": "pts", "expires_on": "2026-08-09"},
        {"date": "2026-08-10", "kind": "expense", "amount": 10, "account": "pts", "expires_on": "2026-09-01"},
        {"date": "2026-08-10", "kind": "income", "amount": 10, "account": "cash", "expires_on": "2026-09-01"},
    ]
    for body in cases:
        reply = api.slip(**body)
        assert reply.status == 422, reply
        assert [e["loc"][-1] for e in reply.json["errors"]] == ["expires_on"], reply
    assert api.balances() == {"pts": 0, "cash": 1000}
    for within in ("abc", "-1", "3651", "1.5"):
        reply = api.get("/accounts/pts/expiring", query={"within": within}, headers={"Accept-Language": "ja"})
        assert reply.status == 422, reply
        assert [e["loc"][-1] for e in reply.json["errors"]] == ["within"], reply


def _lots_item(store: Store, user: str) -> dict[str, object]:
    item = store.points.lots(user, "pts")
    assert item is not None
    return item


def test_the_lots_are_compacted_and_a_slip_dated_before_the_fold_re_plans_them_all(
    api: Client, store: Store, user: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a points account whose lots are compacted from 6 events on
    monkeypatch.setattr(points_service, "COMPACT_AT", 6)
    monkeypatch.setattr(points_service, "COMPACT_EVERY", 1)
    monkeypatch.setattr(points_service, "COMPACT_MIN", 2)
    monkeypatch.setattr(points_service, "FOLD_AFTER_DAYS", 0)
    _points_account(api)
    first = _earn(api, 100, _day(-40))
    spends = [_spend(api, 50, _day(-35)) for _ in range(2)]
    assert all(s.status == 201 for s in spends), spends
    later = _earn(api, 80, _day(-20), _day(30))
    assert _spend(api, 30, _day(-10)).status == 201
    # When one more slip makes the item long enough to fold
    assert _spend(api, 5, _day(-5)).status == 201
    # Then the first lot (spent whole) and its spends are folded out from the day after; the open lot stays
    item = _lots_item(store, user)
    assert item["through"] == _day(-34)
    assert first["id"] not in item["events"] and later["id"] in item["events"]  # type: ignore[operator]
    assert api.get("/accounts/pts/expiring").json["points"] == 45
    assert api.post("/ledger/verify").json["ok"] is True
    # When a spend dated before the fold is deleted
    gone = api.delete(spends[0].header("Location") or "", headers={"If-Match": spends[0].etag or ""})
    assert gone.status == 204, gone
    # Then the lots are planned from every slip: the first lot holds 50 again, unfolded, so a spend of 90
    # takes the later lot's 45 (expiring first) and 45 of it
    item = _lots_item(store, user)
    assert "through" not in item and first["id"] in item["events"]  # type: ignore[operator]
    assert _spend(api, 90, _day(-1)).status == 201
    assert api.get("/accounts/pts/expiring").json["points"] == 0
    assert api.balances()["pts"] == 5
    assert api.post("/ledger/verify").json["ok"] is True
    assert invariants.check(store, user) == []


def test_verify_finds_lots_that_differ_from_the_slips_and_rebuild_repairs_them(
    api: Client, store: Store, user: str
) -> None:
    # Given points earned and spent, and the lots changed behind the API's back: a spend gone
    _points_account(api)
    lot = _earn(api, 100, _day(-20), _day(20))
    spent = _spend(api, 40, _day(-5))
    assert spent.status == 201, spent
    spend_id = spent.json["id"]
    store.core.client.update_item(
        TableName=store.core.table,
        Key=to_ddb({"PK": f"LEDGER#{user}", "SK": "LOTS#pts"}),
        UpdateExpression="REMOVE #ev.#s",
        ExpressionAttributeNames={"#ev": "events", "#s": spend_id},
    )
    points_service.remember(user, "pts", None)
    # When the ledger is verified, Then the missing spend is reported on the lots item
    verified = api.post("/ledger/verify").json
    assert verified["ok"] is False
    assert {"item": "LOTS#pts", "field": spend_id, "expected": 40, "actual": 0} in verified["mismatches"]
    # When the owner rebuilds, Then the lots are the slips' again: 60 left in the lot, verify is ok
    rebuilt = api.post("/ledger/rebuild")
    assert rebuilt.status == 200, rebuilt
    assert api.post("/ledger/verify").json["ok"] is True
    assert [(i["lot"], i["points"]) for i in api.get("/accounts/pts/expiring").json["items"]] == [(lot["id"], 60)]
