"""What a facet is: one capability's part of a slip, as a value of functions (§30).

A slip is its core (date, kind, amount, accounts, category, memo, lines) and the facets that add to
it. A facet says, each as a function over plain values:

- `stored`: the fields it adds to the slip's stored item, from the request's body (absent, not
  null, on the slips without: they look as before the capability);
- `view`: what it shows of a stored slip in the API's answer (absent on the slips without);
- `entry`: what it adds to the slip's `Entry` (core/posting: what moves money, counts and totals);
- `kept`: the stored fields a slip keeps through every change, whatever a request says;
- `writes`: what a change of slips (as read, as written) puts in the same transaction besides the
  slip, its identity and its balances (None: nothing);
- `prepare`: what it makes of a slip about to be written, before its item is made (None: nothing):
  the body as written (units: a points slip's yen filled in), its entry (sharing: who paid and the
  shares), what the item stores of it, what the transaction checks, the units its balances check.

The write path runs the facets in the order `kakeibo.services.facets.FACETS` gives; a new
capability is a new facet there, not a branch in the path.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from kakeibo.core.posting import Entry, Plan
from kakeibo.models.slips import SlipIn
from kakeibo.store import Item, Store, TxOp, WriteContext

Writes = Callable[[Store, WriteContext, Sequence[Item], Sequence[Item]], tuple[TxOp, ...]]


@dataclass(frozen=True)
class Writing:
    """How a slip is being written, as its facets' `prepare` needs to know: the slip as stored when
    it is being changed (None: created or restored), the shares' mode a restored slip had, and
    whether the request itself sends its shares (else "equal" stays among the slip's own sharers)."""

    current: Item | None = None
    shares_mode: str | None = None
    reshare: bool = True


@dataclass(frozen=True)
class Prepared:
    """A slip about to be written as its facets made it: the body as written, the entry it posts,
    what its item stores of them, what its transaction checks and the units its balances check."""

    body: SlipIn
    entry: Entry
    stored: Item = field(default_factory=dict)
    checks: tuple[TxOp, ...] = ()
    units: tuple[tuple[str, str, int], ...] = ()

    @classmethod
    def of(cls, body: SlipIn) -> Prepared:
        """The slip as its request says it, before any facet prepared it."""
        return cls(body, body.entry())

    def guard(self, plan: Plan) -> Plan:
        """The balance plan of the slip's change, checking the units the slip was written in."""
        return replace(plan, units=self.units)


Prepare = Callable[[Store, WriteContext, Prepared, Writing], Prepared]


def _nothing_stored(body: SlipIn) -> Item:
    return {}


def _nothing_shown(item: Item) -> dict[str, Any]:
    return {}


def _nothing_entered(item: Item) -> dict[str, Any]:
    return {}


@dataclass(frozen=True)
class Facet:
    name: str
    stored: Callable[[SlipIn], Item] = _nothing_stored
    view: Callable[[Item], dict[str, Any]] = _nothing_shown
    entry: Callable[[Item], dict[str, Any]] = _nothing_entered
    kept: tuple[str, ...] = ()
    writes: Writes | None = None
    prepare: Prepare | None = None


def paired(before: Sequence[Item], after: Sequence[Item]) -> list[tuple[Item | None, Item | None]]:
    """The slips of a change side by side by id: (as read, as written), None where there is none."""
    old = {str(item["id"]): item for item in before}
    new = {str(item["id"]): item for item in after}
    return [(old.get(slip_id), new.get(slip_id)) for slip_id in sorted(old.keys() | new.keys())]
