"""What depends on today, at the edges of the calendar: the ledger's today is Tokyo's, whatever UTC says.

Each case fixes the one clock the API reads (`settings.utc_now`) at an edge: the 1st just after
midnight in Tokyo (UTC still on the last day of the month before), the last day of a month, the last
day of February in a leap year and in a common one, and 00:00-09:00 in Tokyo when UTC is the day
before. The same scenarios as the page's browser test (a card billed at month-end and paid at the end
of the month after next; planned balances; reconciling as of today) are read through the handler.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from kakeibo import settings
from tests.events import Client

TOKYO = dt.timezone(dt.timedelta(hours=9))

EDGES = {
    "the 1st, 00:30 in Tokyo (UTC: the last day of the month before)": dt.datetime(2026, 12, 1, 0, 30, tzinfo=TOKYO),
    "the 2nd, 04:50 in Tokyo (UTC: the 1st)": dt.datetime(2026, 12, 2, 4, 50, tzinfo=TOKYO),
    "the last day of a month, 23:59 in Tokyo": dt.datetime(2026, 12, 31, 23, 59, tzinfo=TOKYO),
    "New Year's Day, 08:59 in Tokyo (UTC: still December)": dt.datetime(2027, 1, 1, 8, 59, tzinfo=TOKYO),
    "the 29th of February, 08:59 in Tokyo (UTC: the 28th)": dt.datetime(2028, 2, 29, 8, 59, tzinfo=TOKYO),
    "the 1st of March after a short February, 00:00 in Tokyo": dt.datetime(2027, 3, 1, 0, 0, tzinfo=TOKYO),
    "the 28th of a short February, 12:00 in Tokyo": dt.datetime(2027, 2, 28, 12, 0, tzinfo=TOKYO),
}


@pytest.fixture(params=list(EDGES.values()), ids=list(EDGES))
def now(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> dt.date:
    """The instant the API's clock says (in UTC, as a server's is); the answer is Tokyo's date of it."""
    instant: dt.datetime = request.param
    monkeypatch.setattr(settings, "utc_now", lambda: instant.astimezone(dt.UTC))
    return instant.date()


def _months_ago(day: dt.date, count: int) -> tuple[int, int]:
    index = day.year * 12 + day.month - 1 - count
    return index // 12, index % 12 + 1


def _last_day(year: int, month: int) -> dt.date:
    following = dt.date(year + month // 12, month % 12 + 1, 1)
    return following - dt.timedelta(days=1)


def _statements(api: Client) -> list[dict[str, Any]]:
    got = api.get("/accounts/visa/statements")
    assert got.status == 200, got
    return list(got.json["items"])


def test_the_card_shows_this_cycle_open_and_the_charge_of_two_months_ago_as_the_next_payment(
    api: Client, now: dt.date
) -> None:
    # Given a card closing at the month's end, paid at the end of the month after next, from a bank,
    # with a charge on the 10th two months ago and one on the 1st of this month (Tokyo's)
    api.account("bank", 100_000, type="bank")
    billing = {"closing_day": "last", "payment_day": "last", "payment_month_offset": 2, "pay_from": "bank"}
    assert api.post("/accounts", {"id": "visa", "name": "VISA", "type": "credit", "billing": billing}).status == 201
    year, month = _months_ago(now, 2)
    assert api.slip(date=f"{year:04d}-{month:02d}-10", kind="expense", amount=3000, account="visa",
                    category="日用品").status == 201  # fmt: skip
    assert api.slip(date=now.replace(day=1).isoformat(), kind="expense", amount=1200, account="visa",
                    category="食費").status == 201  # fmt: skip

    # When its statements are read without a range (the page's request)
    items = _statements(api)

    # Then the last one listed is this month's cycle, open, with this month's charge so far
    this_month = _last_day(now.year, now.month).isoformat()
    assert items[-1]["closing_date"] == this_month and items[-1]["state"] == "open", items[-1]
    assert items[-1]["charges"] == 1200
    # And the next payment (the oldest closed cycle not yet debited by today) is the charge of two
    # months ago, debited on the last day of this month
    upcoming = [s for s in items if s["state"] == "closed" and s["payment_date"] >= now.isoformat()]
    assert upcoming, items
    assert upcoming[0]["closing_date"] == _last_day(year, month).isoformat()
    assert (upcoming[0]["payment_date"], upcoming[0]["amount_due"]) == (this_month, 3000)


def test_balances_today_count_todays_slips_and_not_tomorrows(api: Client, now: dt.date) -> None:
    # Given a bank with a slip dated today (Tokyo's) and one dated tomorrow
    api.account("bank", 10_000, type="bank")
    tomorrow = now + dt.timedelta(days=1)
    assert api.slip(date=now.isoformat(), kind="expense", amount=1000, account="bank", category="食費").status == 201
    assert api.slip(date=tomorrow.isoformat(), kind="expense", amount=500, account="bank",
                    category="食費").status == 201  # fmt: skip

    # When the account's daily balances are read up to the default end (today)
    got = api.get("/accounts/bank/history", query={"from": (now - dt.timedelta(days=1)).isoformat()})

    # Then today is the last day listed and it counts today's slip, not tomorrow's
    assert got.status == 200, got
    days = got.json["items"]
    assert days[-1]["date"] == now.isoformat(), days
    assert days[-1]["balance"] == 9000


def test_an_account_can_be_reconciled_as_of_today_and_not_tomorrow(api: Client, now: dt.date) -> None:
    # Given a wallet holding 5,000
    api.account("wallet", 5000)

    # When it is reconciled as of today (Tokyo's) and as of tomorrow
    today_ = api.post("/accounts/wallet/reconciliations", {"date": now.isoformat(), "balance": 5000})
    tomorrow = api.post(
        "/accounts/wallet/reconciliations", {"date": (now + dt.timedelta(days=1)).isoformat(), "balance": 5000}
    )

    # Then today's is stored and tomorrow's is refused as a date after today, naming the field
    assert today_.status == 201, today_
    assert tomorrow.status == 422, tomorrow
    assert "date" in str(tomorrow.json), tomorrow
