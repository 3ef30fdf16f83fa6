"""A slip's facets (§30), in the order the write path runs them: each capability that adds to a
slip is one module here (`base.Facet` says what a facet is). A slip about to be written is what
each facet prepares of its request; its stored item, its core and what each facet stores; its view,
its core's and what each shows; a change's transaction, the slip's own items and what each facet
writes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kakeibo.models.slips import SlipIn
from kakeibo.services.facets import payees, points, receipts, reconciliation, sharing, tags, tax, units
from kakeibo.services.facets.base import Facet, Prepared, Writing
from kakeibo.store import Item, Store, TxOp, WriteContext

FACETS: tuple[Facet, ...] = (
    receipts.FACET,
    units.FACET,  # before sharing: the shares are of the slip as priced
    sharing.FACET,
    reconciliation.FACET,
    tax.FACET,
    payees.FACET,
    tags.FACET,
    points.FACET,
)


def prepare(store: Store, ctx: WriteContext, body: SlipIn, how: Writing | None = None) -> Prepared:
    """The slip the request `body` describes as its facets make it before it is written, each in turn."""
    slip, how = Prepared.of(body), how or Writing()
    for facet in FACETS:
        if facet.prepare is not None:
            slip = facet.prepare(store, ctx, slip, how)
    return slip


def stored(body: SlipIn) -> Item:
    """What the facets add to the stored item of a slip the request `body` describes."""
    out: Item = {}
    for facet in FACETS:
        out.update(facet.stored(body))
    return out


def view(item: Item) -> dict[str, Any]:
    """What the facets show of the stored slip `item`."""
    out: dict[str, Any] = {}
    for facet in FACETS:
        out.update(facet.view(item))
    return out


def entry(item: Item) -> dict[str, Any]:
    """What the facets add to the `Entry` of the stored slip `item`."""
    out: dict[str, Any] = {}
    for facet in FACETS:
        out.update(facet.entry(item))
    return out


KEPT = tuple(name for facet in FACETS for name in facet.kept)  # what every change keeps, by facet


def writes(store: Store, ctx: WriteContext, before: Sequence[Item], after: Sequence[Item]) -> tuple[TxOp, ...]:
    """What the facets put in the transaction that changes the slips `before` (as read) into `after`
    (as written): a create has no `before`, a delete no `after`."""
    return tuple(op for facet in FACETS if facet.writes is not None for op in facet.writes(store, ctx, before, after))


__all__ = ["FACETS", "KEPT", "Prepared", "Writing", "entry", "prepare", "stored", "view", "writes"]
