"""A ledger without transactions, for comparison: how a straightforward implementation does it.

Same item layout as ours. Each edit is separate calls: Put/Delete the slip; for every day total it
touches, re-query that day's slips, recompute the total and Put it; for every account, Get the
balance, add the change and Put the item back. Nothing is conditional, so concurrent writers
overwrite each other. (It keeps no month x category totals: less work than ours, never more.)

Each account Put also carries `naive_updates` + 1 (read with the balance): since a lost balance
update loses exactly one increment, `issued - naive_updates` counts the lost updates exactly.
"""

from __future__ import annotations

from typing import Any

from kakeibo.core import posting
from kakeibo.core.ids import new_slip_id
from kakeibo.core.posting import AccountItem, DayItem, Entry
from kakeibo.services.common import now_iso
from kakeibo.services.slips import entry_of
from kakeibo.store import Item, Store
from kakeibo.store.codec import to_ddb
from kakeibo.store.keys import account_sk, day_sk, pk, slip_sk


class NaiveLedger:
    def __init__(self, store: Store, ledger: str) -> None:
        self.store = store
        self.client = store.core.client
        self.ledger = ledger
        self.balance_updates = 0  # read-modify-writes issued

    def _put(self, item: Item) -> None:
        self.client.put_item(TableName=self.store.core.table, Item=to_ddb({"PK": pk(self.ledger), **item}))

    def _delete(self, sk: str) -> None:
        self.client.delete_item(TableName=self.store.core.table, Key=to_ddb({"PK": pk(self.ledger), "SK": sk}))

    def open_account(self, account: str, opening: int, type: str = "cash") -> None:
        stamp = now_iso()
        self._put(
            {
                "SK": account_sk(account),
                "id": account,
                "name": account.title(),
                "type": type,
                "opening_balance": opening,
                "balance": opening,
                "allow_negative": True,
                "archived": False,
                "version": 1,
                "naive_updates": 0,
                "created_at": stamp,
                "updated_at": stamp,
            }
        )

    def create(self, fields: dict[str, Any]) -> Item:
        slip_id, stamp = new_slip_id(), now_iso()
        item = {"SK": slip_sk(fields["date"], slip_id), "type": "slip", "id": slip_id, "no": 0, **fields}
        item.update(version=1, created_at=stamp, updated_at=stamp)
        self._put(item)
        self._settle(None, entry_of(item))
        return item

    def update(self, date: str, slip_id: str, changes: dict[str, Any]) -> Item:
        current = self.store.core.get(self.ledger, slip_sk(date, slip_id))
        if current is None:
            raise LookupError(f"slip {date}/{slip_id} not found")
        new = {**current, **changes, "version": int(current["version"]) + 1, "updated_at": now_iso()}
        new["SK"] = slip_sk(new["date"], slip_id)
        new.pop("PK", None)
        self._put(new)
        if new["SK"] != current["SK"]:
            self._delete(current["SK"])
        self._settle(entry_of(current), entry_of(new))
        return new

    def delete(self, date: str, slip_id: str) -> None:
        current = self.store.core.get(self.ledger, slip_sk(date, slip_id))
        if current is None:
            raise LookupError(f"slip {date}/{slip_id} not found")
        self._delete(current["SK"])
        self._settle(entry_of(current), None)

    def _settle(self, old: Entry | None, new: Entry | None) -> None:
        for change in posting.plan(old, new).changes:
            if isinstance(change.key, DayItem):
                self._recompute_day(change.key)
            elif isinstance(change.key, AccountItem):
                self._add_to_balance(change.key.account, change.deltas.get("balance", 0))

    def _recompute_day(self, key: DayItem) -> None:
        totals = {"delta": 0, "count": 0, "income": 0, "expense": 0}
        for slip in self.store.core.query(self.ledger, begins_with=f"SLIP#{key.date}#"):
            for name, value in posting.effects(entry_of(slip)).get(key, {}).items():
                totals[name] = totals.get(name, 0) + value  # transfers_in / _out on a transfer's day
        item = {"SK": day_sk(key.account, key.date), "type": "day", "account": key.account, "date": key.date}
        self._put({**item, **totals})

    def _add_to_balance(self, account: str, delta: int) -> None:
        if not delta:
            return
        self.balance_updates += 1
        item = self.store.core.get(self.ledger, account_sk(account), consistent=False)
        if item is None:
            raise LookupError(f"account {account} not found")
        item.pop("PK", None)
        item["balance"] = int(item["balance"]) + delta
        item["naive_updates"] = int(item.get("naive_updates", 0)) + 1
        self._put(item)
