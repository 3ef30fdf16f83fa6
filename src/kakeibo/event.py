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
