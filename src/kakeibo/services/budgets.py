"""Budgets: a limit per month x category, strict or not."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from kakeibo import errors
from kakeibo.models import BudgetIn, SlipIn, check_month
from kakeibo.store import (
    Item,
    Store,
)


def budget_view(item: Item) -> dict[str, Any]:
    limit = int(item.get("limit", 0))
    spent = int(item.get("spent", 0))
    return {
        "month": item["month"],
        "category": item["category"],
        "limit": limit,
        "spent": spent,
        "remaining": limit - spent,
        "strict": bool(item.get("strict", False)),
        "version": int(item.get("budget_version", 0)),
    }


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


def put_budget(
    store: Store,
    who: str,
    month: str,
    category: str,
    *,
    body: BudgetIn,
    expected: int | None,
    if_match: bool,
) -> tuple[dict[str, Any], bool]:
    """Create (no If-Match) or change (If-Match) a budget. Returns (budget, created)."""
    category = _checked(month, category)

    def fail(old: Item | None) -> errors.ApiError:
        if old is None or "limit" not in old:
            return errors.VersionMismatch("there is no budget to change yet", current=None, expected=expected)
        current = int(old.get("budget_version", 0))
        if not if_match:
            return errors.PreconditionRequired(
                "this budget exists: send If-Match with its ETag to change it", current=current
            )
        return errors.VersionMismatch(
            f"the budget is at version {current}, not {expected}", current=current, expected=expected
        )

    item = store.put_budget(
        who,
        month,
        category,
        limit=body.limit,
        strict=body.strict,
        expected=expected,
        must_exist=if_match,
        on_fail=fail,
    )
    return budget_view(item), not if_match


def list_budgets(store: Store, who: str, month: str) -> dict[str, Any]:
    items = [budget_view(item) for item in store.month_categories(who, month) if "limit" in item]
    return {"month": month, "items": items}


def delete_budget(store: Store, who: str, month: str, category: str, *, expected: int | None) -> None:
    """Remove a budget (If-Match: its version, or `*`). What was spent stays in the month's totals."""
    category = _checked(month, category)

    def fail(old: Item | None) -> errors.ApiError:
        if old is None or "limit" not in old:
            return errors.NotFound("no budget for this month and category")
        current = int(old.get("budget_version", 0))
        return errors.VersionMismatch(
            f"the budget is at version {current}, not {expected}", current=current, expected=expected
        )

    store.remove_budget(who, month, category, expected=expected, on_fail=fail)
