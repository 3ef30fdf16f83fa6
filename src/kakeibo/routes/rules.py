"""/rules: the ledger's rules (自動分類), which categorise and rename slips as they are made or imported."""

from __future__ import annotations

from types import ModuleType
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body, Query

from kakeibo.http import (
    ETAG,
    LOCATION,
    IfMatchHeader,
    if_match,
    json_response,
    no_content,
    ok_response,
    problem_responses,
    time_left,
)
from kakeibo.models.base import DATE_PATTERN
from kakeibo.models.rules import (
    SlipRule,
    SlipRuleIn,
    SlipRuleList,
    SlipRuleOrder,
    SlipRulePatch,
    SlipRulePreview,
    SlipRuleRun,
    SlipRuleSuggestionList,
)
from kakeibo.routes.properties import RouteProperties
from kakeibo.routes.scope import EDITORS, LedgerRouter, Scope, ledger_scope
from kakeibo.store import get_store

router = LedgerRouter()
# what these routes are besides their code (routes/properties.py)
PROPERTIES = {
    "POST /rules/preview": RouteProperties(no_body=True),
    "POST /rules/apply": RouteProperties(no_body=True),
    "POST /rules/{id}/preview": RouteProperties(no_body=True),
    "POST /rules/{id}/apply": RouteProperties(no_body=True),
    "POST /rules/suggestions/{id}/accept": RouteProperties(no_body=True),
}
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


def _runs() -> ModuleType:
    from kakeibo.services import rule_runs  # noqa: PLC0415

    return rule_runs


PREVIEW_DESCRIPTION = (
    "The slips dated from..to (default: all) the rules would change, each with the fields before and after "
    "and the rules that change it. A category other than uncategorized/未分類 (with its subcategory), and a payee "
    "other than the file's own, count as set and are never overwritten. Nothing is written."
)
APPLY_DESCRIPTION = (
    "Makes the changes the preview lists, under each slip's version, in batches: each batch one journal entry "
    "(`entries`; POST /changes/{seq}/undo takes one back). Exactly once: what the rules set counts as set, so a "
    "second apply changes nothing; an edit racing the apply wins (the apply reads the slip again). 202: time "
    "ran out, send it again."
)
FromQuery = Annotated[str | None, Query(alias="from", pattern=DATE_PATTERN)]
ToQuery = Annotated[str | None, Query(alias="to", pattern=DATE_PATTERN)]


def _preview(rule_id: str | None, date_from: str | None, date_to: str | None) -> Response[str]:
    key = ledger_scope(router).key
    return json_response(200, _runs().preview(get_store(), key, rule_id, date_from=date_from, date_to=date_to))


def _apply(rule_id: str | None, date_from: str | None, date_to: str | None) -> Response[str]:
    writer = ledger_scope(router, EDITORS).writer
    result = _runs().apply(
        get_store(), writer, rule_id, date_from=date_from, date_to=date_to, time_left=time_left(router)
    )
    return json_response(200 if result["complete"] else 202, result)


@router.post(
    "/rules/preview",
    tags=TAGS,
    summary="What all of the ledger's rules would change on the slips it has (nothing written)",
    description=PREVIEW_DESCRIPTION,
    operation_id="previewRules",
    responses={200: ok_response(SlipRulePreview), **problem_responses(400, 401, 409, 413, 415)},
)
def preview_rules(date_from: FromQuery = None, date_to: ToQuery = None) -> Response[str]:
    return _preview(None, date_from, date_to)


@router.post(
    "/rules/apply",
    tags=TAGS,
    summary="Run all of the ledger's rules over the slips it has",
    description=APPLY_DESCRIPTION,
    operation_id="applyRules",
    responses={
        200: ok_response(SlipRuleRun, "Done"),
        202: ok_response(SlipRuleRun, "Partly done: send it again"),
        **problem_responses(400, 401, 409, 413, 415),
    },
)
def apply_rules(date_from: FromQuery = None, date_to: ToQuery = None) -> Response[str]:
    return _apply(None, date_from, date_to)


def _suggestions() -> ModuleType:
    from kakeibo.services import rule_suggestions  # noqa: PLC0415

    return rule_suggestions


@router.get(
    "/rules/suggestions",
    tags=TAGS,
    summary="Rules the household's own corrections suggest (「この店はいつも食費」)",
    description="When two or more slips of one payee were given one category by hand (POST /slips with a "
    "category, PUT, or PATCH sending one), the rule {payee is X -> category Y} is offered, unless the ledger's "
    "rules already give it. Nothing is made until it is accepted. Learned from the latest 2,000 slips.",
    operation_id="listRuleSuggestions",
    responses={200: ok_response(SlipRuleSuggestionList), **problem_responses(401, 409)},
)
def list_rule_suggestions() -> Response[str]:
    return json_response(200, _suggestions().suggestions(get_store(), ledger_scope(router).key))


@router.post(
    "/rules/suggestions/<id>/accept",
    tags=TAGS,
    summary="Make a suggested rule a rule (as POST /rules does)",
    operation_id="acceptRuleSuggestion",
    responses={
        201: ok_response(SlipRule, "Created", headers={**ETAG, **LOCATION}),
        **problem_responses(400, 401, 404, 409, 413, 415, 422),
    },
)
def accept_rule_suggestion(id: str) -> Response[str]:
    scope = ledger_scope(router, EDITORS)
    created = _suggestions().accept(get_store(), scope.writer, id)
    return json_response(201, created, etag=created["version"], location=_location(scope, created))


@router.post(
    "/rules/<id>/preview",
    tags=TAGS,
    summary="What one rule would change on the slips the ledger has (nothing written)",
    description=PREVIEW_DESCRIPTION,
    operation_id="previewRule",
    responses={200: ok_response(SlipRulePreview), **problem_responses(400, 401, 404, 409, 413, 415)},
)
def preview_rule(id: str, date_from: FromQuery = None, date_to: ToQuery = None) -> Response[str]:
    return _preview(id, date_from, date_to)


@router.post(
    "/rules/<id>/apply",
    tags=TAGS,
    summary="Run one rule over the slips the ledger has",
    description=APPLY_DESCRIPTION,
    operation_id="applyRule",
    responses={
        200: ok_response(SlipRuleRun, "Done"),
        202: ok_response(SlipRuleRun, "Partly done: send it again"),
        **problem_responses(400, 401, 404, 409, 413, 415),
    },
)
def apply_rule(id: str, date_from: FromQuery = None, date_to: ToQuery = None) -> Response[str]:
    return _apply(id, date_from, date_to)


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
