"""Unit tests: the handler and store against moto (function-scoped, no network)."""

from __future__ import annotations

from collections.abc import Iterator

import boto3
import pytest
from moto import mock_aws

from kakeibo.local import template
from kakeibo.local.bootstrap import create_tables
from tests.conftest import reset_caches
from tests.ddb_local import NO_BUDGETS
from tests.events import Client


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Moto with the template's tables, and the function's environment from the template."""
    for key, value in template.environment(overrides=NO_BUDGETS).items():  # a test is many requests a minute
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("DYNAMODB_ENDPOINT_URL", "")
    with mock_aws():
        reset_caches()
        create_tables(boto3.client("dynamodb"))
        yield
    reset_caches()


@pytest.fixture
def api(aws: None, user: str) -> Client:
    return Client(user)


@pytest.fixture
def other_api(aws: None, other_user: str) -> Client:
    return Client(other_user)
