"""Pure rules of point lots (ポイント): what each earning of a points account holds, which lots a
spend takes (the earliest-expiring first), and what lapses when.

No boto3, no HTTP. A points account's history is a set of events keyed by slip id: earnings (an
income, a transfer in, the opening balance; each a lot, with an optional `expires_on`), spends (an
expense, a transfer out) and the lapses the daily job posted (ポイント失効: an expense naming its
lot). `plan` replays them in date order; it depends on the set alone, never on the order the slips
were written or edited in, so a slip moved or edited re-plans every lot it touches.

- A lot is usable through its `expires_on`; what is left of it at the end of that day lapses, dated
  the day after (`lapses_on`). Lots without `expires_on` never lapse.
- On one day, earnings come first, then spends (in slip id order), then the day's expiries.
- A spend takes the open lots expiring first (no expiry last; then the earliest earned); it cannot
  take the part of a lot a posted lapse has already taken. What the open lots cannot cover is
  `uncovered`: a points account never spends points it does not hold on the spend's date.
- A lot's posted lapses never exceed what it held: more is `overlapsed` (its earning deleted or
  shrunk after the lapse was posted). Spends short only of what posted lapses took would leave a lot
  with less than its posted lapse too (`lapsed_lot`).
So every point earned is spent, lapsed (posted), about to lapse (`pending`) or still open — once.
"""

from __future__ import annotations

import bisect
import datetime as dt
import heapq
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

OPENING = "opening"  # the id of the lot an opening balance makes
NEVER = "9999-12-31"  # what sorts after every expiry date


class Earning(NamedTuple):  # named tuples: an account's events are read and replayed on every write
    id: str
    date: str
    amount: int
    expires_on: str | None = None


class Spending(NamedTuple):
    id: str
    date: str
    amount: int


class Lapse(NamedTuple):
    """A posted ポイント失効: `amount` of the lot `lot` (its earning's id)."""

    id: str
    lot: str
    amount: int


Event = Earning | Spending | Lapse


@dataclass(frozen=True, slots=True)
class Lot:
    """One earning as the plan leaves it: spent + lapsed + pending + open == amount."""

    id: str
    earned_on: str
    amount: int
    expires_on: str | None
    spent: int = 0
    lapsed: int = 0  # posted lapses
    pending: int = 0  # left at expiry and not posted yet (the daily job posts it)
    open: int = 0  # not expired, not spent

    @property
    def lapses_on(self) -> str | None:
        """The day what is left lapses (the day after `expires_on`)."""
        return None if self.expires_on is None else _day_after(self.expires_on)


@dataclass(frozen=True, slots=True)
class Plan:
    lots: tuple[Lot, ...]
    takes: Mapping[str, tuple[tuple[str, int], ...]] = field(default_factory=dict)  # spend -> (lot, points)
    uncovered: tuple[tuple[str, int], ...] = ()  # (spend id, points its date's open lots could not cover)
    overlapsed: tuple[str, ...] = ()  # lots whose posted lapses exceed what they held

    @property
    def ok(self) -> bool:
        return not self.uncovered and not self.overlapsed

    def lot(self, lot_id: str) -> Lot | None:
        return next((lot for lot in self.lots if lot.id == lot_id), None)

    def due(self, until: str) -> list[Lot]:
        """The lots with points to lapse on or before `until` (the daily job's work), earliest first."""
        return [lot for lot in self._by_lapse() if lot.pending > 0 and (lot.lapses_on or NEVER) <= until]

    def next_due(self) -> str | None:
        """The first day a lapse is to be posted (what stays open now may lapse later), or None."""
        days = [lot.lapses_on for lot in self.lots if lot.pending > 0 or (lot.open > 0 and lot.expires_on)]
        return min((d for d in days if d), default=None)

    def expiring(self, today: str, until: str) -> list[Lot]:
        """The lots with points left that lapse by `until` (lapsed before today but not posted yet
        included), earliest first."""
        return [
            lot
            for lot in self._by_lapse()
            if (lot.pending > 0 or lot.open > 0) and lot.lapses_on is not None and lot.lapses_on <= until
        ]

    def _by_lapse(self) -> list[Lot]:
        return sorted(self.lots, key=lambda lot: (lot.lapses_on or NEVER, lot.earned_on, lot.id))


@lru_cache(maxsize=4096)  # every plan asks it of every lot: each expiry date is parsed once
def _day_after(day: str) -> str:
    return (dt.date.fromisoformat(day) + dt.timedelta(days=1)).isoformat()


def plan(events: Iterable[Event], *, today: str = NEVER) -> Plan:
    """Replay the account's events. Lots expiring after `today` are open; those expiring before it
    have their remainder `pending` (or lapsed, as far as posted)."""
    return planned(events, today=today).plan


def lapsed_lot(events: Iterable[Event]) -> str | None:
    """Why the account's spends are not covered, when it is a posted lapse: the lot whose posted
    lapses, with what the spends would take from it were nothing lapsed, exceed what it held (the
    change would leave it with less than its posted lapse: ポイント失効 is the lot's, and the spends
    are short only of the points it took). None when the spends are short of points whatever was
    lapsed (they were not held on the spends' dates)."""
    events = list(events)
    posted: dict[str, int] = {}
    for event in events:
        if isinstance(event, Lapse):
            posted[event.lot] = posted.get(event.lot, 0) + event.amount
    if not posted:
        return None
    unlapsed = plan(e for e in events if not isinstance(e, Lapse))
    if unlapsed.uncovered:
        return None
    return next((lot.id for lot in unlapsed.lots if lot.spent + posted.get(lot.id, 0) > lot.amount), None)


@dataclass(frozen=True, slots=True)
class Planned:
    """A plan with where its replay ended, so that an event dated after everything planned continues
    it (`then`) instead of replaying the whole history. Never changed in place: `then` makes a new one."""

    plan: Plan
    today: str
    amount: Mapping[str, int]  # lot -> points earned
    posted: Mapping[str, int]  # lot -> points of its posted lapses
    spent: Mapping[str, int]  # lot -> points spent from it
    usable: tuple[tuple[str, str, str], ...]  # the heap of lots a next spend may take, every earning in it
    at: Mapping[str, int]  # lot -> its place in plan.lots
    earned_until: str  # the date of the latest earning ("" none)
    last_spend: tuple[str, str]  # (date, id) of the spend planned last (("", "") none)

    def then(self, event: Event) -> Planned | None:
        """The plan with `event` added, as `plan` would make it, when the event continues this one: a
        new spend ordered after every spend (date, then slip id) and dated on or after every earning,
        or a new earning dated after every spend. None otherwise (plan everything again)."""
        if event.id in self.amount or event.id in self.posted or event.id in self.plan.takes:
            return None
        if isinstance(event, Spending):
            if (event.date, event.id) <= self.last_spend or event.date < self.earned_until:
                return None
            return self._spent(event)
        if isinstance(event, Earning):
            if event.date <= self.last_spend[0]:
                return None
            return self._earned(event)
        return None  # a posted lapse changes what earlier spends could take

    def _spent(self, spend: Spending) -> Planned:
        usable, spent = list(self.usable), dict(self.spent)
        taken, need = _take(usable, self.amount, self.posted, spent, spend)
        lots = list(self.plan.lots)
        for lot_id, _ in taken:
            at = self.at[lot_id]
            old = lots[at]
            earning = Earning(old.id, old.earned_on, old.amount, old.expires_on)
            lots[at] = _lot(earning, spent=spent[lot_id], posted=self.posted, today=self.today)
        uncovered = (*self.plan.uncovered, (spend.id, need)) if need else self.plan.uncovered
        made = Plan(tuple(lots), {**self.plan.takes, spend.id: taken}, uncovered, self.plan.overlapsed)
        return Planned(
            made, self.today, self.amount, self.posted, spent, tuple(usable), self.at, self.earned_until,
            (spend.date, spend.id),
        )  # fmt: skip

    def _earned(self, earning: Earning) -> Planned:
        usable = list(self.usable)
        heapq.heappush(usable, (earning.expires_on or NEVER, earning.date, earning.id))
        lots = list(self.plan.lots)
        where = bisect.bisect(lots, (earning.date, earning.id), key=lambda lot: (lot.earned_on, lot.id))
        lot = _lot(earning, spent=0, posted=self.posted, today=self.today)
        lots.insert(where, lot)
        amount, spent = {**self.amount, earning.id: earning.amount}, {**self.spent, earning.id: 0}
        made = Plan(tuple(lots), self.plan.takes, self.plan.uncovered, self.plan.overlapsed)
        at = {lot.id: n for n, lot in enumerate(lots)}
        return Planned(
            made, self.today, amount, self.posted, spent, tuple(usable), at, max(self.earned_until, earning.date),
            self.last_spend,
        )  # fmt: skip


def planned(events: Iterable[Event], *, today: str = NEVER) -> Planned:
    """`plan`, with where its replay ended (what `Planned.then` continues)."""
    events = list(events)
    earnings = sorted((e for e in events if isinstance(e, Earning)), key=lambda e: (e.date, e.id))
    spends = sorted((e for e in events if isinstance(e, Spending)), key=lambda e: (e.date, e.id))
    lapses = [e for e in events if isinstance(e, Lapse)]
    posted: dict[str, int] = {}
    for lapse in lapses:
        posted[lapse.lot] = posted.get(lapse.lot, 0) + lapse.amount
    amount = {e.id: e.amount for e in earnings}
    spent = dict.fromkeys(amount, 0)
    takes: dict[str, tuple[tuple[str, int], ...]] = {}
    uncovered: list[tuple[str, int]] = []
    # the lots earned so far that may still be taken, the one a spend takes first on top: a lot that
    # expired before a spend's date, or is taken whole, is done for every later spend too
    usable: list[tuple[str, str, str]] = []
    waiting = iter(earnings)
    coming = next(waiting, None)
    for spend in spends:
        while coming is not None and coming.date <= spend.date:
            heapq.heappush(usable, (coming.expires_on or NEVER, coming.date, coming.id))
            coming = next(waiting, None)
        takes[spend.id], need = _take(usable, amount, posted, spent, spend)
        if need:
            uncovered.append((spend.id, need))
    while coming is not None:  # a spend after everything may take every lot
        heapq.heappush(usable, (coming.expires_on or NEVER, coming.date, coming.id))
        coming = next(waiting, None)
    lots = tuple(_lot(e, spent=spent[e.id], posted=posted, today=today) for e in earnings)
    overlapsed = sorted(lot for lot, total in posted.items() if total > amount.get(lot, 0))
    return Planned(
        Plan(lots, takes, tuple(uncovered), tuple(overlapsed)),
        today,
        amount,
        posted,
        spent,
        tuple(usable),
        {lot.id: n for n, lot in enumerate(lots)},
        earnings[-1].date if earnings else "",
        (spends[-1].date, spends[-1].id) if spends else ("", ""),
    )


def _take(
    usable: list[tuple[str, str, str]],
    amount: Mapping[str, int],
    posted: Mapping[str, int],
    spent: dict[str, int],
    spend: Spending,
) -> tuple[tuple[tuple[str, int], ...], int]:
    """What `spend` takes from the usable lots (the heap, popped of the lots done for it and every
    later spend; `spent` updated), and what they cannot cover."""
    need, taken = spend.amount, []
    while need and usable:
        expires, _, lot = usable[0]
        free = amount[lot] - min(posted.get(lot, 0), amount[lot]) - spent[lot]
        if expires < spend.date or free <= 0:
            heapq.heappop(usable)
            continue
        part = min(free, need)
        spent[lot] += part
        need -= part
        taken.append((lot, part))
    return tuple(taken), need


def _lot(earning: Earning, *, spent: int, posted: Mapping[str, int], today: str) -> Lot:
    """One earning's lot, as `spent` and the posted lapses leave it on `today`."""
    left = earning.amount - spent
    done = min(posted.get(earning.id, 0), left)
    expired = earning.expires_on is not None and earning.expires_on < today
    return Lot(
        earning.id,
        earning.date,
        earning.amount,
        earning.expires_on,
        spent=spent,
        lapsed=done,
        pending=left - done if expired else 0,
        open=0 if expired else left - done,
    )


# A lots item keeps each event as a short text under its slip id (one item per points account).


def encode(event: Event) -> str:
    if isinstance(event, Earning):
        return f"E|{event.date}|{event.amount}|{event.expires_on or ''}"
    if isinstance(event, Spending):
        return f"S|{event.date}|{event.amount}"
    return f"L|{event.lot}|{event.amount}"


@lru_cache(maxsize=65_536)  # an account's events are read again on every write: each is decoded once
def decode(event_id: str, text: str) -> Event:
    kind, first, amount, *rest = text.split("|")
    if kind == "E":
        return Earning(event_id, first, int(amount), rest[0] or None if rest else None)
    if kind == "S":
        return Spending(event_id, first, int(amount))
    if kind == "L":
        return Lapse(event_id, first, int(amount))
    raise ValueError(f"not a lot event: {text!r}")


def events_of(stored: Mapping[str, str]) -> list[Event]:
    return [decode(key, value) for key, value in sorted(stored.items())]


def slip_events(slip: Mapping[str, object], account: str) -> list[Event]:
    """What one slip (as stored: id, date, kind, amount, account, to_account, to_amount, expires_on,
    lapse_of) is to the points account `account`."""
    slip_id, date, kind = str(slip["id"]), str(slip["date"]), str(slip["kind"])
    amount = int(str(slip["amount"]))
    if kind == "transfer":
        if slip.get("account") == account:
            return [Spending(slip_id, date, amount)]
        if slip.get("to_account") == account:
            arrived = slip.get("to_amount")
            return [Earning(slip_id, date, amount if arrived is None else int(str(arrived)))]
        return []
    if slip.get("account") != account:
        return []
    if kind == "income":
        expires = slip.get("expires_on")
        return [Earning(slip_id, date, amount, str(expires) if expires else None)]
    if slip.get("lapse_of"):
        return [Lapse(slip_id, str(slip["lapse_of"]), amount)]
    return [Spending(slip_id, date, amount)]


def opening_event(opening: int) -> list[Event]:
    """An opening balance is a lot that never lapses, earned before everything."""
    return [Earning(OPENING, "0000-00-00", opening)] if opening > 0 else []


# ---- compaction: the lots item keeps what a write can still change --------------------------------


def _event_dates(events: Iterable[Event]) -> dict[str, str]:
    return {e.id: e.date for e in events if not isinstance(e, Lapse)}


def _foldable(events: list[Event], before: str) -> tuple[set[str], dict[str, str]]:
    """The lots that may be folded out: spent and lapsed whole by slips dated before `before`, and
    never taken by one spend together with a lot that stays (the largest such set); with the day
    each closed."""
    full = plan(events)
    dates = _event_dates(events)
    closed_at: dict[str, str] = {lot.id: lot.earned_on for lot in full.lots}  # the last day anything took from it
    for spend, takes in full.takes.items():
        for taken, _ in takes:
            closed_at[taken] = max(closed_at[taken], dates[spend])
    lapses_on = {lot.id: lot.lapses_on or NEVER for lot in full.lots}
    for e in events:
        if isinstance(e, Lapse) and e.lot in closed_at:  # a posted lapse is a slip dated the day it lapses
            closed_at[e.lot] = max(closed_at[e.lot], lapses_on[e.lot])
    folded = {
        lot.id
        for lot in full.lots
        if lot.spent + lot.lapsed == lot.amount and lot.id not in full.overlapsed and closed_at[lot.id] < before
    }
    mixed = True
    while mixed:  # a spend that took from a lot that stays keeps every lot it took from
        mixed = False
        for takes in full.takes.values():
            lots = {lot for lot, _ in takes}
            if lots & folded and lots - folded:
                folded -= lots
                mixed = True
    return folded, closed_at


def compaction_point(events: Iterable[Event], *, before: str = NEVER) -> str | None:
    """The day C the events may be folded at, or None when nothing folds: C is the day after the
    last of the foldable lots closed (only lots closed before `before` are looked at). Every
    foldable lot was spent and lapsed whole by slips dated before C, so no slip dated C or later
    can take from it; leaving those lots out with the spends that took only from them and their
    posted lapses (`compacted`), planning the rest gives every kept lot and spend exactly what
    planning everything gives, as long as no slip dated before C changes."""
    folded, closed_at = _foldable(list(events), before)
    if not folded:
        return None
    return _day_after(max(closed_at[lot] for lot in folded))


def compacted(events: Iterable[Event], through: str | None) -> list[Event]:
    """The events left when the account is folded at `through` (`compaction_point`): the foldable
    lots closed before it, the spends that took only from them and their posted lapses left out."""
    events = list(events)
    if through is None:
        return events
    folded, _ = _foldable(events, through)
    if not folded:
        return events
    takes = plan(events).takes
    gone = set(folded)
    gone |= {s for s, taken in takes.items() if taken and all(lot in folded for lot, _ in taken)}
    return [e for e in events if e.id not in gone and not (isinstance(e, Lapse) and e.lot in folded)]
