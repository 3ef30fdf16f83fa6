"""Point lots (ポイント): what a slip write does to the lots of the points accounts it touches (in the
slip's own transaction), the lots about to lapse, and the daily job's lapses (ポイント失効), posted once
per lot through the one posting path. The rules are core.points; the item is store/points.py.

A slip write re-plans each points account it touches, before and after the change: the account's
events with the slip's old ones taken out and its new ones put in, planned whole (core.points.plan),
or, for the common write (one new earning or spend dated after everything planned), continued from
the plan the remembered lots were last planned to (core.points.Planned.then: the same result),
refused when a spend is not covered by the lots open on its date (409 insufficient_funds) or a
posted lapse would exceed its lot (409 points_lapsed), and put back in the same transaction under the
version it was planned from. Each process remembers the lots it last read or wrote (a hint, which
that condition checks: a stale one is learned from the cancelled transaction and the write planned
again), so a points write reads nothing more than a yen one. An account's lots are built from its
slips the first time a write meets the account without them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from kakeibo import errors
from kakeibo.core import points
from kakeibo.services.units import DERIVED, LOT_ACCOUNTS
from kakeibo.settings import today
from kakeibo.store import Dates, Item, Store, TxOp, WriteContext

MAX_KNOWN = 10_000
# The lots item is compacted (core.points.compaction_point) once it holds COMPACT_AT events, tried again
# every COMPACT_EVERY more, and only when it folds out at least COMPACT_MIN: the lots spent and lapsed
# whole go, with the spends that took only from them, so a slip's edit re-plans from the item alone
# unless it is dated before the fold (`through`): then the account's slips are read and planned whole.
# Only lots closed more than FOLD_AFTER_DAYS ago fold: an edit of a recent slip never reads them all.
COMPACT_AT = 512
COMPACT_EVERY = 64
COMPACT_MIN = 64
FOLD_AFTER_DAYS = 90


@dataclass(frozen=True, slots=True)
class Lots:
    """An account's lots as stored (`version` None: not stored yet, built from its slips), with their
    events decoded once: a write changes a few of them, never re-reads or re-encodes the rest."""

    events: Mapping[str, str]
    version: int | None
    decoded: Mapping[str, points.Event]
    next_due: str | None = None
    by: str | None = None
    through: str | None = None  # the events of slips dated before it are folded out (compacted)
    planned: points.Planned | None = field(default=None, compare=False)  # the plan of `decoded`, when known

    @classmethod
    def of(cls, item: Item) -> Lots:
        events = {str(k): str(v) for k, v in (item.get("events") or {}).items()}
        decoded = {k: points.decode(k, v) for k, v in events.items()}
        due, by, through = item.get("next_due"), item.get("by"), item.get("through")
        return cls(
            events,
            int(item["version"]),
            decoded,
            str(due) if due else None,
            str(by) if by else None,
            str(through) if through else None,
        )

    @classmethod
    def built(cls, events: Mapping[str, str], version: int | None, stored: Lots | None = None) -> Lots:
        """Lots built from the account's slips (`version`: the stored item's they replace)."""
        decoded = {k: points.decode(k, v) for k, v in events.items()}
        return cls(events, version, decoded, stored.next_due if stored else None, stored.by if stored else None)


_KNOWN: dict[tuple[str, str], Lots] = {}  # per process: the lots as last read or written (a hint)


def _remember(ledger: str, account: str, lots: Lots | None) -> None:
    if len(_KNOWN) >= MAX_KNOWN:
        _KNOWN.clear()
    if lots is None:
        _KNOWN.pop((ledger, account), None)
    else:
        _KNOWN[(ledger, account)] = lots


def lot_accounts(item: Item | None) -> list[str]:
    """The points accounts a stored slip is in the lots of."""
    if not item:
        return []
    marked = item.get(LOT_ACCOUNTS)
    if marked:
        return [str(a) for a in marked]
    if item.get(DERIVED):  # a points income or expense written before lots were kept
        return [str(item["account"])]
    return []


def events(store: Store, ledger: str, account: str, *, fresh: bool = False) -> tuple[dict[str, str], int | None]:
    """The account's events and the version they are at (None: not stored yet, built from its slips)."""
    lots = _lots(store, ledger, account, fresh=fresh)
    return dict(lots.events), lots.version


def _lots(store: Store, ledger: str, account: str, *, fresh: bool = False) -> Lots:
    known = None if fresh else _KNOWN.get((ledger, account))
    if known is not None:
        return known
    item = store.points.lots(ledger, account)
    if item is not None:
        lots = Lots.of(item)
        _remember(ledger, account, lots)
        return lots
    return Lots.built(_built(store, ledger, account), None)


def built_events(store: Store, ledger: str, account: str) -> dict[str, str]:
    """Every event of the account, from its opening balance and its slips (what the lots fold)."""
    return _built(store, ledger, account)


def _built(store: Store, ledger: str, account: str) -> dict[str, str]:
    """The events of an account whose lots were never stored: its opening balance and its slips."""
    found = store.accounts.account(ledger, account)
    events = points.opening_event(int(found.get("opening_balance") or 0) if found else 0)
    for page in store.slips.slip_pages(ledger, Dates(), account=account):
        for slip in page.items:
            events += points.slip_events(slip, account)
        if page.done:
            break
    return {e.id: points.encode(e) for e in events}


def lot_ops(store: Store, ctx: WriteContext, before: Sequence[Item], after: Sequence[Item]) -> tuple[TxOp, ...]:
    """What a change of slips (`before` as read, `after` as written) puts in its own transaction for
    the lots of the points accounts they touch (each slip names its own: `lot_accounts`). Refused
    when the plan does not hold."""
    ledger = ctx.ledger
    touched = sorted({a for item in (*before, *after) for a in lot_accounts(item)})
    ops = []
    for account in touched:
        op = _lot_op(store, ctx, account, before, after)
        if op is None:
            continue
        plan, lots, diff, whole = op
        if not plan.ok:  # never refused on lots this process only remembers: read them
            op = _lot_op(store, ctx, account, before, after, fresh=True)
            if op is None:
                continue
            plan, lots, diff, whole = op
            _refuse_unless_held(plan, account, lots.decoded.values())

        def changed(current: Item | None, account: str = account) -> errors.ApiError:
            # learned from the cancelled transaction: plan again
            _remember(ledger, account, Lots.of(current) if current else None)
            return errors.ReadAgain()

        next_due = plan.next_due()
        ops.append(
            store.points.lots_op(
                ledger,
                account,
                lots.events,
                version=lots.version,
                changed=diff,
                next_due=next_due,
                stored_due=lots.next_due,
                by=ctx.actor,
                stored_by=lots.by,
                through=lots.through,
                whole=whole,
                on_fail=changed,
            )
        )
        # what this write makes them, remembered (a write that does not commit is caught by the condition)
        made = Lots(lots.events, (lots.version or 0) + 1, lots.decoded, next_due, ctx.actor, lots.through, lots.planned)
        _remember(ledger, account, made)
    return tuple(ops)


def _lot_op(
    store: Store, ctx: WriteContext, account: str, before: Sequence[Item], after: Sequence[Item], *, fresh: bool = False
) -> tuple[points.Plan, Lots, dict[str, str | None], bool] | None:
    """The account's lots re-planned with the slips' change, the events it changes, and whether the
    item is written whole (None: the change leaves them as they are). Only the slips' own events are
    looked at: the rest stay decoded. A slip dated before the fold is planned with every slip."""
    stored = _lots(store, ctx.ledger, account, fresh=fresh)
    wanted: dict[str, points.Event | None] = {}
    dates = []
    for item in before:
        for gone in points.slip_events(item, account):
            wanted[gone.id] = None
            dates.append(str(item["date"]))
    for item in after:
        if account in lot_accounts(item):
            for event in points.slip_events(item, account):
                wanted[event.id] = event
                dates.append(str(item["date"]))
    whole = stored.version is None
    if stored.through is not None and dates and min(dates) < stored.through:
        stored = _lots(store, ctx.ledger, account, fresh=True)  # the version the slips are read after
        if stored.through is not None and min(dates) < stored.through:
            stored, whole = Lots.built(_built(store, ctx.ledger, account), stored.version, stored), True
    diff: dict[str, str | None] = {}
    for key, now in wanted.items():
        text = None if now is None else points.encode(now)
        if stored.events.get(key) != text:
            diff[key] = text
    if not diff and not whole:
        return None
    events, decoded = dict(stored.events), dict(stored.decoded)
    for key, changed in diff.items():
        if changed is None:
            events.pop(key, None)
            decoded.pop(key, None)
        else:
            events[key] = changed
            decoded[key] = points.decode(key, changed)
    through = stored.through
    if len(events) >= COMPACT_AT and (whole or (len(events) - COMPACT_AT) % COMPACT_EVERY == 0):
        horizon = (today() - dt.timedelta(days=FOLD_AFTER_DAYS)).isoformat()
        point = points.compaction_point(decoded.values(), before=horizon)
        kept = {e.id for e in points.compacted(decoded.values(), point)}
        if point is not None and (whole or len(events) - len(kept) >= COMPACT_MIN):
            events = {k: v for k, v in events.items() if k in kept}
            decoded = {k: v for k, v in decoded.items() if k in kept}
            through, whole = point, True
    state = _continued(stored, diff, decoded) if not whole else None
    if state is None:
        state = points.planned(decoded.values())
    planned = Lots(events, stored.version, decoded, stored.next_due, stored.by, through, state)
    return state.plan, planned, diff, whole


def _continued(
    stored: Lots, diff: Mapping[str, str | None], decoded: Mapping[str, points.Event]
) -> points.Planned | None:
    """The common write, planned without replaying the account's history: one new event dated after
    everything the stored lots planned (core.points.Planned.then); None for anything else."""
    if stored.planned is None or len(diff) != 1:
        return None
    ((key, text),) = diff.items()
    if text is None or key in stored.events:
        return None
    return stored.planned.then(decoded[key])


def _refuse_unless_held(plan: points.Plan, account: str, events: Iterable[points.Event]) -> None:
    """The refusal of a plan that does not hold (`events`: what it planned): 409 points_lapsed when the
    change would leave a lot with less than its posted lapse (its earning deleted or shrunk, or spends
    that would take the points the lapse took: a spend racing the lapse of its lot included, which
    meets the lapse when it plans again), else 409 insufficient_funds (points not held on the
    spend's date)."""
    lot = plan.overlapsed[0] if plan.overlapsed else points.lapsed_lot(events) if plan.uncovered else None
    if lot is not None:
        raise errors.PointsLapsed(
            f"points of the lot earned by slip '{lot}' have lapsed (ポイント失効 posted): delete or change that "
            "lapse slip first",
            account=account,
            lot=lot,
        )
    if plan.uncovered:
        _, short = plan.uncovered[0]
        raise errors.InsufficientFunds(
            f"the points of '{account}' open on the slip's date do not cover it ({short} short): points are "
            "spent from the lots earned by then and not expired",
            account=account,
        )


def remember(ledger: str, account: str, item: Item | None) -> None:
    """The lots of an account as just read (None: forget them)."""
    _remember(ledger, account, Lots.of(item) if item else None)


# ---- verify and rebuild: the lots recomputed from the slips ---------------------------------------


@dataclass(frozen=True, slots=True)
class LotsProblem:
    """An event of a points account's lots that differs from what its slips say: `field` is the slip
    id (its points: expected from the slips, actual as stored, 0 when absent), or the slip id and
    `date` / `expires_on` (as YYYYMMDD, 0 for none) when only that differs."""

    item: str
    field: str
    expected: int
    actual: int


def expected_events(slips: Sequence[Item], account: str, opening: int, through: str | None) -> dict[str, str]:
    """The account's lots as its slips make them (core.points), folded at `through` as stored."""
    events = points.opening_event(opening)
    for slip in slips:
        events += points.slip_events(slip, account)
    return {e.id: points.encode(e) for e in points.compacted(events, through)}


def _day_number(day: str | None) -> int:
    return int(day.replace("-", "")) if day else 0


def lots_problems(item: Item, expected: Mapping[str, str]) -> list[LotsProblem]:
    """Where a stored lots item differs from the events its account's slips make."""
    stored = Lots.of(item)
    sk = str(item["SK"])
    found = []
    for key in sorted(stored.events.keys() | expected.keys()):
        have, want = stored.events.get(key), expected.get(key)
        if have == want:
            continue
        old = points.decode(key, have) if have is not None else None
        new = points.decode(key, want) if want is not None else None
        if old is None or new is None or old.amount != new.amount or type(old) is not type(new):
            found.append(LotsProblem(sk, key, new.amount if new else 0, old.amount if old else 0))
            continue
        for part in ("date", "expires_on", "lot"):
            a, b = getattr(new, part, None), getattr(old, part, None)
            if a != b:
                if part == "lot":
                    found.append(LotsProblem(sk, f"{key}.lot", 1, 0))
                else:
                    found.append(LotsProblem(sk, f"{key}.{part}", _day_number(a), _day_number(b)))
    return found


def repaired_lots_op(store: Store, ledger: str, item: Item, expected: Mapping[str, str], by: str) -> TxOp:
    """Put the lots item back as its slips make it (under the version read; the rebuild's lease keeps
    every slip write out meanwhile)."""
    stored = Lots.of(item)
    account = str(item["account"])
    plan = points.plan(points.decode(k, v) for k, v in expected.items())

    def moved(current: Item | None) -> errors.ApiError:
        _remember(ledger, account, None)
        return errors.Conflict(f"the lots of '{account}' changed while they were repaired")

    _remember(ledger, account, None)
    return store.points.lots_op(
        ledger,
        account,
        expected,
        version=stored.version,
        changed={},
        next_due=plan.next_due(),
        by=by,
        through=stored.through,
        whole=True,
        on_fail=moved,
    )
