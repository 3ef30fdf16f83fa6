"""The OpenAPI document as served: what the resolver generates, finished in one place.

Route decorators say what each operation does (statuses, headers, examples, operationIds). What
Powertools cannot express is settled here, so that the document says exactly what the API does:
- no 422 `HTTPValidationError`: request validation errors are answered as problem+json (400/422),
  never in Powertools' own shape, so that response is dropped with its schemas;
- the problem bodies, typed per code (problems.py), become components the responses refer to, with
  the body API Gateway's authorizer sends on a 401 of its own;
- a 204 has no body (Powertools would describe one);
- public routes need no bearer token (`security: []`); every other one may answer 429 when its caller
  is over their request budget (§25), with the RateLimit fields;
- PATCH bodies are JSON merge patches: their media type is `application/merge-patch+json` (the API
  reads `application/json` the same way, as the body's description says; listing both media types
  makes openapi-python-client 0.29 generate a module that fails to import);
- an optional header is a string that may be left out, not a string-or-null;
- a request body's field with a server default is optional, its default told in its description:
  openapi-typescript makes a component's property with a `default` required (as a response's
  would be), so a body leaving out `interval` or `shift` would not type-check;
- API Gateway's own 401 body (`GatewayError`) declares that it has no `code`, so a client's error
  type, the union of every problem of an operation and that body, narrows on `error.code` alone;
- a ledger route repeated under `/ledgers/{ledger}` declares that path parameter (its function reads
  the ledger from the request, not from an argument).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic.json_schema import models_json_schema

from kakeibo.problems import BY_CODE

COMPONENTS = "#/components/schemas/"
LEDGER_PARAMETER = {
    "name": "ledger",
    "in": "path",
    "required": True,
    "description": "A shared ledger's id (from POST /ledgers), or `me`: your personal ledger",
    "schema": {"type": "string", "pattern": "^(me|[0-9A-HJKMNP-TV-Z]{26})$", "examples": ["me"]},
}
MERGE_PATCH = "application/merge-patch+json"
# What API Gateway itself answers (e.g. 401 when no token is sent), before the function runs.
GATEWAY_ERROR = {
    "title": "GatewayError",
    "type": "object",
    "description": "API Gateway's own answer (e.g. 401 to a missing or expired token), sent before the function runs",
    "properties": {
        "message": {"type": "string", "examples": ["Unauthorized"]},
        # Never sent. Declared so that `code` is a member of every error of an operation, with a
        # literal type no problem has: openapi-fetch's error type then narrows on `error.code` alone.
        # (Not null: openapi-fetch's Readable<> drops a property whose only type is null.)
        "code": {"type": "boolean", "enum": [False], "description": "never sent: API Gateway's answers have no code"},
    },
    "required": ["message"],
}
_POWERTOOLS_ONLY = ("HTTPValidationError", "ResponseValidationError", "ValidationError")  # referrers first


def finish(document: dict[str, Any], public_routes: frozenset[str]) -> dict[str, Any]:
    schemas: dict[str, Any] = document.setdefault("components", {}).setdefault("schemas", {})
    for path, operations in document.get("paths", {}).items():
        for method, operation in operations.items():
            _drop_powertools_422(operation)
            for status, response in operation.get("responses", {}).items():
                if status == "204":
                    response.pop("content", None)  # no body: a generated client must not parse one
            if f"{method.upper()} {path}" in public_routes:
                operation["security"] = []
            else:
                operation.setdefault("responses", {}).setdefault("429", _rate_limited())
            if method == "patch":
                _merge_patch(operation)
            parameters = operation.setdefault("parameters", [])
            if "{ledger}" in path and not any(p.get("name") == "ledger" and p.get("in") == "path" for p in parameters):
                parameters.insert(0, dict(LEDGER_PARAMETER))
            if not parameters:
                del operation["parameters"]
            for parameter in operation.get("parameters", []):
                if parameter.get("in") == "header" and not parameter.get("required"):
                    parameter["schema"] = _not_null(parameter.get("schema", {}))
    _, problem_schemas = models_json_schema(
        # validation mode: a member with a default may be absent from a body (serialization would require it)
        [(model, "validation") for model in BY_CODE.values()],
        ref_template=COMPONENTS + "{model}",
    )
    schemas.update(problem_schemas.get("$defs", {}))
    _defaults_optional(document, schemas)
    schemas["GatewayError"] = GATEWAY_ERROR
    for name in _POWERTOOLS_ONLY:
        if f'"{COMPONENTS}{name}"' not in json.dumps(document):
            schemas.pop(name, None)
    return document


def _defaults_optional(document: dict[str, Any], schemas: dict[str, Any]) -> None:
    """Request bodies' fields with a server default: optional, the default in words (see above).
    Only schemas no response uses: a response's field with a default is always there."""
    requests: set[str] = set()
    responses: set[str] = set()
    for operations in document.get("paths", {}).values():
        for operation in operations.values():
            _referenced(operation.get("requestBody", {}), schemas, requests)
            _referenced(operation.get("responses", {}), schemas, responses)
    for name in sorted(requests - responses):
        for field in schemas[name].get("properties", {}).values():
            if "default" in field and field["default"] is not None:
                default = json.dumps(field.pop("default"), ensure_ascii=False)
                field["description"] = "; ".join(filter(None, (field.get("description"), f"default: {default}")))


def _referenced(node: Any, schemas: dict[str, Any], found: set[str]) -> None:
    """Every component schema `node` refers to, directly or through others."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(COMPONENTS):
            name = ref.removeprefix(COMPONENTS)
            if name not in found and name in schemas:
                found.add(name)
                _referenced(schemas[name], schemas, found)
        for value in node.values():
            _referenced(value, schemas, found)
    elif isinstance(node, list):
        for value in node:
            _referenced(value, schemas, found)


def _rate_limited() -> dict[str, Any]:
    from kakeibo.http import CONTENT_LANGUAGE, PROBLEM_CODES, RETRY_AFTER, header_doc  # noqa: PLC0415

    return {
        "description": PROBLEM_CODES[429][0],
        "headers": {
            **CONTENT_LANGUAGE,
            **RETRY_AFTER,
            "RateLimit-Policy": header_doc('The caller\'s budgets, e.g. "token";q=60;w=60, "person";q=300;w=60'),
            "RateLimit": header_doc('What is left of each and when it resets, e.g. "token";r=0;t=41'),
        },
        "content": {"application/problem+json": {"schema": {"$ref": COMPONENTS + "RateLimitedProblem"}}},
    }


def _drop_powertools_422(operation: dict[str, Any]) -> None:
    responses = operation.get("responses", {})
    unprocessable = responses.get("422")
    if unprocessable and "HTTPValidationError" in json.dumps(unprocessable):
        del responses["422"]


def _merge_patch(operation: dict[str, Any]) -> None:
    body = operation.get("requestBody", {})
    content = body.get("content", {})
    if "application/json" in content and MERGE_PATCH not in content:
        body["content"] = {MERGE_PATCH: content.pop("application/json"), **content}
        body["description"] = (
            "A JSON merge patch (RFC 7396). Sent as application/json, it is read the same way. "
            + body.get("description", "")
        ).strip()


def _not_null(schema: dict[str, Any]) -> dict[str, Any]:
    options = schema.get("anyOf")
    if not options:
        return schema
    kept = [option for option in options if option.get("type") != "null"]
    if len(kept) != 1:
        return schema
    return {**kept[0], **{k: v for k, v in schema.items() if k != "anyOf"}}
