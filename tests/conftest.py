"""Shared fixtures. Nothing here talks to AWS: unit tests use moto, the rest DynamoDB Local."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

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


# No test may depend on the machine's speed: property tests have no deadline, whatever they set, and
# no health check of how long their inputs took to draw (a loaded machine draws slowly).
settings.register_profile("kakeibo", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("kakeibo")
# What a property test over function-scoped fixtures suppresses (a test's own list replaces the profile's).
WITH_FIXTURES = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow]


def reset_caches() -> None:
    """Settings and clients are cached per process (as in Lambda); tests switch backends."""
    from kakeibo import blobs, idempotency, settings, store

    settings.get_settings.cache_clear()
    blobs.reset()
    store.dynamodb_client.cache_clear()
    store.get_store.cache_clear()
    store.get_token_store.cache_clear()
    store.get_limit_store.cache_clear()
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


# The tests that take minutes (a real browser, the bench's quick run, many processes at once, a
# process killed and started again). They run first, so that the suite's processes (pytest-xdist
# hands tests out in collection order) share them out and finish together, instead of one process
# starting a long test when the other has run out of work.
LONG_FIRST = (
    "tests/api/test_web.py::test_household_flow_in_a_real_browser",
    "tests/integration/test_bench_smoke.py::",
    "tests/integration/test_recurrence_job.py::test_every_due_item_is_found_once_across_the_shards",
    "tests/integration/test_concurrency.py::test_concurrent_writers_keep_every_invariant",
    "tests/integration/test_webhooks.py::test_the_sender_killed_mid_batch",
    "tests/api/test_run.py::",
    "tests/integration/test_household_concurrency.py::test_a_member_removed_while_writing",
    "tests/integration/test_package.py::",
    "tests/unit/test_field_messages.py::test_every_field_of_every_body_is_refused_in_words",
    "tests/api/test_web_views.py::",
    "tests/api/test_web_reconcile.py::",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The long tests first (in LONG_FIRST's order), the rest as collected. The order depends only on
    the names, so every process collects the same list."""

    def rank(item: pytest.Item) -> int:
        return next((i for i, prefix in enumerate(LONG_FIRST) if item.nodeid.startswith(prefix)), len(LONG_FIRST))

    items.sort(key=rank)  # stable: within a rank, the collected order stays
    timed = [item.nodeid for item in items if _checks_draw_time(item)]
    if timed:
        raise pytest.UsageError(f"property tests that check how long their inputs take to draw: {timed}")


def _checks_draw_time(item: pytest.Item) -> bool:
    """A property test whose own settings left hypothesis' too_slow health check on (WITH_FIXTURES)."""
    found = getattr(getattr(item, "obj", None), "_hypothesis_internal_use_settings", None)
    return found is not None and HealthCheck.too_slow not in found.suppress_health_check
