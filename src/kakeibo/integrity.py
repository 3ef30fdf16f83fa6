"""Verify and rebuild: every balance item recomputed from the slips alone.

verify: reads the whole ledger (one partition), recomputes every account balance, day total and
month x category total (ledger.recompute) and reports the fields that differ. It takes no lock,
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
The same pass writes the identity item of every slip written before slips had one (store.identity_of).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from kakeibo import errors, ledger
from kakeibo.ledger import AccountItem, CategoryMonthItem, ItemKey, Mismatch
from kakeibo.services.slips import entry_of
from kakeibo.store import LEDGER_LOCK, Item, Lease, Store, TxOp, derived_key, derived_sk, identity_of

LEASE_SECONDS = 60.0  # longer than any invocation (Lambda timeout <= API Gateway's 30 s)
MAX_LISTED = 1000
MIN_SECONDS_LEFT = 2.0
TimeLeft = Callable[[], float]


@dataclass
class Snapshot:
    opening: dict[str, int] = field(default_factory=dict)
    stored: dict[ItemKey, dict[str, int]] = field(default_factory=dict)
    limits: dict[CategoryMonthItem, int] = field(default_factory=dict)
    entries: list[ledger.Entry] = field(default_factory=list)
    slips: list[Item] = field(default_factory=list)
    identities: set[str] = field(default_factory=set)  # slip ids that have an identity item
    import_rows: list[Item] = field(default_factory=list)  # ROW# marks of imports before identities

    @cached_property
    def expected(self) -> dict[ItemKey, dict[str, int]]:
        return ledger.with_budgets(ledger.recompute(self.entries, self.opening), self.limits)

    def mismatches(self) -> list[Mismatch]:
        return ledger.diff(self.expected, self.stored)

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


def read(store: Store, who: str) -> Snapshot:
    """Every slip and balance item of the ledger (one consistent query of its partition)."""
    snap = Snapshot()
    for item in store.ledger_items(who):
        sk: str = item["SK"]
        if sk.startswith("SLIP#"):
            snap.entries.append(entry_of(item))
            snap.slips.append(item)
            continue
        if sk.startswith("ID#"):
            snap.identities.add(sk.removeprefix("ID#"))
            continue
        if sk.startswith("ROW#"):
            snap.import_rows.append(item)
            continue
        key = derived_key(sk)
        if key is None:
            continue
        if isinstance(key, AccountItem):
            snap.opening[key.account] = int(item.get("opening_balance", 0))
        if isinstance(key, CategoryMonthItem) and "limit" in item:
            snap.limits[key] = int(item["limit"])
        snap.stored[key] = {name: int(item.get(name, 0)) for name in ledger.FIELDS[type(key)]}
    return snap


def view(found: Sequence[Mismatch]) -> dict[str, Any]:
    return {
        "mismatch_count": len(found),
        "mismatches": [
            {"item": derived_sk(m.key), "field": m.field, "expected": m.expected, "actual": m.actual}
            for m in found[:MAX_LISTED]
        ],
    }


def verify(store: Store, who: str) -> dict[str, Any]:
    found = read(store, who).mismatches()
    if found:  # confirm: a slip written during the first read must not be reported

        def signature(m: Mismatch) -> tuple[Any, ...]:
            return (m.key, m.field, None if m.actual is None else m.actual - m.expected)

        again = {signature(m) for m in found}
        found = [m for m in read(store, who).mismatches() if signature(m) in again]
    return {"ok": not found, **view(found)}


def rebuild(store: Store, who: str, *, time_left: TimeLeft | None = None) -> dict[str, Any]:
    """Rewrite every balance item that differs from the slips, under the ledger lock; give every
    slip written before slips had identity items its identity (and deleted imported rows theirs)."""
    lease = store.acquire_lock(who, LEDGER_LOCK, ttl=LEASE_SECONDS)
    accounts: list[str] = []
    try:
        accounts = store.account_ids(who)
        _in_batches(store, lease, [store.mark_op(lease, a) for a in accounts])
        snap = read(store, who)
        found = snap.mismatches()
        expected = snap.expected
        # An account item that is missing cannot be derived (no name or type): it stays reported.
        keys = sorted(
            {m.key for m in found if m.actual is not None or not isinstance(m.key, AccountItem)},
            key=derived_sk,
        )
        backfill = [store.backfill_identity_op(lease, found) for found in snap.missing_identities()]
        ops = backfill + [store.set_balance_op(lease, key, _all_fields(key, expected.get(key, {}))) for key in keys]
        written = _in_batches(store, lease, ops, time_left)
    finally:
        try:
            for account in accounts:
                # a mark left behind expires with the lease; the next account must still be freed
                with suppress(errors.ApiError):
                    store.unmark(lease, account)
        finally:
            with suppress(errors.ApiError):  # an unreleased lease expires by itself
                store.release_lock(lease)
    complete = written == len(ops)
    identities = min(written, len(backfill))
    return {"complete": complete, "written": written - identities, "identities": identities, **view(found)}


def _all_fields(key: ItemKey, values: dict[str, int]) -> dict[str, int]:
    return {name: values.get(name, 0) for name in ledger.FIELDS[type(key)]}


def _in_batches(store: Store, lease: Lease, ops: Sequence[TxOp], time_left: TimeLeft | None = None) -> int:
    """Run `ops` in transactions that each also check the lease is ours. Returns how many ran."""
    size = 99  # plus the lease check: TransactWriteItems takes 100
    for start in range(0, len(ops), size):
        if time_left is not None and time_left() < MIN_SECONDS_LEFT:
            return start
        try:
            store.transact([store.lock_held_op(lease), *ops[start : start + size]])
        except errors.Conflict as exc:
            raise errors.Conflict(f"the rebuild stopped: {exc.detail}; run it again") from exc
    return len(ops)
