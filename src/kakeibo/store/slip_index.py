"""The slip index: small items that let a filtered list read in proportion to its page.

Every slip has one index entry per (filter, value) it answers to (keys.slip_index_sks): each account
it touches, its category, its kind, and each member who created or last changed it. An entry is an
attribute of the item of that value, day and number bucket (keys.index_item_sk), so the slips of one
day share a few items. Entries are written in the slip's own transaction — a create sets them, a
change removes the ones it no longer has and sets the new ones, a delete removes them, each item
changed by one update however many of its slips the transaction writes — so they are exactly as
current as the slips.

A filtered list Queries the most selective index it has a value for, newest first (date, then slip
number), for the page and one more, then reads those slips (BatchGetItem, consistent) and applies
the other filters to them. A ledger whose counter does not say `indexed` = INDEX_FORMAT (its slips
predate the index, or were indexed one item per slip) is listed the older way until a rebuild has
written every slip's entries.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from kakeibo import errors
from kakeibo.core.rules import normalise
from kakeibo.store.codec import Item, from_ddb, to_ddb
from kakeibo.store.keys import (
    SLIP_SEQ_SK,
    entries_before,
    entry_parts,
    index_entry,
    index_range,
    item_entries,
    pk,
    slip_index_sks,
    slip_sk,
)
from kakeibo.store.transactions import MAX_BATCH_GET, StoreCore, TxOp

# An attribute of the slip counter (SEQ#slip): INDEX_FORMAT when every slip of the ledger has its
# index entries (a ledger whose first slip was numbered since, or rebuilt since). `true` marked the
# index of one item per slip, which is no longer read.
INDEXED = "indexed"
INDEX_FORMAT = 2
# Also of the slip counter: true when every slip's cleared sides have their `cleared` index entries
# (keys.INDEX_FIELDS): a ledger numbered since that index, or rebuilt since.
CLEARED_INDEXED = "cleared_indexed"

# Most selective first, in a household's usual data: a category is a small share of the slips, an
# account or a member a larger one, a kind (nearly all slips are expenses) the largest.
SELECTIVITY = ("payee", "category", "account", "by", "kind")


def index_entries(slip: Item) -> frozenset[str]:
    """The index entries a slip has (what `SlipIndexOps.index_ops` puts and deletes)."""
    return slip_index_sks(slip)


def index_items_changed(before: Item | None, after: Item | None) -> frozenset[str]:
    """The index items a slip's write changes (from `before` to `after`; None: no slip): those that
    hold an entry it gains or loses, each once however many of its entries it holds."""
    entries = (index_entries(before) if before else frozenset()) ^ (index_entries(after) if after else frozenset())
    return frozenset(entry_parts(entry)[0] for entry in entries)


def entry_place(entry: str) -> tuple[str, str]:
    """Where an index entry is stored: the name of its item, and the attribute it is there."""
    item, name, _ = entry_parts(entry)
    return item, name


@dataclass(frozen=True)
class SlipFilter:
    account: str | None = None
    category: str | None = None
    kind: str | None = None
    by: str | None = None
    payee: str | None = None  # normalised (core.rules.normalise), as the index keeps it

    def __bool__(self) -> bool:
        return any((self.account, self.category, self.kind, self.by, self.payee))

    def matches(self, slip: Item) -> bool:
        return (
            (not self.account or self.account in (slip.get("account"), slip.get("to_account")))
            and (not self.category or self.category in (slip.get("category"), *(slip.get("line_categories") or ())))
            and (not self.kind or slip.get("kind") == self.kind)
            and (not self.by or self.by in (slip.get("created_by"), slip.get("updated_by")))
            and (not self.payee or normalise(slip.get("payee") or "") == self.payee)
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


class SlipIndexOps:
    """Index writes (inside slip transactions) and the indexed list."""

    def __init__(self, core: StoreCore) -> None:
        self.core = core

    def index_ops(self, ledger: str, *, put: Iterable[str] = (), delete: Iterable[str] = ()) -> list[TxOp]:
        """Set and remove index entries: one update per item (unconditional: each follows its
        slip's own condition). All of a transaction's entries go in one call: an item may be
        written only once in a transaction."""
        changes: dict[str, tuple[dict[str, str], set[str]]] = {}
        for entry in put:
            item_sk, name, slip_id = entry_parts(entry)
            changes.setdefault(item_sk, ({}, set()))[0][name] = slip_id
        for entry in delete:
            item_sk, name, _ = entry_parts(entry)
            changes.setdefault(item_sk, ({}, set()))[1].add(name)
        ops = []
        for item_sk in sorted(changes):
            sets, removes = changes[item_sk]
            names: dict[str, str] = {}
            values: dict[str, Any] = {}
            clauses = []
            if sets:
                for i, (name, slip_id) in enumerate(sorted(sets.items())):
                    names[f"#s{i}"], values[f":s{i}"] = name, slip_id
                clauses.append("SET " + ", ".join(f"#s{i} = :s{i}" for i in range(len(sets))))
            gone = sorted(removes - sets.keys())
            if gone:
                names.update({f"#r{i}": name for i, name in enumerate(gone)})
                clauses.append("REMOVE " + ", ".join(f"#r{i}" for i in range(len(gone))))
            if clauses:
                ops.append(
                    self.core.update_op(ledger, item_sk, " ".join(clauses), _index_failed, names=names, values=values)
                )
        return ops

    def dropped_index_ops(self, ledger: str, sks: Iterable[str]) -> list[TxOp]:
        """Delete index items that hold nothing to read: one item per slip of the former layout
        (keys.is_legacy_index_sk), or an item whose slips have all gone."""
        partition = pk(ledger)
        return [
            TxOp("Delete", {"TableName": self.core.table, "Key": to_ddb({"PK": partition, "SK": sk})}, _index_failed)
            for sk in sorted(sks)
        ]

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
        found: list[Item] = []
        read = 0
        at = below  # entries are taken after this (day, no)
        start: dict[str, Any] | None = None
        checked = False
        while True:
            need = limit - len(found)
            size = need + 1 if exact else min(MAX_BATCH_GET, max(2 * need, 20))
            size = max(1, min(size, max_read - read + 1))
            lo, hi = index_range(field, value, date_from, date_to, at)
            kwargs: dict[str, Any] = {
                "TableName": self.core.table,
                "KeyConditionExpression": "PK = :pk AND SK BETWEEN :lo AND :hi",
                "ExpressionAttributeValues": to_ddb({":pk": pk(ledger), ":lo": lo, ":hi": hi}),
                "ScanIndexForward": False,
                "ConsistentRead": True,
                "Limit": size,
            }
            if start:
                kwargs["ExclusiveStartKey"] = start
            res = self.core.call(self.core.client.query, **kwargs)
            raw = [entry for item in res.get("Items", []) for entry in item_entries(from_ddb(item))]
            entries = [index_entry(entry) for entry in entries_before(raw, at)]
            take = entries[: min(need if exact else size, max_read - read)]  # an item may hold more
            if not take and "LastEvaluatedKey" in res:
                start = res["LastEvaluatedKey"]  # items whose slips have all gone, or come before `at`
                continue
            slips, counter = self._slips_and_counter(ledger, take, with_counter=not checked)
            if not checked:
                checked = True
                if counter is not None and counter.get(INDEXED) != INDEX_FORMAT:
                    return None
            found += [slip for slip in slips if slip is not None and filters.matches(slip)]
            read += len(take)
            beyond = len(entries) > len(take) or "LastEvaluatedKey" in res
            if len(found) > limit or (len(found) == limit and beyond):
                found = found[:limit]
                return IndexedPage(found, (found[-1]["date"], int(found[-1]["no"])), read)
            if not beyond:
                return IndexedPage(found, None, read)
            date, no, _ = take[-1]
            if read >= max_read:
                return IndexedPage(found, (date, no), read)
            at, start = (date, no), None

    def unreconciled_slips(self, ledger: str, account: str, date_to: str) -> list[Item] | None:
        """The slips dated up to `date_to` with a side on `account` that is cleared and not yet
        reconciled, oldest first (date, then number): the account's `cleared` index items, then
        those slips (consistent reads). None if the ledger's counter does not say every slip is in
        that index (its slips predate it): read the account's slips instead."""
        lo, hi = index_range("cleared", account, None, date_to)
        entries = sorted(
            index_entry(e) for item in self.core.query(ledger, between=(lo, hi)) for e in item_entries(item)
        )
        slips, counter = self._slips_and_counter(ledger, entries, with_counter=True)
        if counter is None or not counter.get(CLEARED_INDEXED):
            return None
        return [slip for slip in slips if slip is not None]

    def _slips_and_counter(
        self, ledger: str, entries: Sequence[tuple[str, int, str]], *, with_counter: bool
    ) -> tuple[list[Item | None], Item | None]:
        """The slips of `entries` (None where one has gone meanwhile), in their order, and the slip
        counter if asked: consistent BatchGetItem calls (GetItem for the counter alone)."""
        sks = [slip_sk(date, slip_id) for date, _, slip_id in entries]
        wanted = [*sks, SLIP_SEQ_SK] if with_counter else sks
        got = self.core.batch_get(ledger, wanted)
        return [got.get(sk) for sk in sks], got.get(SLIP_SEQ_SK)


def _index_failed(item: Item | None) -> errors.ApiError:
    return errors.Conflict("the ledger is busy; retry shortly", retry_after=1)
