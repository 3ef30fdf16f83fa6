"""The write context and the ledger journal: every change transaction is built here.

A `WriteContext` is the one thing every write takes: the ledger, who writes (the actor), the role
guard that must still hold when the transaction commits, the origin and the request id. A shared
ledger cannot be written without a guard: the type refuses it, so no path can write as a member
whose role was never checked.

`commit` is the one way a change reaches the table: the change's own operations, the guard's
ConditionCheck on the member item, and the journal: the head `JOURNAL` advanced from the seq it was
seen at (`seq = :seen`) and one entry `CHG#{seq}` with the public views before and after, all in one
TransactWriteItems. So journal order is commit order and seq has no gaps. A writer that finds the
head moved (another change committed first) builds the same transaction again on the new head,
inside the request: never a 412. `record` writes bookkeeping (an import's status, a recurrence's
progress) under the guard, without an entry: it changes no entity a reader replays.
"""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from kakeibo import errors
from kakeibo.store.codec import Item, to_ddb
from kakeibo.store.core import ConditionFailed, StoreCore, TxOp
from kakeibo.store.keys import (
    JOURNAL_SK,
    SharedLedger,
    change_seq,
    change_sk,
    household_pk,
    member_sk,
    pk,
)

ORIGINS = ("api", "import", "recurrence", "card_payment", "undo", "job")
CHANGE_TYPES = ("slip", "account", "budget", "recurrence", "member", "ledger", "invitation", "webhook", "settlement")
OPS = ("create", "update", "delete")
HEAD_ATTEMPTS = 60  # head conflicts retried inside the request (jittered) before a 409
HEAD_MAX_DELAY = 0.2
JOURNAL_ITEMS = 2  # what the journal adds to a transaction: the head and the entry
GUARD_ITEMS = 1  # and the writer's member check, on a shared ledger


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


@dataclass(frozen=True)
class Change:
    """One entity's change in a journal entry: its public views before and after (None if absent)."""

    type: str
    id: str
    op: str
    version: int | None
    before: dict[str, Any] | None
    after: dict[str, Any] | None

    def __post_init__(self) -> None:
        if self.type not in CHANGE_TYPES or self.op not in OPS:
            raise ValueError(f"unknown change {self.type}/{self.op}")

    @classmethod
    def between(cls, type: str, entity: str, before: dict[str, Any] | None, after: dict[str, Any] | None) -> Change:
        """`before` becoming `after` (None: absent). Its version is the one `after` has, or for a
        delete one past `before`'s (what the entity's tombstone or next life starts from)."""
        if before is None and after is None:
            raise ValueError("a change has a before or an after")
        op = "create" if before is None else "delete" if after is None else "update"
        version = int(after["version"]) if after is not None else int(before["version"]) + 1  # type: ignore[index]
        return cls(type, entity, op, version, before, after)

    def as_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "id": self.id,
            "op": self.op,
            "version": self.version,
            "before": self.before,
            "after": self.after,
        }


class _HeadMoved(errors.ApiError):
    """The head was not at the seq this writer saw: another change committed first."""

    def __init__(self, seq: int) -> None:
        super().__init__("the journal moved on")
        self.seq = seq


def _head_moved(current: Item | None) -> errors.ApiError:
    return _HeadMoved(int(current.get("seq", 0)) if current else 0)


def _already_undone(current: Item | None) -> errors.ApiError:
    if current is None:
        return errors.NotFound("change not found")
    return errors.AlreadyUndone("this change was already undone", undone_by=int(current["undone_by"]))


def _not_a_member(current: Item | None) -> errors.ApiError:
    """A writer's member check failed: gone from the ledger (404, as for any non-member) or demoted."""
    if current is None:
        return errors.NoLongerMember("not found")
    return errors.RoleRevoked("your role in this ledger does not allow this change", role=str(current.get("role")))


def entry_changes(entry: Item) -> list[dict[str, Any]]:
    """The changes an entry item holds (stored as one JSON string: nulls and nesting kept exactly)."""
    loaded: list[dict[str, Any]] = json.loads(entry["changes"])
    return loaded


class JournalOps(StoreCore):
    """The write context's transactions and the journal they write."""

    _heads: dict[str, int]

    def _seen_head(self, ledger: str) -> int:
        """The head this process saw last for the ledger (a stale one costs a retry), else read."""
        heads = self.__dict__.setdefault("_heads", {})
        key = pk(ledger)
        if key not in heads:
            heads[key] = self.journal_head(ledger)
        return int(heads[key])

    def _saw_head(self, ledger: str, seq: int) -> None:
        heads = self.__dict__.setdefault("_heads", {})
        if len(heads) > 10_000:
            heads.clear()
        heads[pk(ledger)] = seq

    def journal_head(self, ledger: str) -> int:
        """The seq of the ledger's last journal entry (0: none yet). Consistent."""
        head = self.get(ledger, JOURNAL_SK)
        return int(head.get("seq", 0)) if head else 0

    def commit(
        self,
        ctx: WriteContext,
        ops: Sequence[TxOp] | Callable[[int], Sequence[TxOp]],
        changes: Sequence[Change],
        *,
        token: str | None = None,
        at: str,
        undoes: int | None = None,
    ) -> int:
        """One transaction: `ops`, the writer's guard and the journal entry of `changes`. The seq of
        the entry it wrote. A head conflict is retried here on the new head. `ops` may be built from
        the seq the entry gets (an item that must know the entry that made it)."""
        if not changes:
            raise ValueError("a change commits with what it changed")
        body = json.dumps([c.as_dict() for c in changes], ensure_ascii=False, separators=(",", ":"))
        first_token = (token or str(uuid.uuid4()))[:36]
        seen = self._seen_head(ctx.ledger)
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
            journal = [self._head_op(ctx.ledger, seen, seq, at), self._entry_op(ctx.ledger, entry)]
            if undoes is not None:
                journal.append(self._undone_op(ctx.ledger, undoes, seq))
            attempt_token = first_token if attempt == 0 else str(uuid.uuid5(uuid.NAMESPACE_URL, f"{first_token}/{seq}"))
            built = ops(seq) if callable(ops) else ops
            try:
                self._transact([*journal, *built, *self._guard(ctx, built)], attempt_token)
            except _HeadMoved as moved:
                seen = moved.seq
                self._saw_head(ctx.ledger, seen)
                if attempt:
                    self.retry.sleep(random.uniform(0, min(HEAD_MAX_DELAY, 0.005 * 2**attempt)))  # noqa: S311
                continue
            self._saw_head(ctx.ledger, seq)
            return seq
        raise errors.Conflict("the ledger is busy with concurrent changes; retry", retry_after=1)

    def record(self, ctx: WriteContext | Bookkeeping, ops: Sequence[TxOp]) -> None:
        """Bookkeeping under the writer's guard, without a journal entry (nothing a reader replays)."""
        guard = self._guard(ctx, ops)
        if guard or len(ops) != 1 or ops[0].kind == "ConditionCheck":
            self._transact([*ops, *guard], None)
            return
        # one item and no member to check: the item's own write (half the cost of a transaction)
        (op,) = ops
        call: dict[str, Callable[..., Any]] = {
            "Put": self.client.put_item,
            "Update": self.client.update_item,
            "Delete": self.client.delete_item,
        }
        try:
            self._write(call[op.kind], **{k: v for k, v in op.body.items() if k != "TableName"})
        except ConditionFailed as failed:
            raise op.on_fail(failed.item) from failed

    def _guard(self, ctx: WriteContext | Bookkeeping, ops: Sequence[TxOp]) -> list[TxOp]:
        """The guard's ConditionCheck, unless an operation of the transaction writes that very member
        item (it then carries the condition itself: one item cannot be touched twice)."""
        if ctx.guard is None:
            return []
        key = to_ddb({"PK": household_pk(str(ctx.ledger)), "SK": member_sk(ctx.guard.user)})
        if any(op.body.get("Key") == key or _item_key(op) == key for op in ops):
            return []
        return [self.role_check(str(ctx.ledger), ctx.guard.user, ctx.guard.roles, _not_a_member)]

    def _head_op(self, ledger: str, seen: int, seq: int, at: str) -> TxOp:
        condition = "attribute_not_exists(#seq)" if seen == 0 else "#seq = :seen"
        values: dict[str, Any] = {":seq": seq, ":at": at, ":type": "journal"}
        if seen:
            values[":seen"] = seen
        return self.update_op(
            ledger,
            JOURNAL_SK,
            "SET #seq = :seq, #at = :at, #type = :type",
            _head_moved,
            condition,
            names={"#seq": "seq", "#at": "at", "#type": "type"},
            values=values,
        )

    def _entry_op(self, ledger: str, entry: Item) -> TxOp:
        return self.put_op(ledger, entry, "attribute_not_exists(SK)", _head_moved)

    def _undone_op(self, ledger: str, seq: int, by_seq: int) -> TxOp:
        """The undone entry marked with the entry that undid it, once."""
        return self.update_op(
            ledger,
            change_sk(seq),
            "SET #undone = :by",
            _already_undone,
            "attribute_exists(SK) AND attribute_not_exists(#undone)",
            names={"#undone": "undone_by"},
            values={":by": by_seq},
        )

    def journal_entries(self, ledger: str, *, after: int, limit: int | None = None) -> Iterator[Item]:
        """The entries with seq > `after`, in seq order (at most `limit`)."""
        lo, hi = change_sk(after + 1), "CHG#~"
        page = min(limit, 1000) if limit else 1000
        for count, item in enumerate(self.query(ledger, between=(lo, hi), page_size=page), start=1):
            yield item
            if limit is not None and count >= limit:
                return  # before the generator asks for a page it would not use

    def journal_entry(self, ledger: str, seq: int) -> Item | None:
        return self.get(ledger, change_sk(seq))

    def entries_of(self, ledger: str, seqs: Sequence[int]) -> list[Item]:
        """The entries `seqs` (those that exist), in seq order: consistent reads, 100 per call."""
        found = self.batch_get(ledger, [change_sk(s) for s in sorted(set(seqs))])
        return [found[sk] for sk in sorted(found)]


def _item_key(op: TxOp) -> dict[str, Any] | None:
    item = op.body.get("Item")
    if not item:
        return None
    return {"PK": item["PK"], "SK": item["SK"]}


__all__ = [
    "CHANGE_TYPES",
    "GUARD_ITEMS",
    "JOURNAL_ITEMS",
    "ORIGINS",
    "Bookkeeping",
    "Change",
    "Guard",
    "JournalOps",
    "WriteContext",
    "change_seq",
    "entry_changes",
]
