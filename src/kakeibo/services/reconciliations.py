"""Reconciliation (照合, §17): an account agrees with its statement, bankbook or counted wallet.

`POST /accounts/{id}/reconciliations` compares the statement's balance with the account's cleared
balance as of the date (from the rollups); when they agree (or the difference is posted as an
adjustment slip through the one create path) every cleared side of the account dated up to the
date becomes reconciled, in batches under a lease lock, and the assertion is written last. The id
derives from (account, date, balance, Idempotency-Key): the same request again, after a crash
between batches, marks only what is left and stores the assertion once.

`holds` compares an assertion with the cleared balance as of its date, read from the rollups (no
slip is read), and is false once a slip it summed was unlocked and changed.

A run (a reconciliation, or its undo) writes a marker before its first write and removes it with its
last. A run that stopped (its lease expired, or it let the lease go on a failure) is found by whoever
next takes the account's lease: another reconciliation, the list of reconciliations, or an edit
refused because of it. An unfinished reconciliation is released (its slips back to cleared, its
adjustment deleted, the marker last: as if it never ran, and the same request may run it again); an
unfinished undo is finished (the assertion removed last, with the entry marked undone).
"""

from __future__ import annotations

import calendar
import datetime as dt
from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import Any

from kakeibo import errors
from kakeibo.core import reconcile as core
from kakeibo.core.batching import batches
from kakeibo.core.ids import derived_id
from kakeibo.core.posting import AccountMonthItem, AccountYearItem, DayItem, ItemKey
from kakeibo.models.reconciliations import ReconciliationIn
from kakeibo.models.slips import SlipIn
from kakeibo.services import slips as slip_service
from kakeibo.services.accounts import account_item
from kakeibo.services.balances import rate_as_of, together
from kakeibo.services.common import now_iso
from kakeibo.services.scheduled import poster_for
from kakeibo.services.units import RATED, Unit, yen_at_rate
from kakeibo.settings import today
from kakeibo.store import (
    GUARD_ITEMS,
    JOURNAL_ITEMS,
    ROLLUPS_MARK,
    Dates,
    Item,
    Store,
    WriteContext,
    index_items_changed,
)
from kakeibo.store.locks import Lease
from kakeibo.store.reconciliations import ASSERTION, RUN, AccountMoved, Remark, SlipMoved
from kakeibo.store.slip_index import SlipFilter

BATCH = 25  # slips marked per transaction at most (each is the slip, its identity and its index entries)
TX_ITEMS = 100 - GUARD_ITEMS - JOURNAL_ITEMS - 2  # what a batch may write besides the lease's check and the tally
LOCK_TTL = 60.0  # seconds a reconciliation's lease lasts; renewed between batches once half of it has gone
ATTEMPTS = 5  # times a reconciliation is computed again when the account moved under it
FIRST_DAY = "0000-00-00"
ADJUSTMENT_MEMO = "照合の差額"
PAGE = 200
LISTED = 2_000  # slips a run lists as it marks them (its undo reads those); beyond, the account's slips
HELD_ITEMS = 60  # rollup items after a date the assertion's transaction checks at most (days, months, years)
HELD_YEARS = HELD_ITEMS - 30 - 11  # a date older than this many years is checked on the account's totals only
RECONCILE, UNDO = "reconcile", "undo"  # what a run under way does


def lock_name(account: str) -> str:
    return f"reconcile-{account}"


# ---- reading -------------------------------------------------------------------------------------


def cleared_as_of(store: Store, ledger: str, account: Item, date: str) -> int:
    """The opening balance and every cleared side's effect dated <= `date`, from the account item
    and its rollups (see cleared_as_of_dates)."""
    return cleared_as_of_dates(store, ledger, account, [date])[date]


def cleared_as_of_dates(store: Store, ledger: str, account: Item, dates: list[str]) -> dict[str, int]:
    """The cleared balance as of each of `dates`: the account's cleared balance now (its item, as
    read) less what was cleared after the date, from the rollups — its day items after the date in
    its month, its month items after that month in its year, its year items after that year. What
    is read follows the dates asked for and the time since them, never the history before: one
    Query of years, one of months per year asked for, one of days per month asked for, all at once."""
    account_id, opening = str(account["id"]), int(account["opening_balance"])
    out: dict[str, int] = {}
    if not dates:
        return out
    if not account.get(ROLLUPS_MARK):  # written before the rollups: its day totals, slower, never wrong
        days = list(store.balances.day_totals(ledger, account_id, FIRST_DAY, max(dates), "cleared"))
        for date in dates:
            out[date] = opening + sum(int(d.get("cleared", 0)) for d in days if d["date"] <= date)
        return out
    now = opening + int(account.get("cleared", 0))
    years, months, later_days = _rollups_after(store, ledger, account_id, dates)
    for date in dates:
        after = sum(int(y.get("cleared", 0)) for y in years if y["year"] > date[:4])
        after += sum(int(m.get("cleared", 0)) for m in months if date[:7] < m["month"] <= f"{date[:4]}-12")
        after += sum(int(d.get("cleared", 0)) for d in later_days if date < d["date"] <= f"{date[:7]}-31")
        out[date] = now - after
    return out


def _rollups_after(
    store: Store, ledger: str, account_id: str, dates: list[str]
) -> tuple[list[Item], list[Item], list[Item]]:
    """The account's rollup items after the earliest of `dates`' years, after each date's month in
    its year, and after each date in its month: (years, months, days), read at once."""
    months_from = {date[:4]: _month_after(date) for date in sorted(dates, reverse=True)}  # each year's earliest
    days_from = {date[:7]: f"{date}~" for date in sorted(dates, reverse=True)}  # each month's earliest, after it
    reads: list[Callable[[], list[Item]]] = [
        lambda: list(store.balances.account_years(ledger, f"{int(min(dates)[:4]) + 1:04d}", "9999", account_id))
    ]
    month_reads = [_reader(store.balances.account_months, ledger, first, f"{year}-12", account_id)
                   for year, first in months_from.items() if first is not None]  # fmt: skip
    reads += month_reads
    reads += [_reader(store.balances.day_totals, ledger, account_id, first, f"{month}-31", "cleared")
              for month, first in days_from.items() if not _last_day(first[:10])]  # fmt: skip
    found = together(*reads)
    months = [m for items in found[1 : 1 + len(month_reads)] for m in items]
    later_days = [d for items in found[1 + len(month_reads) :] for d in items]
    return found[0], months, later_days


def cleared_as_of_held(store: Store, ledger: str, account: Item, date: str) -> tuple[int, dict[ItemKey, int] | None]:
    """The cleared balance as of `date` (as cleared_as_of) and what keeps it so: the cleared total
    of every rollup item after the date that it was found from (days to the month's end, months to
    the year's end, years to this one or the last found; 0 where there is none), item -> total. With
    the account's cleared total, they make it what it is: while none moves, a slip's amount, state
    or date moved across the date cannot have changed it. None for an account without rollups or a
    date so old that its years do not fit in one transaction (its cleared total alone is checked)."""
    account_id = str(account["id"])
    if not account.get(ROLLUPS_MARK) or int(date[:4]) < today().year - HELD_YEARS:
        return cleared_as_of(store, ledger, account, date), None
    years, months, days = _rollups_after(store, ledger, account_id, [date])
    held: dict[ItemKey, int] = {}
    year, month = int(date[:4]), int(date[5:7])
    last = calendar.monthrange(year, month)[1]
    for day in range(int(date[8:10]) + 1, last + 1):
        held[DayItem(account_id, f"{date[:7]}-{day:02d}")] = 0
    for later in range(month + 1, 13):
        held[AccountMonthItem(account_id, f"{year:04d}-{later:02d}")] = 0
    last_year = max([today().year, *(int(y["year"]) for y in years)])
    for later in range(year + 1, last_year + 1):
        held[AccountYearItem(account_id, f"{later:04d}")] = 0
    if len(held) > HELD_ITEMS:
        return cleared_as_of(store, ledger, account, date), None
    held.update({DayItem(account_id, str(d["date"])): int(d.get("cleared", 0)) for d in days})
    held.update({AccountMonthItem(account_id, str(m["month"])): int(m.get("cleared", 0)) for m in months})
    held.update({AccountYearItem(account_id, str(y["year"])): int(y.get("cleared", 0)) for y in years})
    after = sum(held.values())
    return int(account["opening_balance"]) + int(account.get("cleared", 0)) - after, held


def _reader(read: Callable[..., Iterable[Item]], *args: str) -> Callable[[], list[Item]]:
    return lambda: list(read(*args))


def _month_after(date: str) -> str | None:
    """The month after `date`'s in its year (YYYY-MM), None in December."""
    month = int(date[5:7])
    return f"{date[:4]}-{month + 1:02d}" if month < 12 else None


def _last_day(date: str) -> bool:
    year, month, day = (int(part) for part in date.split("-"))
    return day == calendar.monthrange(year, month)[1]


def account_slips(store: Store, ledger: str, account: str, date: str) -> list[Item]:
    """The slips touching `account` dated <= `date`, oldest first (its slip index; a ledger not yet
    indexed is read slip by slip)."""
    found: list[Item] = []
    below: tuple[str, int | None] | None = None
    while True:
        page = store.slip_index.indexed_slips(
            ledger,
            SlipFilter(account=account),
            date_from=None,
            date_to=date,
            below=below,
            limit=PAGE,
            max_read=PAGE * 4,
        )
        if page is None:
            wanted = SlipFilter(account=account)
            return [s for s in store.slips.slips_within(ledger, Dates(FIRST_DAY, date)) if wanted.matches(s)]
        found += page.items
        if page.resume is None:
            break
        below = page.resume
    found.sort(key=lambda s: (s["date"], int(s["no"])))
    return found


def _sides(slip: Item, account: str) -> list[core.Side]:
    every = core.sides(
        str(slip["id"]),
        str(slip["date"]),
        str(slip["kind"]),
        int(slip["amount"]),
        str(slip["account"]),
        to_account=slip.get("to_account"),
        cleared=slip.get("cleared") or core.UNCLEARED,
        to_cleared=slip.get("to_cleared") or core.UNCLEARED,
    )
    return [s for s in every if s.account == account]


def view(item: Item, holds: bool | None = None) -> dict[str, Any]:
    return {
        "id": item["id"],
        "account": item["account"],
        "date": item["date"],
        "balance": int(item["balance"]),
        "difference": int(item.get("difference", 0)),
        "adjustment_slip": item.get("adjustment_slip"),
        "reconciled": int(item.get("reconciled", 0)),
        "holds": bool(holds) if holds is not None else not item.get("broken"),
        "at": item["at"],
        "by": item.get("by"),
        "version": int(item["version"]),
    }


def list_reconciliations(store: Store, ledger: str, account: str, *, settle: bool = False) -> dict[str, Any]:
    """An account's assertions, newest date first, each with `holds` from the rollups. `settle`:
    a run of the account that stopped (its lease expired) is first released or finished."""
    acct, records = _account_and_records(store, ledger, account)
    if settle and any(r.get("type") == RUN for r in records) and _settled(store, ledger, account, None):
        acct, records = _account_and_records(store, ledger, account)  # an adjustment may have gone
    items = [r for r in records if r.get("type") == ASSERTION]
    balances = cleared_as_of_dates(store, ledger, acct, sorted({str(i["date"]) for i in items}))
    out = [
        view(i, holds=not i.get("broken") and core.holds(int(i["balance"]), balances[str(i["date"])])) for i in items
    ]
    out.sort(key=lambda v: (v["date"], v["at"]), reverse=True)
    return {"items": out}


def _account_and_records(store: Store, ledger: str, account: str) -> tuple[Item, list[Item]]:
    """The account item and its reconciliation records, read at once."""
    found: list[Any] = together(
        lambda: account_item(store, ledger, account),
        lambda: store.reconciliations.reconciliation_records(ledger, account),
    )
    return found[0], found[1]


def broken_assertions(store: Store, ledger: str) -> list[dict[str, Any]]:
    """Every assertion of the ledger that no longer holds (verify lists them): one Query, and the
    rollups of the accounts that have any."""
    out: list[dict[str, Any]] = []
    for account in sorted({str(i["account"]) for i in store.reconciliations.reconciliations(ledger)}):
        found = list_reconciliations(store, ledger, account)["items"]
        out += [
            {"account": account, "id": v["id"], "date": v["date"], "balance": v["balance"]}
            for v in found
            if not v["holds"]
        ]
    return out


# ---- checks --------------------------------------------------------------------------------------


def _refuse(field: str, detail: str, *, where: str = "body") -> errors.ValidationFailed:
    return errors.ValidationFailed(detail, errors=[{"loc": [where, field], "msg": detail}])


def _checked_account(store: Store, ledger: str, account: str, body: ReconciliationIn) -> Item:
    acct = account_item(store, ledger, account)
    if acct.get("archived"):
        raise _refuse("id", f"account: {account} is archived: it is no longer reconciled", where="path")
    if dt.date.fromisoformat(body.date) > today():
        raise _refuse("date", f"date: {body.date} is in the future: a statement tells what an account held up to today")
    if body.jpy_amount is not None:
        unit = Unit.of(acct)
        if not body.adjust:
            raise _refuse("jpy_amount", "jpy_amount is the yen of an adjustment: send it with adjust: true")
        if unit.yen or unit.points:
            raise _refuse(
                "jpy_amount",
                f"account '{account}' is in {unit.code}: jpy_amount is only for an account in a foreign currency",
            )
    return acct


# ---- dry run -------------------------------------------------------------------------------------


def preview(store: Store, ledger: str, account: str, body: ReconciliationIn) -> dict[str, Any]:
    """What reconciling would meet, nothing written: the difference and the uncleared slips."""
    acct = _checked_account(store, ledger, account, body)
    cleared = cleared_as_of(store, ledger, acct, body.date)
    uncleared = [
        slip_service.slip_view(s)
        for s in account_slips(store, ledger, account, body.date)
        if any(side.state == core.UNCLEARED for side in _sides(s, account))
    ]
    return {
        "date": body.date,
        "balance": body.balance,
        "cleared_balance": cleared,
        "difference": core.difference(body.balance, cleared),
        "uncleared": uncleared,
    }


# ---- the commit ----------------------------------------------------------------------------------


def reconciliation_id(account: str, body: ReconciliationIn, key: str | None) -> str:
    return derived_id(f"reconciliation\n{account}\n{body.date}\n{body.balance}\n{key or ''}")


def reconcile(
    store: Store, ctx: WriteContext, account: str, body: ReconciliationIn, *, key: str | None = None
) -> tuple[int, dict[str, Any]]:
    """Reconcile `account` as of `body.date`: (201, the assertion), or (200, it) when this very
    reconciliation was stored before. 409 reconciliation_difference when it does not balance."""
    ledger = ctx.ledger
    _checked_account(store, ledger, account, body)
    rid = reconciliation_id(account, body, key)
    lease = store.locks.acquire_lock(ledger, lock_name(account), LOCK_TTL)
    try:
        lease = _settle_runs(store, ctx, lease, account, keep=(RECONCILE, rid))  # this very run resumes
        for attempt in range(ATTEMPTS):
            try:
                return _attempt(store, ctx, lease, account=account, rid=rid, body=body)
            except (SlipMoved, AccountMoved):
                if attempt == ATTEMPTS - 1:
                    _abandon(store, ctx, lease, account=account, rid=rid, date=body.date)
                    raise
                lease = store.locks.renew_lock(lease, LOCK_TTL) or lease
            except errors.ReconciliationDifference:
                # an edit that won the race changed what the statement is compared with: the slips
                # marked so far go back to cleared, so no slip stays reconciled without its assertion
                _abandon(store, ctx, lease, account=account, rid=rid, date=body.date)
                raise
        raise errors.Conflict("the account kept changing while it was reconciled; retry", retry_after=1)
    finally:
        store.locks.release_lock(lease)


def _attempt(
    store: Store, ctx: WriteContext, lease: Lease, *, account: str, rid: str, body: ReconciliationIn
) -> tuple[int, dict[str, Any]]:
    ledger = ctx.ledger
    stored = store.reconciliations.reconciliation(ledger, account, rid)
    if stored is not None:
        return 200, view(stored)
    acct = account_item(store, ledger, account)
    cleared, held = cleared_as_of_held(store, ledger, acct, body.date)
    diff = core.difference(body.balance, cleared)
    adjustment_id = _adjustment_made(store, ledger, rid)
    run = store.reconciliations.reconciliation_run(ledger, account, rid)  # a run resumed: the sides it marked before
    first_difference = diff
    started = False
    if diff:
        if not body.adjust:
            raise errors.ReconciliationDifference(
                f"the cleared balance as of {body.date} is {cleared}, the statement says {body.balance} "
                f"(difference {diff}); clear the missing slips or send adjust: true",
                difference=diff,
                cleared_balance=cleared,
                date=body.date,
                balance=body.balance,
                unit=Unit.of(acct).code,
            )
        slip, marks = _adjustment(store, ledger, acct, body, diff)  # a 422 before anything is written
        if run is None:
            store.reconciliations.start_run(
                ctx, store.locks.lock_held_op(lease), _run(RECONCILE, ctx, account, rid, body.date, listed=True)
            )
        started = True
        adjustment_id = _post_adjustment(store, ctx, lease, rid=rid, slip=slip, marks=marks)
        acct = account_item(store, ledger, account)
        cleared, held = cleared_as_of_held(store, ledger, acct, body.date)
        if core.difference(body.balance, cleared):
            raise AccountMoved("the account changed while it was reconciled; retry", retry_after=1)
    elif adjustment_id is not None:  # a resumed run: the adjustment went in before the crash
        adjusted = store.slips.slip_by_id(ledger, adjustment_id)
        if adjusted is not None:
            signed = int(adjusted["amount"]) * (1 if adjusted["kind"] == "income" else -1)
            first_difference = signed
    already = int(run.get("marked", 0)) if run is not None else 0
    keys: list[str] | None = _listed(run) if run is not None else []  # what the run marked, when it knows
    marking = cleared_slips(store, ledger, account, body.date)
    if marking and run is None and not started:  # before the first mark: a run that stops is found and released
        store.reconciliations.start_run(
            ctx, store.locks.lock_held_op(lease), _run(RECONCILE, ctx, account, rid, body.date, listed=True)
        )
    at = now_iso()
    for batch in _transactions([Remark(s, _marked(s, account, rid, ctx.actor, at)) for s in marking]):
        changes = [slip_service.slip_change(r.current, r.new) for r in batch]
        tally = (account, rid, _cleared_sides([r.current for r in batch], account))
        if keys is not None and len(keys) + len(batch) > LISTED:
            keys = None
        listed = keys is not None
        store.reconciliations.remark_slips(
            ctx, store.locks.lock_held_op(lease), batch, changes, at=at, tally=tally, listed=listed
        )
        if keys is not None:
            keys += [r.current["SK"] for r in batch]
        lease = _kept(store, lease)
    item: Item = {
        "type": "reconciliation",
        "id": rid,
        "account": account,
        "date": body.date,
        "balance": body.balance,
        "difference": first_difference,
        "adjustment_slip": adjustment_id,
        "reconciled": already + _cleared_sides(marking, account),
        "at": at,
        "by": ctx.actor,
        "version": 1,
    }
    if keys is not None:  # what its undo lets go: these slips, none other read
        item.update(listed=True, slips=keys)
    item.update(_adjustment_left(store, ledger, adjustment_id))
    shown = view(item)
    store.reconciliations.store_reconciliation(
        ctx,
        store.locks.lock_held_op(lease),
        item,
        shown,
        balance=int(acct.get("balance", 0)),
        cleared=int(acct.get("cleared", 0)),
        cleared_after=held,
    )
    return 201, shown


def cleared_slips(store: Store, ledger: str, account: str, date: str) -> list[Item]:
    """The slips dated <= `date` whose side on `account` is cleared and not yet reconciled (what
    reconciling it marks), oldest first: the account's index of such sides, so what is read follows
    what is left to mark, not the account's history (the ledger's slips read through the account's
    index when its slips predate that index)."""
    found = store.slip_index.unreconciled_slips(ledger, account, date)
    if found is None:
        found = account_slips(store, ledger, account, date)
    return [s for s in found if s["date"] <= date and _cleared_sides([s], account)]


def _cleared_sides(slips: list[Item] | tuple[Item, ...], account: str) -> int:
    """How many sides of `slips` on `account` are cleared (not yet reconciled)."""
    return sum(1 for s in slips for side in _sides(s, account) if side.state == core.CLEARED)


def _kept(store: Store, lease: Lease) -> Lease:
    """The lease, renewed between batches once half its time has gone (a batch takes a fraction of
    it): not one more write per batch. Lost meanwhile, the next batch's check of it fails."""
    if lease.expires_at - store.core.now_ms() > LOCK_TTL * 1000 / 2:
        return lease
    return store.locks.renew_lock(lease, LOCK_TTL) or lease


def _transactions(remarks: list[Remark]) -> Iterator[list[Remark]]:
    """`remarks` in order, in batches of at most BATCH slips whose transaction stays within
    DynamoDB's 100 items: each slip and its identity, the index items their entries change (shared
    by the slips of one day), the lease's check, the run's tally, the journal and the guard."""

    def items_of(remark: Remark) -> set[Hashable]:
        index = index_items_changed(remark.current, remark.new)
        return {("slip", remark.current["id"]), ("identity", remark.current["id"]), *index}

    return batches(remarks, items_of, most=BATCH, room=TX_ITEMS)


def _by(slip: Item, side: core.Side) -> str | None:
    return slip.get(core.side_fields(side.role)[2])


def _marked(slip: Item, account: str, rid: str, actor: str, at: str) -> Item:
    """`slip` with its cleared sides on `account` reconciled by `rid`."""
    new = dict(slip)
    for side in _sides(slip, account):
        if side.state == core.CLEARED:
            _, state, by = core.side_fields(side.role)
            new[state], new[by] = core.RECONCILED, rid
    new.update(version=int(slip["version"]) + 1, updated_at=at, updated_by=actor)
    return new


def _reconcilers(slip: Item) -> list[str | None]:
    """The reconciliations `slip`'s reconciled sides name."""
    fields = [core.side_fields(role) for role in ("account", "to_account")]
    return [slip.get(by) for _, state, by in fields if slip.get(state) == core.RECONCILED]


def _released(slip: Item, rid: str, actor: str, at: str) -> Item:
    """`slip` with the sides `rid` reconciled back to cleared."""
    new = dict(slip)
    for role in ("account", "to_account"):
        _, state, by = core.side_fields(role)
        if new.get(state) == core.RECONCILED and new.get(by) == rid:
            new[state] = core.CLEARED
            new.pop(by, None)
    new.update(version=int(slip["version"]) + 1, updated_at=at, updated_by=actor)
    return new


def _adjustment_ids(rid: str) -> list[str]:
    """The ids an adjustment of `rid` may have: a new one after each undo (a deleted slip's id is
    never used again)."""
    return [derived_id(f"{rid}\nadjustment\n{n}") for n in range(20)]


def _adjustment_left(store: Store, ledger: str, slip_id: str | None) -> dict[str, int]:
    """What the assertion keeps of its adjustment (`slip_id`, if any): the version the
    reconciliation leaves it at, read from its identity (its undo deletes it only at that version)."""
    found = store.slips.slip_identity(ledger, slip_id) if slip_id is not None else None
    return {} if found is None or found.get("deleted") else {"adjustment_version": int(found["version"])}


def _adjustment_made(store: Store, ledger: str, rid: str) -> str | None:
    """The live adjustment slip of `rid`, if one was posted (a run resumed after a crash)."""
    for slip_id in _adjustment_ids(rid):
        found = store.slips.slip_identity(ledger, slip_id)
        if found is None:
            return None
        if not found.get("deleted"):
            return slip_id
    return None


def _adjustment(
    store: Store, ledger: str, account: Item, body: ReconciliationIn, diff: int
) -> tuple[SlipIn, dict[str, Any]]:
    """The difference as the slip that adjusts it (cleared, dated the statement's date, in the
    account's unit) and what its item keeps besides. In a foreign currency it says its yen as every
    slip there does (§21): the request's jpy_amount, else the difference at the rate the account
    is valued at as of the date (its latest slip up to then that gives one, as GET /balances), and
    then it is marked as made at a rate (it gives no rate of its own); no rate: 422 naming
    jpy_amount. A points adjustment counts at point_value; a yen one is yen."""
    made = core.adjustment(diff, body.category)
    assert made is not None  # noqa: S101 - a difference was found
    unit, jpy, marks = Unit.of(account), body.jpy_amount, {}
    if not (unit.yen or unit.points) and jpy is None:
        rate = rate_as_of(store, ledger, str(account["id"]), body.date)
        if rate is None:
            raise _refuse(
                "jpy_amount",
                f"account '{account['id']}' is in {unit.code} and none of its slips up to {body.date} says what "
                "its amounts came to in yen: send jpy_amount, the yen of the difference",
            )
        jpy, marks = yen_at_rate(made.amount, rate), {RATED: True}
    slip = SlipIn(
        date=body.date,
        kind=made.kind,
        amount=made.amount,
        account=str(account["id"]),
        category=made.category,
        memo=ADJUSTMENT_MEMO,
        cleared="cleared",
        jpy_amount=jpy,
    )
    return slip, marks


def _post_adjustment(
    store: Store, ctx: WriteContext, lease: Lease, *, rid: str, slip: SlipIn, marks: dict[str, Any]
) -> str:
    """The adjustment `slip`, through the one create path, exactly once."""
    for slip_id in _adjustment_ids(rid):
        found = store.slips.slip_identity(ctx.ledger, slip_id)
        if found is not None and found.get("deleted"):
            continue
        held = (store.locks.lock_held_op(lease),)  # a run whose lease was taken over posts nothing more
        made_slip = slip_service.create_slip(
            store, ctx, slip, slip_id=slip_id, request_token=slip_id, conditions=held, marks=marks
        )
        return str(made_slip["id"])
    raise errors.Conflict("this reconciliation was undone too often; reconcile with another Idempotency-Key")


def _listed(record: Item) -> list[str] | None:
    """The keys of the slips a run or an assertion (`record`) marked, when it listed them all (a
    run begun before runs listed them, or one with too many to list, did not: None)."""
    if not record.get("listed") or record.get("unlisted"):
        return None
    return [str(k) for k in record.get("slips") or ()]


def _release(
    store: Store,
    ctx: WriteContext,
    lease: Lease,
    *,
    account: str,
    rid: str,
    date: str,
    tally: bool,
    keys: list[str] | None = None,
) -> Lease:
    """The sides `rid` reconciled back to cleared, in batches under each slip's version; `tally`:
    its run's count of marked sides follows (a reconciliation let go, not an undo). `keys`: the
    slips it marked, as its run or assertion listed them: only those are read (else the account's
    slips up to `date`)."""
    at = now_iso()
    if keys is None:
        found = account_slips(store, ctx.ledger, account, date)
    else:
        found = sorted(store.core.batch_get(ctx.ledger, list(dict.fromkeys(keys))).values(),
                       key=lambda s: (s["date"], int(s["no"])))  # fmt: skip
    held = [
        s for s in found if any(side.state == core.RECONCILED and _by(s, side) == rid for side in _sides(s, account))
    ]
    for batch in _transactions([Remark(s, _released(s, rid, ctx.actor, at)) for s in held]):
        changes = [slip_service.slip_change(r.current, r.new) for r in batch]
        sides = sum(_by(r.current, side) == rid for r in batch for side in _sides(r.current, account))
        let_go = (account, rid, -sides) if tally else None
        store.reconciliations.remark_slips(ctx, store.locks.lock_held_op(lease), batch, changes, at=at, tally=let_go)
        lease = _kept(store, lease)
    return lease


# ---- runs that stopped ---------------------------------------------------------------------------


def _run(op: str, ctx: WriteContext, account: str, rid: str, date: str, **extra: Any) -> Item:
    """The marker of a run under way: what it does, to which reconciliation, as whom."""
    return {"op": op, "id": rid, "account": account, "date": date, "by": ctx.actor, "origin": ctx.origin,
            "started_at": now_iso(), **extra}  # fmt: skip


def _settle_runs(
    store: Store, ctx: WriteContext | None, lease: Lease, account: str, *, keep: tuple[str, str] | None = None
) -> Lease:
    """Under `lease` (taken, so any run that held it before has stopped): each run of `account`
    left unfinished, except `keep` (op, id), released (a reconciliation) or finished (an undo),
    as `ctx` or, when None, as whoever started it."""
    for run in store.reconciliations.reconciliation_records(lease.ledger, account):
        if run.get("type") != RUN or (run["op"], run["id"]) == keep:
            continue
        writer = ctx or poster_for(lease.ledger, run.get("by"), str(run.get("origin") or "api"))
        if writer is None:
            continue
        if run["op"] == UNDO:
            try:
                lease = _finish_undo(store, writer, lease, run)
            except errors.UndoRefused:  # given up, nothing written: the account goes on without it
                continue
        else:
            lease = _abandon(store, writer, lease, account=account, rid=str(run["id"]), date=str(run["date"]))
    return lease


def _settled(store: Store, ledger: str, account: str, ctx: WriteContext | None) -> bool:
    """Whether the account's stopped runs were settled now: False while a run holds a live lease
    (it is under way), or when settling them failed (they are left for the next one to ask)."""
    try:
        lease = store.locks.acquire_lock(ledger, lock_name(account), LOCK_TTL)
    except errors.Locked:
        return False
    try:
        _settle_runs(store, ctx, lease, account)
    except errors.ApiError:
        return False
    finally:
        store.locks.release_lock(lease)
    return True


def settle_refused(store: Store, ctx: WriteContext, refused: errors.Reconciled) -> bool:
    """An edit was refused (409 reconciled) by a reconciliation that has a run under way: if that
    run stopped (its lease expired), settle it now. True: the edit may be tried again."""
    account, rid = refused.context.get("account"), refused.context.get("reconciliation")
    if not account or not rid or store.reconciliations.reconciliation_run(ctx.ledger, str(account), str(rid)) is None:
        return False
    return _settled(store, ctx.ledger, str(account), ctx)


def _abandon(store: Store, ctx: WriteContext, lease: Lease, *, account: str, rid: str, date: str) -> Lease:
    """An unfinished reconciliation let go, as if it never ran: the sides it marked back to cleared
    (in batches), its adjustment deleted, its marker removed last. Nothing to do without a marker
    (it wrote nothing)."""
    run = store.reconciliations.reconciliation_run(ctx.ledger, account, rid)
    if run is None:
        return lease
    lease = _release(store, ctx, lease, account=account, rid=rid, date=date, tally=True, keys=_listed(run))
    adjustment = _adjustment_made(store, ctx.ledger, rid)
    if adjustment is not None:
        _delete_adjustment(store, ctx, lease, adjustment)
    store.reconciliations.end_run(ctx, store.locks.lock_held_op(lease), account, rid)
    return lease


def _delete_adjustment(
    store: Store, ctx: WriteContext, lease: Lease, slip_id: str, *, rid: str | None = None, left: Any = None
) -> None:
    """A reconciliation's adjustment slip deleted through the one delete path, under the lease.
    `rid`: an undo of that reconciliation, which deletes the slip only as the reconciliation left it
    (at version `left`; an assertion stored before it kept that version: still reconciled by it),
    reconciled sides and all, in one transaction; else UndoRefused (412) and nothing is written.
    Without `rid` (a run let go), the slip as it is now, once released."""
    current = store.slips.slip_by_id(ctx.ledger, slip_id)
    if current is None:
        return
    held = (store.locks.lock_held_op(lease),)
    if rid is None:  # changed meanwhile: 409 conflict, the run is let go on the next try
        slip_service.remove_slip(store, ctx, current, slip_service.SlipWrite(None, conditions=held))
        return
    version, reconcilers = int(current["version"]), _reconcilers(current)
    expected = int(left) if left is not None else version
    kept = version == expected and (left is not None or bool(reconcilers))  # without `left`: still reconciled
    if not kept or any(by != rid for by in reconcilers):
        raise _adjustment_moved(slip_id, rid, current=version, expected=int(left) if left is not None else None)
    try:  # its sides reconciled by `rid` go with it (the assertion goes next)
        slip_service.remove_slip(store, ctx, current, slip_service.SlipWrite(expected, unlock=True, conditions=held))
    except errors.VersionMismatch as exc:  # changed between the read and the delete
        raise _adjustment_moved(slip_id, rid, current=exc.context.get("current"), expected=expected) from exc


def _adjustment_moved(slip_id: str, rid: str, *, current: int | None, expected: int | None) -> errors.UndoRefused:
    return errors.UndoRefused(
        f"the adjustment slip '{slip_id}' of reconciliation '{rid}' changed since: the reconciliation is not undone",
        entity="slip", id=slip_id, current=current, expected=expected, adjustment_of=rid,
    )  # fmt: skip


def _finish_undo(store: Store, ctx: WriteContext, lease: Lease, run: Item) -> Lease:
    """An undo (`run`) carried to its end: its reconciliation's adjustment deleted first (one
    transaction, only while it is as the reconciliation left it), then the slips it marked back to
    cleared, then the assertion removed, the marker with it and the entry marked undone.
    An assertion no longer at the version the undo read is left as it is (the marker goes). An
    adjustment changed since (edited, or unlocked and reconciled again) is not taken back: the
    undo is given up before it wrote anything, its marker removed (412, UndoRefused); nothing
    else was changed, and the account stays reconcilable."""
    ledger, account, rid = ctx.ledger, str(run["account"]), str(run["id"])
    item = store.reconciliations.reconciliation(ledger, account, rid)
    if item is None or int(item["version"]) != int(run["version"]):
        store.reconciliations.end_run(ctx, store.locks.lock_held_op(lease), account, rid)
        return lease
    adjustment = item.get("adjustment_slip")
    if adjustment:
        try:
            _delete_adjustment(store, ctx, lease, str(adjustment), rid=rid, left=item.get("adjustment_version"))
        except errors.UndoRefused:
            store.reconciliations.end_run(ctx, store.locks.lock_held_op(lease), account, rid)
            raise
    keys = _listed(item)
    lease = _release(store, ctx, lease, account=account, rid=rid, date=str(item["date"]), tally=False, keys=keys)
    store.reconciliations.remove_reconciliation(
        ctx, store.locks.lock_held_op(lease), item, view(item), undoes=int(run["seq"]), at=now_iso()
    )
    return lease


# ---- undo ----------------------------------------------------------------------------------------


def undo(store: Store, ctx: WriteContext, change: dict[str, Any], seq: int) -> None:
    """Undo of the entry that stored a reconciliation, as a run under the account's lease: its
    marker first, its slips back to cleared (in batches, each under the slip's version), its
    adjustment slip deleted, then the assertion removed with the entry marked undone. Resumable:
    sent again, or found stopped by whoever next takes the lease, it lets go only what is left."""
    after = change.get("after")
    if change["op"] != "create" or after is None:
        raise errors.NotUndoable("this entry undid nothing that can be undone")
    ledger, account, rid = ctx.ledger, str(after["account"]), str(change["id"])
    item = store.reconciliations.reconciliation(ledger, account, rid)
    expected = int(after["version"])
    if item is None or int(item["version"]) != expected:
        raise errors.UndoRefused(
            f"reconciliation '{rid}' changed since that entry",
            entity="reconciliation", id=rid, current=int(item["version"]) if item else None, expected=expected,
        )  # fmt: skip
    lease = store.locks.acquire_lock(ledger, lock_name(account), LOCK_TTL)
    try:
        lease = _settle_runs(store, ctx, lease, account, keep=(UNDO, rid))
        run = _run(UNDO, ctx, account, rid, str(item["date"]), seq=seq, version=expected)
        store.reconciliations.start_run(ctx, store.locks.lock_held_op(lease), run)
        _finish_undo(store, ctx, lease, run)
    finally:
        store.locks.release_lock(lease)
