"""Budgets that carry over: carried and available against a recomputation from the months."""

from __future__ import annotations

import datetime as dt

from hypothesis import given, settings
from hypothesis import strategies as st

from kakeibo.core.rollover import MonthBudget, carries, days_left, lefts, linked, overdrawn, per_day, spend

month_budgets = st.builds(
    MonthBudget,
    limit=st.none() | st.integers(0, 100_000),
    spent=st.integers(-50_000, 200_000),
    rollover=st.booleans(),
    strict=st.booleans(),
)
years = st.dictionaries(st.integers(1, 12), month_budgets, max_size=12)


def recomputed_available(months: dict[int, MonthBudget], number: int) -> int:
    """The definition read backwards: the month's limit plus, for the unbroken run of rolled-over
    budget months just before it, each one's limit less its spending (strict or not)."""
    limit = months[number].limit
    assert limit is not None
    total = limit
    earlier = number - 1
    while earlier >= 1:
        month = months.get(earlier)
        if month is None or month.limit is None or not month.rollover:
            break
        total += month.limit - month.spent
        earlier -= 1
    return total


@settings(deadline=None)
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


@settings(deadline=None)
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


def test_a_strict_month_takes_its_carry_and_hands_its_own_on() -> None:
    # Given January overspent by 5,000 rolling into a strict February that rolls over too
    months = {
        1: MonthBudget(10_000, 15_000, rollover=True),
        2: MonthBudget(10_000, 4_000, rollover=True, strict=True),
        3: MonthBudget(10_000, 0),
    }
    figures = carries(months)
    # Then February is held to 5,000, not to its limit, and hands on the 1,000 left of it
    assert (figures[2].carried, figures[2].available) == (-5_000, 5_000)
    assert figures[3].carried == 1_000


@settings(deadline=None)
@given(years)
def test_what_is_left_is_the_runs_limits_less_its_spending(months: dict[int, MonthBudget]) -> None:
    # Given any year; Then each budget month's left is the sum of limit - spent over its run so far
    for number, left in lefts(months).items():
        start = number
        while start > 1 and (m := months.get(start - 1)) is not None and m.limit is not None and m.rollover:
            start -= 1
        assert left == sum((months[k].limit or 0) - months[k].spent for k in range(start, number + 1))


@settings(deadline=None)
@given(years)
def test_linked_months_are_those_whose_spending_reaches_a_strict_months_available(
    months: dict[int, MonthBudget],
) -> None:
    # Given any year; When one more yen is spent in each month in turn
    marked = linked(months)
    strict = {n for n, m in months.items() if m.limit is not None and m.strict}
    for number in range(1, 13):
        moved = {
            n
            for n, left in lefts(spend(months, {number: 1})).items()
            if n in strict and n != number and left != lefts(months)[n]
        }
        # Then it reaches another strict month only from a linked month, and a strict month that a
        # carry reaches is itself linked
        if moved:
            assert number in marked and moved <= marked


@settings(deadline=None)
@given(years, st.integers(1, 12), st.integers(1, 50_000))
def test_spending_is_refused_exactly_when_it_leaves_a_strict_month_over(
    months: dict[int, MonthBudget], number: int, more: int
) -> None:
    # Given any year; When `more` is spent in one month
    after = spend(months, {number: more})
    found = overdrawn(months, after)
    before_left, after_left = lefts(months), lefts(after)
    over = [n for n in sorted(after_left) if months[n].strict and after_left[n] < 0 and after_left[n] < before_left[n]]
    # Then it is refused naming the first strict month it leaves over, with what that month had left
    if not over:
        assert found is None
        return
    assert found is not None and found.month == over[0]
    assert (found.left, found.needed) == (before_left[over[0]], before_left[over[0]] - after_left[over[0]])
    # And a refund never is
    assert overdrawn(months, spend(months, {number: -more})) is None


def test_an_edit_of_january_that_would_leave_a_later_strict_month_over_names_that_month() -> None:
    # Given January and February rolling over unspent into a strict March of 1,000 with 20,500 spent
    months = {
        1: MonthBudget(10_000, 0, rollover=True),
        2: MonthBudget(10_000, 0, rollover=True),
        3: MonthBudget(1_000, 20_500, strict=True),
    }
    # Then January, February and March are linked
    assert linked(months) == {1, 2, 3}
    # When 600 more is spent in January: March, with 500 left, is named
    found = overdrawn(months, spend(months, {1: 600}))
    assert found is not None and (found.month, found.left, found.needed, found.available) == (3, 500, 600, 20_400)
    # And 500 fits exactly
    assert overdrawn(months, spend(months, {1: 500})) is None


def test_a_budgets_own_month_may_be_set_below_what_is_spent() -> None:
    months = {1: MonthBudget(10_000, 9_000, strict=True)}
    lowered = {1: MonthBudget(5_000, 9_000, strict=True)}
    assert overdrawn(months, lowered, exempt=1) is None
    assert overdrawn(months, lowered) is not None


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
