"""HTTP helpers shared by the routers: identity, JSON responses, ETag / If-Match, OpenAPI bits."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import BaseRouter
from aws_lambda_powertools.event_handler.openapi.params import Header
from aws_lambda_powertools.event_handler.openapi.types import OpenAPIResponse
from pydantic import BaseModel

from kakeibo import errors
from kakeibo.idempotency import request_token as derive_token
from kakeibo.messages import Lang
from kakeibo.models import Problem

# Declared so that the OpenAPI description (Swagger UI, generated clients) shows them.
IfMatchHeader = Annotated[
    str | None,
    Header(alias="If-Match", description='The ETag you last read, e.g. "3" (required for changes)'),
]
IdempotencyKeyHeader = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        description="Any unique string (1-255 printable ASCII); a retry with the same key is answered once",
    ),
]

JSON = "application/json"
PROBLEM_JSON = "application/problem+json"
_SUB_RE = re.compile(r"^[\x21-\x7e]{1,128}$")
# RFC 9110 entity-tag: [W/] DQUOTE *etagc DQUOTE; ours are the version in decimal.
_ETAG_RE = re.compile(r'^(W/)?"(?:(\d{1,18})|[\x21\x23-\x7e\x80-\xff]*)"$')


def identity(router: BaseRouter) -> str:
    """The caller's ledger: the JWT `sub` the authorizer verified. Never from the request itself."""
    event = router.current_event
    claims = event.request_context.authorizer.jwt_claim  # type: ignore[attr-defined]
    sub = claims.get("sub") if isinstance(claims, dict) else None
    if not isinstance(sub, str) or not _SUB_RE.match(sub):
        raise errors.Unauthorized("a valid bearer token is required")
    return sub


def json_response(
    status: int,
    body: Any,
    *,
    etag: int | None = None,
    location: str | None = None,
    headers: dict[str, str] | None = None,
) -> Response[str]:
    out = dict(headers or {})
    if etag is not None:
        out["ETag"] = f'"{etag}"'
    if location is not None:
        out["Location"] = location
    payload = body.model_dump(mode="json", by_alias=True) if isinstance(body, BaseModel) else body
    return Response(
        status_code=status,
        content_type=JSON,
        body=json.dumps(payload, ensure_ascii=False, separators=(",", ":")),
        headers=out,
    )


def problem_json(error: errors.ApiError, lang: Lang = "en") -> str:
    return json.dumps(error.problem(lang), ensure_ascii=False, separators=(",", ":"))


def problem_response(error: errors.ApiError, lang: Lang = "en") -> Response[str]:
    headers = {**error.headers, "Content-Language": lang, "Vary": "Accept-Language"}
    return Response(
        status_code=error.status, content_type=PROBLEM_JSON, body=problem_json(error, lang), headers=headers
    )


def if_match(raw: str | None) -> int | None:
    """The version `If-Match` names; None for `*` (any current version). Missing -> 428."""
    if raw is None or not raw.strip():
        raise errors.PreconditionRequired(
            'send If-Match with the ETag you last read (e.g. If-Match: "3")', header="If-Match"
        )
    return _etag_version(raw)


def optional_if_match(raw: str | None) -> tuple[bool, int | None]:
    """(whether If-Match was sent, the version it names or None for `*`)."""
    if raw is None or not raw.strip():
        return False, None
    return True, _etag_version(raw)


def _etag_version(raw: str) -> int | None:
    """RFC 9110 If-Match: `*`, or a list of entity tags compared strongly.

    `*` matches whatever version is current. A weak tag (W/"3") never matches under strong comparison,
    so a list of only weak tags fails the precondition (412). One strong tag names the version; a
    list naming several versions is refused (400): a version is one ETag. Anything that is not an
    entity tag (e.g. an unquoted 3) is a 400 that shows how to write one.
    """
    value = raw.strip()
    if value == "*":
        return None
    versions: set[int] = set()
    weak = foreign = False
    for part in _split_tags(value):
        match = _ETAG_RE.match(part)
        if not match:
            raise errors.BadRequest(
                f'If-Match must be an ETag in double quotes, as the API sent it (e.g. If-Match: "3"), not {part[:40]}',
                header="If-Match",
            )
        weak = weak or bool(match.group(1))
        if match.group(1):
            continue
        if match.group(2) is not None:
            versions.add(int(match.group(2)))
        else:
            foreign = True  # well-formed, but not an ETag the API issues: it can never match
    if len(versions) > 1:
        raise errors.BadRequest('If-Match names one version: send one ETag (e.g. If-Match: "3")', header="If-Match")
    if not versions:
        if weak and not foreign:
            raise errors.VersionMismatch(
                'a weak ETag (W/"...") never matches If-Match: send the ETag as the API sent it (e.g. If-Match: "3")',
                expected=None,
            )
        raise errors.VersionMismatch(
            'no ETag of the API matches: send the ETag as the API sent it (e.g. If-Match: "3")', expected=None
        )
    return versions.pop()


def _split_tags(value: str) -> list[str]:
    """Split an entity-tag list on the commas outside quotes."""
    parts: list[str] = []
    current: list[str] = []
    quoted = False
    for ch in value:
        if ch == '"':
            quoted = not quoted
        if ch == "," and not quoted:
            parts.append("".join(current).strip())
            current = []
            continue
        current.append(ch)
    parts.append("".join(current).strip())
    return [p for p in parts if p] or [value]


def raw_body(router: BaseRouter) -> bytes:
    """The request body as sent (the handler's precheck has already checked its size and type)."""
    event = router.current_event
    body = event.body or ""
    if event.is_base64_encoded:
        return base64.b64decode(body)
    return body.encode("utf-8", "surrogatepass")


def time_left(router: BaseRouter) -> Callable[[], float] | None:
    """Seconds this invocation has left, if the runtime tells (so long work can stop in time)."""
    context = router.lambda_context
    remaining = getattr(context, "get_remaining_time_in_millis", None)
    if remaining is None:
        return None
    return lambda: float(remaining()) / 1000


def request_token(router: BaseRouter, idempotency_key: str | None) -> str | None:
    """The ClientRequestToken an Idempotency-Key derives for this caller and route (None without a key)."""
    if not idempotency_key:
        return None
    route = str(router.current_event.raw_event.get("routeKey", ""))
    return derive_token(identity(router), route, idempotency_key)


def problem_responses(*statuses: int) -> dict[int, OpenAPIResponse]:
    """OpenAPI `responses` entries for the problem statuses a route can return."""
    descriptions = {
        400: "Malformed request",
        401: "No identity",
        404: "Not found",
        409: "Conflict with the current state",
        412: "If-Match is stale",
        413: "Payload too large",
        415: "Unsupported media type",
        422: "Validation error",
        423: "Ledger locked by a rebuild",
        428: "If-Match required",
    }
    return {
        status: {
            "description": descriptions[status],
            "content": {PROBLEM_JSON: {"model": Problem}},
        }
        for status in statuses
    }


def ok_response(model: type[BaseModel], description: str = "OK") -> OpenAPIResponse:
    return {"description": description, "content": {JSON: {"model": model}}}
