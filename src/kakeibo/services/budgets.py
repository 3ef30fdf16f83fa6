"""Budgets: a limit per month x category, strict or not, carried over or not (core.rollover)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from pydantic import ValidationError

from kakeibo import errors, messages, settings
from kakeibo.core import rollover
from kakeibo.core.rollover import Carry
from kakeibo.models.base import check_month
from kakeibo.models.budgets import BudgetIn
from kakeibo.models.slips import SlipIn
from kakeibo.services.common import now_iso, on_current
from kakeibo.store import Change, Item, OnFail, Store, WriteContext


def budget_view(item: Item, carry: Carry | None = None, today: dt.date | None = None) -> dict[str, Any]:
    """A budget as the API shows it: its carry-in (none given: 0) and, when `today` falls in its month,
    the pace (per_day)."""
    limit = int(item.get("limit", 0))
    spent = int(item.get("spent", 0))
    carried = carry.carried if carry else 0
    available = limit + carried
    month = str(item["month"])
    current = today is not None and today.strftime("%Y-%m") == month
    return {
        "month": month,
        "category": item["category"],
        "limit": limit,
        "spent": spent,
        "remaining": available - spent,
        "strict": bool(item.get("strict", False)),
        "rollover": bool(item.get("rollover", False)),
        "carried": carried,
        "available": available,
        "per_day": rollover.per_day(available, spent, today) if today is not None and current else None,
        "version": int(item.get("budget_version", 0)),
    }


def year_items(store: Store, ledger: str, month: str) -> list[Item]:
    """The budgets of `month`'s year up to it: one Query of at most that many months' items, never a
    slip."""
    return [item for item in store.budgets.year_budgets(ledger, f"{month[:4]}-01", month) if "limit" in item]


def year_carries(items: Iterable[Item]) -> dict[str, dict[int, Carry]]:
    """Every category's carries, by month number, from its budgets of one year."""
    by_category: dict[str, dict[int, rollover.MonthBudget]] = {}
    for item in items:
        if "limit" not in item:
            continue
        months = by_category.setdefault(str(item["category"]), {})
        months[int(str(item["month"])[5:7])] = rollover.MonthBudget(
            limit=int(item["limit"]),
            spent=int(item.get("spent", 0)),
            rollover=bool(item.get("rollover", False)),
            strict=bool(item.get("strict", False)),
        )
    return {category: rollover.carries(months) for category, months in by_category.items()}


def _carried_view(store: Store, ledger: str, item: Item) -> dict[str, Any]:
    """One budget's view with its carry, read from its year."""
    month = str(item["month"])
    carry = year_carries(year_items(store, ledger, month)).get(str(item["category"]), {}).get(int(month[5:7]))
    return budget_view(item, carry, settings.today())


def valid_category(category: str) -> str:
    try:
        return (
            SlipIn.model_validate(
                {"date": "2000-01-01", "kind": "expense", "amount": 1, "account": "a", "category": category}
            ).category
            or ""
        )
    except ValidationError as exc:
        raise errors.ValidationFailed(
            "invalid category", errors=[{"loc": ["path", "category"], "msg": "invalid category", "type": "value_error"}]
        ) from exc


def _checked(month: str, category: str) -> str:
    """The category of a budget path, once month and category are known to be valid."""
    try:
        check_month(month)
    except ValueError as exc:
        raise errors.ValidationFailed(
            f"month {exc}", errors=[{"loc": ["path", "month"], "msg": str(exc), "type": "value_error"}]
        ) from None
    return valid_category(category)


def budget_record(item: Item | None) -> dict[str, Any] | None:
    """A budget as the journal keeps it: what its writer set (what was spent is the slips')."""
    if item is None or "limit" not in item:
        return None
    return {
        "month": item["month"],
        "category": item["category"],
        "limit": int(item["limit"]),
        "strict": bool(item.get("strict", False)),
        "rollover": bool(item.get("rollover", False)),
        "version": int(item.get("budget_version", 0)),
    }


def budget_change(month: str, category: str, before: Item | None, after: Item | None) -> Change:
    return Change.between("budget", f"{month}/{category}", budget_record(before), budget_record(after))


def put_budget(
    store: Store,
    ctx: WriteContext,
    month: str,
    category: str,
    *,
    body: BudgetIn,
    expected: int | None,
    if_match: bool,
    undoes: int | None = None,
) -> tuple[dict[str, Any], bool]:
    """Create (no If-Match) or change (If-Match) a budget. Returns (budget, created)."""
    category = _checked(month, category)

    def attempt() -> tuple[dict[str, Any], bool]:
        current = store.budgets.budget_item(ctx.ledger, month, category)
        exists = current is not None and "limit" in current
        seen = int(current.get("budget_version", 0)) if current else 0
        if if_match and not exists:
            raise errors.VersionMismatch("there is no budget to change yet", current=None, expected=expected)
        if not if_match and exists:
            raise errors.PreconditionRequired(
                "this budget exists: send If-Match with its ETag to change it", current=seen
            )
        _check_seen(seen, expected)
        after = {"spent": 0, **(current or {}), "month": month, "category": category, "limit": body.limit,
                 "strict": body.strict, "rollover": body.rollover, "budget_version": seen + 1}  # fmt: skip
        store.budgets.put_budget(
            ctx,
            month,
            category,
            limit=body.limit,
            strict=body.strict,
            rollover=body.rollover,
            seen=seen,
            on_fail=_moved(expected),
            changes=[budget_change(month, category, current, after)],
            at=now_iso(),
            undoes=undoes,
        )
        return after, not if_match

    saved, created = on_current(attempt)
    return _carried_view(store, ctx.ledger, saved), created


def copy_budgets(store: Store, ctx: WriteContext, month: str, source: str) -> dict[str, Any]:
    """Every budget of `source` into `month` as it is (limit, strict, rollover), where `month` has no
    budget of that category yet; those it has are kept. Each one created is its own write; one a
    later strict month refuses (its carry would leave that month over) is listed with the month, and
    the others are copied all the same."""
    for name, value in (("month", month), ("source", source)):
        try:
            check_month(value)
        except ValueError as exc:
            raise errors.ValidationFailed(
                f"{name} {exc}", errors=[{"loc": ["path", name], "msg": str(exc), "type": "value_error"}]
            ) from None
    if source == month:  # nothing to copy: every budget of the month is set there already
        same = {
            "loc": ["path", "source"],
            "msg": "is the month copied into: copy from another month",
            "type": "value_error",
        }
        raise errors.ValidationFailed(messages.field_errors([same], "en"), errors=[same])
    copied: list[str] = []
    kept: list[str] = []
    refused: list[dict[str, Any]] = []
    for item in year_items(store, ctx.ledger, source):
        if item["month"] != source:
            continue
        category = str(item["category"])
        body = BudgetIn(
            limit=int(item["limit"]),
            strict=bool(item.get("strict", False)),
            rollover=bool(item.get("rollover", False)),
        )
        try:
            put_budget(store, ctx, month, category, body=body, expected=None, if_match=False)
        except errors.PreconditionRequired:  # set there already (or meanwhile): kept as it is
            kept.append(category)
        except errors.BudgetExceeded as exc:  # a later strict month would go over: not created
            refused.append({"category": category, "month": str(exc.context.get("month", month))})
        else:
            copied.append(category)
    listed = list_budgets(store, ctx.ledger, month)
    return {
        "month": month, "source": source, "copied": copied, "kept": kept, "refused": refused, "items": listed["items"]
    }  # fmt: skip


def _check_seen(seen: int, expected: int | None) -> None:
    """The budget is at the version the caller named (none named: whatever it is)."""
    if expected is not None and seen != expected:
        raise errors.VersionMismatch(
            f"the budget is at version {seen}, not {expected}", current=seen, expected=expected
        )


def _moved(expected: int | None) -> OnFail:
    """The budget changed between its read and the write: stale for an If-Match, else read again."""

    def fail(old: Item | None) -> errors.ApiError:
        current = int(old.get("budget_version", 0)) if old else 0
        if expected is not None and current != expected:
            return errors.VersionMismatch(
                f"the budget is at version {current}, not {expected}", current=current, expected=expected
            )
        return errors.ReadAgain()

    return fail


def list_budgets(store: Store, ledger: str, month: str) -> dict[str, Any]:
    """A month's budgets with their carries: the month's items and its year's before it, one Query."""
    year = year_items(store, ledger, month)
    carries = year_carries(year)
    number, today = int(month[5:7]), settings.today()
    items = [
        budget_view(item, carries.get(str(item["category"]), {}).get(number), today)
        for item in year
        if item["month"] == month
    ]
    return {"month": month, "items": items}


def delete_budget(
    store: Store, ctx: WriteContext, month: str, category: str, *, expected: int | None, undoes: int | None = None
) -> None:
    """Remove a budget (If-Match: its version, or `*`). What was spent stays in the month's totals."""
    category = _checked(month, category)

    def attempt() -> None:
        current = store.budgets.budget_item(ctx.ledger, month, category)
        if current is None or "limit" not in current:
            raise errors.NotFound("no budget for this month and category")
        seen = int(current.get("budget_version", 0))
        _check_seen(seen, expected)
        store.budgets.remove_budget(
            ctx,
            month,
            category,
            seen=seen,
            on_fail=_moved(expected),
            changes=[budget_change(month, category, current, None)],
            at=now_iso(),
            undoes=undoes,
        )

    on_current(attempt)
