"""/changes and a slip's history: the ledger journal read, and one of its entries undone."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Query

from kakeibo.http import json_response, ok_response, problem_responses
from kakeibo.models.journal import ChangeList, SlipHistory
from kakeibo.routes.scope import LedgerRouter, ledger_scope
from kakeibo.services import journal as service
from kakeibo.store import get_store

router = LedgerRouter()
TAGS = ["journal"]


@router.get(
    "/changes",
    tags=TAGS,
    summary="What changed since a seq (delta sync)",
    description="Entries with seq > `since`, in commit order. Keep `knowledge` and send it as `since` next "
    "time; `has_more` says a next page follows. Replaying every entry from 0 reproduces the ledger's "
    "slips, accounts, budgets and recurrences, deletes included.",
    operation_id="listChanges",
    responses={200: ok_response(ChangeList), **problem_responses(400, 401, 409)},
)
def list_changes(
    since: Annotated[str | None, Query(max_length=20, description="a seq a previous answer gave as knowledge")] = None,
    limit: Annotated[int, Query(ge=1, le=service.MAX_CHANGES)] = 100,
) -> Response[str]:
    ledger = ledger_scope(router).key
    return json_response(200, service.changes(get_store(), ledger, since=service.parse_since(since), limit=limit))


@router.get(
    "/slips/<id>/history",
    tags=TAGS,
    summary="A slip's whole life: who changed which fields, when (across moves and deletes)",
    operation_id="getSlipHistory",
    responses={200: ok_response(SlipHistory), **problem_responses(401, 404, 409)},
)
def slip_history(id: str) -> Response[str]:
    return json_response(200, service.slip_history(get_store(), ledger_scope(router).key, id))
