"""The tags facet (§28): a slip's tags (their totals are rolled up with its balances)."""

from __future__ import annotations

from typing import Any

from kakeibo.models.slips import SlipIn
from kakeibo.services.facets.base import Facet
from kakeibo.store import Item


def stored(body: SlipIn) -> Item:
    return {"tags": list(body.tags)} if body.tags else {}


def view(item: Item) -> dict[str, Any]:
    return {"tags": list(item["tags"])} if item.get("tags") else {}


def entry(item: Item) -> dict[str, Any]:
    return {"tags": tuple(item.get("tags") or ())}


FACET = Facet("tags", stored=stored, view=view, entry=entry)
