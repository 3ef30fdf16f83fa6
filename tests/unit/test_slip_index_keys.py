"""The slip index's keys: a pure function of the slip; no user-supplied value can reach into
another value's range; a change rewrites only what it changes."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kakeibo.store.keys import index_entry, index_range, index_sk, is_index_sk, slip_index_sks

USERS = st.text(alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1, max_size=128)
CATEGORIES = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=50)  # as a query may ask
DATES = st.dates().map(lambda d: d.isoformat()).filter(lambda d: len(d) == 10)
NUMBERS = st.integers(1, 10**10 - 1)
IDS = st.text(alphabet="0123456789ABCDEFGHJKMNPQRSTVWXYZ", min_size=1, max_size=64)


def within(sk: str, bounds: tuple[str, str]) -> bool:
    return bounds[0] <= sk <= bounds[1]


@settings(deadline=None)
@given(mine=USERS, other=USERS, date=DATES, no=NUMBERS, slip_id=IDS)
def test_a_member_range_holds_exactly_that_member_keys(mine: str, other: str, date: str, no: int, slip_id: str) -> None:
    # Given a slip key of one member, When another member's (or the same member's) range is read
    key = index_sk("by", other, date, no, slip_id)
    # Then the key falls in it exactly when they are the same member, and reads back whole
    assert within(key, index_range("by", mine, None, None)) == (mine == other)
    assert index_entry(key) == (date, no, slip_id) and is_index_sk(key)


@settings(deadline=None)
@given(mine=CATEGORIES, other=CATEGORIES, date=DATES, no=NUMBERS, slip_id=IDS)
def test_a_category_range_holds_exactly_that_category_keys(
    mine: str, other: str, date: str, no: int, slip_id: str
) -> None:
    key = index_sk("category", other, date, no, slip_id)
    assert within(key, index_range("category", mine, None, None)) == (mine == other)


@settings(deadline=None)
@given(date=DATES, no=NUMBERS, slip_id=IDS, day=DATES, below=st.none() | NUMBERS)
def test_a_resumed_range_holds_exactly_what_comes_after_the_cursor(
    date: str, no: int, slip_id: str, day: str, below: int | None
) -> None:
    # Given a cursor (day, below), When an index range resumes there
    key = index_sk("account", "cash", date, no, slip_id)
    bounds = index_range("account", "cash", None, None, (day, below))
    # Then it holds the earlier days, and that day's slips numbered below (all of them if None)
    after = date < day or (date == day and (below is None or no < below))
    assert within(key, bounds) == after


def slip(**fields: Any) -> dict[str, Any]:
    base = {"id": "01ABC", "no": 7, "date": "2026-11-03", "kind": "expense", "account": "cash",
            "category": "食費", "created_by": "taro", "updated_by": "taro", "amount": 500, "memo": None}  # fmt: skip
    return {**base, **fields}


def test_an_amount_or_memo_edit_by_the_same_member_changes_no_index_item() -> None:
    assert slip_index_sks(slip()) == slip_index_sks(slip(amount=900, memo="昼", version=2))
    assert len(slip_index_sks(slip())) == 4


def test_a_transfer_is_indexed_under_both_accounts_and_each_author() -> None:
    keys = slip_index_sks(slip(kind="transfer", to_account="bank", category=None, updated_by="hanako"))
    assert sorted(k.split("#")[0] + "#" + k.split("#")[1] for k in keys) == [
        "XA#bank", "XA#cash", "XB#hanako", "XB#taro", "XK#transfer",
    ]  # fmt: skip


def test_a_slip_from_before_authors_has_no_member_item() -> None:
    assert not any(k.startswith("XB#") for k in slip_index_sks(slip(created_by=None, updated_by=None)))
