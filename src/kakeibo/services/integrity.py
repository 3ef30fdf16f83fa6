"""Verify and rebuild: every balance item recomputed from the slips alone.

verify: reads the whole ledger (one partition), recomputes every account balance, day total and
month x category total (posting.recompute) and reports the fields that differ. It takes no lock,
so a slip written while it reads could look like a mismatch: when it finds any, it reads again
and reports only those found both times with the same difference.

rebuild: repairs them, without ever interleaving with a slip change:
1. take the ledger lease (LOCK#ledger, store.acquire_lock); account creation checks it;
2. mark every account item with the lease's token and expiry: from then on every slip
   transaction fails its account condition (store.FENCE) and the API answers 423 + Retry-After;
3. read everything (consistently), recompute, and set each item that differs to its value, in
   transactions that each also check the lease is still ours (store.lock_held_op);
4. remove the marks and release the lease (also on failure). If the process dies instead, the
   marks and the lease expire by themselves after LEASE_SECONDS.
Budgets survive: a month x category item keeps limit and strict; remaining = limit - spent.
A complete rebuild also marks every account's month and year items complete (store.ROLLUPS_MARK):
a ledger written before those items existed is read by day totals until then.
The same pass writes the identity item of every slip written before slips had one (store.identity_of),
and makes the slip index exactly what the slips say (store.slip_index_sks): it sets the index entries
that are missing, removes those no slip has, deletes the items of the former one-item-per-slip
layout and the items left empty, and then marks the ledger `indexed` (filtered lists read the index
from then on). verify reports a missing entry as its item and slip number with expected 1 actual 0,
one too many (and an item of the former layout, as `present`) with expected 0 actual 1, and a ledger
not marked indexed as `indexed` expected INDEX_FORMAT.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from kakeibo import errors
from kakeibo.core import posting
from kakeibo.core.posting import AccountItem, CategoryMonthItem, ItemKey, Mismatch, NetsItem, TaxYearItem
from kakeibo.core.tax import is_tax_field
from kakeibo.core.units import POINTS
from kakeibo.services import accounts as account_service
from kakeibo.services import budgets as budget_service
from kakeibo.services import journal
from kakeibo.services import points as points_service
from kakeibo.services import recurrences as recurrence_service
from kakeibo.services import slips as slip_service
from kakeibo.services.common import TimeLeft
from kakeibo.services.slips import entry_of
from kakeibo.store import (
    CLEARED_INDEXED,
    GUARD_ITEMS,
    INDEX_FORMAT,
    INDEXED,
    Item,
    Lease,
    Store,
    TxOp,
    WriteContext,
    entry_changes,
    entry_place,
    identity_of,
    index_entries,
    item_name,
)
from kakeibo.store.rebuild import COUNTER, IDENTITY, IMPORT_ROW, INDEX, LEGACY_INDEX, LOTS, SETTLEMENT, SLIP

NETS_SUM = "sum"  # a mismatch on the nets item: its members' nets do not sum to 0
LEASE_SECONDS = 60.0  # longer than any invocation (Lambda timeout <= API Gateway's 30 s)
MAX_LISTED = 1000
MIN_SECONDS_LEFT = 2.0


@dataclass
class Snapshot:
    opening: dict[str, int] = field(default_factory=dict)
    stored: dict[ItemKey, dict[str, int]] = field(default_factory=dict)
    limits: dict[CategoryMonthItem, int] = field(default_factory=dict)
    entries: list[posting.Entry] = field(default_factory=list)
    slips: list[Item] = field(default_factory=list)
    identities: set[str] = field(default_factory=set)  # slip ids that have an identity item
    import_rows: list[Item] = field(default_factory=list)  # the marks of rows imported before identities
    index: set[str] = field(default_factory=set)  # the slip index entries stored
    legacy_index: set[str] = field(default_factory=set)  # items of the former layout (one per slip)
    empty_index: set[str] = field(default_factory=set)  # index items that hold no entry
    counter: Item | None = None  # the slip counter, if any slip was ever numbered
    settlements: list[posting.Settlement] = field(default_factory=list)  # recorded (shared ledgers)
    lots: dict[str, Item] = field(default_factory=dict)  # points account -> its lots item
    points_accounts: dict[str, int] = field(default_factory=dict)  # points account -> opening balance

    @cached_property
    def expected(self) -> dict[ItemKey, dict[str, int]]:
        return posting.with_budgets(posting.recompute(self.entries, self.opening, self.settlements), self.limits)

    def mismatches(self) -> list[Mismatch]:
        found = posting.diff(self.expected, self.stored)
        nets = self.stored.get(NetsItem())
        if nets is not None and posting.nets_total(nets) != 0:  # the nets of a ledger sum to 0, always
            found.append(Mismatch(NetsItem(), NETS_SUM, 0, posting.nets_total(nets)))
        return found

    @cached_property
    def expected_index(self) -> set[str]:
        return {entry for slip in self.slips for entry in index_entries(slip)}

    def index_problems(self) -> list[IndexProblem]:
        """Index entries missing or in excess, items of the former layout, and a counter that does
        not (yet) say `indexed` (or `cleared_indexed`)."""
        found = [_entry_problem(entry, 1, 0) for entry in sorted(self.expected_index - self.index)]
        found += [_entry_problem(entry, 0, 1) for entry in sorted(self.index - self.expected_index)]
        found += [IndexProblem(sk, "present", 0, 1) for sk in sorted(self.legacy_index)]
        if self.counter is not None and self.counter.get(INDEXED) != INDEX_FORMAT:
            found.append(IndexProblem(self.counter["SK"], INDEXED, INDEX_FORMAT, 0))
        if self.counter is not None and not self.counter.get(CLEARED_INDEXED):
            found.append(IndexProblem(self.counter["SK"], CLEARED_INDEXED, 1, 0))
        return found

    def expected_lots(self, account: str) -> dict[str, str]:
        item = self.lots[account]
        through = item.get("through")
        return points_service.expected_events(
            self.slips, account, self.points_accounts[account], str(through) if through else None
        )

    def lots_account(self, problem: points_service.LotsProblem) -> str:
        return next(account for account, item in self.lots.items() if item["SK"] == problem.item)

    def lots_problems(self) -> list[points_service.LotsProblem]:
        """The stored lots of each points account against what its slips make (an account whose lots
        were never stored has them built from its slips on its next write: nothing to compare)."""
        found = []
        for account in sorted(self.lots.keys() & self.points_accounts.keys()):
            found += points_service.lots_problems(self.lots[account], self.expected_lots(account))
        return found

    @property
    def marked_indexed(self) -> bool:
        """Whether the slip counter says every slip is indexed, its cleared sides included."""
        return self.counter is None or (
            self.counter.get(INDEXED) == INDEX_FORMAT and bool(self.counter.get(CLEARED_INDEXED))
        )

    def missing_identities(self) -> list[Item]:
        """The identity items that slips written before identities existed should have: one per
        slip, and a tombstone per imported row whose slip has been deleted since."""
        found = [identity_of(slip) for slip in self.slips if slip["id"] not in self.identities]
        live = self.identities | {slip["id"] for slip in self.slips}
        for row in self.import_rows:
            slip_id = row["slip_id"]
            if slip_id not in live:
                live.add(slip_id)
                gone = {"id": slip_id, "date": row["date"], "version": 0, "import_id": row.get("import_id")}
                found.append(identity_of({**gone, "created_at": row.get("created_at")}, deleted=True))
        return found


def read(store: Store, ledger: str) -> Snapshot:
    """Every slip and balance item of the ledger (one consistent query of its partition)."""
    snap = Snapshot()
    for read in store.rebuild.read_ledger(ledger):
        item = read.item
        if read.kind == SLIP:
            snap.entries.append(entry_of(item))
            snap.slips.append(item)
            continue
        if read.kind == IDENTITY:
            snap.identities.add(str(read.slip_id))
            continue
        if read.kind == IMPORT_ROW:
            snap.import_rows.append(item)
            continue
        if read.kind == INDEX:
            snap.index.update(read.entries)
            if not read.entries:
                snap.empty_index.add(read.name)
            continue
        if read.kind == LEGACY_INDEX:
            snap.legacy_index.add(read.name)
            continue
        if read.kind == COUNTER:
            snap.counter = item
            continue
        if read.kind == LOTS:
            snap.lots[str(item["account"])] = item
            continue
        if read.kind == SETTLEMENT:
            snap.settlements.append(posting.Settlement(item["payer"], item["payee"], int(item["amount"])))
            continue
        key = read.key
        if key is None:
            continue
        if isinstance(key, NetsItem):  # one field per member and kind (paid, share, settled)
            snap.stored[key] = {name: int(value) for name, value in item.items() if posting.is_net_field(name)}
            continue
        if isinstance(key, TaxYearItem):  # one field per group of medical payments and per municipality
            snap.stored[key] = {name: int(value) for name, value in item.items() if is_tax_field(name)}
            continue
        if isinstance(key, AccountItem):
            snap.opening[key.account] = int(item.get("opening_balance", 0))
            if item.get("unit") == POINTS:
                snap.points_accounts[key.account] = int(item.get("opening_balance", 0))
        if isinstance(key, CategoryMonthItem) and "limit" in item:
            snap.limits[key] = int(item["limit"])
        snap.stored[key] = {name: int(item.get(name, 0)) for name in posting.fields_of(key, item)}
    return snap


@dataclass(frozen=True)
class IndexProblem:
    """A slip index entry missing (expected 1) or in excess (expected 0), as its item and the slip's
    number; an item of the former layout (`present`, expected 0); or the counter's mark."""

    item: str
    field: str
    expected: int
    actual: int


def _entry_problem(entry: str, expected: int, actual: int) -> IndexProblem:
    item, number = entry_place(entry)
    return IndexProblem(item, number, expected, actual)


def view(found: Sequence[Mismatch], index: Sequence[IndexProblem | points_service.LotsProblem] = ()) -> dict[str, Any]:
    listed = [
        {"item": item_name(m.key), "field": m.field, "expected": m.expected, "actual": m.actual}
        for m in found[:MAX_LISTED]
    ]
    listed += [
        {"item": p.item, "field": p.field, "expected": p.expected, "actual": p.actual}
        for p in index[: max(0, MAX_LISTED - len(listed))]
    ]
    return {"mismatch_count": len(found) + len(index), "mismatches": listed}


def verify(store: Store, ledger: str) -> dict[str, Any]:
    snap = read(store, ledger)
    found, index, lots = snap.mismatches(), snap.index_problems(), snap.lots_problems()
    if found or index or lots:  # confirm: a slip written during the first read must not be reported

        def signature(m: Mismatch) -> tuple[Any, ...]:
            return (m.key, m.field, None if m.actual is None else m.actual - m.expected)

        again, seen, seen_lots = {signature(m) for m in found}, set(index), set(lots)
        snap = read(store, ledger)
        found = [m for m in snap.mismatches() if signature(m) in again]
        index = [p for p in snap.index_problems() if p in seen]
        lots = [p for p in snap.lots_problems() if p in seen_lots]
    replayed = replay_journal(store, ledger)
    if replayed["mismatches"]:  # a change committed while it was read is not a mismatch: read again
        replayed = replay_journal(store, ledger)
    ok = not found and not index and not lots and not replayed["mismatches"]
    from kakeibo.services.reconciliations import broken_assertions  # noqa: PLC0415

    # an assertion that no longer holds is the user's to settle (a slip unlocked and changed): listed, not a mismatch
    broken = broken_assertions(store, ledger)
    return {"ok": ok, **view(found, [*index, *lots]), "journal": replayed, "reconciliations": broken}


def rebuild(store: Store, ctx: WriteContext, *, time_left: TimeLeft | None = None) -> dict[str, Any]:
    """Rewrite every balance item that differs from the slips, under the ledger lock; give every
    slip written before slips had identity items its identity (and deleted imported rows theirs).
    It changes no entity: the journal is never rewritten (each batch is bookkeeping under the
    owner's guard)."""
    ledger = ctx.ledger
    lease = store.rebuild.hold_ledger(ledger, ttl=LEASE_SECONDS)
    accounts: list[str] = []
    try:
        accounts = store.accounts.account_ids(ledger)
        _in_batches(store, ctx, lease, [store.rebuild.mark_op(lease, a) for a in accounts])
        snap = read(store, ledger)
        found = snap.mismatches()
        expected = snap.expected
        # An account item that is missing cannot be derived (no name or type): it stays reported.
        keys = sorted(
            {m.key for m in found if m.actual is not None or not isinstance(m.key, AccountItem)},
            key=item_name,
        )
        stored = snap.stored
        backfill = [store.rebuild.backfill_identity_op(lease, found) for found in snap.missing_identities()]
        index = store.slip_index.index_ops(
            ledger, put=snap.expected_index - snap.index, delete=snap.index - snap.expected_index
        )
        index += store.slip_index.dropped_index_ops(ledger, snap.legacy_index | snap.empty_index)
        ops = backfill + [
            store.rebuild.set_balance_op(lease, key, _all_fields(key, expected.get(key, {}), stored.get(key, {})))
            for key in keys
        ]
        lots = snap.lots_problems()
        ops += [
            points_service.repaired_lots_op(store, ledger, snap.lots[account], snap.expected_lots(account), ctx.actor)
            for account in sorted({str(snap.lots_account(p)) for p in lots})
        ]
        ops += index
        written = _in_batches(store, ctx, lease, ops, time_left)
        if written == len(ops):
            # every month and year item is right by now: reads may trust them from here on; and
            # every slip has its index items: filtered lists may read the index
            done = [store.rebuild.rollups_complete_op(lease, a) for a in accounts]
            if not snap.marked_indexed:
                done.append(store.rebuild.indexed_op(lease))
            _in_batches(store, ctx, lease, done, time_left)
    finally:
        try:
            for account in accounts:
                # a mark left behind expires with the lease; the next account must still be freed
                with suppress(errors.ApiError):
                    store.rebuild.unmark(lease, account)
        finally:
            with suppress(errors.ApiError):  # an unreleased lease expires by itself
                store.locks.release_lock(lease)
    complete = written == len(ops)
    identities = min(written, len(backfill))
    indexed = max(0, written - (len(ops) - len(index)))
    return {
        "complete": complete,
        "written": written - identities - indexed,
        "identities": identities,
        "index": indexed,
        **view(found, [*snap.index_problems(), *lots]),
    }


def _all_fields(key: ItemKey, values: dict[str, int], stored: dict[str, int]) -> dict[str, int]:
    """Every field the item should have, and 0 for a member field stored that should not be there."""
    return {name: values.get(name, 0) for name in posting.fields_of(key, values, stored)}


def _in_batches(
    store: Store, ctx: WriteContext, lease: Lease, ops: Sequence[TxOp], time_left: TimeLeft | None = None
) -> int:
    """Run `ops` in transactions that each also check the lease is ours (and the owner's role).
    Returns how many ran."""
    size = 100 - 1 - GUARD_ITEMS  # plus the lease check and the guard: TransactWriteItems takes 100
    for start in range(0, len(ops), size):
        if time_left is not None and time_left() < MIN_SECONDS_LEFT:
            return start
        try:
            store.write.record(ctx, [store.locks.lock_held_op(lease), *ops[start : start + size]])
        except errors.Conflict as exc:
            raise errors.Conflict(f"the rebuild stopped: {exc.detail}; run it again") from exc
    return len(ops)


def replay_journal(store: Store, ledger: str) -> dict[str, Any]:
    """verify's look at the journal: replayed, every slip, account, budget and recurrence it names is
    as its last entry left it (entities from before the journal are not in it)."""
    state: dict[tuple[str, str], dict[str, Any] | None] = {}
    count = 0
    for entry in journal.all_entries(store, ledger):
        count += 1
        for change in entry_changes(entry):
            if change["type"] in journal.UNDOABLE:
                state[(change["type"], change["id"])] = change.get("after")
    mismatches = []
    for (kind, entity), replayed in sorted(state.items()):
        actual = _record(store, ledger, kind, entity)
        if actual != replayed:
            mismatches.append({"type": kind, "id": entity, "journal": replayed, "actual": actual})
    return {"entries": count, "head": store.journal.journal_head(ledger), "mismatches": mismatches[:100]}


def _record(store: Store, ledger: str, kind: str, entity: str) -> dict[str, Any] | None:
    """An entity's public view as the journal records it, read from the ledger now."""
    if kind == "slip":
        item = store.slips.slip_by_id(ledger, entity)
        return slip_service.slip_view(item) if item else None
    if kind == "account":
        return account_service.account_record(store.accounts.account(ledger, entity))
    if kind == "budget":
        month, category = entity.split("/", 1)
        return budget_service.budget_record(store.budgets.budget_item(ledger, month, category))
    return recurrence_service.recurrence_record(store.recurrences.read_recurrence(ledger, entity))
