"""/jobs/run: the daily job's work (recurring slips and card payments) for the caller's ledger, now."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Query

from kakeibo.http import caller_language, json_response, ok_response, problem_responses, time_left
from kakeibo.models.base import DATE_PATTERN
from kakeibo.models.recurrences import RunResult
from kakeibo.routes.properties import RouteProperties
from kakeibo.routes.scope import EDITORS, LedgerRouter, ledger_scope
from kakeibo.store import get_store

router = LedgerRouter()
# what these routes are besides their code (routes/properties.py)
PROPERTIES = {
    "POST /jobs/run": RouteProperties(no_body=True),
}


@router.post(
    "/jobs/run",
    tags=["recurrences"],
    summary="Post what the daily job posts for this ledger, due on or before `until` (default: today)",
    description="Occurrences of recurring slips and credit-card payments, each posted once however often "
    "or concurrently this runs. One that cannot be written is reported (and kept as its recurrence's "
    "or card's last_error) and tried again next run. 202: time ran out; run it again.",
    operation_id="runJobs",
    responses={
        200: ok_response(RunResult, "Done"),
        202: ok_response(RunResult, "Partly done: run it again"),
        **problem_responses(400, 401, 409, 413, 415),
    },
)
def run_jobs(until: Annotated[str | None, Query(pattern=DATE_PATTERN)] = None) -> Response[str]:
    from kakeibo.services import daily  # noqa: PLC0415 - loaded when used, not on every cold start

    result = daily.run_ledger(
        get_store(),
        ledger_scope(router, EDITORS).key,
        until,
        time_left=time_left(router),
        lang=caller_language(router.current_event.raw_event),
    )
    return json_response(200 if result["complete"] else 202, result)
