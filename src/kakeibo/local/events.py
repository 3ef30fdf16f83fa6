"""Build API Gateway HTTP API (payload format 2.0) events, as the real service would send them."""

from __future__ import annotations

import base64
import datetime as dt
import time
import uuid
from typing import Any
from urllib.parse import urlencode

from kakeibo.local.template import Route

LOCAL_REGION = "us-east-1"  # the region the local front's ARNs name


def http_event(
    route: Route,
    *,
    path: str,
    path_parameters: dict[str, str] | None = None,
    query: dict[str, str] | None = None,
    headers: dict[str, str] | None = None,
    body: bytes | str | None = None,
    authorizer: dict[str, Any] | None = None,
    source_ip: str = "127.0.0.1",
) -> dict[str, Any]:
    headers = {k.lower(): v for k, v in (headers or {}).items()}
    now = dt.datetime.now(dt.UTC)
    event: dict[str, Any] = {
        "version": "2.0",
        "routeKey": route.key,
        "rawPath": path,
        "rawQueryString": urlencode(query or {}),
        "headers": headers,
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "local",
            "domainName": headers.get("host", "127.0.0.1"),
            "domainPrefix": "local",
            "http": {
                "method": route.method,
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": source_ip,
                "userAgent": headers.get("user-agent", ""),
            },
            "requestId": str(uuid.uuid4()),
            "routeKey": route.key,
            "stage": "$default",
            "time": now.strftime("%d/%b/%Y:%H:%M:%S +0000"),
            "timeEpoch": int(time.time() * 1000),
        },
        "isBase64Encoded": False,
    }
    if query:
        event["queryStringParameters"] = dict(query)
    if path_parameters:
        event["pathParameters"] = dict(path_parameters)
    if authorizer is not None and not route.public:
        # as the Lambda authorizer (§25) passes it: its simple response's context
        event["requestContext"]["authorizer"] = {"lambda": dict(authorizer)}
    if body:
        if isinstance(body, bytes):
            try:
                event["body"] = body.decode("utf-8")
            except UnicodeDecodeError:
                event["body"] = base64.b64encode(body).decode()
                event["isBase64Encoded"] = True
        else:
            event["body"] = body
    return event


def authorizer_event(request: dict[str, Any], identity: str) -> dict[str, Any]:
    """The payload-2.0 event a Lambda authorizer gets for `request` (a route's event, without its
    body): its identity source's value and the route's ARN."""
    method, _, path = str(request.get("routeKey", "")).partition(" ")
    context = request.get("requestContext") or {}
    arn = f"arn:aws:execute-api:{LOCAL_REGION}:{context.get('accountId', '')}:{context.get('apiId', '')}"
    event = {k: v for k, v in request.items() if k not in ("body", "isBase64Encoded")}
    event.update(
        {
            "type": "REQUEST",
            "routeArn": f"{arn}/{context.get('stage', '$default')}/{method}{path}",
            "identitySource": [identity],
        }
    )
    return event
