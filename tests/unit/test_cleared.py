"""Cleared sides of slips (§17), in the pure posting rules: what an account's `cleared` and its day
totals' `cleared` hold, whatever slips are made, changed and deleted."""

from __future__ import annotations

from collections import Counter, defaultdict

from hypothesis import given, settings
from hypothesis import strategies as st

from kakeibo.core.posting import AccountItem, AccountMonthItem, DayItem, Entry, ItemKey, effects, plan
from tests.unit.test_ledger import ACCOUNTS, apply, entries


@st.composite
def cleared_entries(draw: st.DrawFn) -> Entry:
    entry = draw(entries())
    to_cleared = entry.kind == "transfer" and draw(st.booleans())
    return Entry(
        entry.date, entry.kind, entry.amount, entry.account, entry.to_account, entry.category, entry.subcategory,
        cleared=draw(st.booleans()), to_cleared=to_cleared,
    )  # fmt: skip


def side_effects(entry: Entry) -> list[tuple[str, str, int, bool]]:
    """Each side of a slip: (account, date, signed effect, cleared)."""
    if entry.kind == "transfer":
        assert entry.to_account is not None
        return [
            (entry.account, entry.date, -entry.amount, entry.cleared),
            (entry.to_account, entry.date, entry.amount, entry.to_cleared),
        ]
    signed = -entry.amount if entry.kind == "expense" else entry.amount
    return [(entry.account, entry.date, signed, entry.cleared)]


@settings(max_examples=200, deadline=None)
@given(st.lists(cleared_entries(), max_size=12), st.lists(cleared_entries(), max_size=6), st.integers(0, 3))
def test_cleared_is_the_sum_of_the_cleared_sides_through_any_changes(
    slips: list[Entry], edits: list[Entry], deleted: int
) -> None:
    # Given slips made, some changed (cleared toggled, moved, re-amounted), some then deleted
    state: dict[ItemKey, Counter[str]] = defaultdict(Counter)
    live = list(slips)
    for entry in slips:
        apply(state, plan(None, entry).changes)
    for i, new in enumerate(edits[: len(live)]):
        apply(state, plan(live[i], new).changes)
        live[i] = new
    for gone in live[len(live) - min(deleted, len(live)) :]:
        apply(state, plan(gone, None).changes)
    live = live[: len(live) - min(deleted, len(live))]
    sides = [side for entry in live for side in side_effects(entry)]
    for account in ACCOUNTS:
        # Then each account's cleared is the sum of its cleared sides, its balance of all of them
        mine = [s for s in sides if s[0] == account]
        assert state[AccountItem(account)]["cleared"] == sum(s[2] for s in mine if s[3])
        assert state[AccountItem(account)]["balance"] == sum(s[2] for s in mine)
        # And each day and month keeps the cleared sides dated then, so a cleared balance as of a date
        # comes from the rollups
        for date in {s[1] for s in mine}:
            day = sum(s[2] for s in mine if s[3] and s[1] == date)
            month = sum(s[2] for s in mine if s[3] and s[1][:7] == date[:7])
            assert state[DayItem(account, date)]["cleared"] == day
            assert state[AccountMonthItem(account, date[:7])]["cleared"] == month


def test_clearing_a_slip_moves_only_the_cleared_totals() -> None:
    # Given a transfer from the bank to cash, nothing cleared
    before = Entry("2026-11-03", "transfer", 30_000, "bank", "cash")
    # When its bank side is cleared
    after = Entry("2026-11-03", "transfer", 30_000, "bank", "cash", cleared=True)
    changes = {c.key: dict(c.deltas) for c in plan(before, after).changes}
    # Then only the bank's cleared totals move (account, day, month, year), by the amount it left with
    assert changes[AccountItem("bank")] == {"cleared": -30_000}
    assert changes[DayItem("bank", "2026-11-03")] == {"cleared": -30_000}
    assert all(key.account == "bank" for key in changes if hasattr(key, "account"))
    assert len(changes) == 4
    # And an uncleared slip has no cleared field at all
    assert "cleared" not in effects(before)[AccountItem("bank")]
