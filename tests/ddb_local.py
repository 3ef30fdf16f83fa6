"""DynamoDB Local and the local S3 server for the integration and API tests: one in-memory instance
of each per test session; on the S3 server, the template's user pool."""

from __future__ import annotations

from collections.abc import Iterator

import boto3
import pytest

from kakeibo.local import template
from kakeibo.local.bootstrap import create_tables
from kakeibo.local.cognito import UserPool, create_user_pool
from kakeibo.local.dynamodb import DynamoDBLocal, free_port
from kakeibo.local.s3 import S3Local, create_bucket
from kakeibo.local.sqs import create_queues
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


@pytest.fixture(scope="session")
def s3_local() -> Iterator[S3Local]:
    """The S3-compatible server receipts are kept in, with the template's bucket (and, on the same
    server, the template's queues: the webhook sender's)."""
    yield from s3_server()


@pytest.fixture(scope="session")
def user_pool(s3_local: S3Local) -> UserPool:
    """template.yaml's user pool and app client on the session's local server, as make run makes them."""
    return create_user_pool(s3_local.endpoint, "us-east-1")


def s3_server() -> Iterator[S3Local]:
    """A started S3-compatible server with the template's buckets and queues, stopped at the end."""
    server = S3Local(free_port()).start()
    try:
        client = boto3.client(
            "s3", endpoint_url=server.endpoint, region_name="us-east-1", aws_access_key_id="local",
            aws_secret_access_key="local",
        )  # fmt: skip
        for logical in template.buckets():
            create_bucket(client, template.bucket_name(logical), template.bucket_cors(logical))
        create_queues(server.endpoint)
        yield server
    finally:
        server.stop()


NO_BUDGETS = {"RequestsPerMinute": "0", "TokenRequestsPerMinute": "0"}


@pytest.fixture
def local_env(dynamodb_local: DynamoDBLocal, s3_local: S3Local, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The function's environment (from the template) pointed at the session's DynamoDB Local and
    S3 server."""
    overrides = {
        "DynamoDbEndpointUrl": dynamodb_local.endpoint,
        "S3EndpointUrl": s3_local.endpoint,
        "SqsEndpointUrl": s3_local.endpoint,
        # no request budgets: a test makes hundreds of requests a minute as one person (the budgets
        # have their own tests, tests/integration/test_limits.py)
        **NO_BUDGETS,
    }
    for key, value in template.environment(overrides=overrides).items():
        monkeypatch.setenv(key, value)
    reset_caches()
    yield dynamodb_local.endpoint
    reset_caches()
