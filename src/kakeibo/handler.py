"""Lambda entry point: the resolver, its routers, and the one place errors become responses."""

from __future__ import annotations

import base64
import binascii
import importlib
import json
import re
import sys
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response
from aws_lambda_powertools.event_handler.openapi.exceptions import (
    RequestUnsupportedContentType,
    RequestValidationError,
)
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext
from botocore.exceptions import BotoCoreError, ClientError

from kakeibo import __version__, deadline, errors, idempotency, jobs, messages
from kakeibo import settings as config
from kakeibo.core import limits
from kakeibo.event import DEFAULT_ROUTE, HELD_ACCESS, HELD_BODY, header
from kakeibo.event import caller as event_caller
from kakeibo.event import refusal as event_refusal
from kakeibo.event import route as event_route
from kakeibo.event import sub as event_sub
from kakeibo.http import (
    JSON,
    PROBLEM_JSON,
    caller_language,
    if_match_required,
    problem_headers,
    problem_json,
    problem_response,
)
from kakeibo.routes import MODULES, QUERY_AS_INPUT, modules_for, properties
from kakeibo.routes.properties import RouteProperties
from kakeibo.services.common import error_item
from kakeibo.snapstart import register_before_snapshot  # and the SnapStart runtime hooks every function has

logger = Logger()


def _json_body(text: str) -> Any:
    """The resolver's parse of a JSON body: the precheck's own, when it parsed this very text."""
    held = app.context.get(HELD_BODY)
    return held[1] if held is not None and held[0] is text else json.loads(text)


app = APIGatewayHttpResolver(enable_validation=True, json_body_deserializer=_json_body)


def specificity(path: str) -> tuple[int, ...]:
    """A route's rank among those a path could match: segment by segment, a literal before a
    parameter (/slips/<id>/history before /slips/<date>/<id>), so that no order of registration
    decides which one answers."""
    return tuple(1 if part.startswith("<") else 0 for part in path.strip("/").split("/"))


def include_routers(resolver: APIGatewayHttpResolver, routers: Sequence[Any]) -> None:
    """Every router's routes on the resolver, the most specific first (the resolver tries its routes
    with parameters in the order it holds them)."""
    for module in routers:
        resolver.include_router(module.router)
        properties.declare(getattr(module, "PROPERTIES", {}))
    resolver._dynamic_routes.sort(key=lambda route: specificity(route.path))


_included: set[str] = set()
_including = threading.Lock()


def include_routes(names: Iterable[str]) -> None:
    """The named route modules imported and their routes added, once each (the local front serves
    requests from several threads)."""
    wanted = [name for name in names if name not in _included]
    if not wanted:
        return
    with _including:
        wanted = [name for name in wanted if name not in _included]
        include_routers(app, [importlib.import_module(f"kakeibo.routes.{name}") for name in wanted])
        _included.update(wanted)


def include_all_routes() -> APIGatewayHttpResolver:
    """Every route on the resolver (the API's description, and what the tests compare)."""
    include_routes(MODULES)
    return app


# What a `read` token may ask (§25): anything else is a write, refused with 403 token_scope.
READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
MAX_JSON_BODY = 64 * 1024
JSON_TYPES = ("application/json", "application/merge-patch+json")

# How the API describes itself. The OpenAPI document models (some hundred pydantic classes) are a
# large share of a cold start and only /openapi.json and /swagger need them: imported on first use.
OPENAPI = {
    "title": "Kakeibo API",
    "version": __version__,
    "description": "A household ledger whose balances are always exactly right.",
    "security": [{"bearer": []}],
}


def openapi_json() -> str:
    from aws_lambda_powertools.event_handler.openapi.models import HTTPBearer  # noqa: PLC0415

    from kakeibo import spec  # noqa: PLC0415 - only the document needs the problem schemas

    bearer = HTTPBearer(description="JWT (locally: Bearer <user id>)")
    include_all_routes()
    generated = app.get_openapi_json_schema(**OPENAPI, security_schemes={"bearer": bearer})  # type: ignore[arg-type]
    document = spec.finish(json.loads(generated), properties.routes_with("public"))
    return json.dumps(document, ensure_ascii=False, indent=2)


# the API's description is the handler's own, open to anyone (routes/properties.py)
properties.declare({"GET /openapi.json": RouteProperties(public=True), "GET /swagger": RouteProperties(public=True)})


@app.get("/openapi.json", include_in_schema=False)
def openapi() -> Response[str]:
    return Response(status_code=200, content_type=JSON, body=openapi_json())


@app.get("/swagger", include_in_schema=False)
def swagger() -> Response[str]:
    """Swagger UI, the page Powertools' enable_swagger serves (also ?format=json|oauth2-redirect)."""
    from aws_lambda_powertools.event_handler.openapi import swagger_ui  # noqa: PLC0415

    wanted = (app.current_event.query_string_parameters or {}).get("format")
    if wanted == "oauth2-redirect":
        return Response(status_code=200, content_type="text/html", body=swagger_ui.generate_oauth2_redirect_html())
    spec = openapi_json().replace("</", "<\\/")  # the spec sits in a <script>
    if wanted == "json":
        return Response(status_code=200, content_type=JSON, body=spec)
    assets = Path(swagger_ui.__file__).parent
    script = (assets / "swagger-ui-bundle.min.js").read_text(encoding="utf-8")
    style = (assets / "swagger-ui.min.css").read_text(encoding="utf-8")
    page = swagger_ui.generate_swagger_html(spec, script, style, "", None, persist_authorization=False)
    return Response(status_code=200, content_type="text/html", body=page)


def _log_refusal(error: errors.ApiError) -> None:
    logger.info("request refused", extra={"code": error.code, "status": error.status})


@app.exception_handler(errors.ApiError)
def api_error(error: errors.ApiError) -> Response[str]:
    _log_refusal(error)
    return problem_response(error, caller_language(app.current_event.raw_event))


@app.exception_handler(RequestValidationError)
def validation_error(exc: RequestValidationError) -> Response[str]:
    return api_error(_from_validation(exc))


@app.exception_handler(RequestUnsupportedContentType)
def unsupported(exc: RequestUnsupportedContentType) -> Response[str]:
    return api_error(errors.UnsupportedMediaType("send application/json"))


@app.not_found
def not_found(exc: Exception) -> Response[str]:
    return api_error(errors.NotFound("no such route"))


@app.exception_handler(Exception)
def unexpected(exc: Exception) -> Response[str]:
    logger.exception("unexpected error", extra={"code": "internal_error"})
    return problem_response(
        errors.ApiError("an unexpected error occurred"), caller_language(app.current_event.raw_event)
    )


# What pydantic names the members of a union in an error's location (literal['last'],
# constrained-int, dict[function-after[...],...], list[...], a model's class name): never a field.
# A collection's name comes with its items' (set[int]): a field may be called `set` (POST /slips/bulk).
_UNION_MEMBER = re.compile(
    r"^(?:literal|dict|list|tuple|set|frozenset)\[|"
    r"^(?:union|nullable|tagged-union|json-or-python|chain|default|"
    r"function-(?:after|before|wrap|plain)|constrained-\w+|lax-\w+|strict-\w+|is-instance)\b|"
    r"^(?:int|str|bool|float|none)$|^[A-Z][A-Za-z0-9]*$"
)


def _without_union_members(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One error per field that fits none of a union's members (`shares`: "equal" or amounts;
    `closing_day`: 1-31 or "last"), located at the field itself and worded by the catalogue from
    the field's name; pydantic gives one error per member, each located under the member's name."""
    out: list[dict[str, Any]] = []
    unions: dict[tuple[str, ...], dict[str, Any]] = {}
    for item in found:
        cut = next((i for i, part in enumerate(item["loc"]) if i and _UNION_MEMBER.search(part)), None)
        if cut is None:
            out.append(item)
            continue
        at = tuple(item["loc"][:cut])
        if at not in unions:
            unions[at] = {"loc": list(at), "msg": "fits none of the allowed forms", "type": "union_mismatch"}
            out.append(unions[at])
        expected = (item.get("ctx") or {}).get("expected")
        if item["type"] == "literal_error" and expected:
            ctx = unions[at].setdefault("ctx", {})
            ctx["expected"] = f"{ctx['expected']} or {expected}" if "expected" in ctx else expected
    return out


def _from_validation(exc: RequestValidationError) -> errors.ApiError:
    found = []
    for err in exc.errors():
        found.append(error_item(err, [str(part) for part in err.get("loc", ())]))
    found = _without_union_members(found)
    if any(e["type"] == "json_invalid" for e in found):
        return errors.BadRequest("the body is not valid JSON")
    if any(e["type"] == "missing" and e["loc"] == ["header", "if-match"] for e in found):
        return if_match_required()
    if found and all(e["loc"][:1] in (["query"], ["header"]) for e in found):
        if all(e["loc"][:1] == ["query"] for e in found) and event_route(app.current_event.raw_event) in QUERY_AS_INPUT:
            return errors.ValidationFailed(messages.field_errors(found, "en"), errors=found)
        return errors.BadRequest(messages.field_errors(found, "en"), errors=found)
    if found and all(e["loc"][:1] == ["path"] for e in found):
        return errors.NotFound("not found")
    if any(e["type"] == "lines_sum_mismatch" for e in found):
        return errors.LinesSumMismatch(messages.field_errors(found, "en"), errors=found)
    return errors.ValidationFailed(messages.field_errors(found, "en"), errors=found)


def unauthorized(event: dict[str, Any]) -> errors.ApiError:
    """401 for a request the authorizer let through without a caller, saying why as RFC 6750 does."""
    why = event_refusal(event)
    if why is None:
        error = errors.Unauthorized("a bearer token is required")
        error.headers["WWW-Authenticate"] = 'Bearer realm="kakeibo"'
        return error
    error = errors.Unauthorized("the bearer token is not valid: sign in again, or use a live token")
    described = re.sub(r"[^ !#-\[\]-~]", "?", why)[:200]  # printable ASCII, no quote or backslash
    error.headers["WWW-Authenticate"] = (
        f'Bearer realm="kakeibo", error="invalid_token", error_description="{described}"'
    )
    return error


def precheck(event: dict[str, Any], held: dict[str, Any] | None = None) -> errors.ApiError | None:
    """What API Gateway and the handler must refuse before any route runs. Normalises JSON bodies,
    and leaves the one parse of a JSON body in `held` (the resolver's context) for the request."""
    route = event_route(event)
    said = properties.of(route)
    if not said.public and event_sub(event) is None:
        return unauthorized(event)
    method = route.split(" ", 1)[0]
    who = event_caller(event)
    if who is not None and not who.may_write and method not in READ_METHODS:
        return errors.TokenScope("this token may only read (GET): make a write token to change anything")
    if method not in ("POST", "PUT", "PATCH"):
        return None
    raw = event.get("body") or ""
    if event.get("isBase64Encoded"):
        try:
            data = base64.b64decode(raw, validate=True)
        except (binascii.Error, ValueError):
            return errors.BadRequest("the body is not valid base64")
    else:
        data = raw.encode("utf-8", "surrogatepass")
    types, limit = (said.raw_body.media_types, said.raw_body.limit) if said.raw_body else (JSON_TYPES, MAX_JSON_BODY)
    if len(data) > limit:
        return errors.PayloadTooLarge(f"the body may be at most {limit} bytes", limit=limit)
    if said.no_body and not data.strip():
        return None
    content_type = (header(event, "content-type") or "").split(";", 1)[0].strip().lower()
    if content_type and content_type not in types:
        return errors.UnsupportedMediaType(f"send {types[0]}, not {content_type}", accepted=list(types))
    if said.raw_body:
        return None
    if not data.strip():
        return errors.BadRequest("a JSON body is required")
    try:
        text = data.decode("utf-8")
        parsed = json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_unique_keys)
    except _RepeatedKey as exc:
        return errors.BadRequest(f"the body names '{exc.key}' more than once", key=exc.key)
    except (ValueError, RecursionError):
        return errors.BadRequest("the body is not valid JSON")
    if said.no_body and parsed != {}:
        return errors.BadRequest(f"{route} takes no body")
    if not isinstance(parsed, dict):
        return errors.ValidationFailed(
            "the body must be a JSON object",
            errors=[{"loc": ["body"], "msg": "must be a JSON object", "type": "model_type"}],
        )
    event["body"] = text
    if held is not None:
        held[HELD_BODY] = (text, parsed)
    event["isBase64Encoded"] = False
    event["headers"] = {**(event.get("headers") or {}), "content-type": JSON}
    return None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


class _RepeatedKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are all different. RFC 8259 leaves a repeated name's meaning open
    (parsers keep the first, the last, or fail), so a body that repeats one is refused: which of
    two amounts was meant is not ours to guess."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _RepeatedKey(key)
        out[key] = value
    return out


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    with deadline.within(context):  # every retry loop of the request shares its time (§31)
        return _handle(event, context)


def _handle(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    if jobs.is_job(event):  # the daily schedule, not an HTTP request
        return jobs.run(event, context)
    try:
        return _request(event, context)
    finally:
        app.clear_context()  # what this request held is not the next one's (a replay never resolves)


def _request(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    if event.get("routeKey") == DEFAULT_ROUTE:  # no route matches: answered before any identity or data is read
        return _refusal(errors.NotFound("no such route"), event)
    include_routes(modules_for(str(event.get("rawPath") or "/")))
    idempotent = idempotency.is_idempotent(event)
    # Idempotency-Key means something only where the document declares it; elsewhere it is ignored
    refused = precheck(event, app.context) or (idempotency.check_key(event) if idempotent else None)
    if refused is not None:
        return _refusal(refused, event)
    try:
        standings = spend_budget(event)
    except errors.RateLimited as error:
        return _refusal(error, event)
    return with_budget(_answer(event, context, idempotent=idempotent), standings)


def _answer(event: dict[str, Any], context: LambdaContext, *, idempotent: bool) -> dict[str, Any]:
    if idempotent and header(event, "idempotency-key"):
        try:
            app.append_context(**{HELD_ACCESS: idempotency.authorize(event)})
            body = app.context.get(HELD_BODY)
            return idempotency.run_once(event, context, lambda: app.resolve(event, context), body)
        except errors.ApiError as error:
            return _refusal(error, event)
    return app.resolve(event, context)


def spend_budget(event: dict[str, Any]) -> list[limits.Standing]:
    """Spend the caller's request budgets (§25; none for a public route or when none is set): their
    standing for the answer's RateLimit fields; RateLimited when one is spent. A counter that cannot be
    written lets the request through (logged): the stage's throttling is still the backstop."""
    who = event_caller(event)
    settings = config.get_settings()
    if who is None or not (settings.rate_limit_person or settings.rate_limit_token):
        return []
    from kakeibo.services import limits as budgets  # noqa: PLC0415 - loaded on use
    from kakeibo.store import get_limit_store  # noqa: PLC0415

    try:
        return budgets.spend(get_limit_store(), settings, who, config.utc_now().timestamp())  # the API's one clock
    except (BotoCoreError, ClientError, errors.Conflict) as exc:  # throttled, unanswered or refused: fail open
        logger.warning("request budget not counted", extra={"error": type(exc).__name__})
        return []


def with_budget(result: dict[str, Any], standings: list[limits.Standing]) -> dict[str, Any]:
    """The answer with the RateLimit fields of the budgets the request spent."""
    if standings:
        result["headers"] = {**(result.get("headers") or {}), **limits.headers(standings)}
    return result


def _refusal(error: errors.ApiError, event: dict[str, Any]) -> dict[str, Any]:
    """A refusal before the resolver runs, in the proxy response format the resolver would build."""
    _log_refusal(error)
    lang = caller_language(event)
    return {
        "statusCode": error.status,
        "headers": {"Content-Type": PROBLEM_JSON, **problem_headers(error, lang)},
        "body": problem_json(error, lang),
        "isBase64Encoded": False,
    }


@register_before_snapshot
def prime() -> None:
    """Before SnapStart's snapshot: every route family and model wing imported and requests served
    against DynamoDB answered in process (kakeibo.priming), so a restored instance's first request
    imports nothing. An instance started without SnapStart never runs it: it imports on first use."""
    from kakeibo import priming  # noqa: PLC0415 - only before a snapshot

    priming.prime(sys.modules[__name__])
