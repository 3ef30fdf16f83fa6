"""Receipts: the item `RECEIPT#{sha256}` of a ledger, which is also the lock of its upload. The
only module that knows how a receipt is claimed, stored, referenced by slips and swept.

- A claim puts the item `pending` with a lease (epoch ms), only if it does not exist or is pending
  with an expired lease: one caller at a time holds the upload.
- `stored` once the object was checked; never back to pending.
- `refs` counts the slips it is on, kept in the slips' own transactions (`ref_op`), with the
  condition that it is stored; `slips` lists them.
- The sweep retires a receipt on no slip (`retired`: attaching it fails from then on), deletes
  its object, then its item.
- While it is on no slip it carries the due index keys (`DUE#{shard}`, `{expiry}#{ledger}#receipt:…`):
  the daily job finds receipts to sweep without a scan.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kakeibo import errors
from kakeibo.store.codec import Item
from kakeibo.store.keys import is_receipt_sk, receipt_sk
from kakeibo.store.recurrences import due_keys
from kakeibo.store.transactions import StoreCore, TxOp
from kakeibo.store.write import Bookkeeping, WriteOps

RETIRED = "retired"  # being swept: no slip may take it up, its object is about to go

__all__ = ["RETIRED", "Claimed", "ReceiptOps", "is_receipt_sk", "receipt_of", "receipt_sk"]


def receipt_of(name: str) -> str | None:
    """The SHA-256 of the receipt an item is, from the item's key (`name`); None for any other item."""
    return name.removeprefix(receipt_sk("")) if is_receipt_sk(name) else None


class Claimed(Exception):
    """The receipt exists and is not free to claim: the item as it is."""

    def __init__(self, item: Item | None) -> None:
        super().__init__("claimed")
        self.item = item


class ReceiptOps:
    def __init__(self, core: StoreCore, write: WriteOps) -> None:
        self.core = core
        self.write = write

    def read_receipt(self, ledger: str, sha256: str) -> Item | None:
        return self.core.get(ledger, receipt_sk(sha256))

    def claim_receipt(self, ctx: Bookkeeping, item: Item, *, now_ms: int, sweep_after: str) -> None:
        """Put the receipt pending under a fresh lease unless another caller holds a live one or it
        is stored (`Claimed`, with the item as it is). The holder of the live lease (the item's
        `created_by`) takes it afresh: a retry whose first answer was lost gets its upload again."""
        sha = item["id"]
        fields = {**item, "SK": receipt_sk(sha), **_due(ctx.ledger, sha, sweep_after)}

        def fail(old: Item | None) -> errors.ApiError:
            raise Claimed(old)

        op = self.core.put_op(
            ctx.ledger,
            {k: v for k, v in fields.items() if v is not None},
            "attribute_not_exists(SK) OR (#state = :pending AND (#lease < :now OR #by = :holder))",
            fail,
            names={"#state": "state", "#lease": "lease_until", "#by": "created_by"},
            values={":pending": "pending", ":now": now_ms, ":holder": item["created_by"]},
        )
        self.write.record(ctx, [op])

    def mark_stored(self, ctx: Bookkeeping, sha256: str, *, at: str) -> bool:
        """pending -> stored (True), or already stored (False)."""

        def fail(old: Item | None) -> errors.ApiError:
            if old is None:
                return errors.NotFound("receipt not found")
            raise NotMet

        op = self.core.update_op(
            ctx.ledger,
            receipt_sk(sha256),
            "SET #state = :stored, #at = :at REMOVE #lease",
            fail,
            "#state = :pending",
            names={"#state": "state", "#at": "stored_at", "#lease": "lease_until"},
            values={":stored": "stored", ":pending": "pending", ":at": at},
        )
        return self._applied(ctx, op)

    def ref_ops(
        self, ledger: str, added: Iterable[str], removed: Iterable[str], *, slip_id: str, sweep_after: str
    ) -> list[TxOp]:
        """A slip's change of receipts, for the slip's own transaction: each added one must be stored
        (else 404 / 422) and counts the slip; each removed one stops counting it and goes back to the
        due index, to be swept if no slip takes it up again."""
        ops = []
        for sha in added:

            def fail(old: Item | None, sha: str = sha) -> errors.ApiError:
                if old is None or old.get("state") == RETIRED:
                    return errors.NotFound(f"receipt '{sha}' not found")
                return errors.ValidationFailed(
                    f"receipt '{sha}' is not stored yet: complete its upload first", receipt=sha
                )

            ops.append(
                self.core.update_op(
                    ledger,
                    receipt_sk(sha),
                    "ADD #refs :one, #slips :slip REMOVE #dpk, #dsk",
                    fail,
                    "#state = :stored",
                    names={"#refs": "refs", "#slips": "slips", "#state": "state", "#dpk": "DuePK", "#dsk": "DueSK"},
                    values={":one": 1, ":slip": {slip_id}, ":stored": "stored"},
                )
            )
        for sha in removed:
            keys = _due(ledger, sha, sweep_after)

            def gone(old: Item | None, sha: str = sha) -> errors.ApiError:
                return errors.Conflict(f"receipt '{sha}' changed; retry")

            ops.append(
                self.core.update_op(
                    ledger,
                    receipt_sk(sha),
                    "ADD #refs :minus DELETE #slips :slip SET #dpk = :dpk, #dsk = :dsk",
                    gone,
                    "attribute_exists(SK)",
                    names={"#refs": "refs", "#slips": "slips", "#dpk": "DuePK", "#dsk": "DueSK"},
                    values={":minus": -1, ":slip": {slip_id}, ":dpk": keys["DuePK"], ":dsk": keys["DueSK"]},
                )
            )
        return ops

    def retire_receipt(self, ctx: Bookkeeping, sha256: str) -> bool:
        """Mark a receipt on no slip as being swept (True); False if a slip holds it (or it is gone)."""

        def fail(old: Item | None) -> errors.ApiError:
            raise NotMet

        op = self.core.update_op(
            ctx.ledger,
            receipt_sk(sha256),
            "SET #state = :retired",
            fail,
            "attribute_exists(SK) AND (attribute_not_exists(#refs) OR #refs = :zero)",
            names={"#state": "state", "#refs": "refs"},
            values={":retired": RETIRED, ":zero": 0},
        )
        return self._applied(ctx, op)

    def forget_receipt(self, ctx: Bookkeeping, sha256: str) -> bool:
        """Delete the receipt's item if it is still on no slip (True); its object is deleted first."""

        def fail(old: Item | None) -> errors.ApiError:
            raise NotMet  # taken up by a slip meanwhile (or gone)

        op = self.core.delete_op(
            ctx.ledger,
            receipt_sk(sha256),
            "attribute_exists(SK) AND (attribute_not_exists(#refs) OR #refs = :zero)",
            fail,
            names={"#refs": "refs"},
            values={":zero": 0},
        )
        return self._applied(ctx, op)

    def keep_receipt(self, ctx: Bookkeeping, sha256: str) -> None:
        """A receipt the sweep found on a slip: out of the due index until a slip lets it go."""
        op = self.core.update_op(
            ctx.ledger,
            receipt_sk(sha256),
            "REMOVE #dpk, #dsk",
            lambda old: errors.Conflict("the receipt changed"),
            "attribute_exists(SK)",
            names={"#dpk": "DuePK", "#dsk": "DueSK"},
        )
        self.write.record(ctx, [op])

    def _applied(self, ctx: Bookkeeping, op: TxOp) -> bool:
        """Record `op`; False if its condition was not met in a way that is an answer (NotMet)."""
        try:
            self.write.record(ctx, [op])
        except NotMet:
            return False
        return True


class NotMet(Exception):
    """The condition of a write that may rightly not apply (already stored, taken up by a slip)."""


def _due(ledger: str, sha256: str, when: str) -> dict[str, Any]:
    return due_keys(ledger, f"receipt:{sha256}", when)
