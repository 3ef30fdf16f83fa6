"""A ledger's data as a whole, for its export: every item it holds, read page by page, and the
EXPORT# items that say how far each export's archive is built.

An export's item holds its state (`building`, then `ready`), the S3 multipart upload it writes,
the parts stored so far (their ETags, in order) and the key of the last item those parts hold:
each stored part is recorded with the condition that the parts recorded are the ones the writer
started from and that it still holds the ledger's export lease, so a resumed build continues after
the last stored part and no part is counted twice.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from kakeibo import errors
from kakeibo.store.codec import Item, to_ddb
from kakeibo.store.keys import (
    EXPORTING_SK,
    INVITATION_REFS,
    export_sk,
    pk,
    webhook_sk,
)
from kakeibo.store.locks import Lease, LockOps
from kakeibo.store.transactions import StoreCore
from kakeibo.store.write import Bookkeeping, WriteOps

EXPORT = "EXPORT#"

BUILDING, READY = "building", "ready"

# Not the ledger's data: the leases of work in progress, the exports themselves, and the listings of
# its invitations (each holds a token that makes whoever has it a member).
_NOT_DATA = ("LOCK#", EXPORT, EXPORTING_SK, INVITATION_REFS)

_SECRETS = ("secret",)  # a webhook's signing secret never leaves the table


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


class ExportOps:
    """The ledger's items page by page, and its exports' progress."""

    def __init__(self, core: StoreCore, locks: LockOps, write: WriteOps) -> None:
        self.core = core
        self.locks = locks
        self.write = write

    def data_page(self, ledger: str, *, after: str | None, limit: int) -> tuple[list[Item], str | None]:
        """Up to `limit` items of the ledger's data after the key `after`, in key order, exactly as
        stored (DynamoDB JSON: each attribute a typed value, binary ones in base64), webhooks without
        their secrets; and the key to continue after (None: the partition is read)."""
        kwargs: dict[str, Any] = {
            "TableName": self.core.table,
            "KeyConditionExpression": "PK = :pk",
            "ExpressionAttributeValues": to_ddb({":pk": pk(ledger)}),
            "ConsistentRead": True,
            "Limit": limit,
        }
        if after:
            kwargs["ExclusiveStartKey"] = to_ddb({"PK": pk(ledger), "SK": after})
        found: list[Item] = []
        while True:
            res = self.core.call(self.core.client.query, **kwargs)
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
        return self.core.get(ledger, export_sk(export_id))

    def exports_building(self, ledger: str) -> list[Item]:
        return [i for i in self.core.query(ledger, begins_with=EXPORT) if i.get("state") == BUILDING]

    def export_started(self, ctx: Bookkeeping, item: Item) -> None:
        """The export's item, `building` with nothing stored yet, and the ledger's one export under
        way: ExportUnderWay (naming it) when another request started one first."""
        fields = {**item, "SK": export_sk(item["id"]), "type": "export", "state": BUILDING, "parts": "[]"}
        under_way = {"SK": EXPORTING_SK, "id": item["id"]}
        self.write.record(
            ctx,
            [
                self.core.put_op(ctx.ledger, under_way, "attribute_not_exists(SK)", _under_way),
                self.core.put_op(ctx.ledger, fields, "attribute_not_exists(SK)", _lost),
            ],
        )

    def export_upload_opened(self, ctx: Bookkeeping, lease: Lease, export_id: str, upload_id: str) -> None:
        """The multipart upload the archive is written into, named once."""
        op = self.core.update_op(
            ctx.ledger,
            export_sk(export_id),
            "SET #up = :up",
            _lost,
            "attribute_exists(SK) AND attribute_not_exists(#up)",
            names={"#up": "upload_id"},
            values={":up": upload_id},
        )
        self.write.record(ctx, [op, self.locks.lock_held_op(lease)])

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
        op = self.core.update_op(
            ctx.ledger, export_sk(export["id"]), update, _lost, "#parts = :was", names=names, values=values
        )
        ops = [op, self.locks.lock_held_op(lease)]
        if ready:  # the ledger may start its next export
            ops.append(
                self.core.delete_op(
                    ctx.ledger,
                    EXPORTING_SK,
                    "attribute_not_exists(SK) OR #id = :id",
                    _lost,
                    names={"#id": "id"},
                    values={":id": export["id"]},
                )
            )
        self.write.record(ctx, ops)
        changed = {**export, "parts": values[":parts"], "items": items, "receipts": receipts, "state": values[":state"]}
        changed["updated_at"] = at
        if cursor is None:
            changed.pop("cursor", None)
        else:
            changed["cursor"] = cursor
        return changed
