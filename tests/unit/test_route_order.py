"""Which route answers a path never depends on the order the routers are registered in: a literal
segment wins over a parameter in the same place (/slips/{id}/history over /slips/{date}/{id})."""

from __future__ import annotations

import importlib
import itertools
import json
import subprocess
import sys
from typing import Any

import pytest
from aws_lambda_powertools.event_handler import APIGatewayHttpResolver

from kakeibo import handler, routes


def _winner(resolver: APIGatewayHttpResolver, method: str, path: str) -> str:
    """The route the resolver tries first that matches (static routes come before the others)."""
    routes: list[Any] = [*resolver._static_routes, *resolver._dynamic_routes]
    return next(r.path for r in routes if r.method == method and r.rule.match(path))


@pytest.mark.parametrize("order", ["as listed", "reversed", "shuffled"])
def test_the_most_specific_route_answers_whatever_the_order(order: str) -> None:
    # Given the routers registered in some order
    routers = [importlib.import_module(f"kakeibo.routes.{name}") for name in routes.MODULES]
    if order == "reversed":
        routers.reverse()
    elif order == "shuffled":
        routers = routers[1::2] + routers[::2]
    resolver = APIGatewayHttpResolver()
    handler.include_routers(resolver, routers)
    # When paths that two routes could both match are resolved
    # Then the one with a literal where the other has a parameter answers
    assert _winner(resolver, "GET", "/slips/01JABCDEF/history") == "/slips/<id>/history"
    assert _winner(resolver, "GET", "/slips/2026-11-01/01JABCDEF") == "/slips/<date>/<id>"
    assert _winner(resolver, "GET", "/ledgers/L1/slips/01JABCDEF/history") == "/ledgers/<ledger>/slips/<id>/history"
    assert _winner(resolver, "GET", "/imports/formats") == "/imports/formats"


def test_specificity_ranks_literals_before_parameters_segment_by_segment() -> None:
    paths = ["/slips/<date>/<id>", "/slips/<id>/history", "/slips/<date>/<id>/x", "/slips/csv/<id>"]
    ranked = sorted(paths, key=handler.specificity)
    assert ranked.index("/slips/csv/<id>") < ranked.index("/slips/<id>/history") < ranked.index("/slips/<date>/<id>")
    # And every pair of same-length paths is ordered by the first segment where they differ
    for a, b in itertools.combinations(paths, 2):
        sa, sb = handler.specificity(a), handler.specificity(b)
        if len(sa) == len(sb) and sa != sb:
            first = next(i for i, (x, y) in enumerate(zip(sa, sb, strict=True)) if x != y)
            assert (sa < sb) == (sa[first] == 0)


def test_each_family_names_every_module_that_serves_its_paths() -> None:
    # Given every route module and the paths of its routes (plain and under /ledgers/{ledger})
    served: dict[str, set[str]] = {}
    for name in routes.MODULES:
        module = importlib.import_module(f"kakeibo.routes.{name}")
        for rule, *_ in module.router._routes:
            served.setdefault(routes.family(rule), set()).add(name)
    # Then the table the handler loads modules by names exactly those modules for each family
    assert {family: set(names) for family, names in routes.FAMILIES.items()} == served
    # And a request path finds its family's modules, plain or under a ledger, and any other path all
    assert (
        routes.modules_for("/slips/2026-11-01/01JABC")
        == routes.modules_for("/ledgers/L1/slips")
        == ("journal", "slips")
    )
    assert routes.modules_for("/ledgers/L1") == routes.modules_for("/ledgers") == ("ledgers", "ledgerdata")
    assert routes.modules_for("/openapi.json") == routes.modules_for("/nowhere") == routes.MODULES
    # And every module is in MODULES once
    assert len(set(routes.MODULES)) == len(routes.MODULES)


def test_a_request_loads_only_its_family_and_still_finds_the_most_specific_route() -> None:
    # Given a fresh process that imports the handler and loads what one request's path needs
    code = (
        "import sys, json\n"
        "from kakeibo import handler\n"
        "handler.include_routes(handler.modules_for('/slips/01JABCDEF/history'))\n"
        "print(json.dumps({'loaded': sorted(m for m in sys.modules if m.startswith('kakeibo.routes.')),"
        " 'paths': sorted({r.path for r in handler.app._dynamic_routes + handler.app._static_routes})}))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    out = json.loads(done.stdout.strip().splitlines()[-1])
    # Then only the slips family's route modules (and the shared scope helper and the routes'
    # properties, which the handler reads) were imported
    assert out["loaded"] == [
        "kakeibo.routes.journal", "kakeibo.routes.properties", "kakeibo.routes.scope", "kakeibo.routes.slips"
    ]  # fmt: skip
    # And the history route is there, before the date route that could also match
    assert "/slips/<id>/history" in out["paths"] and "/accounts" not in out["paths"]
