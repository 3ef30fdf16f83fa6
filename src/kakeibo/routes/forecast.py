"""/forecast: every balance projected day by day, with the first shortfall (残高不足の見込み)."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Query

from kakeibo.http import caller_language, json_response, ok_response, problem_responses
from kakeibo.models.base import ACCOUNT_ID_PATTERN, DATE_PATTERN
from kakeibo.models.forecast import Forecast
from kakeibo.routes.scope import LedgerRouter, ledger_scope
from kakeibo.store import get_store

router = LedgerRouter()


@router.get(
    "/forecast",
    tags=["forecast"],
    summary="Every balance projected day by day up to `until`, with the first day each falls short",
    description="From today's balances: the slips dated ahead, the recurring slips' occurrences the daily "
    "job is to post (shifted onto business days as their rule says), each card's payments on its "
    "引き落とし日 (the cycle's amount due so far plus the recurring charges that fall into it, from the "
    "bank it is paid from) and the points that lapse. Per account each day something changes, and "
    "`first_shortfall`: the first day it is projected below its `low_balance` (else 0; a card has none "
    "unless set) and what causes it. `until` is today to a year ahead (default: three months on); 422 "
    "naming it otherwise. Its cost is the window's items, never the ledger's history.",
    operation_id="getForecast",
    responses={200: ok_response(Forecast), **problem_responses(400, 401, 404, 409, 422)},
)
def get_forecast(
    until: Annotated[
        str | None, Query(pattern=DATE_PATTERN, description="The last day projected (default: three months on)")
    ] = None,
    account: Annotated[
        str | None, Query(pattern=ACCOUNT_ID_PATTERN, description="Only this account (404 if there is none)")
    ] = None,
) -> Response[str]:
    from kakeibo.services import forecast  # noqa: PLC0415 - loaded on first use

    ledger = ledger_scope(router).key
    lang = caller_language(router.current_event.raw_event)
    return json_response(200, forecast.get_forecast(get_store(), ledger, until, account, lang))
