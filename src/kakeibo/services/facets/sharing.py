"""The sharing facet (§14): who paid a shared ledger's slip and each member's share. What it stores
is the sharing the slip's write works out (services/settlements), with the check its transaction
makes; a slip shows it on the slips that say (absent on the others)."""

from __future__ import annotations

from typing import Any

from kakeibo.services.facets.base import Facet
from kakeibo.services.settlements import CUSTOM
from kakeibo.store import Item

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


FACET = Facet("sharing", view=view, entry=entry)
