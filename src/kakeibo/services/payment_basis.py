"""The monthly report on the payment basis: card spending counted in the month its cycle is paid,
not the month it is dated in."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kakeibo.core import billing
from kakeibo.core.posting import UNCATEGORIZED, CategoryMonthItem, ItemKey, SubcategoryMonthItem
from kakeibo.core.recurrence import LAST_DAY, month_day
from kakeibo.services.accounts import card_billing
from kakeibo.services.cards import months_before
from kakeibo.services.slips import list_slips
from kakeibo.store import (
    Item,
    Store,
)


@dataclass
class BasisShift:
    """What counting card spending in the month it is paid changes in a month's report: per category
    (and subcategory) and per card, income and expense to add (negative: to take away)."""

    categories: dict[ItemKey, dict[str, int]]
    accounts: dict[str, dict[str, int]]


def payment_basis(store: Store, ledger: str, month: str, cards: list[Item]) -> BasisShift:
    """The month's report moves each card's income and expense from the month they are dated in to
    the month of their cycle's payment: the card's slips dated in `month` leave it, those of the
    cycles paid in `month` join it. Reads each card's slips of those days (about two months)."""
    shift = BasisShift(defaultdict(lambda: {"income": 0, "expense": 0}), {})
    year, number = int(month[:4]), int(month[5:7])
    first_day = dt.date(year, number, 1)
    last_day = month_day(year, number, LAST_DAY)
    for card in cards:
        if not card.get("billing"):
            continue
        account, rule = str(card["id"]), card_billing(dict(card["billing"]))
        paid_now = [
            c for c in billing.cycles(rule, months_before(month, 3), month) if first_day <= c.payment_date <= last_day
        ]
        ranges = [(first_day, last_day, -1)] + [(c.period_from, c.closing_date, 1) for c in paid_now]
        moved = shift.accounts.setdefault(account, {"income": 0, "expense": 0})
        for lo, hi, sign in ranges:
            for slip in _card_slips(store, ledger, account, lo, hi):
                for key, part in _category_parts(month, slip):
                    shift.categories[key][slip["kind"]] += sign * part
                moved[slip["kind"]] += sign * int(slip["amount"])
    return shift


def _card_slips(store: Store, ledger: str, account: str, lo: dt.date, hi: dt.date) -> Iterator[dict[str, Any]]:
    """The card's own income and expense slips dated lo..hi (transfers move no category)."""
    cursor: str | None = None
    while True:
        page, cursor = list_slips(
            store, ledger, date_from=lo.isoformat(), date_to=hi.isoformat(), account=account, limit=100, cursor=cursor
        )
        yield from (s for s in page if s["account"] == account and s["kind"] in ("income", "expense"))
        if not cursor:
            return


def _category_parts(month: str, slip: dict[str, Any]) -> Iterator[tuple[ItemKey, int]]:
    """Each line's (or the slip's) amount under its month x category and x subcategory keys."""
    lines = slip.get("lines") or [
        {
            "amount": slip["amount"],
            "category": slip.get("category") or UNCATEGORIZED,
            "subcategory": slip.get("subcategory"),
        }
    ]
    for line in lines:
        yield CategoryMonthItem(month, line["category"]), int(line["amount"])
        if line.get("subcategory"):
            yield SubcategoryMonthItem(month, line["category"], line["subcategory"]), int(line["amount"])
