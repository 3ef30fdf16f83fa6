"""/slips: expenses, income and transfers. Every write is one DynamoDB transaction."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body, Query

from kakeibo import errors
from kakeibo.core.posting import Kind
from kakeibo.http import (
    CONTENT_LOCATION,
    ETAG,
    LOCATION,
    ByQuery,
    IdempotencyKeyHeader,
    IfMatchHeader,
    if_match,
    json_response,
    labelled,
    no_content,
    ok_response,
    problem_responses,
    request_token,
)
from kakeibo.models.base import ACCOUNT_ID_PATTERN, DATE_PATTERN
from kakeibo.models.slips import Slip, SlipIn, SlipList, SlipPatch
from kakeibo.models.tags import BulkIn, BulkResult
from kakeibo.routes.properties import RouteProperties
from kakeibo.routes.scope import EDITORS, LedgerRouter, Scope, ledger_scope
from kakeibo.services import bulk as bulk_service
from kakeibo.services import slips as service
from kakeibo.store import WriteContext, get_store

router = LedgerRouter()
# what these routes are besides their code (routes/properties.py)
PROPERTIES = {
    "POST /slips": RouteProperties(idempotent=True),
    "POST /slips/bulk": RouteProperties(idempotent=True),
}
T = TypeVar("T")
UNLOCK = (
    "a reconciled slip's amount, date or account may change (or it may go): its side is cleared again and "
    "the reconciliation that summed it no longer holds; without it, 409 reconciled"
)
TAGS = ["slips"]
# Each one is accepted as it is, given the accounts of POST /accounts' examples (a test sends them).
SLIP_EXAMPLES: dict[str, Any] = {
    "expense": {
        "summary": "An expense paid from the wallet",
        "value": {
            "date": "2026-11-03",
            "kind": "expense",
            "amount": 1200,
            "account": "cash",
            "category": "食費",
            "memo": "ランチ",
        },
    },
    "income": {
        "summary": "Salary into the bank",
        "value": {"date": "2026-11-25", "kind": "income", "amount": 250000, "account": "bank", "category": "給与"},
    },
    "transfer": {
        "summary": "Cash withdrawn from the bank (a transfer has no category)",
        "value": {"date": "2026-11-04", "kind": "transfer", "amount": 10000, "account": "bank", "to_account": "cash"},
    },
}
SLIP_PATCH_EXAMPLES: dict[str, Any] = {
    "amount": {"summary": "Correct the amount", "value": {"amount": 1350}},
    "move": {"summary": "Move to another day (the slip gets a new Location)", "value": {"date": "2026-11-05"}},
    "memo": {"summary": "Remove the memo (null removes an optional field)", "value": {"memo": None}},
}
MOVED = "The slip (a new date moves it: Location names where it is now)"
BULK_EXAMPLES: dict[str, Any] = {
    "recategorise": {
        "summary": "Two slips to 交通費, tagged trip",
        "value": {
            "slips": [
                {"date": "2026-11-03", "id": "01KAJ0000000000000000000AB", "version": 1},
                {"date": "2026-11-04", "id": "01KAJ0000000000000000000AC", "version": 2},
            ],
            "set": {"category": "交通費", "tags_add": ["trip"]},
        },
    },
    "delete": {
        "summary": "Delete slips",
        "value": {"slips": [{"date": "2026-11-03", "id": "01KAJ0000000000000000000AB", "version": 1}], "delete": True},
    },
}


def _settling(writer: WriteContext, change: Callable[[], T]) -> T:
    """`change`, tried once more when it was refused (409 reconciled) by a reconciliation or undo that
    stopped midway and whose lease has expired: that run is settled first (released or finished), so
    a slip is never locked by a run nobody finishes. The retry still checks the caller's If-Match."""
    try:
        return change()
    except errors.Reconciled as refused:
        from kakeibo.services import reconciliations  # noqa: PLC0415 - only when a run is in the way

        if not reconciliations.settle_refused(get_store(), writer, refused):
            raise
    return change()


def _location(scope: Scope, slip: dict[str, Any]) -> str:
    return scope.url(f"/slips/{slip['date']}/{slip['id']}")


@router.post(
    "/slips",
    tags=TAGS,
    summary="Record an expense, income or transfer",
    description="With an Idempotency-Key the key is the slip, forever: the same key and body later "
    "answer the slip as it is now (Location: its current date), another body 422 "
    "idempotency_key_reused, and 410 gone once that slip was deleted (it is never created again). "
    "The ledger's rules (GET /rules) fill what the body leaves open (a category, a payee) and may add to the memo; "
    "a category or payee sent is never overwritten.",
    operation_id="createSlip",
    responses={
        201: ok_response(Slip, "Created (or created before with this Idempotency-Key)", headers={**ETAG, **LOCATION}),
        **problem_responses(400, 401, 409, 410, 413, 415, 422, 423),
    },
)
def create_slip(
    slip: Annotated[SlipIn, Body(openapi_examples=SLIP_EXAMPLES)], idempotency_key: IdempotencyKeyHeader = None
) -> Response[str]:
    scope = ledger_scope(router, EDITORS, fenced=True)
    created = service.create_slip(
        get_store(), scope.writer, slip, request_token=request_token(router, idempotency_key), run_rules=True
    )
    return json_response(201, labelled(created, router), etag=created["version"], location=_location(scope, created))


@router.get(
    "/slips",
    tags=TAGS,
    summary="List slips, newest first",
    description="A page of at most `limit` slips; `next_cursor` (null on the last page) asks for the next one.",
    operation_id="listSlips",
    responses={200: ok_response(SlipList), **problem_responses(400, 401, 409)},
)
def list_slips(
    date_from: Annotated[str | None, Query(alias="from", pattern=DATE_PATTERN)] = None,
    date_to: Annotated[str | None, Query(alias="to", pattern=DATE_PATTERN)] = None,
    account: Annotated[str | None, Query(pattern=ACCOUNT_ID_PATTERN)] = None,
    category: Annotated[str | None, Query(min_length=1, max_length=50)] = None,
    kind: Annotated[Kind | None, Query()] = None,
    by: ByQuery = None,
    payee: Annotated[
        str | None,
        Query(min_length=1, max_length=100, description="A payee's slips, compared normalised (ｽｰﾊﾟｰ is スーパー)"),
    ] = None,
    tag: Annotated[
        str | None,
        Query(
            min_length=1,
            max_length=100,
            description="A tag's slips, compared normalised; read only in the months the tag has slips",
        ),
    ] = None,
    q: Annotated[
        str | None,
        Query(
            min_length=1,
            max_length=100,
            description="Words, each in the payee, memo, category or tags (compared normalised: ｽｰﾊﾟｰ is スーパー), "
            "within from..to: by default the last 12 months, at most 5 years",
        ),
    ] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 50,
    cursor: Annotated[str | None, Query(max_length=512)] = None,
) -> Response[str]:
    items, next_cursor = service.list_slips(
        get_store(),
        ledger_scope(router).key,
        date_from=date_from,
        date_to=date_to,
        account=account,
        category=category,
        kind=kind,
        by=by,
        payee=payee,
        tag=tag,
        q=q,
        limit=limit,
        cursor=cursor,
    )
    return json_response(200, labelled({"items": items, "next_cursor": next_cursor}, router))


@router.get(
    "/slips/<id>",
    tags=TAGS,
    summary="One slip by its id, wherever its date is (Content-Location: its dated URL)",
    operation_id="getSlipById",
    responses={200: ok_response(Slip, headers={**ETAG, **CONTENT_LOCATION}), **problem_responses(401, 404, 409)},
)
def get_slip_by_id(id: str) -> Response[str]:
    scope = ledger_scope(router)
    slip = service.get_slip_by_id(get_store(), scope.key, id)
    return json_response(
        200, labelled(slip, router), etag=slip["version"], headers={"Content-Location": _location(scope, slip)}
    )


@router.get(
    "/slips/<date>/<id>",
    tags=TAGS,
    summary="One slip (ETag: its version)",
    operation_id="getSlip",
    responses={200: ok_response(Slip, headers=ETAG), **problem_responses(401, 404, 409)},
)
def get_slip(date: str, id: str) -> Response[str]:
    slip = service.get_slip(get_store(), ledger_scope(router).key, date, id)
    return json_response(200, labelled(slip, router), etag=slip["version"])


@router.put(
    "/slips/<date>/<id>",
    tags=TAGS,
    summary="Replace a slip (If-Match required); a new date moves it to a new Location",
    operation_id="replaceSlip",
    responses={
        200: ok_response(Slip, MOVED, headers={**ETAG, **LOCATION}),
        **problem_responses(400, 401, 404, 409, 412, 413, 415, 422, 423, 428),
    },
)
def replace_slip(
    date: str,
    id: str,
    slip: Annotated[SlipIn, Body(openapi_examples=SLIP_EXAMPLES)],
    if_match_header: IfMatchHeader,
    unlock: Annotated[bool, Query(description=UNLOCK)] = False,
) -> Response[str]:
    scope = ledger_scope(router, EDITORS, fenced=True)
    expected = if_match(if_match_header)
    writer = scope.writer
    updated = _settling(
        writer, lambda: service.update_slip(get_store(), writer, date, id, expected=expected, body=slip, unlock=unlock)
    )
    return json_response(200, labelled(updated, router), etag=updated["version"], location=_location(scope, updated))


@router.patch(
    "/slips/<date>/<id>",
    tags=TAGS,
    summary="Change some fields (JSON merge patch, If-Match required)",
    description="Send `application/merge-patch+json` (or `application/json`): absent fields stay, null removes "
    "an optional one. A new date moves the slip: the answer's Location names where it is now.",
    operation_id="patchSlip",
    responses={
        200: ok_response(Slip, MOVED, headers={**ETAG, **LOCATION}),
        **problem_responses(400, 401, 404, 409, 412, 413, 415, 422, 423, 428),
    },
)
def patch_slip(
    date: str,
    id: str,
    patch: Annotated[SlipPatch, Body(openapi_examples=SLIP_PATCH_EXAMPLES)],
    if_match_header: IfMatchHeader,
    unlock: Annotated[bool, Query(description=UNLOCK)] = False,
) -> Response[str]:
    scope = ledger_scope(router, EDITORS, fenced=True)
    expected = if_match(if_match_header)
    changes = patch.model_dump(exclude_unset=True)
    writer = scope.writer
    updated = _settling(
        writer,
        lambda: service.update_slip(get_store(), writer, date, id, expected=expected, patch=changes, unlock=unlock),
    )
    return json_response(200, labelled(updated, router), etag=updated["version"], location=_location(scope, updated))


@router.delete(
    "/slips/<date>/<id>",
    tags=TAGS,
    summary="Delete a slip (If-Match required); its effects are reversed",
    operation_id="deleteSlip",
    responses={204: no_content("Deleted"), **problem_responses(400, 401, 404, 409, 412, 423, 428)},
)
def delete_slip(
    date: str,
    id: str,
    if_match_header: IfMatchHeader,
    unlock: Annotated[bool, Query(description=UNLOCK)] = False,
) -> Response[str]:
    writer = ledger_scope(router, EDITORS, fenced=True).writer
    expected = if_match(if_match_header)
    _settling(writer, lambda: service.delete_slip(get_store(), writer, date, id, expected=expected, unlock=unlock))
    return Response(status_code=204, body="")


@router.post(
    "/slips/bulk",
    tags=["slips"],
    summary="Change or delete many slips at once, each under the version read",
    description="Up to 500 slips, each with the version the caller read; `set` changes what it names (tags_add "
    "and tags_remove edit the tags), `delete: true` deletes them. Applied in batches, each one transaction and one "
    "journal entry naming the bulk edit; the answer lists what changed and what was refused (stale: at another "
    "version, reconciled, forbidden, not_found, invalid). Every slip stale: 200 with every refusal, nothing "
    "changed. Resent with the same Idempotency-Key it carries on from where it stopped, never changing a slip "
    "twice. POST /changes/{seq}/undo of any of its entries takes back the whole bulk edit.",
    operation_id="bulkSlips",
    responses={
        200: ok_response(BulkResult),
        **problem_responses(400, 401, 403, 404, 409, 413, 415, 422, 423),
    },
)
def bulk_slips(
    bulk: Annotated[BulkIn, Body(openapi_examples=BULK_EXAMPLES)], idempotency_key: IdempotencyKeyHeader = None
) -> Response[str]:
    # not fenced: a bulk whose every slip is refused answers without a change to meet the fence
    scope = ledger_scope(router, EDITORS)
    token = request_token(router, idempotency_key)
    return json_response(200, bulk_service.bulk_edit(get_store(), scope.writer, bulk, token=token))
