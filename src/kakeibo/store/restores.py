"""An archive's items written into a new ledger, and the RESTORE# items (in the restoring user's
partition) that say how far that got.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any

from kakeibo import errors
from kakeibo.store.codec import Item, to_ddb
from kakeibo.store.exports import EXPORT
from kakeibo.store.journal import Change
from kakeibo.store.keys import (
    EXPORTING_SK,
    INVITATION_REFS,
    JOURNAL_SK,
    META_SK,
    SharedLedger,
    change_sk,
    household_pk,
    ledger_of_pk,
    lock_sk,
    member_sk,
    membership_sk,
    pk,
    restore_sk,
    user_pk,
    webhook_sk,
)
from kakeibo.store.recurrences import DUE_SK, due_keys
from kakeibo.store.transactions import StoreCore, TxOp
from kakeibo.store.write import WriteContext, WriteOps

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


def _restore_moved(current: Item | None) -> errors.ApiError:
    return errors.Conflict("the restore moved on in another request; retry shortly", retry_after=1)


class RestoreOps:
    """Archives restored into new ledgers, and how far each restore got."""

    def __init__(self, core: StoreCore, write: WriteOps) -> None:
        self.core = core
        self.write = write

    def read_restore(self, user: str, sha256: str) -> Item | None:
        return self.core.get_at(user_pk(user), restore_sk(sha256))

    def restore_claimed(self, user: str, item: Item) -> bool:
        """The user's restore of an archive, `pending` its upload. False: there is one already."""
        body = {"PK": user_pk(user), "SK": restore_sk(str(item["id"])), "type": "restore", "state": "pending", **item}
        return self.core.conditional(
            self.core.client.put_item, Item=to_ddb(body), ConditionExpression="attribute_not_exists(SK)"
        )

    def restore_forgotten(self, user: str, sha256: str) -> None:
        """A pending restore whose archive was refused: gone, so that nothing of it is kept."""
        self.core.conditional(
            self.core.client.delete_item,
            Key=to_ddb({"PK": user_pk(user), "SK": restore_sk(sha256)}),
            ConditionExpression="#state = :pending",
            ExpressionAttributeNames={"#state": "state"},
            ExpressionAttributeValues=to_ddb({":pending": "pending"}),
        )

    def restore_reopened(self, user: str, sha256: str, *, ledger: str) -> bool:
        """A restore `restored` into `ledger`, which is no longer the user's (deleted, or they left it):
        forgotten, so that the archive can be restored again. False: it was forgotten already."""
        return self.core.conditional(
            self.core.client.delete_item,
            Key=to_ddb({"PK": user_pk(user), "SK": restore_sk(sha256)}),
            ConditionExpression="#state = :restored AND #ledger = :ledger",
            ExpressionAttributeNames={"#state": "state", "#ledger": "ledger"},
            ExpressionAttributeValues=to_ddb({":restored": "restored", ":ledger": ledger}),
        )

    def restore_begun(self, user: str, sha256: str, *, ledger_id: str, name: str, at: str) -> bool:
        """The archive checked: the new ledger's id and name, named once. False: another request did."""
        return self.core.conditional(
            self.core.client.update_item,
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
        self.core.conditional(
            self.core.client.update_item,
            Key=to_ddb({"PK": user_pk(user), "SK": restore_sk(sha256)}),
            UpdateExpression="SET #items = :items, #receipts = :receipts",
            ConditionExpression="#state = :restoring",
            ExpressionAttributeNames={"#state": "state", "#items": "items", "#receipts": "receipts"},
            ExpressionAttributeValues=to_ddb({":restoring": "restoring", ":items": items, ":receipts": receipts}),
        )

    def restore_items(self, ledger: SharedLedger, source: str, items: Sequence[dict[str, Any]]) -> None:
        """Archive items written into the new ledger `ledger` (not yet anyone's: no member item), as
        they were (written again, the same items)."""
        self.core.batch_write(self.core.table, [{"PutRequest": {"Item": _rehomed(ledger, source, i)}} for i in items])

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
                    "TableName": self.core.table,
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
                "TableName": self.core.table,
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
        self.write.commit(ctx, [*ops, done], changes, at=at)
        return {key: value for key, value in meta.items() if key not in ("PK", "SK")}
