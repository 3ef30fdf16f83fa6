"""A ledger deleted (its tombstone, its items page by page, the objects uploaded late), and a person
deleted (their fence, their ledgers, their restores and Idempotency-Key records).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from itertools import islice
from typing import Any

from kakeibo import errors
from kakeibo.store.codec import Item, to_ddb
from kakeibo.store.journal import GONE
from kakeibo.store.keys import (
    DELETION_WORK,
    JOURNAL_SK,
    META_SK,
    SharedLedger,
    gone_pk,
    household_pk,
    idempotency_person,
    lock_sk,
    member_sk,
    membership_sk,
    pk,
    restore_sk,
    tombstone_pk,
    user_pk,
)
from kakeibo.store.locks import Lease, LockOps
from kakeibo.store.recurrences import DUE_PK, DUE_SK, due_keys
from kakeibo.store.transactions import StoreCore, TxOp
from kakeibo.store.write import Bookkeeping, WriteOps


def _due(ledger: str, at: str) -> dict[str, str]:
    """A tombstone's place in the due index while its deletion is not finished (the daily job
    finishes a deletion whose run stopped: services/daily.py), then until the objects uploaded
    after it are swept (`deletion_finished` moves it, `late_objects_swept` removes it)."""
    keys = due_keys(ledger, DELETION_WORK, at[:10])
    return {k: v for k, v in keys.items() if v is not None}


def _stale_ledger(current: Item | None) -> errors.ApiError:
    if current is None:
        return errors.NotFound("not found")
    return errors.VersionMismatch("the ledger was changed meanwhile", current=int(current.get("version", 0)))


def _deleting(current: Item | None) -> errors.ApiError:
    return errors.Conflict("the ledger is being deleted already; retry shortly", retry_after=1)


def _members_moved(current: Item | None) -> errors.ApiError:
    return errors.Conflict("the ledger's members changed meanwhile; retry", retry_after=1)


class DeletionOps:
    """Ledgers and people deleted, and how far each deletion got."""

    def __init__(self, core: StoreCore, locks: LockOps, write: WriteOps) -> None:
        self.core = core
        self.locks = locks
        self.write = write

    def read_tombstone(self, ledger_id: str) -> Item | None:
        return self.core.get_at(tombstone_pk(ledger_id), META_SK)

    def deletion_started(
        self, ledger_id: str, owner: str, *, members: Sequence[Item], expected: int | None, at: str
    ) -> Item:
        """The ledger's deletion begun, in one transaction: its tombstone (who, when) written once, its
        meta still at `expected` (None: any), the caller still an owner, and every member item and
        member's reverse item gone, so that from now on the ledger answers 404 to everyone. The
        tombstone."""
        tomb = {"PK": tombstone_pk(ledger_id), "SK": META_SK, "type": "tombstone", "ledger": ledger_id,
                "state": "deleting", "deleted_by": owner, "requested_at": at, "items": 0,
                **_due(SharedLedger(ledger_id), at)}  # fmt: skip
        ops = [TxOp("Put", {"TableName": self.core.table, "Item": to_ddb(tomb),
                            "ConditionExpression": "attribute_not_exists(PK)",
                            "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}, _deleting)]  # fmt: skip
        check: dict[str, Any] = {
            "TableName": self.core.table,
            "Key": to_ddb({"PK": household_pk(ledger_id), "SK": META_SK}),
            "ConditionExpression": "attribute_exists(PK)",
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        }
        if expected is not None:
            check["ConditionExpression"] = "#v = :v"
            check["ExpressionAttributeNames"] = {"#v": "version"}
            check["ExpressionAttributeValues"] = to_ddb({":v": expected})
        ops.append(TxOp("ConditionCheck", check, _stale_ledger))
        for member in members:
            user = str(member["user"])
            condition: dict[str, Any] = {"ConditionExpression": "attribute_exists(PK)"}
            if user == owner:
                condition = {
                    "ConditionExpression": "#role = :owner",
                    "ExpressionAttributeNames": {"#role": "role"},
                    "ExpressionAttributeValues": to_ddb({":owner": "owner"}),
                }
            for key in ({"PK": household_pk(ledger_id), "SK": member_sk(user)},
                        {"PK": user_pk(user), "SK": membership_sk(ledger_id)}):  # fmt: skip
                ops.append(TxOp("Delete", {"TableName": self.core.table, "Key": to_ddb(key),
                                           "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                                           **condition}, _members_moved))  # fmt: skip
        self.write.record(Bookkeeping(SharedLedger(ledger_id), deleting=True), ops)
        return {k: v for k, v in tomb.items() if k not in ("PK", "SK", DUE_PK, DUE_SK)}

    def deletion_page(self, ledger: str, *, limit: int) -> list[Item]:
        """Up to `limit` items the ledger still holds, its leases and its fence aside."""
        found = self.core.query(ledger, page_size=limit + 4)  # a page read, not the partition (leases, fence: a few)
        kept = (i for i in found if not str(i["SK"]).startswith(lock_sk("")) and GONE not in i)
        return list(islice(kept, limit))

    def other_leases_removed(self, lease: Lease) -> int:
        """The leases of the ledger but `lease` (the deletion's own) gone: left by a process that was
        killed, or held by one whose every record the ledger's tombstone now refuses. How many."""
        held = self.core.query(lease.ledger, begins_with=lock_sk(""))
        others = [str(i["SK"]) for i in held if i["SK"] != lock_sk(lease.name)]
        self.delete_items(lease.ledger, others)
        return len(others)

    def delete_items(self, ledger: str, sks: Sequence[str]) -> None:
        """The ledger's items `sks` gone (deleting again what is gone already does nothing)."""
        self.core.batch_write(
            self.core.table, [{"DeleteRequest": {"Key": to_ddb({"PK": pk(ledger), "SK": sk})}} for sk in sks]
        )

    def deletion_progress(self, ledger: str, lease: Lease, *, items: int) -> None:
        """How many items the deletion of `ledger` (a SharedLedger, or a personal `sub`) has removed
        so far, under its lease."""
        op = TxOp(
            "Update",
            {
                "TableName": self.core.table,
                "Key": to_ddb({"PK": gone_pk(ledger), "SK": META_SK}),
                "UpdateExpression": "ADD #items :n",
                "ConditionExpression": "#state = :deleting",
                "ExpressionAttributeNames": {"#items": "items", "#state": "state"},
                "ExpressionAttributeValues": to_ddb({":n": items, ":deleting": "deleting"}),
                "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
            },
            _deleting,
        )
        self.write.record(Bookkeeping(ledger, deleting=True), [op, self.locks.lock_held_op(lease)])

    def deletion_finished(self, ledger: str, *, at: str, sweep_after: str) -> bool:
        """The tombstone says the ledger (a SharedLedger, or a personal `sub`) is gone, once, and
        moves in the due index to `sweep_after`: when every upload link signed before the deletion
        has expired, the objects that still reached the bucket are looked for (`late_objects_swept`).
        False: it said so already."""
        due = _due(ledger, sweep_after)
        return self.core.conditional(
            self.core.client.update_item,
            Key=to_ddb({"PK": gone_pk(ledger), "SK": META_SK}),
            UpdateExpression="SET #state = :deleted, #at = :at, #sweep = :sweep, #dpk = :dpk, #dsk = :dsk",
            ConditionExpression="#state = :deleting",
            ExpressionAttributeNames={
                "#state": "state",
                "#at": "deleted_at",
                "#sweep": "sweep_after",
                "#dpk": DUE_PK,
                "#dsk": DUE_SK,
            },
            ExpressionAttributeValues=to_ddb(
                {
                    ":deleted": "deleted",
                    ":deleting": "deleting",
                    ":at": at,
                    ":sweep": sweep_after,
                    ":dpk": due[DUE_PK],
                    ":dsk": due[DUE_SK],
                }
            ),
        )

    def late_objects_swept(self, ledger: str, *, at: str) -> bool:
        """The tombstone of a deleted ledger (a SharedLedger, or a personal `sub`) says that the objects
        uploaded after its deletion are gone too, and leaves the due index: nothing of it is left to
        do. Once: False when it said so already."""
        return self.core.conditional(
            self.core.client.update_item,
            Key=to_ddb({"PK": gone_pk(ledger), "SK": META_SK}),
            UpdateExpression="SET #swept = :at REMOVE #sweep, #dpk, #dsk",
            ConditionExpression="#state = :deleted AND attribute_exists(#sweep)",
            ExpressionAttributeNames={
                "#state": "state",
                "#swept": "swept_at",
                "#sweep": "sweep_after",
                "#dpk": DUE_PK,
                "#dsk": DUE_SK,
            },
            ExpressionAttributeValues=to_ddb({":deleted": "deleted", ":at": at}),
        )

    def read_person_tombstone(self, user: str) -> Item | None:
        return self.core.get_at(gone_pk(user), META_SK)

    def person_deletion_started(self, user: str, *, ledgers: Sequence[str], at: str) -> Item:
        """A person's deletion begun (DELETE /me): their tombstone (who, when), written once, naming
        the shared ledgers that go with them (those they were the only member of). The tombstone as
        it is: the one written before, if there is one."""
        tomb = {"PK": gone_pk(user), "SK": META_SK, "type": "tombstone", "ledger": "me", "state": "deleting",
                "deleted_by": user, "requested_at": at, "items": 0, "ledgers": list(ledgers),
                **_due(user, at)}  # fmt: skip
        if not self.core.conditional(
            self.core.client.put_item, Item=to_ddb(tomb), ConditionExpression="attribute_not_exists(PK)"
        ):
            return self.read_person_tombstone(user) or tomb
        return {k: v for k, v in tomb.items() if k not in ("PK", "SK", DUE_PK, DUE_SK)}

    def person_fenced(self, user: str, *, at: str) -> None:
        """The person's personal ledger fenced: its journal head marked gone, so that no change is
        written into it again (every change's head condition requires the mark's absence). Once."""
        self.core.conditional(
            self.core.client.update_item,
            Key=to_ddb({"PK": pk(user), "SK": JOURNAL_SK}),
            UpdateExpression="SET #gone = :at",
            ConditionExpression="attribute_not_exists(#gone)",
            ExpressionAttributeNames={"#gone": GONE},
            ExpressionAttributeValues=to_ddb({":at": at}),
        )

    def fence_emptied(self, user: str) -> None:
        """The fence of a deleted person's ledger holding nothing but itself (not the journal's seq
        and time it was set on): the one item of the partition left, and no data of theirs."""
        fence = self.core.get_at(pk(user), JOURNAL_SK)
        if fence is None or (fence.get("type") == "fence" and set(fence) == {"PK", "SK", "type", GONE}):
            return
        item = {"PK": pk(user), "SK": JOURNAL_SK, "type": "fence", GONE: fence[GONE]}
        self.core.call(self.core.client.put_item, TableName=self.core.table, Item=to_ddb(item))

    def restores_of(self, user: str) -> list[str]:
        """The archives (their sha256) the user has restore records of, whatever their state."""
        found = self.core.query_at(user_pk(user), begins_with=restore_sk(""))
        return [str(i["SK"]).removeprefix(restore_sk("")) for i in found]

    def restore_removed(self, user: str, sha256: str) -> None:
        self.core.call(
            self.core.client.delete_item,
            TableName=self.core.table,
            Key=to_ddb({"PK": user_pk(user), "SK": restore_sk(sha256)}),
        )

    def idempotency_records_forgotten(
        self, table: str, user: str, *, after: dict[str, Any] | None, limit: int = 1000
    ) -> tuple[int, dict[str, Any] | None]:
        """One page (`limit` records) of a Query of `user`'s partition of `table` (keys.
        idempotency_person) after the key `after`: those Idempotency-Key records gone, 25 a call.
        (How many, the key to go on after; None: the partition is read.) Only their own records are
        read: the cost is theirs, not the table's. A key from before records were kept per person
        (a Scan's, without `sk`) starts the partition from its beginning."""
        kwargs: dict[str, Any] = {
            "TableName": table,
            "KeyConditionExpression": "#id = :person",
            "ProjectionExpression": "#id, #sk",
            "ExpressionAttributeNames": {"#id": "id", "#sk": "sk"},
            "ExpressionAttributeValues": {":person": {"S": idempotency_person(user)}},
            "ConsistentRead": True,
            "Limit": limit,
        }
        if after and "sk" in after:
            kwargs["ExclusiveStartKey"] = after
        res = self.core.call(self.core.client.query, **kwargs)
        found = [{"DeleteRequest": {"Key": {"id": raw["id"], "sk": raw["sk"]}}} for raw in res.get("Items", [])]
        self.core.batch_write(table, found)
        return len(found), res.get("LastEvaluatedKey") or None

    def person_records_progress(self, user: str, after: dict[str, Any] | None) -> None:
        """How far the person's deletion has looked for their Idempotency-Key records: the key to go on
        after, or (None) `done`."""
        value = json.dumps(after) if after else "done"
        self.core.call(
            self.core.client.update_item,
            TableName=self.core.table,
            Key=to_ddb({"PK": gone_pk(user), "SK": META_SK}),
            UpdateExpression="SET #after = :after",
            ExpressionAttributeNames={"#after": "records_after"},
            ExpressionAttributeValues=to_ddb({":after": value}),
        )
