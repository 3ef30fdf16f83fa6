"""Accounts: listing, and creation under the ledger's account limit."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from kakeibo import errors
from kakeibo.store.cards import card_schedule
from kakeibo.store.codec import Item
from kakeibo.store.journal import Change
from kakeibo.store.keys import ACCOUNT_COUNT_SK, LEDGER_LOCK, account_id, account_sk
from kakeibo.store.locks import LockOps
from kakeibo.store.recurrences import sets_and_removes
from kakeibo.store.transactions import OnFail, StoreCore
from kakeibo.store.write import WriteContext, WriteOps

# The schedule a service gives with `billing`; the store adds the due index keys.
SCHEDULE = ("next_closing", "next_payment", "paid_through")  # with `last_error` cleared


class AccountOps:
    """The ledger's accounts."""

    def __init__(self, core: StoreCore, locks: LockOps, write: WriteOps) -> None:
        self.core = core
        self.locks = locks
        self.write = write

    def account(self, ledger: str, account: str) -> Item | None:
        """The account item `account` (a consistent read)."""
        return self.core.get(ledger, account_sk(account))

    def accounts(self, ledger: str) -> Iterator[Item]:
        """Every account item of the ledger, in id order."""
        return self.core.query(ledger, begins_with="ACCOUNT#")

    def account_ids(self, ledger: str) -> list[str]:
        """The ids of the ledger's accounts, in order (keys only)."""
        return [account_id(i["SK"]) for i in self.core.query(ledger, begins_with="ACCOUNT#", projection="SK")]

    def accounts_now(self, ledger: str) -> list[Item]:
        """Every account as one consistent snapshot (TransactGetItems): balances that add up."""
        return [i for i in self.core.transact_get(ledger, [account_sk(a) for a in self.account_ids(ledger)]) if i]

    def create_account(
        self, ctx: WriteContext, item: Item, *, counted: int, limit: int, changes: Sequence[Change]
    ) -> int:
        """One transaction: the account (a new id), the ledger's account count (under `limit`;
        started from `counted` on a ledger that has none yet), no rebuild holding the ledger, and
        the journal entry."""
        ledger = ctx.ledger
        account = item["id"]
        item = {"SK": account_sk(account), **item}
        if item.get("billing"):
            item = {**item, **card_schedule(ledger, account, **{k: item[k] for k in SCHEDULE})}
        item = {k: v for k, v in item.items() if v is not None}
        ops = [
            self.core.put_op(
                ledger,
                item,
                "attribute_not_exists(SK)",
                lambda old: errors.AlreadyExists(f"account '{account}' already exists", id=account),
            ),
            self.core.update_op(
                ledger,
                ACCOUNT_COUNT_SK,
                "SET #n = if_not_exists(#n, :counted) + :one",
                lambda old: errors.LimitReached(f"a ledger holds at most {limit} accounts", limit=limit),
                condition="attribute_not_exists(#n) OR #n < :limit",
                names={"#n": "value"},
                values={":counted": counted, ":one": 1, ":limit": limit},
            ),
            # never while a rebuild holds the ledger: slips on an account it has not fenced could interleave
            self.locks.lock_free_op(ledger, LEDGER_LOCK),
        ]
        return self.write.commit(ctx, ops, changes, at=item["created_at"])

    def change_account(
        self,
        ctx: WriteContext,
        account: str,
        sets: Mapping[str, Any],
        *,
        expected: int,
        on_fail: OnFail,
        changes: Sequence[Change],
        at: str,
        undoes: int | None = None,
    ) -> int:
        """SET an account's fields (REMOVE those that are None) and bump its `version`, only if it is
        at version `expected`. A change of billing moves the card in the due index."""
        fields = dict(sets)
        if "billing" in fields:
            fields.update(card_schedule(ctx.ledger, account, **{k: fields.pop(k) for k in SCHEDULE}))
        expression, names, values = sets_and_removes(fields)
        values.update({":expected": expected, ":one": 1})
        names["#ver"] = "version"
        op = self.core.update_op(
            ctx.ledger,
            account_sk(account),
            f"{expression} ADD #ver :one",
            on_fail,
            "attribute_exists(SK) AND #ver = :expected",
            names=names,
            values=values,
        )
        return self.write.commit(ctx, [op], changes, at=at, undoes=undoes)
