"""Pure rules of budgets that carry over (繰越) and the pace of a month (1日あたり).

No boto3, no HTTP. A month's budget may roll over: what is left of it (negative when overspent) is
carried into the next month's budget of the same category, within a calendar year:

    available(M) = limit(M) + carried(M)
    carried(M)   = available(M-1) - spent(M-1)  when M-1 has a budget that rolls over, else 0

January always starts from 0. A month without a budget neither carries nor receives. A strict
month receives no carry (its available is its limit, the figure its slip transactions hold it to);
it may still carry what is left of it onwards.
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
        carried = 0 if month.strict else carry_out
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
