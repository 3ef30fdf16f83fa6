"""/me: who calls (signed in, or a token and its scope); /me/tokens: a signed-in person's personal access
tokens, for scripts and programs (§25)."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body

from kakeibo.http import caller_of, json_response, no_content, ok_response, problem_responses
from kakeibo.models.tokens import Me, TokenCreated, TokenIn, TokenList
from kakeibo.services import tokens as service
from kakeibo.store import get_token_store

router = Router()
TAGS = ["tokens"]
EXAMPLES: dict[str, Any] = {
    "spreadsheet": {
        "summary": "A spreadsheet that reads the month's slips",
        "value": {"name": "家計簿シート", "scope": "read", "expires_in_days": 90},
    }
}


@router.get(
    "/me",
    tags=TAGS,
    summary="Who you are to the API: signed in, or a personal access token and its scope",
    description="Any caller, with a token too: a program learns here whether its token may write (`scope`) "
    "before it offers to change anything.",
    operation_id="getMe",
    responses={200: ok_response(Me), **problem_responses(401)},
)
def get_me() -> Response[str]:
    return json_response(200, service.me(caller_of(router)))


@router.post(
    "/me/tokens",
    tags=TAGS,
    summary="Make a personal access token (signed in only): shown once",
    description="A token acts as you in every ledger you belong to, never beyond your role there. `read` "
    "tokens may only GET; `write` tokens may do what your role allows. Send it as `Authorization: Bearer "
    "kk_...`. It is shown in this answer only (only its SHA-256 is kept); at most 20 live tokens per person "
    "(409 limit_reached). A token cannot manage tokens (403 token_scope).",
    operation_id="createToken",
    responses={
        201: ok_response(TokenCreated, "Made: the token is shown once"),
        **problem_responses(400, 401, 403, 409, 413, 415, 422),
    },
)
def create_token(body: Annotated[TokenIn, Body(openapi_examples=EXAMPLES)]) -> Response[str]:
    made = service.create(get_token_store(), caller_of(router), body)
    return json_response(201, made, location=f"/me/tokens/{made['id']}")


@router.get(
    "/me/tokens",
    tags=TAGS,
    summary="Your personal access tokens (no secrets), with the day each was last used",
    operation_id="listTokens",
    responses={200: ok_response(TokenList), **problem_responses(401, 403)},
)
def list_tokens() -> Response[str]:
    return json_response(200, service.list_tokens(get_token_store(), caller_of(router)))


@router.delete(
    "/me/tokens/<id>",
    tags=TAGS,
    summary="Revoke a personal access token",
    description="It stops working at once here, and within the authorizer's cache (60 s) on AWS.",
    operation_id="revokeToken",
    responses={204: no_content("Revoked"), **problem_responses(401, 403, 404)},
)
def revoke_token(id: str) -> Response[str]:
    service.revoke(get_token_store(), caller_of(router), id)
    return Response(status_code=204, body="")
