"""/slips: expenses, income and transfers. Every write is one DynamoDB transaction."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body, Query

from kakeibo.http import (
    IdempotencyKeyHeader,
    IfMatchHeader,
    identity,
    if_match,
    json_response,
    ok_response,
    problem_responses,
    request_token,
)
from kakeibo.ledger import Kind
from kakeibo.models import ACCOUNT_ID_PATTERN, DATE_PATTERN, Slip, SlipIn, SlipList, SlipPatch
from kakeibo.services import slips as service
from kakeibo.store import get_store

router = Router()
TAGS = ["slips"]


def _location(slip: dict[str, Any]) -> str:
    return f"/slips/{slip['date']}/{slip['id']}"


@router.post(
    "/slips",
    tags=TAGS,
    summary="Record an expense, income or transfer",
    description="With an Idempotency-Key the key is the slip, forever: the same key and body later "
    "answer the slip as it is now (Location: its current date), another body 422 "
    "idempotency_key_reused, and 410 gone once that slip was deleted (it is never created again).",
    responses={
        201: ok_response(Slip, "Created (or created before with this Idempotency-Key)"),
        **problem_responses(400, 401, 409, 410, 413, 415, 422, 423),
    },
)
def create_slip(slip: Annotated[SlipIn, Body()], idempotency_key: IdempotencyKeyHeader = None) -> Response[str]:
    who = identity(router)
    created = service.create_slip(get_store(), who, slip, request_token=request_token(router, idempotency_key))
    return json_response(201, created, etag=created["version"], location=_location(created))


@router.get(
    "/slips",
    tags=TAGS,
    summary="List slips, newest first",
    responses={200: ok_response(SlipList), **problem_responses(400, 401)},
)
def list_slips(
    date_from: Annotated[str | None, Query(alias="from", pattern=DATE_PATTERN)] = None,
    date_to: Annotated[str | None, Query(alias="to", pattern=DATE_PATTERN)] = None,
    account: Annotated[str | None, Query(pattern=ACCOUNT_ID_PATTERN)] = None,
    category: Annotated[str | None, Query(min_length=1, max_length=50)] = None,
    kind: Annotated[Kind | None, Query()] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 50,
    cursor: Annotated[str | None, Query(max_length=512)] = None,
) -> Response[str]:
    items, next_cursor = service.list_slips(
        get_store(),
        identity(router),
        date_from=date_from,
        date_to=date_to,
        account=account,
        category=category,
        kind=kind,
        limit=limit,
        cursor=cursor,
    )
    return json_response(200, {"items": items, "next_cursor": next_cursor})


@router.get(
    "/slips/<id>",
    tags=TAGS,
    summary="One slip by its id, wherever its date is (Content-Location: its dated URL)",
    responses={200: ok_response(Slip), **problem_responses(401, 404)},
)
def get_slip_by_id(id: str) -> Response[str]:
    slip = service.get_slip_by_id(get_store(), identity(router), id)
    return json_response(200, slip, etag=slip["version"], headers={"Content-Location": _location(slip)})


@router.get(
    "/slips/<date>/<id>",
    tags=TAGS,
    summary="One slip (ETag: its version)",
    responses={200: ok_response(Slip), **problem_responses(401, 404)},
)
def get_slip(date: str, id: str) -> Response[str]:
    slip = service.get_slip(get_store(), identity(router), date, id)
    return json_response(200, slip, etag=slip["version"])


@router.put(
    "/slips/<date>/<id>",
    tags=TAGS,
    summary="Replace a slip (If-Match required); a new date moves it to a new Location",
    responses={
        200: ok_response(Slip),
        **problem_responses(400, 401, 404, 409, 412, 413, 415, 422, 423, 428),
    },
)
def replace_slip(
    date: str, id: str, slip: Annotated[SlipIn, Body()], if_match_header: IfMatchHeader = None
) -> Response[str]:
    who = identity(router)
    expected = if_match(if_match_header)
    updated = service.update_slip(get_store(), who, date, id, expected=expected, body=slip)
    return json_response(200, updated, etag=updated["version"], location=_location(updated))


@router.patch(
    "/slips/<date>/<id>",
    tags=TAGS,
    summary="Change some fields (JSON merge patch, If-Match required)",
    responses={
        200: ok_response(Slip),
        **problem_responses(400, 401, 404, 409, 412, 413, 415, 422, 423, 428),
    },
)
def patch_slip(
    date: str, id: str, patch: Annotated[SlipPatch, Body()], if_match_header: IfMatchHeader = None
) -> Response[str]:
    who = identity(router)
    expected = if_match(if_match_header)
    changes = patch.model_dump(exclude_unset=True)
    updated = service.update_slip(get_store(), who, date, id, expected=expected, patch=changes)
    return json_response(200, updated, etag=updated["version"], location=_location(updated))


@router.delete(
    "/slips/<date>/<id>",
    tags=TAGS,
    summary="Delete a slip (If-Match required); its effects are reversed",
    responses={204: {"description": "Deleted"}, **problem_responses(401, 404, 409, 412, 423, 428)},
)
def delete_slip(date: str, id: str, if_match_header: IfMatchHeader = None) -> Response[str]:
    who = identity(router)
    expected = if_match(if_match_header)
    service.delete_slip(get_store(), who, date, id, expected=expected)
    return Response(status_code=204, body="")
