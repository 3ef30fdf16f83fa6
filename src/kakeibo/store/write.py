"""The write path: who writes (the write context and its role guard) and the one way a change
reaches the table.

A `WriteContext` is the one thing every write takes: the ledger, who writes (the actor), the role
guard that must still hold when the transaction commits, the origin and the request id. A shared
ledger cannot be written without a guard: the type refuses it, so no path can write as a member
whose role was never checked.

`commit` is the one way a change reaches the table: the change's own operations, the guard's
ConditionCheck on the member item, and its journal entry (store/journal.py), all in one
TransactWriteItems. So journal order is commit order and seq has no gaps. A writer that finds the
head moved (another change committed first) builds the same transaction again on the new head,
inside the request: never a 412. `record` writes bookkeeping (an import's status, a recurrence's
progress) under the guard, without an entry: it changes no entity a reader replays.

A ledger whose head is fenced (a deleted person's personal ledger, store/journal.py's GONE) takes
no change: the head's condition fails, the writer gets 404 as for any ledger it cannot reach, and
what the request wrote before its transaction (a slip's number) is swept away again. A deleted
shared ledger takes none either: its member items went when its deletion began, so the guard
fails; what the request wrote before it is swept away as well once its tombstone is found.

Bookkeeping is fenced too: a `record` without a member to check (a personal ledger's, or the daily
job's on any ledger) checks, in the same transaction, that the ledger has no tombstone
(keys.gone_pk: written when its deletion begins, before any item is removed). So a receipt's claim,
an export's start or an import's status racing a deletion either lands before the deletion's sweep
(which removes it) or is refused (404): nothing is left behind. The deletion's own records
(`Bookkeeping(..., deleting=True)`) are the ones that may write while it runs.
"""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from kakeibo import errors
from kakeibo.store.codec import Item, to_ddb
from kakeibo.store.journal import GONE, Change, HeadMoved, JournalOps, LedgerGone
from kakeibo.store.keys import (
    INVITATION_REFS,
    META_SK,
    SharedLedger,
    change_sk,
    gone_pk,
    household_pk,
    lock_sk,
    member_sk,
    pk,
)
from kakeibo.store.transactions import ConditionFailed, StoreCore, TxOp

# Where a change comes from: a request, an import, the daily job's postings (recurring slips, card
# payments and points that lapse), an undo, or the job's own bookkeeping.
ORIGINS = ("api", "import", "recurrence", "card_payment", "undo", "job", "point_lapse")
HEAD_ATTEMPTS = 60  # head conflicts retried inside the request (jittered) before a 409
HEAD_MAX_DELAY = 0.2
GUARD_ITEMS = 1  # what the writer's member check adds to a transaction, on a shared ledger


@dataclass(frozen=True)
class Guard:
    """The member item that must hold one of `roles` when the transaction commits."""

    user: str
    roles: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.roles:
            raise ValueError("a guard names the roles it allows")


@dataclass(frozen=True)
class WriteContext:
    """Who writes what where: every write transaction is built from one.

    A personal ledger is written by its owner alone (`actor` is its `sub`) and needs no guard; a
    shared ledger always has one. Build it with `personal` or `member` (or, for the two writes that
    make a member, `founding` and `invited`)."""

    ledger: str  # the store's reference: a personal `sub`, or a SharedLedger
    actor: str
    guard: Guard | None
    origin: str = "api"
    request_id: str | None = None

    def __post_init__(self) -> None:
        if self.origin not in ORIGINS:
            raise ValueError(f"unknown origin {self.origin!r}")
        if isinstance(self.ledger, SharedLedger):
            if self.guard is None:
                raise ValueError("a shared ledger is written under a role guard")
        elif self.actor != str(self.ledger) or self.guard is not None:
            raise ValueError("a personal ledger is written by its owner")

    @classmethod
    def personal(cls, user: str, *, origin: str = "api", request_id: str | None = None) -> WriteContext:
        return cls(user, user, None, origin, request_id)

    @classmethod
    def member(
        cls, ledger_id: str, user: str, roles: tuple[str, ...], *, origin: str = "api", request_id: str | None = None
    ) -> WriteContext:
        """A member writes: their member item must still hold one of `roles` at commit."""
        return cls(SharedLedger(ledger_id), user, Guard(user, roles), origin, request_id)

    @classmethod
    def founding(cls, ledger_id: str, user: str, *, request_id: str | None = None) -> WriteContext:
        """The ledger's creation: the transaction itself makes `user` its owner (the guard's item is
        written by it, with `attribute_not_exists`)."""
        return cls(SharedLedger(ledger_id), user, Guard(user, ("owner",)), "api", request_id)

    @classmethod
    def invited(cls, ledger_id: str, user: str, inviter: str, *, request_id: str | None = None) -> WriteContext:
        """An invitation accepted: `user` becomes a member on the word of `inviter`, who must still be
        an owner when it commits (an invitation is worth what its author is)."""
        return cls(SharedLedger(ledger_id), user, Guard(inviter, ("owner",)), "api", request_id)

    def as_origin(self, origin: str) -> WriteContext:
        return WriteContext(self.ledger, self.actor, self.guard, origin, self.request_id)

    @property
    def shared(self) -> bool:
        return isinstance(self.ledger, SharedLedger)


@dataclass(frozen=True)
class Bookkeeping:
    """What the system keeps on a ledger besides its entities (a recurrence's progress, an import's
    status): written under `guard` when one is given, and never journaled."""

    ledger: str
    guard: Guard | None = None
    deleting: bool = False  # the ledger's deletion's own records: written past its tombstone


def _not_a_member(current: Item | None) -> errors.ApiError:
    """A writer's member check failed: gone from the ledger (404, as for any non-member) or demoted."""
    if current is None:
        return errors.NoLongerMember("not found")
    return errors.RoleRevoked("your role in this ledger does not allow this change", role=str(current.get("role")))


class WriteOps:
    """The write context's transactions: `commit` (journaled) and `record` (bookkeeping)."""

    def __init__(self, core: StoreCore, journal: JournalOps) -> None:
        self.core = core
        self.journal = journal

    def commit(
        self,
        ctx: WriteContext,
        ops: Sequence[TxOp] | Callable[[int], Sequence[TxOp]],
        changes: Sequence[Change],
        *,
        token: str | None = None,
        at: str,
        undoes: int | None = None,
        group: str | None = None,
    ) -> int:
        """One transaction: `ops`, the writer's guard and the journal entry of `changes`. The seq of
        the entry it wrote. A head conflict is retried here on the new head. `ops` may be built from
        the seq the entry gets (an item that must know the entry that made it). `group`: the bulk
        edit the entry is a batch of (§28), kept on the entry."""
        if not changes:
            raise ValueError("a change commits with what it changed")
        body = json.dumps([c.as_dict() for c in changes], ensure_ascii=False, separators=(",", ":"))
        first_token = (token or str(uuid.uuid4()))[:36]
        seen = self.journal.seen_head(ctx.ledger)
        for attempt in range(HEAD_ATTEMPTS):
            seq = seen + 1
            entry: Item = {
                "SK": change_sk(seq),
                "type": "change",
                "seq": seq,
                "at": at,
                "by": ctx.actor,
                "origin": ctx.origin,
                "request_id": ctx.request_id,
                "changes": body,
                "undoes": undoes,
            }
            if group is not None:
                entry["bulk"] = group
            journal = self.journal.journal_ops(ctx.ledger, seen, entry, undoes)
            attempt_token = first_token if attempt == 0 else str(uuid.uuid5(uuid.NAMESPACE_URL, f"{first_token}/{seq}"))
            built = ops(seq) if callable(ops) else ops
            try:
                # the guard first: a writer who is no longer a member is told that (404), whatever else failed
                self.core.transact([*self._guard(ctx, built), *journal, *built], attempt_token)
            except LedgerGone:
                self.swept(ctx.ledger)
                raise
            except errors.NoLongerMember:
                if ctx.shared and self.core.get_at(gone_pk(ctx.ledger), META_SK) is not None:
                    self.swept(ctx.ledger)  # the ledger is being deleted: what this request wrote goes
                raise
            except HeadMoved as moved:
                seen = moved.seq
                self.journal.saw_head(ctx.ledger, seen)
                pause = random.uniform(0, min(HEAD_MAX_DELAY, 0.005 * 2**attempt)) if attempt else 0.0  # noqa: S311
                if not self.core.retry.pause_for(pause):
                    break  # the request's time would run out before the next head answered
                continue
            self.journal.saw_head(ctx.ledger, seq)
            return seq
        raise errors.Conflict("the ledger is busy with concurrent changes; retry", retry_after=1)

    def swept(self, ledger: str) -> int:
        """A fenced ledger's items written by a request that met the fence (a slip's number is taken
        before its change commits) gone again: every item but the fence and the leases. How many."""
        # an invitation's listing is left to the deletion, which removes the invitation with it
        kept = (lock_sk(""), INVITATION_REFS)
        stray = [str(i["SK"]) for i in self.core.query(ledger) if GONE not in i and not str(i["SK"]).startswith(kept)]
        for sk in stray:
            self.core.call(
                self.core.client.delete_item, TableName=self.core.table, Key=to_ddb({"PK": pk(ledger), "SK": sk})
            )
        return len(stray)

    def record(self, ctx: WriteContext | Bookkeeping, ops: Sequence[TxOp]) -> None:
        """Bookkeeping under the writer's guard, without a journal entry (nothing a reader replays);
        without a guard, under the check that the ledger is not being deleted (its tombstone)."""
        guard = self._guard(ctx, ops) or self._fence(ctx)
        if guard or len(ops) != 1 or ops[0].kind == "ConditionCheck":
            self.core.transact([*guard, *ops], None)  # a ledger being deleted answers that first
            return
        # the deletion's own record of one item: the item's own write (half the cost of a transaction)
        (op,) = ops
        call: dict[str, Callable[..., Any]] = {
            "Put": self.core.client.put_item,
            "Update": self.core.client.update_item,
            "Delete": self.core.client.delete_item,
        }
        try:
            self.core.write_one(call[op.kind], **{k: v for k, v in op.body.items() if k != "TableName"})
        except ConditionFailed as failed:
            raise op.on_fail(failed.item) from failed

    def _fence(self, ctx: WriteContext | Bookkeeping) -> list[TxOp]:
        """The check that the ledger has no tombstone, for a record no member guard fences (the
        deletion's own records aside)."""
        if ctx.guard is not None or (isinstance(ctx, Bookkeeping) and ctx.deleting):
            return []
        return [self.gone_check(ctx.ledger)]

    def gone_check(self, ledger: str) -> TxOp:
        """A ConditionCheck that `ledger` (a SharedLedger, or a personal `sub`) is not being deleted."""
        check = {
            "TableName": self.core.table,
            "Key": to_ddb({"PK": gone_pk(ledger), "SK": META_SK}),
            "ConditionExpression": "attribute_not_exists(PK)",
        }
        return TxOp("ConditionCheck", check, _gone)

    def _guard(self, ctx: WriteContext | Bookkeeping, ops: Sequence[TxOp]) -> list[TxOp]:
        """The guard's ConditionCheck, unless an operation of the transaction writes that very member
        item (it then carries the condition itself: one item cannot be touched twice)."""
        if ctx.guard is None:
            return []
        key = to_ddb({"PK": household_pk(str(ctx.ledger)), "SK": member_sk(ctx.guard.user)})
        if any(op.body.get("Key") == key or _item_key(op) == key for op in ops):
            return []
        return [self.core.role_check(str(ctx.ledger), ctx.guard.user, ctx.guard.roles, _not_a_member)]


def _gone(current: Item | None) -> errors.ApiError:
    return LedgerGone()


def _item_key(op: TxOp) -> dict[str, Any] | None:
    item = op.body.get("Item")
    if not item:
        return None
    return {"PK": item["PK"], "SK": item["SK"]}


__all__ = [
    "GUARD_ITEMS",
    "ORIGINS",
    "Bookkeeping",
    "Guard",
    "WriteContext",
    "WriteOps",
]
