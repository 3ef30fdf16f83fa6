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

from kakeibo.core.recurrence import LAST_DAY, Shift, month_day, shifted

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


@dataclass(frozen=True)
class Payment:
    """A payment slip posted for the cycle closing on `closing`, under whichever billing the card had
    then, as it stands now (the user may have moved or changed it)."""

    closing: dt.date
    date: dt.date
    amount: int


@dataclass(frozen=True)
class Era:
    """A billing the card had before its current one, and the closing dates of the cycles whose
    payments were posted under it (`first`..`last`)."""

    billing: Billing
    first: dt.date
    last: dt.date

    def closings(self, lo: dt.date, hi: dt.date) -> list[dt.date]:
        """The closing dates paid under this billing that fall in lo..hi."""
        lo, hi = max(lo, self.first), min(hi, self.last)
        if lo > hi:
            return []
        return [c.closing_date for c in cycles(self.billing, lo.strftime("%Y-%m"), hi.strftime("%Y-%m"))
                if lo <= c.closing_date <= hi]  # fmt: skip


@dataclass(frozen=True)
class Managed:
    """Which of the current billing's cycles are paid here.

    `billing_from`: the closing date of the first cycle of the current billing whose payment the job
    posts (earlier ones were settled by payments posted under former billings, counted by their own
    dates). `outside_through`: the day up to which the card's debts were paid outside, before its
    first billing was set (on their payment dates, as far as is known); None: not known.
    `paid_through`: the closing date of the last cycle the job has dealt with (posted, or found
    nothing to pay); a cycle up to it that has no payment slip settles nothing."""

    billing_from: dt.date | None = None
    outside_through: dt.date | None = None
    paid_through: dt.date | None = None


def amounts_due(
    cycles: list[Cycle],
    owed: dict[dt.date, int],
    payments: dict[dt.date, Payment],
    managed: Managed,
    deleted: frozenset[dt.date] = frozenset(),
) -> dict[dt.date, int]:
    """Each cycle's amount due (by closing date), `cycles` (of the current billing) in order.

    `owed[closing]` is what the card owes at the end of that day (minus its balance then: charges
    less refunds and every payment dated by then); `payments` the payment slips posted, by the closing
    date they pay, whatever billing posted them; `deleted` the closing dates whose payment slip was
    posted and then deleted (or undone).

    A cycle owes what the card owes at its closing date, less what is not in that balance and yet
    settles it: a payment for an earlier closing date dated after this one (its amount, whichever
    billing posted it), the payment of an earlier cycle paid here that the job has not reached yet,
    whatever its date (what that cycle owes), and a payment made outside after the closing date (what that cycle
    owes). A deleted payment settles nothing: its debt stays in the balance and the next payment pays
    it. So a slip moved into a cycle after its payment is owed with the next, nothing is owed twice,
    a billing change neither pays again nor forgets what was paid, and cycles still to come forecast
    what their payments will be. Never below zero (a card in credit owes nothing)."""
    due: dict[dt.date, int] = {}
    for index, current in enumerate(cycles):
        closing = current.closing_date
        outstanding = sum(p.amount for p in payments.values() if p.closing < closing < p.date)
        for earlier in cycles[:index]:
            if earlier.closing_date in payments or earlier.closing_date in deleted:
                continue
            ours = managed.billing_from is not None and earlier.closing_date >= managed.billing_from
            ours = ours and (managed.paid_through is None or earlier.closing_date > managed.paid_through)
            outside = managed.outside_through is None or earlier.closing_date <= managed.outside_through
            if ours or (outside and earlier.payment_date > closing):
                outstanding += due[earlier.closing_date]
        due[closing] = max(0, owed[closing] - outstanding)
    return due


@dataclass(frozen=True)
class Former:
    """A card's billing as it was before a change: its rule, which cycles of it were paid here, and
    the billings it had before it."""

    billing: Billing
    managed: Managed
    eras: tuple[Era, ...] = ()


# Former billings a card remembers: a payment is debited at most about three months after its
# closing, so only the last few can hold payments that count for the cycles still to pay.
MAX_ERAS = 12


def rebill(
    rule: Billing, today: dt.date, paid_through: dt.date | None, former: Former | None = None
) -> tuple[Cycle, Managed, tuple[Era, ...]]:
    """A card's billing set (or changed) today: the first cycle the job pays under it, which cycles
    of it are paid here, and the former billings whose posted payments still count (by their dates).
    The billing being replaced becomes one of them for the closing dates paid under it; what was
    paid outside before the first billing stays as the first billing said."""
    first = first_to_pay(rule, paid_through, today)
    eras = list(former.eras) if former else []
    if former is not None and paid_through is not None:
        begun = former.managed.billing_from
        if begun is not None and begun <= paid_through:
            eras.append(Era(former.billing, begun, paid_through))
    outside = former.managed.outside_through if former else None
    managed = Managed(
        first.closing_date, outside if outside is not None else preceding(rule, first).closing_date, paid_through
    )
    return first, managed, tuple(eras[-MAX_ERAS:])


def with_lookback(rule: Billing, wanted: list[Cycle]) -> list[Cycle]:
    """`wanted` (consecutive cycles) preceded by the LOOKBACK cycles whose payments may still be
    outstanding at the first one's closing date."""
    earlier: list[Cycle] = []
    current = wanted[0]
    for _ in range(LOOKBACK):
        current = preceding(rule, current)
        earlier.insert(0, current)
    return [*earlier, *wanted]


def payment_closings(rule: Billing, everything: list[Cycle], eras: tuple[Era, ...] | list[Era]) -> set[dt.date]:
    """The closing dates whose payments can count for `everything` (a run of cycles with its
    lookback): those cycles' own, the LOOKBACK before them (whose payments may be dated after the
    first one's closing date), and those paid under former billings in that span."""
    span = with_lookback(rule, everything)
    lo, hi = span[0].period_from, span[-1].closing_date
    closings = {c.closing_date for c in span}
    for era in eras:
        closings.update(era.closings(lo, hi))
    return closings
