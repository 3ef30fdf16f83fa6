"""Cancellation reasons and retries, with botocore's Stubber (DynamoDB never conflicts on cue).

TransactionConflict / throttling reasons are retried with backoff and the same ClientRequestToken;
condition failures map to precise errors at once; exhausted retries are 409 conflict."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.stub import ANY, Stubber

from kakeibo import errors
from kakeibo.store import Store, TxOp
from kakeibo.store.codec import to_ddb
from kakeibo.store.transactions import RetryPolicy


@pytest.fixture
def stubbed() -> Iterator[tuple[Store, Stubber, list[float]]]:
    client = boto3.client("dynamodb", region_name="us-east-1")
    sleeps: list[float] = []
    store = Store(client, "LedgerTable", RetryPolicy(attempts=4, sleep=sleeps.append))
    with Stubber(client) as stub:
        yield store, stub, sleeps
        stub.assert_no_pending_responses()


def _ops(store: Store) -> list[TxOp]:
    slip = store.core.put_op(
        "alice", {"SK": "SLIP#2026-11-03#X"}, "attribute_not_exists(SK)", lambda i: errors.AlreadyExists()
    )
    account = store.core.update_op(
        "alice",
        "ACCOUNT#cash",
        "ADD #b :d",
        lambda item: errors.InsufficientFunds(balance=(item or {}).get("balance")),
        condition="#b >= :need",
        names={"#b": "balance"},
        values={":d": -5, ":need": 5},
    )
    return [slip, account]


def _cancelled(*codes: str, item: dict[str, Any] | None = None) -> dict[str, Any]:
    reasons = []
    for code in codes:
        reason: dict[str, Any] = {"Code": code}
        if code == "ConditionalCheckFailed" and item is not None:
            reason["Item"] = to_ddb(item)
        reasons.append(reason)
    return {"CancellationReasons": reasons}


def _expect(stub: Stubber, *, error: tuple[str, dict[str, Any]] | None = None, token: str = "tok") -> None:
    params = {"TransactItems": ANY, "ClientRequestToken": token}
    if error is None:
        stub.add_response("transact_write_items", {}, params)
    else:
        code, extra = error
        stub.add_client_error(
            "transact_write_items", service_error_code=code, expected_params=params, modeled_fields=extra
        )


def test_conflicts_are_retried_with_the_same_token(stubbed: tuple[Store, Stubber, list[float]]) -> None:
    store, stub, sleeps = stubbed
    # Given two conflicts, then success
    _expect(stub, error=("TransactionCanceledException", _cancelled("None", "TransactionConflict")))
    _expect(stub, error=("TransactionCanceledException", _cancelled("ThrottlingError", "None")))
    _expect(stub)
    # When the transaction is sent
    store.core.transact(_ops(store), token="tok")
    # Then it was tried three times (same token: Stubber checked it), backing off in between
    assert len(sleeps) == 2
    assert all(0 <= s <= 0.5 for s in sleeps)


def test_exhausted_retries_are_409_conflict(stubbed: tuple[Store, Stubber, list[float]]) -> None:
    store, stub, sleeps = stubbed
    for _ in range(4):
        _expect(stub, error=("TransactionCanceledException", _cancelled("TransactionConflict", "None")))
    with pytest.raises(errors.Conflict) as raised:
        store.core.transact(_ops(store), token="tok")
    assert raised.value.status == 409 and raised.value.code == "conflict"
    assert len(sleeps) == 3


def test_a_failed_condition_is_mapped_at_once_to_its_item(
    stubbed: tuple[Store, Stubber, list[float]],
) -> None:
    store, stub, sleeps = stubbed
    reasons = _cancelled("None", "ConditionalCheckFailed", item={"balance": 3})
    _expect(stub, error=("TransactionCanceledException", reasons))
    with pytest.raises(errors.InsufficientFunds) as raised:
        store.core.transact(_ops(store), token="tok")
    assert raised.value.context["balance"] == 3
    assert sleeps == []


def test_condition_failure_wins_over_a_conflict_reason(stubbed: tuple[Store, Stubber, list[float]]) -> None:
    store, stub, _ = stubbed
    reasons = _cancelled("ConditionalCheckFailed", "TransactionConflict", item={"SK": "SLIP#x"})
    _expect(stub, error=("TransactionCanceledException", reasons))
    with pytest.raises(errors.AlreadyExists):
        store.core.transact(_ops(store), token="tok")


def test_transaction_in_progress_is_retried(stubbed: tuple[Store, Stubber, list[float]]) -> None:
    store, stub, sleeps = stubbed
    _expect(stub, error=("TransactionInProgressException", {}))
    _expect(stub)
    store.core.transact(_ops(store), token="tok")
    assert len(sleeps) == 1


def test_token_reused_for_another_change_is_422(stubbed: tuple[Store, Stubber, list[float]]) -> None:
    store, stub, _ = stubbed
    _expect(stub, error=("IdempotentParameterMismatchException", {}))
    with pytest.raises(errors.IdempotencyKeyReused):
        store.core.transact(_ops(store), token="tok")


def test_unknown_errors_are_not_swallowed(stubbed: tuple[Store, Stubber, list[float]]) -> None:
    from botocore.exceptions import ClientError

    store, stub, _ = stubbed
    _expect(stub, error=("ValidationException", {}))
    with pytest.raises(ClientError):
        store.core.transact(_ops(store), token="tok")


@pytest.mark.parametrize(
    ("error_code", "botocore_retries"),
    [("TransactionCanceledException", False), ("ThrottlingException", True)],
)
def test_what_botocore_retries_by_itself(error_code: str, botocore_retries: bool) -> None:
    """Why our own retry loop exists: botocore retries throttling, not a cancelled transaction."""
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    from botocore.config import Config

    hits: list[str] = []

    class Answer(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            hits.append(self.headers["X-Amz-Target"])
            body = json.dumps({"__type": f"com.amazonaws.dynamodb.v20120810#{error_code}", "message": "x"})
            self.send_response(400)
            self.send_header("Content-Type", "application/x-amz-json-1.0")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body.encode())

        def log_message(self, *args: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Answer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        client = boto3.client(
            "dynamodb",
            region_name="us-east-1",
            endpoint_url=f"http://127.0.0.1:{server.server_address[1]}",
            config=Config(retries={"mode": "standard", "max_attempts": 3}),
        )
        item = {"ConditionCheck": {"TableName": "t", "Key": {"PK": {"S": "a"}}, "ConditionExpression": "x"}}
        with pytest.raises(client.exceptions.ClientError) as raised:
            client.transact_write_items(TransactItems=[item])  # type: ignore[list-item]
    finally:
        server.shutdown()
        server.server_close()
    assert raised.value.response["Error"]["Code"] == error_code
    assert (len(hits) > 1) is botocore_retries, hits


@pytest.mark.parametrize("reason", ["ValidationError", "ItemCollectionSizeLimitExceeded"])
def test_a_permanent_reason_is_not_a_retryable_conflict(
    stubbed: tuple[Store, Stubber, list[float]], reason: str
) -> None:
    # Given a transaction cancelled for a reason that will not change on retry
    store, stub, sleeps = stubbed
    _expect(stub, error=("TransactionCanceledException", _cancelled("None", reason)))
    # When it is sent, Then it is not retried, and not answered as a conflict to retry
    with pytest.raises(errors.ApiError) as raised:
        store.core.transact(_ops(store), token="tok")
    assert not isinstance(raised.value, errors.Conflict)
    assert raised.value.code == "internal_error" and "Retry-After" not in raised.value.headers
    assert raised.value.context["reasons"] == [reason]
    assert sleeps == []


def _deletes(n: int) -> list[dict[str, Any]]:
    return [{"DeleteRequest": {"Key": to_ddb({"PK": "alice", "SK": f"SLIP#2026-11-03#{i:03d}"})}} for i in range(n)]


def test_a_batch_write_sends_25_a_call_and_what_is_left_unprocessed_again(
    stubbed: tuple[Store, Stubber, list[float]],
) -> None:
    store, stub, sleeps = stubbed
    requests = _deletes(30)
    # Given DynamoDB leaves two of the first 25 unprocessed once
    stub.add_response(
        "batch_write_item",
        {"UnprocessedItems": {"LedgerTable": requests[:2]}},
        {"RequestItems": {"LedgerTable": requests[:25]}},
    )
    stub.add_response("batch_write_item", {"UnprocessedItems": {}}, {"RequestItems": {"LedgerTable": requests[:2]}})
    stub.add_response("batch_write_item", {}, {"RequestItems": {"LedgerTable": requests[25:]}})
    # When the 30 requests are written, Then the two are sent again after one pause, then the other 5
    store.core.batch_write("LedgerTable", requests)
    assert len(sleeps) == 1


def test_a_batch_write_that_stays_unprocessed_is_409_conflict_within_the_deadline(
    stubbed: tuple[Store, Stubber, list[float]], monkeypatch: pytest.MonkeyPatch
) -> None:
    from kakeibo import deadline

    store, stub, sleeps = stubbed
    requests = _deletes(3)
    # Given a request with no time left for a pause, and DynamoDB leaving everything unprocessed
    monkeypatch.setattr(deadline, "allows", lambda pause=0.0: False)
    stub.add_response("batch_write_item", {"UnprocessedItems": {"LedgerTable": requests}}, {"RequestItems": ANY})
    # When they are written, Then one call is made and the request is refused as retryable, unslept
    with pytest.raises(errors.Conflict):
        store.core.batch_write("LedgerTable", requests)
    assert sleeps == []
