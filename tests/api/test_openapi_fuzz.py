"""Schemathesis against the generated /openapi.json of the local front: every operation, with
authentication, valid and invalid inputs. No answer may be a server error, and every answer must
be one the spec declares (status, content type, body schema, response headers)."""

from __future__ import annotations

import json

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)


def _spec() -> dict[str, object]:
    """The document /openapi.json serves."""
    from kakeibo.handler import openapi_json

    spec: dict[str, object] = json.loads(openapi_json())
    return spec


schema = schemathesis.openapi.from_dict(_spec())
# valid inputs, and inputs that break the schema on purpose (wrong types, missing fields, bad formats)
schema.config.generation.update(modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE])

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
]


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_every_operation_answers_as_declared(case: schemathesis.Case, front_url: str) -> None:
    case.call_and_validate(
        base_url=front_url,
        headers={"Authorization": "Bearer fuzz-ledger"},
        checks=CHECKS,
    )
