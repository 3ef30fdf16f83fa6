"""Credit cards' payment progress: which cycle the daily job pays next, on which day, and why the
last try failed. The only module that knows how a card is kept in the due index.

A card with billing carries `next_closing` / `next_payment` (the cycle to pay next and its day),
`paid_through` (the closing date of the last cycle whose payment was posted) and `last_error`, and
while it has a next payment the due index keys (`DUE#{shard}`, `{next_payment}#{ledger}#card:{id}`).
Runs change only the progress, never `version` (the ETag covers the definition); progress only
moves forward, and only for the billing it was computed from.
"""

from __future__ import annotations

from typing import Any

from kakeibo import errors
from kakeibo.store.codec import Item
from kakeibo.store.keys import account_sk, is_card_sk
from kakeibo.store.recurrences import ProgressConflict, due_keys, forward_only, sets_and_removes
from kakeibo.store.transactions import StoreCore
from kakeibo.store.write import Bookkeeping, WriteOps

PAYMENT_FIELDS = ("next_closing", "next_payment", "paid_through", "last_error")


def card_schedule(
    ledger: str, account: str, *, next_closing: str | None, next_payment: str | None, paid_through: str | None
) -> dict[str, Any]:
    """The fields that put a card's next payment in the due index (all None: billing removed)."""
    return {
        "next_closing": next_closing,
        "next_payment": next_payment,
        "paid_through": paid_through,
        "last_error": None,
        **due_keys(ledger, f"card:{account}", next_payment),
    }


__all__ = ["CardOps", "card_schedule", "is_card_sk"]


class CardOps:
    """What runs record of a card's payments."""

    def __init__(self, core: StoreCore, write: WriteOps) -> None:
        self.core = core
        self.write = write

    def record_card_progress(
        self,
        ctx: Bookkeeping,
        account: str,
        *,
        version: int,
        paid_through: str | None,
        next_closing: str,
        next_payment: str,
        last_error: str | None,
    ) -> None:
        """Save how far payments have got, for the card's definition at `version`, never moving
        backwards. ProgressConflict if the card changed, is gone or another run is further."""
        fields = {
            **card_schedule(
                ctx.ledger, account, next_closing=next_closing, next_payment=next_payment, paid_through=paid_through
            ),
            "last_error": last_error,
        }
        expression, names, values = sets_and_removes(fields)
        condition = forward_only(names, values, version=version, field="paid_through", value=paid_through)

        def fail(old: Item | None) -> errors.ApiError:
            raise ProgressConflict

        op = self.core.update_op(
            ctx.ledger, account_sk(account), expression, fail, condition, names=names, values=values
        )
        self.write.record(ctx, [op])
