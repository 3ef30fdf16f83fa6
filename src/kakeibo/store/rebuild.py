"""A ledger rebuild's writes: the marks that fence slip changes, absolute rewrites of balance
items, and the identity items of slips from before identities."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from kakeibo import errors
from kakeibo.core.posting import AccountItem, CategoryMonthItem, ItemKey, NetsItem, SubcategoryMonthItem
from kakeibo.store.balances import (
    FENCE_NAMES,
    REBUILD_MARK,
    ROLLUPS_MARK,
    SUBCATEGORY_NAMES,
    SUBCATEGORY_SETS,
    identity_sets,
    subcategory_values,
)
from kakeibo.store.codec import Item, to_ddb
from kakeibo.store.keys import (
    LEDGER_LOCK,
    SETTLEMENT_PREFIX,
    SLIP_PREFIX,
    SLIP_SEQ_SK,
    account_sk,
    derived_key,
    derived_sk,
    identity_sk,
    is_index_sk,
    is_legacy_index_sk,
    is_lots_sk,
    item_entries,
    pk,
)
from kakeibo.store.locks import Lease, LockOps
from kakeibo.store.slip_index import CLEARED_INDEXED, INDEX_FORMAT, INDEXED
from kakeibo.store.transactions import StoreCore, TxOp

# What an item of a ledger is, as a verify reads the ledger (`LedgerItem.kind`)
SLIP, IDENTITY, IMPORT_ROW, INDEX, LEGACY_INDEX = "slip", "identity", "import_row", "index", "legacy"
COUNTER, LOTS, SETTLEMENT, BALANCE, OTHER = "counter", "lots", "settlement", "balance", "other"
IMPORT_ROW_PREFIX = "ROW#"  # an imported row's mark, from before slips had identities


@dataclass(frozen=True)
class LedgerItem:
    """An item of a ledger as a verify reads it: what it is, its name (as a verify reports it), the
    slip an identity is of, the balance item it is, or the index entries it holds (latest first)."""

    kind: str
    item: Item
    name: str
    slip_id: str | None = None
    key: ItemKey | None = None
    entries: tuple[str, ...] = ()


def ledger_item(item: Item) -> LedgerItem:
    """What a stored item of a ledger is (`kind`), from its key."""
    sk: str = item["SK"]
    if sk.startswith(SLIP_PREFIX):
        return LedgerItem(SLIP, item, sk)
    if sk.startswith(identity_sk("")):
        return LedgerItem(IDENTITY, item, sk, slip_id=sk.removeprefix(identity_sk("")))
    if sk.startswith(IMPORT_ROW_PREFIX):
        return LedgerItem(IMPORT_ROW, item, sk)
    if is_index_sk(sk):
        return LedgerItem(INDEX, item, sk, entries=tuple(item_entries(item)))
    if is_legacy_index_sk(sk):
        return LedgerItem(LEGACY_INDEX, item, sk)
    if sk == SLIP_SEQ_SK:
        return LedgerItem(COUNTER, item, sk)
    if is_lots_sk(sk):
        return LedgerItem(LOTS, item, sk)
    if sk.startswith(SETTLEMENT_PREFIX):
        return LedgerItem(SETTLEMENT, item, sk)
    key = derived_key(sk)
    return LedgerItem(OTHER, item, sk) if key is None else LedgerItem(BALANCE, item, sk, key=key)


class RebuildOps:
    """Writes made under the ledger lock."""

    def __init__(self, core: StoreCore, locks: LockOps) -> None:
        self.core = core
        self.locks = locks

    def read_ledger(self, ledger: str) -> Iterator[LedgerItem]:
        """Every item of the ledger (one consistent query of its partition), each as what it is."""
        return (ledger_item(item) for item in self.core.query(ledger))

    def hold_ledger(self, ledger: str, ttl: float) -> Lease:
        """The ledger's lock, which a rebuild holds: no slip or account changes meanwhile."""
        return self.locks.acquire_lock(ledger, LEDGER_LOCK, ttl=ttl)

    def mark_op(self, lease: Lease, account: str) -> TxOp:
        """Mark an account as being rebuilt under `lease`: slip changes on it fail (Locked)."""
        return self.core.update_op(
            lease.ledger,
            account_sk(account),
            "SET #rb = :token, #rbx = :exp",
            lambda item: errors.Conflict(f"account '{account}' disappeared during the rebuild"),
            condition="attribute_exists(SK)",
            names=dict(FENCE_NAMES),
            values={":token": lease.owner, ":exp": lease.expires_at},
        )

    def unmark(self, lease: Lease, account: str) -> bool:
        """Remove our rebuild mark from an account (not someone else's)."""
        return self.core.conditional(
            self.core.client.update_item,
            Key=to_ddb({"PK": pk(lease.ledger), "SK": account_sk(account)}),
            UpdateExpression="REMOVE #rb, #rbx",
            ConditionExpression="#rb = :token",
            ExpressionAttributeNames=dict(FENCE_NAMES),
            ExpressionAttributeValues=to_ddb({":token": lease.owner}),
        )

    def set_balance_op(self, lease: Lease, key: ItemKey, values: Mapping[str, int]) -> TxOp:
        """Set a balance item to absolute values (a rebuild). An account must carry our mark; a
        month x category item keeps its budget (limit, strict) and gets remaining = limit - spent."""
        fields = {name: value for name, value in values.items() if name != "remaining"}
        names = {f"#f{i}": name for i, name in enumerate(fields)}
        exprs: dict[str, Any] = {f":f{i}": value for i, value in enumerate(fields.values())}
        sets = [f"#f{i} = :f{i}" for i in range(len(fields))]
        condition = None
        if isinstance(key, NetsItem):  # the nets' version moves: a settlement read before is stale
            names.update({"#type": "type", "#ver": "version"})
            exprs.update({":type": "nets", ":one": 1})
            return self.core.update_op(
                lease.ledger,
                derived_sk(key),
                "SET " + ", ".join([*sets, "#type = :type"]) + " ADD #ver :one",
                lambda item: errors.Conflict(f"{derived_sk(key)} changed during the rebuild"),
                names=names,
                values=exprs,
            )
        if isinstance(key, AccountItem):
            condition = "attribute_exists(SK) AND #rb = :token"
            names["#rb"] = REBUILD_MARK
            exprs[":token"] = lease.owner
        elif isinstance(key, SubcategoryMonthItem):
            names.update(SUBCATEGORY_NAMES)
            exprs.update(subcategory_values(key))
            sets.append(SUBCATEGORY_SETS)
        elif not isinstance(key, CategoryMonthItem):
            for i, (name, value) in enumerate(identity_sets(key).items()):
                names[f"#i{i}"], exprs[f":i{i}"] = name, value
                sets.append(f"#i{i} = :i{i}")
        else:
            names.update({"#cat": "category", "#month": "month", "#type": "type"})
            names.update({"#rem": "remaining", "#limit": "limit"})
            exprs.update({":cat": key.category, ":month": key.month, ":type": "category_month", ":zero": 0})
            # remaining from the new spent (SET reads the old item) and whatever limit is set by then
            exprs[":spent"] = fields.get("spent", fields.get("expense", 0) - fields.get("income", 0))
            sets += [
                "#cat = :cat",
                "#month = :month",
                "#type = :type",
                "#rem = if_not_exists(#limit, :zero) - :spent",
            ]
        return self.core.update_op(
            lease.ledger,
            derived_sk(key),
            "SET " + ", ".join(sets),
            lambda item: errors.Conflict(f"{derived_sk(key)} changed during the rebuild"),
            condition=condition,
            names=names,
            values=exprs,
        )

    def rollups_complete_op(self, lease: Lease, account: str) -> TxOp:
        """Mark an account's month and year items complete (a rebuild has written them all)."""
        return self.core.update_op(
            lease.ledger,
            account_sk(account),
            "SET #ru = :true",
            lambda item: errors.Conflict(f"account '{account}' disappeared during the rebuild"),
            condition="attribute_exists(SK) AND #rb = :token",
            names={"#ru": ROLLUPS_MARK, "#rb": REBUILD_MARK},
            values={":true": True, ":token": lease.owner},
        )

    def indexed_op(self, lease: Lease) -> TxOp:
        """Mark the ledger's slips all indexed (a rebuild has written every index item), their
        cleared sides included."""
        return self.core.update_op(
            lease.ledger,
            SLIP_SEQ_SK,
            "SET #ix = :format, #cx = :true",
            lambda item: errors.Conflict(f"{SLIP_SEQ_SK} changed during the rebuild"),
            condition="attribute_exists(SK)",
            names={"#ix": INDEXED, "#cx": CLEARED_INDEXED},
            values={":format": INDEX_FORMAT, ":true": True},
        )

    def backfill_identity_op(self, lease: Lease, identity: Item) -> TxOp:
        """Write the identity of a slip from before identities (a rebuild, under its lease)."""
        return self.core.put_op(
            lease.ledger,
            identity,
            "attribute_not_exists(SK)",
            lambda item: errors.Conflict(f"{identity['SK']} appeared during the rebuild"),
        )
