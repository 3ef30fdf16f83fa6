"""The units facet (§21): a slip's yen on an account in another unit, what a transfer between units
brought, when earned points expire, and the lot a lapse is of (kept through every change)."""

from __future__ import annotations

from typing import Any

from kakeibo.models.slips import SlipIn
from kakeibo.services.facets.base import Facet
from kakeibo.store import Item

AMOUNTS = ("jpy_amount", "to_amount")
MARKS = ("expires_on", "lapse_of")


def stored(body: SlipIn) -> Item:
    out: Item = {name: getattr(body, name) for name in (*AMOUNTS, "expires_on") if getattr(body, name) is not None}
    lapse_of = getattr(body, "lapse_of", None)  # a lapse the daily job posts: the lot it is of
    if lapse_of is not None:
        out["lapse_of"] = lapse_of
    return out


def view(item: Item) -> dict[str, Any]:
    out: dict[str, Any] = {name: int(item[name]) for name in AMOUNTS if item.get(name) is not None}
    out.update({name: item[name] for name in MARKS if item.get(name)})
    return out


def entry(item: Item) -> dict[str, Any]:
    return {name: None if item.get(name) is None else int(item[name]) for name in AMOUNTS}


FACET = Facet("units", stored=stored, view=view, entry=entry, kept=("lapse_of",))
