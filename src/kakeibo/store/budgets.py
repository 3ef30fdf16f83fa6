"""Budgets: the limit of a month x category, set atomically with what is left of it."""

from __future__ import annotations

from typing import Any

from kakeibo.store.codec import Item
from kakeibo.store.core import OnFail, StoreCore
from kakeibo.store.keys import category_sk

# The attributes a budget write touches on its month x category item.
_NAMES = {
    "#limit": "limit",
    "#strict": "strict",
    "#rem": "remaining",
    "#spent": "spent",
    "#bv": "budget_version",
}


class BudgetOps(StoreCore):
    """Budget writes."""

    def put_budget(
        self,
        ledger: str,
        month: str,
        category: str,
        *,
        limit: int,
        strict: bool,
        expected: int | None,
        must_exist: bool,
        on_fail: OnFail,
    ) -> Item:
        """Set a month x category budget. `remaining` becomes limit - spent in the same atomic update,
        so a slip transaction racing with it sees either the old or the new limit, never a mix."""
        names = {**_NAMES, "#cat": "category", "#month": "month", "#type": "type"}
        values: dict[str, Any] = {
            ":l": limit,
            ":s": strict,
            ":zero": 0,
            ":one": 1,
            ":cat": category,
            ":month": month,
            ":type": "category_month",
        }
        if expected is not None:
            condition = "#bv = :v"
            values[":v"] = expected
        elif must_exist:
            condition = "attribute_exists(#limit)"
        else:
            condition = "attribute_not_exists(#limit)"
        return self.conditional_update(
            ledger,
            category_sk(month, category),
            "SET #limit = :l, #strict = :s, #rem = :l - if_not_exists(#spent, :zero), "
            "#cat = :cat, #month = :month, #type = :type ADD #bv :one",
            condition,
            on_fail,
            names=names,
            values=values,
        )

    def remove_budget(self, ledger: str, month: str, category: str, *, expected: int | None, on_fail: OnFail) -> Item:
        """Remove a month x category budget (its limit and strictness), at `expected` budget version
        (None: whatever it is). Its totals stay; `remaining` is what it is without a limit."""
        names = dict(_NAMES)
        values: dict[str, Any] = {":zero": 0, ":one": 1}
        condition = "attribute_exists(#limit)"
        if expected is not None:
            condition += " AND #bv = :v"
            values[":v"] = expected
        return self.conditional_update(
            ledger,
            category_sk(month, category),
            "REMOVE #limit, #strict SET #rem = :zero - if_not_exists(#spent, :zero) ADD #bv :one",
            condition,
            on_fail,
            names=names,
            values=values,
        )
