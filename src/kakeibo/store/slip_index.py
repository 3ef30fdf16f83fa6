"""The slip index: key-only items that let a filtered list read in proportion to its page.

Every slip has one index item per (filter, value) it answers to (keys.slip_index_sks): each account
it touches, its category, its kind, and each member who created or last changed it. They are
written in the slip's own transaction — a create puts them, a change deletes the ones it no longer
has and puts the new ones (never the same item twice), a delete removes them — so they are exactly
as current as the slips.

A filtered list Queries the most selective index it has a value for, newest first (date, then slip
number), for the page and one more, then reads those slips (BatchGetItem, consistent) and applies
the other filters to them. A ledger whose slips predate the index (its counter does not say
`indexed`) is listed the older way until a rebuild has written every slip's index items.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from kakeibo import errors
from kakeibo.store.codec import Item, to_ddb
from kakeibo.store.core import MAX_BATCH_GET, StoreCore, TxOp
from kakeibo.store.keys import SLIP_SEQ_SK, index_entry, index_range, index_sk, pk, slip_sk

# An attribute of the slip counter (SEQ#slip): true when every slip of the ledger has its index
# items (a ledger whose first slip was numbered since the index exists, or rebuilt since).
INDEXED = "indexed"

# Most selective first, in a household's usual data: a category is a small share of the slips, an
# account or a member a larger one, a kind (nearly all slips are expenses) the largest.
SELECTIVITY = ("category", "account", "by", "kind")


@dataclass(frozen=True)
class SlipFilter:
    account: str | None = None
    category: str | None = None
    kind: str | None = None
    by: str | None = None

    def __bool__(self) -> bool:
        return any((self.account, self.category, self.kind, self.by))

    def matches(self, slip: Item) -> bool:
        return (
            (not self.account or self.account in (slip.get("account"), slip.get("to_account")))
            and (not self.category or self.category in (slip.get("category"), *(slip.get("line_categories") or ())))
            and (not self.kind or slip.get("kind") == self.kind)
            and (not self.by or self.by in (slip.get("created_by"), slip.get("updated_by")))
        )

    def index(self) -> tuple[str, str]:
        """The (field, value) whose index answers the list with the fewest items read."""
        for name in SELECTIVITY:
            value = getattr(self, name)
            if value:
                return name, value
        raise ValueError("no filter")

    def exact(self) -> bool:
        """Does the index alone answer the whole filter (one filter only)?"""
        return sum(1 for name in SELECTIVITY if getattr(self, name)) == 1


@dataclass(frozen=True)
class IndexedPage:
    items: list[Item]  # at most `limit` slips, newest first
    resume: tuple[str, int] | None  # (day, no): continue with that day's slips numbered below `no`
    read: int  # index entries examined


class SlipIndexOps(StoreCore):
    """Index writes (inside slip transactions) and the indexed list."""

    def index_ops(self, ledger: str, *, put: Iterable[str] = (), delete: Iterable[str] = ()) -> list[TxOp]:
        """Put and delete index items (unconditional: each follows its slip's own condition)."""
        table, partition = self.table, pk(ledger)
        ops = [
            TxOp("Put", {"TableName": table, "Item": to_ddb({"PK": partition, "SK": sk})}, _index_failed)
            for sk in sorted(put)
        ]
        ops += [
            TxOp("Delete", {"TableName": table, "Key": to_ddb({"PK": partition, "SK": sk})}, _index_failed)
            for sk in sorted(delete)
        ]
        return ops

    def indexed_slips(
        self,
        ledger: str,
        filters: SlipFilter,
        *,
        date_from: str | None,
        date_to: str | None,
        below: tuple[str, int | None] | None,
        limit: int,
        max_read: int,
    ) -> IndexedPage | None:
        """Up to `limit` slips matching `filters`, newest first, from where `below` says (see
        keys.index_range); None if the ledger's index is not complete (list it the older way).
        Examines at most `max_read` index entries; a page that stops short says where to resume."""
        field, value = filters.index()
        exact = filters.exact()
        lo, hi = index_range(field, value, date_from, date_to, below)
        found: list[Item] = []
        read = 0
        start: dict[str, Any] | None = None
        checked = False
        while True:
            need = limit - len(found)
            size = need + 1 if exact else min(MAX_BATCH_GET, max(2 * need, 20))
            size = max(1, min(size, max_read - read + 1))
            kwargs: dict[str, Any] = {
                "TableName": self.table,
                "KeyConditionExpression": "PK = :pk AND SK BETWEEN :lo AND :hi",
                "ExpressionAttributeValues": to_ddb({":pk": pk(ledger), ":lo": lo, ":hi": hi}),
                "ScanIndexForward": False,
                "ConsistentRead": True,
                "Limit": size,
            }
            if start:
                kwargs["ExclusiveStartKey"] = start
            res = self._call(self.client.query, **kwargs)
            entries = [index_entry(raw["SK"]["S"]) for raw in res.get("Items", [])]
            take = entries[: min(need if exact else len(entries), max_read - read)]
            if not take and "LastEvaluatedKey" in res:
                start = res["LastEvaluatedKey"]
                continue
            slips, counter = self._slips_and_counter(ledger, take, with_counter=not checked)
            if not checked:
                checked = True
                if counter is not None and counter.get(INDEXED) is not True:
                    return None
            found += [slip for slip in slips if slip is not None and filters.matches(slip)]
            read += len(take)
            beyond = len(entries) > len(take) or "LastEvaluatedKey" in res
            if len(found) > limit or (len(found) == limit and beyond):
                found = found[:limit]
                return IndexedPage(found, (found[-1]["date"], int(found[-1]["no"])), read)
            if not beyond:
                return IndexedPage(found, None, read)
            if read >= max_read:
                date, no, _ = take[-1]
                return IndexedPage(found, (date, no), read)
            date, no, slip_id = take[-1]
            start = {"PK": {"S": pk(ledger)}, "SK": {"S": index_sk(field, value, date, no, slip_id)}}

    def _slips_and_counter(
        self, ledger: str, entries: Sequence[tuple[str, int, str]], *, with_counter: bool
    ) -> tuple[list[Item | None], Item | None]:
        """The slips of `entries` (None where one has gone meanwhile), in their order, and the slip
        counter if asked: consistent BatchGetItem calls (GetItem for the counter alone)."""
        sks = [slip_sk(date, slip_id) for date, _, slip_id in entries]
        wanted = [*sks, SLIP_SEQ_SK] if with_counter else sks
        got = self.batch_get(ledger, wanted)
        return [got.get(sk) for sk in sks], got.get(SLIP_SEQ_SK)


def _index_failed(item: Item | None) -> errors.ApiError:
    return errors.Conflict("the ledger is busy; retry shortly", retry_after=1)
