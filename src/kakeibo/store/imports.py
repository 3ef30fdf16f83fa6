"""CSV imports: the slip ids already used, and the IMPORT# record of each file."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kakeibo import errors
from kakeibo.store.codec import Item
from kakeibo.store.keys import identity_sk, import_sk, slip_sk
from kakeibo.store.transactions import StoreCore
from kakeibo.store.write import Bookkeeping, WriteContext, WriteOps


class ImportOps:
    """Import bookkeeping."""

    def __init__(self, core: StoreCore, write: WriteOps) -> None:
        self.core = core
        self.write = write

    def used_slip_ids(self, ledger: str) -> set[str]:
        """Every slip id the ledger ever used: identities (live or deleted), and the ROW# marks that
        recorded imported rows before slips had identities."""
        used = {i["SK"].removeprefix("ID#") for i in self.core.query(ledger, begins_with="ID#", projection="SK")}
        return used | {
            i["SK"].removeprefix("ROW#") for i in self.core.query(ledger, begins_with="ROW#", projection="SK")
        }

    def ids_taken(self, ledger: str, slips: Sequence[tuple[str, str]]) -> set[str]:
        """The slip ids among `slips` (date, slip id) already used (an identity) or taken by an older
        slip at that date: one consistent read of them all (TransactGetItems)."""
        keys = [k for date, slip_id in slips for k in (identity_sk(slip_id), slip_sk(date, slip_id))]
        found = self.core.transact_get(ledger, keys)
        return {
            slip_id for i, (_, slip_id) in enumerate(slips) if found[2 * i] is not None or found[2 * i + 1] is not None
        }

    def import_started(
        self, ctx: WriteContext | Bookkeeping, import_id: str, *, rows: int, encoding: str, now: str
    ) -> None:
        self._bookkeep(
            ctx,
            import_sk(import_id),
            "SET #type = :type, #id = :id, #status = :running, #rows = :rows, #enc = :enc, #upd = :now,"
            " #crt = if_not_exists(#crt, :now) ADD #runs :one",
            names={
                "#type": "type",
                "#id": "import_id",
                "#status": "status",
                "#rows": "rows",
                "#enc": "encoding",
                "#upd": "updated_at",
                "#crt": "created_at",
                "#runs": "runs",
            },
            values={
                ":type": "import",
                ":id": import_id,
                ":running": "running",
                ":rows": rows,
                ":enc": encoding,
                ":now": now,
                ":one": 1,
            },
        )

    def import_finished(
        self,
        ctx: WriteContext | Bookkeeping,
        import_id: str,
        *,
        status: str,
        skipped: int,
        failed: int,
        pending: int,
        errors: list[dict[str, Any]],
        now: str,
    ) -> None:
        """The outcome of a run (its `created` count is ADDed by each batch's transaction)."""
        self._bookkeep(
            ctx,
            import_sk(import_id),
            "SET #status = :status, #skipped = :skipped, #failed = :failed, #pending = :pending,"
            " #errors = :errors, #upd = :now",
            names={
                "#status": "status",
                "#skipped": "skipped",
                "#failed": "failed",
                "#pending": "pending",
                "#errors": "errors",
                "#upd": "updated_at",
            },
            values={
                ":status": status,
                ":skipped": skipped,
                ":failed": failed,
                ":pending": pending,
                ":errors": errors,
                ":now": now,
            },
        )

    def get_import(self, ledger: str, import_id: str) -> Item | None:
        return self.core.get(ledger, import_sk(import_id))

    def _bookkeep(
        self,
        ctx: WriteContext | Bookkeeping,
        sk: str,
        expression: str,
        *,
        names: dict[str, str],
        values: dict[str, Any],
    ) -> None:
        self.write.record(
            ctx, [self.core.update_op(ctx.ledger, sk, expression, _unrecorded, names=names, values=values)]
        )


def _unrecorded(current: Item | None) -> errors.ApiError:
    return errors.Conflict("the import could not be recorded")
