"""A ledger's data as a whole: every item it holds, read page by page, and the EXPORT# items that
say how far each export's archive is built; an archive's items written into a new ledger, and the
RESTORE# items (in the restoring user's partition) that say how far that got.

An export's item holds its state (`building`, then `ready`), the S3 multipart upload it writes,
the parts stored so far (their ETags, in order) and the key of the last item those parts hold:
each stored part is recorded with the condition that the parts recorded are the ones the writer
started from and that it still holds the ledger's export lease, so a resumed build continues after
the last stored part and no part is counted twice.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Sequence
from itertools import islice
from typing import Any

from kakeibo import errors
from kakeibo.store.codec import Item, to_ddb
from kakeibo.store.core import TxOp
from kakeibo.store.journal import GONE, Change
from kakeibo.store.keys import (
    DELETION_WORK,
    EXPORTING_SK,
    INVITATION_REFS,
    JOURNAL_SK,
    META_SK,
    SharedLedger,
    change_sk,
    export_sk,
    gone_pk,
    household_pk,
    ledger_of_pk,
    lock_sk,
    member_sk,
    membership_sk,
    pk,
    restore_sk,
    tombstone_pk,
    user_pk,
    webhook_sk,
)
from kakeibo.store.locks import Lease, LockOps
from kakeibo.store.recurrences import DUE_PK, DUE_SK, due_keys
from kakeibo.store.write import Bookkeeping, WriteContext, WriteOps

EXPORT = "EXPORT#"
BUILDING, READY = "building", "ready"
# Not the ledger's data: the leases of work in progress, the exports themselves, and the listings of
# its invitations (each holds a token that makes whoever has it a member).
_NOT_DATA = ("LOCK#", EXPORT, EXPORTING_SK, INVITATION_REFS)
_SECRETS = ("secret",)  # a webhook's signing secret never leaves the table


# What a restored ledger does not take from its archive: its members, webhooks, invitations and
# journal are its own (the restoring user is its owner, webhooks start fresh, the journal starts with
# the restore), and receipts not stored are uploads that never finished.
_NOT_RESTORED = (
    lock_sk(""),
    EXPORT,
    EXPORTING_SK,
    INVITATION_REFS,
    META_SK,
    member_sk(""),
    webhook_sk(""),
    "DELIVERY#",
    change_sk(0)[:4],
    JOURNAL_SK,
)
RECEIPT = "RECEIPT#"
BATCH = 25  # items per BatchWriteItem


def _due(ledger: str, at: str) -> dict[str, str]:
    """A tombstone's place in the due index while its deletion is not finished (the daily job
    finishes a deletion whose run stopped: services/daily.py), then until the objects uploaded
    after it are swept (`deletion_finished` moves it, `late_objects_swept` removes it)."""
    keys = due_keys(ledger, DELETION_WORK, at[:10])
    return {k: v for k, v in keys.items() if v is not None}


def _typed_value(value: Any) -> Any:
    """The inverse of `_json_value`: a typed attribute value from what an archive holds."""
    kind, inner = next(iter(value.items()))
    if kind == "B":
        return {"B": base64.b64decode(inner)}
    if kind == "BS":
        return {"BS": [base64.b64decode(b) for b in inner]}
    if kind == "L":
        return {"L": [_typed_value(v) for v in inner]}
    if kind == "M":
        return {"M": {k: _typed_value(v) for k, v in inner.items()}}
    return {kind: inner}


class ArchiveItemsRefused(ValueError):
    """An archive's items cannot be restored: `reason` says why, in words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def restorable(source: str, items: Sequence[dict[str, Any]]) -> tuple[list[dict[str, Any]], str | None]:
    """The items of an archive of the ledger `source` a new ledger takes (typed, keyed by their SK
    alone), and the exported ledger's name if it had one. ArchiveItemsRefused when an item has no
    key or belongs to another ledger (a foreign or altered archive)."""
    kept: list[dict[str, Any]] = []
    name: str | None = None
    for number, item in enumerate(items, 1):
        try:
            partition, sk = item["PK"]["S"], item["SK"]["S"]
            typed = {k: _typed_value(v) for k, v in item.items() if k not in ("PK", "SK")}
        except (KeyError, TypeError, AttributeError, StopIteration, ValueError) as exc:
            raise ArchiveItemsRefused(
                f"item {number} is not an item of a ledger (its key or values are malformed)"
            ) from exc
        if not isinstance(partition, str) or not isinstance(sk, str) or str(ledger_of_pk(partition)) != source:
            raise ArchiveItemsRefused(f"item {number} belongs to another ledger than the one the archive names")
        if sk == META_SK:
            found = typed.get("name", {}).get("S")
            name = found if isinstance(found, str) else None
        if sk.startswith(_NOT_RESTORED):
            continue
        if sk.startswith(RECEIPT) and typed.get("state") != {"S": "stored"}:
            continue
        kept.append({"SK": {"S": sk}, **typed})
    return kept, name


def _rehomed(ledger: SharedLedger, source: str, item: dict[str, Any]) -> dict[str, Any]:
    """An archive's item as the new ledger holds it: its partition, and its place in the due index."""
    moved = {"PK": {"S": pk(ledger)}, **item}
    due = item.get(DUE_SK, {}).get("S")
    if isinstance(due, str):
        day, _, rest = due.partition("#")
        keys = due_keys(ledger, rest.removeprefix(f"{source}#"), day)
        moved.update({k: {"S": v} for k, v in keys.items() if v is not None})
    return moved


def _json_value(value: Any) -> Any:
    """A typed attribute value as JSON can hold it: bytes in base64, lists and maps through."""
    kind, inner = next(iter(value.items()))
    if kind == "B":
        return {"B": base64.b64encode(inner).decode("ascii")}
    if kind == "BS":
        return {"BS": [base64.b64encode(b).decode("ascii") for b in inner]}
    if kind == "L":
        return {"L": [_json_value(v) for v in inner]}
    if kind == "M":
        return {"M": {k: _json_value(v) for k, v in inner.items()}}
    return {kind: inner}


def _lost(current: Item | None) -> errors.ApiError:
    return errors.Conflict("the export moved on in another process; retry shortly", retry_after=1)


class ExportUnderWay(errors.Conflict):
    """Another request started the ledger's export first: `export_id` is the one it is building."""

    def __init__(self, export_id: str) -> None:
        super().__init__("the ledger's export is being built already", retry_after=1)
        self.export_id = export_id


def _under_way(current: Item | None) -> errors.ApiError:
    return ExportUnderWay(str((current or {}).get("id", "")))


def _restore_moved(current: Item | None) -> errors.ApiError:
    return errors.Conflict("the restore moved on in another request; retry shortly", retry_after=1)


def _stale_ledger(current: Item | None) -> errors.ApiError:
    if current is None:
        return errors.NotFound("not found")
    return errors.VersionMismatch("the ledger was changed meanwhile", current=int(current.get("version", 0)))


def _deleting(current: Item | None) -> errors.ApiError:
    return errors.Conflict("the ledger is being deleted already; retry shortly", retry_after=1)


def _members_moved(current: Item | None) -> errors.ApiError:
    return errors.Conflict("the ledger's members changed meanwhile; retry", retry_after=1)


class DataOps(LockOps, WriteOps):
    """The ledger's items page by page, and its exports' progress; archives restored; ledgers deleted."""

    def read_tombstone(self, ledger_id: str) -> Item | None:
        return self.get_at(tombstone_pk(ledger_id), META_SK)

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
        ops = [TxOp("Put", {"TableName": self.table, "Item": to_ddb(tomb),
                            "ConditionExpression": "attribute_not_exists(PK)",
                            "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}, _deleting)]  # fmt: skip
        check: dict[str, Any] = {
            "TableName": self.table,
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
                ops.append(TxOp("Delete", {"TableName": self.table, "Key": to_ddb(key),
                                           "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                                           **condition}, _members_moved))  # fmt: skip
        self.record(Bookkeeping(SharedLedger(ledger_id), deleting=True), ops)
        return {k: v for k, v in tomb.items() if k not in ("PK", "SK", DUE_PK, DUE_SK)}

    def deletion_page(self, ledger: str, *, limit: int) -> list[Item]:
        """Up to `limit` items the ledger still holds, its leases and its fence aside."""
        found = self.query(ledger, page_size=limit + 4)  # a page read, not the partition (leases, fence: a few)
        kept = (i for i in found if not str(i["SK"]).startswith(lock_sk("")) and GONE not in i)
        return list(islice(kept, limit))

    def other_leases_removed(self, lease: Lease) -> int:
        """The leases of the ledger but `lease` (the deletion's own) gone: left by a process that was
        killed, or held by one whose every record the ledger's tombstone now refuses. How many."""
        held = self.query(lease.ledger, begins_with=lock_sk(""))
        others = [str(i["SK"]) for i in held if i["SK"] != lock_sk(lease.name)]
        self.delete_items(lease.ledger, others)
        return len(others)

    def delete_items(self, ledger: str, sks: Sequence[str]) -> None:
        """The ledger's items `sks` gone (deleting again what is gone already does nothing)."""
        for start in range(0, len(sks), BATCH):
            requests = [
                {"DeleteRequest": {"Key": to_ddb({"PK": pk(ledger), "SK": sk})}} for sk in sks[start : start + BATCH]
            ]
            pending: dict[str, Any] = {self.table: requests}
            for attempt in range(12):
                res = self._call(self.client.batch_write_item, RequestItems=pending)
                pending = res.get("UnprocessedItems") or {}
                if not pending:
                    break
                time.sleep(min(2.0, 0.05 * 2**attempt))
            else:
                raise errors.Conflict("the ledger is busy; retry shortly", retry_after=1)

    def deletion_progress(self, ledger: str, lease: Lease, *, items: int) -> None:
        """How many items the deletion of `ledger` (a SharedLedger, or a personal `sub`) has removed
        so far, under its lease."""
        op = TxOp(
            "Update",
            {
                "TableName": self.table,
                "Key": to_ddb({"PK": gone_pk(ledger), "SK": META_SK}),
                "UpdateExpression": "ADD #items :n",
                "ConditionExpression": "#state = :deleting",
                "ExpressionAttributeNames": {"#items": "items", "#state": "state"},
                "ExpressionAttributeValues": to_ddb({":n": items, ":deleting": "deleting"}),
                "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
            },
            _deleting,
        )
        self.record(Bookkeeping(ledger, deleting=True), [op, self.lock_held_op(lease)])

    def deletion_finished(self, ledger: str, *, at: str, sweep_after: str) -> bool:
        """The tombstone says the ledger (a SharedLedger, or a personal `sub`) is gone, once, and
        moves in the due index to `sweep_after`: when every upload link signed before the deletion
        has expired, the objects that still reached the bucket are looked for (`late_objects_swept`).
        False: it said so already."""
        due = _due(ledger, sweep_after)
        return self._conditional(
            self.client.update_item,
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
        return self._conditional(
            self.client.update_item,
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
        return self.get_at(gone_pk(user), META_SK)

    def person_deletion_started(self, user: str, *, ledgers: Sequence[str], at: str) -> Item:
        """A person's deletion begun (DELETE /me): their tombstone (who, when), written once, naming
        the shared ledgers that go with them (those they were the only member of). The tombstone as
        it is: the one written before, if there is one."""
        tomb = {"PK": gone_pk(user), "SK": META_SK, "type": "tombstone", "ledger": "me", "state": "deleting",
                "deleted_by": user, "requested_at": at, "items": 0, "ledgers": list(ledgers),
                **_due(user, at)}  # fmt: skip
        if not self._conditional(
            self.client.put_item, Item=to_ddb(tomb), ConditionExpression="attribute_not_exists(PK)"
        ):
            return self.read_person_tombstone(user) or tomb
        return {k: v for k, v in tomb.items() if k not in ("PK", "SK", DUE_PK, DUE_SK)}

    def person_fenced(self, user: str, *, at: str) -> None:
        """The person's personal ledger fenced: its journal head marked gone, so that no change is
        written into it again (every change's head condition requires the mark's absence). Once."""
        self._conditional(
            self.client.update_item,
            Key=to_ddb({"PK": pk(user), "SK": JOURNAL_SK}),
            UpdateExpression="SET #gone = :at",
            ConditionExpression="attribute_not_exists(#gone)",
            ExpressionAttributeNames={"#gone": GONE},
            ExpressionAttributeValues=to_ddb({":at": at}),
        )

    def fence_emptied(self, user: str) -> None:
        """The fence of a deleted person's ledger holding nothing but itself (not the journal's seq
        and time it was set on): the one item of the partition left, and no data of theirs."""
        fence = self.get_at(pk(user), JOURNAL_SK)
        if fence is None or (fence.get("type") == "fence" and set(fence) == {"PK", "SK", "type", GONE}):
            return
        item = {"PK": pk(user), "SK": JOURNAL_SK, "type": "fence", GONE: fence[GONE]}
        self._call(self.client.put_item, TableName=self.table, Item=to_ddb(item))

    def restores_of(self, user: str) -> list[str]:
        """The archives (their sha256) the user has restore records of, whatever their state."""
        found = self.query_at(user_pk(user), begins_with=restore_sk(""))
        return [str(i["SK"]).removeprefix(restore_sk("")) for i in found]

    def restore_removed(self, user: str, sha256: str) -> None:
        self._call(
            self.client.delete_item, TableName=self.table, Key=to_ddb({"PK": user_pk(user), "SK": restore_sk(sha256)})
        )

    def idempotency_records_forgotten(
        self, table: str, person: str, *, after: dict[str, Any] | None, limit: int = 1000
    ) -> tuple[int, dict[str, Any] | None]:
        """One page (`limit` records) of a Query of the person's partition of `table` (keys.
        idempotency_person) after the key `after`: those Idempotency-Key records gone, 25 a call.
        (How many, the key to go on after; None: the partition is read.) Only their own records are
        read: the cost is theirs, not the table's. A key from before records were kept per person
        (a Scan's, without `sk`) starts the partition from its beginning."""
        kwargs: dict[str, Any] = {
            "TableName": table,
            "KeyConditionExpression": "#id = :person",
            "ProjectionExpression": "#id, #sk",
            "ExpressionAttributeNames": {"#id": "id", "#sk": "sk"},
            "ExpressionAttributeValues": {":person": {"S": person}},
            "ConsistentRead": True,
            "Limit": limit,
        }
        if after and "sk" in after:
            kwargs["ExclusiveStartKey"] = after
        res = self._call(self.client.query, **kwargs)
        found = [{"DeleteRequest": {"Key": {"id": raw["id"], "sk": raw["sk"]}}} for raw in res.get("Items", [])]
        for start in range(0, len(found), BATCH):
            self._batch_write(table, found[start : start + BATCH])
        return len(found), res.get("LastEvaluatedKey") or None

    def person_records_progress(self, user: str, after: dict[str, Any] | None) -> None:
        """How far the person's deletion has looked for their Idempotency-Key records: the key to go on
        after, or (None) `done`."""
        value = json.dumps(after) if after else "done"
        self._call(
            self.client.update_item,
            TableName=self.table,
            Key=to_ddb({"PK": gone_pk(user), "SK": META_SK}),
            UpdateExpression="SET #after = :after",
            ExpressionAttributeNames={"#after": "records_after"},
            ExpressionAttributeValues=to_ddb({":after": value}),
        )

    def _batch_write(self, table: str, requests: list[dict[str, Any]]) -> None:
        pending: dict[str, Any] = {table: requests}
        for attempt in range(12):
            res = self._call(self.client.batch_write_item, RequestItems=pending)
            pending = res.get("UnprocessedItems") or {}
            if not pending:
                return
            time.sleep(min(2.0, 0.05 * 2**attempt))
        raise errors.Conflict("the table is busy; retry shortly", retry_after=1)

    def read_restore(self, user: str, sha256: str) -> Item | None:
        return self.get_at(user_pk(user), restore_sk(sha256))

    def restore_claimed(self, user: str, item: Item) -> bool:
        """The user's restore of an archive, `pending` its upload. False: there is one already."""
        body = {"PK": user_pk(user), "SK": restore_sk(str(item["id"])), "type": "restore", "state": "pending", **item}
        return self._conditional(
            self.client.put_item, Item=to_ddb(body), ConditionExpression="attribute_not_exists(SK)"
        )

    def restore_forgotten(self, user: str, sha256: str) -> None:
        """A pending restore whose archive was refused: gone, so that nothing of it is kept."""
        self._conditional(
            self.client.delete_item,
            Key=to_ddb({"PK": user_pk(user), "SK": restore_sk(sha256)}),
            ConditionExpression="#state = :pending",
            ExpressionAttributeNames={"#state": "state"},
            ExpressionAttributeValues=to_ddb({":pending": "pending"}),
        )

    def restore_reopened(self, user: str, sha256: str, *, ledger: str) -> bool:
        """A restore `restored` into `ledger`, which is no longer the user's (deleted, or they left it):
        forgotten, so that the archive can be restored again. False: it was forgotten already."""
        return self._conditional(
            self.client.delete_item,
            Key=to_ddb({"PK": user_pk(user), "SK": restore_sk(sha256)}),
            ConditionExpression="#state = :restored AND #ledger = :ledger",
            ExpressionAttributeNames={"#state": "state", "#ledger": "ledger"},
            ExpressionAttributeValues=to_ddb({":restored": "restored", ":ledger": ledger}),
        )

    def restore_begun(self, user: str, sha256: str, *, ledger_id: str, name: str, at: str) -> bool:
        """The archive checked: the new ledger's id and name, named once. False: another request did."""
        return self._conditional(
            self.client.update_item,
            Key=to_ddb({"PK": user_pk(user), "SK": restore_sk(sha256)}),
            UpdateExpression="SET #state = :restoring, #ledger = :ledger, #name = :name, #upd = :at",
            ConditionExpression="#state = :pending",
            ExpressionAttributeNames={"#state": "state", "#ledger": "ledger", "#name": "name", "#upd": "updated_at"},
            ExpressionAttributeValues=to_ddb(
                {":restoring": "restoring", ":pending": "pending", ":ledger": ledger_id, ":name": name, ":at": at}
            ),
        )

    def restore_progress(self, user: str, sha256: str, *, items: int, receipts: int) -> None:
        """How far the restore got (what a later request need not write again)."""
        self._conditional(
            self.client.update_item,
            Key=to_ddb({"PK": user_pk(user), "SK": restore_sk(sha256)}),
            UpdateExpression="SET #items = :items, #receipts = :receipts",
            ConditionExpression="#state = :restoring",
            ExpressionAttributeNames={"#state": "state", "#items": "items", "#receipts": "receipts"},
            ExpressionAttributeValues=to_ddb({":restoring": "restoring", ":items": items, ":receipts": receipts}),
        )

    def restore_items(self, ledger: SharedLedger, source: str, items: Sequence[dict[str, Any]]) -> None:
        """Archive items written into the new ledger `ledger` (not yet anyone's: no member item), as
        they were (written again, the same items)."""
        for start in range(0, len(items), BATCH):
            requests = [{"PutRequest": {"Item": _rehomed(ledger, source, i)}} for i in items[start : start + BATCH]]
            pending: dict[str, Any] = {self.table: requests}
            for attempt in range(12):
                res = self._call(self.client.batch_write_item, RequestItems=pending)
                pending = res.get("UnprocessedItems") or {}
                if not pending:
                    break
                time.sleep(min(2.0, 0.05 * 2**attempt))
            else:
                raise errors.Conflict("the ledger is busy; retry shortly", retry_after=1)

    def restore_finished(
        self,
        ctx: WriteContext,
        sha256: str,
        *,
        name: str,
        at: str,
        changes: Sequence[Change],
        items: int,
        receipts: int,
    ) -> Item:
        """The new ledger made the restoring user's (its META, their member and reverse items, the
        journal's first entry) and the restore `restored`, in one transaction: the ledger's meta."""
        ledger_id, owner = str(ctx.ledger), ctx.actor
        meta = {"PK": household_pk(ledger_id), "SK": META_SK, "id": ledger_id, "name": name, "version": 1,
                "created_by": owner, "created_at": at, "owners": 1}  # fmt: skip
        member = {"PK": household_pk(ledger_id), "SK": member_sk(owner), "user": owner, "role": "owner",
                  "version": 1, "added_by": owner, "added_at": at}  # fmt: skip
        mine = {"PK": user_pk(owner), "SK": membership_sk(ledger_id), "ledger": ledger_id, "role": "owner"}
        ops = [
            TxOp(
                "Put",
                {
                    "TableName": self.table,
                    "Item": to_ddb(item),
                    "ConditionExpression": "attribute_not_exists(PK)",
                    "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                },
                _restore_moved,
            )
            for item in (meta, member, mine)
        ]
        done = TxOp(
            "Update",
            {
                "TableName": self.table,
                "Key": to_ddb({"PK": user_pk(owner), "SK": restore_sk(sha256)}),
                "UpdateExpression": "SET #state = :restored, #items = :items, #receipts = :receipts, #upd = :at",
                "ConditionExpression": "#state = :restoring AND #ledger = :ledger",
                "ExpressionAttributeNames": {
                    "#state": "state",
                    "#items": "items",
                    "#receipts": "receipts",
                    "#upd": "updated_at",
                    "#ledger": "ledger",
                },
                "ExpressionAttributeValues": to_ddb(
                    {
                        ":restored": "restored",
                        ":restoring": "restoring",
                        ":items": items,
                        ":receipts": receipts,
                        ":at": at,
                        ":ledger": ledger_id,
                    }
                ),
                "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
            },
            _restore_moved,
        )
        self.commit(ctx, [*ops, done], changes, at=at)
        return {key: value for key, value in meta.items() if key not in ("PK", "SK")}

    def data_page(self, ledger: str, *, after: str | None, limit: int) -> tuple[list[Item], str | None]:
        """Up to `limit` items of the ledger's data after the key `after`, in key order, exactly as
        stored (DynamoDB JSON: each attribute a typed value, binary ones in base64), webhooks without
        their secrets; and the key to continue after (None: the partition is read)."""
        kwargs: dict[str, Any] = {
            "TableName": self.table,
            "KeyConditionExpression": "PK = :pk",
            "ExpressionAttributeValues": to_ddb({":pk": pk(ledger)}),
            "ConsistentRead": True,
            "Limit": limit,
        }
        if after:
            kwargs["ExclusiveStartKey"] = to_ddb({"PK": pk(ledger), "SK": after})
        found: list[Item] = []
        while True:
            res = self._call(self.client.query, **kwargs)
            for raw in res.get("Items", []):
                sk = str(raw["SK"]["S"])
                if sk.startswith(_NOT_DATA):
                    continue
                hook = sk.startswith(webhook_sk(""))
                found.append({k: _json_value(v) for k, v in raw.items() if not (hook and k in _SECRETS)})
            last = res.get("LastEvaluatedKey")
            if not last:
                return found, None
            if len(found) >= limit:
                return found, str(last["SK"]["S"])
            kwargs["ExclusiveStartKey"] = last

    def read_export(self, ledger: str, export_id: str) -> Item | None:
        return self.get(ledger, export_sk(export_id))

    def exports_building(self, ledger: str) -> list[Item]:
        return [i for i in self.query(ledger, begins_with=EXPORT) if i.get("state") == BUILDING]

    def export_started(self, ctx: Bookkeeping, item: Item) -> None:
        """The export's item, `building` with nothing stored yet, and the ledger's one export under
        way: ExportUnderWay (naming it) when another request started one first."""
        fields = {**item, "SK": export_sk(item["id"]), "type": "export", "state": BUILDING, "parts": "[]"}
        under_way = {"SK": EXPORTING_SK, "id": item["id"]}
        self.record(
            ctx,
            [
                self.put_op(ctx.ledger, under_way, "attribute_not_exists(SK)", _under_way),
                self.put_op(ctx.ledger, fields, "attribute_not_exists(SK)", _lost),
            ],
        )

    def export_upload_opened(self, ctx: Bookkeeping, lease: Lease, export_id: str, upload_id: str) -> None:
        """The multipart upload the archive is written into, named once."""
        op = self.update_op(
            ctx.ledger,
            export_sk(export_id),
            "SET #up = :up",
            _lost,
            "attribute_exists(SK) AND attribute_not_exists(#up)",
            names={"#up": "upload_id"},
            values={":up": upload_id},
        )
        self.record(ctx, [op, self.lock_held_op(lease)])

    def export_part_stored(
        self,
        ctx: Bookkeeping,
        lease: Lease,
        export: Item,
        *,
        etag: str,
        cursor: str | None,
        count: int | None = None,
        items: int,
        receipts: int,
        at: str,
        ready: bool,
    ) -> Item:
        """One more part stored (the parts recorded must still be the ones `export` shows), or, with
        `count`, the archive found whole in `count` parts: the export as it is now."""
        parts: list[dict[str, Any]] = json.loads(export["parts"])
        now = [*parts, {"PartNumber": len(parts) + 1, "ETag": etag}]
        if count is not None:
            now = [*parts[:count], *({"PartNumber": n, "ETag": etag} for n in range(len(parts) + 1, count + 1))]
        values: dict[str, Any] = {
            ":was": export["parts"],
            ":parts": json.dumps(now),
            ":items": items,
            ":receipts": receipts,
            ":at": at,
            ":state": READY if ready else BUILDING,
        }
        update = "SET #parts = :parts, #items = :items, #receipts = :receipts, #upd = :at, #state = :state"
        names = {
            "#parts": "parts",
            "#items": "items",
            "#receipts": "receipts",
            "#upd": "updated_at",
            "#state": "state",
        }
        if cursor is None:
            update += " REMOVE #cursor"
        else:
            update += ", #cursor = :cursor"
            values[":cursor"] = cursor
        names["#cursor"] = "cursor"
        op = self.update_op(
            ctx.ledger, export_sk(export["id"]), update, _lost, "#parts = :was", names=names, values=values
        )
        ops = [op, self.lock_held_op(lease)]
        if ready:  # the ledger may start its next export
            ops.append(
                self.delete_op(
                    ctx.ledger,
                    EXPORTING_SK,
                    "attribute_not_exists(SK) OR #id = :id",
                    _lost,
                    names={"#id": "id"},
                    values={":id": export["id"]},
                )
            )
        self.record(ctx, ops)
        changed = {**export, "parts": values[":parts"], "items": items, "receipts": receipts, "state": values[":state"]}
        changed["updated_at"] = at
        if cursor is None:
            changed.pop("cursor", None)
        else:
            changed["cursor"] = cursor
        return changed
