"""SnapStart priming leaves nothing behind that restored instances would share wrongly, and its
DynamoDB is answered in the process (the endpoint here is one nothing listens on)."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from types import ModuleType

import boto3
import pytest

from kakeibo import priming


@pytest.fixture
def unreachable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLE_NAME", "LedgerTable")
    monkeypatch.setenv("IDEMPOTENCY_TABLE_NAME", "IdempotencyTable")
    monkeypatch.setenv("DYNAMODB_ENDPOINT_URL", "http://127.0.0.1:9")  # never contacted
    monkeypatch.setenv("RATE_LIMIT_PERSON", "300")  # the request budgets' counter is primed too
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")  # nor are the function's credentials looked up
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    # a session of its own: boto3's default one keeps the credentials an earlier test of this process found
    monkeypatch.setattr(boto3, "DEFAULT_SESSION", None)


@pytest.fixture(autouse=True)
def thawed() -> Iterator[None]:
    """This process's heap given back to the collector after each test (the priming freezes it)."""
    gc.unfreeze()
    yield
    gc.unfreeze()


def test_priming_serves_its_requests_without_a_network_and_leaves_no_request_behind(unreachable: None) -> None:
    from aws_lambda_powertools.event_handler.api_gateway import BaseRouter
    from aws_lambda_powertools.logging import logger as powertools_logger

    from kakeibo import handler, idempotency
    from kakeibo.store import dynamodb_client, get_limit_store, get_store

    threads = threading.active_count()
    credentials = dynamodb_client()._request_signer._credentials
    # When the function is primed
    done = priming.prime(handler)
    # Then its requests were answered, every DynamoDB call of theirs in the process
    assert done["statuses"] == [201, 201, 200]
    assert {"TransactWriteItems", "PutItem", "UpdateItem", "Query"} <= set(done["calls"])
    # And nothing of those requests is left for a restored instance to share
    assert "current_event" not in vars(BaseRouter) and "lambda_context" not in vars(BaseRouter)
    assert handler.app.context == {}
    assert idempotency._idempotent()[1].lambda_context is None
    keys = handler.logger.get_current_keys()
    assert not {"function_request_id", "correlation_id", "cold_start"} & set(keys)
    assert powertools_logger.is_cold_start is True
    store = get_store()
    assert store.journal.heads == {} and store.balances.linked_seen == set()  # nothing of the priming ledger
    assert set(vars(store.core)) == {"client", "table", "retry", "clock"}
    assert set(vars(get_limit_store())) == {"core"}
    assert threading.active_count() == threads
    # And the client is as it was: its own credentials, its own HTTP session, with no connection
    client = dynamodb_client()
    assert client._request_signer._credentials is credentials
    assert not isinstance(client._endpoint.http_session, priming.LocalAnswers)
    assert len(client._endpoint.http_session._manager.pools) == 0
    # And the heap is kept as the snapshot will hold it: every object alive out of the collector's
    # generations, so no collection in a restored instance walks (and writes to) the shared memory
    assert gc.get_freeze_count() > 0


def test_a_priming_that_fails_leaves_the_instance_as_it_would_be_without_it(
    unreachable: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kakeibo import handler

    def broken(entry: ModuleType) -> None:
        raise RuntimeError("a route that cannot be imported")

    monkeypatch.setattr(priming, "import_everything", broken)
    # When the priming fails, the initialisation does not (an instance imports on first use)
    assert priming.prime(handler) == {"statuses": [], "calls": []}
    # And the heap is frozen all the same: what the initialisation made is in the snapshot either way
    assert gc.get_freeze_count() > 0


def test_an_update_answers_the_values_it_sets_on_an_absent_item() -> None:
    limit = {
        "UpdateExpression": "ADD #c :one SET #e = if_not_exists(#e, :expires)",
        "ExpressionAttributeNames": {"#c": "count", "#e": "expiration"},
        "ExpressionAttributeValues": {":one": {"N": "1"}, ":expires": {"N": "60"}},
        "ReturnValues": "UPDATED_NEW",
    }
    assert priming.answer("UpdateItem", limit) == {"Attributes": {"count": {"N": "1"}, "expiration": {"N": "60"}}}
    sequence = {
        "UpdateExpression": "SET #v = :v, other = :o",
        "ExpressionAttributeNames": {"#v": "value"},
        "ExpressionAttributeValues": {":v": {"N": "7"}, ":o": {"S": "x"}},
        "ReturnValues": "ALL_NEW",
    }
    assert priming.answer("UpdateItem", sequence) == {"Attributes": {"value": {"N": "7"}, "other": {"S": "x"}}}
    assert priming.answer("UpdateItem", {**limit, "ReturnValues": "NONE"}) == {}
    assert priming.answer("Query", {})["Items"] == []
    assert priming.answer("GetItem", {}) == {}
    assert priming.answer("TransactGetItems", {"TransactItems": [{}, {}]}) == {"Responses": [{}, {}]}
