"""The pure rules of units (core/units.py) and the yen a foreign slip counts as (core/posting.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kakeibo.core import posting, units
from kakeibo.core.posting import CategoryMonthItem, Entry, Line


@pytest.mark.parametrize(
    ("unit", "digits"), [("JPY", 0), ("USD", 2), ("EUR", 2), ("KRW", 0), ("KWD", 3), ("points", 0)], ids=str
)
def test_a_unit_has_its_minor_units(unit: str, digits: int) -> None:
    # Given a unit an account may have, then its amounts have that many digits after the point
    assert units.is_unit(unit)
    assert units.minor_units(unit) == digits


@pytest.mark.parametrize("unit", ["usd", "XXX", "POINTS", "", "US", "JPY "], ids=repr)
def test_what_is_not_iso_4217_nor_points_is_not_a_unit(unit: str) -> None:
    assert not units.is_unit(unit)


@pytest.mark.parametrize(
    ("amount", "unit", "text"),
    [
        (1234, "USD", "$12.34"),
        (-5, "USD", "-$0.05"),
        (1200, "JPY", "¥1,200"),
        (1200, "points", "1,200 pt"),
        (12345, "KWD", "12.345 KWD"),
        (100000, "EUR", "€1,000.00"),
    ],
    ids=str,
)
def test_an_amount_reads_in_its_unit(amount: int, unit: str, text: str) -> None:
    assert units.format_amount(amount, unit) == text


def test_a_foreign_balance_is_valued_at_a_slips_rate_rounded_half_away_from_zero() -> None:
    # Given a slip of $12.34 that cost ¥1,900: ¥153.97 per dollar
    # Then $100.00 is ¥15,397 and -$0.01 is -¥2 (1.5397 rounds to 2)
    assert units.yen_value(10000, 1234, 1900) == 15397
    assert units.yen_value(-1, 1234, 1900) == -2
    assert units.yen_value(0, 1234, 1900) == 0


def test_a_foreign_expense_counts_its_yen_in_its_category_and_its_own_unit_on_its_account() -> None:
    # Given an expense of $12.34 that cost ¥1,900
    entry = Entry("2026-08-01", "expense", 1234, "usd", category="食費", jpy_amount=1900)
    # When its effects are planned
    effects = posting.effects(entry)
    # Then the account moves in cents and the category (reports, budgets) in yen
    assert effects[posting.AccountItem("usd")] == {"balance": -1234}
    assert effects[CategoryMonthItem("2026-08", "食費")] == {"count": 1, "expense": 1900}


def test_a_transfer_between_units_brings_what_arrived() -> None:
    # Given ¥20,000 exchanged for $130.00
    entry = Entry("2026-08-01", "transfer", 20000, "bank", to_account="usd", to_amount=13000)
    effects = posting.effects(entry)
    # Then the bank loses the yen and the dollar account gains the cents
    assert effects[posting.AccountItem("bank")] == {"balance": -20000}
    assert effects[posting.AccountItem("usd")] == {"balance": 13000}
    assert effects[posting.DayItem("usd", "2026-08-01")]["transfers_in"] == 13000


@settings(deadline=None, max_examples=200)
@given(
    parts=st.lists(st.integers(min_value=1, max_value=10**6), min_size=1, max_size=8),
    jpy=st.integers(min_value=1, max_value=10**9),
)
def test_a_split_foreign_slips_yen_is_shared_exactly_among_its_lines(parts: list[int], jpy: int) -> None:
    # Given a foreign slip split into lines, and the yen it came to
    amount = sum(parts)
    # When its yen is shared among the lines
    shares = posting.in_yen(amount, jpy, parts)
    # Then the shares sum to the yen exactly, none is negative, and each is within ¥1 of its proportion
    assert sum(shares) == jpy
    assert all(share >= 0 for share in shares)
    assert all(abs(share * amount - jpy * part) < 2 * amount for share, part in zip(shares, parts, strict=True))


def test_a_split_foreign_slip_counts_each_line_in_yen() -> None:
    lines = (Line(1000, "食費"), Line(234, "日用品"))
    entry = Entry("2026-08-01", "expense", 1234, "usd", lines=lines, jpy_amount=1900)
    totals = posting.merge([posting.effects(entry)])
    spent = {c.key.category: c.deltas["expense"] for c in totals if isinstance(c.key, CategoryMonthItem)}
    assert spent == {"食費": 1539, "日用品": 361}
