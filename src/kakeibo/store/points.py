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
        changed: Mapping[str, str | None],
        next_due: str | None,
        by: str,
        on_fail: OnFail,
    ) -> TxOp:
        """The account's lots at `version` + 1, if they are still at `version`: put whole when not stored
        yet (None), else only the events `changed` (None: gone) updated in place."""
        due = due_keys(ledger, f"lots:{account}", next_due)
        if version is None:
            item: dict[str, Any] = {
                "SK": lots_sk(account), "type": "lots", "account": account, "events": dict(events), "version": 1,
                "by": by, "next_due": next_due, **{k: v for k, v in due.items() if v is not None},
            }  # fmt: skip
            return self.put_op(ledger, item, "attribute_not_exists(SK)", on_fail)
        names = {"#ev": "events", "#ver": "version", "#by": "by"}
        values: dict[str, Any] = {":v": version, ":next": version + 1, ":by": by}
        sets, removes = ["#ver = :next", "#by = :by"], []
        for n, (key, text) in enumerate(sorted(changed.items())):
            names[f"#k{n}"] = key
            if text is None:
                removes.append(f"#ev.#k{n}")
            else:
                values[f":e{n}"] = text
                sets.append(f"#ev.#k{n} = :e{n}")
        for n, (name, value) in enumerate({"next_due": next_due, **due}.items()):
            names[f"#d{n}"] = name
            if value is None:
                removes.append(f"#d{n}")
            else:
                values[f":d{n}"] = value
                sets.append(f"#d{n} = :d{n}")
        update = "SET " + ", ".join(sets) + (" REMOVE " + ", ".join(removes) if removes else "")
        return self.update_op(ledger, lots_sk(account), update, on_fail, "#ver = :v", names=names, values=values)
