"""The balance items a slip change moves (accounts, day totals, month x category and x
subcategory), each with
the guard it needs: funds, strict budgets, and the fence a ledger rebuild puts on accounts."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kakeibo import errors
from kakeibo.core.posting import (
    AccountItem,
    AccountMonthItem,
    AccountYearItem,
    CategoryMonthItem,
    DayItem,
    ItemChange,
    ItemKey,
    NetsItem,
    Plan,
    SubcategoryMonthItem,
    TaxYearItem,
)
from kakeibo.store.codec import Item, to_ddb
from kakeibo.store.core import OnFail, StoreCore, TxOp, seconds_until
from kakeibo.store.keys import (
    account_months_range,
    account_sk,
    account_years_range,
    category_sk,
    day_sk,
    derived_sk,
    month_prefix,
    months_range,
    pk,
    subcategory_sk,
)

# A mark on an account item: every change of its balance since the account began is in its month
# and year items (accounts created since rollups exist, or brought up to date by a rebuild).
ROLLUPS_MARK = "rollups"


def identity_sets(key: ItemKey) -> dict[str, str]:
    """The attributes that say which item a derived item is (set with its numbers)."""
    if isinstance(key, DayItem):
        return {"account": key.account, "date": key.date, "type": "day"}
    if isinstance(key, AccountMonthItem):
        return {"account": key.account, "month": key.month, "type": "account_month"}
    if isinstance(key, AccountYearItem):
        return {"account": key.account, "year": key.year, "type": "account_year"}
    if isinstance(key, CategoryMonthItem):
        return {"category": key.category, "month": key.month, "type": "category_month"}
    if isinstance(key, TaxYearItem):
        return {"year": key.year, "type": "tax_year"}
    return {}


# A rebuild marks every account item with its token and an expiry (epoch ms). Every slip
# transaction's operation on an account carries FENCE, so no slip change can interleave with a
# rebuild; a mark left behind by a crashed rebuild stops counting once it expires.
REBUILD_MARK, REBUILD_EXPIRES = "rebuild", "rebuild_expires"

FENCE = "(attribute_not_exists(#rb) OR #rbx < :now)"

FENCE_NAMES = {"#rb": REBUILD_MARK, "#rbx": REBUILD_EXPIRES}


class BalanceOps(StoreCore):
    """Transaction steps on balance items."""

    def day_totals(self, ledger: str, account: str, first: str, last: str, *fields: str) -> Iterator[Item]:
        """An account's day totals dated first..last (inclusive), in date order: `fields` and the date."""
        names = {f"#f{i}": name for i, name in enumerate((*fields, "date"))}
        return self.query(
            ledger,
            between=(day_sk(account, first), day_sk(account, last)),
            projection=", ".join(names),
            names=names,
        )

    def month_categories(self, ledger: str, month: str) -> Iterator[Item]:
        """The month x category items of a month (totals, and budgets where one is set)."""
        return self.query(ledger, begins_with=f"MONTH#{month}#CAT#")

    def month_totals(self, ledger: str, month: str) -> Iterator[Item]:
        """Every month x category and month x subcategory item of a month."""
        return self.query(ledger, begins_with=month_prefix(month))

    def months_category_totals(self, ledger: str, first: str, last: str) -> Iterator[Item]:
        """The income and expense (and SK) of every month x category and subcategory item of months
        first..last: one Query, projected (no budgets or counts)."""
        return self.query(ledger, between=months_range(first, last), **_projected("SK", "income", "expense"))

    def account_months_totals(self, ledger: str, first: str, last: str) -> Iterator[Item]:
        """Every account's month totals (account, month, income, expense, delta) of months
        first..last: one Query, projected (without the 31 day fields)."""
        return self.query(
            ledger,
            between=account_months_range(first, last),
            **_projected("account", "month", "income", "expense", "delta"),
        )

    def account_months(self, ledger: str, first: str, last: str, account: str | None = None) -> Iterator[Item]:
        """Every account's (or one account's) month items (totals and day fields) of months
        first..last: one Query."""
        return self.query(ledger, between=account_months_range(first, last), **_of_account(account))

    def account_years(self, ledger: str, first: str, last: str, account: str | None = None) -> Iterator[Item]:
        """Every account's (or one account's) year items of years first..last (YYYY, inclusive): one
        Query."""
        return self.query(ledger, between=account_years_range(first, last), **_of_account(account))

    def balance_ops(
        self,
        ledger: str,
        plan: Plan,
        *,
        active_accounts: frozenset[str] = frozenset(),
    ) -> list[TxOp]:
        """The Update of every balance item a plan moves, each with the guard it needs.

        Every account the plan involves is fenced against a running rebuild (FENCE), through its
        Update or, when its net change is zero, a ConditionCheck. An account that is missing, or
        archived while the plan names it anew, fails the transaction with AccountUnavailable."""
        now = self.now_ms()
        ops = []
        for change in plan.changes:
            ops.append(self._change_op(ledger, change, active_accounts, now=now))
        # Accounts the new slip names must exist (and be open) even if their net change is zero,
        # e.g. an update that only edits the memo of a slip whose account was archived meanwhile
        # does not need this, but a transfer between two accounts always moves both.
        named = {c.key.account for c in plan.changes if isinstance(c.key, AccountItem)}
        for account in sorted((active_accounts | set(plan.accounts)) - named):
            condition = FENCE
            names, values = dict(FENCE_NAMES), {":now": now}
            if account in active_accounts:
                condition = f"attribute_exists(SK) AND #arch = :false AND {FENCE}"
                names["#arch"], values[":false"] = "archived", False
            ops.append(
                TxOp(
                    "ConditionCheck",
                    {
                        "TableName": self.table,
                        "Key": to_ddb({"PK": pk(ledger), "SK": account_sk(account)}),
                        "ConditionExpression": condition,
                        "ExpressionAttributeNames": names,
                        "ExpressionAttributeValues": to_ddb(values),
                        "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                    },
                    _account_failure(account, 0, now),
                )
            )
        return ops

    def _change_op(
        self,
        ledger: str,
        change: ItemChange,
        active_accounts: frozenset[str],
        *,
        now: int,
    ) -> TxOp:
        key: ItemKey = change.key
        deltas = change.deltas
        names = {f"#f{i}": name for i, name in enumerate(deltas)}
        values: dict[str, Any] = {f":f{i}": deltas[name] for i, name in enumerate(deltas)}
        adds = [f"#f{i} :f{i}" for i in range(len(deltas))]
        if isinstance(key, AccountItem):
            condition = f"attribute_exists(SK) AND {FENCE}"
            names.update(FENCE_NAMES)
            values[":now"] = now
            if key.account in active_accounts:
                condition += " AND #arch = :false"
                names["#arch"] = "archived"
                values[":false"] = False
            need = change.funds_needed
            if need:
                condition += " AND (#allow = :true OR #bal >= :need)"
                names.update({"#allow": "allow_negative", "#bal": "balance"})
                values[":true"], values[":need"] = True, need
            return self.update_op(
                ledger,
                account_sk(key.account),
                "ADD " + ", ".join(adds),
                _account_failure(key.account, need, now),
                condition=condition,
                names=names,
                values=values,
            )
        if isinstance(key, DayItem | AccountMonthItem | AccountYearItem | TaxYearItem):
            sets = []
            for i, (name, value) in enumerate(identity_sets(key).items()):
                names[f"#i{i}"], values[f":i{i}"] = name, value
                sets.append(f"#i{i} = :i{i}")
            return self.update_op(
                ledger,
                derived_sk(key),
                "SET " + ", ".join(sets) + " ADD " + ", ".join(adds),
                lambda item: errors.Conflict("day total could not be updated"),
                names=names,
                values=values,
            )
        if isinstance(key, NetsItem):
            return self.nets_op(ledger, names=names, values=values, adds=adds)
        if isinstance(key, SubcategoryMonthItem):
            names.update(SUBCATEGORY_NAMES)
            values.update(subcategory_values(key))
            return self.update_op(
                ledger,
                subcategory_sk(key.month, key.category, key.subcategory),
                f"SET {SUBCATEGORY_SETS} ADD " + ", ".join(adds),
                lambda item: errors.Conflict("subcategory total could not be updated"),
                names=names,
                values=values,
            )
        return self._category_op(ledger, key, change, names=names, values=values, adds=adds)

    def nets_op(
        self,
        ledger: str,
        *,
        names: dict[str, str],
        values: dict[str, Any],
        adds: list[str],
        condition: str | None = None,
        on_fail: OnFail | None = None,
    ) -> TxOp:
        """The ledger's nets moved (members' fields ADDed) and its version bumped: the settlement's
        ETag changes with every change of any member's net."""
        names, values = {**names, "#ver": "version", "#type": "type"}, {**values, ":one": 1, ":type": "nets"}
        return self.update_op(
            ledger,
            derived_sk(NetsItem()),
            "SET #type = :type ADD " + ", ".join([*adds, "#ver :one"]),
            on_fail or (lambda item: errors.Conflict("the ledger's nets could not be updated")),
            condition=condition,
            names=names,
            values=values,
        )

    def _category_op(
        self,
        ledger: str,
        key: CategoryMonthItem,
        change: ItemChange,
        *,
        names: dict[str, str],
        values: dict[str, Any],
        adds: list[str],
    ) -> TxOp:
        names.update({"#cat": "category", "#month": "month", "#type": "type"})
        values.update({":cat": key.category, ":month": key.month, ":type": "category_month"})
        spending = change.spending
        if spending:
            # spent = expense - income and remaining = limit - spent are kept up to date, so that a
            # strict budget is one condition here and setting a limit is one atomic update
            names.update({"#spent": "spent", "#rem": "remaining"})
            adds += ["#spent :spent", "#rem :negspent"]
            values[":spent"], values[":negspent"] = spending, -spending
        condition: str | None = None
        need = change.budget_needed
        if need:
            condition = "attribute_not_exists(#strict) OR #strict = :false OR #rem >= :need"
            names["#strict"] = "strict"
            values[":false"], values[":need"] = False, need
        return self.update_op(
            ledger,
            category_sk(key.month, key.category),
            "SET #cat = :cat, #month = :month, #type = :type ADD " + ", ".join(adds),
            _budget_failure(key, need),
            condition=condition,
            names=names,
            values=values,
        )


SUBCATEGORY_NAMES = {"#cat": "category", "#sub": "subcategory", "#month": "month", "#type": "type"}

SUBCATEGORY_SETS = "#cat = :cat, #sub = :sub, #month = :month, #type = :type"


def subcategory_values(key: SubcategoryMonthItem) -> dict[str, Any]:
    """The identifying fields a month x subcategory item carries (set on every write)."""
    return {":cat": key.category, ":sub": key.subcategory, ":month": key.month, ":type": "subcategory_month"}


def _account_failure(account: str, need: int, now: int) -> OnFail:
    def fail(item: Item | None) -> errors.ApiError:
        if item is None:
            return errors.AccountUnavailable(account, "does not exist")
        if item.get(REBUILD_MARK) and int(item.get(REBUILD_EXPIRES, 0)) >= now:
            return errors.Locked(
                "the ledger is being rebuilt; retry shortly",
                retry_after=min(10, seconds_until(int(item[REBUILD_EXPIRES]), now)),
            )
        if item.get("archived"):
            return errors.AccountUnavailable(account, "is archived")
        return errors.InsufficientFunds(
            f"account '{account}' has {item.get('balance', 0)}; {need} would leave it below zero",
            account=account,
            account_name=item.get("name", account),
            balance=item.get("balance", 0),
            needed=need,
        )

    return fail


def _budget_failure(key: CategoryMonthItem, need: int) -> OnFail:
    def fail(item: Item | None) -> errors.ApiError:
        item = item or {}
        limit = int(item.get("limit", 0))
        spent = int(item.get("spent", 0))
        return errors.BudgetExceeded(
            f"the {key.month} budget for '{key.category}' has {limit - spent} left; this needs {need}",
            month=key.month,
            category=key.category,
            limit=limit,
            spent=spent,
            remaining=limit - spent,
            needed=need,
        )

    return fail


def _of_account(account: str | None) -> dict[str, Any]:
    """A rollup Query's filter to one account: the items are keyed period first, so the Query reads
    every account's items of the span and answers only that account's (fewer bytes sent back)."""
    if account is None:
        return {}
    return {"filter_expression": "#acct = :acct", "names": {"#acct": "account"}, "values": {":acct": account}}


def _projected(*fields: str) -> dict[str, Any]:
    """A Query's projection of `fields`, every name through an expression attribute name."""
    names = {f"#p{i}": name for i, name in enumerate(fields)}
    return {"projection": ", ".join(names), "names": names}
