"""The sharing facet (§14): who paid a shared ledger's slip and each member's share. What it stores
is the sharing the slip's write works out (services/settlements), with the check its transaction
makes; a slip shows it on the slips that say (absent on the others)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from kakeibo.services import settlements
from kakeibo.services.facets.base import Facet, Prepared, Writing
from kakeibo.services.settlements import CUSTOM
from kakeibo.store import Item, Store, WriteContext

FIELDS = ("paid_by", "shares", "shares_mode")


def view(item: Item) -> dict[str, Any]:
    if not item.get("paid_by"):
        return {}
    shares = {str(user): int(amount) for user, amount in sorted(item.get("shares", {}).items())}
    return {"paid_by": item["paid_by"], "shares": shares, "shares_mode": item.get("shares_mode", CUSTOM)}


def entry(item: Item) -> dict[str, Any]:
    paid_by = item.get("paid_by") or None
    shares = tuple(sorted((str(u), int(a)) for u, a in (item.get("shares") or {}).items() if int(a))) if paid_by else ()
    return {"paid_by": paid_by, "shares": shares}


def prepare(store: Store, ctx: WriteContext, slip: Prepared, how: Writing) -> Prepared:
    """Who paid and the shares resolved among the ledger's members now (services/settlements), with
    the check that keeps them members when the transaction commits."""
    shared = settlements.sharing(store, ctx, slip.body, mode=how.shares_mode, kept=how.current, reshare=how.reshare)
    if shared is None:
        return slip
    return replace(
        slip,
        entry=shared.apply(slip.entry),
        stored={**slip.stored, **shared.fields()},
        checks=(*slip.checks, shared.check),
    )


FACET = Facet("sharing", view=view, entry=entry, prepare=prepare)
