"""Route properties (§30): declared by the module that serves the route, and what the handler does
with them before any route runs."""

from __future__ import annotations

import importlib
import json
from typing import Any

import pytest

from kakeibo.routes import MODULES, properties
from kakeibo.routes.properties import RouteProperties
from tests.events import Client

PREFIX = "/ledgers/<ledger>"


def _served(module: Any) -> set[str]:
    """The routes a module's Router serves, as API Gateway keys them: `/ledgers/{ledger}/…` copies
    also as the route they repeat."""
    keys = set()
    for path, methods, *_ in module.router._routes:
        for method in methods:
            for form in {path, path.removeprefix(PREFIX) or "/"}:
                keys.add(f"{method} {form.replace('<', '{').replace('>', '}')}")
    return keys


def test_each_route_module_declares_only_routes_it_serves() -> None:
    # Given every route module, When its declared properties are read
    for name in MODULES:
        module = importlib.import_module(f"kakeibo.routes.{name}")
        declared = getattr(module, "PROPERTIES", {})
        # Then each names a route of that module, as its properties
        assert set(declared) <= _served(module), (name, set(declared) - _served(module))
        assert all(isinstance(said, RouteProperties) for said in declared.values()), name
        # And a route without a body is a POST, a raw body is not also no body
        for route, said in declared.items():
            assert not said.no_body or route.startswith("POST "), route
            assert not (said.no_body and said.raw_body), route


def test_the_routes_declared_are_the_ones_the_handler_treats_so() -> None:
    # Given every route included
    from kakeibo.handler import include_all_routes

    include_all_routes()
    # Then every route the handler makes happen once by its Idempotency-Key documents the key (the
    # receipts' upload and a reconciliation take theirs in their own services)
    document = json.loads(Client(None).request("GET", "/openapi.json").raw)
    keyed = {
        f"{method.upper()} {path.removeprefix('/ledgers/{ledger}')}"
        for path, operations in document["paths"].items()
        for method, operation in operations.items()
        if any(str(p.get("name")).lower() == "idempotency-key" for p in operation.get("parameters", []))
    }
    idempotent = properties.routes_with("idempotent")
    assert idempotent <= keyed, idempotent - keyed
    assert {"POST /slips", "POST /slips/bulk", "POST /imports", "POST /settlements"} <= idempotent
    # And the public ones are the API's health and description only
    assert properties.routes_with("public") == {"GET /health", "GET /openapi.json", "GET /swagger"}


def test_a_route_declared_twice_must_say_the_same() -> None:
    # Given a route already declared, When it is declared again otherwise, Then that is refused
    properties.declare({"GET /health": RouteProperties(public=True)})
    with pytest.raises(ValueError, match="declared twice"):
        properties.declare({"GET /health": RouteProperties()})


@pytest.mark.parametrize(
    ("route", "body", "status"),
    [
        ("/ledger/verify", "{}", 200),  # no body, an empty object tolerated
        ("/ledger/verify", '{"a": 1}', 400),  # a route that takes no body refuses one
        ("/slips", "", 400),  # a JSON route needs its body
    ],
)
def test_the_declared_body_is_what_the_handler_checks(api: Client, route: str, body: str, status: int) -> None:
    # Given a person with an account
    api.account("cash", 0)
    # When the route is sent that body, Then its declared properties decide before it runs
    reply = api.request("POST", route, raw=body, headers={"Content-Type": "application/json"})
    assert reply.status == status, reply
