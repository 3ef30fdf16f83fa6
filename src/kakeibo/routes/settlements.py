"""/ledgers/{ledger}/settlement(s): who paid, who owes (立替・精算) in a shared ledger, and who paid whom
back."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body

from kakeibo.http import (
    ETAG,
    IdempotencyKeyHeader,
    IfMatchHeader,
    if_match,
    json_response,
    ok_response,
    problem_responses,
    request_token,
)
from kakeibo.models.ledgers import SettlementIn, SettlementRecord, SettlementView
from kakeibo.routes.properties import RouteProperties
from kakeibo.routes.scope import ledger_access
from kakeibo.services import settlements as service
from kakeibo.services.access import EDITORS, MEMBERS
from kakeibo.store import get_store

router = Router()
# what these routes are besides their code (routes/properties.py)
PROPERTIES = {
    "POST /settlements": RouteProperties(idempotent=True),
}
TAGS = ["settlements"]
SETTLEMENT_EXAMPLES: dict[str, Any] = {
    "paid_back": {
        "summary": "Hanako paid Taro back 1,500 yen",
        "value": {"from": "hanako", "to": "taro", "amount": 1500},
    }
}


@router.get(
    "/ledgers/<ledger>/settlement",
    tags=TAGS,
    summary="Who owes whom in a shared ledger: each member's paid, share and net, and the fewest transfers",
    description="A member's net is paid - share + settled (> 0: owed, < 0: owes); the nets sum to 0. Members who "
    "left keep their net (`member: false`) until it is settled. The ETag is the nets' version: send it as "
    "If-Match to record a settlement. The personal ledger has none (404).",
    operation_id="getSettlement",
    responses={200: ok_response(SettlementView, headers=ETAG), **problem_responses(401, 404, 409)},
)
def get_settlement(ledger: str) -> Response[str]:
    access = ledger_access(router, ledger, MEMBERS)
    found = service.settlement(get_store(), access.key)
    return json_response(200, found, etag=found["version"])


@router.post(
    "/ledgers/<ledger>/settlements",
    tags=TAGS,
    summary="Record that `from` paid `to` back (editor+, If-Match: the settlement's ETag)",
    description="From's net rises by the amount and to's falls, in one transaction conditioned on the nets' "
    "version: of two members settling on the same view only one succeeds (412 for the other). With an "
    "Idempotency-Key a retry after a lost answer gets the settlement it recorded, not a 412 (also after the "
    "key's record expired: the settlement's id derives from the key); another body with the key is 422.",
    operation_id="createSettlement",
    responses={
        201: ok_response(SettlementRecord, "Recorded", headers=ETAG),
        **problem_responses(400, 401, 403, 404, 409, 412, 413, 415, 422, 423, 428),
    },
)
def create_settlement(
    ledger: str,
    settlement: Annotated[SettlementIn, Body(openapi_examples=SETTLEMENT_EXAMPLES)],
    if_match_header: IfMatchHeader,
    idempotency_key: IdempotencyKeyHeader = None,
) -> Response[str]:
    expected = if_match(if_match_header)
    access = ledger_access(router, ledger, EDITORS)
    request_id = (router.current_event.raw_event.get("requestContext") or {}).get("requestId")
    made = service.record_settlement(
        get_store(),
        access.writer(request_id=str(request_id) if request_id else None),
        settlement,
        expected=expected,
        token=request_token(router, idempotency_key),
    )
    return json_response(201, made, etag=made["version"])
