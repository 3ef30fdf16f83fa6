"""/balances and /reports: read models over the balance items the slip transactions maintain."""

from __future__ import annotations

from typing import Annotated, Literal

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Query

from kakeibo.http import json_response, labelled, ok_response, problem_responses
from kakeibo.models.base import DATE_PATTERN, MONTH_PATTERN, YEAR_PATTERN
from kakeibo.models.reports import Balances, MonthlyReport, YearlyReport
from kakeibo.routes.scope import LedgerRouter, ledger_scope
from kakeibo.services import balances, common, reports
from kakeibo.store import get_store

router = LedgerRouter()


@router.get(
    "/balances",
    tags=["balances"],
    summary="Current balances (one consistent snapshot), or as of the end of ?date",
    operation_id="getBalances",
    responses={200: ok_response(Balances), **problem_responses(400, 401, 409)},
)
def get_balances(date: Annotated[str | None, Query(pattern=DATE_PATTERN)] = None) -> Response[str]:
    ledger = ledger_scope(router).key
    if date is not None:
        common.query_date("date", date)
    return json_response(200, balances.balances(get_store(), ledger, date))


@router.get(
    "/reports/monthly",
    tags=["reports"],
    summary="Income, expense and net for a month, by category and by account",
    description="`basis=date` (the default) counts each slip in the month of its date. `basis=payment` "
    "counts a credit card's income and expense (cards with billing) in the month its cycle is paid: "
    "the card's slips of the cycles debited that month, not those dated in it. A card's `net` in "
    "`by_account` stays its balance change of the month.",
    operation_id="getMonthlyReport",
    responses={200: ok_response(MonthlyReport), **problem_responses(400, 401, 409)},
)
def monthly(
    month: Annotated[str, Query(pattern=MONTH_PATTERN)],
    basis: Annotated[Literal["date", "payment"], Query()] = "date",
) -> Response[str]:
    ledger = ledger_scope(router).key
    common.query_month(month)
    return json_response(200, labelled(reports.monthly_report(get_store(), ledger, month, basis), router))


@router.get(
    "/reports/yearly",
    tags=["reports"],
    summary="Income, expense and net for a year and each of its twelve months, by category and by account",
    operation_id="getYearlyReport",
    responses={200: ok_response(YearlyReport), **problem_responses(400, 401, 409)},
)
def yearly(year: Annotated[str, Query(pattern=YEAR_PATTERN, examples=["2026"])]) -> Response[str]:
    ledger = ledger_scope(router).key
    return json_response(200, labelled(reports.yearly_report(get_store(), ledger, year), router))
