"""/goals: savings goals (目標貯金), each with what is saved, what remains, what it needs each month
and whether the forecast reaches it."""

from __future__ import annotations

from types import ModuleType
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body

from kakeibo.http import (
    ETAG,
    LOCATION,
    IdempotencyKeyHeader,
    IfMatchHeader,
    if_match,
    json_response,
    no_content,
    ok_response,
    problem_responses,
    request_token,
)
from kakeibo.models.goals import Goal, GoalIn, GoalList, GoalPatch
from kakeibo.routes.properties import RouteProperties
from kakeibo.routes.scope import EDITORS, LedgerRouter, ledger_scope
from kakeibo.store import get_store

router = LedgerRouter()
# what these routes are besides their code (routes/properties.py)
PROPERTIES = {
    "POST /goals": RouteProperties(idempotent=True),
}
TAGS = ["goals"]
GOAL_EXAMPLES: dict[str, Any] = {
    "trip": {
        "summary": "300,000 yen for a trip by next summer, kept in the bank",
        "value": {"name": "旅行の積立", "target": 300000, "by": "2027-07-31", "account": "bank"},
    },
    "open": {
        "summary": "An emergency fund with no day set",
        "value": {"name": "生活防衛資金", "target": 1000000, "account": "bank"},
    },
}
GOAL_PATCH_EXAMPLES: dict[str, Any] = {
    "target": {"summary": "Raise the target", "value": {"target": 400000}},
    "by": {"summary": "No day any more (null removes it)", "value": {"by": None}},
}


def _service() -> ModuleType:
    from kakeibo.services import goals  # noqa: PLC0415 - loaded on first use

    return goals


@router.post(
    "/goals",
    tags=TAGS,
    summary="Set a savings goal (目標貯金) on an account of the ledger",
    description="404 when the ledger has no such account. At most 50 per ledger. With an Idempotency-Key a "
    "retry answers the goal the first attempt made.",
    operation_id="createGoal",
    responses={
        201: ok_response(Goal, "Created", headers={**ETAG, **LOCATION}),
        **problem_responses(400, 401, 404, 409, 413, 415, 422),
    },
)
def create_goal(
    body: Annotated[GoalIn, Body(openapi_examples=GOAL_EXAMPLES)], idempotency_key: IdempotencyKeyHeader = None
) -> Response[str]:
    scope = ledger_scope(router, EDITORS)
    made = _service().create_goal(get_store(), scope.writer, body, request_token=request_token(router, idempotency_key))
    return json_response(201, made, etag=made["version"], location=scope.url(f"/goals/{made['id']}"))


@router.get(
    "/goals",
    tags=TAGS,
    summary="The savings goals, each with saved, remaining, monthly_needed and on_track",
    operation_id="listGoals",
    responses={200: ok_response(GoalList), **problem_responses(401, 404, 409)},
)
def list_goals() -> Response[str]:
    return json_response(200, {"items": _service().list_goals(get_store(), ledger_scope(router).key)})


@router.get(
    "/goals/<id>",
    tags=TAGS,
    summary="One savings goal (ETag: its version)",
    operation_id="getGoal",
    responses={200: ok_response(Goal, headers=ETAG), **problem_responses(401, 404, 409)},
)
def get_goal(id: str) -> Response[str]:
    item = _service().get_goal(get_store(), ledger_scope(router).key, id)
    return json_response(200, item, etag=item["version"])


@router.patch(
    "/goals/<id>",
    tags=TAGS,
    summary="Change a savings goal (JSON merge patch, If-Match required)",
    operation_id="patchGoal",
    responses={
        200: ok_response(Goal, headers=ETAG),
        **problem_responses(400, 401, 404, 409, 412, 413, 415, 422, 428),
    },
)
def patch_goal(
    id: str, patch: Annotated[GoalPatch, Body(openapi_examples=GOAL_PATCH_EXAMPLES)], if_match_header: IfMatchHeader
) -> Response[str]:
    writer = ledger_scope(router, EDITORS).writer
    item = _service().patch_goal(get_store(), writer, id, patch, expected=if_match(if_match_header))
    return json_response(200, item, etag=item["version"])


@router.delete(
    "/goals/<id>",
    tags=TAGS,
    summary="Delete a savings goal (If-Match required); the account and its money stay",
    operation_id="deleteGoal",
    responses={204: no_content("Deleted"), **problem_responses(400, 401, 404, 409, 412, 428)},
)
def delete_goal(id: str, if_match_header: IfMatchHeader) -> Response[str]:
    writer = ledger_scope(router, EDITORS).writer
    _service().delete_goal(get_store(), writer, id, expected=if_match(if_match_header))
    return Response(status_code=204, body="")
