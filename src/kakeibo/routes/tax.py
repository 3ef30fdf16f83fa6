"""/reports/medical (医療費控除, and its e-Tax 医療費集計フォーム as .xlsx and CSV) and /reports/donations
(ふるさと納税): read from the year's tax item the slip transactions keep. A query value refused here is
422 naming the field (routes.QUERY_AS_INPUT), as a body's would be."""

from __future__ import annotations

import base64
from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Query

from kakeibo.http import caller_language, json_response, ok_response, problem_responses
from kakeibo.models.base import YEAR_PATTERN
from kakeibo.models.tax import DonationReport, MedicalReport
from kakeibo.routes.scope import LedgerRouter, ledger_scope
from kakeibo.services import tax
from kakeibo.store import get_store

router = LedgerRouter()
TAGS = ["tax"]
YearQuery = Annotated[str, Query(pattern=YEAR_PATTERN, examples=["2026"], description="The slips' calendar year")]
MoneyQuery = Annotated[int | None, Query(ge=0, le=10**12)]
# The three forms of the medical report take the same query and check it the same way: a link that
# asks for one with ?income asks for the others with it too (the e-Tax form has no place for it).
IncomeQuery = Annotated[
    int | None,
    Query(
        ge=0,
        le=10**12,
        description="総所得金額等 in yen: the deduction's floor is 5% of it when that is less than 100,000 "
        "(the .csv and .xlsx forms check it as the report does, and have no place for it)",
    ),
]


@router.get(
    "/reports/medical",
    tags=TAGS,
    summary="Medical payments of a year per patient, provider and kind; 医療費控除 and セルフメディケーション",
    description="`deduction` = net - min(100,000, 5% of `income` when given), 0 to 2,000,000; "
    "`self_medication` = OTC purchases (less what is reimbursed) - 12,000, 0 to 88,000; `larger` says "
    "which one to claim (only one may be). From one item per year, whatever the number of slips.",
    operation_id="getMedicalReport",
    responses={200: ok_response(MedicalReport), **problem_responses(401, 422)},
)
def medical(year: YearQuery, income: IncomeQuery = None) -> Response[str]:
    ledger = ledger_scope(router).key
    lang = caller_language(router.current_event.raw_event)
    return json_response(200, tax.medical_report(get_store(), ledger, year, income, lang))


@router.get(
    "/reports/medical.csv",
    tags=TAGS,
    summary="The year's medical payments laid out as the e-Tax 医療費集計フォーム (CSV, UTF-8 with BOM)",
    description="The columns B-J of the form: 医療を受けた人, 病院・薬局などの名称, then 医療費の区分 as four "
    "columns (診療・治療, 医薬品購入, 介護保険サービス, その他の医療費) holding 「該当する」 under the row's kind, "
    "支払った医療費の金額, 左のうち、補填される金額, 支払年月日. One row per patient, provider and kind (the "
    "form takes the payments of one patient at one provider added up); 支払年月日 (optional on the form) "
    "is left empty on such a row.",
    operation_id="getMedicalCsv",
    responses={
        200: {
            "description": "CSV (UTF-8 with BOM)",
            "content": {"text/csv": {"schema": {"type": "string"}}},
        },
        **problem_responses(401, 422),
    },
)
def medical_csv(year: YearQuery, income: IncomeQuery = None) -> Response[str]:
    ledger = ledger_scope(router).key
    body = tax.medical_csv(get_store(), ledger, year, income)
    headers = {"Content-Disposition": f'attachment; filename="medical-{year}.csv"'}
    return Response(status_code=200, content_type="text/csv; charset=utf-8", body=body, headers=headers)


XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


@router.get(
    "/reports/medical.xlsx",
    tags=TAGS,
    summary="The year's medical payments as the e-Tax 医療費集計フォーム (.xlsx), to upload as it is",
    description="The sheet 医療費集計フォーム as the National Tax Agency's form lays it out: the totals at C3 "
    "(支払った医療費) and C4 (補填される金額), the headings on rows 7-8, one row per patient, provider and "
    "kind from row 9 — A No, B 医療を受けた人, C 病院・薬局などの名称, D-G 医療費の区分 (「該当する」 under "
    "診療・治療, 医薬品購入, 介護保険サービス or その他の医療費), H 支払った医療費の金額, I 左のうち、補填"
    "される金額, J 支払年月日 (optional; empty on a row that adds up a year). The same rows as "
    "/reports/medical.csv.",
    operation_id="getMedicalXlsx",
    responses={
        200: {
            "description": "The workbook (Office Open XML)",
            "content": {XLSX: {"schema": {"type": "string", "format": "binary"}}},
        },
        **problem_responses(401, 422),
    },
)
def medical_xlsx(year: YearQuery, income: IncomeQuery = None) -> Response[str]:
    ledger = ledger_scope(router).key
    body = base64.b64encode(tax.medical_xlsx(get_store(), ledger, year, income)).decode("ascii")
    headers = {"Content-Disposition": f'attachment; filename="medical-{year}.xlsx"'}
    # binary, as API Gateway takes it: base64 text marked so (the resolver's response validation
    # would read raw bytes as UTF-8 text)
    response = Response(status_code=200, content_type=XLSX, body=body, headers=headers)
    response.base64_encoded = True
    return response


@router.get(
    "/reports/donations",
    tags=TAGS,
    summary="ふるさと納税 of a year per municipality; whether ワンストップ特例 still applies; what remains of ?limit",
    description="ワンストップ特例 applies while the year's donations went to at most 5 municipalities and every "
    "donation is marked `one_stop` (`reasons` says why not). Filing a return (for 医療費控除, say) also ends it: then "
    "the donations are claimed in that return.",
    operation_id="getDonationReport",
    responses={200: ok_response(DonationReport), **problem_responses(401, 422)},
)
def donations(year: YearQuery, limit: MoneyQuery = None) -> Response[str]:
    ledger = ledger_scope(router).key
    lang = caller_language(router.current_event.raw_event)
    return json_response(200, tax.donations_report(get_store(), ledger, year, limit, lang))
