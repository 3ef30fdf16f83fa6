"""What a route is besides its code (§30): declared by the route module that serves it, beside the
route, and read by the handler before any route runs (identity, body, Idempotency-Key).

A route module names its routes' properties in `PROPERTIES`, by the route as API Gateway keys it
(`POST /slips`, its `/ledgers/{ledger}/...` copy included); the handler gathers them as it includes
the module (`kakeibo.handler.include_routers`). A route no module names has the defaults: it needs
an identity, takes a JSON body (a POST, PUT or PATCH) and ignores an Idempotency-Key.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, fields


@dataclass(frozen=True)
class RawBody:
    """A body that is not JSON: the media types it may be sent as and its size limit; the route
    reads the bytes as sent."""

    media_types: tuple[str, ...]
    limit: int


@dataclass(frozen=True)
class RouteProperties:
    public: bool = False  # needs no identity (template.yaml gives it `Auth: {Authorizer: NONE}`)
    raw_body: RawBody | None = None  # its body is not JSON
    no_body: bool = False  # a POST that takes no body (an empty JSON object is tolerated)
    idempotent: bool = False  # an Idempotency-Key makes it happen once (§5)


DEFAULT = RouteProperties()
NAMES = tuple(f.name for f in fields(RouteProperties))

_declared: dict[str, RouteProperties] = {}
_declaring = threading.Lock()


def declare(properties: Mapping[str, RouteProperties]) -> None:
    """The properties a route module declares, kept; a route declared twice must say the same."""
    with _declaring:
        for route, said in properties.items():
            if _declared.setdefault(route, said) != said:
                raise ValueError(f"{route} is declared twice, differently")


def of(route: str) -> RouteProperties:
    """The properties of `route` (as API Gateway keys it) among those declared so far."""
    return _declared.get(route, DEFAULT)


def routes_with(name: str) -> frozenset[str]:
    """The routes declared so far whose property `name` is set."""
    if name not in NAMES:
        raise ValueError(f"no route property {name!r}")
    return frozenset(route for route, said in _declared.items() if getattr(said, name))
