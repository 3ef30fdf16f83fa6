"""GET /forecast: a household's months ahead projected exactly, through the handler on DynamoDB Local.

The clock is the one the API reads (`settings.utc_now`), fixed: today is Tuesday 10 November 2026 in
Tokyo. The household: a bank (a floor of 50,000), a card closing on the 15th and debited on the 10th
of the month after (moved to the next business day), salary on the 25th and rent on the 27th (both
the business day before when it is not one), a subscription on the card, card charges made and one
dated ahead, and a tuition fee dated ahead.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest

from kakeibo import settings
from tests.events import Client

TOKYO = dt.timezone(dt.timedelta(hours=9))
TODAY = dt.datetime(2026, 11, 10, 10, 0, tzinfo=TOKYO)
BILLING = {"closing_day": 15, "payment_day": 10, "pay_from": "bank", "shift": "next_business_day"}


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Callable[[dt.datetime], None]:
    def set_now(instant: dt.datetime) -> None:
        monkeypatch.setattr(settings, "utc_now", lambda: instant.astimezone(dt.UTC))

    set_now(TODAY)
    return set_now


def _monthly(kind: str, amount: int, account: str, day: int, **slip: Any) -> dict[str, Any]:
    return {
        "slip": {"kind": kind, "amount": amount, "account": account, **slip},
        "rule": {"freq": "monthly", "by_month_day": day, "start": "2026-11-01"},
        "shift": "previous_business_day",
    }


def _household(api: Client) -> None:
    api.account("bank", 400_000, type="bank", low_balance=50_000)
    made = api.post("/accounts", {"id": "card", "name": "楽天カード", "type": "credit", "billing": BILLING})
    assert made.status == 201, made
    for body in (
        _monthly("income", 150_000, "bank", 25, category="給与"),
        _monthly("expense", 90_000, "bank", 27, category="家賃"),
        {**_monthly("expense", 1_500, "card", 20, category="通信費"), "shift": "none"},
    ):
        assert api.post("/recurrences", body).status == 201
    for slip in (
        {"date": "2026-11-05", "kind": "expense", "amount": 30_000, "account": "card", "category": "家電"},
        {"date": "2026-11-14", "kind": "expense", "amount": 8_000, "account": "card", "category": "外食"},
        {"date": "2026-12-01", "kind": "expense", "amount": 380_000, "account": "bank", "category": "学費"},
    ):
        assert api.slip(**slip).status == 201


def _days(item: dict[str, Any]) -> list[tuple[str, int, int]]:
    return [(day["date"], day["change"], day["balance"]) for day in item["days"]]


def _forecast(api: Client, **query: str) -> dict[str, Any]:
    got = api.get("/forecast", query=query or None)
    assert got.status == 200, got
    return {item["account"]: item for item in got.json["items"]}


def test_a_households_three_months_are_projected_exactly(api: Client, clock: Callable[[dt.datetime], None]) -> None:
    # Given the household, on Tuesday 10 November
    _household(api)
    # When its forecast is asked for (three months on by default)
    got = api.get("/forecast")
    assert got.status == 200, got
    assert (got.json["from"], got.json["until"]) == ("2026-11-10", "2027-02-10")
    items = {item["account"]: item for item in got.json["items"]}
    # Then the bank moves on each day something is posted: salary on the 25th (the 25th of December
    # is a Friday), rent on the 27th (Sunday 27 December: Friday the 25th), the tuition, and the card's
    # payments: November's cycle (30,000 + 8,000 dated ahead) on Thursday 10 December, December's (the
    # subscription of 20 November) on Tuesday 12 January (the 10th a Sunday, the 11th 成人の日), January's
    # on Wednesday 10 February
    bank = items["bank"]
    assert bank["balance"] == 400_000 and bank["low_balance"] == 50_000
    assert _days(bank) == [
        ("2026-11-25", 150_000, 550_000),
        ("2026-11-27", -90_000, 460_000),
        ("2026-12-01", -380_000, 80_000),
        ("2026-12-10", -38_000, 42_000),
        ("2026-12-25", 60_000, 102_000),
        ("2027-01-12", -1_500, 100_500),
        ("2027-01-25", 150_000, 250_500),
        ("2027-01-27", -90_000, 160_500),
        ("2027-02-10", -1_500, 159_000),
    ]
    payment = bank["days"][3]["moves"][0]
    assert payment == {
        "kind": "card_payment", "date": "2026-12-10", "amount": -38_000, "memo": "カード引き落とし 2026-11-15",
        "counterpart": "card", "card": "card", "closing_date": "2026-11-15",
    }  # fmt: skip
    # And the first shortfall is the card's debit of 10 December, below the bank's floor
    shortfall = bank["first_shortfall"]
    assert shortfall["title"] == "Shortfall expected"
    assert (shortfall["date"], shortfall["balance"], shortfall["floor"]) == ("2026-12-10", 42_000, 50_000)
    assert shortfall["cause"] == payment
    # And the card: the charge dated ahead, the subscription each month, each payment clearing its cycle
    card = items["card"]
    assert card["balance"] == -30_000 and card["first_shortfall"] is None
    assert _days(card) == [
        ("2026-11-14", -8_000, -38_000),
        ("2026-11-20", -1_500, -39_500),
        ("2026-12-10", 38_000, -1_500),
        ("2026-12-20", -1_500, -3_000),
        ("2027-01-12", 1_500, -1_500),
        ("2027-01-20", -1_500, -3_000),
        ("2027-02-10", 1_500, -1_500),
    ]
    salary = bank["days"][0]["moves"][0]
    assert (salary["kind"], salary["scheduled"], salary["memo"]) == ("recurrence", "2026-11-25", "給与")
    # And in Japanese the shortfall says so
    ja = api.get("/forecast", query={"account": "bank"}, headers={"Accept-Language": "ja"})
    assert [item["account"] for item in ja.json["items"]] == ["bank"]
    assert ja.json["items"][0]["first_shortfall"]["title"] == "残高不足の見込み"


def test_the_days_that_come_are_what_the_daily_job_posts(api: Client, clock: Callable[[dt.datetime], None]) -> None:
    # Given the household's forecast on 10 November
    _household(api)
    before = _forecast(api, until="2027-02-10")
    # When it is 10 December and the daily job has run
    clock(dt.datetime(2026, 12, 10, 8, 0, tzinfo=TOKYO))
    ran = api.post("/jobs/run")
    assert ran.status == 200 and ran.json["failed"] == [], ran
    # Then each balance at the end of the day is what was projected for it
    assert api.balances("2026-12-10") == {"bank": 42_000, "card": -1_500}
    # And the forecast from then on is the one made a month before, from that day
    after = _forecast(api, until="2027-02-10")
    for account in ("bank", "card"):
        assert (
            after[account]["balance"]
            == before[account]["days"][[d["date"] for d in before[account]["days"]].index("2026-12-10")]["balance"]
        )
        assert _days(after[account]) == [d for d in _days(before[account]) if d[0] > "2026-12-10"]


def test_an_until_before_today_or_past_a_year_is_refused_in_words(
    api: Client, clock: Callable[[dt.datetime], None]
) -> None:
    # Given a ledger with an account
    api.account("cash", 1_000)
    # When the forecast is asked for before today, past a year, or for an account there is not
    early = api.get("/forecast", query={"until": "2026-11-09"})
    late = api.get("/forecast", query={"until": "2027-11-11"}, headers={"Accept-Language": "ja"})
    missing = api.get("/forecast", query={"account": "nowhere"})
    # Then each is refused, naming until in the caller's language
    assert early.status == 422 and early.json["errors"][0]["loc"] == ["query", "until"], early
    assert "before today (2026-11-10)" in early.json["detail"]
    assert late.status == 422 and "2027-11-10 までにしてください" in late.json["detail"], late
    assert missing.status == 404
    # And a year ahead to the day, and today itself, are accepted: nothing moves, nothing falls short
    for until in ("2027-11-10", "2026-11-10"):
        got = api.get("/forecast", query={"until": until})
        assert got.status == 200, got
        assert got.json["items"][0] | {"days": []} == {
            "account": "cash", "name": "Cash", "type": "cash", "unit": "JPY", "balance": 1_000,
            "low_balance": None, "final_balance": 1_000, "days": [], "first_shortfall": None,
        }  # fmt: skip


def test_low_balance_is_kept_changed_and_removed(api: Client, clock: Callable[[dt.datetime], None]) -> None:
    # Given a bank with a floor
    made = api.account("bank", 10_000, type="bank", low_balance=20_000)
    assert made["low_balance"] == 20_000
    # Then it is short already today, before anything moves
    short = _forecast(api)["bank"]["first_shortfall"]
    assert (short["date"], short["cause"], short["floor"]) == ("2026-11-10", None, 20_000)
    # When the floor is lowered, then removed
    lowered = api.patch("/accounts/bank", {"low_balance": 5_000}, headers={"If-Match": '"1"'})
    assert lowered.status == 200 and lowered.json["low_balance"] == 5_000, lowered
    assert _forecast(api)["bank"]["first_shortfall"] is None
    removed = api.patch("/accounts/bank", {"low_balance": None}, headers={"If-Match": '"2"'})
    assert removed.status == 200 and removed.json["low_balance"] is None, removed
    assert api.get("/accounts/bank").json["low_balance"] is None
    # And a card, which owes, takes none; nor does a floor below zero pass
    card = api.post("/accounts", {"id": "card", "name": "Card", "type": "credit", "low_balance": 0})
    assert card.status == 422 and card.json["errors"][0]["loc"][-1] == "low_balance", card
    api.account("visa", 0, type="credit")
    patched = api.patch("/accounts/visa", {"low_balance": 1}, headers={"If-Match": '"1"', "Accept-Language": "ja"})
    assert patched.status == 422 and "クレジットカード" in patched.json["detail"], patched
    below = api.patch("/accounts/bank", {"low_balance": -1}, headers={"If-Match": '"3"'})
    assert below.status == 422, below
