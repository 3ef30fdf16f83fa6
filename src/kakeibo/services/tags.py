"""Tags (§28): a tag's totals over months, from the rollups the slip transactions keep (core.tags)."""

from __future__ import annotations

from typing import Any

from kakeibo import errors
from kakeibo.core.tags import normalise_tag, tag_totals
from kakeibo.models.base import check_month
from kakeibo.store import Store

MAX_MONTHS = 120  # months a tag report spans at most (ten years: its items are accounts x months)


def _month(name: str, value: str) -> str:
    try:
        return check_month(value)
    except ValueError as exc:
        message = f"'{name}' {exc}"
        raise errors.ValidationFailed(message, errors=[{"loc": ["query", name], "msg": message}]) from None


def _span(first: str, last: str) -> int:
    return (int(last[:4]) * 12 + int(last[5:7])) - (int(first[:4]) * 12 + int(first[5:7])) + 1


def report(store: Store, ledger: str, first: str, last: str, tag: str | None = None) -> dict[str, Any]:
    """GET /reports/tags: each tag's income, expense and count over months first..last (YYYY-MM),
    summed from every account's month items of those months (one Query: accounts x months items,
    whatever the number of slips); `tag`: that tag alone."""
    _month("from", first)
    _month("to", last)
    if first > last:
        message = f"from ({first}) is after to ({last})"
        raise errors.ValidationFailed(message, errors=[{"loc": ["query", "from"], "msg": message}])
    if _span(first, last) > MAX_MONTHS:
        message = f"a tag report spans at most {MAX_MONTHS} months"
        raise errors.ValidationFailed(message, errors=[{"loc": ["query", "from"], "msg": message}])
    only = normalise_tag(tag) if tag else None
    totals = tag_totals(store.tags.tag_rollups(ledger, first, last), only=only)
    items = [
        {"tag": t.tag, "income": t.income, "expense": t.expense, "net": t.income - t.expense, "count": t.count}
        for t in totals
    ]
    return {"from": first, "to": last, "items": items}
