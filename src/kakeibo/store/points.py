"""Point lots: one item per points account, `LOTS#{account}`, with every earning, spend and posted
lapse of the account (`events`: slip id -> core.points' short text) and a `version`. Every slip write
that touches the account updates it (its changed events) in the slip's own transaction, conditioned on the version it
was planned from, so two writes can never plan the lots from the same state. While a lapse is to be
posted the item carries the due index keys (`{lapses_on}#{ledger}#lots:{account}`): the daily job
finds it without a scan. The only module that knows how lots are stored."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kakeibo.store.codec import Item
from kakeibo.store.keys import lots_sk
from kakeibo.store.recurrences import Clauses, due_keys, set_remove_clauses
from kakeibo.store.transactions import OnFail, StoreCore, TxOp


class PointOps:
    """The lots of points accounts."""

    def __init__(self, core: StoreCore) -> None:
        self.core = core

    def lots(self, ledger: str, account: str) -> Item | None:
        return self.core.get(ledger, lots_sk(account))

    def lots_op(
        self,
        ledger: str,
        account: str,
        events: Mapping[str, str],
        *,
        version: int | None,
        changed: Mapping[str, str | None],
        next_due: str | None,
        by: str,
        on_fail: OnFail,
        stored_due: str | None = None,
        stored_by: str | None = None,
        through: str | None = None,
        whole: bool = False,
    ) -> TxOp:
        """The account's lots at `version` + 1, if they are still at `version`: put whole when not stored
        yet (None), else only the events `changed` (None: gone) updated in place, and `next_due` (with
        the due index keys) and `by` only when they differ from what is stored (`stored_due`, `stored_by`).
        `whole`: put whole under the version (compacted: the events of slips dated before `through`
        folded out)."""
        due = due_keys(ledger, f"lots:{account}", next_due)
        if version is None or whole:
            item: dict[str, Any] = {
                "SK": lots_sk(account), "type": "lots", "account": account, "events": dict(events),
                "version": (version or 0) + 1, "by": by, "next_due": next_due,
                **({"through": through} if through else {}), **{k: v for k, v in due.items() if v is not None},
            }  # fmt: skip
            if version is None:
                return self.core.put_op(ledger, item, "attribute_not_exists(SK)", on_fail)
            return self.core.put_op(
                ledger, item, "#ver = :v", on_fail, names={"#ver": "version"}, values={":v": version}
            )
        head = Clauses(["#ver = :next"], names={"#ver": "version"}, values={":v": version, ":next": version + 1})
        if by != stored_by:
            head += Clauses(["#by = :by"], names={"#by": "by"}, values={":by": by})
        dues = {"next_due": next_due, **due} if next_due != stored_due else {}
        clauses = head + set_remove_clauses(changed, path="events", tag="e") + set_remove_clauses(dues, tag="d")
        return self.core.update_op(
            ledger,
            lots_sk(account),
            clauses.expression,
            on_fail,
            "#ver = :v",
            names=clauses.names,
            values=clauses.values,
        )
