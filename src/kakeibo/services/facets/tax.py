"""The tax facet (§20): a slip's medical payment (医療費控除) and its donation (ふるさと納税)."""

from __future__ import annotations

from typing import Any

from kakeibo.core.tax import donation_view, medical_view, slip_tax_fields
from kakeibo.models.slips import SlipIn
from kakeibo.services.facets.base import Facet
from kakeibo.store import Item

FIELDS = ("medical", "donation")


def stored(body: SlipIn) -> Item:
    out: Item = {}
    if body.medical is not None:
        out["medical"] = body.medical.model_dump()
    if body.donation is not None:
        out["donation"] = body.donation.model_dump()
    return out


def view(item: Item) -> dict[str, Any]:
    """A slip's medical payment and donation, on the slips that have them (absent on the others)."""
    out: dict[str, Any] = {}
    if item.get("medical"):
        out["medical"] = medical_view(item["medical"])
    if item.get("donation"):
        out["donation"] = donation_view(item["donation"])
    return out


def entry(item: Item) -> dict[str, Any]:
    """What the slip (or its lines) adds to its year's tax item (core.tax)."""
    lines = item.get("lines") or ()
    if not (item.get("medical") or item.get("donation") or any(line.get("medical") for line in lines)):
        return {}
    return {
        "tax": slip_tax_fields(
            int(item["amount"]),
            item.get("medical"),
            ((int(line["amount"]), line.get("medical")) for line in lines),
            item.get("donation"),
            None if item.get("jpy_amount") is None else int(item["jpy_amount"]),
        )
    }


FACET = Facet("tax", stored=stored, view=view, entry=entry)
