"""The points facet: the lots of the points accounts a slip earns into or spends from (§21)."""

from __future__ import annotations

from kakeibo.services import points
from kakeibo.services.facets.base import Facet

FACET = Facet("points", writes=points.lot_ops)
