"""Budgets: the limit of a month x category, set atomically with what is left of it."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from kakeibo.store.codec import Item
from kakeibo.store.core import OnFail
from kakeibo.store.journal import Change
from kakeibo.store.keys import category_sk, months_range
from kakeibo.store.write import WriteContext, WriteOps

# The attributes a budget write touches on its month x category item.
_NAMES = {
    "#limit": "limit",
    "#strict": "strict",
    "#rem": "remaining",
    "#spent": "spent",
    "#bv": "budget_version",
    "#ro": "rollover",
}


class BudgetOps(WriteOps):
    """Budget writes: each one transaction with its journal entry."""

    def budget_item(self, ledger: str, month: str, category: str) -> Item | None:
        """The month x category item a budget lives on (consistent), if any."""
        return self.get(ledger, category_sk(month, category))

    def year_budgets(self, ledger: str, first: str, last: str) -> Iterator[Item]:
        """The month x category items of months first..last (one year's): one Query, projected to
        what a budget and its carry need. Never a slip."""
        fields = ("SK", "category", "month", "limit", "spent", "strict", "rollover", "budget_version")
        names = {f"#p{i}": name for i, name in enumerate(fields)}
        return (
            item
            for item in self.query(ledger, between=months_range(first, last), projection=", ".join(names), names=names)
            if str(item["SK"]).split("#")[2] == "CAT"  # not a subcategory's
        )

    def put_budget(
        self,
        ctx: WriteContext,
        month: str,
        category: str,
        *,
        limit: int,
        strict: bool,
        rollover: bool,
        seen: int,
        on_fail: OnFail,
        changes: Sequence[Change],
        at: str,
        undoes: int | None = None,
    ) -> int:
        """Set a month x category budget, only if its budget version is still `seen` (0: never set).
        `remaining` becomes limit - spent in the same atomic update, so a slip transaction racing
        with it sees either the old or the new limit, never a mix."""
        names = {**_NAMES, "#cat": "category", "#month": "month", "#type": "type"}
        values: dict[str, Any] = {
            ":l": limit,
            ":s": strict,
            ":ro": rollover,
            ":zero": 0,
            ":one": 1,
            ":cat": category,
            ":month": month,
            ":type": "category_month",
        }
        condition = _at_version(seen, values)
        op = self.update_op(
            ctx.ledger,
            category_sk(month, category),
            "SET #limit = :l, #strict = :s, #ro = :ro, #rem = :l - if_not_exists(#spent, :zero), "
            "#cat = :cat, #month = :month, #type = :type ADD #bv :one",
            on_fail,
            condition,
            names=names,
            values=values,
        )
        return self.commit(ctx, [op], changes, at=at, undoes=undoes)

    def remove_budget(
        self,
        ctx: WriteContext,
        month: str,
        category: str,
        *,
        seen: int,
        on_fail: OnFail,
        changes: Sequence[Change],
        at: str,
        undoes: int | None = None,
    ) -> int:
        """Remove a month x category budget (its limit, strictness and rollover) at budget version `seen`. Its
        totals stay; `remaining` is what it is without a limit."""
        names = dict(_NAMES)
        values: dict[str, Any] = {":zero": 0, ":one": 1}
        condition = "attribute_exists(#limit) AND " + _at_version(seen, values)
        op = self.update_op(
            ctx.ledger,
            category_sk(month, category),
            "REMOVE #limit, #strict, #ro SET #rem = :zero - if_not_exists(#spent, :zero) ADD #bv :one",
            on_fail,
            condition,
            names=names,
            values=values,
        )
        return self.commit(ctx, [op], changes, at=at, undoes=undoes)


def _at_version(seen: int, values: dict[str, Any]) -> str:
    if seen == 0:
        return "attribute_not_exists(#bv)"
    values[":seen"] = seen
    return "#bv = :seen"
