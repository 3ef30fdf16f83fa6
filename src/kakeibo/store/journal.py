"""The ledger journal: one entry per committed change, in commit order, with no gaps.

Every change transaction (store/write.py's `commit`) advances the head `JOURNAL` from the seq it was
seen at (`seq = :seen`) and puts one entry `CHG#{seq}` with the public views before and after; an
undo also marks the entry it undoes, once. This module builds those operations and reads the
journal back (delta sync, history, undo).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kakeibo import errors
from kakeibo.store.codec import Item
from kakeibo.store.keys import CHANGE_PREFIX, JOURNAL_SK, change_seq, change_sk, ledger_of_pk, pk
from kakeibo.store.transactions import StoreCore, TxOp

CHANGE_TYPES = (
    "slip",
    "account",
    "budget",
    "recurrence",
    "member",
    "ledger",
    "invitation",
    "webhook",
    "settlement",
    "rule",
    "reconciliation",
    "alert",
)
OPS = ("create", "update", "delete")
JOURNAL_ITEMS = 2  # what the journal adds to a transaction: the head and the entry
# The head's mark that the ledger is gone for good (a deleted person's personal ledger): every
# change's head condition requires its absence, so the fence costs no item and no call.
GONE = "gone"


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


class HeadMoved(errors.ApiError):
    """The head was not at the seq this writer saw: another change committed first."""

    def __init__(self, seq: int) -> None:
        super().__init__("the journal moved on")
        self.seq = seq


class LedgerGone(errors.NotFound):
    """The ledger's head is fenced (GONE): its person had their data deleted (DELETE /me), and no
    change may be written into it again. Answered as any ledger one cannot reach: 404."""

    def __init__(self) -> None:
        super().__init__("not found")


def _head_moved(current: Item | None) -> errors.ApiError:
    if current is not None and GONE in current:
        return LedgerGone()
    return HeadMoved(int(current.get("seq", 0)) if current else 0)


def _already_undone(current: Item | None) -> errors.ApiError:
    if current is None:
        return errors.NotFound("change not found")
    return errors.AlreadyUndone("this change was already undone", undone_by=int(current["undone_by"]))


def is_entry_record(record: Mapping[str, Any]) -> bool:
    """A stream record of a new journal entry: an INSERT of an entry's key."""
    keys = (record.get("dynamodb") or {}).get("Keys") or {}
    sk = (keys.get("SK") or {}).get("S", "")
    return record.get("eventName") == "INSERT" and isinstance(sk, str) and sk.startswith(CHANGE_PREFIX)


def entry_of_image(image: Mapping[str, Any]) -> tuple[str, int] | None:
    """The ledger (personal `sub` or SharedLedger) and seq of a journal entry item (a stream record's
    image, decoded); None if it is not an entry of a ledger, or its seq is not its key's. A field
    missing or of another type raises (KeyError, TypeError, ValueError, AttributeError)."""
    ledger = ledger_of_pk(str(image["PK"]))
    seq = int(image["seq"])
    if ledger is None or seq < 1 or change_seq(str(image["SK"])) != seq:
        return None
    return ledger, seq


def entry_changes(entry: Item) -> list[dict[str, Any]]:
    """The changes an entry item holds (stored as one JSON string: nulls and nesting kept exactly)."""
    loaded: list[dict[str, Any]] = json.loads(entry["changes"])
    return loaded


class JournalOps:
    """The journal's operations: the head and entry a change commits with, and reading it back."""

    def __init__(self, core: StoreCore) -> None:
        self.core = core
        self.heads: dict[str, int] = {}  # by ledger key: the head this process saw last

    def seen_head(self, ledger: str) -> int:
        """The head this process saw last for the ledger (a stale one costs a retry), else read."""
        heads = self.heads
        key = pk(ledger)
        if key not in heads:
            heads[key] = self.journal_head(ledger)
        return int(heads[key])

    def saw_head(self, ledger: str, seq: int) -> None:
        heads = self.heads
        if len(heads) > 10_000:
            heads.clear()
        heads[pk(ledger)] = seq

    def journal_head(self, ledger: str) -> int:
        """The seq of the ledger's last journal entry (0: none yet). Consistent."""
        head = self.core.get(ledger, JOURNAL_SK)
        return int(head.get("seq", 0)) if head else 0

    def journal_ops(self, ledger: str, seen: int, entry: Item, undoes: int | None) -> list[TxOp]:
        """What `entry` (seq `seen + 1`) adds to its change's transaction: the head moved on from
        `seen`, the entry itself, and the mark on the entry it undoes."""
        seq = int(entry["seq"])
        ops = [self._head_op(ledger, seen, seq, str(entry["at"])), self._entry_op(ledger, entry)]
        if undoes is not None:
            ops.append(self._undone_op(ledger, undoes, seq))
        return ops

    def _head_op(self, ledger: str, seen: int, seq: int, at: str) -> TxOp:
        condition = "attribute_not_exists(#seq)" if seen == 0 else "#seq = :seen"
        condition += " AND attribute_not_exists(#gone)"
        values: dict[str, Any] = {":seq": seq, ":at": at, ":type": "journal"}
        if seen:
            values[":seen"] = seen
        return self.core.update_op(
            ledger,
            JOURNAL_SK,
            "SET #seq = :seq, #at = :at, #type = :type",
            _head_moved,
            condition,
            names={"#seq": "seq", "#at": "at", "#type": "type", "#gone": GONE},
            values=values,
        )

    def _entry_op(self, ledger: str, entry: Item) -> TxOp:
        return self.core.put_op(ledger, entry, "attribute_not_exists(SK)", _head_moved)

    def _undone_op(self, ledger: str, seq: int, by_seq: int) -> TxOp:
        """The undone entry marked with the entry that undid it, once."""
        return self.core.update_op(
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
        for count, item in enumerate(self.core.query(ledger, between=(lo, hi), page_size=page), start=1):
            yield item
            if limit is not None and count >= limit:
                return  # before the generator asks for a page it would not use

    def journal_entry(self, ledger: str, seq: int) -> Item | None:
        return self.core.get(ledger, change_sk(seq))

    def entries_of(self, ledger: str, seqs: Sequence[int]) -> list[Item]:
        """The entries `seqs` (those that exist), in seq order: consistent reads, 100 per call."""
        found = self.core.batch_get(ledger, [change_sk(s) for s in sorted(set(seqs))])
        return [found[sk] for sk in sorted(found)]


__all__ = [
    "CHANGE_TYPES",
    "GONE",
    "JOURNAL_ITEMS",
    "Change",
    "HeadMoved",
    "JournalOps",
    "LedgerGone",
    "change_seq",
    "entry_changes",
]
