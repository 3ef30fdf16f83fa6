"""Savings goals (目標貯金): their items. The only module that knows how goals are stored.

`GOAL#{id}` holds a goal's name, target, day (`by`) and account, with its `version` (the ETag). A
goal is the household's plan, not a change of its money: its writes are bookkeeping under the
writer's guard (a member who may write, a ledger not being deleted), not journal entries.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from kakeibo import errors
from kakeibo.store.codec import Item
from kakeibo.store.keys import goal_sk
from kakeibo.store.recurrences import sets_and_removes
from kakeibo.store.transactions import StoreCore
from kakeibo.store.write import WriteContext, WriteOps

PREFIX = goal_sk("")


def _stale(goal_id: str, expected: int) -> Any:
    def fail(old: Item | None) -> errors.ApiError:
        if old is None:
            return errors.NotFound("goal not found")
        current = int(old["version"])
        return errors.VersionMismatch(f"the version is {current}, not {expected}", current=current, expected=expected)

    return fail


class GoalOps:
    """A ledger's savings goals."""

    def __init__(self, core: StoreCore, write: WriteOps) -> None:
        self.core = core
        self.write = write

    def goals(self, ledger: str) -> Iterator[Item]:
        return self.core.query(ledger, begins_with=PREFIX)

    def goal_count(self, ledger: str) -> int:
        return sum(1 for _ in self.core.query(ledger, begins_with=PREFIX, projection="SK"))

    def goal(self, ledger: str, goal_id: str) -> Item | None:
        return self.core.get(ledger, goal_sk(goal_id), consistent=True)

    def insert_goal(self, ctx: WriteContext, item: Item) -> None:
        """A new goal; AlreadyExists if its id is taken."""
        goal_id = str(item["id"])
        op = self.core.put_op(
            ctx.ledger,
            {"SK": goal_sk(goal_id), **{k: v for k, v in item.items() if v is not None}},
            "attribute_not_exists(SK)",
            lambda old: errors.AlreadyExists(f"goal '{goal_id}' already exists", id=goal_id),
        )
        self.write.record(ctx, [op])

    def change_goal(self, ctx: WriteContext, goal_id: str, fields: Mapping[str, Any], *, expected: int) -> None:
        """SET the fields (REMOVE those that are None) and bump the version, if it is at `expected`."""
        expression, names, values = sets_and_removes(fields)
        names["#ver"] = "version"
        values.update({":expected": expected, ":one": 1})
        op = self.core.update_op(
            ctx.ledger,
            goal_sk(goal_id),
            f"{expression} ADD #ver :one",
            _stale(goal_id, expected),
            "attribute_exists(SK) AND #ver = :expected",
            names=names,
            values=values,
        )
        self.write.record(ctx, [op])

    def delete_goal(self, ctx: WriteContext, goal_id: str, *, expected: int) -> None:
        op = self.core.delete_op(
            ctx.ledger,
            goal_sk(goal_id),
            "attribute_exists(SK) AND #ver = :expected",
            _stale(goal_id, expected),
            names={"#ver": "version"},
            values={":expected": expected},
        )
        self.write.record(ctx, [op])
