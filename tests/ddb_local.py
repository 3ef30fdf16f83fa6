"""DynamoDB Local for the integration and API tests: one in-memory instance per test session."""

from __future__ import annotations

from collections.abc import Iterator

import boto3
import pytest

from kakeibo.local import template
from kakeibo.local.bootstrap import create_tables
from kakeibo.local.dynamodb import DynamoDBLocal, free_port
from tests.conftest import reset_caches


@pytest.fixture(scope="session")
def dynamodb_local() -> Iterator[DynamoDBLocal]:
    ddb = DynamoDBLocal(free_port()).start()
    try:
        client = boto3.client("dynamodb", endpoint_url=ddb.endpoint, region_name="us-east-1")
        create_tables(client)
        yield ddb
    finally:
        ddb.stop()


@pytest.fixture
def local_env(dynamodb_local: DynamoDBLocal, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The function's environment (from the template) pointed at the session's DynamoDB Local."""
    for key, value in template.environment(overrides={"DynamoDbEndpointUrl": dynamodb_local.endpoint}).items():
        monkeypatch.setenv(key, value)
    reset_caches()
    yield dynamodb_local.endpoint
    reset_caches()
