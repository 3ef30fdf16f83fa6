"""Changes grouped into transactions (core/batching.py): in order, each change once, every batch
within its count and its items, and no batch closed while the next change would still have fit."""

from __future__ import annotations

from collections.abc import Hashable

from hypothesis import given, settings
from hypothesis import strategies as st

from kakeibo.core.batching import batches

CHANGES = st.lists(st.frozensets(st.integers(min_value=0, max_value=40), max_size=12), max_size=60)


@settings(deadline=None, max_examples=200)
@given(changes=CHANGES, most=st.integers(min_value=1, max_value=10), room=st.integers(min_value=1, max_value=30))
def test_changes_go_in_order_once_in_batches_as_full_as_they_fit(
    changes: list[frozenset[int]], most: int, room: int
) -> None:
    # Given changes each touching some items (shared items counted once in a batch)
    def items_of(change: frozenset[int]) -> set[Hashable]:
        return set(change)

    # When they are grouped
    grouped = list(batches(changes, items_of, most=most, room=room))
    # Then each goes once, in order, no batch is empty
    assert [c for b in grouped for c in b] == changes and all(grouped)
    for n, batch in enumerate(grouped):
        following = grouped[n + 1] if n + 1 < len(grouped) else None
        touched = set().union(*batch)
        # And a batch holds at most `most`, within `room` unless it is one change too large alone
        assert len(batch) <= most
        assert len(touched) <= room or len(batch) == 1
        # And it closed only because the next change would not have fit
        if following is not None:
            assert len(batch) == most or len(touched | following[0]) > room


def test_items_shared_by_a_batch_count_once() -> None:
    # Given three changes of one day, each touching its slip and the day's rollup
    changes = [{("slip", n), ("day", "2026-05-01")} for n in range(3)]
    # When at most 3 items fit in a transaction
    grouped = list(batches(changes, set, most=10, room=3))
    # Then two go together (two slips and the one day: 3 items), the third alone
    assert [len(b) for b in grouped] == [2, 1]
