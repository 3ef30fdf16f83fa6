"""The forecast, pure (core/forecast.py): the running sum of its changes, the first shortfall, and
the days that come being what the daily job then posts — recurring slips shifted onto business days,
and card payments whose cycles close on any day (the 31st in February included)."""

from __future__ import annotations

import datetime as dt
import itertools
from dataclasses import dataclass, field

from hypothesis import example, given, settings
from hypothesis import strategies as st

from kakeibo.core import billing, forecast, points, posting, recurrence
from kakeibo.core.billing import Billing, Cycle, Managed, Payment
from kakeibo.core.forecast import Move, Recurring, Start
from kakeibo.core.recurrence import LAST_DAY

ACCOUNTS = ("bank", "cash", "card")
SHIFTS = st.sampled_from(["none", "previous_business_day", "next_business_day"])
DAYS = st.one_of(st.integers(1, 31), st.just(LAST_DAY))
TODAYS = st.dates(dt.date(2024, 1, 1), dt.date(2030, 12, 31))


def _slip(day: dt.date, account: str, amount: int, ref: str) -> Move:
    kind = "income" if amount > 0 else "expense"
    entry = posting.Entry(date=day.isoformat(), kind=kind, amount=abs(amount), account=account, category="x")
    return forecast.slip_move(ref, entry)


@st.composite
def _moves(draw: st.DrawFn, today: dt.date) -> list[Move]:
    found = []
    for n in range(draw(st.integers(0, 25))):
        day = today + dt.timedelta(days=draw(st.integers(0, 120)))
        amount = draw(st.integers(-50_000, 50_000).filter(bool))
        if draw(st.booleans()):
            found.append(_slip(day, draw(st.sampled_from(ACCOUNTS)), amount, f"s{n}"))
        else:  # a transfer
            source, target = draw(st.permutations(ACCOUNTS))[:2]
            entry = posting.Entry(day.isoformat(), "transfer", abs(amount), source, target)
            found.append(forecast.slip_move(f"t{n}", entry))
    return found


@settings(deadline=None)
@given(TODAYS, st.data())
def test_the_forecast_is_the_running_sum_of_its_changes(today: dt.date, data: st.DataObject) -> None:
    # Given balances at the end of today, floors, and slips dated ahead
    starts = {
        account: Start(data.draw(st.integers(-100_000, 100_000)), data.draw(st.none() | st.integers(0, 50_000)))
        for account in ACCOUNTS
    }
    moves = data.draw(_moves(today))
    # When they are projected
    found = forecast.project(starts, moves, today)
    for account, start in starts.items():
        projection = found[account]
        # Then each day's balance is the balance today plus every change up to that day, in date order,
        # each day holding the moves of that account on it
        ours = [m for m in moves if m.change_of(account) or any(a == account for a, _ in m.changes)]
        assert [d.date for d in projection.days] == sorted({m.on for m in ours})
        running = start.balance
        for day in projection.days:
            assert day.change == sum(m.change_of(account) for m in day.moves)
            assert sorted(day.moves, key=lambda m: m.ref) == sorted((m for m in ours if m.on == day.date),
                                                                    key=lambda m: m.ref)  # fmt: skip
            running += day.change
            assert day.balance == running == projection.balance_on(day.date)
        assert projection.final == start.balance + sum(m.change_of(account) for m in moves)
        # And the first shortfall is the first day below the floor (today when it is below already),
        # caused by that day's largest outflow
        short = projection.shortfall
        if start.floor is None:
            assert short is None
        elif start.balance < start.floor:
            assert short is not None and (short.date, short.cause) == (today, None)
        else:
            below = [d for d in projection.days if d.balance < start.floor]
            if not below:
                assert short is None
            else:
                assert short is not None and short.date == below[0].date and short.balance == below[0].balance
                assert short.cause is not None and short.cause in below[0].moves
                assert short.cause.change_of(account) == min(m.change_of(account) for m in below[0].moves)


RULES = st.one_of(
    st.builds(
        recurrence.Rule,
        freq=st.just("monthly"),
        start=st.dates(dt.date(2023, 6, 1), dt.date(2031, 6, 1)),
        interval=st.integers(1, 3),
        by_month_day=st.lists(DAYS, min_size=1, max_size=2).map(tuple),
        count=st.none() | st.integers(1, 20),
    ),
    st.builds(
        recurrence.Rule,
        freq=st.just("weekly"),
        start=st.dates(dt.date(2023, 6, 1), dt.date(2031, 6, 1)),
        interval=st.integers(1, 3),
        by_weekday=st.lists(st.integers(0, 6), min_size=1, max_size=3).map(tuple),
    ),
    st.builds(
        recurrence.Rule,
        freq=st.just("daily"),
        start=st.dates(dt.date(2023, 6, 1), dt.date(2031, 6, 1)),
        interval=st.integers(3, 40),
    ),
)


def _job_posts(rule: recurrence.Rule, shift: recurrence.Shift, posted: dt.date | None, until: dt.date) -> tuple[
    list[recurrence.Occurrence], dt.date | None
]:  # fmt: skip
    """What the daily job's run up to `until` posts of a recurrence, and how far it then is (the
    job's own loop: services/recurrences.run_recurrence)."""
    found = list(recurrence.due(rule, shift, until, after=posted))
    return found, found[-1].scheduled if found else posted


@settings(deadline=None)
@given(RULES, SHIFTS, TODAYS, st.integers(0, 100), st.integers(-60, 30), st.integers(1, 90_000))
def test_each_day_that_comes_is_what_the_daily_job_posts_of_a_recurrence(
    rule: recurrence.Rule, shift: recurrence.Shift, today: dt.date, days: int, since: int, amount: int
) -> None:
    # Given a recurrence the daily job has run up to some day before today (or never)
    posted: dt.date | None = None
    if since < 0:
        _, posted = _job_posts(rule, shift, None, today + dt.timedelta(days=since))
    until = today + dt.timedelta(days=days)
    changes = (("bank", -amount),)
    item = Recurring("r", rule, shift, posted, changes)
    # When the forecast is made today
    projection = forecast.forecast({"bank": Start(0, None)}, recurring=[item], today=today, until=until)["bank"]
    # Then, as the job runs each day from today on, the balance at the end of the day is the forecast's
    balance = 0
    for n in range(days + 1):
        day = today + dt.timedelta(days=n)
        made, posted = _job_posts(rule, shift, posted, day)
        assert all(o.date <= day for o in made)
        balance -= amount * len(made)
        assert projection.balance_on(day) == balance, day
        # And each occurrence is on the day the job posts it, dated its shifted date
        ours = [m for d in projection.days if d.date == day for m in d.moves]
        assert [(m.date, m.scheduled) for m in ours] == [(o.date, o.scheduled) for o in made]


# ---- cards ---------------------------------------------------------------------------------------


@dataclass
class Ledger:
    """A card and its bank as the daily job leaves them: slips (date, account, change) and the
    card's payments posted, with how far the job has got."""

    rule: Billing
    managed: Managed
    current: Cycle
    slips: list[tuple[dt.date, str, int]] = field(default_factory=list)
    payments: dict[dt.date, Payment] = field(default_factory=dict)

    def balance(self, account: str, day: dt.date) -> int:
        return sum(delta for date, acct, delta in self.slips if acct == account and date <= day)

    def owed(self, cycles: list[Cycle]) -> dict[dt.date, int]:
        return {c.closing_date: -self.balance("card", c.closing_date) for c in cycles}

    def run_card(self, day: dt.date) -> None:
        """The job's card payments up to `day` (services/card_payments.run_card with the statement's
        amount due: services/cards)."""
        while self.current.payment_date <= day:
            everything = billing.with_lookback(self.rule, [self.current])
            due = billing.amounts_due(everything, self.owed(everything), self.payments, self.managed)
            amount = due[self.current.closing_date]
            if amount > 0:
                date = self.current.payment_date
                self.slips += [(date, "bank", -amount), (date, "card", amount)]
                self.payments[self.current.closing_date] = Payment(self.current.closing_date, date, amount)
            self.managed = Managed(self.managed.billing_from, self.managed.outside_through, self.current.closing_date)
            self.current = billing.following(self.rule, self.current)


BILLINGS = st.builds(
    Billing, closing_day=DAYS, payment_day=DAYS, payment_month_offset=st.sampled_from([1, 2]), shift=SHIFTS
)


CHARGES = st.lists(st.tuples(st.integers(0, 320), st.integers(-30_000, 5_000).filter(bool)), max_size=12)


@settings(deadline=None, max_examples=60)
@given(BILLINGS, TODAYS, st.integers(0, 120), st.integers(0, 200), CHARGES, DAYS, st.integers(1, 20_000))
@example(
    Billing(closing_day=31, payment_day=27, payment_month_offset=1, shift="next_business_day"),
    dt.date(2027, 2, 10), 40, 120, [(0, -12_000), (20, -3_000), (45, 1_000), (70, -8_000)], 31, 980,
).via("a cycle closing on the 31st, in February (the 28th)")  # fmt: skip
def test_each_card_payment_is_what_the_daily_job_then_posts(
    rule: Billing,
    today: dt.date,
    set_before: int,
    days: int,
    charges: list[tuple[int, int]],
    on: int,
    charge: int,
) -> None:
    # Given a card whose billing was set some days ago, charges and refunds made since (some dated
    # ahead), a recurring charge on it, and the daily job run every day up to yesterday
    set_on = today - dt.timedelta(days=set_before)
    first, managed, _ = billing.rebill(rule, set_on, None)
    ledger = Ledger(rule, managed, first)
    until = today + dt.timedelta(days=days)
    ledger.slips = [(set_on + dt.timedelta(days=min(n, set_before + days)), "card", delta) for n, delta in charges]
    monthly = recurrence.Rule("monthly", set_on, by_month_day=(on,))
    posted: dt.date | None = None
    ahead = [_slip(d, acct, delta, f"c{n}") for n, (d, acct, delta) in enumerate(ledger.slips) if d > today]
    for n in range(set_before):
        day = set_on + dt.timedelta(days=n)
        made, posted = _job_posts(monthly, "none", posted, day)
        ledger.slips += [(o.date, "card", -charge) for o in made]
        ledger.run_card(day)
    # When the forecast is made today, from what the card's statements know
    start = {a: Start(ledger.balance(a, today), None) for a in ("bank", "card")}
    cycles = forecast.cycles_to_pay(rule, ledger.current, until)
    everything = billing.with_lookback(rule, cycles) if cycles else [ledger.current]
    card = forecast.Card("card", "bank", rule, ledger.current, tuple(everything), ledger.owed(everything),
                         dict(ledger.payments), ledger.managed)  # fmt: skip
    item = Recurring("sub", monthly, "none", posted, (("card", -charge),))
    found = forecast.forecast(start, slips=ahead, recurring=[item], cards=[card], today=today, until=until)
    # Then, as the job runs each day from today on, each balance at the end of the day is the forecast's
    for n in range(days + 1):
        day = today + dt.timedelta(days=n)
        made, posted = _job_posts(monthly, "none", posted, day)
        ledger.slips += [(o.date, "card", -charge) for o in made]
        ledger.run_card(day)
        for account in ("bank", "card"):
            assert found[account].balance_on(day) == ledger.balance(account, day), (account, day)


@settings(deadline=None)
@given(st.lists(st.tuples(st.integers(0, 60), st.integers(1, 1_000), st.none() | st.integers(0, 90)), max_size=8),
       TODAYS, st.integers(0, 120))  # fmt: skip
def test_points_lapse_on_the_day_after_they_expire(
    earnings: list[tuple[int, int, int | None]], today: dt.date, days: int
) -> None:
    # Given points earned before today, some with an expiry, none spent
    events: list[points.Event] = []
    for n, (ago, amount, lasts) in enumerate(earnings):
        earned = today - dt.timedelta(days=ago)
        expires = None if lasts is None else (earned + dt.timedelta(days=lasts)).isoformat()
        events.append(points.Earning(f"e{n}", earned.isoformat(), amount, expires))
    until = today + dt.timedelta(days=days)
    plan = points.plan(events, today=until.isoformat())
    # When the forecast is made
    moves = list(forecast.lapse_moves("pts", plan, today, until))
    found = forecast.project({"pts": Start(sum(e.amount for e in events), None)}, moves, today)["pts"]
    # Then what lapses by until is every lot expiring before until, whole, on the day after (today for
    # those past already)
    for lot_of, (_, amount, lasts) in zip(events, earnings, strict=True):
        assert isinstance(lot_of, points.Earning)
        lapsing = [m for m in moves if m.ref == lot_of.id]
        if lasts is None or lot_of.expires_on is None or lot_of.expires_on >= until.isoformat():
            assert lapsing == []
        else:
            (move,) = lapsing
            assert move.change_of("pts") == -amount
            assert move.on == max(today, dt.date.fromisoformat(lot_of.expires_on) + dt.timedelta(days=1))
    assert found.final == sum(e.amount for e in events) + sum(m.change_of("pts") for m in moves)
    # And every lapse is on its day, the days in order (the order of one day's lapses is the forecast's)
    placed = list(itertools.chain.from_iterable(d.moves for d in found.days))
    assert [m.on for m in placed] == sorted(m.on for m in moves)
    assert sorted(placed, key=lambda m: (m.on, m.ref)) == sorted(moves, key=lambda m: (m.on, m.ref))
