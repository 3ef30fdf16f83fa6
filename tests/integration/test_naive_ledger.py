"""The bench's naive ledger (separate puts, day totals recomputed from the day's slips): with one
writer its items agree with its slips, a transfer's included (make bench's naive section deletes
transfers)."""

from __future__ import annotations

from bench.naive import NaiveLedger

from kakeibo.store import Store
from kakeibo.store.keys import day_sk


def test_a_transfer_is_created_and_deleted_with_its_day_items_recomputed(store: Store, user: str) -> None:
    # Given a naive ledger with cash and a bank account, and a transfer between them
    naive = NaiveLedger(store, user)
    naive.open_account("cash", 10_000)
    naive.open_account("bank", 50_000, type="bank")
    slip = naive.create({"date": "2026-11-03", "kind": "transfer", "amount": 3_000, "account": "bank",
                         "to_account": "cash"})  # fmt: skip
    # Then each account's day item holds the transfer's move, in and out
    bank = store.core.get(user, day_sk("bank", "2026-11-03"), consistent=True) or {}
    cash = store.core.get(user, day_sk("cash", "2026-11-03"), consistent=True) or {}
    assert (bank["delta"], bank["transfers_out"]) == (-3_000, 3_000)
    assert (cash["delta"], cash["transfers_in"]) == (3_000, 3_000)
    # When it is deleted
    naive.delete(slip["date"], slip["id"])
    # Then the day items are back to nothing moved and the balances to their openings
    bank = store.core.get(user, day_sk("bank", "2026-11-03"), consistent=True) or {}
    assert (bank["delta"], bank["count"], bank.get("transfers_out", 0)) == (0, 0, 0)
    assert store.core.get(user, "ACCOUNT#bank", consistent=True)["balance"] == 50_000  # type: ignore[index]
    assert store.core.get(user, "ACCOUNT#cash", consistent=True)["balance"] == 10_000  # type: ignore[index]
