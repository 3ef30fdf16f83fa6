"""/reports/net-worth: assets, liabilities and net at each month's end (資産推移), from the rollups."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Query

from kakeibo.http import json_response, ok_response, problem_responses
from kakeibo.models.base import MONTH_PATTERN
from kakeibo.models.networth import NetWorth
from kakeibo.routes.scope import LedgerRouter, ledger_scope
from kakeibo.store import get_store

router = LedgerRouter()
MonthQuery = Annotated[str | None, Query(pattern=MONTH_PATTERN, examples=["2026-11"])]


@router.get(
    "/reports/net-worth",
    tags=["reports"],
    summary="Net worth at each month's end (資産推移): assets, liabilities (what cards owe) and net, in yen",
    description="Each month from `from` to `to` (YYYY-MM; default the twelve months to this one, at most 240): "
    "every account's balance at the month's end from its month items, in yen (points at their point_value, "
    "a foreign currency at the rate of its latest slip). Its cost grows with the months asked for, never "
    "with the slips.",
    operation_id="getNetWorth",
    responses={200: ok_response(NetWorth), **problem_responses(400, 401, 404, 409)},
)
def get_net_worth(month_from: Annotated[str | None, Query(alias="from", pattern=MONTH_PATTERN)] = None,
                  to: MonthQuery = None) -> Response[str]:  # fmt: skip
    from kakeibo.services import networth  # noqa: PLC0415 - loaded on first use

    return json_response(200, networth.net_worth(get_store(), ledger_scope(router).key, month_from, to))
