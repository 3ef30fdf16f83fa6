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
  shrunk after the lapse was posted).
So every point earned is spent, lapsed (posted), about to lapse (`pending`) or still open — once.
"""

from __future__ import annotations

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
        takes[spend.id] = tuple(taken)
        if need:
            uncovered.append((spend.id, need))
    lots = []
    overlapsed = sorted(lot for lot, total in posted.items() if total > amount.get(lot, 0))
    for e in earnings:
        left = e.amount - spent[e.id]
        done = min(posted.get(e.id, 0), left)
        expired = e.expires_on is not None and e.expires_on < today
        lots.append(
            Lot(
                e.id,
                e.date,
                e.amount,
                e.expires_on,
                spent=spent[e.id],
                lapsed=done,
                pending=left - done if expired else 0,
                open=0 if expired else left - done,
            )
        )
    return Plan(tuple(lots), takes, tuple(uncovered), tuple(overlapsed))


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


def compaction_point(events: Iterable[Event]) -> str | None:
    """The latest day C such that every lot earned before C was spent and lapsed whole by slips dated
    before C (so no slip dated C or later can take from it), and no spend before C went uncovered;
    None when there is no such day worth folding. Every event of a slip dated before C may then be
    left out (`compacted`): planning the rest gives every kept lot and spend exactly what planning
    them all gives, as long as no slip dated before C changes."""
    events = list(events)
    full = plan(events)
    dates = _event_dates(events)
    closed_at: dict[str, str] = {}  # lot -> the last day anything took from it
    for spend, takes in full.takes.items():
        for taken, _ in takes:
            closed_at[taken] = max(closed_at.get(taken, ""), dates[spend])
    posted = {e.lot for e in events if isinstance(e, Lapse)}
    first_uncovered = min((dates[s] for s, _ in full.uncovered), default=NEVER)
    lots = sorted(full.lots, key=lambda lot: (lot.earned_on, lot.id))
    point, latest = None, ""
    for n, lot in enumerate(lots):
        if n and lots[n - 1].earned_on < lot.earned_on and latest < lot.earned_on <= first_uncovered:
            point = lot.earned_on  # every lot before this one is closed before its day
        if lot.spent + lot.lapsed != lot.amount or lot.id in full.overlapsed:
            return point
        done = closed_at.get(lot.id, lot.earned_on)
        if lot.id in posted:
            done = max(done, lot.lapses_on or NEVER)
        latest = max(latest, done)
    return point  # the last lot is open: nothing after it is folded


def compacted(events: Iterable[Event], through: str | None) -> list[Event]:
    """The events left when those of slips dated before `through` are folded out: the earnings and
    spends dated before it and the posted lapses of the lots they earned."""
    if through is None:
        return list(events)
    events = list(events)
    gone = {e.id for e in events if isinstance(e, Earning) and e.date < through}
    return [
        e
        for e in events
        if not (isinstance(e, Lapse) and e.lot in gone) and (isinstance(e, Lapse) or e.date >= through)
    ]
