"""Budgets: the limit of a month x category, set atomically with what is left of it."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from kakeibo import errors
from kakeibo.core import rollover as carry
from kakeibo.store.balances import LINKED, BalanceOps, budget_exceeded, month_budget
from kakeibo.store.codec import Item
from kakeibo.store.journal import Change
from kakeibo.store.keys import category_sk, months_range
from kakeibo.store.transactions import OnFail, StoreCore, TxOp
from kakeibo.store.write import WriteContext, WriteOps

# The attributes a budget write touches on its month x category item.
_NAMES = {
    "#limit": "limit",
    "#strict": "strict",
    "#rem": "remaining",
    "#spent": "spent",
    "#bv": "budget_version",
    "#ro": "rollover",
    "#lk": LINKED,
}


class BudgetOps:
    """Budget writes: each one transaction with its journal entry.

    A budget write may change which months the carry links to a strict one (core.rollover.linked):
    it reads its category's year when its transaction is built, refuses a change that would leave
    another strict month over what it makes available (409 naming that month), and sets or clears
    the `linked` mark of every month of the year whose link changes, in the same transaction. It is
    built on the journal head taken before that read, so no slip or budget change can come between
    the read and the commit (every change moves the head; `commit` builds again on the new head)."""

    def __init__(self, core: StoreCore, balances: BalanceOps, write: WriteOps) -> None:
        self.core = core
        self.balances = balances
        self.write = write

    def _year_ops(
        self, ctx: WriteContext, month: str, category: str, budget: carry.MonthBudget | None
    ) -> tuple[bool, list[TxOp]]:
        """For `month`'s budget becoming `budget` (None: removed): whether the month itself is linked
        after it, and the mark updates of the year's other months. BudgetExceeded when a strict month
        of the year would be left over its available."""
        year, number = month[:4], int(month[5:7])
        items = self.balances.year_months(ctx.ledger, {(category, year): None})[(category, year)]
        before = {n: month_budget(item) for n, item in items.items()}
        spent = before.get(number, carry.MonthBudget(limit=None)).spent
        after = dict(before)
        if budget is None:
            after[number] = carry.MonthBudget(limit=None, spent=spent)
        else:
            after[number] = carry.MonthBudget(budget.limit, spent, budget.rollover, budget.strict)
        found = carry.overdrawn(before, after, exempt=number)
        if found is not None:
            raise budget_exceeded(category, f"{year}-{found.month:02d}", after[found.month], found)
        marks = carry.linked(after)
        ops = []
        for other, item in sorted(items.items()):
            if other == number or bool(item.get(LINKED)) == (other in marks):
                continue
            ops.append(
                self.core.update_op(
                    ctx.ledger,
                    category_sk(f"{year}-{other:02d}", category),
                    "SET #lk = :true" if other in marks else "REMOVE #lk",
                    lambda item: errors.Conflict("the budget's year could not be updated"),
                    names={"#lk": LINKED},
                    values={":true": True} if other in marks else None,
                )
            )
        return number in marks, ops

    def budget_item(self, ledger: str, month: str, category: str) -> Item | None:
        """The month x category item a budget lives on (consistent), if any."""
        return self.core.get(ledger, category_sk(month, category))

    def year_budgets(self, ledger: str, first: str, last: str) -> list[Item]:
        """The budgets of months first..last (one year's): one Query of the month x category items
        that have a budget (filtered in the table: no subcategory, no month without one), projected to
        two values each (what was spent, and the budget packed in one attribute, `BUDGET`, with its
        month and category): a year's read returns as little per month as it can. Never a slip.
        Items written before the packed attribute existed are read again whole."""
        found = list(self._budget_items(ledger, first, last, ("spent", BUDGET)))
        if any(BUDGET not in item for item in found):
            fields = ("SK", "spent", "limit", "strict", "rollover", "budget_version")
            return [_named(item) for item in self._budget_items(ledger, first, last, fields)]
        return [_unpacked(item) for item in found]

    def _budget_items(self, ledger: str, first: str, last: str, fields: tuple[str, ...]) -> Iterator[Item]:
        names = {f"#p{i}": name for i, name in enumerate(fields)}
        names["#has"] = "limit"
        return self.core.query(
            ledger,
            between=months_range(first, last),
            projection=", ".join(k for k in names if k != "#has"),
            names=names,
            filter_expression="attribute_exists(#has)",
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
        packed = _packed(month, category, limit=limit, strict=strict, rollover=rollover, version=seen + 1)
        names["#bud"], values[":bud"] = BUDGET, packed
        budget = carry.MonthBudget(limit, 0, rollover, strict)

        def build(seq: int) -> list[TxOp]:
            linked, marks = self._year_ops(ctx, month, category, budget)
            sets = "#limit = :l, #strict = :s, #ro = :ro, #rem = :l - if_not_exists(#spent, :zero), " + (
                "#cat = :cat, #month = :month, #type = :type, #bud = :bud"
            )
            expression = f"SET {sets}, #lk = :true ADD #bv :one" if linked else f"SET {sets} REMOVE #lk ADD #bv :one"
            op = self.core.update_op(
                ctx.ledger,
                category_sk(month, category),
                expression,
                on_fail,
                condition,
                names=names,
                values={**values, ":true": True} if linked else values,
            )
            return [op, *marks]

        return self.write.commit(ctx, build, changes, at=at, undoes=undoes)

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
        names = {**_NAMES, "#bud": BUDGET}
        values: dict[str, Any] = {":zero": 0, ":one": 1}
        condition = "attribute_exists(#limit) AND " + _at_version(seen, values)

        def build(seq: int) -> list[TxOp]:
            _, marks = self._year_ops(ctx, month, category, None)
            op = self.core.update_op(
                ctx.ledger,
                category_sk(month, category),
                "REMOVE #limit, #strict, #ro, #lk, #bud SET #rem = :zero - if_not_exists(#spent, :zero) ADD #bv :one",
                on_fail,
                condition,
                names=names,
                values=values,
            )
            return [op, *marks]

        return self.write.commit(ctx, build, changes, at=at, undoes=undoes)


# A budget packed in one attribute of its month x category item, "limit,strict,rollover,version,month,
# category" (e.g. "30000,1,0,3,2026-11,食費"; the category last, whatever it holds): written with the
# budget's own attributes by every budget write, removed with them, so that reading a year of budgets
# returns two values per month (year_budgets), not eight.
BUDGET = "budget"


def _packed(month: str, category: str, *, limit: int, strict: bool, rollover: bool, version: int) -> str:
    return f"{limit},{int(strict)},{int(rollover)},{version},{month},{category}"


def _named(item: Item) -> Item:
    """A budget item with its month and category, read from its key (MONTH#{month}#CAT#{category})."""
    _, month, _, category = str(item["SK"]).split("#", 3)
    return {**item, "month": month, "category": category, "spent": int(item.get("spent", 0))}


def _unpacked(item: Item) -> Item:
    limit, strict, rollover, version, month, category = str(item[BUDGET]).split(",", 5)
    return {
        "month": month,
        "category": category,
        "limit": int(limit),
        "spent": int(item.get("spent", 0)),
        "strict": strict == "1",
        "rollover": rollover == "1",
        "budget_version": int(version),
    }


def _at_version(seen: int, values: dict[str, Any]) -> str:
    if seen == 0:
        return "attribute_not_exists(#bv)"
    values[":seen"] = seen
    return "#bv = :seen"
