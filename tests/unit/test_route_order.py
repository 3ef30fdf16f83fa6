"""Which route answers a path never depends on the order the routers are registered in: a literal
segment wins over a parameter in the same place (/slips/{id}/history over /slips/{date}/{id})."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from aws_lambda_powertools.event_handler import APIGatewayHttpResolver

from kakeibo import handler


def _winner(resolver: APIGatewayHttpResolver, method: str, path: str) -> str:
    """The route the resolver tries first that matches (static routes come before the others)."""
    routes: list[Any] = [*resolver._static_routes, *resolver._dynamic_routes]
    return next(r.path for r in routes if r.method == method and r.rule.match(path))


@pytest.mark.parametrize("order", ["as listed", "reversed", "shuffled"])
def test_the_most_specific_route_answers_whatever_the_order(order: str) -> None:
    # Given the routers registered in some order
    routers = list(handler.ROUTERS)
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
