"""/budgets: a monthly limit per category. A strict one refuses writes that would pass it."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import unquote

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body, Query

from kakeibo.http import (
    ETAG,
    IfMatchHeader,
    OptionalIfMatchHeader,
    if_match,
    json_response,
    labelled,
    no_content,
    ok_response,
    optional_if_match,
    problem_responses,
)
from kakeibo.models.base import MONTH_PATTERN
from kakeibo.models.budgets import Budget, BudgetCopy, BudgetIn, BudgetList
from kakeibo.routes.properties import RouteProperties
from kakeibo.routes.scope import EDITORS, LedgerRouter, ledger_scope
from kakeibo.services import budgets, common
from kakeibo.store import get_store

router = LedgerRouter()
# what these routes are besides their code (routes/properties.py)
PROPERTIES = {
    "POST /budgets/{month}/copy-from/{source}": RouteProperties(no_body=True),
}
TAGS = ["budgets"]
BUDGET_EXAMPLES: dict[str, Any] = {
    "food": {"summary": "30,000 yen a month, refusing expenses past it", "value": {"limit": 30000, "strict": True}},
    "soft": {"summary": "A limit that only reports", "value": {"limit": 50000}},
}


def _category(matched: str) -> str:
    """The category as the caller wrote it: API Gateway's decoded path parameter, else the route's
    match (still percent-encoded when the local front or a test passes the raw path)."""
    return (router.current_event.get("pathParameters") or {}).get("category") or unquote(matched)


@router.put(
    "/budgets/<month>/<category>",
    tags=TAGS,
    summary="Set a category's monthly budget: create without If-Match, change with it",
    operation_id="putBudget",
    responses={
        200: ok_response(Budget, "Changed", headers=ETAG),
        201: ok_response(Budget, "Created", headers=ETAG),
        **problem_responses(400, 401, 404, 409, 412, 413, 415, 422, 428),
    },
)
def put_budget(
    month: str,
    category: str,
    budget: Annotated[BudgetIn, Body(openapi_examples=BUDGET_EXAMPLES)],
    if_match_header: OptionalIfMatchHeader = None,
) -> Response[str]:
    writer = ledger_scope(router, EDITORS).writer
    # API Gateway's own, decoded, view of the path; the resolver's match may still be percent-encoded
    category = _category(category)
    sent, expected = optional_if_match(if_match_header)
    saved, created = budgets.put_budget(
        get_store(), writer, month, category, body=budget, expected=expected, if_match=sent
    )
    return json_response(201 if created else 200, labelled(saved, router), etag=saved["version"])


@router.get(
    "/budgets",
    tags=TAGS,
    summary="A month's budgets with what is spent and what remains",
    operation_id="listBudgets",
    responses={200: ok_response(BudgetList), **problem_responses(400, 401, 409)},
)
def list_budgets(month: Annotated[str, Query(pattern=MONTH_PATTERN)]) -> Response[str]:
    ledger = ledger_scope(router).key
    common.query_month(month)
    return json_response(200, labelled(budgets.list_budgets(get_store(), ledger, month), router))


@router.delete(
    "/budgets/<month>/<category>",
    tags=TAGS,
    summary="Remove a category's monthly budget (If-Match required); what was spent stays",
    operation_id="deleteBudget",
    responses={204: no_content("Removed"), **problem_responses(400, 401, 404, 409, 412, 422, 428)},
)
def delete_budget(month: str, category: str, if_match_header: IfMatchHeader) -> Response[str]:
    writer = ledger_scope(router, EDITORS).writer
    category = _category(category)
    budgets.delete_budget(get_store(), writer, month, category, expected=if_match(if_match_header))
    return Response(status_code=204, body="")


@router.post(
    "/budgets/<month>/copy-from/<source>",
    tags=TAGS,
    summary="Copy a month's budgets into another (limit, strict, rollover); budgets already set there are kept",
    description="422 naming `source` when it is `month` itself (copy from another month).",
    operation_id="copyBudgets",
    responses={200: ok_response(BudgetCopy), **problem_responses(400, 401, 404, 409, 413, 415, 422)},
)
def copy_budgets(month: str, source: str) -> Response[str]:
    writer = ledger_scope(router, EDITORS).writer
    copied = budgets.copy_budgets(get_store(), writer, month, source)
    return json_response(200, labelled(copied, router))
