"""Shared household ledgers: the ledger item, its members, and each user's list of ledgers.

A shared ledger's items live under `HOUSEHOLD#{id}`: `META` (name, version) and one `MEMBER#{user}`
per member (role, version, added_by). Each member also has `USER#{user}` / `LEDGER#{id}` (role), so
"my ledgers" is one Query. Both member items are written in the same transaction. The personal
ledger (`me`, the caller's JWT `sub`) has neither: its owner is implicit.

An invitation is `INVITE#{token}` / `META` (found by its token alone), listed in the same
transaction under `INVITE#{token}` in its ledger's partition and in its author's `USER#` partition,
and, once used, in its user's: so a ledger's deletion and a person's find every invitation that
belongs to them, and remove it with every item that lists it (`invitation_removed`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kakeibo import errors
from kakeibo.store.codec import Item, to_ddb
from kakeibo.store.journal import Change
from kakeibo.store.keys import (
    DEPARTURES,
    INVITATION_REFS,
    META_SK,
    SharedLedger,
    household_pk,
    invitation_of_ref,
    invitation_pk,
    invitation_ref_sk,
    member_sk,
    membership_sk,
    user_pk,
)
from kakeibo.store.transactions import OnFail, StoreCore, TxOp
from kakeibo.store.write import Bookkeeping, WriteContext, WriteOps

REMOVE_ATTEMPTS = 8  # an invitation used between its read and its removal is read again


class LedgerOps:
    """Shared ledgers and their memberships."""

    def __init__(self, core: StoreCore, write: WriteOps) -> None:
        self.core = core
        self.write = write

    def create_ledger(self, ctx: WriteContext, name: str, *, now: str, changes: Sequence[Change]) -> Item:
        """The ledger, its owner's member item and the owner's reverse item, in one transaction."""
        ledger_id, owner = str(ctx.ledger), ctx.actor
        meta = {"PK": household_pk(ledger_id), "SK": META_SK, "id": ledger_id, "name": name, "version": 1,
                "created_by": owner, "created_at": now, "owners": 1}  # fmt: skip
        member = {"PK": household_pk(ledger_id), "SK": member_sk(owner), "user": owner, "role": "owner",
                  "version": 1, "added_by": owner, "added_at": now}  # fmt: skip
        mine = {"PK": user_pk(owner), "SK": membership_sk(ledger_id), "ledger": ledger_id, "role": "owner"}

        def taken(_: Item | None) -> errors.ApiError:
            return errors.AlreadyExists("a ledger with this id already exists")

        self.write.commit(ctx, [self._new_item_op(item, taken) for item in (meta, member, mine)], changes, at=now)
        return {key: value for key, value in meta.items() if key not in ("PK", "SK")}

    def create_invitation(
        self, ctx: WriteContext, token: str, role: str, *, expires_at_ms: int, now: str, changes: Sequence[Change]
    ) -> Item:
        """A one-time invitation to a ledger, written only while its creator is still an owner of it
        (the context's guard)."""
        ledger_id, created_by = str(ctx.ledger), ctx.actor
        invite = {"PK": invitation_pk(token), "SK": META_SK, "ledger": ledger_id, "role": role,
                  "created_by": created_by, "created_at": now, "expires_at_ms": expires_at_ms}  # fmt: skip
        listed = [_listing(household_pk(ledger_id), token), _listing(user_pk(created_by), token)]

        def taken(_: Item | None) -> errors.ApiError:
            return errors.Conflict("the invitation could not be made; retry")

        self.write.commit(ctx, [self._new_item_op(item, taken) for item in (invite, *listed)], changes, at=now)
        return {key: value for key, value in invite.items() if key not in ("PK", "SK")}

    def invitation(self, token: str) -> Item | None:
        return self.core.get_at(invitation_pk(token), META_SK)

    def accept_invitation(
        self, ctx: WriteContext, token: str, invite: Item, *, now_ms: int, now: str, changes: Sequence[Change]
    ) -> Item:
        """Use an invitation once: it is marked used, and the caller (the context's actor) becomes a
        member, in one transaction, while its author is still an owner (the context's guard). Of
        concurrent accepts only one can find it unused."""
        user = ctx.actor
        ledger_id, role = str(invite["ledger"]), str(invite["role"])

        def spent(current: Item | None) -> errors.ApiError:
            if current is None:
                return errors.NotFound("not found")
            return errors.Gone("this invitation was already used or has expired")

        def already(_: Item | None) -> errors.ApiError:
            return errors.AlreadyExists("already a member of this ledger")

        def missing(_: Item | None) -> errors.ApiError:
            return errors.Gone("this invitation was already used or has expired")

        use = TxOp(
            "Update",
            {
                "TableName": self.core.table,
                "Key": to_ddb({"PK": invitation_pk(token), "SK": META_SK}),
                "UpdateExpression": "SET #used_by = :user, #used_at = :now",
                "ConditionExpression": "attribute_exists(PK) AND attribute_not_exists(#used_by) AND #exp > :now_ms",
                "ExpressionAttributeNames": {"#used_by": "used_by", "#used_at": "used_at", "#exp": "expires_at_ms"},
                "ExpressionAttributeValues": to_ddb({":user": user, ":now": now, ":now_ms": now_ms}),
                "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
            },
            spent,
        )
        member = {"PK": household_pk(ledger_id), "SK": member_sk(user), "user": user, "role": role,
                  "version": 1, "added_by": str(invite["created_by"]), "added_at": now}  # fmt: skip
        mine = {"PK": user_pk(user), "SK": membership_sk(ledger_id), "ledger": ledger_id, "role": role}
        exists = self._owners_op(ledger_id, 1 if role == "owner" else 0, missing)
        inviter = str(invite["created_by"])
        if "used_by" in invite or int(invite["expires_at_ms"]) <= now_ms:
            raise errors.Gone("this invitation was already used or has expired")
        if inviter == user:
            raise errors.AlreadyExists("already a member of this ledger")
        # An invitation is worth only as much as its author: the context's guard is its author's owner role
        ops = [use, exists, self._new_item_op(member, already), self._new_item_op(mine, already)]
        # listed among the invitations that name its user too (their DELETE /me removes it)
        listed = {"TableName": self.core.table, "Item": to_ddb(_listing(user_pk(user), token))}
        ops.append(TxOp("Put", listed, _not_found))
        self.write.commit(ctx, ops, changes, at=now)
        return {"ledger": ledger_id, "role": role}

    def person_invitations(self, user: str) -> list[str]:
        """The tokens of the invitations listed in `user`'s partition: those they made or used."""
        found = self.core.query_at(user_pk(user), begins_with=INVITATION_REFS, projection="PK, SK")
        return [token for item in found if (token := invitation_of_ref(str(item["SK"]))) is not None]

    def invitation_removed(self, token: str, *, ledger: str | None = None, person: str | None = None) -> None:
        """The invitation `token` gone with every item that lists it (its ledger's, its author's and
        its user's), in one transaction; it was found listed in `ledger`'s partition (a SharedLedger),
        or in `person`'s, and that listing goes even when the invitation itself is gone already.
        Removing it again does nothing."""
        found_at = household_pk(str(ledger)) if ledger is not None else user_pk(str(person))
        for _ in range(REMOVE_ATTEMPTS):
            invite = self.invitation(token)
            if invite is None:
                listing = to_ddb({"PK": found_at, "SK": invitation_ref_sk(token)})
                self.core.call(self.core.client.delete_item, TableName=self.core.table, Key=listing)
                return
            ledger_id, used_by = str(invite["ledger"]), invite.get("used_by")
            partitions = {found_at, household_pk(ledger_id), user_pk(str(invite["created_by"]))}
            if used_by is not None:
                partitions.add(user_pk(str(used_by)))
            # the invitation as it was read: one used meanwhile names one more person, read again
            unchanged: dict[str, Any] = {
                "ConditionExpression": "attribute_exists(PK) AND attribute_not_exists(#used)",
                "ExpressionAttributeNames": {"#used": "used_by"},
            }
            if used_by is not None:
                unchanged["ConditionExpression"] = "#used = :used"
                unchanged["ExpressionAttributeValues"] = to_ddb({":used": used_by})
            itself = {
                "TableName": self.core.table,
                "Key": to_ddb({"PK": invitation_pk(token), "SK": META_SK}),
                **unchanged,
            }
            ops = [TxOp("Delete", itself, _read_again)]
            for partition in sorted(partitions):
                listing = {
                    "TableName": self.core.table,
                    "Key": to_ddb({"PK": partition, "SK": invitation_ref_sk(token)}),
                }
                ops.append(TxOp("Delete", listing, _read_again))
            try:
                self.write.record(Bookkeeping(SharedLedger(ledger_id), deleting=True), ops)
            except errors.ReadAgain:
                continue
            return
        raise errors.Conflict("the invitation kept changing while it was removed; retry", retry_after=1)

    def change_role(
        self,
        ctx: WriteContext,
        current: Item,
        role: str,
        *,
        expected: int | None,
        changes: Sequence[Change],
        at: str,
        also: Sequence[TxOp] = (),
    ) -> Item:
        """A member's new role (If-Match on their member item; `current` read just before), kept in
        step on their reverse item. The ledger's owner count moves in the same transaction: the last
        owner cannot be demoted. The changer's owner role is the context's guard (on their own item,
        the condition of its update)."""
        ledger_id, by, user = str(ctx.ledger), ctx.actor, str(current["user"])
        old = str(current["role"])
        delta = (role == "owner") - (old == "owner")
        values: dict[str, Any] = {":role": role, ":old": old, ":one": 1}
        condition = "attribute_exists(PK) AND #role = :old AND #ver = :seen"
        values[":seen"] = int(current["version"])
        if user == by:  # changing one's own role: the owner check rides on the same item
            condition += " AND #role = :owner"
            values[":owner"] = "owner"

        def refused(found: Item | None) -> errors.ApiError:
            if found is None:
                return errors.NotFound("not found")
            if user == by and found.get("role") != "owner":
                return errors.Forbidden("only an owner of the ledger may do this", role=str(found.get("role")))
            if expected is None:
                return errors.ReadAgain()
            return errors.VersionMismatch(current=int(found["version"]), expected=expected)

        ops = [
            TxOp(
                "Update",
                {
                    "TableName": self.core.table,
                    "Key": to_ddb({"PK": household_pk(ledger_id), "SK": member_sk(user)}),
                    "UpdateExpression": "SET #role = :role ADD #ver :one",
                    "ConditionExpression": condition,
                    "ExpressionAttributeNames": {"#role": "role", "#ver": "version"},
                    "ExpressionAttributeValues": to_ddb(values),
                    "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                },
                refused,
            ),
            self._reverse_role_op(ledger_id, user, role),
        ]
        if delta:
            ops.append(self._owners_op(ledger_id, delta, _last_owner))
        self.write.commit(ctx, [*ops, *also], changes, at=at)
        return {**current, "role": role, "version": int(current["version"]) + 1}

    def remove_member(
        self,
        ctx: WriteContext,
        current: Item,
        *,
        expected: int | None,
        changes: Sequence[Change],
        at: str,
        also: Sequence[TxOp] = (),
    ) -> None:
        """A member removed by an owner (the context's guard), or leaving (If-Match: the member's
        version; `current` read just before). The last owner cannot leave. `also`: what goes with it
        in the same transaction (their webhooks disabled)."""
        ledger_id, user = str(ctx.ledger), str(current["user"])
        old = str(current["role"])

        values: dict[str, Any] = {":old": old, ":seen": int(current["version"])}
        condition = "attribute_exists(PK) AND #role = :old AND #ver = :seen"

        def changed(found: Item | None) -> errors.ApiError:
            if found is None:
                return errors.NotFound("not found")
            if expected is not None and int(found["version"]) != expected:
                return errors.VersionMismatch(current=int(found["version"]), expected=expected)
            return errors.ReadAgain()

        ops = [
            TxOp(
                "Delete",
                {
                    "TableName": self.core.table,
                    "Key": to_ddb({"PK": household_pk(ledger_id), "SK": member_sk(user)}),
                    "ConditionExpression": condition,
                    "ExpressionAttributeNames": {"#role": "role", "#ver": "version"},
                    "ExpressionAttributeValues": to_ddb(values),
                    "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                },
                changed,
            ),
            TxOp(
                "Delete",
                {"TableName": self.core.table, "Key": to_ddb({"PK": user_pk(user), "SK": membership_sk(ledger_id)})},
                changed,
            ),
        ]
        # the ledger counts its departures: a slip naming members checks that none left since it read them
        ops.append(self._owners_op(ledger_id, -1 if old == "owner" else 0, _last_owner, departed=True))
        self.write.commit(ctx, [*ops, *also], changes, at=at)

    def _reverse_role_op(self, ledger_id: str, user: str, role: str) -> TxOp:
        return TxOp(
            "Update",
            {
                "TableName": self.core.table,
                "Key": to_ddb({"PK": user_pk(user), "SK": membership_sk(ledger_id)}),
                "UpdateExpression": "SET #role = :role",
                "ExpressionAttributeNames": {"#role": "role"},
                "ExpressionAttributeValues": to_ddb({":role": role}),
            },
            _not_found,
        )

    def _owners_op(self, ledger_id: str, delta: int, on_fail: OnFail, *, departed: bool = False) -> TxOp:
        """The ledger's owner count moved by `delta`; never below one. The ledger must exist. A member
        `departed`: its departures count rises too (store/settlements.py's roster check)."""
        condition = "attribute_exists(PK)" + (" AND #owners > :one" if delta < 0 else "")
        values: dict[str, Any] = {":d": delta}
        names = {"#owners": "owners"}
        update = "ADD #owners :d"
        if delta < 0:
            values[":one"] = 1
        if departed:
            update += ", #gone :gone"
            names["#gone"], values[":gone"] = DEPARTURES, 1
        return TxOp(
            "Update",
            {
                "TableName": self.core.table,
                "Key": to_ddb({"PK": household_pk(ledger_id), "SK": META_SK}),
                "UpdateExpression": update,
                "ConditionExpression": condition,
                "ExpressionAttributeNames": names,
                "ExpressionAttributeValues": to_ddb(values),
                "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
            },
            on_fail,
        )

    def _new_item_op(self, item: Item, on_fail: OnFail) -> TxOp:
        body: dict[str, Any] = {
            "TableName": self.core.table,
            "Item": to_ddb(item),
            "ConditionExpression": "attribute_not_exists(PK)",
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        }
        return TxOp("Put", body, on_fail)

    def ledger_meta(self, ledger_id: str) -> Item | None:
        return self.core.get_at(household_pk(ledger_id), META_SK)

    def member(self, ledger_id: str, user: str) -> Item | None:
        """A user's member item in a shared ledger (consistent), or None if not a member."""
        return self.core.get_at(household_pk(ledger_id), member_sk(user))

    def members(self, ledger_id: str) -> list[Item]:
        return list(self.core.query_at(household_pk(ledger_id), begins_with=member_sk("")))

    def memberships(self, user: str) -> list[Item]:
        """The shared ledgers a user belongs to, in id (creation) order."""
        return list(self.core.query_at(user_pk(user), begins_with=membership_sk("")))

    def rename_ledger(
        self, ctx: WriteContext, name: str, *, seen: int, on_fail: OnFail, changes: Sequence[Change], at: str
    ) -> None:
        """A new name, only if the ledger is still at version `seen` (read just before)."""
        op = self.core.update_op(
            ctx.ledger,
            META_SK,
            "SET #name = :name ADD #ver :one",
            on_fail,
            "attribute_exists(SK) AND #ver = :seen",
            names={"#name": "name", "#ver": "version"},
            values={":name": name, ":one": 1, ":seen": seen},
        )
        self.write.commit(ctx, [op], changes, at=at)


def _not_found(_: Item | None) -> errors.ApiError:
    return errors.NotFound("not found")


def _read_again(_: Item | None) -> errors.ApiError:
    return errors.ReadAgain()


def listed_invitation(item: Item) -> str | None:
    """The token of the invitation `item` lists (`_listing`), or None when it lists none."""
    return invitation_of_ref(str(item["SK"]))


def _listing(partition: str, token: str) -> Item:
    """An invitation listed in `partition` (a ledger's, or a person's): its token, nothing else."""
    return {"PK": partition, "SK": invitation_ref_sk(token), "type": "invitation_ref"}


def _last_owner(current: Item | None) -> errors.ApiError:
    if current is None:
        return errors.NotFound("not found")
    return errors.LastOwner("a ledger keeps at least one owner: make someone else owner first")
