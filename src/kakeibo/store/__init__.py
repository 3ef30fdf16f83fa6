"""The only package that talks to DynamoDB: keys, transactions and their failures.

`Store` is a record of item families, one module each (`store.slips`, `store.accounts`, ...), with
operations named for what they do, over one transaction core (transactions.py: the client, codec,
TransactWriteItems with retries and the mapping of cancellation reasons to precise errors). Services
call these operations; they never write a condition or an update expression, and never build a key:
the package offers what services use, and the keys stay in `store.keys`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING

from kakeibo.settings import get_settings
from kakeibo.store.accounts import AccountOps
from kakeibo.store.alerts import AlertOps
from kakeibo.store.balances import ROLLUPS_MARK, BalanceOps, balance_key, item_name
from kakeibo.store.budgets import BudgetOps
from kakeibo.store.bulk import BulkMoved, BulkOps
from kakeibo.store.cards import CardOps
from kakeibo.store.codec import Item, from_ddb
from kakeibo.store.cursors import decode_cursor, encode_cursor
from kakeibo.store.deletion import DeletionOps
from kakeibo.store.exports import ExportOps
from kakeibo.store.goals import GoalOps
from kakeibo.store.imports import ImportOps
from kakeibo.store.journal import JOURNAL_ITEMS, Change, JournalOps, entry_changes, entry_of_image, is_entry_record
from kakeibo.store.keys import SharedLedger
from kakeibo.store.ledgers import LedgerOps
from kakeibo.store.locks import Lease, LockOps
from kakeibo.store.points import PointOps
from kakeibo.store.rebuild import RebuildOps
from kakeibo.store.receipts import ReceiptOps
from kakeibo.store.reconciliations import AccountMoved, ReconciliationOps, Remark, SlipMoved
from kakeibo.store.recurrences import Due, ProgressConflict, RecurrenceOps
from kakeibo.store.restores import RestoreOps
from kakeibo.store.rules import RuleOps, RuleSetItems
from kakeibo.store.settlements import SettlementOps
from kakeibo.store.slip_index import (
    CLEARED_INDEXED,
    INDEX_FORMAT,
    INDEXED,
    SlipFilter,
    SlipIndexOps,
    entry_place,
    index_entries,
    index_items_changed,
)
from kakeibo.store.slips import Dates, NewSlip, SlipCommit, SlipIdTaken, SlipOps, identity_of, keyed_slip, slip_position
from kakeibo.store.tags import TagOps
from kakeibo.store.tax import TaxOps
from kakeibo.store.transactions import OnFail, RetryPolicy, StoreCore, TxOp, dynamodb_client
from kakeibo.store.webhooks import WebhookOps, ledger_address, ledger_at
from kakeibo.store.write import GUARD_ITEMS, Bookkeeping, WriteContext, WriteOps

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer
    from mypy_boto3_dynamodb import DynamoDBClient

    from kakeibo.store.limits import LimitStore
    from kakeibo.store.tokens import TokenStore

__all__ = [
    "CLEARED_INDEXED",
    "GUARD_ITEMS",
    "INDEXED",
    "INDEX_FORMAT",
    "JOURNAL_ITEMS",
    "ROLLUPS_MARK",
    "AccountMoved",
    "Bookkeeping",
    "BulkMoved",
    "Change",
    "Dates",
    "Due",
    "Item",
    "Lease",
    "NewSlip",
    "OnFail",
    "ProgressConflict",
    "Remark",
    "RuleSetItems",
    "SharedLedger",
    "SlipCommit",
    "SlipFilter",
    "SlipIdTaken",
    "SlipMoved",
    "Store",
    "TxOp",
    "WriteContext",
    "balance_key",
    "decode_cursor",
    "dynamodb_client",
    "encode_cursor",
    "entry_changes",
    "entry_of_image",
    "entry_place",
    "from_ddb",
    "get_limit_store",
    "get_store",
    "get_token_store",
    "idempotency_persistence",
    "identity_of",
    "index_entries",
    "index_items_changed",
    "is_entry_record",
    "item_name",
    "keyed_slip",
    "ledger_address",
    "ledger_at",
    "pk",
    "slip_position",
    "to_ddb",
]


class Store:
    """The ledger table: one object per item family, each over the one transaction core and given
    the families it writes through (`store.slips.slip(...)`, `store.write.commit(...)`). No family
    inherits another; what a family keeps for the process (the journal heads it saw, the years it
    found linked) is an attribute of that family."""

    def __init__(
        self,
        client: DynamoDBClient,
        table_name: str,
        retry: RetryPolicy | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.core = core = StoreCore(client, table_name, retry, clock)
        self.journal = JournalOps(core)
        self.write = write = WriteOps(core, self.journal)
        self.locks = locks = LockOps(core)
        self.balances = balances = BalanceOps(core)
        self.slip_index = slip_index = SlipIndexOps(core)
        self.slips = slips = SlipOps(core, balances, slip_index, write)
        self.accounts = AccountOps(core, locks, write)
        self.alerts = AlertOps(core, write)
        self.budgets = BudgetOps(core, balances, write)
        self.bulk = BulkOps(core)
        self.cards = CardOps(core, write)
        self.deletion = DeletionOps(core, locks, write)
        self.exports = ExportOps(core, locks, write)
        self.goals = GoalOps(core, write)
        self.imports = ImportOps(core, write)
        self.ledgers = LedgerOps(core, write)
        self.points = PointOps(core)
        self.rebuild = RebuildOps(core, locks)
        self.receipts = ReceiptOps(core, write)
        self.reconciliations = ReconciliationOps(core, slip_index, slips, write)
        self.recurrences = RecurrenceOps(core, write)
        self.restores = RestoreOps(core, write)
        self.rules = RuleOps(core, write)
        self.settlements = SettlementOps(core, balances, locks, write)
        self.tags = TagOps(core)
        self.tax = TaxOps(core)
        self.webhooks = WebhookOps(core, write)

    def forget(self) -> None:
        """Forget what the families learnt of the ledgers they served (the journal heads seen, the
        years found linked): an instance that starts from a snapshot learns its own."""
        self.journal.heads.clear()
        self.balances.linked_seen.clear()


@cache
def get_store() -> Store:
    return Store(dynamodb_client(), get_settings().table_name)


@cache
def get_token_store() -> TokenStore:
    """Personal access tokens: their family over a core of its own (the authorizer needs no more)."""
    from kakeibo.store.tokens import TokenStore  # noqa: PLC0415 - loaded on use

    return TokenStore(StoreCore(dynamodb_client(), get_settings().table_name))


@cache
def get_limit_store() -> LimitStore:
    """Request budgets' counters, in the IdempotencyTable (their items expire)."""
    from kakeibo.store.limits import LimitStore  # noqa: PLC0415 - loaded on use

    return LimitStore(StoreCore(dynamodb_client(), get_settings().idempotency_table_name))


@cache
def idempotency_persistence() -> DynamoDBPersistenceLayer:
    """Powertools' idempotency records, on the IdempotencyTable, through our cached client."""
    from kakeibo.store.idempotency_layer import PersistenceLayer  # noqa: PLC0415 - loaded on use

    return PersistenceLayer(table_name=get_settings().idempotency_table_name, boto3_client=dynamodb_client())
