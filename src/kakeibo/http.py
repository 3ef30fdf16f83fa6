"""HTTP helpers shared by the routers: identity, JSON responses, ETag / If-Match, OpenAPI bits."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import BaseRouter
from aws_lambda_powertools.event_handler.openapi.params import Header, Query
from aws_lambda_powertools.event_handler.openapi.types import OpenAPIResponse, OpenAPIResponseHeader
from pydantic import BaseModel

from kakeibo import errors
from kakeibo.event import Caller, header
from kakeibo.event import caller as event_caller
from kakeibo.idempotency import derive_token
from kakeibo.idempotency import scope as idempotency_scope
from kakeibo.messages import Lang, category_label, language

# Declared so that the OpenAPI description (Swagger UI, generated clients) shows them.
IF_MATCH_DOC = (
    'The ETag you last read, e.g. "3" (strong comparison: W/"3" never matches). `*` matches whatever '
    "version is current, when you mean to overwrite."
)
IfMatchHeader = Annotated[str, Header(alias="If-Match", description=IF_MATCH_DOC)]
OptionalIfMatchHeader = Annotated[
    str | None,
    Header(alias="If-Match", description=IF_MATCH_DOC + " Leave it out to create; send it to change."),
]
IdempotencyKeyHeader = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        description="Any unique string (1-255 printable ASCII); a retry with the same key is answered once",
    ),
]

ByQuery = Annotated[
    str | None,
    Query(
        pattern=r"^[\x21-\x7e]{1,128}$",
        description="Only slips created or last changed by this member (their user id)",
    ),
]

JSON = "application/json"
PROBLEM_JSON = "application/problem+json"
_SUB_RE = re.compile(r"^[\x21-\x7e]{1,128}$")
# RFC 9110 entity-tag: [W/] DQUOTE *etagc DQUOTE; ours are the version in decimal.
_ETAG_RE = re.compile(r'^(W/)?"(?:(\d{1,18})|[\x21\x23-\x7e\x80-\xff]*)"$')

MAX_CSV_BODY = 5 * 1024 * 1024  # a CSV import's body, at most (POST /imports)


def identity(router: BaseRouter) -> str:
    """The caller's ledger: the JWT `sub` the authorizer verified. Never from the request itself."""
    return caller_of(router).sub


def caller_of(router: BaseRouter) -> Caller:
    """Who calls: the person the authorizer verified, and how (signed in, or with a token)."""
    found = event_caller(router.current_event.raw_event)
    if found is None or not _SUB_RE.match(found.sub):
        raise errors.Unauthorized("a valid bearer token is required")
    return found


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


def caller_language(event: dict[str, Any]) -> Lang:
    """The language the caller reads (their Accept-Language): problems and kept failures are worded in it."""
    return language(header(event, "accept-language"))


def labelled(body: Any, router: BaseRouter) -> Any:
    """A view with `category_label` next to every `category`: the category in words, in the
    caller's language (messages.category_label; the stored key stays as it is)."""
    lang = caller_language(router.current_event.raw_event)

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(item) for item in node]
        if not isinstance(node, dict):
            return node
        out = {key: walk(value) for key, value in node.items()}
        if "category" in node:
            out["category_label"] = category_label(node["category"], lang)
        return out

    return walk(body)


def problem_json(error: errors.ApiError, lang: Lang = "en") -> str:
    return json.dumps(error.problem(lang), ensure_ascii=False, separators=(",", ":"))


def problem_headers(error: errors.ApiError, lang: Lang) -> dict[str, str]:
    """A problem's headers besides its Content-Type: the error's own (Retry-After), and its language."""
    return {**error.headers, "Content-Language": lang, "Vary": "Accept-Language"}


def problem_response(error: errors.ApiError, lang: Lang = "en") -> Response[str]:
    return Response(
        status_code=error.status,
        content_type=PROBLEM_JSON,
        body=problem_json(error, lang),
        headers=problem_headers(error, lang),
    )


def if_match_required() -> errors.PreconditionRequired:
    return errors.PreconditionRequired(
        'send If-Match with the ETag you last read (e.g. If-Match: "3")', header="If-Match"
    )


def if_match(raw: str | None) -> int | None:
    """The version `If-Match` names; None for `*` (any current version). Missing -> 428."""
    if raw is None or not raw.strip():
        raise if_match_required()
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
    identity(router)  # a usable subject, or 401
    whose, route = idempotency_scope(router.current_event.raw_event)
    return derive_token(whose, route, idempotency_key)


# The codes each problem status carries; their bodies are typed in problems.py (the document adds them).
PROBLEM_CODES: dict[int, tuple[str, tuple[str, ...]]] = {
    400: ("Malformed request: JSON, query, cursor or header", ("bad_request",)),
    401: ("No identity: no token (API Gateway answers), or one without a usable subject", ("unauthorized",)),
    403: (
        "Your role in this ledger does not allow it (viewers read only; owners manage the ledger), or your token's "
        "scope does not",
        ("forbidden", "token_scope"),
    ),
    404: ("Not found (or not in your ledger)", ("not_found",)),
    409: (
        "Conflict with the current state",
        (
            "already_exists",
            "insufficient_funds",
            "budget_exceeded",
            "last_owner",
            "conflict",
            "not_a_card",
            "limit_reached",
            "personal_ledger",
            "not_resumable",
            "request_in_progress",
            "already_undone",
            "not_undoable",
            "upload_in_progress",
            "upload_missing",
            "reconciled",
            "reconciliation_difference",
        ),
    ),
    410: ("Gone for good: the slip this Idempotency-Key created was deleted", ("gone",)),
    412: ("If-Match is stale", ("version_mismatch",)),
    413: ("Payload too large", ("payload_too_large",)),
    415: ("Unsupported media type", ("unsupported_media_type",)),
    422: (
        "Validation error",
        ("validation_error", "idempotency_key_reused", "lines_sum_mismatch", "checksum_mismatch"),
    ),
    423: ("Ledger locked by a rebuild or an import: retry after Retry-After seconds", ("locked",)),
    428: ("If-Match required", ("precondition_required",)),
    429: (
        "Over the caller's request budget for this minute (RateLimit-Policy, RateLimit): retry after Retry-After",
        ("rate_limited",),
    ),
    503: (
        "The receipts storage did not answer: nothing was changed; retry after Retry-After seconds",
        ("storage_unavailable",),
    ),
}
# Statuses whose answers may carry Retry-After.
RETRYABLE_STATUSES = frozenset({409, 423, 429, 503})


def problem_schema_name(code: str) -> str:
    """The OpenAPI component that types a problem code (e.g. version_mismatch -> VersionMismatchProblem)."""
    special = {"validation_error": "ValidationProblem"}
    return special.get(code) or "".join(part.title() for part in code.split("_")) + "Problem"


def _ref(code: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{problem_schema_name(code)}"}


def header_doc(description: str, *, required: bool = True, integer: bool = False) -> OpenAPIResponseHeader:
    schema: dict[str, Any] = {"type": "integer"} if integer else {"type": "string"}
    return {"description": description, "schema": schema, "required": required}  # type: ignore[typeddict-unknown-key]


ETAG = {"ETag": header_doc('The version, as an entity tag: send it back in If-Match (e.g. "3")')}
LOCATION = {"Location": header_doc("Where the resource is (a slip moves when its date changes)")}
CONTENT_LOCATION = {"Content-Location": header_doc("The slip's dated URL, where PUT, PATCH and DELETE reach it")}
CONTENT_LANGUAGE = {
    "Content-Language": header_doc("ja or en: the language of title and detail (Accept-Language)", required=False)
}
RETRY_AFTER = {"Retry-After": header_doc("Seconds to wait before retrying", required=False, integer=True)}


def problem_responses(*statuses: int) -> dict[int, OpenAPIResponse]:
    """OpenAPI `responses` entries for the problem statuses a route can return, typed per code."""
    out: dict[int, OpenAPIResponse] = {}
    for status in statuses:
        description, codes = PROBLEM_CODES[status]
        schema: dict[str, Any] = _ref(codes[0])
        if len(codes) > 1:
            schema = {
                "oneOf": [_ref(code) for code in codes],
                "discriminator": {"propertyName": "code", "mapping": {code: _ref(code)["$ref"] for code in codes}},
            }
        headers = {**CONTENT_LANGUAGE, **(RETRY_AFTER if status in RETRYABLE_STATUSES else {})}
        content: dict[str, Any] = {PROBLEM_JSON: {"schema": schema}}
        if status == 401:
            # with no token at all, API Gateway's authorizer answers before the function does
            content[JSON] = {"schema": {"$ref": "#/components/schemas/GatewayError"}}
        out[status] = {"description": description, "headers": headers, "content": content}
    return out


def ok_response(
    model: type[BaseModel], description: str = "OK", *, headers: dict[str, OpenAPIResponseHeader] | None = None
) -> OpenAPIResponse:
    response: OpenAPIResponse = {"description": description, "content": {JSON: {"model": model}}}
    if headers:
        response["headers"] = headers
    return response


def no_content(description: str) -> OpenAPIResponse:
    """A 204: no body, so no content at all (a generated client must not try to parse one)."""
    return {"description": description}
