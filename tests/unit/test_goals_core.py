"""Savings goals, pure (core/goals.py): the monthly amount is the least that reaches the target."""

from __future__ import annotations

import datetime as dt

from hypothesis import given, settings
from hypothesis import strategies as st

from kakeibo.core import goals

DAYS = st.dates(dt.date(2024, 1, 1), dt.date(2032, 12, 31))


@settings(deadline=None)
@given(st.integers(1, 10**9), st.integers(-(10**6), 10**9), DAYS, DAYS, st.none() | st.integers(-(10**6), 2 * 10**9))
def test_the_monthly_amount_is_the_least_that_reaches_the_target(
    target: int, saved: int, today: dt.date, by: dt.date, projected: int | None
) -> None:
    found = goals.progress(target, saved, by, today, projected)
    # Then what remains is what the target lacks, never below zero
    assert found.remaining == max(0, target - saved)
    left = found.months_left
    assert left is not None and found.monthly_needed is not None
    if by < today:
        # a day passed: all that remains is needed now, and the track is whether it is reached
        assert left == 0 and found.monthly_needed == found.remaining
        assert found.on_track is (found.remaining == 0)
    else:
        # this month and by's both count; that many months of the amount reach the target, one less short
        assert left == (by.year - today.year) * 12 + by.month - today.month + 1 >= 1
        assert found.monthly_needed * left >= found.remaining > (found.monthly_needed - 1) * left
        assert found.on_track is (found.remaining == 0 if projected is None else projected >= target)


@given(st.integers(1, 10**9), st.integers(0, 10**9), DAYS)
def test_a_goal_without_a_day_has_no_monthly_amount(target: int, saved: int, today: dt.date) -> None:
    found = goals.progress(target, saved, None, today, None)
    assert (found.months_left, found.monthly_needed, found.on_track) == (None, None, None)
