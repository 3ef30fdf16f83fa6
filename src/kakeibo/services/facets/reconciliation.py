"""The reconciliation facet (§17): each side's state (cleared, reconciled) and what a change of a
reconciled side may do: a side summed by a reconciliation keeps its amount, date and account unless
the request unlocks it, and then that reconciliation no longer holds."""

from __future__ import annotations

from typing import Any

from kakeibo import errors
from kakeibo.core import reconcile, slip
from kakeibo.models.slips import CLEARED_STATES, SlipIn
from kakeibo.services.facets.base import Facet
from kakeibo.store import Item, Store, TxOp

STATES = slip.SIDE_STATES  # cleared, to_cleared: absent (or uncleared), not cleared
UNCLEARED = reconcile.UNCLEARED


def stored(body: SlipIn) -> Item:
    # absent, not "uncleared": slips written before look alike
    return {name: getattr(body, name) for name in STATES if getattr(body, name) not in (None, UNCLEARED)}


def view(item: Item) -> dict[str, Any]:
    return {
        "cleared": item.get("cleared") or UNCLEARED,
        "to_cleared": (item.get("to_cleared") or UNCLEARED) if item["kind"] == "transfer" else None,
    }


def is_reconciled(item: Item) -> bool:
    """Has a side of the slip been reconciled?"""
    return any(item.get(reconcile.side_fields(role)[1]) == reconcile.RECONCILED for role in ("account", "to_account"))


def check(current: Item, new: SlipIn | None) -> None:
    """409 `reconciled` when the change of `current` into `new` (None: its deletion) would break a
    reconciliation (what a change without ?unlock=true may not do)."""
    broken_sides(current, new, unlock=False)


def broken_sides(current: Item, new: SlipIn | None, *, unlock: bool) -> tuple[reconcile.Role, ...]:
    """The reconciled sides of `current` the change breaks (core/slip.broken_sides: amount, date,
    account, kind, state or a delete): 409 `reconciled` naming the reconciliation unless the request
    unlocks them."""
    broken = slip.broken_sides(current, None if new is None else slip.SlipValue.of_request(new.model_dump()))
    if broken and not unlock:
        by = current.get(reconcile.side_fields(broken[0])[2])
        raise errors.Reconciled(
            f"this slip was reconciled ({by}): its amount, date and account stay as summed; send "
            "?unlock=true to change it (the reconciliation then no longer holds)",
            reconciliation=by,
            account=current.get(reconcile.side_fields(broken[0])[0]),
        )
    return broken


def keep(current: Item, item: Item, broken: tuple[reconcile.Role, ...]) -> None:
    """The new item keeps each reconciled side the change leaves as summed; a broken one is cleared
    again (or as the request asked) and names no reconciliation (core/slip.kept_sides)."""
    for name, value in slip.kept_sides(current, item, broken).items():
        if value is None:
            item.pop(name, None)
        else:
            item[name] = value


def breaking(store: Store, ledger: str, current: Item, broken: tuple[reconcile.Role, ...]) -> tuple[TxOp, ...]:
    """What an unlocked change writes in its own transaction: each assertion it breaks no longer holds."""
    out = []
    for role in broken:
        account, _, by = reconcile.side_fields(role)
        # a side marked by a reconciliation that never finished names no stored assertion: none to break
        if (
            current.get(by)
            and store.reconciliations.reconciliation(ledger, str(current[account]), str(current[by])) is not None
        ):
            out.append(store.reconciliations.break_reconciliation_op(ledger, str(current[account]), str(current[by])))
    return tuple(out)


def entry(item: Item) -> dict[str, Any]:
    return {"cleared": item.get("cleared") in CLEARED_STATES, "to_cleared": item.get("to_cleared") in CLEARED_STATES}


FACET = Facet("reconciliation", stored=stored, view=view, entry=entry)
