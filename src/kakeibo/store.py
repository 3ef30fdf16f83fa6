"""The only module that talks to DynamoDB: key layout, transactions and their failures.

Every slip change is one TransactWriteItems call built from a `ledger.Plan`. Each operation in a
transaction carries its own `on_fail`, so a cancelled transaction maps item by item to a precise
error (stale version, duplicate, insufficient funds, budget exceeded, unknown account). Reasons that
are only TransactionConflict / throttling are retried here with jittered exponential backoff, with
the same ClientRequestToken, because botocore does not retry them.
"""

from __future__ import annotations

import base64
import functools
import json
import math
import random
import re
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cache
from typing import TYPE_CHECKING, Any

import boto3
from boto3.dynamodb.types import TypeDeserializer, TypeSerializer
from botocore.config import Config
from botocore.exceptions import (
    ClientError,
    ConnectionClosedError,
    ConnectTimeoutError,
    EndpointConnectionError,
    ReadTimeoutError,
)

from kakeibo import errors
from kakeibo.ledger import AccountItem, CategoryMonthItem, DayItem, ItemChange, ItemKey, Plan, SubcategoryMonthItem
from kakeibo.settings import get_settings

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer
    from mypy_boto3_dynamodb import DynamoDBClient

Item = dict[str, Any]

# ---- keys -------------------------------------------------------------------------------------
# Every user-supplied part is validated before it gets here (models.py): account ids are slugs,
# categories cannot contain '#', dates and months have a fixed shape. The PK comes from the
# caller's identity only.


def pk(ledger: str) -> str:
    return f"LEDGER#{ledger}"


def account_sk(account: str) -> str:
    return f"ACCOUNT#{account}"


def slip_sk(date: str, slip_id: str) -> str:
    return f"SLIP#{date}#{slip_id}"


def day_sk(account: str, date: str) -> str:
    return f"DAY#{account}#{date}"


def category_sk(month: str, category: str) -> str:
    return f"MONTH#{month}#CAT#{category}"


def subcategory_sk(month: str, category: str, subcategory: str) -> str:
    """Neither name may contain '#' (models.Category), so the SK splits back unambiguously."""
    return f"MONTH#{month}#SUB#{category}#{subcategory}"


def month_prefix(month: str) -> str:
    """Every month x category and month x subcategory item of a month."""
    return f"MONTH#{month}#"


def row_sk(slip_id: str) -> str:
    """An imported row's mark: its slip id, whatever date the slip has moved to since."""
    return f"ROW#{slip_id}"


SLIP_SEQ_SK = "SEQ#slip"


LEDGER_LOCK = "ledger"  # held by a rebuild: no slip or account may change meanwhile


def lock_sk(name: str) -> str:
    return f"LOCK#{name}"


def derived_sk(key: ItemKey) -> str:
    """The SK of a balance item (account, day total, month x category)."""
    if isinstance(key, AccountItem):
        return account_sk(key.account)
    if isinstance(key, DayItem):
        return day_sk(key.account, key.date)
    if isinstance(key, SubcategoryMonthItem):
        return subcategory_sk(key.month, key.category, key.subcategory)
    return category_sk(key.month, key.category)


_DAY_SK_RE = re.compile(r"^DAY#([^#]+)#(\d{4}-\d{2}-\d{2})$")
_CATEGORY_SK_RE = re.compile(r"^MONTH#(\d{4}-\d{2})#CAT#([^#]+)$")
_SUBCATEGORY_SK_RE = re.compile(r"^MONTH#(\d{4}-\d{2})#SUB#([^#]+)#([^#]+)$")


def derived_key(sk: str) -> ItemKey | None:
    """The balance item an SK names, or None for any other item (slip, lock, counter...)."""
    if sk.startswith("ACCOUNT#"):
        return AccountItem(sk.removeprefix("ACCOUNT#"))
    if found := _DAY_SK_RE.match(sk):
        return DayItem(found.group(1), found.group(2))
    if found := _CATEGORY_SK_RE.match(sk):
        return CategoryMonthItem(found.group(1), found.group(2))
    if found := _SUBCATEGORY_SK_RE.match(sk):
        return SubcategoryMonthItem(found.group(1), found.group(2), found.group(3))
    return None


# A rebuild marks every account item with its token and an expiry (epoch ms). Every slip
# transaction's operation on an account carries FENCE, so no slip change can interleave with a
# rebuild; a mark left behind by a crashed rebuild stops counting once it expires.
REBUILD_MARK, REBUILD_EXPIRES = "rebuild", "rebuild_expires"
FENCE = "(attribute_not_exists(#rb) OR #rbx < :now)"
FENCE_NAMES = {"#rb": REBUILD_MARK, "#rbx": REBUILD_EXPIRES}

RETRYABLE_REASONS = {
    "TransactionConflict",
    "ThrottlingError",
    "ProvisionedThroughputExceeded",
    "RequestLimitExceeded",
}
RETRYABLE_ERRORS = {
    "ThrottlingException",
    "ProvisionedThroughputExceededException",
    "RequestLimitExceeded",
    "InternalServerError",
}

# The request may or may not have reached DynamoDB: retried as is (a transaction with its token).
LOST_RESPONSE = (ReadTimeoutError, ConnectionClosedError, EndpointConnectionError, ConnectTimeoutError)

_serializer = TypeSerializer()
_deserializer = TypeDeserializer()


# Fast paths for the types the ledger stores (str, bool, int): boto3's TypeSerializer and
# TypeDeserializer cost ~15 us per item, which is most of a 100-slip listing's own time. Anything
# else goes through boto3's, so behaviour (and errors) stay boto3's.
_MAX_FAST_INT = 10**38  # DynamoDB numbers have at most 38 significant digits


def _to_value(value: Any) -> dict[str, Any]:
    kind = type(value)
    if kind is str:
        return {"S": value}
    if kind is bool:
        return {"BOOL": value}
    if kind is int and -_MAX_FAST_INT < value < _MAX_FAST_INT:
        return {"N": str(value)}
    return dict(_serializer.serialize(value))


def _number(raw: str) -> int | float:
    try:
        return int(raw)
    except ValueError:
        plain: int | float = _plain(Decimal(raw))
        return plain


def to_ddb(item: Mapping[str, Any]) -> dict[str, Any]:
    return {k: _to_value(v) for k, v in item.items() if v is not None}


def from_ddb(item: Mapping[str, Any]) -> Item:
    out: Item = {}
    for name, value in item.items():  # strings and numbers first: nearly every attribute is one
        text = value.get("S")
        if text is not None:
            out[name] = text
            continue
        number = value.get("N")
        if number is not None:
            out[name] = _number(number)
            continue
        out[name] = value["BOOL"] if "BOOL" in value else _plain(_deserializer.deserialize(value))
    return out


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


@cache
def dynamodb_client() -> DynamoDBClient:
    """Created on first use and cached for the life of the process (Lambda container)."""
    settings = get_settings()
    config = Config(
        retries={"mode": "standard", "max_attempts": 3},
        connect_timeout=2,
        read_timeout=5,
        tcp_keepalive=True,
    )
    kwargs: dict[str, Any] = {"config": config}
    if settings.dynamodb_endpoint_url:
        kwargs["endpoint_url"] = settings.dynamodb_endpoint_url
    return boto3.client("dynamodb", **kwargs)


# ---- transactions -----------------------------------------------------------------------------

OnFail = Callable[[Item | None], errors.ApiError]


@dataclass
class TxOp:
    """One operation of a TransactWriteItems call and the error it means when its condition fails."""

    kind: str  # Put | Update | Delete | ConditionCheck
    body: dict[str, Any]
    on_fail: OnFail

    def request(self) -> dict[str, Any]:
        return {self.kind: self.body}


@dataclass
class RetryPolicy:
    attempts: int = 6
    base_delay: float = 0.02
    max_delay: float = 0.5
    sleep: Callable[[float], None] = field(default=time.sleep)

    def delay(self, attempt: int) -> float:
        # "full jitter" exponential backoff
        return random.uniform(0, min(self.max_delay, self.base_delay * 2**attempt))  # noqa: S311


def _cancellation_error(exc: ClientError, ops: Sequence[TxOp]) -> errors.ApiError | None:
    """The precise error for a cancelled transaction, or None if it is only worth retrying."""
    reasons: list[Any] = list(exc.response.get("CancellationReasons") or [])
    for op, reason in zip(ops, reasons, strict=False):
        if reason.get("Code") == "ConditionalCheckFailed":
            current = reason.get("Item")
            return op.on_fail(from_ddb(current) if current else None)
    codes = {r.get("Code") for r in reasons} - {"None", None}
    if codes and codes <= RETRYABLE_REASONS:
        return None
    if not codes:
        return None
    return errors.Conflict("the change could not be applied", reasons=sorted(c for c in codes if c))


@dataclass(frozen=True)
class Lease:
    """A lease lock held until `expires_at` (epoch ms) by whoever knows `owner`."""

    ledger: str
    name: str
    owner: str
    expires_at: int


class Store:
    def __init__(
        self,
        client: DynamoDBClient,
        table_name: str,
        retry: RetryPolicy | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.client = client
        self.table = table_name
        self.retry = retry or RetryPolicy()
        self.clock = clock

    def now_ms(self) -> int:
        return int(self.clock() * 1000)

    # -- generic helpers ------------------------------------------------------------------------

    def _call(self, fn: Callable[..., Any], **kwargs: Any) -> Any:
        """Run one DynamoDB call. botocore has already retried throttling and connection errors
        (standard mode); what is left of them becomes a retryable 409, never a server error."""
        try:
            return fn(**kwargs)
        except LOST_RESPONSE as exc:
            raise errors.Conflict("the database did not answer; retry shortly", retry_after=1) from exc
        except ClientError as exc:
            if exc.response["Error"]["Code"] in RETRYABLE_ERRORS:
                raise errors.Conflict("the ledger is busy; retry shortly", retry_after=1) from exc
            raise

    def get(self, ledger: str, sk: str, *, consistent: bool = True) -> Item | None:
        res = self._call(
            self.client.get_item,
            TableName=self.table,
            Key=to_ddb({"PK": pk(ledger), "SK": sk}),
            ConsistentRead=consistent,
        )
        return from_ddb(res["Item"]) if "Item" in res else None

    def query(
        self,
        ledger: str,
        *,
        begins_with: str | None = None,
        between: tuple[str, str] | None = None,
        forward: bool = True,
        consistent: bool = False,
        projection: str | None = None,
        names: dict[str, str] | None = None,
        filter_expression: str | None = None,
        values: dict[str, Any] | None = None,
        start_sk: str | None = None,
        page_size: int | None = None,
    ) -> Iterator[Item]:
        """Items of one ledger in SK order, following pages lazily."""
        expr_values: dict[str, Any] = {":pk": pk(ledger), **(values or {})}
        if begins_with is not None:
            cond = "PK = :pk AND begins_with(SK, :prefix)"
            expr_values[":prefix"] = begins_with
        elif between is not None:
            cond = "PK = :pk AND SK BETWEEN :lo AND :hi"
            expr_values[":lo"], expr_values[":hi"] = between
        else:
            cond = "PK = :pk"
        kwargs: dict[str, Any] = {
            "TableName": self.table,
            "KeyConditionExpression": cond,
            "ExpressionAttributeValues": to_ddb(expr_values),
            "ScanIndexForward": forward,
            "ConsistentRead": consistent,
        }
        if projection:
            kwargs["ProjectionExpression"] = projection
        if names:
            kwargs["ExpressionAttributeNames"] = names
        if filter_expression:
            kwargs["FilterExpression"] = filter_expression
        if page_size:
            kwargs["Limit"] = page_size
        if start_sk:
            kwargs["ExclusiveStartKey"] = to_ddb({"PK": pk(ledger), "SK": start_sk})
        while True:
            res = self._call(self.client.query, **kwargs)
            for raw in res.get("Items", []):
                yield from_ddb(raw)
            last = res.get("LastEvaluatedKey")
            if not last:
                return
            kwargs["ExclusiveStartKey"] = last

    def transact(self, ops: Sequence[TxOp], token: str | None = None) -> None:
        """One TransactWriteItems call; conflicts and throttling retried with the same token."""
        if not ops:
            return
        request: dict[str, Any] = {
            "TransactItems": [op.request() for op in ops],
            "ClientRequestToken": (token or str(uuid.uuid4()))[:36],
        }

        def send() -> None:
            try:
                self.client.transact_write_items(**request)
            except ClientError as exc:
                code = exc.response["Error"]["Code"]
                if code == "TransactionCanceledException":
                    failure = _cancellation_error(exc, ops)
                    if failure is not None:
                        raise failure from exc
                elif code == "IdempotentParameterMismatchException":
                    raise errors.IdempotencyKeyReused(
                        "this request token was already used for a different change"
                    ) from exc
                raise

        # A lost answer is retried as is: with the same token DynamoDB applies it at most once.
        self._retrying(send)

    def _retrying(self, call: Callable[[], Any]) -> Any:
        """Retry what botocore does not: transactions cancelled only by conflicts or throttling,
        a transaction still in progress, and an answer lost after botocore's own attempts."""
        for attempt in range(self.retry.attempts):
            try:
                return call()
            except LOST_RESPONSE:
                pass
            except ClientError as exc:
                code = exc.response["Error"]["Code"]
                cancelled = code == "TransactionCanceledException" and _cancellation_error(exc, []) is None
                if not (cancelled or code == "TransactionInProgressException"):
                    if code in RETRYABLE_ERRORS:  # botocore already retried these
                        raise errors.Conflict("the ledger is busy; retry shortly", retry_after=1) from exc
                    raise
            if attempt + 1 < self.retry.attempts:
                self.retry.sleep(self.retry.delay(attempt))
        raise errors.Conflict("the ledger is busy with concurrent changes; retry", retry_after=1)

    def transact_get(self, ledger: str, sks: Sequence[str]) -> list[Item | None]:
        """A consistent snapshot of up to 100 items (TransactGetItems)."""
        out: list[Item | None] = []
        for start in range(0, len(sks), 100):
            chunk = sks[start : start + 100]
            gets: list[Any] = [
                {"Get": {"TableName": self.table, "Key": to_ddb({"PK": pk(ledger), "SK": sk})}} for sk in chunk
            ]
            res = self._retrying(functools.partial(self.client.transact_get_items, TransactItems=gets))
            for response in res["Responses"]:
                raw = response.get("Item")
                out.append(from_ddb(raw) if raw else None)
        return out

    def existing_rows(self, ledger: str, slip_ids: Sequence[str]) -> set[str]:
        """Which of these slip ids an import has already written (their ROW items), consistently."""
        found: set[str] = set()
        wanted = list(dict.fromkeys(slip_ids))
        for start in range(0, len(wanted), 100):  # BatchGetItem's limit
            keys: list[Any] = [to_ddb({"PK": pk(ledger), "SK": row_sk(s)}) for s in wanted[start : start + 100]]
            request: dict[str, Any] = {self.table: {"Keys": keys, "ProjectionExpression": "SK", "ConsistentRead": True}}
            for attempt in range(10):
                res = self._call(self.client.batch_get_item, RequestItems=request)
                for raw in res.get("Responses", {}).get(self.table, []):
                    found.add(from_ddb(raw)["SK"].removeprefix("ROW#"))
                request = res.get("UnprocessedKeys") or {}
                if not request:
                    break
                self.retry.sleep(self.retry.delay(attempt))
            else:
                raise errors.Conflict("the ledger is busy; retry shortly", retry_after=1)
        return found

    # -- builders for the operations of a transaction -------------------------------------------

    def put_op(self, ledger: str, item: Item, condition: str, on_fail: OnFail, **expr: Any) -> TxOp:
        body: dict[str, Any] = {
            "TableName": self.table,
            "Item": to_ddb({"PK": pk(ledger), **item}),
            "ConditionExpression": condition,
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        }
        _expressions(body, **expr)
        return TxOp("Put", body, on_fail)

    def delete_op(self, ledger: str, sk: str, condition: str, on_fail: OnFail, **expr: Any) -> TxOp:
        body: dict[str, Any] = {
            "TableName": self.table,
            "Key": to_ddb({"PK": pk(ledger), "SK": sk}),
            "ConditionExpression": condition,
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        }
        _expressions(body, **expr)
        return TxOp("Delete", body, on_fail)

    def update_op(
        self,
        ledger: str,
        sk: str,
        update: str,
        on_fail: OnFail,
        condition: str | None = None,
        **expr: Any,
    ) -> TxOp:
        body: dict[str, Any] = {
            "TableName": self.table,
            "Key": to_ddb({"PK": pk(ledger), "SK": sk}),
            "UpdateExpression": update,
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        }
        if condition:
            body["ConditionExpression"] = condition
        _expressions(body, **expr)
        return TxOp("Update", body, on_fail)

    def balance_ops(
        self,
        ledger: str,
        plan: Plan,
        *,
        active_accounts: frozenset[str] = frozenset(),
        missing_account: Callable[[str], errors.ApiError],
        archived_account: Callable[[str], errors.ApiError],
    ) -> list[TxOp]:
        """The Update of every balance item a plan moves, each with the guard it needs.

        Every account the plan involves is fenced against a running rebuild (FENCE), through its
        Update or, when its net change is zero, a ConditionCheck."""
        now = self.now_ms()
        ops = []
        for change in plan.changes:
            ops.append(self._change_op(ledger, change, active_accounts, missing_account, archived_account, now=now))
        # Accounts the new slip names must exist (and be open) even if their net change is zero,
        # e.g. an update that only edits the memo of a slip whose account was archived meanwhile
        # does not need this, but a transfer between two accounts always moves both.
        named = {c.key.account for c in plan.changes if isinstance(c.key, AccountItem)}
        for account in sorted((active_accounts | set(plan.accounts)) - named):
            condition = FENCE
            names, values = dict(FENCE_NAMES), {":now": now}
            if account in active_accounts:
                condition = f"attribute_exists(SK) AND #arch = :false AND {FENCE}"
                names["#arch"], values[":false"] = "archived", False
            ops.append(
                TxOp(
                    "ConditionCheck",
                    {
                        "TableName": self.table,
                        "Key": to_ddb({"PK": pk(ledger), "SK": account_sk(account)}),
                        "ConditionExpression": condition,
                        "ExpressionAttributeNames": names,
                        "ExpressionAttributeValues": to_ddb(values),
                        "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                    },
                    _account_failure(account, 0, missing_account, archived_account, now),
                )
            )
        return ops

    def _change_op(
        self,
        ledger: str,
        change: ItemChange,
        active_accounts: frozenset[str],
        missing_account: Callable[[str], errors.ApiError],
        archived_account: Callable[[str], errors.ApiError],
        *,
        now: int,
    ) -> TxOp:
        key: ItemKey = change.key
        deltas = change.deltas
        names = {f"#f{i}": name for i, name in enumerate(deltas)}
        values: dict[str, Any] = {f":f{i}": deltas[name] for i, name in enumerate(deltas)}
        adds = [f"#f{i} :f{i}" for i in range(len(deltas))]
        if isinstance(key, AccountItem):
            condition = f"attribute_exists(SK) AND {FENCE}"
            names.update(FENCE_NAMES)
            values[":now"] = now
            if key.account in active_accounts:
                condition += " AND #arch = :false"
                names["#arch"] = "archived"
                values[":false"] = False
            need = change.funds_needed
            if need:
                condition += " AND (#allow = :true OR #bal >= :need)"
                names.update({"#allow": "allow_negative", "#bal": "balance"})
                values[":true"], values[":need"] = True, need
            return self.update_op(
                ledger,
                account_sk(key.account),
                "ADD " + ", ".join(adds),
                _account_failure(key.account, need, missing_account, archived_account, now),
                condition=condition,
                names=names,
                values=values,
            )
        if isinstance(key, DayItem):
            names.update({"#acc": "account", "#date": "date", "#type": "type"})
            values.update({":acc": key.account, ":date": key.date, ":type": "day"})
            return self.update_op(
                ledger,
                day_sk(key.account, key.date),
                "SET #acc = :acc, #date = :date, #type = :type ADD " + ", ".join(adds),
                lambda item: errors.Conflict("day total could not be updated"),
                names=names,
                values=values,
            )
        if isinstance(key, SubcategoryMonthItem):
            names.update(_SUBCATEGORY_NAMES)
            values.update(_subcategory_values(key))
            return self.update_op(
                ledger,
                derived_sk(key),
                f"SET {_SUBCATEGORY_SETS} ADD " + ", ".join(adds),
                lambda item: errors.Conflict("subcategory total could not be updated"),
                names=names,
                values=values,
            )
        return self._category_op(ledger, key, change, names=names, values=values, adds=adds)

    def _category_op(
        self,
        ledger: str,
        key: CategoryMonthItem,
        change: ItemChange,
        *,
        names: dict[str, str],
        values: dict[str, Any],
        adds: list[str],
    ) -> TxOp:
        names.update({"#cat": "category", "#month": "month", "#type": "type"})
        values.update({":cat": key.category, ":month": key.month, ":type": "category_month"})
        spending = change.spending
        if spending:
            # spent = expense - income and remaining = limit - spent are kept up to date, so that a
            # strict budget is one condition here and setting a limit is one atomic update
            names.update({"#spent": "spent", "#rem": "remaining"})
            adds += ["#spent :spent", "#rem :negspent"]
            values[":spent"], values[":negspent"] = spending, -spending
        condition: str | None = None
        need = change.budget_needed
        if need:
            condition = "attribute_not_exists(#strict) OR #strict = :false OR #rem >= :need"
            names["#strict"] = "strict"
            values[":false"], values[":need"] = False, need
        return self.update_op(
            ledger,
            category_sk(key.month, key.category),
            "SET #cat = :cat, #month = :month, #type = :type ADD " + ", ".join(adds),
            _budget_failure(key, need),
            condition=condition,
            names=names,
            values=values,
        )

    # -- single-item conditional writes --------------------------------------------------------

    def conditional_update(
        self,
        ledger: str,
        sk: str,
        update: str,
        condition: str,
        on_fail: OnFail,
        *,
        names: dict[str, str],
        values: dict[str, Any],
    ) -> Item:
        """One UpdateItem under a condition; the new item, or `on_fail(current item or None)` raised."""
        try:
            res = self._write(
                self.client.update_item,
                Key=to_ddb({"PK": pk(ledger), "SK": sk}),
                UpdateExpression=update,
                ConditionExpression=condition,
                ExpressionAttributeNames=names,
                ExpressionAttributeValues=to_ddb(values),
                ReturnValues="ALL_NEW",
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        except _ConditionFailed as failed:
            raise on_fail(failed.item) from failed
        return from_ddb(res["Attributes"])

    def update_versioned(self, ledger: str, sk: str, sets: Mapping[str, Any], expected: int, on_fail: OnFail) -> Item:
        """SET fields and bump `version`, only if the item exists at version `expected`."""
        names = {f"#c{i}": k for i, k in enumerate(sets)}
        values: dict[str, Any] = {f":c{i}": v for i, v in enumerate(sets.values())}
        values.update({":expected": expected, ":one": 1})
        names["#ver"] = "version"
        assignments = ", ".join(f"#c{i} = :c{i}" for i in range(len(sets)))
        return self.conditional_update(
            ledger,
            sk,
            f"SET {assignments} ADD #ver :one",
            "attribute_exists(SK) AND #ver = :expected",
            on_fail,
            names=names,
            values=values,
        )

    def put_budget(
        self,
        ledger: str,
        month: str,
        category: str,
        *,
        limit: int,
        strict: bool,
        expected: int | None,
        must_exist: bool,
        on_fail: OnFail,
    ) -> Item:
        """Set a month x category budget. `remaining` becomes limit - spent in the same atomic update,
        so a slip transaction racing with it sees either the old or the new limit, never a mix."""
        names = {
            "#limit": "limit",
            "#strict": "strict",
            "#rem": "remaining",
            "#spent": "spent",
            "#bv": "budget_version",
            "#cat": "category",
            "#month": "month",
            "#type": "type",
        }
        values: dict[str, Any] = {
            ":l": limit,
            ":s": strict,
            ":zero": 0,
            ":one": 1,
            ":cat": category,
            ":month": month,
            ":type": "category_month",
        }
        if expected is not None:
            condition = "#bv = :v"
            values[":v"] = expected
        elif must_exist:
            condition = "attribute_exists(#limit)"
        else:
            condition = "attribute_not_exists(#limit)"
        return self.conditional_update(
            ledger,
            category_sk(month, category),
            "SET #limit = :l, #strict = :s, #rem = :l - if_not_exists(#spent, :zero), "
            "#cat = :cat, #month = :month, #type = :type ADD #bv :one",
            condition,
            on_fail,
            names=names,
            values=values,
        )

    # -- counters -------------------------------------------------------------------------------

    def next_number(self, ledger: str) -> int:
        return self.reserve_numbers(ledger, 1)[0]

    def reserve_numbers(self, ledger: str, count: int, sk: str = SLIP_SEQ_SK) -> list[int]:
        """`count` consecutive numbers from the counter in one atomic ADD."""
        if count <= 0:
            return []
        res = self._call(
            self.client.update_item,
            TableName=self.table,
            Key=to_ddb({"PK": pk(ledger), "SK": sk}),
            UpdateExpression="ADD #v :n",
            ExpressionAttributeNames={"#v": "value"},
            ExpressionAttributeValues=to_ddb({":n": count}),
            ReturnValues="UPDATED_NEW",
        )
        last = int(from_ddb(res["Attributes"])["value"])
        return list(range(last - count + 1, last + 1))

    # -- lease locks ----------------------------------------------------------------------------
    # A lock is one item, LOCK#{name}: taken with a conditional Put that succeeds only if nobody
    # holds it or the holder's lease has expired; renewed and released only by its owner token.

    def acquire_lock(self, ledger: str, name: str, ttl: float, owner: str | None = None) -> Lease:
        """Take the lease for `ttl` seconds, or raise Locked naming when the holder's lease ends."""
        now = self.now_ms()
        lease = Lease(ledger, name, owner or uuid.uuid4().hex, now + math.ceil(ttl * 1000))
        try:
            self._write(
                self.client.put_item,
                Item=to_ddb(
                    {
                        "PK": pk(ledger),
                        "SK": lock_sk(name),
                        "type": "lock",
                        "lock": name,
                        "owner": lease.owner,
                        "expires_at": lease.expires_at,
                        "acquired_at": now,
                    }
                ),
                ConditionExpression="attribute_not_exists(SK) OR #exp < :now",
                ExpressionAttributeNames={"#exp": "expires_at"},
                ExpressionAttributeValues=to_ddb({":now": now}),
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        except _ConditionFailed as failed:
            until = int(failed.item.get("expires_at", now)) if failed.item else now
            raise errors.Locked(
                f"the {name} lock is held by another process", retry_after=_seconds_until(until, now)
            ) from failed
        return lease

    def renew_lock(self, lease: Lease, ttl: float) -> Lease | None:
        """Extend a lease we still hold (ours and not expired). None if it was lost."""
        now = self.now_ms()
        renewed = Lease(lease.ledger, lease.name, lease.owner, now + math.ceil(ttl * 1000))
        if not self._conditional(
            self.client.update_item,
            Key=to_ddb({"PK": pk(lease.ledger), "SK": lock_sk(lease.name)}),
            UpdateExpression="SET #exp = :exp",
            ConditionExpression="#owner = :me AND #exp >= :now",
            ExpressionAttributeNames={"#owner": "owner", "#exp": "expires_at"},
            ExpressionAttributeValues=to_ddb({":me": lease.owner, ":now": now, ":exp": renewed.expires_at}),
        ):
            return None
        return renewed

    def release_lock(self, lease: Lease) -> bool:
        """Delete the lock if `lease` still owns it. False if someone else holds it by now."""
        return self._conditional(
            self.client.delete_item,
            Key=to_ddb({"PK": pk(lease.ledger), "SK": lock_sk(lease.name)}),
            ConditionExpression="#owner = :me",
            ExpressionAttributeNames={"#owner": "owner"},
            ExpressionAttributeValues=to_ddb({":me": lease.owner}),
        )

    def lock_free_op(self, ledger: str, name: str) -> TxOp:
        """A transaction step that fails (Locked) while anybody holds a live lease on `name`."""
        now = self.now_ms()

        def fail(item: Item | None) -> errors.ApiError:
            until = int((item or {}).get("expires_at", now))
            return errors.Locked(f"the {name} lock is held; retry shortly", retry_after=_seconds_until(until, now))

        return TxOp(
            "ConditionCheck",
            {
                "TableName": self.table,
                "Key": to_ddb({"PK": pk(ledger), "SK": lock_sk(name)}),
                "ConditionExpression": "attribute_not_exists(SK) OR #exp < :now",
                "ExpressionAttributeNames": {"#exp": "expires_at"},
                "ExpressionAttributeValues": to_ddb({":now": now}),
                "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
            },
            fail,
        )

    def lock_held_op(self, lease: Lease, margin: float = 5.0) -> TxOp:
        """A transaction step that fails unless `lease` is still ours for at least `margin` seconds
        (the margin absorbs clock skew between the holder and everybody checking the lease)."""
        soon = self.now_ms() + math.ceil(margin * 1000)
        return TxOp(
            "ConditionCheck",
            {
                "TableName": self.table,
                "Key": to_ddb({"PK": pk(lease.ledger), "SK": lock_sk(lease.name)}),
                "ConditionExpression": "#owner = :me AND #exp > :soon",
                "ExpressionAttributeNames": {"#owner": "owner", "#exp": "expires_at"},
                "ExpressionAttributeValues": to_ddb({":me": lease.owner, ":soon": soon}),
                "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
            },
            lambda item: errors.Conflict(f"the {lease.name} lock was lost before the work was done"),
        )

    # -- rebuild: marks that fence slip changes, and absolute rewrites of balance items ----------

    def mark_op(self, lease: Lease, account: str) -> TxOp:
        """Mark an account as being rebuilt under `lease`: slip changes on it fail (Locked)."""
        return self.update_op(
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
        return self._conditional(
            self.client.update_item,
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
        if isinstance(key, AccountItem):
            condition = "attribute_exists(SK) AND #rb = :token"
            names["#rb"] = REBUILD_MARK
            exprs[":token"] = lease.owner
        elif isinstance(key, DayItem):
            names.update({"#acc": "account", "#date": "date", "#type": "type"})
            exprs.update({":acc": key.account, ":date": key.date, ":type": "day"})
            sets += ["#acc = :acc", "#date = :date", "#type = :type"]
        elif isinstance(key, SubcategoryMonthItem):
            names.update(_SUBCATEGORY_NAMES)
            exprs.update(_subcategory_values(key))
            sets.append(_SUBCATEGORY_SETS)
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
        return self.update_op(
            lease.ledger,
            derived_sk(key),
            "SET " + ", ".join(sets),
            lambda item: errors.Conflict(f"{derived_sk(key)} changed during the rebuild"),
            condition=condition,
            names=names,
            values=exprs,
        )

    # -- single-item updates --------------------------------------------------------------------

    def update(
        self,
        ledger: str,
        sk: str,
        expression: str,
        *,
        names: dict[str, str],
        values: dict[str, Any],
    ) -> None:
        """One unconditional UpdateItem (bookkeeping items; conditional ones: `conditional_update`)."""
        self._call(
            self.client.update_item,
            TableName=self.table,
            Key=to_ddb({"PK": pk(ledger), "SK": sk}),
            UpdateExpression=expression,
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=to_ddb(values),
        )

    def _conditional(self, fn: Callable[..., Any], **kwargs: Any) -> bool:
        """One conditional write: True if applied, False if its condition failed."""
        try:
            self._write(fn, **kwargs)
        except _ConditionFailed:
            return False
        return True

    def _write(self, fn: Callable[..., Any], **kwargs: Any) -> Any:
        """One conditional write on the table; `_ConditionFailed` (with the item, if returned) if refused."""
        try:
            return self._call(fn, TableName=self.table, **kwargs)
        except ClientError as exc:
            if exc.response["Error"]["Code"] == "ConditionalCheckFailedException":
                old: dict[str, Any] | None = exc.response.get("Item")  # type: ignore[assignment]
                raise _ConditionFailed(from_ddb(old) if old else None) from exc
            raise


class _ConditionFailed(Exception):
    def __init__(self, item: Item | None) -> None:
        super().__init__("condition failed")
        self.item = item


_SUBCATEGORY_NAMES = {"#cat": "category", "#sub": "subcategory", "#month": "month", "#type": "type"}
_SUBCATEGORY_SETS = "#cat = :cat, #sub = :sub, #month = :month, #type = :type"


def _subcategory_values(key: SubcategoryMonthItem) -> dict[str, Any]:
    return {":cat": key.category, ":sub": key.subcategory, ":month": key.month, ":type": "subcategory_month"}


def _expressions(
    body: dict[str, Any], names: dict[str, str] | None = None, values: dict[str, Any] | None = None
) -> None:
    if names:
        body["ExpressionAttributeNames"] = names
    if values:
        body["ExpressionAttributeValues"] = to_ddb(values)


def _seconds_until(until_ms: int, now_ms: int) -> int:
    """A Retry-After value: the seconds left on a lease, at least 1, at most a minute."""
    return max(1, min(60, math.ceil((until_ms - now_ms) / 1000)))


def _account_failure(
    account: str,
    need: int,
    missing: Callable[[str], errors.ApiError],
    archived: Callable[[str], errors.ApiError],
    now: int,
) -> OnFail:
    def fail(item: Item | None) -> errors.ApiError:
        if item is None:
            return missing(account)
        if item.get(REBUILD_MARK) and int(item.get(REBUILD_EXPIRES, 0)) >= now:
            return errors.Locked(
                "the ledger is being rebuilt; retry shortly",
                retry_after=min(10, _seconds_until(int(item[REBUILD_EXPIRES]), now)),
            )
        if item.get("archived"):
            return archived(account)
        return errors.InsufficientFunds(
            f"account '{account}' has {item.get('balance', 0)}; {need} would leave it below zero",
            account=account,
            balance=item.get("balance", 0),
            needed=need,
        )

    return fail


def _budget_failure(key: CategoryMonthItem, need: int) -> OnFail:
    def fail(item: Item | None) -> errors.ApiError:
        item = item or {}
        limit = int(item.get("limit", 0))
        spent = int(item.get("spent", 0))
        return errors.BudgetExceeded(
            f"the {key.month} budget for '{key.category}' has {limit - spent} left; this needs {need}",
            month=key.month,
            category=key.category,
            limit=limit,
            spent=spent,
            remaining=limit - spent,
            needed=need,
        )

    return fail


@cache
def idempotency_persistence() -> DynamoDBPersistenceLayer:
    """Powertools' idempotency records, on the IdempotencyTable, through our cached client."""
    from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer  # noqa: PLC0415 - loaded on use

    return DynamoDBPersistenceLayer(table_name=get_settings().idempotency_table_name, boto3_client=dynamodb_client())


@cache
def get_store() -> Store:
    return Store(dynamodb_client(), get_settings().table_name)


# ---- cursors ----------------------------------------------------------------------------------


def encode_cursor(payload: Mapping[str, Any]) -> str:
    raw = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> dict[str, Any]:
    if len(cursor) > 512:
        raise errors.BadRequest("invalid cursor")
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        payload = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise errors.BadRequest("invalid cursor") from None
    if not isinstance(payload, dict):
        raise errors.BadRequest("invalid cursor")
    return payload
