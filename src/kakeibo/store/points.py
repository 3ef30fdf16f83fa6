"""Point lots: one item per points account, `LOTS#{account}`, with every earning, spend and posted
lapse of the account (`events`: slip id -> core.points' short text) and a `version`. Every slip write
that touches the account puts it again in the slip's own transaction, conditioned on the version it
was planned from, so two writes can never plan the lots from the same state. While a lapse is to be
posted the item carries the due index keys (`{lapses_on}#{ledger}#lots:{account}`): the daily job
finds it without a scan. The only module that knows how lots are stored."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kakeibo.store.codec import Item
from kakeibo.store.core import OnFail, TxOp
from kakeibo.store.keys import lots_sk
from kakeibo.store.recurrences import due_keys
from kakeibo.store.write import WriteOps


class PointOps(WriteOps):
    """The lots of points accounts."""

    def lots(self, ledger: str, account: str) -> Item | None:
        return self.get(ledger, lots_sk(account))

    def lots_op(
        self,
        ledger: str,
        account: str,
        events: Mapping[str, str],
        *,
        version: int | None,
        next_due: str | None,
        by: str,
        on_fail: OnFail,
    ) -> TxOp:
        """Put the account's lots at `version` + 1, if they are still at `version` (None: not stored
        yet); `next_due`: the day the next lapse is to be posted."""
        item: dict[str, Any] = {
            "SK": lots_sk(account),
            "type": "lots",
            "account": account,
            "events": dict(events),
            "version": (version or 0) + 1,
            "by": by,
            "next_due": next_due,
        }
        item.update({k: v for k, v in due_keys(ledger, f"lots:{account}", next_due).items() if v is not None})
        if version is None:
            return self.put_op(ledger, item, "attribute_not_exists(SK)", on_fail)
        return self.put_op(ledger, item, "#ver = :v", on_fail, names={"#ver": "version"}, values={":v": version})
