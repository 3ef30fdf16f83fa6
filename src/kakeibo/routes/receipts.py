"""/receipts: photos and PDFs of receipts, uploaded straight to S3 exactly once, then attached to slips."""

from __future__ import annotations

from types import ModuleType
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body

from kakeibo.http import LOCATION, IdempotencyKeyHeader, json_response, ok_response, problem_responses
from kakeibo.models.receipts import Receipt, ReceiptIn
from kakeibo.routes.properties import RouteProperties
from kakeibo.routes.scope import EDITORS, LedgerRouter, ledger_scope
from kakeibo.store import get_store

router = LedgerRouter()
# what these routes are besides their code (routes/properties.py)
PROPERTIES = {
    "POST /receipts/{id}/complete": RouteProperties(no_body=True),
}
TAGS = ["receipts"]
RECEIPT_EXAMPLES: dict[str, Any] = {
    "photo": {
        "summary": "A phone photo of a receipt",
        "value": {
            "sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            "size": 482113,
            "content_type": "image/jpeg",
        },
    }
}


def _service() -> ModuleType:
    """The receipts use cases (and boto3's S3 client), loaded on first use."""
    from kakeibo.services import receipts  # noqa: PLC0415

    return receipts


@router.post(
    "/receipts",
    tags=TAGS,
    summary="Claim the upload of a receipt (its sha256, size and type): one caller gets the upload URL",
    description="201: this caller holds the upload for a few minutes: PUT the bytes to `upload.url` with "
    "exactly `upload.headers` (S3 refuses other bytes and a second write), then POST .../complete. 200: "
    "the receipt is stored already, nothing to upload. 409 upload_in_progress (Retry-After): another "
    "caller is uploading it. Send an Idempotency-Key to get the same answer again after a lost one.",
    operation_id="claimReceipt",
    responses={
        200: ok_response(Receipt, "Stored already"),
        201: ok_response(Receipt, "Claimed: upload it", headers=LOCATION),
        **problem_responses(400, 401, 409, 413, 415, 422),
    },
)
def claim_receipt(
    receipt: Annotated[ReceiptIn, Body(openapi_examples=RECEIPT_EXAMPLES)],
    idempotency_key: IdempotencyKeyHeader = None,
) -> Response[str]:
    scope = ledger_scope(router, EDITORS)
    status, found = _service().claim(get_store(), scope.writer, receipt)
    return json_response(status, found, location=scope.url(f"/receipts/{found['id']}"))


@router.post(
    "/receipts/<id>/complete",
    tags=TAGS,
    summary="The upload is done: the object is checked (size, sha256) and the receipt stored",
    description="Idempotent. 409 upload_missing: nothing uploaded yet. 422 checksum_mismatch: the bytes "
    "are not the ones declared; they are deleted and the receipt can be uploaded again.",
    operation_id="completeReceipt",
    responses={200: ok_response(Receipt), **problem_responses(400, 401, 404, 409, 413, 415, 422, 503)},
)
def complete_receipt(id: str) -> Response[str]:
    scope = ledger_scope(router, EDITORS)
    return json_response(200, _service().complete(get_store(), scope.writer, id))


@router.get(
    "/receipts/<id>",
    tags=TAGS,
    summary="A receipt: its state, the slips it is on, and a download URL valid for minutes",
    operation_id="getReceipt",
    responses={200: ok_response(Receipt), **problem_responses(401, 404, 409)},
)
def get_receipt(id: str) -> Response[str]:
    return json_response(200, _service().get_receipt(get_store(), ledger_scope(router).key, id))
