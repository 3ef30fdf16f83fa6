"""/exports: a ledger's data as one archive (every item, the journal and the receipts' bytes)."""

from __future__ import annotations

from types import ModuleType

from aws_lambda_powertools.event_handler import Response

from kakeibo.http import json_response, ok_response, problem_responses, time_left
from kakeibo.models.dataio import LedgerExport
from kakeibo.routes.properties import RouteProperties
from kakeibo.routes.scope import OWNERS, LedgerRouter, ledger_scope
from kakeibo.store import get_store

router = LedgerRouter()
# what these routes are besides their code (routes/properties.py)
PROPERTIES = {
    "POST /exports": RouteProperties(no_body=True),
}
TAGS = ["data"]


def _service() -> ModuleType:
    """The export use cases (and boto3's S3 client), loaded on first use."""
    from kakeibo.services import dataio  # noqa: PLC0415

    return dataio


@router.post(
    "/exports",
    tags=TAGS,
    summary="Export the ledger's data as one gzip JSON Lines archive (owners)",
    description="202 with the export: it is built as far as this request's time allows. While its state "
    "is `building`, POST again to carry on with the same export (a ledger builds one at a time); once "
    "`ready`, `download` is a presigned GET of the archive: every item of the ledger (accounts, slips, "
    "budgets, recurrences, members, settlements, webhooks without their secrets, the journal) and "
    "the receipts' bytes, in sealed parts.",
    operation_id="exportLedger",
    responses={
        202: ok_response(LedgerExport, "The export, as far as it got"),
        **problem_responses(400, 401, 409, 413, 415, 423, 503),
    },
)
def export_ledger() -> Response[str]:
    scope = ledger_scope(router, OWNERS)
    return json_response(202, _service().start_export(get_store(), scope.writer, time_left=time_left(router)))


@router.get(
    "/exports/<id>",
    tags=TAGS,
    summary="An export: its state, how far it got and, once ready, a download URL valid for minutes",
    operation_id="getExport",
    responses={200: ok_response(LedgerExport), **problem_responses(401, 404, 503)},
)
def get_export(id: str) -> Response[str]:
    scope = ledger_scope(router, OWNERS)
    return json_response(200, _service().get_export(get_store(), scope.key, id))
