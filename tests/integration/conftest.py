"""Integration tests: real transaction semantics on DynamoDB Local (started once per session)."""

from __future__ import annotations

import pytest

from kakeibo.store import Store, get_store
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
