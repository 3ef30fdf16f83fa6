"""The months ahead: every balance projected day by day from what the ledger holds. Pure (no boto3,
no HTTP).

From today's balances (at the end of today) it adds, each on the day it changes the balances:
- the slips dated after today, as stored;
- the recurring slips' occurrences the daily job is to post (`recurrence.due`, the one function the
  job posts by, business-day shifts included): those scheduled after the last one posted, up to the
  end of the window. One that posts on or before today and is not posted yet (the job has not run,
  or it failed) changes the balances today;
- each card's payments the job is to post (`billing.amounts_due` of the card's cycles, the one rule
  the job's statements use), on the payment date, from the bank the card is paid from: what the card
  owes at each closing date as stored, plus the recurring charges (and refunds) still to be posted
  that fall on or before it — so a charge falls into the cycle its date is in, and a payment already
  posted, or posted and deleted, is never projected again;
- the points that lapse (ポイント失効) by the end of the window, dated the day after they expire.

Per account: each day something changes, with the day's change and the balance at its end, and the
first day the balance falls below the account's floor (`low_balance`, else 0; a credit card owes,
so only its `low_balance` is a floor) with what causes it: the day's largest outflow.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from kakeibo.core import billing, posting, recurrence
from kakeibo.core.billing import Billing, Cycle, Managed, Payment
from kakeibo.core.points import Plan

MoveKind = Literal["slip", "recurrence", "card_payment", "lapse"]
MAX_CYCLES = 40  # cycles of one card a forecast looks at: a year ahead and a card far behind


@dataclass(frozen=True, slots=True)
class Move:
    """One thing that changes balances: a slip that is (or will be) written.

    `date` is the slip's own date (which card cycle it falls in); `on` the day it changes the
    forecast's balances (its date, or today for one due already and not posted yet)."""

    date: dt.date
    on: dt.date
    kind: MoveKind
    changes: tuple[tuple[str, int], ...]  # (account, what it adds to its balance, in its unit)
    ref: str  # the slip, the recurrence, the card or the lot (the earning's slip)
    memo: str | None = None
    scheduled: dt.date | None = None  # a recurrence's scheduled date, a card cycle's closing date

    def change_of(self, account: str) -> int:
        return sum(delta for acct, delta in self.changes if acct == account)


def balance_changes(entry: posting.Entry) -> tuple[tuple[str, int], ...]:
    """What a slip adds to each account's balance: the write path's own effects (core.posting)."""
    found = posting.effects(entry)
    return tuple(
        sorted(
            (key.account, deltas["balance"])
            for key, deltas in found.items()
            if isinstance(key, posting.AccountItem) and deltas.get("balance")
        )
    )


def template_changes(slip: Mapping[str, Any]) -> tuple[tuple[str, int], ...]:
    """What a recurring slip's template adds to each balance (its date and categories aside)."""
    entry = posting.Entry(
        date="2000-01-01",
        kind=slip["kind"],
        amount=int(slip["amount"]),
        account=str(slip["account"]),
        to_account=slip.get("to_account"),
        to_amount=None if slip.get("to_amount") is None else int(slip["to_amount"]),
    )
    return balance_changes(entry)


def slip_move(slip_id: str, entry: posting.Entry, memo: str | None = None) -> Move:
    day = dt.date.fromisoformat(entry.date)
    return Move(day, day, "slip", balance_changes(entry), slip_id, memo)


@dataclass(frozen=True, slots=True)
class Recurring:
    """A recurrence as the daily job sees it: its schedule and how far its posts have got."""

    id: str
    rule: recurrence.Rule
    shift: recurrence.Shift
    posted_through: dt.date | None
    changes: tuple[tuple[str, int], ...]
    memo: str | None = None


def recurring_moves(item: Recurring, today: dt.date, until: dt.date) -> Iterator[Move]:
    """The occurrences the daily job posts by `until` (those after the last posted)."""
    for occurrence in recurrence.due(item.rule, item.shift, until, after=item.posted_through):
        yield Move(
            occurrence.date,
            max(occurrence.date, today),
            "recurrence",
            item.changes,
            item.id,
            item.memo,
            occurrence.scheduled,
        )


@dataclass(frozen=True)
class Card:
    """A card with billing, and what its statements know: `cycles` are consecutive, the LOOKBACK
    cycles before `first` included, through the last cycle paid in the window; `owed[closing]` what
    the card owes at the end of each closing date as stored (future-dated slips included)."""

    id: str
    pay_from: str
    rule: Billing
    first: Cycle  # the next cycle the daily job pays
    cycles: tuple[Cycle, ...]
    owed: Mapping[dt.date, int]
    payments: Mapping[dt.date, Payment] = field(default_factory=dict)
    managed: Managed = field(default_factory=Managed)
    deleted: frozenset[dt.date] = frozenset()


def cycles_to_pay(rule: Billing, first: Cycle, until: dt.date) -> list[Cycle]:
    """The cycles from `first` whose payments are debited by `until` (at most MAX_CYCLES)."""
    found: list[Cycle] = []
    current = first
    while current.payment_date <= until and len(found) < MAX_CYCLES:
        found.append(current)
        current = billing.following(rule, current)
    return found


def card_moves(card: Card, projected: Iterable[Move], today: dt.date, until: dt.date) -> Iterator[Move]:
    """The card's payments the daily job posts by `until`: each cycle's amount due (what the job's
    statement says at its payment date) once the `projected` slips on the card (not stored yet)
    are in its balances, from `pay_from` to the card, unless its payment slip exists (posted, or
    posted and deleted) or nothing is owed."""
    added = sorted((move.date, move.change_of(card.id)) for move in projected if move.change_of(card.id))
    owed = {
        closing: owing - sum(delta for day, delta in added if day <= closing) for closing, owing in card.owed.items()
    }
    due = billing.amounts_due(list(card.cycles), owed, dict(card.payments), card.managed, card.deleted)
    for current in cycles_to_pay(card.rule, card.first, until):
        closing = current.closing_date
        if closing in card.payments or closing in card.deleted or closing not in due:
            continue
        amount = due[closing]
        if amount <= 0:
            continue
        yield Move(
            current.payment_date,
            max(current.payment_date, today),
            "card_payment",
            ((card.pay_from, -amount), (card.id, amount)),
            card.id,
            f"カード引き落とし {closing.isoformat()}",
            closing,
        )


def lapse_moves(account: str, plan: Plan, today: dt.date, until: dt.date) -> Iterator[Move]:
    """What the daily job posts as ポイント失効 by `until`: per lot the points left at its expiry (the
    plan replayed with `until` as its today), dated the day after."""
    for lot in plan.due(until.isoformat()):
        day = dt.date.fromisoformat(lot.lapses_on or until.isoformat())
        yield Move(day, max(day, today), "lapse", ((account, -lot.pending),), lot.id, "ポイント失効", None)


# ---- the forecast ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Start:
    """An account at the end of today."""

    balance: int
    floor: int | None  # the balance below which it falls short (None: never, a card without low_balance)


@dataclass(frozen=True, slots=True)
class Day:
    date: dt.date
    change: int
    balance: int
    moves: tuple[Move, ...]


@dataclass(frozen=True, slots=True)
class Shortfall:
    date: dt.date
    balance: int
    floor: int
    cause: Move | None  # None: the balance is below the floor already today, before anything moves


@dataclass(frozen=True, slots=True)
class Projection:
    account: str
    balance: int  # at the end of today
    days: tuple[Day, ...]
    shortfall: Shortfall | None

    @property
    def final(self) -> int:
        return self.days[-1].balance if self.days else self.balance

    def balance_on(self, day: dt.date) -> int:
        """The projected balance at the end of `day`."""
        balance = self.balance
        for found in self.days:
            if found.date > day:
                break
            balance = found.balance
        return balance


def floor_of(kind: str, low_balance: int | None) -> int | None:
    """The balance an account must not fall below: its low_balance, else 0 (a card: none)."""
    if low_balance is not None:
        return low_balance
    return None if kind == "credit" else 0


def project(starts: Mapping[str, Start], moves: Iterable[Move], today: dt.date) -> dict[str, Projection]:
    """Each account's days, from its balance at the end of today and the moves (by their `on` day)."""
    by_account: dict[str, dict[dt.date, list[Move]]] = {account: defaultdict(list) for account in starts}
    for move in sorted(moves, key=_order):
        for account in dict.fromkeys(acct for acct, _ in move.changes):
            if account in by_account:
                by_account[account][move.on].append(move)
    out = {}
    for account, start in starts.items():
        balance, days, shortfall = start.balance, [], None
        if start.floor is not None and balance < start.floor:
            shortfall = Shortfall(today, balance, start.floor, None)
        for day in sorted(by_account[account]):
            found = tuple(by_account[account][day])
            change = sum(move.change_of(account) for move in found)
            balance += change
            days.append(Day(day, change, balance, found))
            if shortfall is None and start.floor is not None and balance < start.floor:
                cause = min(found, key=lambda move: (move.change_of(account), _order(move)))
                shortfall = Shortfall(day, balance, start.floor, cause)
        out[account] = Projection(account, start.balance, tuple(days), shortfall)
    return out


def _order(move: Move) -> tuple[dt.date, str, dt.date, str]:
    return (move.on, move.kind, move.date, move.ref)


def forecast(
    starts: Mapping[str, Start],
    *,
    slips: Sequence[Move] = (),
    recurring: Sequence[Recurring] = (),
    cards: Sequence[Card] = (),
    lapses: Sequence[Move] = (),
    today: dt.date,
    until: dt.date,
) -> dict[str, Projection]:
    """Every account's projection up to `until`: the stored slips dated after today, the recurring
    occurrences, the cards' payments (with the recurring charges that fall into their cycles) and
    the lapses."""
    projected = [move for item in recurring for move in recurring_moves(item, today, until)]
    payments = [move for card in cards for move in card_moves(card, projected, today, until)]
    window = [move for move in (*slips, *lapses) if today <= move.on <= until]
    return project(starts, [*window, *projected, *payments], today)
