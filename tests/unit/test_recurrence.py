"""The schedule of recurring slips (pure): rules, month ends, Japanese business days, and the
promise that the preview shows exactly what a run posts."""

from __future__ import annotations

import datetime as dt
import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from kakeibo import jobs
from kakeibo.core import recurrence
from kakeibo.core.recurrence import Occurrence, Rule

D = dt.date.fromisoformat


def dates(rule: Rule, n: int = 100, shift: recurrence.Shift = "none") -> list[str]:
    return [o.date.isoformat() for o in itertools.islice(recurrence.occurrences(rule, shift), n)]


def test_monthly_on_the_31st_is_the_last_day_of_shorter_months() -> None:
    rule = Rule("monthly", D("2026-01-31"), by_month_day=(31,), count=4)
    assert dates(rule) == ["2026-01-31", "2026-02-28", "2026-03-31", "2026-04-30"]


def test_last_day_of_february_in_a_leap_year() -> None:
    rule = Rule("monthly", D("2028-01-01"), by_month_day=(recurrence.LAST_DAY,), count=3)
    assert dates(rule) == ["2028-01-31", "2028-02-29", "2028-03-31"]


def test_yearly_29_february_is_the_28th_in_common_years() -> None:
    rule = Rule("yearly", D("2028-02-29"), count=3)
    assert dates(rule) == ["2028-02-29", "2029-02-28", "2030-02-28"]


def test_weekly_on_weekdays_every_other_week() -> None:
    # 2026-11-02 is a Monday
    rule = Rule("weekly", D("2026-11-04"), interval=2, by_weekday=(0, 2), until=D("2026-11-30"))
    assert dates(rule) == ["2026-11-04", "2026-11-16", "2026-11-18", "2026-11-30"]


def test_daily_interval_and_until_inclusive() -> None:
    assert dates(Rule("daily", D("2026-11-28"), interval=2, until=D("2026-12-02"))) == [
        "2026-11-28",
        "2026-11-30",
        "2026-12-02",
    ]


def test_count_counts_scheduled_occurrences_from_start() -> None:
    # the 27th of November 2026 is before start: not scheduled, not counted
    rule = Rule("monthly", D("2026-11-28"), by_month_day=(27,), count=2)
    assert dates(rule) == ["2026-12-27", "2027-01-27"]


def test_rent_on_the_27th_moves_to_the_previous_business_day() -> None:
    rule = Rule("monthly", D("2026-11-01"), by_month_day=(27,), count=3)
    got = list(recurrence.occurrences(rule, "previous_business_day"))
    assert got == [
        Occurrence(D("2026-11-27"), D("2026-11-27")),  # Friday
        Occurrence(D("2026-12-27"), D("2026-12-25")),  # Sunday -> Friday
        Occurrence(D("2027-01-27"), D("2027-01-27")),
    ]


def test_a_holiday_shift_crosses_the_month_and_year_boundary() -> None:
    # 2027-01-01 (元日) is a Friday: the previous business day is 2026-12-31
    rule = Rule("monthly", D("2027-01-01"), count=1)
    assert list(recurrence.occurrences(rule, "previous_business_day")) == [Occurrence(D("2027-01-01"), D("2026-12-31"))]
    # and across Golden Week forward: 2026-05-02 (Sat) .. 05-06 (振替休日) -> 05-07
    rule = Rule("monthly", D("2026-05-02"), count=1)
    assert list(recurrence.occurrences(rule, "next_business_day")) == [Occurrence(D("2026-05-02"), D("2026-05-07"))]


def test_business_days_know_japanese_public_holidays() -> None:
    assert not recurrence.is_business_day(D("2026-11-23"))  # 勤労感謝の日, a Monday
    assert not recurrence.is_business_day(D("2026-09-22"))  # 国民の休日
    assert recurrence.is_business_day(D("2026-11-24"))


def test_slip_ids_derive_from_recurrence_and_scheduled_date_only() -> None:
    a = recurrence.occurrence_slip_id("R1", D("2026-12-27"))
    assert a == recurrence.occurrence_slip_id("R1", D("2026-12-27"))
    assert len(a) == 26 and a.isalnum()
    assert a != recurrence.occurrence_slip_id("R1", D("2027-01-27"))
    assert a != recurrence.occurrence_slip_id("R2", D("2026-12-27"))


def test_the_schedule_fires_for_the_ledgers_date() -> None:
    # 00:05 in Tokyo is 15:05 UTC the day before: the run is for Tokyo's day
    assert jobs.scheduled_day({"scheduled_time": "2026-11-26T15:05:00Z"}) == D("2026-11-27")
    assert jobs.scheduled_day({"scheduled_time": "2026-11-26T14:59:00Z"}) == D("2026-11-26")
    assert jobs.scheduled_day({"scheduled_time": "not a time"}) is None


# ---- properties ------------------------------------------------------------------------------

starts = st.dates(min_value=D("2000-01-01"), max_value=D("2090-12-31"))
shifts = st.sampled_from(["none", "previous_business_day", "next_business_day"])


@st.composite
def rules(draw: st.DrawFn) -> Rule:
    freq = draw(st.sampled_from(["daily", "weekly", "monthly", "yearly"]))
    start = draw(starts)
    weekdays: tuple[int, ...] = ()
    month_days: tuple[int, ...] = ()
    if freq == "weekly" and draw(st.booleans()):
        weekdays = tuple(draw(st.lists(st.integers(0, 6), min_size=1, max_size=7)))
    if freq in ("monthly", "yearly") and draw(st.booleans()):
        month_days = tuple(draw(st.lists(st.sampled_from([*range(1, 32), -1]), min_size=1, max_size=4)))
    until = count = None
    if draw(st.booleans()):
        until = start + dt.timedelta(days=draw(st.integers(0, 3000)))
    else:
        count = draw(st.integers(1, 60))
    return Rule(freq, start, draw(st.integers(1, 4)), weekdays, month_days, until, count)


@settings(deadline=None, max_examples=200)
@given(rules(), shifts)
def test_occurrences_are_sorted_unique_bounded_and_counted(rule: Rule, shift: recurrence.Shift) -> None:
    got = list(itertools.islice(recurrence.occurrences(rule, shift), 2000))
    scheduled = [o.scheduled for o in got]
    assert scheduled == sorted(set(scheduled))
    assert all(rule.start <= day for day in scheduled)
    if rule.until is not None:
        assert all(day <= rule.until for day in scheduled)
    if rule.count is not None:
        assert len(got) == rule.count
    posted = [o.date for o in got]
    assert posted == sorted(posted)  # shifting keeps the order
    for o in got:
        if shift == "none":
            assert o.date == o.scheduled
        else:
            assert recurrence.is_business_day(o.date)
            assert (o.date <= o.scheduled) if shift == "previous_business_day" else (o.date >= o.scheduled)
            # and it is the nearest one: every day it skipped is a weekend day or a holiday
            low, high = sorted((o.date, o.scheduled))
            skipped = [low + dt.timedelta(days=i) for i in range((high - low).days + 1)]
            assert not any(recurrence.is_business_day(day) for day in skipped if day != o.date)


@settings(deadline=None, max_examples=200)
@given(rules(), shifts, st.integers(0, 800), st.integers(1, 5))
def test_the_preview_shows_what_runs_post(rule: Rule, shift: recurrence.Shift, span: int, runs: int) -> None:
    # Given a recurrence run several times, each up to a later day (as the daily job does)
    until = rule.start + dt.timedelta(days=span)
    posted: list[Occurrence] = []
    after = None
    for n in range(1, runs + 1):
        day = rule.start - dt.timedelta(days=7) + (until - rule.start + dt.timedelta(days=7)) * n // runs
        for occurrence in recurrence.due(rule, shift, day, after=after):
            posted.append(occurrence)
            after = occurrence.scheduled
    # Then together they posted exactly what the preview shows up to the last day, once each
    shown = list(recurrence.preview(rule, shift, rule.start - dt.timedelta(days=7), until))
    assert posted == shown


def test_the_local_daily_run_is_at_five_past_midnight_in_tokyo() -> None:
    from kakeibo.local.__main__ import seconds_to_next_run

    # 2026-11-26 15:04 UTC is 00:04 in Tokyo: one minute to go
    assert seconds_to_next_run(dt.datetime(2026, 11, 26, 15, 4, tzinfo=dt.UTC)) == 60
    # 00:05 itself: the next is tomorrow's
    assert seconds_to_next_run(dt.datetime(2026, 11, 26, 15, 5, tzinfo=dt.UTC)) == 86400
