"""A ledger's data as a whole: /ledgers/restore (an exported archive, uploaded once, restored into a new
ledger), DELETE /ledgers/{ledger} (everything of a shared ledger, gone) and DELETE /me (a person's data,
gone)."""

from __future__ import annotations

from types import ModuleType
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body

from kakeibo.http import (
    LOCATION,
    IdempotencyKeyHeader,
    IfMatchHeader,
    identity,
    if_match,
    json_response,
    ok_response,
    problem_responses,
    time_left,
)
from kakeibo.models.dataio import LedgerDeletion, LedgerRestore, RestoreIn
from kakeibo.routes.properties import RouteProperties
from kakeibo.store import get_store

router = Router()
# what these routes are besides their code (routes/properties.py)
PROPERTIES = {
    "POST /ledgers/restore": RouteProperties(idempotent=True),
}
TAGS = ["data"]
RESTORE_EXAMPLES: dict[str, Any] = {
    "archive": {
        "summary": "An archive of 2 MB",
        "value": {"sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "size": 2_097_152},
    }
}


def _service() -> ModuleType:
    """The restore use case (and boto3's S3 client), loaded on first use."""
    from kakeibo.services import dataio  # noqa: PLC0415

    return dataio


@router.post(
    "/ledgers/restore",
    tags=TAGS,
    summary="Restore an exported ledger's archive into a new ledger; you are its owner",
    description="Name the archive by its sha256 and size. 202 `pending` with `upload`: PUT the archive there "
    "(once, with exactly the headers given), then POST the same body again. The archive is then checked "
    "whole (422 `archive_refused` naming what is wrong; nothing is created) and written into a new ledger: "
    "201 `restored` with `ledger`, or 202 `restoring` if it takes longer than one request (POST again to "
    "carry on). Its slips (ids kept), balances, budgets, recurrences, rules and receipts are the archive's; "
    "its members, webhooks and Idempotency-Keys start fresh, and its journal starts with one entry saying "
    "where it came from. The same archive POSTed again answers 200 with the ledger it made while it is yours; "
    "once that ledger is deleted (or you left it), the archive is restored anew, as the first time. With an "
    "Idempotency-Key, its final answer (201, or 422 `archive_refused`) is given again to the same key.",
    operation_id="restoreLedger",
    responses={
        200: ok_response(LedgerRestore, "Restored before"),
        201: ok_response(LedgerRestore, "Restored into a new ledger", headers=LOCATION),
        202: ok_response(LedgerRestore, "Waiting for the upload, or restoring"),
        **problem_responses(400, 401, 409, 413, 415, 422, 503),
    },
)
def restore_ledger(
    restore: Annotated[RestoreIn, Body(openapi_examples=RESTORE_EXAMPLES)],
    idempotency_key: IdempotencyKeyHeader = None,
) -> Response[str]:
    request_id = (router.current_event.raw_event.get("requestContext") or {}).get("requestId")
    status, view = _service().restore(
        get_store(), identity(router), restore, time_left=time_left(router), request_id=request_id
    )
    location = f"/ledgers/{view['ledger']['id']}" if status == 201 else None
    return json_response(status, view, location=location)


@router.delete(
    "/ledgers/<ledger>",
    tags=TAGS,
    summary="Delete a shared ledger and everything in it (owner, If-Match required)",
    description="202 with the deletion. At once every member loses the ledger: from then on it answers 404 "
    "to everyone and its webhooks stop. Then every item (slips, accounts, budgets, the journal...) and every "
    "receipt and export object goes, as far as this request's time allows: while `deleting`, DELETE again "
    "(as the same owner) to carry on. A tombstone (who, when) is all that stays, and the id is never used "
    "again. The members' other ledgers are untouched.",
    operation_id="deleteLedger",
    responses={
        202: ok_response(LedgerDeletion, "The deletion, as far as it got"),
        **problem_responses(400, 401, 403, 404, 409, 412, 423, 428, 503),
    },
)
def delete_ledger(ledger: str, if_match_header: IfMatchHeader) -> Response[str]:
    user, expected = identity(router), if_match(if_match_header)
    deleted = _service().delete_ledger(get_store(), user, ledger, expected=expected, time_left=time_left(router))
    return json_response(202, deleted)


@router.delete(
    "/me",
    tags=TAGS,
    summary="Delete your data: your personal ledger, and you from every shared ledger",
    description="Your right to have your data deleted (個人情報保護法). 202 with the deletion (its id is `me`). "
    "You leave every shared ledger you are a member of (your webhooks there are disabled), the shared "
    "ledgers you are the only member of are deleted, and then every item and receipt of your personal ledger "
    "goes, as far as this request's time allows: while `deleting`, DELETE /me again to carry on. The other "
    "members' ledgers are untouched; a tombstone (who, when) is all that stays. 409 `sole_owner`, naming the "
    "ledgers, while you are the only owner of a shared ledger others are members of: make another member "
    "its owner, or delete it, first.",
    operation_id="deleteMe",
    responses={
        202: ok_response(LedgerDeletion, "The deletion, as far as it got"),
        **problem_responses(401, 409, 423, 503),
    },
)
def delete_me() -> Response[str]:
    deleted = _service().delete_me(get_store(), identity(router), time_left=time_left(router))
    return json_response(202, deleted)
