"""/ledgers/{ledger}/webhooks: an owner's webhooks, each journal entry POSTed to them, signed."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body

from kakeibo.http import json_response, no_content, ok_response, problem_responses
from kakeibo.models.webhooks import DeliveryList, Webhook, WebhookCreated, WebhookIn, WebhookList
from kakeibo.routes.properties import RouteProperties
from kakeibo.routes.scope import ledger_access
from kakeibo.services.access import OWNERS
from kakeibo.services.webhooks import manage as service
from kakeibo.store import get_store

router = Router()
# what these routes are besides their code (routes/properties.py)
PROPERTIES = {
    "POST /webhooks/{id}/resume": RouteProperties(no_body=True),
}
TAGS = ["webhooks"]
WEBHOOK_EXAMPLES: dict[str, Any] = {
    "dashboard": {
        "summary": "A family dashboard told of every change",
        "value": {"url": "https://93.184.215.14/hooks/kakeibo", "description": "家族のダッシュボード"},
    }
}


def _owner(ledger: str) -> Any:
    return ledger_access(router, ledger, OWNERS)


@router.post(
    "/ledgers/<ledger>/webhooks",
    tags=TAGS,
    summary="Send every change of the ledger to a URL (owner): the secret is shown once",
    description="Each journal entry is POSTed as JSON, in seq order, at least once, with Kakeibo-Event-Id "
    '`{ledger}:{seq}` and Kakeibo-Signature `t={unix},v1={hex HMAC-SHA256(secret, "{t}.{body}")}`. The URL '
    "must be https and resolve to public addresses only; redirects are not followed.",
    operation_id="createWebhook",
    responses={
        201: ok_response(WebhookCreated, "Created"),
        **problem_responses(400, 401, 403, 404, 409, 413, 415, 422),
    },
)
def create_webhook(
    ledger: str, webhook: Annotated[WebhookIn, Body(openapi_examples=WEBHOOK_EXAMPLES)]
) -> Response[str]:
    access = _owner(ledger)
    return json_response(201, service.create(get_store(), access.writer(), webhook))


@router.get(
    "/ledgers/<ledger>/webhooks",
    tags=TAGS,
    summary="The ledger's webhooks (owner), without their secrets",
    operation_id="listWebhooks",
    responses={200: ok_response(WebhookList), **problem_responses(401, 403, 404, 409)},
)
def list_webhooks(ledger: str) -> Response[str]:
    return json_response(200, service.list_webhooks(get_store(), _owner(ledger).key))


@router.delete(
    "/ledgers/<ledger>/webhooks/<id>",
    tags=TAGS,
    summary="Stop sending to a webhook (owner)",
    operation_id="deleteWebhook",
    responses={204: no_content("Deleted"), **problem_responses(401, 403, 404, 409)},
)
def delete_webhook(ledger: str, id: str) -> Response[str]:
    service.delete(get_store(), _owner(ledger).writer(), id)
    return Response(status_code=204, body="")


@router.post(
    "/ledgers/<ledger>/webhooks/<id>/resume",
    tags=TAGS,
    summary="Send to a failing webhook again, from the entry it last received (owner)",
    description="A webhook whose retry budget ran out is `failing`; this makes it active and it is sent every "
    "entry after `delivered`, in order. A webhook disabled because its creator is no longer an owner stays "
    "disabled (409).",
    operation_id="resumeWebhook",
    responses={200: ok_response(Webhook), **problem_responses(400, 401, 403, 404, 409, 413, 415)},
)
def resume_webhook(ledger: str, id: str) -> Response[str]:
    return json_response(200, service.resume(get_store(), _owner(ledger).writer(), id))


@router.get(
    "/ledgers/<ledger>/webhooks/<id>/deliveries",
    tags=TAGS,
    summary="A webhook's latest deliveries: attempts, status, errors (owner)",
    operation_id="listWebhookDeliveries",
    responses={200: ok_response(DeliveryList), **problem_responses(401, 403, 404, 409)},
)
def list_deliveries(ledger: str, id: str) -> Response[str]:
    return json_response(200, service.deliveries(get_store(), _owner(ledger).key, id))
