"""Ledger routes: each one served twice, for the caller's personal ledger and under
`/ledgers/{ledger}` for any ledger they belong to; and the ledger a request reaches, with its role.

`LedgerRouter` registers a route at its path and at `/ledgers/{ledger}` + path (operationId +
`InLedger`). A route function asks `ledger_scope(router, WRITE)` for the ledger it works on: the
caller's membership is read consistently (a non-member gets 404, a role that may not do it 403) and
the store reference it gets carries the caller and the allowed roles, so every write transaction
checks the membership again, atomically with the write.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aws_lambda_powertools.event_handler.api_gateway import BaseRouter, Router

from kakeibo.event import HELD_ACCESS, LEDGER_PREFIX
from kakeibo.event import ledger as event_ledger
from kakeibo.http import identity, problem_responses
from kakeibo.services.access import EDITORS, MEMBERS, OWNERS, Access, open_ledger, permit
from kakeibo.store import WriteContext, get_store

__all__ = ["EDITORS", "MEMBERS", "OWNERS", "LedgerRouter", "Scope", "ledger_access", "ledger_scope"]

_ROUTE = inspect.signature(Router.route)
_PREFIX = LEDGER_PREFIX.replace("{ledger}", "<ledger>")  # the resolver's spelling of a path parameter


class LedgerRouter(Router):
    """A Router whose every route also exists under `/ledgers/{ledger}`."""

    def route(self, *args: Any, **kwargs: Any) -> Callable[[Any], Any]:
        bound = _ROUTE.bind(self, *args, **kwargs)
        options = {name: value for name, value in bound.arguments.items() if name != "self"}
        plain = super().route(**options)
        scoped_options = dict(options, rule=_PREFIX + options["rule"], responses=_scoped_responses(options))
        if options.get("operation_id"):
            scoped_options["operation_id"] = f"{options['operation_id']}InLedger"
        scoped = super().route(**scoped_options)

        def register(func: Any) -> Any:
            scoped(func)
            return plain(func)

        return register


# Under /ledgers/{ledger} a route may also answer 404 (not a member: the ledger "does not exist") and,
# for a change, 403 (a viewer's write, an editor's rebuild). POST /ledger/verify only reads.
_READS = frozenset({"GET", "POST /ledger/verify"})


def _scoped_responses(options: dict[str, Any]) -> dict[int, Any]:
    method = options["method"] if isinstance(options["method"], str) else options["method"][0]
    changes = method not in _READS and f"{method} {options['rule']}" not in _READS
    extra = problem_responses(403, 404) if changes else problem_responses(404)
    return {**(options.get("responses") or {}), **extra}


@dataclass(frozen=True)
class Scope:
    """The ledger a request works on: `key` for the store, `base` for the URLs it answers with."""

    user: str
    access: Access
    base: str  # "" for an unprefixed route, else "/ledgers/{ledger}" as the request named it

    request_id: str | None = None

    @property
    def key(self) -> str:
        """The ledger as the store reads it."""
        return self.access.key

    @property
    def writer(self) -> WriteContext:
        """The caller's write context: the ledger, the caller, the role guard, this request's id."""
        return self.access.writer(request_id=self.request_id)

    def url(self, path: str) -> str:
        return self.base + path


def ledger_scope(router: BaseRouter, roles: tuple[str, ...] = MEMBERS, *, fenced: bool = False) -> Scope:
    """The ledger this request is for, if the caller may do this there (404 / 403 otherwise).
    `fenced`: the request always ends in a change or a read of the item it names, which a deleted
    person's ledger refuses by itself (services/access.resolve): their tombstone is not read."""
    user = identity(router)
    event = router.current_event.raw_event
    ledger = event_ledger(event)
    prefixed = str(event.get("routeKey", "")).partition(" ")[2].startswith(LEDGER_PREFIX + "/")
    access = ledger_access(router, ledger, roles, fenced=fenced)
    request_id = (event.get("requestContext") or {}).get("requestId")
    return Scope(user, access, f"/ledgers/{ledger}" if prefixed else "", str(request_id) if request_id else None)


def ledger_access(router: BaseRouter, ledger: str, roles: tuple[str, ...] = MEMBERS, *, fenced: bool = False) -> Access:
    """The caller's access to `ledger` for something `roles` may do (404 / 403 otherwise), read once
    per request: when the idempotency check resolved it already (handler, HELD_ACCESS), its roles are
    checked on that. That resolution read the tombstone a `fenced` one skips: it checked more."""
    user = identity(router)
    held = router.context.get(HELD_ACCESS)
    if isinstance(held, Access) and held.user == user and held.ledger == ledger:
        return permit(held, roles)
    return open_ledger(get_store(), user, ledger, roles, fenced=fenced)
