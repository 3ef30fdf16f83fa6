"""Budgets that carry over: carried and available against a recomputation from the months."""

from __future__ import annotations

import datetime as dt

from hypothesis import given
from hypothesis import strategies as st

from kakeibo.core.rollover import MonthBudget, carries, days_left, per_day

month_budgets = st.builds(
    MonthBudget,
    limit=st.none() | st.integers(0, 100_000),
    spent=st.integers(-50_000, 200_000),
    rollover=st.booleans(),
    strict=st.booleans(),
)
years = st.dictionaries(st.integers(1, 12), month_budgets, max_size=12)


def recomputed_available(months: dict[int, MonthBudget], number: int) -> int:
    """The definition read backwards: the month's limit plus (unless it is strict), for the unbroken
    run of rolled-over budget months just before it back to a strict one, each one's limit less its
    spending."""
    limit = months[number].limit
    assert limit is not None
    total = limit
    if months[number].strict:
        return total
    earlier = number - 1
    while earlier >= 1:
        month = months.get(earlier)
        if month is None or month.limit is None or not month.rollover:
            break
        total += month.limit - month.spent
        if month.strict:  # it took nothing in: the run starts here
            break
        earlier -= 1
    return total


@given(years)
def test_available_equals_a_recomputation_from_the_months(months: dict[int, MonthBudget]) -> None:
    # Given any year of budgets, spending and rollover flags; When the carries are computed
    figures = carries(months)
    # Then exactly the months with a budget have figures, each one's available is the recomputation,
    # and what it carried is available less its own limit
    assert set(figures) == {n for n, m in months.items() if m.limit is not None}
    for number, carry in figures.items():
        limit = months[number].limit
        assert limit is not None
        assert carry.available == recomputed_available(months, number)
        assert carry.carried == carry.available - limit


@given(years, st.integers(1, 12), st.integers(-10_000, 10_000))
def test_spending_earlier_moves_every_later_month_of_the_run_by_as_much(
    months: dict[int, MonthBudget], number: int, more: int
) -> None:
    # Given a year; When `more` is spent in one month
    base = months.get(number, MonthBudget(limit=None))
    after = {**months, number: MonthBudget(base.limit, base.spent + more, base.rollover, base.strict)}
    before_figures, after_figures = carries(months), carries(after)
    # Then the months up to it are unchanged, and each later month moves by -more while the run of
    # rolled-over budgets from it is unbroken, by nothing from a strict month or the run's end on
    run_open = base.limit is not None and base.rollover
    for later in range(1, 13):
        if later not in before_figures:
            run_open = run_open and later <= number
            continue
        shift = after_figures[later].available - before_figures[later].available
        if later <= number:
            assert shift == 0
            continue
        run_open = run_open and not months[later].strict
        assert shift == (-more if run_open else 0)
        run_open = run_open and months[later].rollover


def test_january_starts_from_zero_and_negative_carries_count() -> None:
    # Given January overspent by 5,000 and rolling over, February rolling over, March not
    months = {
        1: MonthBudget(limit=10_000, spent=15_000, rollover=True),
        2: MonthBudget(limit=10_000, spent=2_000, rollover=True),
        3: MonthBudget(limit=10_000, spent=0, rollover=False),
        4: MonthBudget(limit=10_000, spent=0, rollover=True),
    }
    figures = carries(months)
    # Then January carries nothing in, February starts 5,000 short, March gets February's remainder
    assert (figures[1].carried, figures[1].available) == (0, 10_000)
    assert (figures[2].carried, figures[2].available) == (-5_000, 5_000)
    assert (figures[3].carried, figures[3].available) == (3_000, 13_000)
    # and April gets nothing from March, which does not roll over
    assert figures[4].carried == 0


def test_a_strict_month_takes_no_carry_but_hands_its_own_on() -> None:
    months = {
        1: MonthBudget(10_000, 15_000, rollover=True),
        2: MonthBudget(10_000, 4_000, rollover=True, strict=True),
        3: MonthBudget(10_000, 0),
    }
    figures = carries(months)
    assert (figures[2].carried, figures[2].available) == (0, 10_000)
    assert figures[3].carried == 6_000


def test_a_month_without_a_budget_breaks_the_run() -> None:
    months = {1: MonthBudget(10_000, 0, True), 3: MonthBudget(10_000, 0, False)}
    assert carries(months)[3].carried == 0


def test_per_day_counts_today_and_floors() -> None:
    # Given 30 November: one day left (today); 15 November: 16 days
    assert days_left(dt.date(2026, 11, 30)) == 1
    assert days_left(dt.date(2026, 11, 15)) == 16
    assert days_left(dt.date(2028, 2, 1)) == 29
    # Then 10,000 left over 16 days is 625 a day; 100 over 3 days floors to 33; overspent is negative
    assert per_day(30_000, 20_000, dt.date(2026, 11, 15)) == 625
    assert per_day(100, 0, dt.date(2026, 11, 28)) == 33
    assert per_day(0, 100, dt.date(2026, 11, 28)) == -34
