"""The batches a reconciliation writes: each one transaction within DynamoDB's 100 items, whatever
the index entries its slips change (a slip of each day, written by others than who reconciles)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kakeibo.services import reconciliations as service
from kakeibo.store import GUARD_ITEMS, JOURNAL_ITEMS
from kakeibo.store.keys import entry_parts, slip_index_sks
from kakeibo.store.reconciliations import Remark

LEASE_AND_TALLY = 2


def _slip(no: int, day: int, created_by: str, updated_by: str) -> dict[str, Any]:
    return {"id": f"s{no:04d}", "no": no, "date": f"2026-{1 + day // 28:02d}-{1 + day % 28:02d}", "kind": "expense",
            "amount": 100, "account": "bank", "category": "食費", "cleared": "cleared", "version": 1,
            "created_by": created_by, "updated_by": updated_by}  # fmt: skip


def _items(batch: list[Remark]) -> int:
    """What the batch's transaction writes: each slip, its identity, the index items it changes, and
    the lease's check, the run's tally, the journal and the guard."""
    index = {entry_parts(e)[0] for r in batch for e in slip_index_sks(r.current) ^ slip_index_sks(r.new)}
    return 2 * len(batch) + len(index) + LEASE_AND_TALLY + JOURNAL_ITEMS + GUARD_ITEMS


def test_slips_each_of_its_own_day_written_by_others_are_marked_in_transactions_of_at_most_100_items() -> None:
    # Given 60 cleared slips, each on a day of its own, created by Taro and changed last by Hanako
    slips = [_slip(n, n, "taro", "hanako") for n in range(60)]
    # When Jiro reconciles them (each slip's cleared entry goes, his author's entry comes, Hanako's goes)
    remarks = [Remark(s, service._marked(s, "bank", "r1", "jiro", "2026-12-01T00:00:00Z")) for s in slips]
    batches = list(service._transactions(remarks))
    # Then every slip is marked once, in order, and no transaction passes 100 items
    assert [r.current["id"] for b in batches for r in b] == [s["id"] for s in slips]
    assert max(_items(b) for b in batches) <= 100, [_items(b) for b in batches]
    assert max(len(b) for b in batches) <= service.BATCH


@settings(deadline=None, max_examples=50)
@given(
    days=st.lists(st.integers(min_value=0, max_value=80), min_size=1, max_size=90),
    authors=st.lists(st.sampled_from(["taro", "hanako", "jiro"]), min_size=2, max_size=2),
)
def test_any_slips_are_marked_once_in_order_in_transactions_within_the_limit(
    days: list[int], authors: list[str]
) -> None:
    # Given cleared slips on any days, by any members
    slips = [_slip(n, day, authors[0], authors[1]) for n, day in enumerate(sorted(days))]
    # When they are reconciled by a member
    remarks = [Remark(s, service._marked(s, "bank", "r1", "jiro", "2026-12-01T00:00:00Z")) for s in slips]
    batches = list(service._transactions(remarks))
    # Then each is marked once, in order, in batches within the limits
    assert [r.current["id"] for b in batches for r in b] == [s["id"] for s in slips]
    assert all(_items(b) <= 100 and 1 <= len(b) <= service.BATCH for b in batches)
