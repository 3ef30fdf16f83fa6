"""/accounts/{id}/statements: a credit card's billing cycles (締め日 / 引き落とし日) and what each owes."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Query

from kakeibo.http import json_response, ok_response, problem_responses
from kakeibo.models.accounts import StatementList
from kakeibo.models.base import MONTH_PATTERN
from kakeibo.routes.scope import LedgerRouter, ledger_scope
from kakeibo.store import get_store

router = LedgerRouter()
TAGS = ["accounts"]


@router.get(
    "/accounts/<id>/statements",
    tags=TAGS,
    summary="A credit card's statements: per billing cycle its charges, refunds, amount due and payment",
    description="Cycles whose closing date falls in the months `from`..`to` (YYYY-MM, at most 24), "
    "oldest first. `to` defaults to the month of the cycle running today, `from` to five months "
    "before `to`. Computed with the card's billing as it is now. 409 when the card has no billing.",
    operation_id="listCardStatements",
    responses={200: ok_response(StatementList), **problem_responses(400, 401, 404, 409)},
)
def list_statements(
    id: str,
    month_from: Annotated[str | None, Query(alias="from", pattern=MONTH_PATTERN)] = None,
    month_to: Annotated[str | None, Query(alias="to", pattern=MONTH_PATTERN)] = None,
) -> Response[str]:
    from kakeibo.services import cards  # noqa: PLC0415 - the cycle arithmetic loads on first use

    found = cards.statements(get_store(), ledger_scope(router).key, id, month_from, month_to)
    return json_response(200, found)
