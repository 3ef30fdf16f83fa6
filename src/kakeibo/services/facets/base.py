"""What a facet is: one capability's part of a slip, as a value of functions (§30).

A slip is its core (date, kind, amount, accounts, category, memo, lines) and the facets that add to
it. A facet says, each as a function over plain values:

- `stored`: the fields it adds to the slip's stored item, from the request's body (absent, not
  null, on the slips without: they look as before the capability);
- `view`: what it shows of a stored slip in the API's answer (absent on the slips without);
- `entry`: what it adds to the slip's `Entry` (core/posting: what moves money, counts and totals);
- `kept`: the stored fields a slip keeps through every change, whatever a request says;
- `writes`: what a change of slips (as read, as written) puts in the same transaction besides the
  slip, its identity and its balances (None: nothing).

The write path runs the facets in the order `kakeibo.services.facets.FACETS` gives; a new
capability is a new facet there, not a branch in the path.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from kakeibo.models.slips import SlipIn
from kakeibo.store import Item, Store, TxOp, WriteContext

Writes = Callable[[Store, WriteContext, Sequence[Item], Sequence[Item]], tuple[TxOp, ...]]


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


def paired(before: Sequence[Item], after: Sequence[Item]) -> list[tuple[Item | None, Item | None]]:
    """The slips of a change side by side by id: (as read, as written), None where there is none."""
    old = {str(item["id"]): item for item in before}
    new = {str(item["id"]): item for item in after}
    return [(old.get(slip_id), new.get(slip_id)) for slip_id in sorted(old.keys() | new.keys())]
