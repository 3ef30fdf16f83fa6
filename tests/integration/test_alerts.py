"""Alerts (§27) through the handler on DynamoDB Local: raised once where the change causing them is
written (a budget at 80% and 100%) or by the daily job (a shortfall before a debit, a card payment
within 3 days), journaled, listed, dismissed, never raised by a read and never undone.

The clock is the API's (`settings.utc_now`), fixed: today is Tuesday 10 November 2026 in Tokyo.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from kakeibo import settings
from kakeibo.store import Store
from tests.events import Client

TOKYO = dt.timezone(dt.timedelta(hours=9))
TODAY = dt.datetime(2026, 11, 10, 10, 0, tzinfo=TOKYO)


@pytest.fixture(autouse=True)
def _clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settings, "utc_now", lambda: TODAY.astimezone(dt.UTC))


def _alerts(api: Client, **query: str) -> list[dict[str, Any]]:
    got = api.get("/alerts", query=query or None, headers={"Accept-Language": "ja"})
    assert got.status == 200, got
    return list(got.json["items"])


def _alert_changes(api: Client) -> list[dict[str, Any]]:
    got = api.get("/changes")
    assert got.status == 200, got
    return [c for entry in got.json["changes"] for c in entry["changes"] if c["type"] == "alert"]


def test_a_budget_is_told_at_80_and_100_percent_once_each(api: Client) -> None:
    # Given a budget of 10,000 yen for food this month
    api.account("cash", 100_000)
    assert api.put("/budgets/2026-11/食費", {"limit": 10_000}).status in (200, 201)
    # When 7,000 then 1,500 yen are spent (85%)
    for amount in (7_000, 1_500):
        assert api.slip(date="2026-11-10", kind="expense", amount=amount, account="cash", category="食費").status == 201
    # Then the 80% alert is open, said in Japanese, and the journal holds it once
    (eighty,) = _alerts(api)
    assert (eighty["kind"], eighty["subject"], eighty["period"]) == ("budget_80", "食費", "2026-11")
    assert eighty["message"] == "食費の今月の予算の 80% を使いました（8500 円 / 10000 円）"
    assert [(c["op"], c["id"]) for c in _alert_changes(api)] == [("create", eighty["id"])]
    # When more is spent, past the whole budget, by a change of a slip
    slip = api.slip(date="2026-11-10", kind="expense", amount=100, account="cash", category="食費")
    changed = api.patch(f"/slips/2026-11-10/{slip.json['id']}", {"amount": 2_000}, headers={"If-Match": slip.etag})
    assert changed.status == 200, changed
    # Then 100% is told too, and 80% is not told again
    assert sorted(a["kind"] for a in _alerts(api)) == ["budget_100", "budget_80"]
    assert len(_alert_changes(api)) == 2
    # When the 80% alert is dismissed
    dismissed = api.post(f"/alerts/{eighty['id']}/dismiss")
    assert dismissed.status == 200 and dismissed.json["dismissed_at"], dismissed
    # Then it is not open, is still listed with dismissed=true, is not dismissed twice, and more
    # spending does not raise it again (its identity stays)
    assert [a["kind"] for a in _alerts(api)] == ["budget_100"]
    assert {a["kind"] for a in _alerts(api, dismissed="true")} == {"budget_80", "budget_100"}
    again = api.post(f"/alerts/{eighty['id']}/dismiss")
    assert again.status == 404 and again.json["code"] == "not_found", again
    assert api.slip(date="2026-11-10", kind="expense", amount=50, account="cash", category="食費").status == 201
    assert [a["kind"] for a in _alerts(api)] == ["budget_100"]
    # And an alert's journal entry is not undone
    entries = {e["seq"]: e for e in api.get("/changes").json["changes"]}
    alert_seq = next(s for s, e in entries.items() if e["changes"][0]["type"] == "alert")
    refused = api.post(f"/changes/{alert_seq}/undo")
    assert refused.status == 409 and refused.json["code"] == "not_undoable", refused


def test_an_expense_of_this_month_reads_its_budgets_once_and_one_of_another_month_does_not(
    api: Client, store: Store
) -> None:
    # Given a ledger with an account, and the calls the handler makes counted
    api.account("cash", 10_000)
    seen: list[str] = []

    def count(event_name: str, **kwargs: Any) -> None:
        seen.append(event_name.rsplit(".", 1)[-1])

    store.core.client.meta.events.register("before-call.dynamodb.*", count)
    try:
        assert api.slip(date="2026-10-01", kind="expense", amount=1, account="cash", category="食費").status == 201
        before = seen.count("Query")
        seen.clear()
        # When an expense of this month is made
        assert api.slip(date="2026-11-10", kind="expense", amount=1, account="cash", category="食費").status == 201
    finally:
        store.core.client.meta.events.unregister("before-call.dynamodb.*", count)
    # Then it cost one Query more than one of October: the year's budgets
    assert seen.count("Query") == before + 1


def test_the_daily_job_tells_a_shortfall_before_a_debit_and_a_card_payment_soon(api: Client, store: Store) -> None:
    # Given a bank with 20,000 yen, rent of 90,000 taken on the 27th, and a card debited on the 12th
    api.account("bank", 20_000, type="bank")
    card = {"closing_day": 15, "payment_day": 12, "pay_from": "bank", "shift": "none"}
    assert api.post("/accounts", {"id": "card", "name": "カード", "type": "credit", "billing": card}).status == 201
    assert api.slip(date="2026-10-10", kind="expense", amount=3_000, account="card", category="外食").status == 201
    rent = {"slip": {"kind": "expense", "amount": 90_000, "account": "bank", "category": "家賃"},
            "rule": {"freq": "monthly", "by_month_day": 27, "start": "2026-11-01"}, "shift": "none"}  # fmt: skip
    assert api.post("/recurrences", rent).status == 201
    # When nothing but reads happen, nothing is raised
    assert api.get("/forecast").status == 200 and _alerts(api) == []
    # When the daily job runs for the ledger
    assert api.post("/jobs/run").status == 200
    # Then the shortfall the rent causes on the 27th and the card's payment on the 12th are told
    found = {(a["kind"], a["subject"], a["period"]): a for a in _alerts(api)}
    assert set(found) == {("shortfall", "bank", "2026-11-27"), ("card_payment", "card", "2026-11-12")}, found
    short = found[("shortfall", "bank", "2026-11-27")]
    assert short["facts"]["cause"] == "recurrence" and short["facts"]["amount"] == 90_000
    assert "残高不足の見込み" in short["message"]
    # And the job run again tells nothing twice
    assert api.post("/jobs/run").status == 200
    assert len(_alerts(api)) == 2 and len(_alert_changes(api)) == 2


def test_an_alert_raised_by_8_writers_at_once_is_raised_once(api: Client, store: Store, user: str) -> None:
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from kakeibo.core import alerts as core
    from kakeibo.services import alerts
    from kakeibo.store import WriteContext

    # Given one alert, and 8 writers of the ledger raising it at the same moment
    api.account("cash", 1_000)
    alert = core.Alert("budget_80", "食費", "2026-11", {"category": "食費", "spent": 9, "available": 10, "share": 80})
    barrier = threading.Barrier(8)

    def one(_: int) -> list[str]:
        barrier.wait()
        return alerts.raise_alerts(store, WriteContext.personal(user), [alert])

    with ThreadPoolExecutor(8) as pool:
        raised = list(pool.map(one, range(8)))
    # Then one writer raised it, and the journal holds it once
    assert sum(len(ids) for ids in raised) == 1
    assert [a["id"] for a in _alerts(api)] == [alert.id] and len(_alert_changes(api)) == 1
