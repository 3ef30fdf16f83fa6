"""Properties of the pure reconciliation rules (core/reconcile.py), checked with hypothesis."""

from __future__ import annotations

import datetime as dt

from hypothesis import given, settings
from hypothesis import strategies as st

from kakeibo.core.reconcile import (
    ADJUSTMENT_CATEGORY,
    CLEARED,
    RECONCILED,
    UNCLEARED,
    Side,
    adjustment,
    batches,
    broken_sides,
    cleared_balance,
    holds,
    reconcile,
    sides,
)

ACCOUNTS = ["bank", "cash", "card"]
STATES = st.sampled_from([UNCLEARED, CLEARED, RECONCILED])
dates = st.dates(min_value=dt.date(2026, 10, 1), max_value=dt.date(2026, 12, 31)).map(dt.date.isoformat)


@st.composite
def slip_sides(draw: st.DrawFn) -> tuple[Side, ...]:
    kind = draw(st.sampled_from(["expense", "income", "transfer"]))
    account = draw(st.sampled_from(ACCOUNTS))
    to = draw(st.sampled_from([a for a in ACCOUNTS if a != account])) if kind == "transfer" else None
    slip_id = draw(st.text("abcdef0123456789", min_size=8, max_size=8))
    amount = draw(st.integers(1, 10**9))
    return sides(
        slip_id, draw(dates), kind, amount, account, to_account=to, cleared=draw(STATES), to_cleared=draw(STATES)
    )


def slip_id(group: tuple[Side, ...]) -> str:
    return group[0].slip_id


# one slip id is one slip: sides of distinct slips
all_sides = st.lists(slip_sides(), max_size=30, unique_by=slip_id).map(lambda groups: [s for g in groups for s in g])


@given(all_sides, st.sampled_from(ACCOUNTS), dates, st.integers(-(10**9), 10**9))
def test_a_reconciliation_marks_exactly_the_cleared_sides_up_to_its_date(
    found: list[Side], account: str, as_of: str, opening: int
) -> None:
    # Given any sides in any states, and the balance the statement gives being the ledger's cleared one
    statement = cleared_balance(opening, found, account, as_of)
    # When the account is reconciled as of a date
    outcome = reconcile(opening, found, account, as_of, statement)
    # Then it balances, and it marks the account's cleared sides dated up to then, and no other
    assert outcome.balances and outcome.difference == 0
    expected = {s for s in found if s.account == account and s.date <= as_of and s.state == CLEARED}
    assert set(outcome.marks) == expected and len(outcome.marks) == len(expected)
    # And it lists the uncleared ones up to then (what a dry run shows), never one of another account
    assert set(outcome.uncleared) == {
        s for s in found if s.account == account and s.date <= as_of and s.state == UNCLEARED
    }
    assert all(s.date <= as_of and s.account == account for s in (*outcome.marks, *outcome.uncleared))
    # And once marked, the cleared balance is unchanged and a second reconciliation marks nothing
    after = [
        s if s not in expected else Side(s.date, s.slip_id, s.role, s.account, s.effect, RECONCILED) for s in found
    ]
    assert cleared_balance(opening, after, account, as_of) == statement
    assert reconcile(opening, after, account, as_of, statement).marks == ()


@given(all_sides, st.sampled_from(ACCOUNTS), dates, st.integers(-(10**9), 10**9), st.integers(-(10**6), 10**6))
def test_the_adjustment_closes_the_difference_exactly(
    found: list[Side], account: str, as_of: str, opening: int, off: int
) -> None:
    # Given a statement that differs from the cleared balance by `off`
    statement = cleared_balance(opening, found, account, as_of) + off
    outcome = reconcile(opening, found, account, as_of, statement)
    assert outcome.difference == off and outcome.balances == (off == 0)
    # When the difference is booked as its adjustment (cleared, dated as of the reconciliation)
    adjust = adjustment(outcome.difference)
    if off == 0:
        assert adjust is None
        return
    assert adjust is not None and adjust.category == ADJUSTMENT_CATEGORY and adjust.amount == abs(off)
    booked = sides("adjust", as_of, adjust.kind, adjust.amount, account, cleared=CLEARED)
    # Then the reconciliation balances
    assert reconcile(opening, [*found, *booked], account, as_of, statement).balances


@given(st.integers(-(10**9), 10**9), st.integers(-(10**6), 10**6))
def test_an_assertion_holds_only_while_the_balance_is_what_it_asserted(balance: int, drift: int) -> None:
    assert holds(balance, balance)
    assert holds(balance, balance + drift) == (drift == 0)


@given(
    st.lists(slip_sides(), max_size=20, unique_by=slip_id).map(lambda g: sorted(s for x in g for s in x)),
    st.integers(1, 7),
)
def test_batches_cover_every_mark_once_in_order(marks: list[Side], size: int) -> None:
    out = list(batches(marks, size))
    assert [s for batch in out for s in batch] == marks
    assert all(1 <= len(batch) <= size for batch in out)


def test_a_named_category_and_a_ledger_with_more_than_the_statement() -> None:
    # Given the wallet counted at 500 less than the ledger has cleared
    adjust = adjustment(-500, "雑費")
    # Then the adjustment is an expense of 500 in the category given
    assert adjust is not None and (adjust.kind, adjust.amount, adjust.category) == ("expense", 500, "雑費")


SLIP = {"date": "2026-11-03", "kind": "transfer", "amount": 3000, "account": "bank", "to_account": "cash"}


@settings(deadline=None)
@given(
    field=st.sampled_from(["amount", "date", "kind", "account", "to_account", "memo"]),
    cleared=STATES,
    to_cleared=STATES,
)
def test_a_change_breaks_exactly_the_reconciled_sides_whose_summed_parts_it_moves(
    field: str, cleared: str, to_cleared: str
) -> None:
    # Given a transfer whose sides are in any states
    old = {**SLIP, "cleared": cleared, "to_cleared": to_cleared, "memo": "a"}
    changed = {"amount": 3001, "date": "2026-11-04", "kind": "expense", "account": "card", "to_account": "wallet"}
    new = {**old, field: changed.get(field, "b")}
    # When one field changes
    broken = broken_sides(old, new)
    # Then a reconciled side breaks when what it summed moves: the amount, the date, the kind, its own account
    moves = {
        "account": field in ("amount", "date", "kind", "account"),
        "to_account": field in ("amount", "date", "kind", "to_account"),
    }
    expected = tuple(r for r, s in (("account", cleared), ("to_account", to_cleared)) if s == RECONCILED and moves[r])
    assert broken == expected
    # And a delete breaks every reconciled side
    assert broken_sides(old, None) == tuple(
        r for r, s in (("account", cleared), ("to_account", to_cleared)) if s == RECONCILED
    )


def test_a_reconciled_side_asked_to_be_cleared_stays_whole_and_asked_uncleared_breaks() -> None:
    # Given a reconciled expense
    old = {**SLIP, "kind": "expense", "to_account": None, "cleared": RECONCILED}
    # When a change asks for it cleared, then nothing breaks; uncleared, then its side breaks
    assert broken_sides(old, {**old, "cleared": CLEARED}) == ()
    assert broken_sides(old, {**old, "cleared": UNCLEARED}) == ("account",)
    assert broken_sides(old, {**old, "cleared": None}) == ("account",)
