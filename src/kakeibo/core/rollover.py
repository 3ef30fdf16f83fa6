"""Pure rules of budgets that carry over (繰越) and the pace of a month (1日あたり).

No boto3, no HTTP. A month's budget may roll over: what is left of it (negative when overspent) is
carried into the next month's budget of the same category, within a calendar year:

    available(M) = limit(M) + carried(M)
    carried(M)   = available(M-1) - spent(M-1)  when M-1 has a budget that rolls over, else 0

January always starts from 0. A month without a budget neither carries nor receives. A strict
month takes its carry like any other: it is held to its `available`, never to its limit alone.

Within a run of budget months that roll over (from the run's first month `s` to a month M), what is
left of M is the sum of what is left of each month's own limit:

    left(M) = available(M) - spent(M) = sum over k = s..M of (limit(k) - spent(k))

so a change of spending in month K moves the left of every month of its run from K on by as much,
and nothing before K. A strict month M is only held to more than its own item when its run starts
before it: the months s..M are then `linked` (their spending reaches M through the carry).
"""

from __future__ import annotations

import calendar
import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass

MONTHS = range(1, 13)


@dataclass(frozen=True, slots=True)
class MonthBudget:
    """One month of a category: its budget (None: none set), what was spent, whether it rolls over and
    whether it is strict."""

    limit: int | None
    spent: int = 0
    rollover: bool = False
    strict: bool = False


@dataclass(frozen=True, slots=True)
class Carry:
    """A budget month's carry-in and what it makes available."""

    carried: int
    available: int

    def left(self, spent: int) -> int:
        return self.available - spent


def carries(months: Mapping[int, MonthBudget]) -> dict[int, Carry]:
    """Carried and available for every month (1-12) of one category's year that has a budget. One
    pass over the months in order: each month costs its predecessor's figures, never a re-walk."""
    out: dict[int, Carry] = {}
    carry_out = 0  # what the previous month hands on (0 unless it had a budget that rolls over)
    for number in MONTHS:
        month = months.get(number)
        if month is None or month.limit is None:
            carry_out = 0
            continue
        carried = carry_out
        figures = Carry(carried=carried, available=month.limit + carried)
        out[number] = figures
        carry_out = figures.left(month.spent) if month.rollover else 0
    return out


def days_left(today: dt.date) -> int:
    """Days of today's month from today to its last day, today included."""
    return calendar.monthrange(today.year, today.month)[1] - today.day + 1


def per_day(available: int, spent: int, today: dt.date) -> int:
    """What may be spent per day for the rest of today's month (today included), floored: Zaim's
    pace. Negative when the month is already over its budget."""
    return (available - spent) // days_left(today)


def lefts(months: Mapping[int, MonthBudget]) -> dict[int, int]:
    """What is left (available - spent, negative when over) of every budget month of the year."""
    return {number: carry.left(months[number].spent) for number, carry in carries(months).items()}


def run_start(months: Mapping[int, MonthBudget], number: int) -> int:
    """The first month of the run of rolled-over budgets that carries into `number` (itself when the
    month before it has no budget or does not roll over)."""
    start = number
    while start > 1:
        before = months.get(start - 1)
        if before is None or before.limit is None or not before.rollover:
            break
        start -= 1
    return start


def linked(months: Mapping[int, MonthBudget]) -> frozenset[int]:
    """The budget months whose spending reaches a strict month through the carry: for every strict
    month whose run starts before it, the run's months up to it (itself included). A strict month
    outside every such run is held to its own item alone (its available is its limit)."""
    out: set[int] = set()
    for number, month in months.items():
        if month.limit is None or not month.strict:
            continue
        start = run_start(months, number)
        if start < number:
            out.update(range(start, number + 1))
    return frozenset(out)


def spend(months: Mapping[int, MonthBudget], more: Mapping[int, int]) -> dict[int, MonthBudget]:
    """The year with `more[M]` more spent in month M (negative: less)."""
    out = dict(months)
    for number, amount in more.items():
        base = out.get(number, MonthBudget(limit=None))
        out[number] = MonthBudget(base.limit, base.spent + amount, base.rollover, base.strict)
    return out


@dataclass(frozen=True, slots=True)
class Overdrawn:
    """A strict month a change would leave over what it makes available: what it has left before the
    change and how much the change takes from it."""

    month: int
    left: int
    needed: int
    available: int


def overdrawn(
    before: Mapping[int, MonthBudget], after: Mapping[int, MonthBudget], *, exempt: int | None = None
) -> Overdrawn | None:
    """The first strict month (strict after the change) whose left falls by the change and ends
    below 0, if any. A month already over that the change leaves as it is (or improves) is not
    refused; `exempt` is a budget's own month when the budget itself changes (setting a limit below
    what is spent is allowed: it only refuses what comes next)."""
    left_before, left_after = lefts(before), lefts(after)
    figures = carries(after)
    for number in sorted(left_after):
        month = after[number]
        if number == exempt or not month.strict or number not in left_before:
            continue
        now, then = left_after[number], left_before[number]
        if now < 0 and now < then:
            return Overdrawn(month=number, left=then, needed=then - now, available=figures[number].available)
    return None
