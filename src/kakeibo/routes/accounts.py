"""/accounts: payment methods (cash, bank, IC cards, credit cards) and their balances."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body, Query

from kakeibo.http import (
    ETAG,
    LOCATION,
    IdempotencyKeyHeader,
    IfMatchHeader,
    if_match,
    json_response,
    ok_response,
    problem_responses,
    request_token,
)
from kakeibo.models.accounts import Account, AccountCreate, AccountHistory, AccountList, AccountPatch
from kakeibo.models.base import DATE_PATTERN
from kakeibo.routes.properties import RouteProperties
from kakeibo.routes.scope import EDITORS, LedgerRouter, ledger_scope
from kakeibo.services import accounts, balances, common
from kakeibo.settings import today
from kakeibo.store import get_store

router = LedgerRouter()
# what these routes are besides their code (routes/properties.py)
PROPERTIES = {
    "POST /accounts": RouteProperties(idempotent=True),
}
TAGS = ["accounts"]
ACCOUNT_EXAMPLES: dict[str, Any] = {
    "cash": {
        "summary": "A wallet",
        "value": {"id": "cash", "name": "財布", "type": "cash", "opening_balance": 20000},
    },
    "bank": {
        "summary": "A bank account",
        "value": {"id": "bank", "name": "ゆうちょ銀行", "type": "bank", "opening_balance": 300000},
    },
    "credit": {
        "summary": "A credit card (may go below zero)",
        "value": {"id": "card", "name": "楽天カード", "type": "credit"},
    },
}
ACCOUNT_PATCH_EXAMPLES: dict[str, Any] = {
    "rename": {"summary": "Rename", "value": {"name": "お財布"}},
    "archive": {"summary": "Archive (kept for history, no new slips)", "value": {"archived": True}},
}


@router.post(
    "/accounts",
    tags=TAGS,
    summary="Create an account",
    operation_id="createAccount",
    responses={
        201: ok_response(Account, "Created", headers={**ETAG, **LOCATION}),
        **problem_responses(400, 401, 409, 413, 415, 422, 423),
    },
)
def create_account(
    account: Annotated[AccountCreate, Body(openapi_examples=ACCOUNT_EXAMPLES)],
    idempotency_key: IdempotencyKeyHeader = None,
) -> Response[str]:
    scope = ledger_scope(router, EDITORS)
    created = accounts.create_account(
        get_store(), scope.writer, account, request_token=request_token(router, idempotency_key)
    )
    return json_response(201, created, etag=created["version"], location=scope.url(f"/accounts/{created['id']}"))


@router.get(
    "/accounts",
    tags=TAGS,
    summary="List accounts with their current balances",
    operation_id="listAccounts",
    responses={200: ok_response(AccountList), **problem_responses(401, 409)},
)
def list_accounts() -> Response[str]:
    return json_response(200, {"items": accounts.list_accounts(get_store(), ledger_scope(router).key)})


@router.get(
    "/accounts/<id>",
    tags=TAGS,
    summary="One account with its current balance",
    operation_id="getAccount",
    responses={200: ok_response(Account, headers=ETAG), **problem_responses(401, 404, 409)},
)
def get_account(id: str) -> Response[str]:
    account = accounts.get_account(get_store(), ledger_scope(router).key, id)
    return json_response(200, account, etag=account["version"])


@router.patch(
    "/accounts/<id>",
    tags=TAGS,
    summary="Rename, allow negative balances, archive (If-Match required)",
    operation_id="patchAccount",
    responses={
        200: ok_response(Account, headers=ETAG),
        **problem_responses(400, 401, 404, 409, 412, 413, 415, 422, 428),
    },
)
def patch_account(
    id: str,
    patch: Annotated[AccountPatch, Body(openapi_examples=ACCOUNT_PATCH_EXAMPLES)],
    if_match_header: IfMatchHeader,
) -> Response[str]:
    writer = ledger_scope(router, EDITORS).writer
    expected = if_match(if_match_header)
    account = accounts.patch_account(get_store(), writer, id, patch, expected)
    return json_response(200, account, etag=account["version"])


@router.get(
    "/accounts/<id>/history",
    tags=TAGS,
    summary="Daily balance series (days without slips carry the balance forward)",
    description="`to` defaults to today in the ledger's time zone (Asia/Tokyo unless configured), "
    "`from` to 30 days before `to`.",
    operation_id="getAccountHistory",
    responses={200: ok_response(AccountHistory), **problem_responses(400, 401, 404, 409)},
)
def account_history(
    id: str,
    date_from: Annotated[str | None, Query(alias="from", pattern=DATE_PATTERN)] = None,
    date_to: Annotated[str | None, Query(alias="to", pattern=DATE_PATTERN)] = None,
) -> Response[str]:
    ledger = ledger_scope(router).key
    end = date_to or today().isoformat()
    start = date_from or common.days_before(end, 30)
    return json_response(200, balances.history(get_store(), ledger, id, start, end))
