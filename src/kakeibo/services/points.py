"""Point lots (ポイント): what a slip write does to the lots of the points accounts it touches (in the
slip's own transaction), the lots about to lapse, and the daily job's lapses (ポイント失効), posted once
per lot through the one posting path. The rules are core.points; the item is store/points.py.

A slip write re-plans each points account it touches, before and after the change: the account's
events with the slip's old ones taken out and its new ones put in, planned whole (core.points.plan),
refused when a spend is not covered by the lots open on its date (409 insufficient_funds) or a posted
lapse would exceed its lot (409 points_lapsed), and put back in the same transaction under the
version it was planned from. Each process remembers the lots it last read or wrote (a hint, which
that condition checks: a stale one is learned from the cancelled transaction and the write planned
again), so a points write reads nothing more than a yen one. An account's lots are built from its
slips the first time a write meets the account without them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kakeibo import errors
from kakeibo.core import points
from kakeibo.services.units import DERIVED, LOT_ACCOUNTS
from kakeibo.store import Item, Store, TxOp, WriteContext, account_sk

MAX_KNOWN = 10_000

_KNOWN: dict[tuple[str, str], Item] = {}  # per process: the lots as last read or written (a hint)


def _remember(ledger: str, account: str, item: Item | None) -> None:
    if len(_KNOWN) >= MAX_KNOWN:
        _KNOWN.clear()
    if item is None:
        _KNOWN.pop((ledger, account), None)
    else:
        _KNOWN[(ledger, account)] = item


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
    known = None if fresh else _KNOWN.get((ledger, account))
    item = known if known is not None else store.lots(ledger, account)
    if item is not None:
        _remember(ledger, account, item)
        return {str(k): str(v) for k, v in (item.get("events") or {}).items()}, int(item["version"])
    return _built(store, ledger, account), None


def _built(store: Store, ledger: str, account: str) -> dict[str, str]:
    """The events of an account whose lots were never stored: its opening balance and its slips."""
    found = store.get(ledger, account_sk(account))
    events = points.opening_event(int(found.get("opening_balance") or 0) if found else 0)
    for page in store.slip_pages(ledger, "SLIP#0000-00-00#", "SLIP#9999-99-99#~", account=account):
        for slip in page.items:
            events += points.slip_events(slip, account)
        if page.last_sk is None:
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
        plan, item = op
        if not plan.ok:  # never refused on lots this process only remembers: read them
            op = _lot_op(store, ctx, account, before, after, fresh=True)
            if op is None:
                continue
            plan, item = op
            _refuse_unless_held(plan, account)

        def changed(current: Item | None, account: str = account) -> errors.ApiError:
            _remember(ledger, account, current)  # learned from the cancelled transaction: plan again
            return errors.ReadAgain()

        planned, version, diff = item["events"], item["version"], item["changed"]
        ops.append(
            store.lots_op(
                ledger,
                account,
                planned,
                version=version,
                changed=diff,
                next_due=plan.next_due(),
                by=ctx.actor,
                on_fail=changed,
            )
        )
        # what this write makes them, remembered (a write that does not commit is caught by the condition)
        _remember(ledger, account, {"events": planned, "version": (version or 0) + 1})
    return tuple(ops)


def _lot_op(
    store: Store, ctx: WriteContext, account: str, before: Sequence[Item], after: Sequence[Item], *, fresh: bool = False
) -> tuple[points.Plan, dict[str, Any]] | None:
    """The account's lots re-planned with the slips' change (None: the change leaves them as they are)."""
    stored, version = events(store, ctx.ledger, account, fresh=fresh)
    planned = dict(stored)
    for item in before:
        for event in points.slip_events(item, account):
            planned.pop(event.id, None)
    for item in after:
        if account in lot_accounts(item):
            for event in points.slip_events(item, account):
                planned[event.id] = points.encode(event)
    diff = {k: planned.get(k) for k in stored.keys() | planned.keys() if stored.get(k) != planned.get(k)}
    if not diff and version is not None:
        return None
    return points.plan(points.events_of(planned)), {"events": planned, "version": version, "changed": diff}


def _refuse_unless_held(plan: points.Plan, account: str) -> None:
    if plan.uncovered:
        _, short = plan.uncovered[0]
        raise errors.InsufficientFunds(
            f"the points of '{account}' open on the slip's date do not cover it ({short} short): points are "
            "spent from the lots earned by then and not expired",
            account=account,
        )
    if plan.overlapsed:
        lot = plan.overlapsed[0]
        raise errors.PointsLapsed(
            f"points of the lot earned by slip '{lot}' have lapsed (ポイント失効 posted): delete or change that "
            "lapse slip first",
            account=account,
            lot=lot,
        )


def remember(ledger: str, account: str, item: Item | None) -> None:
    """The lots of an account as just read (None: forget them)."""
    _remember(ledger, account, item)
