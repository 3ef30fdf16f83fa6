"""Read an API Gateway HTTP API (payload 2.0) event as it arrives, before any route runs."""

from __future__ import annotations

from typing import Any


def header(event: dict[str, Any], name: str) -> str | None:
    """A request header by lower-case name (API Gateway lowercases them; a local caller may not)."""
    for key, value in (event.get("headers") or {}).items():
        if key.lower() == name:
            return str(value)
    return None


def sub(event: dict[str, Any]) -> str | None:
    """The `sub` claim the JWT authorizer verified, if any."""
    claims = (((event.get("requestContext") or {}).get("authorizer") or {}).get("jwt") or {}).get("claims") or {}
    value = claims.get("sub")
    return value if isinstance(value, str) and value else None


# The route API Gateway gives every request no other route matches (template.yaml's DefaultRoute).
DEFAULT_ROUTE = "$default"

# Every ledger route is also served under this prefix, for the ledger it names (`me`: the caller's).
LEDGER_PREFIX = "/ledgers/{ledger}"
PERSONAL = "me"


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
