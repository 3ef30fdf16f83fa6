"""Integration tests: real transaction semantics on DynamoDB Local (started once per session)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import boto3
import pytest

from kakeibo.local.bootstrap import create_tables
from kakeibo.store import Store, get_store
from tests.conftest import reset_caches
from tests.events import Client


@pytest.fixture
def api(local_env: str, user: str) -> Client:
    return Client(user)


@pytest.fixture
def other_api(local_env: str, other_user: str) -> Client:
    return Client(other_user)


@pytest.fixture
def store(local_env: str) -> Store:
    return get_store()


@pytest.fixture
def own_store(local_env: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Store]:
    """Tables of the test's own: a daily job it runs finds no other test's work (nor they its)."""
    suffix = uuid.uuid4().hex[:10]
    names = {"LedgerTable": f"LedgerTable-own-{suffix}", "IdempotencyTable": f"IdempotencyTable-own-{suffix}"}
    client = boto3.client("dynamodb", endpoint_url=local_env, region_name="us-east-1")
    create_tables(client, names)
    monkeypatch.setenv("TABLE_NAME", names["LedgerTable"])
    monkeypatch.setenv("IDEMPOTENCY_TABLE_NAME", names["IdempotencyTable"])
    reset_caches()
    yield get_store()
    for name in names.values():
        client.delete_table(TableName=name)
