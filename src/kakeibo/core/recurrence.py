"""Recurring slips: when each occurrence is scheduled and on which day it posts. Pure (no boto3, no HTTP).

A rule yields *scheduled* dates in order; `shift` moves each onto a Japanese business day (not a
Saturday, Sunday or public holiday, per the `jpholiday` library), giving the date the slip posts on.

- daily: every `interval` days from `start`.
- weekly: on `by_weekday` (default: start's weekday) of every `interval`-th week (weeks begin on
  Monday; the first is start's week).
- monthly: on `by_month_day` (default: start's day) of every `interval`-th month from start's month.
  `-1` or `"last"` is the month's last day; a day the month does not have (the 31st of a 30-day
  month, the 29th-31st of February) is clamped to the month's last day.
- yearly: on start's month and day (or `by_month_day`) every `interval` years; 29 February is the
  28th in common years.
- Dates before `start` are never scheduled; `until` (inclusive) or `count` (the number of scheduled
  occurrences, counted from start) ends the rule.

An occurrence is named by its scheduled date; its slip id is derived from (recurrence, scheduled
date), so whatever runs it twice, and however the shift moves it, it is one slip.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Literal

Freq = Literal["daily", "weekly", "monthly", "yearly"]
Shift = Literal["none", "previous_business_day", "next_business_day"]
WEEKDAYS = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")
LAST_DAY = -1
LAST_YEAR = 2998  # scheduling stops here, so a shifted date stays within the years slips accept


@dataclass(frozen=True)
class Rule:
    freq: Freq
    start: dt.date
    interval: int = 1
    by_weekday: tuple[int, ...] = ()  # 0 = Monday
    by_month_day: tuple[int, ...] = ()  # 1..31, or -1 for the last day
    until: dt.date | None = None
    count: int | None = None


@dataclass(frozen=True)
class Occurrence:
    scheduled: dt.date  # the date the rule names
    date: dt.date  # the date the slip posts on (scheduled, shifted onto a business day)


# ---- business days ---------------------------------------------------------------------------


@cache
def _holidays(year: int) -> frozenset[dt.date]:
    import jpholiday  # noqa: PLC0415 - loaded on first use: only shifted schedules need it

    return frozenset(day for day, _name in jpholiday.year_holidays(year))


def is_business_day(day: dt.date) -> bool:
    return day.weekday() < 5 and day not in _holidays(day.year)


def shifted(day: dt.date, shift: Shift) -> dt.date:
    if shift == "none":
        return day
    step = dt.timedelta(days=-1 if shift == "previous_business_day" else 1)
    while not is_business_day(day):
        day += step
    return day


# ---- schedule --------------------------------------------------------------------------------


def month_day(year: int, month: int, day: int) -> dt.date:
    """Day `day` of the month (LAST_DAY: its last day; a day it does not have: its last day)."""
    last = ((dt.date(year + month // 12, month % 12 + 1, 1)) - dt.timedelta(days=1)).day
    return dt.date(year, month, last if day == LAST_DAY else min(day, last))


def _candidates(rule: Rule) -> Iterator[dt.date]:
    """Scheduled dates in order, from the rule's first period on (some may precede start)."""
    start = rule.start
    if rule.freq == "daily":
        for n in itertools.count():
            yield start + dt.timedelta(days=n * rule.interval)
    elif rule.freq == "weekly":
        weekdays = sorted(set(rule.by_weekday or (start.weekday(),)))
        monday = start - dt.timedelta(days=start.weekday())
        for n in itertools.count():
            week = monday + dt.timedelta(weeks=n * rule.interval)
            for weekday in weekdays:
                yield week + dt.timedelta(days=weekday)
    elif rule.freq == "monthly":
        days = rule.by_month_day or (start.day,)
        for n in itertools.count():
            index = start.month - 1 + n * rule.interval
            year, month = start.year + index // 12, index % 12 + 1
            yield from sorted({month_day(year, month, d) for d in days})
    else:
        days = rule.by_month_day or (start.day,)
        for n in itertools.count():
            year = start.year + n * rule.interval
            yield from sorted({month_day(year, start.month, d) for d in days})


def scheduled_dates(rule: Rule) -> Iterator[dt.date]:
    """Every scheduled date of the rule, in order: within [start, until], at most `count`."""
    produced = 0
    for day in _candidates(rule):
        if day.year > LAST_YEAR or (rule.until is not None and day > rule.until):
            return
        if rule.count is not None and produced >= rule.count:
            return
        if day < rule.start:
            continue
        produced += 1
        yield day


def occurrences(rule: Rule, shift: Shift, *, after: dt.date | None = None) -> Iterator[Occurrence]:
    """The occurrences in order, those scheduled after `after` only (if given).

    Shifting is monotonic (a later scheduled date never posts earlier), so posting dates are in
    order too and "everything due up to D" is a prefix of this sequence."""
    for day in scheduled_dates(rule):
        if after is None or day > after:
            yield Occurrence(day, shifted(day, shift))


def due(rule: Rule, shift: Shift, until: dt.date, *, after: dt.date | None = None) -> Iterator[Occurrence]:
    """The occurrences a run up to `until` posts: those posting on or before it."""
    for occurrence in occurrences(rule, shift, after=after):
        if occurrence.date > until:
            return
        yield occurrence


def next_occurrence(rule: Rule, shift: Shift, *, after: dt.date | None = None) -> Occurrence | None:
    return next(occurrences(rule, shift, after=after), None)


def preview(rule: Rule, shift: Shift, date_from: dt.date, date_to: dt.date) -> Iterator[Occurrence]:
    """The occurrences that post between `date_from` and `date_to` (inclusive)."""
    for occurrence in occurrences(rule, shift):
        if occurrence.date > date_to:
            return
        if occurrence.date >= date_from:
            yield occurrence


def occurrence_slip_id(recurrence_id: str, scheduled: dt.date) -> str:
    """The id of the slip an occurrence posts: 26 characters, like generated ids, from
    (recurrence, scheduled date) only, so neither a shift nor an edit of the rule changes it."""
    digest = hashlib.sha256(f"recurrence\n{recurrence_id}\n{scheduled.isoformat()}".encode()).digest()
    return base64.b32encode(digest).decode().rstrip("=")[:26]
