"""/accounts: payment methods (cash, bank, IC cards, credit cards) and their balances."""

from __future__ import annotations

from typing import Annotated

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
from kakeibo.models import (
    DATE_PATTERN,
    Account,
    AccountCreate,
    AccountHistory,
    AccountList,
    AccountPatch,
)
from kakeibo.services import accounts, balances, common
from kakeibo.settings import today
from kakeibo.store import get_store

router = Router()
TAGS = ["accounts"]


@router.post(
    "/accounts",
    tags=TAGS,
    summary="Create an account",
    responses={201: ok_response(Account, "Created"), **problem_responses(400, 401, 409, 413, 415, 422, 423)},
)
def create_account(
    account: Annotated[AccountCreate, Body()], idempotency_key: IdempotencyKeyHeader = None
) -> Response[str]:
    created = accounts.create_account(
        get_store(), identity(router), account, request_token=request_token(router, idempotency_key)
    )
    return json_response(201, created, etag=created["version"], location=f"/accounts/{created['id']}")


@router.get(
    "/accounts",
    tags=TAGS,
    summary="List accounts with their current balances",
    responses={200: ok_response(AccountList), **problem_responses(401)},
)
def list_accounts() -> Response[str]:
    return json_response(200, {"items": accounts.list_accounts(get_store(), identity(router))})


@router.get(
    "/accounts/<id>",
    tags=TAGS,
    summary="One account with its current balance",
    responses={200: ok_response(Account), **problem_responses(401, 404)},
)
def get_account(id: str) -> Response[str]:
    account = accounts.get_account(get_store(), identity(router), id)
    return json_response(200, account, etag=account["version"])


@router.patch(
    "/accounts/<id>",
    tags=TAGS,
    summary="Rename, allow negative balances, archive (If-Match required)",
    responses={
        200: ok_response(Account),
        **problem_responses(400, 401, 404, 412, 413, 415, 422, 428),
    },
)
def patch_account(
    id: str, patch: Annotated[AccountPatch, Body()], if_match_header: IfMatchHeader = None
) -> Response[str]:
    who = identity(router)
    expected = if_match(if_match_header)
    account = accounts.patch_account(get_store(), who, id, patch, expected)
    return json_response(200, account, etag=account["version"])


@router.get(
    "/accounts/<id>/history",
    tags=TAGS,
    summary="Daily balance series (days without slips carry the balance forward)",
    description="`to` defaults to today in the ledger's time zone (Asia/Tokyo unless configured), "
    "`from` to 30 days before `to`.",
    responses={200: ok_response(AccountHistory), **problem_responses(400, 401, 404)},
)
def account_history(
    id: str,
    date_from: Annotated[str | None, Query(alias="from", pattern=DATE_PATTERN)] = None,
    date_to: Annotated[str | None, Query(alias="to", pattern=DATE_PATTERN)] = None,
) -> Response[str]:
    who = identity(router)
    end = date_to or today().isoformat()
    start = date_from or common.days_before(end, 30)
    return json_response(200, balances.history(get_store(), who, id, start, end))
