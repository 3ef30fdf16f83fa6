"""The receipts facet: the pictures a slip names (stored once on S3, §11), and their counts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kakeibo.models.slips import SlipIn
from kakeibo.services.facets.base import Facet, paired
from kakeibo.settings import utc_now
from kakeibo.store import Item, Store, TxOp, WriteContext


def stored(body: SlipIn) -> Item:
    return {"receipts": list(body.receipts)} if body.receipts else {}


def view(item: Item) -> dict[str, Any]:
    return {"receipts": sorted(item.get("receipts") or [])}


def ops(store: Store, ledger: str, slip_id: str, old: Item | None, new: Item | None) -> tuple[TxOp, ...]:
    """What a slip's change of receipts writes in its own transaction: each newly attached one must
    be stored and counts the slip, each let go stops counting it (services/receipts)."""
    before, after = set((old or {}).get("receipts") or []), set((new or {}).get("receipts") or [])
    if before == after:
        return ()
    from kakeibo.services.receipts import sweep_day  # noqa: PLC0415 - only a change of receipts loads them

    later = sweep_day(utc_now())
    return tuple(
        store.receipts.ref_ops(
            ledger, sorted(after - before), sorted(before - after), slip_id=slip_id, sweep_after=later
        )
    )


def writes(store: Store, ctx: WriteContext, before: Sequence[Item], after: Sequence[Item]) -> tuple[TxOp, ...]:
    return tuple(
        op
        for old, new in paired(before, after)
        for op in ops(store, ctx.ledger, str((old or new or {})["id"]), old, new)
    )


FACET = Facet("receipts", stored=stored, view=view, writes=writes)
