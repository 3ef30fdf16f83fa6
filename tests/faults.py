"""Fault injection on a real boto3 client (event hooks: the calls still go to DynamoDB Local).

- `fail_before_send`: the request never leaves (connection refused)
- `lose_response`: DynamoDB applies the call, then its answer is lost (read timeout)
- `conflict`: DynamoDB answers TransactionCanceledException with TransactionConflict reasons
- `throttle`: DynamoDB answers ThrottlingException
- `slow`: the call takes longer than usual, then goes through

and `before_next_transaction`: another change committed between a write's reads and its transaction.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from botocore.awsrequest import AWSResponse
from botocore.exceptions import EndpointConnectionError, ReadTimeoutError


class _Raw:
    def __init__(self, data: bytes) -> None:
        self.data = data

    def stream(self, **kwargs: Any) -> Iterator[bytes]:
        yield self.data


def _error(request: Any, code: str, status: int = 400, **extra: Any) -> AWSResponse:
    body = json.dumps({"__type": f"com.amazonaws.dynamodb.v20120810#{code}", "message": code, **extra}).encode()
    return AWSResponse(request.url, status, {"Content-Type": "application/x-amz-json-1.0"}, _Raw(body))


@dataclass
class Faults:
    """Inject `kind` into the next `times` calls of `operation` on `client`."""

    client: Any
    operation: str
    kind: str
    times: int
    delay: float = 0.3
    injected: int = 0
    calls: int = 0
    _hooks: list[tuple[str, Any]] = field(default_factory=list)

    def _take(self) -> bool:
        self.calls += 1
        if self.injected < self.times:
            self.injected += 1
            return True
        return False

    def before_send(self, request: Any, **kwargs: Any) -> AWSResponse | None:
        if self.kind == "lose_response":
            return None
        if not self._take():
            return None
        if self.kind == "fail_before_send":
            raise EndpointConnectionError(endpoint_url=request.url)
        if self.kind == "conflict":
            body = json.loads(request.body)
            reasons = [{"Code": "TransactionConflict", "Message": "conflict"}] + [
                {"Code": "None"} for _ in body.get("TransactItems", [])[1:]
            ]
            return _error(request, "TransactionCanceledException", CancellationReasons=reasons)
        if self.kind == "throttle":
            return _error(request, "ThrottlingException")
        if self.kind == "slow":
            time.sleep(self.delay)
            return None
        raise AssertionError(self.kind)

    def after_call(self, **kwargs: Any) -> None:
        if self.kind == "lose_response" and self._take():
            raise ReadTimeoutError(endpoint_url="dynamodb")

    def install(self) -> None:
        for event, hook in (
            (f"before-send.dynamodb.{self.operation}", self.before_send),
            (f"after-call.dynamodb.{self.operation}", self.after_call),
        ):
            self.client.meta.events.register(event, hook)
            self._hooks.append((event, hook))

    def remove(self) -> None:
        for event, hook in self._hooks:
            self.client.meta.events.unregister(event, hook)
        self._hooks.clear()


@contextmanager
def injected(client: Any, operation: str, kind: str, times: int) -> Iterator[Faults]:
    faults = Faults(client, operation, kind, times)
    faults.install()
    try:
        yield faults
    finally:
        faults.remove()


def before_next_transaction(store: Any, action: Callable[[], object]) -> None:
    """Run `action` once, right before the next TransactWriteItems call on `store`'s client is sent
    (after the write has read and planned what it sends): a race, in a fixed order."""
    fired = []

    def hook(**kwargs: Any) -> None:
        if not fired:
            fired.append(True)
            store.core.client.meta.events.unregister("before-call.dynamodb.TransactWriteItems", hook)
            action()

    store.core.client.meta.events.register("before-call.dynamodb.TransactWriteItems", hook)
