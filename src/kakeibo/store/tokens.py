"""Personal access tokens (§25): one item found by the token's SHA-256, and one per token in its
person's `USER#` partition for the list.

- `TOKEN#{digest}` / `META`: sub, token id, scope, expires_at, last_used_on: what one request's
  authorizer reads (one GetItem), nothing of the ledger's.
- `USER#{sub}` / `TOKEN#{id}`: name, scope, prefix, digest, created_at, expires_at, as the person lists them.
- `USER#{sub}` / `TOKENS`: the head; its version serialises a person's creations, so at most
  `MAX_LIVE` tokens are live however many are made at once.

A person's tokens are not a ledger's change: nothing here is journaled. This family is an object over
the store's core (composition), not a mixin of the ledger's store.
"""

from __future__ import annotations

from typing import Any

from kakeibo import errors
from kakeibo.store.codec import Item, to_ddb
from kakeibo.store.keys import META_SK, USER_TOKENS_SK, token_pk, user_pk, user_token_sk
from kakeibo.store.transactions import ConditionFailed, StoreCore, TxOp


class TokenStore:
    """The items of personal access tokens."""

    def __init__(self, core: StoreCore) -> None:
        self.core = core

    def by_digest(self, digest: str) -> Item | None:
        """The token whose SHA-256 is `digest`: what the authorizer reads (consistent: a revocation holds
        from the next uncached request)."""
        return self.core.get_at(token_pk(digest), META_SK)

    def tokens_of(self, sub: str) -> tuple[list[Item], int]:
        """A person's tokens in creation order, and their head's version (0 before the first). The head
        is read first: a creation committed after it moves the version on, so no count is stale unseen."""
        head = self.core.get_at(user_pk(sub), USER_TOKENS_SK)
        found = list(self.core.query_at(user_pk(sub), begins_with=user_token_sk("")))
        return found, int(head["version"]) if head else 0

    def create(self, sub: str, listed: Item, *, digest: str, version: int) -> bool:
        """Write a new token (its two items) if the person's head is still at `version`: False when
        another creation came first (the caller reads again and recounts)."""
        table = self.core.table
        lookup = {
            "PK": token_pk(digest),
            "SK": META_SK,
            "sub": sub,
            "token_id": listed["id"],
            "scope": listed["scope"],
            "expires_at": listed["expires_at"],
        }
        mine = {"PK": user_pk(sub), "SK": user_token_sk(str(listed["id"])), **listed, "digest": digest}
        head_condition = "attribute_not_exists(PK)" if version == 0 else "version = :v"
        head_values: dict[str, Any] = {":next": version + 1, **({":v": version} if version else {})}
        ops = [
            TxOp(
                "Put",
                {
                    "TableName": table,
                    "Item": to_ddb(lookup),
                    "ConditionExpression": "attribute_not_exists(PK)",
                },
                _taken,
            ),
            TxOp(
                "Put",
                {
                    "TableName": table,
                    "Item": to_ddb(mine),
                    "ConditionExpression": "attribute_not_exists(PK)",
                },
                _taken,
            ),
            TxOp(
                "Update",
                {
                    "TableName": table,
                    "Key": to_ddb({"PK": user_pk(sub), "SK": USER_TOKENS_SK}),
                    "UpdateExpression": "SET version = :next",
                    "ConditionExpression": head_condition,
                    "ExpressionAttributeValues": to_ddb(head_values),
                },
                _moved_on,
            ),
        ]
        try:
            self.core.transact(ops)
        except _MovedOn:
            return False
        return True

    def revoke(self, sub: str, token_id: str) -> bool:
        """Delete a person's token (both items): False if they have no such token."""
        listed = self.core.get_at(user_pk(sub), user_token_sk(token_id))
        if listed is None:
            return False
        table = self.core.table
        ops = [
            TxOp(
                "Delete",
                {"TableName": table, "Key": to_ddb({"PK": token_pk(str(listed["digest"])), "SK": META_SK})},
                _taken,
            ),
            TxOp(
                "Delete",
                {
                    "TableName": table,
                    "Key": to_ddb({"PK": user_pk(sub), "SK": user_token_sk(token_id)}),
                    "ConditionExpression": "attribute_exists(PK)",
                },
                _gone,
            ),
        ]
        try:
            self.core.transact(ops)
        except _Gone:
            return False
        return True

    def mark_used(self, sub: str, token_id: str, digest: str, day: str) -> None:
        """Record the day a token was last used, at most one write per token and day (both items)."""
        for key in ({"PK": token_pk(digest), "SK": META_SK}, {"PK": user_pk(sub), "SK": user_token_sk(token_id)}):
            try:
                self.core.write_one(
                    self.core.client.update_item,
                    Key=to_ddb(key),
                    UpdateExpression="SET last_used_on = :day",
                    ConditionExpression="attribute_exists(PK) AND (attribute_not_exists(last_used_on) OR "
                    "last_used_on < :day)",
                    ExpressionAttributeValues=to_ddb({":day": day}),
                )
            except ConditionFailed:
                continue

    def delete_all_of(self, sub: str) -> int:
        """Every token of a person and their head (their data deleted, §22): how many tokens went."""
        found, _ = self.tokens_of(sub)
        for listed in found:
            self.revoke(sub, str(listed["id"]))
        head = to_ddb({"PK": user_pk(sub), "SK": USER_TOKENS_SK})
        self.core.call(self.core.client.delete_item, TableName=self.core.table, Key=head)
        return len(found)


class _MovedOn(errors.Conflict):
    """The person's tokens changed since they were counted."""


class _Gone(errors.NotFound):
    """The token was revoked meanwhile."""


def _moved_on(_: Item | None) -> errors.ApiError:
    return _MovedOn("the tokens changed meanwhile")


def _gone(_: Item | None) -> errors.ApiError:
    return _Gone("no such token")


def _taken(_: Item | None) -> errors.ApiError:
    return errors.Conflict("the token could not be stored; retry")
