"""Shared household ledgers: the ledger item, its members, and each user's list of ledgers.

A shared ledger's items live under `HOUSEHOLD#{id}`: `META` (name, version) and one `MEMBER#{user}`
per member (role, version, added_by). Each member also has `USER#{user}` / `LEDGER#{id}` (role), so
"my ledgers" is one Query. Both member items are written in the same transaction. The personal
ledger (`me`, the caller's JWT `sub`) has neither: its owner is implicit.
"""

from __future__ import annotations

from typing import Any

from kakeibo import errors
from kakeibo.store.codec import Item, from_ddb, to_ddb
from kakeibo.store.core import ConditionFailed, OnFail, StoreCore, TxOp
from kakeibo.store.keys import META_SK, household_pk, member_sk, membership_sk, user_pk


class LedgerOps(StoreCore):
    """Shared ledgers and their memberships."""

    def create_ledger(self, ledger_id: str, name: str, owner: str, *, now: str) -> Item:
        """The ledger, its owner's member item and the owner's reverse item, in one transaction."""
        meta = {"PK": household_pk(ledger_id), "SK": META_SK, "id": ledger_id, "name": name, "version": 1,
                "created_by": owner, "created_at": now}  # fmt: skip
        member = {"PK": household_pk(ledger_id), "SK": member_sk(owner), "user": owner, "role": "owner",
                  "version": 1, "added_by": owner, "added_at": now}  # fmt: skip
        mine = {"PK": user_pk(owner), "SK": membership_sk(ledger_id), "ledger": ledger_id, "role": "owner"}

        def taken(_: Item | None) -> errors.ApiError:
            return errors.AlreadyExists("a ledger with this id already exists")

        self.transact([self._new_item_op(item, taken) for item in (meta, member, mine)])
        return {key: value for key, value in meta.items() if key not in ("PK", "SK")}

    def add_member(self, ledger_id: str, user: str, role: str, *, added_by: str, now: str) -> Item:
        """A new member of an existing ledger: their member item and reverse item, in one transaction."""
        member = {"PK": household_pk(ledger_id), "SK": member_sk(user), "user": user, "role": role,
                  "version": 1, "added_by": added_by, "added_at": now}  # fmt: skip
        mine = {"PK": user_pk(user), "SK": membership_sk(ledger_id), "ledger": ledger_id, "role": role}

        def already(_: Item | None) -> errors.ApiError:
            return errors.AlreadyExists("already a member of this ledger")

        def missing(_: Item | None) -> errors.ApiError:
            return errors.NotFound("not found")

        exists = TxOp(
            "ConditionCheck",
            {
                "TableName": self.table,
                "Key": to_ddb({"PK": household_pk(ledger_id), "SK": META_SK}),
                "ConditionExpression": "attribute_exists(PK)",
            },
            missing,
        )
        self.transact([exists, self._new_item_op(member, already), self._new_item_op(mine, already)])
        return {key: value for key, value in member.items() if key not in ("PK", "SK")}

    def _new_item_op(self, item: Item, on_fail: OnFail) -> TxOp:
        body: dict[str, Any] = {
            "TableName": self.table,
            "Item": to_ddb(item),
            "ConditionExpression": "attribute_not_exists(PK)",
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        }
        return TxOp("Put", body, on_fail)

    def _get_raw(self, partition: str, sk: str) -> Item | None:
        res = self._call(
            self.client.get_item,
            TableName=self.table,
            Key=to_ddb({"PK": partition, "SK": sk}),
            ConsistentRead=True,
        )
        return from_ddb(res["Item"]) if "Item" in res else None

    def _query_raw(self, partition: str, prefix: str) -> list[Item]:
        kwargs: dict[str, Any] = {
            "TableName": self.table,
            "KeyConditionExpression": "PK = :pk AND begins_with(SK, :prefix)",
            "ExpressionAttributeValues": to_ddb({":pk": partition, ":prefix": prefix}),
            "ConsistentRead": True,
        }
        out: list[Item] = []
        while True:
            res = self._call(self.client.query, **kwargs)
            out.extend(from_ddb(raw) for raw in res.get("Items", []))
            if not res.get("LastEvaluatedKey"):
                return out
            kwargs["ExclusiveStartKey"] = res["LastEvaluatedKey"]

    def ledger_meta(self, ledger_id: str) -> Item | None:
        return self._get_raw(household_pk(ledger_id), META_SK)

    def member(self, ledger_id: str, user: str) -> Item | None:
        """A user's member item in a shared ledger (consistent), or None if not a member."""
        return self._get_raw(household_pk(ledger_id), member_sk(user))

    def members(self, ledger_id: str) -> list[Item]:
        return self._query_raw(household_pk(ledger_id), member_sk(""))

    def memberships(self, user: str) -> list[Item]:
        """The shared ledgers a user belongs to, in id (creation) order."""
        return self._query_raw(user_pk(user), membership_sk(""))

    def rename_ledger(self, ledger_id: str, name: str, expected: int | None, on_fail: OnFail) -> Item:
        """A new name, only if the ledger is at version `expected` (None: any version)."""
        condition = "attribute_exists(SK)" + ("" if expected is None else " AND #ver = :expected")
        values: dict[str, Any] = {":name": name, ":one": 1}
        if expected is not None:
            values[":expected"] = expected
        try:
            res = self._write(
                self.client.update_item,
                Key=to_ddb({"PK": household_pk(ledger_id), "SK": META_SK}),
                UpdateExpression="SET #name = :name ADD #ver :one",
                ConditionExpression=condition,
                ExpressionAttributeNames={"#name": "name", "#ver": "version"},
                ExpressionAttributeValues=to_ddb(values),
                ReturnValues="ALL_NEW",
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        except ConditionFailed as failed:
            raise on_fail(failed.item) from failed
        return from_ddb(res["Attributes"])
