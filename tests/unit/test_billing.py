"""Credit-card billing cycles, pure: closing dates clamped to short months, periods that cover every
day once, payments shifted onto Japanese business days (even into the next year), offsets of two."""

from __future__ import annotations

import dataclasses
import datetime as dt
import itertools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kakeibo.core import billing
from kakeibo.core.billing import Billing, cycle, cycle_of, cycles, payment_slip_id
from kakeibo.core.recurrence import LAST_DAY, is_business_day

DAYS = st.one_of(st.integers(1, 31), st.just(LAST_DAY))
BILLINGS = st.builds(
    Billing,
    closing_day=DAYS,
    payment_day=DAYS,
    payment_month_offset=st.sampled_from([1, 2]),
    shift=st.sampled_from(["none", "previous_business_day", "next_business_day"]),
)
MONTHS = st.tuples(st.integers(1990, 2090), st.integers(1, 12))


@settings(deadline=None)
@given(BILLINGS, MONTHS, st.integers(1, 30))
def test_consecutive_cycles_cover_every_day_once(terms: Billing, start: tuple[int, int], n: int) -> None:
    # Given n consecutive cycles
    year, month = start
    last_index = year * 12 + month - 1 + n
    found = cycles(terms, f"{year:04d}-{month:02d}", f"{last_index // 12:04d}-{last_index % 12 + 1:02d}")
    # Then each begins the day after the one before closed, and closes in its own month
    assert len(found) == n + 1
    for before, after in itertools.pairwise(found):
        assert after.period_from == before.closing_date + dt.timedelta(days=1)
    for c in found:
        assert c.closing_date.strftime("%Y-%m") == c.month
        assert c.period_from <= c.closing_date


@settings(deadline=None)
@given(BILLINGS, st.dates(dt.date(1990, 2, 1), dt.date(2090, 12, 31)))
def test_the_cycle_of_a_day_is_the_one_whose_period_holds_it(terms: Billing, day: dt.date) -> None:
    found = cycle_of(terms, day)
    assert found.period_from <= day <= found.closing_date


@settings(deadline=None)
@given(BILLINGS, MONTHS)
def test_the_payment_is_in_the_offset_month_then_on_a_business_day(terms: Billing, month: tuple[int, int]) -> None:
    found = cycle(terms, *month)
    index = month[0] * 12 + month[1] - 1 + terms.payment_month_offset
    assert (found.scheduled_payment.year, found.scheduled_payment.month) == (index // 12, index % 12 + 1)
    if terms.shift == "none":
        assert found.payment_date == found.scheduled_payment
    else:
        assert is_business_day(found.payment_date)
        later = terms.shift == "next_business_day"
        assert (
            (found.payment_date >= found.scheduled_payment)
            if later
            else (found.payment_date <= found.scheduled_payment)
        )


def test_the_31st_closes_on_the_last_day_of_short_months() -> None:
    terms = Billing(closing_day=31, payment_day=27)
    assert cycle(terms, 2026, 2).closing_date == dt.date(2026, 2, 28)
    assert cycle(terms, 2028, 2).closing_date == dt.date(2028, 2, 29)  # a leap year
    assert cycle(terms, 2026, 4).closing_date == dt.date(2026, 4, 30)
    # And the next cycle begins the day after: 1 March, 1 May
    assert cycle(terms, 2026, 3).period_from == dt.date(2026, 3, 1)
    assert cycle(terms, 2026, 5).period_from == dt.date(2026, 5, 1)


def test_last_and_a_29th_around_february() -> None:
    last = Billing(closing_day=LAST_DAY, payment_day=LAST_DAY)
    assert cycle(last, 2028, 1).scheduled_payment == dt.date(2028, 2, 29)
    assert cycle(last, 2027, 1).scheduled_payment == dt.date(2027, 2, 28)
    twenty_ninth = Billing(closing_day=29, payment_day=10)
    # the 29th of February 2027 does not exist: that cycle closes on the 28th, March's covers 1-29 March
    assert cycle(twenty_ninth, 2027, 2).closing_date == dt.date(2027, 2, 28)
    assert cycle(twenty_ninth, 2027, 3).period_from == dt.date(2027, 3, 1)
    assert cycle(twenty_ninth, 2028, 3).period_from == dt.date(2028, 3, 1)  # after 29 February 2028


def test_a_payment_shifted_over_new_year_is_debited_in_january() -> None:
    # Given a card closing on the 15th, paid on the last day of the next month, next business day
    terms = Billing(closing_day=15, payment_day=LAST_DAY, shift="next_business_day")
    # When its November 2028 cycle is paid: 31 December 2028 is a Sunday, 1 January a holiday
    found = cycle(terms, 2028, 11)
    # Then the payment is debited on Tuesday 2 January 2029
    assert found.scheduled_payment == dt.date(2028, 12, 31)
    assert found.payment_date == dt.date(2029, 1, 2)


def test_an_offset_of_two_months_and_a_previous_business_day() -> None:
    # Given closing at month end, paid on the 1st two months later, moved earlier off a weekend
    terms = Billing(closing_day=LAST_DAY, payment_day=1, payment_month_offset=2, shift="previous_business_day")
    found = cycle(terms, 2025, 12)
    # Then the December cycle is scheduled for 1 February 2026 (a Sunday), debited Friday 30 January
    assert found.scheduled_payment == dt.date(2026, 2, 1)
    assert found.payment_date == dt.date(2026, 1, 30)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"closing_day": 0, "payment_day": 27}, "closing_day"),
        ({"closing_day": 15, "payment_day": 32}, "payment_day"),
        ({"closing_day": 15, "payment_day": 27, "payment_month_offset": 3}, "payment_month_offset"),
    ],
)
def test_terms_outside_their_range_are_refused(fields: dict[str, int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Billing(**fields)  # type: ignore[arg-type]


def test_a_cycles_payment_has_one_identity_of_its_own() -> None:
    closing = dt.date(2026, 11, 15)
    assert payment_slip_id("visa", closing) == payment_slip_id("visa", closing)
    assert payment_slip_id("visa", closing) != payment_slip_id("visa", dt.date(2026, 12, 15))
    assert payment_slip_id("visa", closing) != payment_slip_id("jcb", closing)
    assert len(payment_slip_id("visa", closing)) == 26
    assert billing.payment_slip_id.__module__ == "kakeibo.core.billing"


@settings(deadline=None)
@given(BILLINGS, st.dates(dt.date(2000, 1, 1), dt.date(2090, 12, 31)))
def test_the_first_payment_is_the_first_debited_from_today_on(terms: Billing, today: dt.date) -> None:
    # When a card's billing is set today, with no payment posted yet
    first = billing.first_to_pay(terms, None, today)
    # Then its payment is today or later, and the cycle before it was debited before today
    assert first.payment_date >= today
    assert billing.preceding(terms, first).payment_date < today
    # And after a payment, the next is the cycle that follows it
    assert billing.first_to_pay(terms, first.closing_date, today) == billing.following(terms, first)


def _owed(charges: list[tuple[dt.date, int]], payments: dict[dt.date, tuple[dt.date, int]], day: dt.date) -> int:
    spent = sum(amount for when, amount in charges if when <= day)
    return spent - sum(amount for when, amount in payments.values() if when <= day)


@settings(deadline=None)
@given(
    BILLINGS,
    MONTHS,
    st.lists(st.tuples(st.integers(0, 400), st.integers(1, 20_000)), max_size=40),
)
def test_paying_every_cycle_its_amount_due_pays_each_charge_once(
    terms: Billing, start: tuple[int, int], moves: list[tuple[int, int]]
) -> None:
    # Given charges over a year from the first cycle's first day
    year, month = start
    months = cycles(terms, f"{year:04d}-{month:02d}", f"{year + 1:04d}-{month:02d}")
    first_day = months[0].period_from
    charges = [(first_day + dt.timedelta(days=offset), amount) for offset, amount in moves]
    # When each cycle's payment, in order, debits its amount due on its payment day
    payments: dict[dt.date, tuple[dt.date, int]] = {}
    for index, current in enumerate(months):
        known = months[: index + 1]
        owed = {c.closing_date: _owed(charges, payments, c.closing_date) for c in known}
        posted = {closing: billing.Payment(closing, when, amount) for closing, (when, amount) in payments.items()}
        due = billing.amounts_due(known, owed, posted, billing.Managed(months[0].closing_date))[current.closing_date]
        assert due >= 0
        payments[current.closing_date] = (current.payment_date, due)
    # Then everything charged up to the last closing was paid exactly once: neither more nor less,
    # and each cycle paid what its own period charged
    last = months[-1].closing_date
    assert sum(amount for _, amount in payments.values()) == sum(amount for when, amount in charges if when <= last)
    for current in months:
        own = sum(a for when, a in charges if current.period_from <= when <= current.closing_date)
        assert payments[current.closing_date][1] == own
    # And the amounts forecast before any payment was posted are the ones then paid
    forecast = billing.amounts_due(
        months, {c.closing_date: _owed(charges, {}, c.closing_date) for c in months}, {},
        billing.Managed(months[0].closing_date),
    )  # fmt: skip
    assert forecast == {closing: amount for closing, (_, amount) in payments.items()}


class _Card:
    """A card as the daily job sees it, kept in memory: its charges, the payment slips posted for it
    (by the closing date they pay) and its billing's bookkeeping, changed only through core/billing.py."""

    def __init__(self, rule: Billing, today: dt.date) -> None:
        self.today = today
        self.rule = rule
        self.next, self.managed, self.eras = billing.rebill(rule, today, None)
        self.paid_through: dt.date | None = None
        self.charges: list[list[Any]] = []  # [date, amount]
        self.payments: dict[dt.date, billing.Payment] = {}
        self.deleted: set[dt.date] = set()
        assert self.managed.outside_through is not None
        self.start = self.managed.outside_through + dt.timedelta(days=1)  # debts before were paid outside

    def owed(self, day: dt.date) -> int:
        spent = sum(amount for when, amount in self.charges if when <= day)
        return spent - sum(p.amount for p in self.payments.values() if p.date <= day)

    def rebill(self, rule: Billing) -> None:
        former = billing.Former(self.rule, self.managed, self.eras)
        self.rule = rule
        self.next, self.managed, self.eras = billing.rebill(rule, self.today, self.paid_through, former)

    def run(self, until: dt.date) -> None:
        """What the job does for one card: each cycle due by `until` in order, its payment posted
        once (a cycle whose payment slip exists, or existed, is never posted again)."""
        current = self.next
        while current.payment_date <= until:
            closing = current.closing_date
            if closing not in self.payments and closing not in self.deleted:
                everything = billing.with_lookback(self.rule, [current])
                known = billing.payment_closings(self.rule, everything, self.eras)
                due = billing.amounts_due(
                    everything,
                    {c.closing_date: self.owed(c.closing_date) for c in everything},
                    {x: p for x, p in self.payments.items() if x in known},
                    self.managed,
                    frozenset(x for x in self.deleted if x in known),
                )[closing]
                if due > 0:
                    paid_for = sum(p.amount for p in self.payments.values() if p.closing <= closing)
                    charged = sum(amount for when, amount in self.charges if when <= closing)
                    assert paid_for + due <= charged, "a payment paid for what was not yet charged"
                    self.payments[closing] = billing.Payment(closing, current.payment_date, due)
            self.paid_through = closing
            self.managed = dataclasses.replace(self.managed, paid_through=closing)
            current = billing.following(self.rule, current)
        self.next = current


STEPS = st.one_of(
    st.tuples(st.just("charge"), st.integers(-40, 90), st.integers(1, 9_999)),
    st.tuples(st.just("advance"), st.integers(1, 70), st.just(0)),
    st.tuples(st.just("rebill"), BILLINGS, st.just(0)),
    st.tuples(st.just("delete_payment"), st.integers(0, 50), st.just(0)),
    st.tuples(st.just("move_earlier"), st.integers(0, 50), st.integers(1, 60)),
)


@settings(deadline=None, max_examples=300)
@given(BILLINGS, st.dates(dt.date(2020, 1, 1), dt.date(2030, 12, 31)), st.lists(STEPS, max_size=30))
def test_any_billing_changes_payments_moves_and_deletes_pay_every_charge_once(
    rule: Billing, today: dt.date, steps: list[tuple[str, Any, int]]
) -> None:
    # Given a card whose billing is set today, and any sequence of charges (back-dated ones too),
    # days passing with the job running, billing changes, payments deleted and charges moved earlier
    card = _Card(rule, today)
    for step, value, amount in steps:
        if step == "charge":
            card.charges.append([max(card.start, card.today + dt.timedelta(days=value)), amount])
        elif step == "advance":
            card.today += dt.timedelta(days=value)
            card.run(card.today)  # (it checks that nothing is paid before it is charged)
        elif step == "rebill":
            card.rebill(value)
        elif step == "delete_payment" and card.payments:
            closing = sorted(card.payments)[value % len(card.payments)]
            del card.payments[closing]
            card.deleted.add(closing)
        elif step == "move_earlier" and card.charges:
            charge = card.charges[value % len(card.charges)]
            charge[0] = max(card.start, charge[0] - dt.timedelta(days=amount))
    # When time runs on past every charge and the job has run
    last = max([card.today, *(when for when, _ in card.charges)])
    card.today = last + dt.timedelta(days=200)
    card.run(card.today)
    # Then every charge was paid exactly once: the card owes nothing and is owed nothing
    assert card.owed(card.today) == 0
    assert sum(p.amount for p in card.payments.values()) == sum(amount for _, amount in card.charges)
