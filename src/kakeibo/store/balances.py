"""The balance items a slip change moves (accounts, day totals, month x category and x
subcategory), each with
the guard it needs: funds, strict budgets, and the fence a ledger rebuild puts on accounts."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from kakeibo import errors
from kakeibo.core import rollover
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
from kakeibo.core.units import JPY, POINTS
from kakeibo.store.codec import Item, to_ddb
from kakeibo.store.keys import (
    account_months_range,
    account_sk,
    account_years_range,
    category_sk,
    day_sk,
    derived_key,
    derived_sk,
    month_prefix,
    months_range,
    pk,
    subcategory_sk,
)
from kakeibo.store.transactions import OnFail, StoreCore, TxOp, seconds_until


def item_name(key: ItemKey) -> str:
    """The name of a balance item, as a verify reports it (and orders them by): its key."""
    return derived_sk(key)


def balance_key(item: Item) -> ItemKey | None:
    """The balance item a stored item is (account, day, month x category or subcategory, account
    month or year, nets, tax year); None for any other item."""
    return derived_key(str(item["SK"]))


# A mark on a month x category item: its spending reaches a strict month through the carry (繰越), so
# its slip changes are checked against the strict months of its year, not against its own item alone
# (core.rollover.linked; set and cleared by the budget writes, which alone change what links months).
LINKED = "linked"
CARRY_ATTEMPTS = 4  # category-years found linked one after another before a change gives up (409)


class CarryLinked(errors.ReadAgain):
    """A slip change met a month whose spending reaches a strict month through the carry: it is
    built again with its category's year read and checked (`BalanceOps.carry_check`)."""

    def __init__(self, key: tuple[str, str, str]) -> None:
        super().__init__()
        self.key = key


def month_budget(item: Item | None) -> rollover.MonthBudget:
    """A month x category item as the carry arithmetic sees it (no item, or no limit: no budget)."""
    if item is None or "limit" not in item:
        return rollover.MonthBudget(limit=None, spent=int((item or {}).get("spent", 0)))
    return rollover.MonthBudget(
        limit=int(item["limit"]),
        spent=int(item.get("spent", 0)),
        rollover=bool(item.get("rollover", False)),
        strict=bool(item.get("strict", False)),
    )


def year_sks(year: str, category: str) -> list[str]:
    """The twelve month x category items of one category's year."""
    return [category_sk(f"{year}-{number:02d}", category) for number in rollover.MONTHS]


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


class BalanceOps:
    """Transaction steps on balance items."""

    def __init__(self, core: StoreCore) -> None:
        self.core = core
        self.linked_seen: set[tuple[str, str, str]] = set()  # the years this process found linked

    def day_totals(self, ledger: str, account: str, first: str, last: str, *fields: str) -> Iterator[Item]:
        """An account's day totals dated first..last (inclusive), in date order: `fields` and the date."""
        names = {f"#f{i}": name for i, name in enumerate((*fields, "date"))}
        return self.core.query(
            ledger,
            between=(day_sk(account, first), day_sk(account, last)),
            projection=", ".join(names),
            names=names,
        )

    def account_has_slips(self, ledger: str, account: str) -> bool:
        """Whether any slip moves the account: a day total of it counting one (read until the first)."""
        days = self.day_totals(ledger, account, "0000-00-00", "9999-99-99", "count")
        return any(int(day.get("count", 0)) for day in days)

    def month_categories(self, ledger: str, month: str) -> Iterator[Item]:
        """The month x category items of a month (totals, and budgets where one is set)."""
        return self.core.query(ledger, begins_with=f"MONTH#{month}#CAT#")

    def month_totals(self, ledger: str, month: str) -> Iterator[Item]:
        """Every month x category and month x subcategory item of a month."""
        return self.core.query(ledger, begins_with=month_prefix(month))

    def months_category_totals(self, ledger: str, first: str, last: str) -> Iterator[Item]:
        """The income and expense (and SK) of every month x category and subcategory item of months
        first..last: one Query, projected (no budgets or counts)."""
        return self.core.query(ledger, between=months_range(first, last), **_projected("SK", "income", "expense"))

    def account_months_totals(self, ledger: str, first: str, last: str) -> Iterator[Item]:
        """Every account's month totals (account, month, income, expense, delta) of months
        first..last: one Query, projected (without the 31 day fields)."""
        return self.core.query(
            ledger,
            between=account_months_range(first, last),
            **_projected("account", "month", "income", "expense", "delta"),
        )

    def account_months(self, ledger: str, first: str, last: str, account: str | None = None) -> Iterator[Item]:
        """Every account's (or one account's) month items (totals and day fields) of months
        first..last: one Query."""
        return self.core.query(ledger, between=account_months_range(first, last), **_of_account(account))

    def account_years(self, ledger: str, first: str, last: str, account: str | None = None) -> Iterator[Item]:
        """Every account's (or one account's) year items of years first..last (YYYY, inclusive): one
        Query."""
        return self.core.query(ledger, between=account_years_range(first, last), **_of_account(account))

    def _linked_years(self) -> set[tuple[str, str, str]]:
        """The (ledger, category, year)s this process found linked: their changes read the year first."""
        linked = self.linked_seen
        if len(linked) > 10_000:
            linked.clear()
        return linked

    def carrying(self, write: Callable[[int], int]) -> int:
        """Run a slip write (it builds its transaction from scratch each time, given the attempt);
        when it meets a month linked to a strict one by the carry, run it again with that category's
        year checked."""
        for attempt in range(CARRY_ATTEMPTS):
            try:
                return write(attempt)
            except CarryLinked as found:
                self._linked_years().add(found.key)
        return write(CARRY_ATTEMPTS)

    def year_months(
        self, ledger: str, keys: Mapping[tuple[str, str], object]
    ) -> dict[tuple[str, str], dict[int, Item]]:
        """The month x category items of each (category, year): one BatchGetItem (consistent) of twelve
        keys each, by month number."""
        sks = [sk for category, year in keys for sk in year_sks(year, category)]
        found = self.core.batch_get(ledger, sks)
        out: dict[tuple[str, str], dict[int, Item]] = {}
        for category, year in keys:
            months = out.setdefault((category, year), {})
            for number, sk in zip(rollover.MONTHS, year_sks(year, category), strict=True):
                if sk in found:
                    months[number] = found[sk]
        return out

    def carry_check(self, ledger: str, plan: Plan) -> Callable[[], None]:
        """What a change must check of its linked category-years before it commits: the strict months
        of each, against their `available`, with the change's spending applied. It reads the years
        when it is called; the transaction it goes with is built on a journal head read before that
        read (`commit` calls the ops builder after taking the head, and every change moves the head),
        so the months cannot change between this check and the commit without the commit failing
        on the head and the check running again."""
        known = self._linked_years()
        more: dict[tuple[str, str], dict[int, int]] = {}
        for change in plan.changes:
            if isinstance(change.key, CategoryMonthItem) and change.spending:
                year, number = change.key.month[:4], int(change.key.month[5:7])
                more.setdefault((change.key.category, year), {})[number] = change.spending
        checked = {
            key: deltas
            for key, deltas in more.items()
            if (str(pk(ledger)), *key) in known and any(amount > 0 for amount in deltas.values())
        }
        if not checked:
            return lambda: None

        def check() -> None:
            years = self.year_months(ledger, checked)
            for (category, year), deltas in sorted(checked.items()):
                before = {number: month_budget(item) for number, item in years[(category, year)].items()}
                if not rollover.linked(before):
                    known.discard((str(pk(ledger)), category, year))
                found = rollover.overdrawn(before, rollover.spend(before, deltas))
                if found is not None:
                    raise budget_exceeded(category, f"{year}-{found.month:02d}", before[found.month], found)

        return check

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
        now = self.core.now_ms()
        units = {account: (unit, value) for account, unit, value in plan.units}
        ops = []
        for change in plan.changes:
            ops.append(self._change_op(ledger, change, active_accounts, now=now, units=units))
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
            if account in units:
                condition += _unit_condition(*units[account], names, values)
            ops.append(
                TxOp(
                    "ConditionCheck",
                    {
                        "TableName": self.core.table,
                        "Key": to_ddb({"PK": pk(ledger), "SK": account_sk(account)}),
                        "ConditionExpression": condition,
                        "ExpressionAttributeNames": names,
                        "ExpressionAttributeValues": to_ddb(values),
                        "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                    },
                    _account_failure(account, 0, now, units.get(account)),
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
        units: dict[str, tuple[str, int]] | None = None,
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
            unit = (units or {}).get(key.account)
            if unit is not None:
                condition += _unit_condition(*unit, names, values)
            return self.core.update_op(
                ledger,
                account_sk(key.account),
                "ADD " + ", ".join(adds),
                _account_failure(key.account, need, now, unit),
                condition=condition,
                names=names,
                values=values,
            )
        if isinstance(key, DayItem | AccountMonthItem | AccountYearItem | TaxYearItem):
            sets = []
            for i, (name, value) in enumerate(identity_sets(key).items()):
                names[f"#i{i}"], values[f":i{i}"] = name, value
                sets.append(f"#i{i} = :i{i}")
            return self.core.update_op(
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
            return self.core.update_op(
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
        return self.core.update_op(
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
        year_key = (str(pk(ledger)), key.category, key.month[:4])
        if need and year_key not in self._linked_years():
            # a month linked to a strict one by the carry is checked with its year (carry_check);
            # any other strict month is held to its own item: its available is its limit
            condition = (
                "attribute_not_exists(#lk) AND (attribute_not_exists(#strict) OR #strict = :false OR #rem >= :need)"
            )
            names["#strict"], names["#lk"] = "strict", LINKED
            values[":false"], values[":need"] = False, need
        return self.core.update_op(
            ledger,
            category_sk(key.month, key.category),
            "SET #cat = :cat, #month = :month, #type = :type ADD " + ", ".join(adds),
            _budget_failure(key, need, year_key),
            condition=condition,
            names=names,
            values=values,
        )


SUBCATEGORY_NAMES = {"#cat": "category", "#sub": "subcategory", "#month": "month", "#type": "type"}

SUBCATEGORY_SETS = "#cat = :cat, #sub = :sub, #month = :month, #type = :type"


def subcategory_values(key: SubcategoryMonthItem) -> dict[str, Any]:
    """The identifying fields a month x subcategory item carries (set on every write)."""
    return {":cat": key.category, ":sub": key.subcategory, ":month": key.month, ":type": "subcategory_month"}


def _unit_condition(unit: str, point_value: int, names: dict[str, str], values: dict[str, Any]) -> str:
    """The account is in `unit` (accounts stored before units are in yen), at `point_value` for points."""
    names["#unit"], values[":unit"] = "unit", unit
    if unit == JPY:
        return " AND (attribute_not_exists(#unit) OR #unit = :unit)"
    if unit == POINTS:
        names["#pv"], values[":pv"] = "point_value", point_value
        return " AND #unit = :unit AND #pv = :pv"
    return " AND #unit = :unit"


def _account_failure(account: str, need: int, now: int, unit: tuple[str, int] | None = None) -> OnFail:
    def fail(item: Item | None) -> errors.ApiError:
        if item is None:
            return errors.AccountUnavailable(account, "does not exist")
        if unit is not None:
            points = item.get("unit") == POINTS
            found = (str(item.get("unit") or JPY), int(item.get("point_value") or 0) if points else 0)
            if found != (unit[0], unit[1] if unit[0] == POINTS else 0):
                return errors.UnitChanged(account, *found)
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


def budget_exceeded(
    category: str, month: str, budget: rollover.MonthBudget, found: rollover.Overdrawn
) -> errors.ApiError:
    """409 naming the strict month a change would leave over what it makes available."""
    return errors.BudgetExceeded(
        f"the {month} budget for '{category}' has {found.left} left; this needs {found.needed}",
        month=month,
        category=category,
        limit=budget.limit or 0,
        spent=budget.spent,
        available=found.available,
        remaining=found.left,
        needed=found.needed,
    )


def _budget_failure(key: CategoryMonthItem, need: int, year_key: tuple[str, str, str]) -> OnFail:
    def fail(item: Item | None) -> errors.ApiError:
        item = item or {}
        if item.get(LINKED):
            return CarryLinked(year_key)
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
