"""Tags' totals (§28): read from the fields the slip transactions keep on the accounts' month items
(core.tags), never from the slips."""

from __future__ import annotations

from collections.abc import Iterator

from kakeibo.core.tags import tag_field
from kakeibo.store.codec import Item
from kakeibo.store.keys import account_months_range
from kakeibo.store.transactions import StoreCore


class TagOps:
    """Reads of the tag totals: every account's month items of a span of months, one Query."""

    def __init__(self, core: StoreCore) -> None:
        self.core = core

    def tag_rollups(self, ledger: str, first: str, last: str) -> Iterator[Item]:
        """Every account's month item of months first..last (YYYY-MM), whole (a tag's fields are named
        by the tag: they cannot be projected without knowing the tags)."""
        return self.core.query(ledger, between=account_months_range(first, last))

    def tag_months(self, ledger: str, tag: str, first: str, last: str) -> list[str]:
        """The months of first..last in which some slip carries `tag` (its count on some account's
        month item), newest first: one Query of those items, projected to the month and that count."""
        names = {"#m": "month", "#c": tag_field(tag, "count")}
        counts: dict[str, int] = {}
        for item in self.core.query(
            ledger, between=account_months_range(first, last), projection="#m, #c", names=names
        ):
            month = str(item.get("month", ""))
            counts[month] = counts.get(month, 0) + int(item.get(names["#c"], 0))
        return sorted((month for month, count in counts.items() if month and count > 0), reverse=True)


__all__ = ["TagOps"]
