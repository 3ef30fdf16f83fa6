"""Shared fixtures. Nothing here talks to AWS: unit tests use moto, the rest DynamoDB Local."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
from hypothesis import settings

pytest_plugins = ["tests.ddb_local"]

# Never reach a real AWS account from the tests, whatever the developer's shell has.
for _var in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN"):
    os.environ.pop(_var, None)
os.environ.update(
    {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_REGION": "us-east-1",
        "POWERTOOLS_LOG_LEVEL": "WARNING",
        "POWERTOOLS_DEV": "false",
    }
)


# No test may depend on the machine's speed: property tests have no deadline, whatever they set.
settings.register_profile("kakeibo", deadline=None)
settings.load_profile("kakeibo")


def reset_caches() -> None:
    """Settings and clients are cached per process (as in Lambda); tests switch backends."""
    from kakeibo import blobs, idempotency, settings, store

    settings.get_settings.cache_clear()
    blobs.reset()
    store.dynamodb_client.cache_clear()
    store.get_store.cache_clear()
    store.idempotency_persistence.cache_clear()
    idempotency._idempotent.cache_clear()


@pytest.fixture
def user() -> str:
    """A fresh ledger (caller identity) per test."""
    return f"user-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def other_user() -> str:
    return f"other-{uuid.uuid4().hex[:12]}"


@pytest.fixture(autouse=True)
def _fresh_caches() -> Iterator[None]:
    reset_caches()
    yield
    reset_caches()
