"""Credit-card billing cycles (締め日 / 引き落とし日): when a cycle closes, which days it covers and on
which day its payment is debited. Pure (no boto3, no HTTP); business days are the one calendar the
recurring slips use (`recurrence.shifted`).

- A cycle is named by the month it closes in. It closes on `closing_day` of that month (`LAST_DAY`:
  the month's last day; a day the month does not have, such as the 31st of a 30-day month or the
  29th-31st of February, is clamped to the month's last day). The closing date is never shifted.
- Its period is the days after the previous cycle's closing date, up to and including its own:
  consecutive cycles cover every day once.
- Its payment is scheduled on `payment_day` of the month `payment_month_offset` (1 or 2) months after
  the closing month, clamped likewise, then moved onto a Japanese business day by `shift` — which may
  carry it into another month (a payment due on Sunday 31 December is debited on 2 January).
- A cycle's payment has one identity, derived from (card, closing date): whatever posts it twice,
  it is one slip.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
from dataclasses import dataclass

from kakeibo.recurrence import LAST_DAY, Shift, month_day, shifted

OFFSETS = (1, 2)


@dataclass(frozen=True)
class Billing:
    closing_day: int  # 1..31, or LAST_DAY
    payment_day: int  # 1..31, or LAST_DAY
    payment_month_offset: int = 1
    shift: Shift = "none"

    def __post_init__(self) -> None:
        for name in ("closing_day", "payment_day"):
            day = getattr(self, name)
            if day != LAST_DAY and not 1 <= day <= 31:
                raise ValueError(f"{name} must be 1-31 or the last day")
        if self.payment_month_offset not in OFFSETS:
            raise ValueError("payment_month_offset must be 1 or 2")


@dataclass(frozen=True)
class Cycle:
    month: str  # YYYY-MM, the month it closes in
    period_from: dt.date
    closing_date: dt.date
    scheduled_payment: dt.date  # payment_day of the payment month, before the shift
    payment_date: dt.date


def _add_months(year: int, month: int, months: int) -> tuple[int, int]:
    index = year * 12 + (month - 1) + months
    return index // 12, index % 12 + 1


def closing_date(billing: Billing, year: int, month: int) -> dt.date:
    return month_day(year, month, billing.closing_day)


def cycle(billing: Billing, year: int, month: int) -> Cycle:
    """The cycle that closes in `year`-`month`."""
    closes = closing_date(billing, year, month)
    before = closing_date(billing, *_add_months(year, month, -1))
    scheduled = month_day(*_add_months(year, month, billing.payment_month_offset), billing.payment_day)
    return Cycle(
        month=f"{year:04d}-{month:02d}",
        period_from=before + dt.timedelta(days=1),
        closing_date=closes,
        scheduled_payment=scheduled,
        payment_date=shifted(scheduled, billing.shift),
    )


def cycles(billing: Billing, first: str, last: str) -> list[Cycle]:
    """The cycles closing in the months `first`..`last` (YYYY-MM, inclusive), in order."""
    year, month = int(first[:4]), int(first[5:7])
    end = (int(last[:4]), int(last[5:7]))
    found = []
    while (year, month) <= end:
        found.append(cycle(billing, year, month))
        year, month = _add_months(year, month, 1)
    return found


def cycle_of(billing: Billing, day: dt.date) -> Cycle:
    """The cycle whose period holds `day`: the first that closes on or after it."""
    current = cycle(billing, day.year, day.month)
    if day <= current.closing_date:
        return current
    return cycle(billing, *_add_months(day.year, day.month, 1))


def payment_slip_id(card: str, closing: dt.date) -> str:
    """The id of the slip that pays the cycle of `card` closing on `closing`: 26 characters, like
    generated ids, from (card, closing date) only, namespaced apart from every other derived id."""
    digest = hashlib.sha256(f"card-payment\n{card}\n{closing.isoformat()}".encode()).digest()
    return base64.b32encode(digest).decode().rstrip("=")[:26]


def following(billing: Billing, current: Cycle) -> Cycle:
    """The cycle after `current`."""
    return cycle(billing, *_add_months(current.closing_date.year, current.closing_date.month, 1))


def preceding(billing: Billing, current: Cycle) -> Cycle:
    """The cycle before `current`."""
    return cycle(billing, *_add_months(current.closing_date.year, current.closing_date.month, -1))


def first_to_pay(billing: Billing, paid_through: dt.date | None, today: dt.date) -> Cycle:
    """The first cycle the daily job is to pay: the one after the last paid (its closing date
    `paid_through`), or, on a card whose payments were never posted here, the first whose payment is
    debited today or later (earlier cycles were paid before the card's billing was set)."""
    if paid_through is not None:
        return cycle_of(billing, paid_through + dt.timedelta(days=1))
    current = cycle_of(billing, today)
    while (earlier := preceding(billing, current)).payment_date >= today:
        current = earlier
    while current.payment_date < today:
        current = following(billing, current)
    return current


# Cycles read before the first asked for, so that payments still outstanding at its closing date
# are known: a payment is debited at most two months and a business-day shift after its closing.
LOOKBACK = 3


def amounts_due(
    cycles: list[Cycle], owed: dict[dt.date, int], posted: dict[dt.date, int], managed_from: dt.date | None = None
) -> dict[dt.date, int]:
    """Each cycle's amount due (by closing date), `cycles` in order.

    `owed[closing]` is what the card owes at the end of that day (minus its balance then: charges
    less refunds and every payment dated by then); `posted[closing]` the amount of a cycle's payment
    slip where one is posted; `managed_from` the closing date of the first cycle whose payment is
    posted here (earlier ones were paid before, outside: on their payment date, as far as is known).

    A cycle owes what the card owes at its closing date, less what earlier cycles' payments that are
    not in that balance will settle: a posted payment dated after the closing date (its amount), a
    payment of a cycle paid here that is not posted yet, whatever its date (what that cycle owes),
    and a payment made outside after the closing date (what that cycle owes). So a slip moved into a
    cycle after its payment is owed with the next, nothing is owed twice, and cycles still to come
    forecast what their payments will be. Never below zero (a card in credit owes nothing)."""
    due: dict[dt.date, int] = {}
    for index, current in enumerate(cycles):
        outstanding = 0
        for earlier in cycles[:index]:
            after = earlier.payment_date > current.closing_date
            if earlier.closing_date in posted:
                outstanding += posted[earlier.closing_date] if after else 0
            elif after or (managed_from is not None and earlier.closing_date >= managed_from):
                outstanding += due[earlier.closing_date]
        due[current.closing_date] = max(0, owed[current.closing_date] - outstanding)
    return due
