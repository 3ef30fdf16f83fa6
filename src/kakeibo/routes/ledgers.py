"""/ledgers: the caller's personal ledger (`me`) and the shared household ledgers they belong to."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body

from kakeibo.http import (
    ETAG,
    LOCATION,
    IfMatchHeader,
    identity,
    if_match,
    json_response,
    no_content,
    ok_response,
    problem_responses,
)
from kakeibo.models.ledgers import (
    Acceptance,
    Invitation,
    InvitationIn,
    Ledger,
    LedgerDetail,
    LedgerIn,
    LedgerList,
    LedgerPatch,
    Member,
    MemberIn,
)
from kakeibo.routes.properties import RouteProperties
from kakeibo.services import ledgers
from kakeibo.store import get_store

router = Router()
# what these routes are besides their code (routes/properties.py)
PROPERTIES = {
    "POST /invitations/{token}/accept": RouteProperties(no_body=True),
}
TAGS = ["ledgers"]
LEDGER_EXAMPLES: dict[str, Any] = {"household": {"summary": "A household's ledger", "value": {"name": "山田家"}}}
RENAME_EXAMPLES: dict[str, Any] = {"rename": {"summary": "Rename", "value": {"name": "山田家（実家）"}}}


@router.post(
    "/ledgers",
    tags=TAGS,
    summary="Create a shared ledger; you are its owner",
    operation_id="createLedger",
    responses={
        201: ok_response(Ledger, "Created", headers={**ETAG, **LOCATION}),
        **problem_responses(400, 401, 409, 413, 415, 422),
    },
)
def create_ledger(ledger: Annotated[LedgerIn, Body(openapi_examples=LEDGER_EXAMPLES)]) -> Response[str]:
    created = ledgers.create_ledger(get_store(), identity(router), ledger)
    return json_response(201, created, etag=created["version"], location=f"/ledgers/{created['id']}")


@router.get(
    "/ledgers",
    tags=TAGS,
    summary="Your ledgers, personal (`me`) first, with your role in each",
    operation_id="listLedgers",
    responses={200: ok_response(LedgerList), **problem_responses(400, 401, 409)},
)
def list_ledgers() -> Response[str]:
    return json_response(200, ledgers.list_ledgers(get_store(), identity(router)))


@router.get(
    "/ledgers/<ledger>",
    tags=TAGS,
    summary="A ledger with its members (`me`: your personal ledger)",
    operation_id="getLedger",
    responses={200: ok_response(LedgerDetail, headers=ETAG), **problem_responses(400, 401, 404, 409)},
)
def get_ledger(ledger: str) -> Response[str]:
    found = ledgers.get_ledger(get_store(), identity(router), ledger)
    return json_response(200, found, etag=found["version"])


@router.patch(
    "/ledgers/<ledger>",
    tags=TAGS,
    summary="Rename a shared ledger (owner, If-Match required)",
    operation_id="patchLedger",
    responses={
        200: ok_response(Ledger, headers=ETAG),
        **problem_responses(400, 401, 403, 404, 409, 412, 413, 415, 422, 428),
    },
)
def patch_ledger(
    ledger: str,
    patch: Annotated[LedgerPatch, Body(openapi_examples=RENAME_EXAMPLES)],
    if_match_header: IfMatchHeader,
) -> Response[str]:
    caller = identity(router)
    expected = if_match(if_match_header)
    renamed = ledgers.rename_ledger(get_store(), caller, ledger, patch, expected)
    return json_response(200, renamed, etag=renamed["version"])


INVITATION_EXAMPLES: dict[str, Any] = {
    "editor": {"summary": "A partner who records slips", "value": {"role": "editor"}},
    "viewer": {"summary": "Someone who only reads", "value": {"role": "viewer"}},
}


@router.post(
    "/ledgers/<ledger>/invitations",
    tags=TAGS,
    summary="Invite someone to a shared ledger with a role (owner): a one-time token, valid 7 days",
    operation_id="createInvitation",
    responses={
        201: ok_response(Invitation, "Created"),
        **problem_responses(400, 401, 403, 404, 409, 413, 415, 422),
    },
)
def create_invitation(
    ledger: str, invitation: Annotated[InvitationIn, Body(openapi_examples=INVITATION_EXAMPLES)]
) -> Response[str]:
    return json_response(201, ledgers.invite(get_store(), identity(router), ledger, invitation))


@router.post(
    "/invitations/<token>/accept",
    tags=TAGS,
    summary="Accept an invitation: you become a member of its ledger (once; used or expired: 410)",
    operation_id="acceptInvitation",
    responses={200: ok_response(Acceptance), **problem_responses(400, 401, 404, 409, 410, 413, 415)},
)
def accept_invitation(token: str) -> Response[str]:
    return json_response(200, ledgers.accept(get_store(), identity(router), token))


ROLE_EXAMPLES: dict[str, Any] = {"viewer": {"summary": "Read only from now on", "value": {"role": "viewer"}}}


@router.put(
    "/ledgers/<ledger>/members/<user>",
    tags=TAGS,
    summary="Change a member's role (owner, If-Match: the member's version); the last owner stays owner",
    operation_id="putMember",
    responses={
        200: ok_response(Member, headers=ETAG),
        **problem_responses(400, 401, 403, 404, 409, 412, 413, 415, 422, 428),
    },
)
def put_member(
    ledger: str,
    user: str,
    member: Annotated[MemberIn, Body(openapi_examples=ROLE_EXAMPLES)],
    if_match_header: IfMatchHeader,
) -> Response[str]:
    caller = identity(router)
    expected = if_match(if_match_header)
    changed = ledgers.change_role(get_store(), caller, ledger, user, member, expected=expected)
    return json_response(200, changed, etag=changed["version"])


@router.delete(
    "/ledgers/<ledger>/members/<user>",
    tags=TAGS,
    summary="Remove a member (owner), or leave (yourself); If-Match: the member's version",
    description="The last owner cannot leave (409 last_owner): make someone else owner first.",
    operation_id="deleteMember",
    responses={204: no_content("Removed"), **problem_responses(400, 401, 403, 404, 409, 412, 428)},
)
def delete_member(ledger: str, user: str, if_match_header: IfMatchHeader) -> Response[str]:
    caller = identity(router)
    expected = if_match(if_match_header)
    ledgers.remove_member(get_store(), caller, ledger, user, expected=expected)
    return Response(status_code=204, body="")
