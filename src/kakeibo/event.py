"""Read an API Gateway HTTP API (payload 2.0) event as it arrives, before any route runs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


def header(event: dict[str, Any], name: str) -> str | None:
    """A request header by lower-case name (API Gateway lowercases them; a local caller may not)."""
    for key, value in (event.get("headers") or {}).items():
        if key.lower() == name:
            return str(value)
    return None


@dataclass(frozen=True, slots=True)
class Caller:
    """Who the authorizer let in: a person signed in (`via` jwt: a user pool's token) or a program
    with one of their personal access tokens (`via` token, with its scope and id)."""

    sub: str
    via: str = "jwt"
    scope: str = "write"
    token_id: str | None = None

    @property
    def may_write(self) -> bool:
        return self.scope == "write"


def caller(event: dict[str, Any]) -> Caller | None:
    """The caller the authorizer verified: a Lambda authorizer's context (`{sub, via, scope,
    token_id}`), else a JWT authorizer's claims; None if neither names a person."""
    authorizer = (event.get("requestContext") or {}).get("authorizer") or {}
    context = authorizer.get("lambda")
    if isinstance(context, dict) and context:
        value = context.get("sub")
        if not isinstance(value, str) or not value:
            return None
        via = "token" if context.get("via") == "token" else "jwt"
        scope = "write" if via == "jwt" else ("write" if context.get("scope") == "write" else "read")
        token_id = context.get("token_id") if via == "token" else None
        return Caller(value, via, scope, str(token_id) if token_id else None)
    claims = (authorizer.get("jwt") or {}).get("claims") or {}
    value = claims.get("sub")
    return Caller(value) if isinstance(value, str) and value else None


def refusal(event: dict[str, Any]) -> str | None:
    """Why the authorizer let the request through without a caller (a token it refused), if it did."""
    context = ((event.get("requestContext") or {}).get("authorizer") or {}).get("lambda")
    why = context.get("refused") if isinstance(context, dict) else None
    return str(why) if why else None


def sub(event: dict[str, Any]) -> str | None:
    """The person the authorizer verified, if any."""
    found = caller(event)
    return found.sub if found else None


# The route API Gateway gives every request no other route matches (template.yaml's DefaultRoute).
DEFAULT_ROUTE = "$default"

# Every ledger route is also served under this prefix, for the ledger it names (`me`: the caller's).
LEDGER_PREFIX = "/ledgers/{ledger}"
PERSONAL = "me"

# What the handler establishes once per request and hands on, in the resolver's context (cleared
# when the request ends): the JSON body as the precheck parsed it, (text, value), and the caller's
# access to the ledger when the idempotency check resolved it before the route (an Access).
HELD_BODY = "kakeibo.body"
HELD_ACCESS = "kakeibo.access"


def route(event: dict[str, Any]) -> str:
    """The route a request asks for, as `METHOD /path`: a route under `/ledgers/{ledger}` is named
    as the unprefixed route it repeats (`POST /ledgers/{ledger}/slips` -> `POST /slips`)."""
    key = str(event.get("routeKey", ""))
    method, _, path = key.partition(" ")
    if path.startswith(LEDGER_PREFIX + "/"):
        return f"{method} {path.removeprefix(LEDGER_PREFIX)}"
    return key


def ledger(event: dict[str, Any]) -> str:
    """The ledger a ledger route is for: the `{ledger}` of a prefixed route, else `me`."""
    path = str(event.get("routeKey", "")).partition(" ")[2]
    if not path.startswith(LEDGER_PREFIX + "/"):
        return PERSONAL
    return str((event.get("pathParameters") or {}).get("ledger") or PERSONAL)
