"""/ledger/verify and /ledger/rebuild: check every balance against the slips, and repair them."""

from __future__ import annotations

from types import ModuleType

from aws_lambda_powertools.event_handler import Response

from kakeibo.http import json_response, ok_response, problem_responses, time_left
from kakeibo.models.imports import LedgerCheck, LedgerRebuild
from kakeibo.routes.properties import RouteProperties
from kakeibo.routes.scope import OWNERS, LedgerRouter, ledger_scope
from kakeibo.store import get_store

router = LedgerRouter()
# what these routes are besides their code (routes/properties.py)
PROPERTIES = {
    "POST /ledger/verify": RouteProperties(no_body=True),
    "POST /ledger/rebuild": RouteProperties(no_body=True),
}
TAGS = ["ledger"]


def _integrity() -> ModuleType:
    """Verify and rebuild, loaded on first use: a cold start serving other routes does not pay for them."""
    from kakeibo.services import integrity  # noqa: PLC0415

    return integrity


@router.post(
    "/ledger/verify",
    tags=TAGS,
    summary="Recompute every balance, day total and month x category total from the slips; compare",
    operation_id="verifyLedger",
    responses={200: ok_response(LedgerCheck), **problem_responses(400, 401, 409, 413, 415)},
)
def verify() -> Response[str]:
    return json_response(200, _integrity().verify(get_store(), ledger_scope(router).key))


@router.post(
    "/ledger/rebuild",
    tags=TAGS,
    summary="Rewrite every balance item that differs from the slips, under the ledger lock",
    operation_id="rebuildLedger",
    description="Slip changes during a rebuild get 423 with Retry-After. 202: time ran out; run it again.",
    responses={
        200: ok_response(LedgerRebuild, "Rebuilt"),
        202: ok_response(LedgerRebuild, "Partly rebuilt: run it again"),
        **problem_responses(400, 401, 409, 413, 415, 423),
    },
)
def rebuild() -> Response[str]:
    result = _integrity().rebuild(get_store(), ledger_scope(router, OWNERS).writer, time_left=time_left(router))
    return json_response(200 if result["complete"] else 202, result)
