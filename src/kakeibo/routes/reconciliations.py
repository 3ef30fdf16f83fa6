"""/accounts/{id}/reconciliations: an account agrees with its statement, bankbook or counted wallet (照合)."""

from __future__ import annotations

from types import ModuleType
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body, Query

from kakeibo.http import IdempotencyKeyHeader, json_response, ok_response, problem_responses, request_token
from kakeibo.models.reconciliations import Reconciliation, ReconciliationIn, ReconciliationList, ReconciliationPreview
from kakeibo.routes.scope import EDITORS, LedgerRouter, ledger_scope
from kakeibo.store import get_store

router = LedgerRouter()
TAGS = ["accounts"]
EXAMPLES: dict[str, Any] = {
    "bankbook": {
        "summary": "The bankbook says 182,400 at the end of October",
        "value": {"date": "2026-10-31", "balance": 182400},
    },
    "wallet": {
        "summary": "The wallet holds 3,120; the difference is booked as 使途不明金",
        "value": {"date": "2026-10-31", "balance": 3120, "adjust": True},
    },
}


def _service() -> ModuleType:
    from kakeibo.services import reconciliations  # noqa: PLC0415 - loaded on first use

    return reconciliations


@router.post(
    "/accounts/<id>/reconciliations",
    tags=TAGS,
    summary="Reconcile an account: its cleared balance as of a date is what the statement says",
    description="`balance` is what the statement, the bankbook or the counted wallet says at the end of `date` "
    "(not after today). dry_run=true writes nothing and answers the difference and the uncleared slips dated up "
    "to the date. Otherwise, when the cleared balance as of the date equals `balance` (or `adjust: true`, which "
    "posts the difference as a cleared slip, category 使途不明金 unless given), every cleared slip of the account "
    "dated up to the date becomes reconciled and the assertion is stored (201); 409 reconciliation_difference "
    "with the difference otherwise, nothing written. The same request again (after a failure between batches, "
    "or with the same Idempotency-Key) finishes it once and answers it (200).",
    operation_id="reconcileAccount",
    responses={
        200: {
            "description": "Reconciled before by this very request (Reconciliation), or what reconciling would "
            "meet (ReconciliationPreview, dry_run=true)",
            "content": {"application/json": {"model": Reconciliation | ReconciliationPreview}},
        },
        201: ok_response(Reconciliation, "Reconciled: the assertion stored"),
        **problem_responses(400, 401, 403, 404, 409, 413, 415, 422, 423),
    },
)
def reconcile_account(
    id: str,
    body: Annotated[ReconciliationIn, Body(openapi_examples=EXAMPLES)],
    dry_run: Annotated[bool, Query(description="write nothing; answer the difference and the uncleared slips")] = False,
    idempotency_key: IdempotencyKeyHeader = None,
) -> Response[str]:
    scope = ledger_scope(router, EDITORS)
    if dry_run:
        return json_response(200, _service().preview(get_store(), scope.key, id, body))
    status, made = _service().reconcile(get_store(), scope.writer, id, body, key=request_token(router, idempotency_key))
    return json_response(status, made)


@router.get(
    "/accounts/<id>/reconciliations",
    tags=TAGS,
    summary="An account's reconciliations, newest date first, each saying whether it still holds",
    description="`holds` compares the asserted balance with the cleared balance as of its date (from the "
    "rollups: no slip is read); it is false once a slip it summed was changed with ?unlock=true. A "
    "reconciliation (or its undo) of the account that stopped midway and whose lease has expired is first "
    "settled: an unfinished reconciliation is released, an unfinished undo finished.",
    operation_id="listReconciliations",
    responses={200: ok_response(ReconciliationList), **problem_responses(401, 404)},
)
def list_reconciliations(id: str) -> Response[str]:
    found = _service().list_reconciliations(get_store(), ledger_scope(router).key, id, settle=True)
    return json_response(200, found)
