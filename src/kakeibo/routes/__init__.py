"""One Router per resource; route functions stay thin: parse, call service, format.

The handler imports a route module when a request first needs it (a cold start pays only for the
routes it serves): `FAMILIES` says which modules serve the paths of each family — a path's first
segment, or under `/ledgers/{ledger}/` the segment after it. tests/unit/test_route_order.py checks
it against every module's routes, so a route in a module the table does not name for its family
fails there, not in production.
"""

from __future__ import annotations

# Every route module, in the order they are registered when all are loaded.
MODULES = (
    "health", "accounts", "cards", "journal", "undo", "slips", "reports", "budgets", "imports", "maintenance",
    "recurrences", "daily", "receipts", "ledgers", "webhooks", "settlements", "rules", "dataio", "tax",
    "reconciliations",
    "ledgerdata", "points", "tokens", "forecast", "goals", "networth", "alerts", "tags",
)  # fmt: skip

FAMILIES: dict[str, tuple[str, ...]] = {
    "accounts": ("accounts", "cards", "reconciliations", "points"),
    "alerts": ("alerts",),
    "balances": ("reports",),
    "budgets": ("budgets",),
    "changes": ("journal", "undo"),
    "exports": ("dataio",),
    "forecast": ("forecast",),
    "goals": ("goals",),
    "health": ("health",),
    "imports": ("imports",),
    "invitations": ("ledgers",),
    "jobs": ("daily",),
    "ledger": ("maintenance",),
    "ledgers": ("ledgers", "ledgerdata"),
    "me": ("ledgerdata", "tokens"),
    "members": ("ledgers",),
    "receipts": ("receipts",),
    "recurrences": ("recurrences",),
    "reports": ("reports", "tax", "networth", "tags"),
    "rules": ("rules",),
    "settlement": ("settlements",),
    "settlements": ("settlements",),
    "slips": ("journal", "slips"),
    "slips.csv": ("imports",),
    "webhooks": ("webhooks",),
}


# Routes whose query parameters are the request's input, not a way of reading (a report's year,
# income or limit): a value refused there is 422 naming the field, as a body's would be; elsewhere a
# bad query is 400. As `event.route` names them (a route under /ledgers/{ledger} by its unprefixed name).
QUERY_AS_INPUT = frozenset({
    "GET /accounts/{id}/expiring", "GET /forecast", "GET /reports/tags",
    "GET /reports/medical", "GET /reports/medical.csv", "GET /reports/medical.xlsx", "GET /reports/donations",
})  # fmt: skip


def family(path: str) -> str:
    """The family of a request path or a route's rule: `/slips/x` and `/ledgers/L/slips/x` -> slips;
    `/ledgers` and `/ledgers/L` -> ledgers."""
    parts = path.strip("/").split("/")
    if parts[0] == "ledgers" and len(parts) > 2:
        return parts[2]
    return parts[0]


def modules_for(path: str) -> tuple[str, ...]:
    """The route modules that may serve `path`: its family's, or all of them for any other path (the
    API's description, and a path no route serves, which must be told apart from a wrong method)."""
    return FAMILIES.get(family(path), MODULES)
