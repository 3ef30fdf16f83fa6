"""/reports/medical (医療費控除, and its e-Tax 医療費集計フォーム as CSV) and /reports/donations
(ふるさと納税): read from the year's tax item the slip transactions keep."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Query

from kakeibo.http import caller_language, json_response, ok_response, problem_responses
from kakeibo.models import YEAR_PATTERN, DonationReport, MedicalReport
from kakeibo.routes.scope import LedgerRouter, ledger_scope
from kakeibo.services import tax
from kakeibo.store import get_store

router = LedgerRouter()
TAGS = ["tax"]
YearQuery = Annotated[str, Query(pattern=YEAR_PATTERN, examples=["2026"], description="The slips' calendar year")]
MoneyQuery = Annotated[int | None, Query(ge=0, le=10**12)]


@router.get(
    "/reports/medical",
    tags=TAGS,
    summary="Medical payments of a year per patient, provider and kind; 医療費控除 and セルフメディケーション",
    description="`deduction` = net - min(100,000, 5% of `income` when given), 0 to 2,000,000; "
    "`self_medication` = OTC purchases (less what is reimbursed) - 12,000, 0 to 88,000; `larger` says "
    "which one to claim (only one may be). From one item per year, whatever the number of slips.",
    operation_id="getMedicalReport",
    responses={200: ok_response(MedicalReport), **problem_responses(400, 401)},
)
def medical(year: YearQuery, income: MoneyQuery = None) -> Response[str]:
    ledger = ledger_scope(router).key
    lang = caller_language(router.current_event.raw_event)
    return json_response(200, tax.medical_report(get_store(), ledger, year, income, lang))


@router.get(
    "/reports/medical.csv",
    tags=TAGS,
    summary="The year's medical payments laid out as the e-Tax 医療費集計フォーム (CSV, UTF-8 with BOM)",
    description="Columns: 医療を受けた人, 病院・薬局などの支払先の名称, 医療費の区分, 支払った医療費の金額, "
    "左のうち、補填される金額, 支払年月日. One row per patient, provider and kind (the form takes the "
    "payments of one patient at one provider added up); 支払年月日 is left empty on such a row.",
    operation_id="getMedicalCsv",
    responses={
        200: {
            "description": "CSV (UTF-8 with BOM)",
            "content": {"text/csv": {"schema": {"type": "string"}}},
        },
        **problem_responses(400, 401),
    },
)
def medical_csv(year: YearQuery) -> Response[str]:
    ledger = ledger_scope(router).key
    body = tax.medical_csv(get_store(), ledger, year)
    headers = {"Content-Disposition": f'attachment; filename="medical-{year}.csv"'}
    return Response(status_code=200, content_type="text/csv; charset=utf-8", body=body, headers=headers)


@router.get(
    "/reports/donations",
    tags=TAGS,
    summary="ふるさと納税 of a year per municipality; whether ワンストップ特例 still applies; what remains of ?limit",
    description="ワンストップ特例 applies while at most 5 municipalities were given to and every donation is "
    "marked `one_stop` (`reasons` says why not). Filing a return (for 医療費控除, say) also ends it: then "
    "the donations are claimed in that return.",
    operation_id="getDonationReport",
    responses={200: ok_response(DonationReport), **problem_responses(400, 401)},
)
def donations(year: YearQuery, limit: MoneyQuery = None) -> Response[str]:
    ledger = ledger_scope(router).key
    lang = caller_language(router.current_event.raw_event)
    return json_response(200, tax.donations_report(get_store(), ledger, year, limit, lang))
