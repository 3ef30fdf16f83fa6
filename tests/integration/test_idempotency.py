"""Idempotency-Key on DynamoDB Local: replays, reuse with another body, lost responses, and many
duplicates at once — a payment is never counted twice."""

from __future__ import annotations

import uuid
from collections import Counter
from typing import Any

import boto3
import pytest
from botocore.exceptions import ReadTimeoutError

from kakeibo.local import template
from kakeibo.local.bootstrap import create_tables
from kakeibo.store import Store
from kakeibo.store.keys import idempotency_person, idempotency_tag
from tests import invariants
from tests.concurrently import fan_out
from tests.events import Client
from tests.idempotency_records import ExpiredKeys

LUNCH = {"date": "2026-11-03", "kind": "expense", "amount": 1200, "account": "cash", "category": "食費"}


@pytest.fixture
def cash(api: Client) -> Client:
    api.account("cash", 20000)
    return api


def key(value: str) -> dict[str, str]:
    return {"Idempotency-Key": value}


def test_a_replay_returns_the_original_answer_and_writes_nothing(cash: Client, store: Store, user: str) -> None:
    first = cash.post("/slips", LUNCH, headers=key("k-1"))
    again = cash.post("/slips", LUNCH, headers=key("k-1"))
    assert first.status == again.status == 201
    assert again.json == first.json
    assert again.etag == first.etag and again.header("Location") == first.header("Location")
    assert len(cash.get("/slips").json["items"]) == 1
    assert cash.balances()["cash"] == 18800
    assert invariants.check(store, user) == []


def test_same_key_with_another_body_is_422(cash: Client) -> None:
    assert cash.post("/slips", LUNCH, headers=key("k-2")).status == 201
    reused = cash.post("/slips", {**LUNCH, "amount": 999}, headers=key("k-2"))
    assert reused.status == 422 and reused.json["code"] == "idempotency_key_reused"
    assert cash.balances()["cash"] == 18800


def test_keys_are_scoped_per_ledger(cash: Client, other_api: Client) -> None:
    other_api.account("cash", 500)
    assert cash.post("/slips", LUNCH, headers=key("same")).status == 201
    theirs = other_api.post("/slips", {**LUNCH, "amount": 100}, headers=key("same"))
    assert theirs.status == 201
    assert other_api.balances()["cash"] == 400 and cash.balances()["cash"] == 18800


def test_a_refusal_is_replayed_too(cash: Client) -> None:
    over = {**LUNCH, "amount": 50000}
    first = cash.post("/slips", over, headers=key("k-3"))
    assert first.status == 409 and first.json["code"] == "insufficient_funds"
    assert cash.post("/slips", over, headers=key("k-3")).raw == first.raw


def test_accounts_take_keys_too(api: Client) -> None:
    body = {"id": "cash", "name": "財布", "type": "cash", "opening_balance": 100}
    first = api.post("/accounts", body, headers=key("acct"))
    again = api.post("/accounts", body, headers=key("acct"))
    assert first.status == again.status == 201 and again.json == first.json
    assert api.post("/accounts", body).status == 409  # without the key it is a second create


@pytest.mark.parametrize("bad", ["", " ", "x" * 256, "ключ"])
def test_malformed_keys_are_400(cash: Client, bad: str) -> None:
    reply = cash.post("/slips", LUNCH, headers=key(bad))
    assert reply.status == 400, reply
    assert reply.json["code"] == "bad_request"
    assert cash.balances()["cash"] == 20000


class LoseResponses:
    """Let TransactWriteItems reach DynamoDB, then lose its answer `times` times."""

    def __init__(self, store: Store, times: int) -> None:
        self.left = times
        self.sent = 0
        store.core.client.meta.events.register("after-call.dynamodb.TransactWriteItems", self.lose)

    def lose(self, **kwargs: Any) -> None:
        self.sent += 1
        if self.left > 0:
            self.left -= 1
            raise ReadTimeoutError(endpoint_url="http://dynamodb")


def test_a_lost_response_after_commit_is_retried_with_the_same_token(cash: Client, store: Store, user: str) -> None:
    # Given DynamoDB commits the slip but its answer is lost once
    lost = LoseResponses(store, times=1)
    # When the slip is posted
    reply = cash.post("/slips", LUNCH, headers=key("k-lost"))
    # Then our retry (same ClientRequestToken) is a no-op for DynamoDB: one slip, money moved once
    assert reply.status == 201
    assert lost.sent == 2
    assert len(cash.get("/slips").json["items"]) == 1
    assert cash.balances()["cash"] == 18800
    assert invariants.check(store, user) == []


def test_the_client_retrying_after_all_answers_were_lost_gets_its_one_slip(
    cash: Client, store: Store, user: str
) -> None:
    # Given every answer to the first request is lost (it did commit)
    LoseResponses(store, times=store.core.retry.attempts)
    first = cash.post("/slips", LUNCH, headers=key("k-gone"))
    # Then the caller is told to retry (409 conflict, not remembered as the key's outcome)
    assert first.status == 409 and first.json["code"] == "conflict"
    assert first.header("Retry-After") == "1"
    # When the caller retries with the same key
    second = cash.post("/slips", LUNCH, headers=key("k-gone"))
    # Then it gets the slip that was committed the first time — still exactly one
    assert second.status == 201
    slips = cash.get("/slips").json["items"]
    assert [s["id"] for s in slips] == [second.json["id"]]
    assert cash.balances()["cash"] == 18800
    assert invariants.check(store, user) == []


def test_fifty_concurrent_posts_with_one_key_make_one_slip(cash: Client, store: Store, user: str) -> None:
    # When 50 processes post the same slip with the same key at the same moment
    replies = fan_out(user, [("POST", "/slips", LUNCH, key("k-50"))] * 50)
    # Then every answer is the original 201 or 409 request_in_progress
    statuses = Counter(r.status for r in replies)
    assert set(statuses) <= {201, 409}, statuses
    assert all(r.json["code"] == "request_in_progress" for r in replies if r.status == 409)
    created = {r.json["id"] for r in replies if r.status == 201}
    assert len(created) == 1
    # And there is exactly one slip, and the money moved once
    assert len(cash.get("/slips").json["items"]) == 1
    assert cash.balances()["cash"] == 18800
    assert invariants.check(store, user) == []


def test_another_body_meeting_a_running_request_is_asked_to_wait_not_refused_the_key(
    cash: Client, store: Store, user: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kakeibo.services import slips

    real = slips.create_slip
    met: list[Any] = []
    other = Client(user)  # another instance of the function

    def meets_another_body(*args: Any, **kwargs: Any) -> Any:
        # While this request runs (its key's record in progress), another body comes with the key
        if not met:
            met.append(other.post("/slips", {**LUNCH, "amount": 999}, headers=key("k-running")))
        return real(*args, **kwargs)

    # Given a request with a key that meets another body with the same key while it runs
    monkeypatch.setattr(slips, "create_slip", meets_another_body)
    first = cash.post("/slips", LUNCH, headers=key("k-running"))
    monkeypatch.setattr(slips, "create_slip", real)
    # Then the other body was asked to retry shortly — the running request might yet not keep the key
    assert met[0].status == 409 and met[0].json["code"] == "request_in_progress", met[0]
    assert met[0].header("Retry-After") == "1"
    # And the running request was carried out once
    assert first.status == 201, first
    # And once it is kept, the other body is refused the key (422), and nothing more was written
    late = cash.post("/slips", {**LUNCH, "amount": 999}, headers=key("k-running"))
    assert late.status == 422 and late.json["code"] == "idempotency_key_reused", late
    assert len(cash.get("/slips").json["items"]) == 1
    assert cash.balances()["cash"] == 18800
    assert invariants.check(store, user) == []


def test_a_server_error_is_not_kept_and_the_same_request_is_carried_out_after(
    cash: Client, store: Store, user: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kakeibo.services import slips

    records = ExpiredKeys(store)
    real = slips.create_slip
    calls: list[int] = []

    def fails_first(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("the function failed")
        return real(*args, **kwargs)

    # Given the first attempt fails inside the function (500)
    monkeypatch.setattr(slips, "create_slip", fails_first)
    failed = cash.post("/slips", LUNCH, headers=key("k-500"))
    assert failed.status == 500 and failed.json["code"] == "internal_error", failed
    # Then the key has no record
    assert records.made() == set()
    # And the same request, sent again with the key, is carried out once
    again = cash.post("/slips", LUNCH, headers=key("k-500"))
    assert again.status == 201, again
    assert cash.post("/slips", LUNCH, headers=key("k-500")).json == again.json
    assert len(cash.get("/slips").json["items"]) == 1
    assert cash.balances()["cash"] == 18800
    assert invariants.check(store, user) == []


def test_a_key_whose_record_vanishes_between_its_checks_is_told_to_retry(
    cash: Client, store: Store, user: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from aws_lambda_powertools.utilities.idempotency.exceptions import (
        IdempotencyItemAlreadyExistsError,
        IdempotencyItemNotFoundError,
    )

    from kakeibo.store.idempotency_layer import PersistenceLayer

    # Given a key whose record another request holds when this one records it, and which is gone
    # (that request failed and its record was removed) when this one reads it: many requests with one
    # key at once, on a loaded machine
    def taken(self: PersistenceLayer, *args: Any, **kwargs: Any) -> None:
        raise IdempotencyItemAlreadyExistsError

    def vanished(self: PersistenceLayer, *args: Any, **kwargs: Any) -> None:
        raise IdempotencyItemNotFoundError

    monkeypatch.setattr(PersistenceLayer, "_put_record", taken)
    monkeypatch.setattr(PersistenceLayer, "_get_record", vanished)
    # When the slip is posted with that key
    reply = cash.post("/slips", LUNCH, headers=key("k-vanished"))
    # Then the caller is told to retry shortly (never a 5xx), and nothing was written
    assert reply.status == 409 and reply.json["code"] == "request_in_progress", reply
    assert reply.header("Retry-After") == "1"
    assert cash.get("/slips").json["items"] == []
    assert invariants.check(store, user) == []


def test_records_are_kept_in_their_person_s_partition_under_their_own_key(cash: Client, store: Store) -> None:
    # Given a slip posted with an Idempotency-Key
    records = ExpiredKeys(store)
    assert cash.post("/slips", LUNCH, headers=key("lunch-1")).status == 201
    # Then its record is in the person's partition, under a key that carries their tag
    (record,) = records.made()
    assert idempotency_tag(str(cash.user)) in record
    table = records.table
    found = store.core.client.query(
        TableName=table,
        KeyConditionExpression="id = :person",
        ExpressionAttributeValues={":person": {"S": idempotency_person(str(cash.user))}},
    )["Items"]
    assert [i["sk"]["S"] for i in found] == [record]
    # And the same request is still answered from it
    again = cash.post("/slips", LUNCH, headers=key("lunch-1"))
    assert again.status == 201 and again.json["id"] == cash.get("/slips").json["items"][0]["id"]


def test_a_local_records_table_keyed_as_before_is_made_again_as_the_template_keys_it(local_env: str) -> None:
    # Given make run's records table from before records were kept per person (keyed by id alone),
    # holding a record, beside a ledger table
    client = boto3.client("dynamodb", endpoint_url=local_env, region_name="us-east-1")
    suffix = uuid.uuid4().hex[:8]
    names = {"LedgerTable": f"LedgerTable-rekey-{suffix}", "IdempotencyTable": f"IdempotencyTable-rekey-{suffix}"}
    client.create_table(
        TableName=names["IdempotencyTable"],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
    )
    client.put_item(TableName=names["IdempotencyTable"], Item={"id": {"S": "old-record"}})
    try:
        # When the tables are bootstrapped, twice
        create_tables(client, names)
        client.put_item(TableName=names["LedgerTable"], Item={"PK": {"S": "LEDGER#kept"}, "SK": {"S": "META"}})
        create_tables(client, names)
        # Then the records table has the template's keys (its day-long records dropped with it), and
        # the ledger table, whose data is never dropped, is kept as it was
        wanted = template.tables()["IdempotencyTable"]["KeySchema"]
        assert client.describe_table(TableName=names["IdempotencyTable"])["Table"]["KeySchema"] == wanted
        assert client.scan(TableName=names["IdempotencyTable"])["Items"] == []
        assert len(client.scan(TableName=names["LedgerTable"])["Items"]) == 1
        assert template.transient_tables() == {"IdempotencyTable"}
    finally:
        for table in names.values():
            client.delete_table(TableName=table)
