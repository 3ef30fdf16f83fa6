"""Request budgets' counters (§25): one item per caller per window in the IdempotencyTable, whose
items expire (`expiration`), in the caller's person's partition (so DELETE /me removes them with the
rest of their records there).

- `id` = the person's partition (keys.idempotency_person), `sk` = `LIMIT#{window}` for the person's
  budget, `LIMIT#TOKEN#{token}#{window}` for a token's; `count` the requests spent in the window.

A request spends one with a single conditional UpdateItem (`ADD count :one` while `count < :limit`),
outside any slip's transaction: a refused one changes nothing.
"""

from __future__ import annotations

from kakeibo.store.keys import idempotency_person, limit_sk
from kakeibo.store.transactions import ConditionFailed, StoreCore

KEEP = 120  # seconds a counter is kept past its window's end (TTL removes it later still)


class LimitStore:
    """The counters of request budgets, over a core of the IdempotencyTable (composition)."""

    def __init__(self, core: StoreCore) -> None:
        self.core = core

    def spend(self, sub: str, scope: str, window: int, *, limit: int, seconds: int) -> int | None:
        """Count one request of `sub` (`scope`: "" for the person, a token id for a token) in the window
        starting at `window`: the requests spent in it now, or None when `limit` were spent already.
        What the table cannot take now is the core's: Conflict (throttled, no answer), or ClientError."""
        try:
            answer = self.core.write_one(
                self.core.client.update_item,
                Key={"id": {"S": idempotency_person(sub)}, "sk": {"S": limit_sk(scope, window)}},
                UpdateExpression="ADD #c :one SET #e = if_not_exists(#e, :expires)",
                ConditionExpression="attribute_not_exists(#c) OR #c < :limit",
                ExpressionAttributeNames={"#c": "count", "#e": "expiration"},
                ExpressionAttributeValues={
                    ":one": {"N": "1"},
                    ":limit": {"N": str(limit)},
                    ":expires": {"N": str(window + seconds + KEEP)},
                },
                ReturnValues="UPDATED_NEW",
            )
        except ConditionFailed:
            return None
        return int(answer["Attributes"]["count"]["N"])
