"""The only package that talks to DynamoDB: keys, transactions and their failures.

`Store` is a record of item families, one module each (`store.slips`, `store.accounts`, ...), with
operations named for what they do, over one transaction core (transactions.py: the client, codec,
TransactWriteItems with retries and the mapping of cancellation reasons to precise errors). Services
call these operations; they never write a condition or an update expression, and never build a key:
the package offers what services use, and the keys stay in `store.keys`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from kakeibo.settings import get_settings
from kakeibo.store.balances import ROLLUPS_MARK, balance_key, item_name
from kakeibo.store.codec import Item, from_ddb
from kakeibo.store.cursors import decode_cursor, encode_cursor
from kakeibo.store.journal import JOURNAL_ITEMS, Change, entry_changes, entry_of_image, is_entry_record
from kakeibo.store.keys import SharedLedger
from kakeibo.store.locks import Lease
from kakeibo.store.slip_index import (
    CLEARED_INDEXED,
    INDEX_FORMAT,
    INDEXED,
    SlipFilter,
    entry_place,
    index_entries,
    index_items_changed,
)
from kakeibo.store.slips import Dates, NewSlip, SlipCommit, SlipIdTaken, identity_of, keyed_slip, slip_position
from kakeibo.store.transactions import OnFail, RetryPolicy, StoreCore, TxOp, dynamodb_client
from kakeibo.store.write import GUARD_ITEMS, Bookkeeping, WriteContext

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer
    from mypy_boto3_dynamodb import DynamoDBClient

    from kakeibo.store.accounts import AccountOps
    from kakeibo.store.alerts import AlertOps
    from kakeibo.store.balances import BalanceOps
    from kakeibo.store.budgets import BudgetOps
    from kakeibo.store.bulk import BulkOps
    from kakeibo.store.cards import CardOps
    from kakeibo.store.deletion import DeletionOps
    from kakeibo.store.exports import ExportOps
    from kakeibo.store.goals import GoalOps
    from kakeibo.store.imports import ImportOps
    from kakeibo.store.journal import JournalOps
    from kakeibo.store.ledgers import LedgerOps
    from kakeibo.store.limits import LimitStore
    from kakeibo.store.locks import LockOps
    from kakeibo.store.points import PointOps
    from kakeibo.store.rebuild import RebuildOps
    from kakeibo.store.receipts import ReceiptOps
    from kakeibo.store.reconciliations import ReconciliationOps
    from kakeibo.store.recurrences import RecurrenceOps
    from kakeibo.store.restores import RestoreOps
    from kakeibo.store.rules import RuleOps
    from kakeibo.store.settlements import SettlementOps
    from kakeibo.store.slip_index import SlipIndexOps
    from kakeibo.store.slips import SlipOps
    from kakeibo.store.tags import TagOps
    from kakeibo.store.tax import TaxOps
    from kakeibo.store.tokens import TokenStore
    from kakeibo.store.webhooks import WebhookOps
    from kakeibo.store.write import WriteOps

__all__ = [
    "CLEARED_INDEXED",
    "GUARD_ITEMS",
    "INDEXED",
    "INDEX_FORMAT",
    "JOURNAL_ITEMS",
    "ROLLUPS_MARK",
    "Bookkeeping",
    "Change",
    "Dates",
    "Item",
    "Lease",
    "NewSlip",
    "OnFail",
    "SharedLedger",
    "SlipCommit",
    "SlipFilter",
    "SlipIdTaken",
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
    "every_family",
    "family",
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
    "slip_position",
]


F = TypeVar("F")
_BUILDING = threading.RLock()  # a family is built once per store, whichever thread first asks


class family(Generic[F]):  # lower case: used as a decorator, as functools.cached_property is
    """A store's family, built on first use from the core and the families it is given (its module
    imported then, so an instance imports only the families its requests use), then kept on the store:
    one object per family per store, whichever thread asks first."""

    def __init__(self, build: Callable[[Any], F]) -> None:
        self.build = build
        self.name = build.__name__

    @overload
    def __get__(self, store: None, owner: type[Any]) -> family[F]: ...
    @overload
    def __get__(self, store: object, owner: type[Any]) -> F: ...
    def __get__(self, store: object | None, owner: type[Any]) -> family[F] | F:
        if store is None:
            return self
        with _BUILDING:
            made = vars(store).get(self.name)
            if made is None:
                made = vars(store)[self.name] = self.build(store)  # the next read finds it on the store
            return made


class Store:
    """The ledger table: one object per item family, each over the one transaction core and given
    the families it writes through (`store.slips.slip(...)`, `store.write.commit(...)`). No family
    inherits another; what a family keeps for the process (the journal heads it saw, the years it
    found linked) is an attribute of that family. A family is built when first used (`family`):
    SnapStart's priming builds every one (`every_family`) before the snapshot."""

    def __init__(
        self,
        client: DynamoDBClient,
        table_name: str,
        retry: RetryPolicy | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.core = StoreCore(client, table_name, retry, clock)

    @family
    def journal(self) -> JournalOps:
        from kakeibo.store.journal import JournalOps  # noqa: PLC0415 - loaded on first use

        return JournalOps(self.core)

    @family
    def write(self) -> WriteOps:
        from kakeibo.store.write import WriteOps  # noqa: PLC0415 - loaded on first use

        return WriteOps(self.core, self.journal)

    @family
    def locks(self) -> LockOps:
        from kakeibo.store.locks import LockOps  # noqa: PLC0415 - loaded on first use

        return LockOps(self.core)

    @family
    def balances(self) -> BalanceOps:
        from kakeibo.store.balances import BalanceOps  # noqa: PLC0415 - loaded on first use

        return BalanceOps(self.core)

    @family
    def slip_index(self) -> SlipIndexOps:
        from kakeibo.store.slip_index import SlipIndexOps  # noqa: PLC0415 - loaded on first use

        return SlipIndexOps(self.core)

    @family
    def slips(self) -> SlipOps:
        from kakeibo.store.slips import SlipOps  # noqa: PLC0415 - loaded on first use

        return SlipOps(self.core, self.balances, self.slip_index, self.write)

    @family
    def accounts(self) -> AccountOps:
        from kakeibo.store.accounts import AccountOps  # noqa: PLC0415 - loaded on first use

        return AccountOps(self.core, self.locks, self.write)

    @family
    def alerts(self) -> AlertOps:
        from kakeibo.store.alerts import AlertOps  # noqa: PLC0415 - loaded on first use

        return AlertOps(self.core, self.write)

    @family
    def budgets(self) -> BudgetOps:
        from kakeibo.store.budgets import BudgetOps  # noqa: PLC0415 - loaded on first use

        return BudgetOps(self.core, self.balances, self.write)

    @family
    def bulk(self) -> BulkOps:
        from kakeibo.store.bulk import BulkOps  # noqa: PLC0415 - loaded on first use

        return BulkOps(self.core)

    @family
    def cards(self) -> CardOps:
        from kakeibo.store.cards import CardOps  # noqa: PLC0415 - loaded on first use

        return CardOps(self.core, self.write)

    @family
    def deletion(self) -> DeletionOps:
        from kakeibo.store.deletion import DeletionOps  # noqa: PLC0415 - loaded on first use

        return DeletionOps(self.core, self.locks, self.write)

    @family
    def exports(self) -> ExportOps:
        from kakeibo.store.exports import ExportOps  # noqa: PLC0415 - loaded on first use

        return ExportOps(self.core, self.locks, self.write)

    @family
    def goals(self) -> GoalOps:
        from kakeibo.store.goals import GoalOps  # noqa: PLC0415 - loaded on first use

        return GoalOps(self.core, self.write)

    @family
    def imports(self) -> ImportOps:
        from kakeibo.store.imports import ImportOps  # noqa: PLC0415 - loaded on first use

        return ImportOps(self.core, self.write)

    @family
    def ledgers(self) -> LedgerOps:
        from kakeibo.store.ledgers import LedgerOps  # noqa: PLC0415 - loaded on first use

        return LedgerOps(self.core, self.write)

    @family
    def points(self) -> PointOps:
        from kakeibo.store.points import PointOps  # noqa: PLC0415 - loaded on first use

        return PointOps(self.core)

    @family
    def rebuild(self) -> RebuildOps:
        from kakeibo.store.rebuild import RebuildOps  # noqa: PLC0415 - loaded on first use

        return RebuildOps(self.core, self.locks)

    @family
    def receipts(self) -> ReceiptOps:
        from kakeibo.store.receipts import ReceiptOps  # noqa: PLC0415 - loaded on first use

        return ReceiptOps(self.core, self.write)

    @family
    def reconciliations(self) -> ReconciliationOps:
        from kakeibo.store.reconciliations import ReconciliationOps  # noqa: PLC0415 - loaded on first use

        return ReconciliationOps(self.core, self.slip_index, self.slips, self.write)

    @family
    def recurrences(self) -> RecurrenceOps:
        from kakeibo.store.recurrences import RecurrenceOps  # noqa: PLC0415 - loaded on first use

        return RecurrenceOps(self.core, self.write)

    @family
    def restores(self) -> RestoreOps:
        from kakeibo.store.restores import RestoreOps  # noqa: PLC0415 - loaded on first use

        return RestoreOps(self.core, self.write)

    @family
    def rules(self) -> RuleOps:
        from kakeibo.store.rules import RuleOps  # noqa: PLC0415 - loaded on first use

        return RuleOps(self.core, self.write)

    @family
    def settlements(self) -> SettlementOps:
        from kakeibo.store.settlements import SettlementOps  # noqa: PLC0415 - loaded on first use

        return SettlementOps(self.core, self.balances, self.locks, self.write)

    @family
    def tags(self) -> TagOps:
        from kakeibo.store.tags import TagOps  # noqa: PLC0415 - loaded on first use

        return TagOps(self.core)

    @family
    def tax(self) -> TaxOps:
        from kakeibo.store.tax import TaxOps  # noqa: PLC0415 - loaded on first use

        return TaxOps(self.core)

    @family
    def webhooks(self) -> WebhookOps:
        from kakeibo.store.webhooks import WebhookOps  # noqa: PLC0415 - loaded on first use

        return WebhookOps(self.core, self.write)

    def forget(self) -> None:
        """Forget what the families learnt of the ledgers they served (the journal heads seen, the
        years found linked): an instance that starts from a snapshot learns its own."""
        self.journal.heads.clear()
        self.balances.linked_seen.clear()


def every_family(store: Store) -> list[object]:
    """Every family of `store`, each built (and its module imported) if it was not yet."""
    return [getattr(store, name) for name, value in vars(Store).items() if isinstance(value, family)]


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
