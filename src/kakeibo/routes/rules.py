"""/rules: the ledger's rules (自動分類), which categorise and rename slips as they are made or imported."""

from __future__ import annotations

from types import ModuleType
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body

from kakeibo.http import (
    ETAG,
    LOCATION,
    IfMatchHeader,
    if_match,
    json_response,
    no_content,
    ok_response,
    problem_responses,
)
from kakeibo.models import SlipRule, SlipRuleIn, SlipRuleList, SlipRuleOrder, SlipRulePatch
from kakeibo.routes.scope import EDITORS, LedgerRouter, Scope, ledger_scope
from kakeibo.store import get_store

router = LedgerRouter()
TAGS = ["rules"]
RULE_EXAMPLES: dict[str, Any] = {
    "supermarket": {
        "summary": "ｽｰﾊﾟｰﾏﾙｴﾂ on the card statement is groceries (食費)",
        "value": {
            "name": "マルエツは食費",
            "conditions": [{"field": "imported_payee", "op": "contains", "value": "マルエツ"}],
            "actions": {"payee": "マルエツ", "category": "食費"},
        },
    },
    "rename": {
        "summary": "Rename what the bank prints, before other rules look at the payee",
        "value": {
            "conditions": [{"field": "imported_payee", "op": "starts_with", "value": "ﾄｳｷﾖｳﾃﾞﾝﾘﾖｸ"}],
            "actions": {"payee": "東京電力"},
            "stage": "pre",
        },
    },
    "large": {
        "summary": "Large Amazon orders are household goods",
        "value": {
            "match": "all",
            "conditions": [
                {"field": "payee", "op": "one_of", "value": ["Amazon", "アマゾン"]},
                {"field": "amount", "op": "between", "value": [5000, 100000]},
            ],
            "actions": {"category": "日用品", "memo_append": "#大物"},
        },
    },
}

PATCH_EXAMPLES: dict[str, Any] = {
    "category": {"summary": "Groceries become daily goods", "value": {"actions": {"category": "日用品"}}},
    "later": {"summary": "Run it after the others (its action wins)", "value": {"stage": "post"}},
}
ORDER_EXAMPLES: dict[str, Any] = {
    "two": {"summary": "Two rules, the second first", "value": {"ids": ["01KAJ0000000000000000000RU"]}},
}


def _service() -> ModuleType:
    from kakeibo.services import rules  # noqa: PLC0415

    return rules


def _location(scope: Scope, item: dict[str, Any]) -> str:
    return scope.url(f"/rules/{item['id']}")


@router.post(
    "/rules",
    tags=TAGS,
    summary="Make a rule: conditions on a slip's payee, memo, account, amount or kind, and what it sets",
    description="Text compares normalised: NFKC and case folded, so half-width katakana (ｽｰﾊﾟｰ) matches "
    "full-width (スーパー); values are plain text, never patterns. Rules run on POST /slips and on every "
    "imported row, stage by stage (pre, default, post) and in order; a later rule's action wins, and a "
    "field the caller or the file set is never overwritten. At most 200 per ledger (409 limit_reached).",
    operation_id="createRule",
    responses={
        201: ok_response(SlipRule, "Created", headers={**ETAG, **LOCATION}),
        **problem_responses(400, 401, 409, 413, 415, 422),
    },
)
def create_rule(body: Annotated[SlipRuleIn, Body(openapi_examples=RULE_EXAMPLES)]) -> Response[str]:
    scope = ledger_scope(router, EDITORS)
    created = _service().create_rule(get_store(), scope.writer, body)
    return json_response(201, created, etag=created["version"], location=_location(scope, created))


@router.get(
    "/rules",
    tags=TAGS,
    summary="The ledger's rules, in the order they run (ETag: the rule set's version)",
    operation_id="listRules",
    responses={200: ok_response(SlipRuleList, headers=ETAG), **problem_responses(401, 409)},
)
def list_rules() -> Response[str]:
    result = _service().list_rules(get_store(), ledger_scope(router).key)
    return json_response(200, result, etag=result["version"])


@router.put(
    "/rules/order",
    tags=TAGS,
    summary="Order the rules (If-Match: the rule set's ETag from GET /rules); ids names every rule once",
    description="Within each stage the rules run in this order; stages still run pre, default, post.",
    operation_id="orderRules",
    responses={
        200: ok_response(SlipRuleList, headers=ETAG),
        **problem_responses(400, 401, 409, 412, 413, 415, 422, 428),
    },
)
def order_rules(
    body: Annotated[SlipRuleOrder, Body(openapi_examples=ORDER_EXAMPLES)], if_match_header: IfMatchHeader
) -> Response[str]:
    writer = ledger_scope(router, EDITORS).writer
    expected = if_match(if_match_header)
    result = _service().reorder(get_store(), writer, body.ids, expected=expected)
    return json_response(200, result, etag=result["version"])


@router.get(
    "/rules/<id>",
    tags=TAGS,
    summary="One rule (ETag: its version)",
    operation_id="getRule",
    responses={200: ok_response(SlipRule, headers=ETAG), **problem_responses(401, 404, 409)},
)
def get_rule(id: str) -> Response[str]:
    item = _service().get_rule(get_store(), ledger_scope(router).key, id)
    return json_response(200, item, etag=item["version"])


@router.patch(
    "/rules/<id>",
    tags=TAGS,
    summary="Change a rule (JSON merge patch, If-Match required): conditions and actions are replaced whole",
    description="Slips the rule already changed stay as they are.",
    operation_id="patchRule",
    responses={
        200: ok_response(SlipRule, headers=ETAG),
        **problem_responses(400, 401, 404, 409, 412, 413, 415, 422, 428),
    },
)
def patch_rule(
    id: str, patch: Annotated[SlipRulePatch, Body(openapi_examples=PATCH_EXAMPLES)], if_match_header: IfMatchHeader
) -> Response[str]:
    writer = ledger_scope(router, EDITORS).writer
    expected = if_match(if_match_header)
    item = _service().patch_rule(get_store(), writer, id, patch.model_dump(exclude_unset=True), expected=expected)
    return json_response(200, item, etag=item["version"])


@router.delete(
    "/rules/<id>",
    tags=TAGS,
    summary="Remove a rule (If-Match required); slips it changed stay as they are",
    operation_id="deleteRule",
    responses={204: no_content("Deleted"), **problem_responses(400, 401, 404, 409, 412, 428)},
)
def delete_rule(id: str, if_match_header: IfMatchHeader) -> Response[str]:
    writer = ledger_scope(router, EDITORS).writer
    expected = if_match(if_match_header)
    _service().delete_rule(get_store(), writer, id, expected=expected)
    return Response(status_code=204, body="")
