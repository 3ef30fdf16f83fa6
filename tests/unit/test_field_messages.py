"""Every field of every request body, sent a bad value, is refused in words: the field is named and
what it accepts is said, in English and in Japanese, and no message or location shows a name the
validation framework made up (literal[...], constrained-int, dict[function-after[...]], ...)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from kakeibo import messages
from tests.events import Client

# Names pydantic gives the members of a union or a wrapped type; none may reach a caller.
FRAMEWORK = re.compile(
    r"literal\[|constrained-|function-(?:after|before|wrap|plain)|dict\[|list\[|tuple\[|set\[|"
    r"json-or-python|tagged-union|nullable\[|lax-|is-instance|chain\[|"
    r"Input should|Value error|String should|Field required|\bint\b|\bstr\b"
)
# A bad value of each kind: text where a number or a choice goes, numbers out of any range, the
# wrong JSON types
BAD: list[Any] = ["half", 32, -1, 10**13, 1.5, True, {}, [], {"x": "y"}]
PARAMS = {"date": "2026-11-03", "id": "x1", "ledger": "me", "month": "2026-11", "category": "food", "user": "u1"}


@pytest.fixture(scope="module")
def spec() -> dict[str, Any]:
    from kakeibo.handler import openapi_json

    document: dict[str, Any] = json.loads(openapi_json())
    return document


def _resolve(spec: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def _members(spec: dict[str, Any], schema: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """A schema and, for anyOf/oneOf, each of its alternatives, resolved."""
    schema = _resolve(spec, schema)
    alternatives = schema.get("anyOf") or schema.get("oneOf")
    if alternatives:
        for alternative in alternatives:
            yield from _members(spec, alternative)
    else:
        yield schema


def fields(spec: dict[str, Any], schema: dict[str, Any], at: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """The path of every field a body can hold: nested objects' fields and list items' fields too."""
    for member in _members(spec, schema):
        for name, sub in (member.get("properties") or {}).items():
            yield (*at, name)
            yield from fields(spec, sub, (*at, name))
        if member.get("type") == "array" and "items" in member:
            yield from fields(spec, member["items"], (*at, 0))


def bodies(spec: dict[str, Any]) -> Iterator[tuple[str, str, str]]:
    """(method, path, media type) of every operation that takes a JSON body (the personal ledger's
    routes; a /ledgers/{ledger}/... twin takes the same body)."""
    for path, operations in spec["paths"].items():
        twin = path.startswith("/ledgers/{ledger}/") and path.removeprefix("/ledgers/{ledger}") in spec["paths"]
        for method, op in operations.items():
            content = (op.get("requestBody") or {}).get("content") or {}
            media = next((m for m in content if "json" in m), None)
            if media and not twin:
                yield method, path, media


def _example(op: dict[str, Any], media: str) -> dict[str, Any]:
    content = op["requestBody"]["content"][media]
    examples = [e["value"] for e in (content.get("examples") or {}).values()]
    return examples[0] if examples and isinstance(examples[0], dict) else {}


def _put(body: Any, at: tuple[Any, ...], value: Any) -> Any:
    """body with the field at `at` set to value (the objects and lists on the way made as needed)."""
    if not at:
        return value
    head, rest = at[0], at[1:]
    if isinstance(head, int):
        items = list(body) if isinstance(body, list) and body else [{}]
        items[0] = _put(items[0] if isinstance(items[0], dict) else {}, rest, value)
        return items
    out = dict(body) if isinstance(body, dict) else {}
    out[head] = _put(out.get(head) if rest else None, rest, value)
    return out


def test_every_field_of_every_body_is_refused_in_words(spec: dict[str, Any], api: Client) -> None:
    found = []
    checked = 0
    for method, path, media in bodies(spec):
        op = spec["paths"][path][method]
        schema = op["requestBody"]["content"][media]["schema"]
        target = re.sub(r"\{(\w+)\}", lambda m: PARAMS[m.group(1)], path)
        example = _example(op, media)
        for at in dict.fromkeys(fields(spec, schema)):
            for bad in BAD:
                # Given a body whose field at `at` holds a bad value
                body = _put(example, at, bad)
                for lang in ("en", "ja"):
                    # When it is sent
                    reply = api.request(
                        method.upper(),
                        target,
                        raw=json.dumps(body),
                        headers={"Content-Type": media, "If-Match": '"1"', "Accept-Language": lang},
                    )
                    if reply.status < 400:
                        continue  # a value the field accepts
                    checked += 1
                    problem = reply.json
                    # Then nothing it says, nor any field error's location, is a framework's name
                    said = [problem.get("detail", "")] + [
                        f"{e.get('msg')} {e.get('loc')}" for e in problem.get("errors") or []
                    ]
                    if any(FRAMEWORK.search(text) for text in said):
                        found.append((method, path, at, bad, lang, said))
                    # And a field that takes several forms says which, in words
                    for error in problem.get("errors") or []:
                        if error.get("type") == "union_mismatch" and error["loc"][-1] not in messages.ONE_OF:
                            found.append((method, path, at, bad, "no words for its forms", error))
                    # And each field error names its field (in English by the field's name)
                    for error in problem.get("errors") or [] if lang == "en" else []:
                        names = [p for p in error["loc"][1:] if not str(p).isdigit()]
                        # (our own validators' sentences name what they are about themselves)
                        if names and names[-1] not in error["msg"] and error.get("type") != "value_error":
                            found.append((method, path, at, bad, "field not named", error))
    assert checked > 1000, checked
    assert not found, "\n".join(map(str, found[:400])) + f"\n({len(found)} in all)"
