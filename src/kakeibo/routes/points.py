"""/accounts/{id}/expiring: a points account's points about to lapse (ポイント失効), lot by lot."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Query

from kakeibo.http import json_response, ok_response, problem_responses
from kakeibo.models.accounts import ExpiringPoints
from kakeibo.routes.scope import LedgerRouter, ledger_scope
from kakeibo.store import get_store

router = LedgerRouter()
MAX_WITHIN = 3650  # days ahead


@router.get(
    "/accounts/<id>/expiring",
    tags=["accounts"],
    summary="A points account's points that lapse within `within` days, lot by lot",
    description="Each lot (the points one slip earned) with points left that lapse within `within` days "
    "(default 90, at most 3650), earliest first; lots whose day has passed and whose lapse the daily job "
    "has not posted yet come first (`lapsed`). Spends take the lots expiring first. An account in "
    "another unit has none. 422 naming `within` when it is not a whole number of days.",
    operation_id="listExpiringPoints",
    responses={200: ok_response(ExpiringPoints), **problem_responses(400, 401, 404, 422)},
)
def list_expiring(
    id: str,
    within: Annotated[int, Query(ge=0, le=MAX_WITHIN, description="Days to look ahead (default 90)")] = 90,
) -> Response[str]:
    from kakeibo.services import lapses  # noqa: PLC0415 - loaded on first use

    return json_response(200, lapses.expiring(get_store(), ledger_scope(router).key, id, within))
