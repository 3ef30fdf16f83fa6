"""The transaction core: the client, reads, TransactWriteItems and what its failures mean.

Every slip change is one TransactWriteItems call built from a `ledger.Plan`. Each operation in a
transaction carries its own `on_fail`, so a cancelled transaction maps item by item to a precise
error (stale version, duplicate, insufficient funds, budget exceeded, unknown account). Reasons that
are only TransactionConflict / throttling are retried here with jittered exponential backoff, with
the same ClientRequestToken, because botocore does not retry them.
"""

from __future__ import annotations

import functools
import math
import random
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, TypedDict, Unpack

import boto3
from botocore.config import Config
from botocore.exceptions import (
    ClientError,
    ConnectionClosedError,
    ConnectTimeoutError,
    EndpointConnectionError,
    ReadTimeoutError,
)

from kakeibo import deadline, errors
from kakeibo.settings import get_settings
from kakeibo.store.codec import Item, from_ddb, to_ddb
from kakeibo.store.keys import household_pk, member_sk, pk, prefix_range

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient


@cache
def dynamodb_client() -> DynamoDBClient:
    """Created on first use and cached for the life of the process (Lambda container). Its retries
    and each attempt's read timeout are held to the request's deadline (kakeibo.deadline)."""
    settings = get_settings()
    config = Config(
        retries={"mode": "standard", "max_attempts": 3},
        connect_timeout=1,
        read_timeout=5,
        tcp_keepalive=True,
    )
    kwargs: dict[str, Any] = {"config": config}
    if settings.dynamodb_endpoint_url:
        kwargs["endpoint_url"] = settings.dynamodb_endpoint_url
    client = boto3.client("dynamodb", **kwargs)
    held_to_deadline(client)
    return client


def held_to_deadline(client: Any) -> None:
    """botocore's standard retries of `client` vetoed when the request's time would not cover them,
    and each attempt's read timeout cut to the time left."""
    events = client.meta.events
    name = client.meta.service_model.service_id.hyphenize()
    unique_id = f"retry-config-{name}"  # how botocore registers its standard retry handler
    registered = events._emitter._unique_id_handlers.get(unique_id)
    if registered is not None:
        events.unregister(f"needs-retry.{name}", unique_id=unique_id)
        events.register(f"needs-retry.{name}", deadline.hold_retries(registered["handler"]), unique_id=unique_id)
    events.register(f"request-created.{name}", deadline.cap_read_timeout, unique_id="kakeibo-read-timeout")


OnFail = Callable[[Item | None], errors.ApiError]


MAX_BATCH_GET = 100  # keys per BatchGetItem
MAX_BATCH_WRITE = 25  # requests per BatchWriteItem
BATCH_WRITE_ATTEMPTS = 12  # calls for one batch's unprocessed requests


class QueryOptions(TypedDict, total=False):
    """What `StoreCore.query_at` takes besides the partition."""

    begins_with: str | None
    between: tuple[str, str] | None
    forward: bool
    consistent: bool
    projection: str | None
    names: dict[str, str] | None
    filter_expression: str | None
    values: dict[str, Any] | None
    start_sk: str | None
    page_size: int | None


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
    sleep: Callable[[float], None] = field(default=deadline.wait)

    def delay(self, attempt: int) -> float:
        # "full jitter" exponential backoff
        return random.uniform(0, min(self.max_delay, self.base_delay * 2**attempt))  # noqa: S311

    def pause(self, attempt: int) -> bool:
        """Wait before attempt `attempt + 1`, if the request's deadline leaves time for it and one more
        attempt; False (no wait) if it does not: the caller gives up with its retryable refusal."""
        return self.pause_for(self.delay(attempt))

    def pause_for(self, seconds: float) -> bool:
        if not deadline.allows(seconds):
            return False
        self.sleep(seconds)
        return True


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


def _cancellation_error(exc: ClientError, ops: Sequence[TxOp]) -> errors.ApiError | None:
    """The precise error for a cancelled transaction, or None if it is only worth retrying."""
    reasons: list[Any] = list(exc.response.get("CancellationReasons") or [])
    for op, reason in zip(ops, reasons, strict=False):
        if reason.get("Code") == "ConditionalCheckFailed":
            current = reason.get("Item")
            return op.on_fail(from_ddb(current) if current else None)
    codes = {r.get("Code") for r in reasons} - {"None", None}
    if not codes or codes <= RETRYABLE_REASONS:
        return None
    # Anything else (ValidationError, ItemCollectionSizeLimitExceeded...) fails the same way every
    # time: a fault of ours, not a conflict worth retrying. Nothing was written.
    return errors.ApiError(
        "the database refused the change; nothing was written", reasons=sorted(c for c in codes if c)
    )


class StoreCore:
    """The client, the table and the transaction core every operation is built on."""

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

    def call(self, fn: Callable[..., Any], **kwargs: Any) -> Any:
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
        return self.get_at(pk(ledger), sk, consistent=consistent)

    def get_at(self, partition: str, sk: str, *, consistent: bool = True) -> Item | None:
        """One item of any partition (a ledger's, a user's, an invitation's)."""
        res = self.call(
            self.client.get_item,
            TableName=self.table,
            Key=to_ddb({"PK": partition, "SK": sk}),
            ConsistentRead=consistent,
        )
        return from_ddb(res["Item"]) if "Item" in res else None

    def query(self, ledger: str, **options: Unpack[QueryOptions]) -> Iterator[Item]:
        """Items of one ledger in SK order (`query_at` its partition)."""
        return self.query_at(pk(ledger), **options)

    def query_at(
        self,
        partition: str,
        *,
        begins_with: str | None = None,
        between: tuple[str, str] | None = None,
        forward: bool = True,
        consistent: bool = True,
        projection: str | None = None,
        names: dict[str, str] | None = None,
        filter_expression: str | None = None,
        values: dict[str, Any] | None = None,
        start_sk: str | None = None,
        page_size: int | None = None,
    ) -> Iterator[Item]:
        """Items of one partition in SK order, following pages lazily. Strongly consistent unless
        told: a page reloaded right after a write must show it."""
        expr_values: dict[str, Any] = {":pk": partition, **(values or {})}
        if begins_with is not None:
            between = prefix_range(begins_with)
        if between is not None:
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
            kwargs["ExclusiveStartKey"] = to_ddb({"PK": partition, "SK": start_sk})
        while True:
            res = self.call(self.client.query, **kwargs)
            for raw in res.get("Items", []):
                item = from_ddb(raw)
                if begins_with is None or item["SK"].startswith(begins_with):
                    yield item
            last = res.get("LastEvaluatedKey")
            if not last:
                return
            kwargs["ExclusiveStartKey"] = last

    def transact(self, ops: Sequence[TxOp], token: str | None = None) -> None:
        """One TransactWriteItems call; conflicts and throttling retried with the same token. Only the
        write context (journal.py) calls it: every write goes through `commit` or `record`."""
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
        self.retrying(send)

    def role_check(self, ledger_id: str, user: str, roles: tuple[str, ...], on_fail: OnFail) -> TxOp:
        """A ConditionCheck that `user` is still a member of a shared ledger with one of `roles`."""
        names = {f":r{i}": role for i, role in enumerate(roles)}
        return TxOp(
            "ConditionCheck",
            {
                "TableName": self.table,
                "Key": to_ddb({"PK": household_pk(ledger_id), "SK": member_sk(user)}),
                "ConditionExpression": f"attribute_exists(PK) AND #role IN ({', '.join(names)})",
                "ExpressionAttributeNames": {"#role": "role"},
                "ExpressionAttributeValues": to_ddb(names),
                "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
            },
            on_fail,
        )

    def retrying(self, call: Callable[[], Any]) -> Any:
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
            if attempt + 1 < self.retry.attempts and not self.retry.pause(attempt):
                break  # the request's time would run out before another attempt answered
        raise errors.Conflict("the ledger is busy with concurrent changes; retry", retry_after=1)

    def batch_get(self, ledger: str, sks: Sequence[str]) -> dict[str, Item]:
        """The items at `sks` that exist, by SK: strongly consistent reads, 100 keys per call."""
        if len(sks) == 1:
            item = self.get(ledger, sks[0])
            return {sks[0]: item} if item is not None else {}
        out: dict[str, Item] = {}
        for begin in range(0, len(sks), MAX_BATCH_GET):
            keys = [to_ddb({"PK": pk(ledger), "SK": sk}) for sk in sks[begin : begin + MAX_BATCH_GET]]
            request: dict[str, Any] = {self.table: {"Keys": keys, "ConsistentRead": True}}
            for attempt in range(self.retry.attempts):
                res = self.call(self.client.batch_get_item, RequestItems=request)
                for raw in res.get("Responses", {}).get(self.table, []):
                    item = from_ddb(raw)
                    out[item["SK"]] = item
                request = res.get("UnprocessedKeys") or {}
                if not request or not self.retry.pause(attempt):
                    break
            if request:
                raise errors.Conflict("the ledger is busy; retry shortly", retry_after=1)
        return out

    def batch_write(self, table: str, requests: Sequence[dict[str, Any]]) -> None:
        """Put and delete requests on `table` (BatchWriteItem), 25 a call; what a call leaves
        unprocessed is sent again after a pause that doubles (at most 2 s) while the request's
        deadline allows it, else 409 conflict. Writing again what is written does nothing new."""
        for begin in range(0, len(requests), MAX_BATCH_WRITE):
            pending: dict[str, Any] = {table: list(requests[begin : begin + MAX_BATCH_WRITE])}
            for attempt in range(BATCH_WRITE_ATTEMPTS):
                res = self.call(self.client.batch_write_item, RequestItems=pending)
                pending = res.get("UnprocessedItems") or {}
                if not pending or not self.retry.pause_for(min(2.0, 0.05 * 2**attempt)):
                    break
            if pending:
                raise errors.Conflict("the table is busy; retry shortly", retry_after=1)

    def transact_get(self, ledger: str, sks: Sequence[str]) -> list[Item | None]:
        """A consistent snapshot of up to 100 items (TransactGetItems)."""
        out: list[Item | None] = []
        for start in range(0, len(sks), 100):
            chunk = sks[start : start + 100]
            gets: list[Any] = [
                {"Get": {"TableName": self.table, "Key": to_ddb({"PK": pk(ledger), "SK": sk})}} for sk in chunk
            ]
            res = self.retrying(functools.partial(self.client.transact_get_items, TransactItems=gets))
            for response in res["Responses"]:
                raw = response.get("Item")
                out.append(from_ddb(raw) if raw else None)
        return out

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

    def conditional(self, fn: Callable[..., Any], **kwargs: Any) -> bool:
        """One conditional write: True if applied, False if its condition failed."""
        try:
            self.write_one(fn, **kwargs)
        except ConditionFailed:
            return False
        return True

    def write_one(self, fn: Callable[..., Any], **kwargs: Any) -> Any:
        """One conditional write on the table; `ConditionFailed` (with the item, if returned) if refused."""
        try:
            return self.call(fn, TableName=self.table, **kwargs)
        except ClientError as exc:
            if exc.response["Error"]["Code"] == "ConditionalCheckFailedException":
                old: dict[str, Any] | None = exc.response.get("Item")  # type: ignore[assignment]
                raise ConditionFailed(from_ddb(old) if old else None) from exc
            raise


class ConditionFailed(Exception):
    def __init__(self, item: Item | None) -> None:
        super().__init__("condition failed")
        self.item = item


def _expressions(
    body: dict[str, Any], names: dict[str, str] | None = None, values: dict[str, Any] | None = None
) -> None:
    if names:
        body["ExpressionAttributeNames"] = names
    if values:
        body["ExpressionAttributeValues"] = to_ddb(values)


def seconds_until(until_ms: int, now_ms: int) -> int:
    """A Retry-After value: the seconds left on a lease, at least 1, at most a minute."""
    return max(1, min(60, math.ceil((until_ms - now_ms) / 1000)))
