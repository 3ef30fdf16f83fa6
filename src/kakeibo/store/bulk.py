"""Bulk edits of slips (§28): the record of how far one got, written in each batch's own transaction.

`BULK#{id}` holds the batches committed so far (`n`), their journal entries (`entries`, in order) and
the slips each changed (`changed`: id, date, version, seq). A batch's transaction updates it on the
condition that no other batch was recorded since it was read (`n = :seen`), so a bulk edit resent
with its Idempotency-Key carries on from what is recorded and never applies a slip twice, however
its runs interleave.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kakeibo import errors
from kakeibo.store.codec import Item
from kakeibo.store.keys import bulk_sk
from kakeibo.store.transactions import StoreCore, TxOp

NAMES = {"#n": "n", "#type": "type", "#at": "created_at", "#entries": "entries", "#changed": "changed"}


class BulkMoved(errors.ReadAgain):
    """Another run of the same bulk edit recorded a batch first: read the record again."""


class BulkOps:
    def __init__(self, core: StoreCore) -> None:
        self.core = core

    def bulk_record(self, ledger: str, bulk_id: str) -> Item | None:
        return self.core.get(ledger, bulk_sk(bulk_id))

    def bulk_progress(
        self, ledger: str, bulk_id: str, *, seen: int, rows: Sequence[Mapping[str, Any]], at: str
    ) -> Callable[[int], list[TxOp]]:
        """What a batch adds to its transaction, given its entry's seq: the record moved on from `seen`
        batches, with the entry and the slips it changed (`rows`, each given the seq)."""

        def ops(seq: int) -> list[TxOp]:
            condition = "attribute_not_exists(#n)" if seen == 0 else "#n = :seen"
            values: dict[str, Any] = {
                ":next": seen + 1,
                ":seq": [seq],
                ":rows": [{**row, "seq": seq} for row in rows],
                ":none": [],
                ":type": "bulk",
                ":at": at,
            }
            if seen:
                values[":seen"] = seen
            return [
                self.core.update_op(
                    ledger,
                    bulk_sk(bulk_id),
                    "SET #n = :next, #type = :type, #at = if_not_exists(#at, :at),"
                    " #entries = list_append(if_not_exists(#entries, :none), :seq),"
                    " #changed = list_append(if_not_exists(#changed, :none), :rows)",
                    lambda item: BulkMoved(),
                    condition,
                    names=NAMES,
                    values=values,
                )
            ]

        return ops


__all__ = ["BulkMoved", "BulkOps"]
