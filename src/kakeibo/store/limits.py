"""Request budgets' counters (§25): one item per person per window in the IdempotencyTable, whose
items expire (`expiration`), in the person's partition (so DELETE /me removes them with the rest
of their records there).

- `id` = the person's partition (keys.idempotency_person), `sk` = `LIMIT#{window}`; `count` the
  requests the person spent in the window, `token_{id}` those each of their tokens spent.

A request spends one of each budget it falls under with a single conditional UpdateItem (`ADD` to
each counter while every one is under its limit), outside any slip's transaction: a refused one
changes nothing, and a request over one budget spends none of the others.
"""

from __future__ import annotations

from collections.abc import Sequence

from kakeibo.store.keys import idempotency_person, limit_sk
from kakeibo.store.transactions import ConditionFailed, StoreCore

KEEP = 120  # seconds a counter is kept past its window's end (TTL removes it later still)


def _counter(scope: str) -> str:
    """The attribute that counts a budget's requests: the person's (`scope` empty), or a token's."""
    return f"token_{scope}" if scope else "count"


class LimitStore:
    """The counters of request budgets, over a core of the IdempotencyTable (composition)."""

    def __init__(self, core: StoreCore) -> None:
        self.core = core

    def spend(self, sub: str, window: int, budgets: Sequence[tuple[str, int]], *, seconds: int) -> list[int | None]:
        """Count one request of `sub` against each of `budgets` ((scope, limit): scope "" for the
        person, a token's id for a token) in the window of `seconds` starting at `window`, in one
        conditional UpdateItem: the requests spent in each now, in order. When one of them had
        `limit` spent already nothing is counted: that one is None, the others what they had.
        What the table cannot take now is the core's: Conflict (throttled, no answer), or ClientError."""
        names = {f"#c{i}": _counter(scope) for i, (scope, _) in enumerate(budgets)}
        limits = {f":l{i}": {"N": str(limit)} for i, (_, limit) in enumerate(budgets)}
        adds = ", ".join(f"{name} :one" for name in names)
        under = " AND ".join(f"(attribute_not_exists({name}) OR {name} < :l{i})" for i, name in enumerate(names))
        try:
            answer = self.core.write_one(
                self.core.client.update_item,
                Key={"id": {"S": idempotency_person(sub)}, "sk": {"S": limit_sk(window)}},
                UpdateExpression=f"ADD {adds} SET #e = if_not_exists(#e, :expires)",
                ConditionExpression=under,
                ExpressionAttributeNames={**names, "#e": "expiration"},
                ExpressionAttributeValues={
                    ":one": {"N": "1"},
                    ":expires": {"N": str(window + seconds + KEEP)},
                    **limits,
                },
                ReturnValues="UPDATED_NEW",
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        except ConditionFailed as refused:
            had = refused.item or {}
            counts = [int(had.get(name, 0)) for name in names.values()]
            return [None if n >= limit else n for n, (_, limit) in zip(counts, budgets, strict=True)]
        return [int(answer["Attributes"][name]["N"]) for name in names.values()]
