"""API tests: real HTTP against the local front (template routes, the Lambda authorizer against the
local user pool).

KAKEIBO_TASK=DIR (a `sam build` directory of the LedgerFunction; `make test` sets it for one run of
this suite) serves the function as built: each instance imports it from DIR and the standard library
alone, as Lambda's /var/task. Unset, the instances import the sources."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import requests

from kakeibo.local.cognito import UserPool
from kakeibo.local.dynamodb import DynamoDBLocal, free_port
from kakeibo.local.front import Front, serve
from kakeibo.local.instances import Pool, authorizer_pool, concurrency
from kakeibo.local.s3 import S3Local, create_buckets
from kakeibo.local.template import ROOT
from tests.events import SUITE_TIMEOUT


class Http(requests.Session):
    def __init__(self, base: str, user: str | None) -> None:
        super().__init__()
        self.base = base
        if user:
            self.headers["Authorization"] = f"Bearer {user}"

    def request(self, method: str, url: str, *args: object, **kwargs: object) -> requests.Response:  # type: ignore[override]
        kwargs.setdefault("timeout", 30)
        return super().request(method, self.base + url, *args, **kwargs)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def function_pool(dynamodb_local: DynamoDBLocal, s3_local: S3Local) -> Iterator[Pool]:
    """The function's instances (FUNCTION_CONCURRENCY, default 4), as `make run` starts them."""

    task = Path(os.environ["KAKEIBO_TASK"]) if os.environ.get("KAKEIBO_TASK") else None
    assert task is None or (task / "kakeibo" / "handler.py").is_file(), f"KAKEIBO_TASK={task}: not a built function"
    # at Lambda's longest timeout: no request is cut short by how busy the machine is (tests.events)
    pool = Pool(concurrency(), function_environment(dynamodb_local, s3_local), task=task, timeout=SUITE_TIMEOUT).start()
    yield pool
    pool.close()


def function_environment(dynamodb_local: DynamoDBLocal, s3_local: S3Local) -> dict[str, str]:
    """The function's environment as make run gives it, on the session's servers, without request
    budgets: the suite's callers send hundreds of requests a minute each (make run's and the README's
    have them, tests/api/test_run.py and test_readme.py; their rules: tests/integration/test_limits.py)."""
    from kakeibo.local.instances import local_environment

    return {**local_environment(dynamodb_local.endpoint, s3_local.endpoint), "RATE_LIMIT_PERSON": "0",
            "RATE_LIMIT_TOKEN": "0"}  # fmt: skip


@pytest.fixture(scope="session")
def authorizer_instances(user_pool: UserPool, dynamodb_local: DynamoDBLocal, s3_local: S3Local) -> Iterator[Pool]:
    """template.yaml's AuthorizerFunction on an instance of its own, as make run starts it (from the
    sources, or built beside KAKEIBO_TASK's function)."""
    task = Path(os.environ["KAKEIBO_TASK"]) if os.environ.get("KAKEIBO_TASK") else None
    env = {**function_environment(dynamodb_local, s3_local), **user_pool.authorizer_environment()}
    pool = authorizer_pool(1, env, task=task).start()
    yield pool
    pool.close()


@pytest.fixture(scope="session")
def front(function_pool: Pool, authorizer_instances: Pool, user_pool: UserPool) -> Front:
    """The front as make run serves it: the Lambda authorizer (the user pool's tokens, personal access
    tokens in the function's table), `Bearer <name>` (most tests' caller), the page's config.json."""
    web = ROOT / "web"
    return Front(function_pool, web_root=web if web.is_dir() else None, authorizer=authorizer_instances,
                 page_config=user_pool.page_config())  # fmt: skip


@contextmanager
def serving(front: Front, *, quiet: bool = True) -> Iterator[str]:
    """The front on a free port of 127.0.0.1 while the block runs; yields its base URL."""
    server = serve(front, "127.0.0.1", free_port())
    server.quiet = quiet
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    try:
        yield f"http://{host}:{port}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def front_url(front: Front, s3_local: S3Local) -> Iterator[str]:
    """The HTTP front on a free port, for the whole session, in front of the function's instances
    (the receipts bucket lets the page on it upload, as make run's does)."""
    with serving(front) as url:
        create_buckets(s3_local.endpoint, origins=(url,))
        yield url


@pytest.fixture(scope="session")
def strict_front(function_pool: Pool, authorizer_instances: Pool, user_pool: UserPool) -> Front:
    """The front as `LOCAL_AUTH=strict make run` serves it: the user pool's tokens (and personal access
    tokens) only, no `Bearer <name>`; the page's browser tests run against it, as CI does."""
    return Front(function_pool, web_root=ROOT / "web", authorizer=authorizer_instances, names=False,
                 page_config=user_pool.page_config())  # fmt: skip


@pytest.fixture(scope="session")
def strict_front_url(strict_front: Front, front_url: str, s3_local: S3Local) -> Iterator[str]:
    """The strict front on a free port, for the whole session (the receipts bucket lets the page on it
    upload too, as on front_url)."""
    with serving(strict_front) as url:
        create_buckets(s3_local.endpoint, origins=(front_url, url))
        yield url


@pytest.fixture(autouse=True)
def _front_env(front_url: str, local_env: str) -> None:
    """In-process calls made by API tests (stores, checks) use the same DynamoDB Local."""


@pytest.fixture
def http(front_url: str, user: str) -> Http:
    return Http(front_url, user)


@pytest.fixture
def anonymous(front_url: str) -> Http:
    return Http(front_url, None)
