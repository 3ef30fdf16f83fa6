"""/alerts: what the household is told once (a budget at 80% and 100%, a shortfall before a debit,
points lapsing, a card payment within 3 days), listed and dismissed. Never raised by a read."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Query

from kakeibo.http import caller_language, json_response, ok_response, problem_responses
from kakeibo.models.alerts import Alert, AlertList
from kakeibo.routes.properties import RouteProperties
from kakeibo.routes.scope import EDITORS, LedgerRouter, ledger_scope
from kakeibo.store import get_store

router = LedgerRouter()
# what these routes are besides their code (routes/properties.py)
PROPERTIES = {
    "POST /alerts/{id}/dismiss": RouteProperties(no_body=True),
}
TAGS = ["alerts"]


@router.get(
    "/alerts",
    tags=TAGS,
    summary="The open alerts, newest first",
    description="Raised once each (its kind, subject and period), where the change causing it was written or "
    "by the daily job; journaled, so webhooks receive each as an `alert` change. `dismissed=true` lists the "
    "dismissed ones too.",
    operation_id="listAlerts",
    responses={200: ok_response(AlertList), **problem_responses(400, 401, 404, 409)},
)
def list_alerts(
    dismissed: Annotated[bool, Query(description="Also the dismissed alerts")] = False,
) -> Response[str]:
    from kakeibo.services import alerts  # noqa: PLC0415 - loaded on first use

    lang = caller_language(router.current_event.raw_event)
    return json_response(200, alerts.list_alerts(get_store(), ledger_scope(router).key, lang, dismissed=dismissed))


@router.post(
    "/alerts/<id>/dismiss",
    tags=TAGS,
    summary="Dismiss an open alert (it is not raised again)",
    operation_id="dismissAlert",
    responses={200: ok_response(Alert), **problem_responses(400, 401, 403, 404, 409, 413, 415)},
)
def dismiss_alert(id: str) -> Response[str]:
    from kakeibo.services import alerts  # noqa: PLC0415

    writer = ledger_scope(router, EDITORS).writer
    lang = caller_language(router.current_event.raw_event)
    return json_response(200, alerts.dismiss(get_store(), writer, id, lang))
