"""Pure rules of reconciliation (照合): what the statement's balance says about an account's
cleared slips, which sides a reconciliation marks, the adjustment that closes a difference, and
whether an assertion still holds.

No boto3, no HTTP. A slip has one side per account it moves (a transfer two), each with its own
state: uncleared, cleared (the bank, the card or the counted wallet has it) or reconciled (a
reconciliation has summed it). The opening balance counts as cleared.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

State = Literal["uncleared", "cleared", "reconciled"]
Role = Literal["account", "to_account"]
UNCLEARED: State = "uncleared"
CLEARED: State = "cleared"
RECONCILED: State = "reconciled"
T = TypeVar("T")
ADJUSTMENT_CATEGORY = "使途不明金"  # what a household books a wallet's unexplained difference as


@dataclass(frozen=True, slots=True, order=True)
class Side:
    """One account's side of a slip: its signed effect on that account and its state."""

    date: str  # YYYY-MM-DD
    slip_id: str
    role: Role  # which of the slip's accounts: `account` (state in `cleared`) or `to_account` (`to_cleared`)
    account: str
    effect: int  # signed: money in > 0, money out < 0
    state: State

    @property
    def counts_cleared(self) -> bool:
        return self.state != UNCLEARED

    @property
    def field(self) -> str:
        """The slip's field that holds this side's state."""
        return "cleared" if self.role == "account" else "to_cleared"


def sides(
    slip_id: str,
    date: str,
    kind: str,
    amount: int,
    account: str,
    *,
    to_account: str | None = None,
    cleared: State = UNCLEARED,
    to_cleared: State = UNCLEARED,
) -> tuple[Side, ...]:
    """A slip's sides: a transfer's money leaves `account` and reaches `to_account`."""
    if kind == "transfer":
        if to_account is None:
            raise ValueError("a transfer needs to_account")
        return (
            Side(date, slip_id, "account", account, -amount, cleared),
            Side(date, slip_id, "to_account", to_account, amount, to_cleared),
        )
    return (Side(date, slip_id, "account", account, -amount if kind == "expense" else amount, cleared),)


def cleared_balance(opening: int, found: Iterable[Side], account: str, as_of: str) -> int:
    """The opening balance plus the account's cleared and reconciled sides dated <= as_of."""
    return opening + sum(s.effect for s in found if s.account == account and s.date <= as_of and s.counts_cleared)


def difference(statement: int, cleared: int) -> int:
    """What the statement says less what the ledger has cleared: > 0, the ledger is short."""
    return statement - cleared


@dataclass(frozen=True, slots=True)
class Outcome:
    """What reconciling an account as of a date does: the sides that become reconciled (cleared
    sides of the account dated <= date; reconciled ones stay as they are), the sides still
    uncleared there (what a dry run lists), and the difference left."""

    marks: tuple[Side, ...]
    uncleared: tuple[Side, ...]
    difference: int

    @property
    def balances(self) -> bool:
        return self.difference == 0

    @property
    def reconciled(self) -> int:
        return len(self.marks)


def reconcile(opening: int, found: Iterable[Side], account: str, as_of: str, statement: int) -> Outcome:
    """The outcome of asserting that `account` holds `statement` at the end of `as_of`."""
    mine = sorted(s for s in found if s.account == account and s.date <= as_of)
    marks = tuple(s for s in mine if s.state == CLEARED)
    uncleared = tuple(s for s in mine if s.state == UNCLEARED)
    return Outcome(marks, uncleared, difference(statement, cleared_balance(opening, mine, account, as_of)))


@dataclass(frozen=True, slots=True)
class Adjustment:
    """The slip that closes a difference: income when the ledger is short, an expense when it has
    more than the statement; always cleared (the statement is its evidence)."""

    kind: Literal["income", "expense"]
    amount: int
    category: str


def adjustment(diff: int, category: str | None = None) -> Adjustment | None:
    if diff == 0:
        return None
    return Adjustment("income" if diff > 0 else "expense", abs(diff), category or ADJUSTMENT_CATEGORY)


def holds(statement: int, balance_as_of: int) -> bool:
    """An assertion holds while the account's balance as of its date is still what it asserted."""
    return statement == balance_as_of


def batches(marks: Sequence[T], size: int) -> Iterator[tuple[T, ...]]:
    """The sides to mark in batches of at most `size`, in (date, slip) order: a reconciliation
    writes them batch by batch, then its assertion; a resumed one skips what is reconciled."""
    if size < 1:
        raise ValueError("a batch holds at least one side")
    for start in range(0, len(marks), size):
        yield tuple(marks[start : start + size])


def side_fields(role: Role) -> tuple[str, str, str]:
    """The slip's fields of a side: its account, its state and the reconciliation that summed it."""
    if role == "account":
        return "account", "cleared", "reconciled_by"
    return "to_account", "to_cleared", "to_reconciled_by"


def broken_sides(old: Mapping[str, Any], new: Mapping[str, Any] | None) -> tuple[Role, ...]:
    """The reconciled sides of slip `old` that `new` (None: the slip deleted) would change: its
    amount, its date, its kind, that side's account, or that side's state (uncleared again). A
    reconciled side asked to be `cleared` stays reconciled: nothing the statement summed moves."""
    out: list[Role] = []
    for role in ("account", "to_account"):
        account, state, _ = side_fields(role)
        if old.get(state) != RECONCILED:
            continue
        if (
            new is None
            or new.get("amount") != old.get("amount")
            or new.get("date") != old.get("date")
            or new.get("kind") != old.get("kind")
            or new.get(account) != old.get(account)
            or new.get(state) not in (CLEARED, RECONCILED)
        ):
            out.append(role)
    return tuple(out)
