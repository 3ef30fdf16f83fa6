"""API tests: real HTTP against the local front (template routes, emulated authorizer)."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
import requests

from kakeibo.local.dynamodb import DynamoDBLocal, free_port


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
def front_url(dynamodb_local: DynamoDBLocal) -> Iterator[str]:
    """The HTTP front on a free port, for the whole session, against the session's DynamoDB Local."""
    from kakeibo.local.__main__ import prepare_process_env

    prepare_process_env(dynamodb_local.endpoint)
    from tests.conftest import reset_caches

    reset_caches()
    from kakeibo.handler import lambda_handler
    from kakeibo.local.front import Front, serve
    from kakeibo.local.template import ROOT

    web = ROOT / "web"
    server = serve(Front(lambda_handler, web_root=web if web.is_dir() else None), "127.0.0.1", free_port())
    server.quiet = True  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    yield f"http://{host}:{port}"
    server.shutdown()
    server.server_close()


@pytest.fixture(autouse=True)
def _front_env(front_url: str, local_env: str) -> None:
    """The front calls the handler in this process: keep its environment on DynamoDB Local."""


@pytest.fixture
def http(front_url: str, user: str) -> Http:
    return Http(front_url, user)


@pytest.fixture
def anonymous(front_url: str) -> Http:
    return Http(front_url, None)
