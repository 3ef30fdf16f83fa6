"""The payees facet (§18): who a slip was paid to, as written and as rules compare it, and the text
an imported row's file wrote (kept through every change)."""

from __future__ import annotations

from typing import Any

from kakeibo.core import rules
from kakeibo.models.slips import SlipIn
from kakeibo.services.facets.base import Facet
from kakeibo.store import Item


def stored(body: SlipIn) -> Item:
    out: Item = {}
    if body.payee is not None:
        out["payee"] = body.payee
        out["payee_key"] = rules.normalise(body.payee)  # what ?payee= compares with
    imported_payee = getattr(body, "imported_payee", None)  # an import row's: the file's own text
    if imported_payee is not None:
        out["imported_payee"] = imported_payee
    return out


def view(item: Item) -> dict[str, Any]:
    return {name: item[name] for name in ("payee", "imported_payee") if item.get(name)}


FACET = Facet("payees", stored=stored, view=view, kept=("imported_payee",))
