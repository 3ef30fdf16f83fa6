"""The slip index's keys: a pure function of the slip; no user-supplied value can reach into
another value's range; a change rewrites only what it changes; a day's entries share its items and
read back newest first."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kakeibo.store import Store
from kakeibo.store.keys import (
    INDEX_BUCKET,
    entries_before,
    entry_parts,
    index_entry,
    index_range,
    index_sk,
    is_index_sk,
    item_entries,
    slip_index_sks,
)

USERS = st.text(alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1, max_size=128)
CATEGORIES = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=50)  # as a query may ask
DATES = st.dates().map(lambda d: d.isoformat()).filter(lambda d: len(d) == 10)
NUMBERS = st.integers(1, 10**10 - 1)
IDS = st.text(alphabet="0123456789ABCDEFGHJKMNPQRSTVWXYZ", min_size=1, max_size=64)


def within(entry: str, bounds: tuple[str, str]) -> bool:
    """Is the item that holds `entry` in the Query range `bounds`?"""
    item_sk = entry_parts(entry)[0]
    return bounds[0] <= item_sk <= bounds[1]


@settings(deadline=None)
@given(mine=USERS, other=USERS, date=DATES, no=NUMBERS, slip_id=IDS)
def test_a_member_range_holds_exactly_that_member_keys(mine: str, other: str, date: str, no: int, slip_id: str) -> None:
    # Given a slip key of one member, When another member's (or the same member's) range is read
    key = index_sk("by", other, date, no, slip_id)
    # Then the key falls in it exactly when they are the same member, and reads back whole
    assert within(key, index_range("by", mine, None, None)) == (mine == other)
    assert index_entry(key) == (date, no, slip_id) and is_index_sk(entry_parts(key)[0])


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
    # Then it holds the earlier days, and that day's slips numbered below (all of them if None):
    # their items are in the range and the entries are kept
    after = date < day or (date == day and (below is None or no < below))
    assert (within(key, bounds) and entries_before([key], (day, below)) == [key]) == after
    # And an entry left out is either beyond the range or dropped from the item that holds the cursor
    if not after:
        assert not within(key, bounds) or entries_before([key], (day, below)) == []


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
        "YA#bank", "YA#cash", "YB#hanako", "YB#taro", "YK#transfer",
    ]  # fmt: skip


def test_a_slip_from_before_authors_has_no_member_item() -> None:
    assert not any(k.startswith("YB#") for k in slip_index_sks(slip(created_by=None, updated_by=None)))


@settings(deadline=None)
@given(numbers=st.sets(st.integers(1, 400), min_size=1, max_size=60), date=DATES)
def test_a_day_s_entries_share_items_and_read_back_newest_first(numbers: set[int], date: str) -> None:
    # Given slips of one day, numbered anyhow
    entries = {e for no in numbers for e in slip_index_sks(slip(id=f"S{no}", no=no, date=date))}
    # When their entries are stored as the writes store them: each an attribute of its item
    items: dict[str, dict[str, str]] = {}
    for entry in entries:
        item_sk, name, slip_id = entry_parts(entry)
        items.setdefault(item_sk, {"SK": item_sk})[name] = slip_id
    # Then each value has one item per bucket of INDEX_BUCKET numbers the day's slips fall in
    buckets = {no // INDEX_BUCKET for no in numbers}
    assert len(items) == 4 * len(buckets)
    # And the items, read in key order from the newest, give back every entry once, newest first
    for head in ("YA#cash#", "YC#食費#", "YK#expense#", "YB#taro#"):
        read = [e for sk in sorted(items, reverse=True) if sk.startswith(head) for e in item_entries(items[sk])]
        assert [index_entry(e)[1] for e in read] == sorted(numbers, reverse=True)
        assert set(read) == {e for e in entries if e.startswith(head)}


def test_a_transaction_writes_each_index_item_once_setting_and_removing_its_entries() -> None:
    # Given a slip re-categorised (食費 -> 日用品) in the same transaction as another slip of that
    # day and bucket is created in 食費, and a third of that day deleted
    store = Store(None, "LedgerTable")  # type: ignore[arg-type]
    old, new = slip(id="A", no=5), slip(id="A", no=5, category="日用品", version=2)
    other, gone = slip(id="B", no=6), slip(id="C", no=7, kind="income", category="給与")
    before = slip_index_sks(old) | slip_index_sks(gone)
    after = slip_index_sks(new) | slip_index_sks(other)
    # When their index writes are made in one call
    ops = store.slip_index.index_ops("me", put=after - before, delete=before - after)
    # Then each item is one unconditional update: 食費's sets B and removes A, 日用品's sets A,
    # 給与's and income's remove C, and the account and author items (A unchanged there) set B, remove C
    keys = [op.body["Key"]["SK"]["S"] for op in ops]
    assert len(keys) == len(set(keys)) and all(
        op.kind == "Update" and "ConditionExpression" not in op.body for op in ops
    )
    by_item = {op.body["Key"]["SK"]["S"].split("#")[1]: op.body for op in ops}
    food = by_item["食費"]
    assert food["UpdateExpression"] == "SET #s0 = :s0 REMOVE #r0"
    assert food["ExpressionAttributeNames"] == {"#s0": "6", "#r0": "5"} and food["ExpressionAttributeValues"] == {
        ":s0": {"S": "B"}
    }
    assert by_item["日用品"]["UpdateExpression"] == "SET #s0 = :s0"
    assert by_item["給与"]["UpdateExpression"] == "REMOVE #r0" and by_item["給与"]["ExpressionAttributeNames"] == {
        "#r0": "7"
    }
    assert sorted(by_item) == ["cash", "expense", "income", "taro", "日用品", "給与", "食費"]
    assert by_item["cash"]["ExpressionAttributeNames"] == {"#s0": "6", "#r0": "7"}
