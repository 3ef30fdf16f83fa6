"""Recurrences: their items, conditions and the due-date index. The only module that knows how
recurrences are stored.

`RECUR#{id}` holds the definition (slip template, rule, shift, `version`), and the progress of its
runs: `posted_through` (scheduled date of the last occurrence posted), `next_scheduled` /
`next_due` (the next occurrence) and `last_error`. While it has a next occurrence it also carries
`DuePK` / `DueSK` (`DUE#{shard}`, `{next_due}#{ledger}#{id}`): the sparse index `DueIndex` on them
lists what is due across every ledger, in date order within each shard, without scanning the
table. The shard comes from the ledger (`due_shard`), so one index partition takes 1/N of the due
writes and reads (N = DUE_SHARDS). Items written before the shards carry `DUE`: they are still read,
and `rekey_due` moves them (idempotent; every write of a recurrence moves its own). A finished
recurrence, and every other item, is not in the index at all.

Runs change only the progress and never `version` (the ETag covers the definition); progress only
moves forward, and only for the definition it was computed from.
"""

from __future__ import annotations

import hashlib
import heapq
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from kakeibo import errors
from kakeibo.settings import get_settings
from kakeibo.store.codec import Item, to_ddb
from kakeibo.store.journal import Change
from kakeibo.store.keys import (
    DELETION_WORK,
    account_sk,
    is_card_sk,
    is_lots_sk,
    is_receipt_sk,
    ledger_of_gone_pk,
    ledger_of_pk,
    lots_sk,
    pk,
    receipt_sk,
    recurrence_sk,
)
from kakeibo.store.transactions import StoreCore, TxOp
from kakeibo.store.write import Bookkeeping, WriteContext, WriteOps

DUE_INDEX = "DueIndex"
DUE_PK, DUE_SK = "DuePK", "DueSK"
DUE_PARTITION = "DUE"  # before the shards: read, and re-keyed by rekey_due
PREFIX = recurrence_sk("")
MAX_PARALLEL_SHARDS = 8


def due_shard(ledger: str, shards: int) -> str:
    """The due index partition of a ledger's items: stable, spread evenly over `shards`."""
    digest = hashlib.sha256(pk(ledger).encode()).digest()
    return f"{DUE_PARTITION}#{int.from_bytes(digest[:4], 'big') % shards:03d}"


def forward_only(names: dict[str, str], values: dict[str, Any], *, version: int, field: str, value: str | None) -> str:
    """The condition of a run's progress write (its names and values added): the item is at `version`
    and `field` has not got past `value` (None: it is not set yet)."""
    names.update({"#ver": "version", "#pt": field})
    values[":v"] = version
    condition = "attribute_exists(SK) AND #ver = :v"
    if value is None:
        return condition + " AND attribute_not_exists(#pt)"
    values[":pt"] = value
    return condition + " AND (attribute_not_exists(#pt) OR #pt <= :pt)"


# What work the due index holds for a ledger (`Due.kind`)
CARD_PAYMENT, LAPSES, RECURRENCE, DELETION, RECEIPT_SWEEP, OTHER_WORK = (
    "card", "lapses", "recurrence", "deletion", "receipt", "other",
)  # fmt: skip


@dataclass(frozen=True)
class Due:
    """Work due in a ledger: a card's next payment (`subject`: the card's account id), a points
    account's lots lapsing (the account), a recurrence's occurrences (its id), a deletion to finish,
    or a receipt on no slip to sweep (its SHA-256)."""

    ledger: str
    kind: str
    subject: str = ""


def due_of(ledger: str, sk: str) -> Due:
    """The work that the item `sk` of `ledger` is due for (as `RecurrenceOps.due_work` names it)."""
    if is_card_sk(sk):
        return Due(ledger, CARD_PAYMENT, sk.removeprefix(account_sk("")))
    if is_lots_sk(sk):
        return Due(ledger, LAPSES, sk.removeprefix(lots_sk("")))
    if sk.startswith(PREFIX):
        return Due(ledger, RECURRENCE, sk.removeprefix(PREFIX))
    if sk == DELETION_WORK:
        return Due(ledger, DELETION)
    if is_receipt_sk(sk):
        return Due(ledger, RECEIPT_SWEEP, sk.removeprefix(receipt_sk("")))
    return Due(ledger, OTHER_WORK, sk)


class ProgressConflict(Exception):
    """The recurrence changed (edited, deleted, or another run got further) since it was read."""


def due_keys(ledger: str, name: str, next_due: str | None) -> dict[str, str | None]:
    """The due index keys of an item with work due on `next_due` (None: none, the keys removed).
    `name` tells the item apart within its ledger's day (a recurrence id, a card's `card:{id}`)."""
    if next_due is None:
        return {DUE_PK: None, DUE_SK: None}
    return {DUE_PK: due_shard(ledger, get_settings().due_shards), DUE_SK: f"{next_due}#{ledger}#{name}"}


@dataclass(frozen=True, slots=True)
class Clauses:
    """The SET and REMOVE clauses of an UpdateExpression, with the names and values they use."""

    sets: list[str] = field(default_factory=list)
    removes: list[str] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)
    values: dict[str, Any] = field(default_factory=dict)

    def __add__(self, other: Clauses) -> Clauses:
        return Clauses(
            self.sets + other.sets,
            self.removes + other.removes,
            {**self.names, **other.names},
            {**self.values, **other.values},
        )

    @property
    def expression(self) -> str:
        expression = ""
        if self.sets:
            expression += "SET " + ", ".join(self.sets)
        if self.removes:
            expression += " REMOVE " + ", ".join(self.removes)
        return expression.strip()


def set_remove_clauses(fields: Mapping[str, Any], *, path: str | None = None, tag: str = "u") -> Clauses:
    """SET the fields with values and REMOVE those that are None: top-level attributes, or the keys
    of the map attribute `path`. `tag` keeps the placeholders apart from other clauses'."""
    clauses = Clauses()
    head = ""
    if path is not None and fields:
        clauses.names[f"#{tag}m"] = path
        head = f"#{tag}m."
    for i, (name, value) in enumerate(fields.items()):
        clauses.names[f"#{tag}{i}"] = name
        if value is None:
            clauses.removes.append(f"{head}#{tag}{i}")
        else:
            clauses.values[f":{tag}{i}"] = value
            clauses.sets.append(f"{head}#{tag}{i} = :{tag}{i}")
    return clauses


def sets_and_removes(
    fields: Mapping[str, Any], *, path: str | None = None, tag: str = "u"
) -> tuple[str, dict[str, str], dict[str, Any]]:
    """An UpdateExpression that SETs the fields with values and REMOVEs those that are None (the
    keys of the map `path`, when given)."""
    clauses = set_remove_clauses(fields, path=path, tag=tag)
    return clauses.expression, clauses.names, clauses.values


class RecurrenceOps:
    """Recurrence definitions, the progress of their runs, and what is due across every ledger."""

    def __init__(self, core: StoreCore, write: WriteOps) -> None:
        self.core = core
        self.write = write

    def insert_recurrence(
        self, ctx: WriteContext, item: Item, *, changes: Sequence[Change], undoes: int | None = None
    ) -> int:
        """Store a new recurrence (or one deleted, back: `undoes`); AlreadyExists if its id is taken."""
        ledger = ctx.ledger
        fields = {**item, **due_keys(ledger, item["id"], item.get("next_due"))}
        op = self.core.put_op(
            ledger,
            {"SK": recurrence_sk(item["id"]), **fields},
            "attribute_not_exists(SK)",
            lambda old: errors.AlreadyExists(f"recurrence '{item['id']}' already exists", id=item["id"]),
        )
        return self.write.commit(ctx, [op], changes, at=item["updated_at"], undoes=undoes)

    def recurrence_unchanged_op(self, ledger: str, recurrence_id: str, version: int) -> TxOp:
        """A ConditionCheck that the recurrence is still defined at `version`: an occurrence is posted
        only from the definition it was computed from (ProgressConflict once it was edited or deleted)."""

        def fail(old: Item | None) -> errors.ApiError:
            raise ProgressConflict

        return TxOp(
            "ConditionCheck",
            {
                "TableName": self.core.table,
                "Key": to_ddb({"PK": pk(ledger), "SK": recurrence_sk(recurrence_id)}),
                "ConditionExpression": "#ver = :v",
                "ExpressionAttributeNames": {"#ver": "version"},
                "ExpressionAttributeValues": to_ddb({":v": version}),
                "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
            },
            fail,
        )

    def read_recurrence(self, ledger: str, recurrence_id: str) -> Item | None:
        return self.core.get(ledger, recurrence_sk(recurrence_id), consistent=True)

    def list_recurrences(self, ledger: str, *, keys_only: bool = False) -> Iterator[Item]:
        return self.core.query(ledger, begins_with=PREFIX, consistent=True, projection="SK" if keys_only else None)

    def replace_definition(
        self,
        ctx: WriteContext,
        recurrence_id: str,
        fields: Mapping[str, Any],
        *,
        version: int,
        posted_through: str | None,
        changes: Sequence[Change],
        undoes: int | None = None,
    ) -> int:
        """Write a new definition (and the progress recomputed for it), bumping `version`, only if the item
        is still at `version` and no run has posted anything since it was read. VersionMismatch / NotFound
        if the definition changed; ProgressConflict if only the progress did (read again and retry)."""
        ledger = ctx.ledger
        data = {**fields, **due_keys(ledger, recurrence_id, fields.get("next_due"))}
        expression, names, values = sets_and_removes(data)
        names.update({"#ver": "version", "#pt": "posted_through"})
        values.update({":v": version, ":one": 1})
        condition = "attribute_exists(SK) AND #ver = :v AND "
        if posted_through is None:
            condition += "attribute_not_exists(#pt)"
        else:
            condition += "#pt = :pt"
            values[":pt"] = posted_through

        def fail(old: Item | None) -> errors.ApiError:
            if old is None:
                return errors.NotFound("recurrence not found")
            current = int(old["version"])
            if current != version:
                return errors.VersionMismatch(
                    f"the recurrence is at version {current}, not {version}", current=current, expected=version
                )
            raise ProgressConflict

        op = self.core.update_op(
            ledger, recurrence_sk(recurrence_id), f"{expression} ADD #ver :one", fail, condition,
            names=names, values=values,
        )  # fmt: skip
        return self.write.commit(ctx, [op], changes, at=str(fields["updated_at"]), undoes=undoes)

    def delete_recurrence(
        self,
        ctx: WriteContext,
        recurrence_id: str,
        *,
        version: int,
        expected: int | None,
        changes: Sequence[Change],
        at: str,
        undoes: int | None = None,
    ) -> int:
        """Delete the definition (slips it posted stay) if it is still at `version` (read just before;
        `expected`: what the caller named, None for any)."""
        ledger = ctx.ledger
        condition, values = "attribute_exists(SK) AND #ver = :v", {":v": version}
        names = {"#ver": "version"}

        def fail(old: Item | None) -> errors.ApiError:
            if old is None:
                return errors.NotFound("recurrence not found")
            current = int(old["version"])
            if expected is None:
                return errors.ReadAgain()
            return errors.VersionMismatch(
                f"the recurrence is at version {current}, not {expected}", current=current, expected=expected
            )

        op = self.core.delete_op(ledger, recurrence_sk(recurrence_id), condition, fail, names=names, values=values)
        return self.write.commit(ctx, [op], changes, at=at, undoes=undoes)

    def record_progress(
        self,
        ctx: Bookkeeping,
        recurrence_id: str,
        *,
        version: int,
        posted_through: str | None,
        next_scheduled: str | None,
        next_due: str | None,
        last_error: str | None,
    ) -> None:
        """Save how far runs have got, for the definition at `version`, never moving backwards.
        ProgressConflict if the definition changed, the item is gone or another run is further."""
        fields = {
            "posted_through": posted_through,
            "next_scheduled": next_scheduled,
            "next_due": next_due,
            "last_error": last_error,
            **due_keys(ctx.ledger, recurrence_id, next_due),
        }
        expression, names, values = sets_and_removes(fields)
        condition = forward_only(names, values, version=version, field="posted_through", value=posted_through)

        def fail(old: Item | None) -> errors.ApiError:
            raise ProgressConflict

        self.write.record(
            ctx, [self.core.update_op(ctx.ledger, recurrence_sk(recurrence_id), expression, fail, condition,
                                      names=names, values=values)]
        )  # fmt: skip

    def due_recurrences(self, until: str) -> Iterator[tuple[str, str]]:
        """(ledger, recurrence id) of every recurrence, in any ledger, with an occurrence posting on or
        before `until`, earliest first."""
        for ledger, sk in self.due_work(until):
            if sk.startswith(PREFIX):
                yield ledger, sk.removeprefix(PREFIX)

    def due(self, until: str) -> Iterator[Due]:
        """Every piece of work, in any ledger, due on or before `until`, earliest first (due_work)."""
        return (due_of(ledger, sk) for ledger, sk in self.due_work(until))

    def due_work(self, until: str) -> Iterator[tuple[str, str]]:
        """(ledger, SK) of every item, in any ledger, with work due on or before `until` (recurrences,
        card payments; a deletion not finished gives (its ledger, DELETION_WORK)), earliest first: the
        due index's shards (and the partition from before them) read in parallel, at most
        MAX_PARALLEL_SHARDS at a time, merged by date."""
        shards = get_settings().due_shards
        partitions = [DUE_PARTITION, *(f"{DUE_PARTITION}#{n:03d}" for n in range(shards))]
        with ThreadPoolExecutor(max_workers=min(MAX_PARALLEL_SHARDS, len(partitions))) as pool:
            found = list(pool.map(lambda partition: list(self._due_in(partition, until)), partitions))
        for due_sk, ledger, sk in heapq.merge(*found):
            del due_sk
            yield ledger, sk

    def _due_in(self, partition: str, until: str) -> Iterator[tuple[str, str, str]]:
        """(DueSK, ledger, SK) of one due partition, dated `until` or earlier, in order."""
        kwargs: dict[str, Any] = {
            "TableName": self.core.table,
            "IndexName": DUE_INDEX,
            # DueSK is "{date}#...": every key dated `until` or earlier sorts below "{until}$" ('$' follows '#')
            "KeyConditionExpression": "#dpk = :due AND #dsk < :hi",
            "ExpressionAttributeNames": {"#dpk": DUE_PK, "#dsk": DUE_SK},
            "ExpressionAttributeValues": to_ddb({":due": partition, ":hi": f"{until}$"}),
        }
        while True:
            res = self.core.call(self.core.client.query, **kwargs)
            for raw in res.get("Items", []):
                ledger = ledger_of_pk(raw["PK"]["S"])
                if ledger is not None:
                    yield raw[DUE_SK]["S"], ledger, raw["SK"]["S"]
                elif (gone := ledger_of_gone_pk(raw["PK"]["S"])) is not None:  # a deletion not finished
                    yield raw[DUE_SK]["S"], gone, DELETION_WORK
            last = res.get("LastEvaluatedKey")
            if not last:
                return
            kwargs["ExclusiveStartKey"] = last

    def rekey_due(self, limit: int = 1000) -> int:
        """Move up to `limit` due items from before the shards to their shard. Idempotent and safe
        while writes go on: each move is conditioned on the item still carrying the old key (a write
        meanwhile has moved it already, or finished it). How many it moved."""
        shards = get_settings().due_shards
        moved = 0
        for raw in self._legacy_due(limit):
            ledger = ledger_of_pk(raw["PK"]["S"])
            if ledger is None:
                continue
            moved += self.core.conditional(
                self.core.client.update_item,
                Key={"PK": raw["PK"], "SK": raw["SK"]},
                UpdateExpression="SET #dpk = :shard",
                ConditionExpression="#dpk = :old",
                ExpressionAttributeNames={"#dpk": DUE_PK},
                ExpressionAttributeValues=to_ddb({":shard": due_shard(ledger, shards), ":old": DUE_PARTITION}),
            )
        return moved

    def _legacy_due(self, limit: int) -> list[dict[str, Any]]:
        res = self.core.call(
            self.core.client.query,
            TableName=self.core.table,
            IndexName=DUE_INDEX,
            KeyConditionExpression="#dpk = :due",
            ExpressionAttributeNames={"#dpk": DUE_PK},
            ExpressionAttributeValues=to_ddb({":due": DUE_PARTITION}),
            Limit=limit,
        )
        items: list[dict[str, Any]] = res.get("Items", [])
        return items
