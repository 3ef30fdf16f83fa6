"""/recurrences: rent, salary, subscriptions and card settlements, posted once per occurrence."""

from __future__ import annotations

from types import ModuleType
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body, Query

from kakeibo import messages
from kakeibo.http import (
    ETAG,
    LOCATION,
    IdempotencyKeyHeader,
    IfMatchHeader,
    caller_language,
    if_match,
    json_response,
    no_content,
    ok_response,
    problem_responses,
    request_token,
    time_left,
)
from kakeibo.models.base import DATE_PATTERN
from kakeibo.models.recurrences import (
    OccurrenceList,
    Recurrence,
    RecurrenceIn,
    RecurrenceList,
    RecurrencePatch,
    RunResult,
)
from kakeibo.routes.properties import RouteProperties
from kakeibo.routes.scope import EDITORS, LedgerRouter, Scope, ledger_scope
from kakeibo.store import get_store

router = LedgerRouter()
# what these routes are besides their code (routes/properties.py)
PROPERTIES = {
    "POST /recurrences": RouteProperties(idempotent=True),
    "POST /recurrences/run": RouteProperties(no_body=True),
}
TAGS = ["recurrences"]
RECURRENCE_EXAMPLES: dict[str, Any] = {
    "rent": {
        "summary": "Rent on the 27th, paid on the previous business day when the 27th is not one",
        "value": {
            "slip": {"kind": "expense", "amount": 80000, "account": "bank", "category": "家賃", "memo": "家賃"},
            "rule": {"freq": "monthly", "by_month_day": 27, "start": "2026-11-01"},
            "shift": "previous_business_day",
        },
    },
    "salary": {
        "summary": "Salary on the 25th, for a year",
        "value": {
            "slip": {"kind": "income", "amount": 250000, "account": "bank", "category": "給与"},
            "rule": {"freq": "monthly", "by_month_day": 25, "start": "2026-11-01", "count": 12},
            "shift": "previous_business_day",
        },
    },
    "subscription": {
        "summary": "A subscription on the last day of every month",
        "value": {
            "slip": {"kind": "expense", "amount": 980, "account": "bank", "category": "通信費"},
            "rule": {"freq": "monthly", "by_month_day": "last", "start": "2026-11-01"},
        },
    },
    "allowance": {
        "summary": "Cash from the bank every other Monday, on the next business day after a holiday",
        "value": {
            "slip": {"kind": "transfer", "amount": 10000, "account": "bank", "to_account": "cash"},
            "rule": {"freq": "weekly", "interval": 2, "by_weekday": ["MO"], "start": "2026-11-02"},
            "shift": "next_business_day",
        },
    },
}
RECURRENCE_PATCH_EXAMPLES: dict[str, Any] = {
    "amount": {"summary": "The rent goes up (occurrences already posted stay)", "value": {"slip": {"amount": 82000}}},
    "until": {"summary": "End the rule after March", "value": {"rule": {"until": "2027-03-31"}}},
    "memo": {"summary": "Remove the memo (null removes an optional field)", "value": {"slip": {"memo": None}}},
}


def _service() -> ModuleType:
    """The recurrence use cases (and the schedule, holidays), loaded on first use: a cold start
    serving other routes does not pay for them."""
    from kakeibo.services import recurrences  # noqa: PLC0415

    return recurrences


def _lang() -> messages.Lang:
    """The language a kept failure's detail is worded in (the caller's, as for problems)."""
    return caller_language(router.current_event.raw_event)


def _location(scope: Scope, item: dict[str, Any]) -> str:
    return scope.url(f"/recurrences/{item['id']}")


@router.post(
    "/recurrences",
    tags=TAGS,
    summary="Define a recurring slip (rule, and shift onto Japanese business days)",
    description="The accounts it names must exist and be open. With an Idempotency-Key a retry answers "
    "the recurrence the first attempt created. At most 200 per ledger.",
    operation_id="createRecurrence",
    responses={
        201: ok_response(Recurrence, "Created", headers={**ETAG, **LOCATION}),
        **problem_responses(400, 401, 409, 413, 415, 422),
    },
)
def create_recurrence(
    body: Annotated[RecurrenceIn, Body(openapi_examples=RECURRENCE_EXAMPLES)],
    idempotency_key: IdempotencyKeyHeader = None,
) -> Response[str]:
    scope = ledger_scope(router, EDITORS)
    created = _service().create_recurrence(
        get_store(), scope.writer, body, request_token=request_token(router, idempotency_key)
    )
    return json_response(201, created, etag=created["version"], location=_location(scope, created))


@router.get(
    "/recurrences",
    tags=TAGS,
    summary="List recurring slips",
    operation_id="listRecurrences",
    responses={200: ok_response(RecurrenceList), **problem_responses(401, 409)},
)
def list_recurrences() -> Response[str]:
    return json_response(200, {"items": _service().list_recurrences(get_store(), ledger_scope(router).key, _lang())})


@router.post(
    "/recurrences/run",
    tags=TAGS,
    summary="Post every occurrence due on or before `until` (default: today in the ledger's time zone)",
    description="Each occurrence is posted once, however often or concurrently this runs. "
    "One that cannot be written is reported (and on its recurrence's last_error) and tried again "
    "next run. 202: time ran out; run it again.",
    operation_id="runRecurrences",
    responses={
        200: ok_response(RunResult, "Done"),
        202: ok_response(RunResult, "Partly done: run it again"),
        **problem_responses(400, 401, 409, 413, 415),
    },
)
def run_recurrences(until: Annotated[str | None, Query(pattern=DATE_PATTERN)] = None) -> Response[str]:
    result = _service().run_ledger(
        get_store(), ledger_scope(router, EDITORS).key, until, time_left=time_left(router), lang=_lang()
    )
    return json_response(200 if result["complete"] else 202, result)


@router.get(
    "/recurrences/<id>",
    tags=TAGS,
    summary="One recurring slip (ETag: its version)",
    operation_id="getRecurrence",
    responses={200: ok_response(Recurrence, headers=ETAG), **problem_responses(401, 404, 409)},
)
def get_recurrence(id: str) -> Response[str]:
    item = _service().get_recurrence(get_store(), ledger_scope(router).key, id, _lang())
    return json_response(200, item, etag=item["version"])


@router.patch(
    "/recurrences/<id>",
    tags=TAGS,
    summary="Change a recurring slip (JSON merge patch, If-Match required); posted slips stay as they are",
    operation_id="patchRecurrence",
    responses={
        200: ok_response(Recurrence, headers=ETAG),
        **problem_responses(400, 401, 404, 409, 412, 413, 415, 422, 428),
    },
)
def patch_recurrence(
    id: str,
    patch: Annotated[RecurrencePatch, Body(openapi_examples=RECURRENCE_PATCH_EXAMPLES)],
    if_match_header: IfMatchHeader,
) -> Response[str]:
    writer = ledger_scope(router, EDITORS).writer
    expected = if_match(if_match_header)
    changes = patch.model_dump(exclude_unset=True)
    item = _service().patch_recurrence(get_store(), writer, id, changes, expected=expected)
    return json_response(200, item, etag=item["version"])


@router.delete(
    "/recurrences/<id>",
    tags=TAGS,
    summary="Delete a recurring slip (If-Match required); the slips it posted stay",
    operation_id="deleteRecurrence",
    responses={204: no_content("Deleted"), **problem_responses(400, 401, 404, 409, 412, 428)},
)
def delete_recurrence(id: str, if_match_header: IfMatchHeader) -> Response[str]:
    writer = ledger_scope(router, EDITORS).writer
    expected = if_match(if_match_header)
    _service().delete_recurrence(get_store(), writer, id, expected=expected)
    return Response(status_code=204, body="")


@router.get(
    "/recurrences/<id>/occurrences",
    tags=TAGS,
    summary="Preview the occurrences posting between from and to: scheduled and shifted dates",
    description="Default: from today in the ledger's time zone (Asia/Tokyo unless configured), for a "
    "year. At most 1830 days per request.",
    operation_id="listOccurrences",
    responses={200: ok_response(OccurrenceList), **problem_responses(400, 401, 404, 409)},
)
def list_occurrences(
    id: str,
    date_from: Annotated[str | None, Query(alias="from", pattern=DATE_PATTERN)] = None,
    date_to: Annotated[str | None, Query(alias="to", pattern=DATE_PATTERN)] = None,
) -> Response[str]:
    result = _service().occurrences(get_store(), ledger_scope(router).key, id, date_from, date_to)
    return json_response(200, result)
