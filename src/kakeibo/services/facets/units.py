"""The units facet (§21): a slip's yen on an account in another unit, what a transfer between units
brought, when earned points expire, and the lot a lapse is of (kept through every change). Before a
slip is written it is priced in its accounts' units (services/units): a points slip's yen filled in,
what its item keeps of them, the units its transaction checks."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from kakeibo.models.slips import SlipIn
from kakeibo.services import units
from kakeibo.services.facets.base import Facet, Prepared, Writing
from kakeibo.store import Item, Store, WriteContext

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
    if item.get(units.RATED):  # shown, so the slip's journal view says it (an undone deletion keeps it)
        out[units.RATED] = True
    return out


def entry(item: Item) -> dict[str, Any]:
    return {name: None if item.get(name) is None else int(item[name]) for name in AMOUNTS}


def keep_rated(current: Item, item: Item) -> None:
    """A change of a slip whose yen was made at an earlier slip's rate (units.RATED) that keeps its
    amount and its yen: the new item keeps the mark (its yen gives no rate of its own). `current`: the
    slip as stored, or as its view shows it (which shows the mark under the same name)."""
    same_yen = (item["amount"], item.get("jpy_amount")) == (current["amount"], current.get("jpy_amount"))
    if current.get(units.RATED) and same_yen:
        item[units.RATED] = True


def prepare(store: Store, ctx: WriteContext, slip: Prepared, how: Writing) -> Prepared:
    price = units.priced(store, ctx.ledger, slip.body)
    return replace(
        slip, body=price.body, entry=price.body.entry(), stored={**slip.stored, **price.kept}, units=price.units
    )


FACET = Facet("units", stored=stored, view=view, entry=entry, kept=("lapse_of",), prepare=prepare)
