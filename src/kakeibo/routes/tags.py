"""/reports/tags: a tag's income, expense and count over months, from the rollups (§28)."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Query

from kakeibo.http import json_response, ok_response, problem_responses
from kakeibo.models.base import MONTH_PATTERN
from kakeibo.models.tags import TagReport
from kakeibo.routes.scope import LedgerRouter, ledger_scope
from kakeibo.services import tags as service
from kakeibo.store import get_store

router = LedgerRouter()


@router.get(
    "/reports/tags",
    tags=["reports"],
    summary="Each tag's income, expense and count over months from..to",
    description="Summed from the month items the slips' own transactions keep (no slip is read): one Query of "
    "accounts x months items, whatever the number of slips. At most 120 months.",
    operation_id="getTagReport",
    responses={200: ok_response(TagReport), **problem_responses(400, 401, 404, 409, 422)},
)
def tag_report(
    date_from: Annotated[str, Query(alias="from", pattern=MONTH_PATTERN, examples=["2026-08"])],
    date_to: Annotated[str, Query(alias="to", pattern=MONTH_PATTERN, examples=["2026-08"])],
    tag: Annotated[str | None, Query(min_length=1, max_length=100, description="That tag alone")] = None,
) -> Response[str]:
    ledger = ledger_scope(router).key
    return json_response(200, service.report(get_store(), ledger, date_from, date_to, tag))
