"""Alerts as values (core/alerts.py): one identity per kind, subject and period, so raising again is the
same alert; a budget's 80% and 100% as its spending crosses them; the forecast's shortfall, card
payments and lapsing points within their horizons."""

from __future__ import annotations

import datetime as dt

from hypothesis import given
from hypothesis import strategies as st

from kakeibo.core import alerts
from kakeibo.core.forecast import Day, Move, Projection, Shortfall

TODAY = dt.date(2026, 12, 1)


@given(st.integers(min_value=1, max_value=10**7), st.integers(min_value=0, max_value=2 * 10**7))
def test_a_budget_is_told_at_80_and_at_100_percent_and_100_implies_80(available: int, spent: int) -> None:
    # Given a budget with what it has and what was spent
    found = {a.kind for a in alerts.budget_alerts([{"month": "2026-12", "category": "食費", "spent": spent,
                                                     "available": available}])}  # fmt: skip
    # Then 80% is told exactly when spending reached it, 100% exactly when it reached the whole
    assert ("budget_80" in found) == (spent * 5 >= available * 4)
    assert ("budget_100" in found) == (spent >= available)
    assert "budget_100" not in found or "budget_80" in found


@given(st.integers(min_value=0, max_value=10**6), st.integers(min_value=0, max_value=10**6))
def test_raising_again_is_the_same_alert_whatever_the_facts(first: int, second: int) -> None:
    budget = {"month": "2026-12", "category": "食費", "available": 1000}
    once = alerts.budget_alerts([{**budget, "spent": 1000 + first}])
    again = alerts.budget_alerts([{**budget, "spent": 1000 + second}])
    # Then each is the same alert (identity and id) though its facts differ
    assert [a.id for a in once] == [a.id for a in again] and len({a.id for a in once}) == 2
    assert once == again


def test_a_budget_with_nothing_to_spend_tells_nothing() -> None:
    assert alerts.budget_alerts([{"month": "2026-12", "category": "x", "spent": 5, "available": 0}]) == []


def _move(kind: str, day: dt.date, account: str, delta: int, ref: str) -> Move:
    return Move(day, day, kind, ((account, delta),), ref, "メモ")  # type: ignore[arg-type]


def test_the_forecast_tells_a_shortfall_by_a_debit_a_card_payment_soon_and_points_lapsing() -> None:
    # Given a bank that a card payment takes below 0 in 10 days, a card paid in 3 days and in 20,
    # and points lapsing in 29 and in 31 days
    debit = _move("card_payment", TODAY + dt.timedelta(days=10), "bank", -50_000, "visa")
    bank = Projection("bank", 10_000, (Day(debit.date, -50_000, -40_000, (debit,)),),
                      Shortfall(debit.date, -40_000, 0, debit))  # fmt: skip
    soon, later = (
        Move(
            TODAY + dt.timedelta(days=d),
            TODAY + dt.timedelta(days=d),
            "card_payment",
            (("bank", -n), ("visa", n)),
            "visa",
            "カード引き落とし",
        )
        for d, n in ((3, 8_000), (20, 9_000))
    )
    visa = Projection("visa", -8_000, tuple(Day(m.date, 0, 0, (m,)) for m in (soon, later)), None)
    lapse_in, lapse_out = (_move("lapse", TODAY + dt.timedelta(days=d), "pts", -300, f"lot{d}") for d in (29, 31))
    pts = Projection("pts", 600, tuple(Day(m.date, -300, 0, (m,)) for m in (lapse_in, lapse_out)), None)
    found = {(a.kind, a.subject, a.period) for a in alerts.forecast_alerts({"bank": bank, "visa": visa,
                                                                            "pts": pts}, TODAY)}  # fmt: skip
    # Then the shortfall with its debit, the payment within 3 days and the lapse within 30 are told
    assert found == {
        ("shortfall", "bank", "2026-12-11"),
        ("card_payment", "visa", "2026-12-04"),
        ("points_lapsing", "pts/lot29", "2026-12-30"),
    }


def test_a_balance_short_already_today_is_no_shortfall_before_a_debit() -> None:
    short = Projection("cash", -5, (), Shortfall(TODAY, -5, 0, None))
    assert alerts.forecast_alerts({"cash": short}, TODAY) == []
