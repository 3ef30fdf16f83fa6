"""/imports and /slips.csv: bank and card CSV files in, the ledger's slips out, same format."""

from __future__ import annotations

from types import ModuleType
from typing import Annotated, Any, Literal
from urllib.parse import urlencode

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Query

from kakeibo import csvio
from kakeibo.http import (
    MAX_CSV_BODY,
    ByQuery,
    IdempotencyKeyHeader,
    caller_language,
    header_doc,
    json_response,
    ok_response,
    problem_responses,
    raw_body,
    time_left,
)
from kakeibo.messages import Lang, changes_message, row_message
from kakeibo.models.base import ACCOUNT_ID_PATTERN, DATE_PATTERN
from kakeibo.models.imports import ImportFormat, ImportFormats, ImportPreview, ImportReport, ImportResult
from kakeibo.routes.properties import RawBody, RouteProperties
from kakeibo.routes.scope import EDITORS, LedgerRouter, ledger_scope
from kakeibo.store import get_store

router = LedgerRouter()
# what these routes are besides their code (routes/properties.py)
PROPERTIES = {
    "POST /imports": RouteProperties(raw_body=RawBody(("text/csv",), MAX_CSV_BODY), idempotent=True),
}
TAGS = ["imports"]
CSV = "text/csv"
HEADER = ",".join(csvio.EXPORT_COLUMNS)
CSV_BODY = {
    "required": True,
    "description": f"UTF-8 (BOM or not) or Shift_JIS/CP932, up to 5 MB. Header: {HEADER} "
    "(external_id and subcategory optional). Set the charset parameter, or it is detected. Money "
    "Forward ME and Zaim exports, and the CSV downloads of the common Japanese card issuers and banks "
    "(GET /imports/formats), are read as they are.",
    "content": {
        CSV: {
            # the file's bytes, as they are (UTF-8 or Shift_JIS): binary, so generated clients send them untouched
            "schema": {"type": "string", "format": "binary"},
            "example": f"{HEADER}\n2026-11-03,expense,1200,cash,,食費,ランチ,\n",
        }
    },
}


def _importer() -> ModuleType:
    """The importer, its file formats and the export, loaded on first use: a cold start serving
    other routes does not pay for them."""
    from kakeibo.services.imports import importer  # noqa: PLC0415

    return importer


@router.post(
    "/imports",
    tags=TAGS,
    summary="Import slips from a CSV file, exactly once per row",
    operation_id="importSlips",
    description="Valid rows are imported; invalid ones are listed with their line (the first 100 here, "
    "up to 1000 at GET /imports/{import_id}). Each row is one slip identity: sending the same file again "
    "(or one that overlaps it, with external_id, or an export) creates only what is missing, and never "
    "brings back a slip deleted since. 202: time ran out before the end of the file; send it again to "
    "import the rest. Also reads Money Forward ME's 収入・支出詳細 and Zaim's exports (detected from the "
    "header); their accounts are matched by name or id. And a card's or bank's statement as its website "
    "gives it (GET /imports/formats lists them), onto the account named by ?account=: each row a slip, the "
    "issuer's payee its payee, a bank row that pays one of the ledger's cards that card's payment, a card's "
    "file checked against the card's statement. dry_run=true writes nothing and answers what each row "
    "would do.",
    responses={
        200: {
            "description": "Imported (ImportResult), or what would be (ImportPreview, dry_run=true)",
            "content": {"application/json": {"model": ImportResult | ImportPreview}},
        },
        202: ok_response(ImportResult, "Partly imported: send the file again"),
        **problem_responses(400, 401, 409, 413, 415, 422, 423),
    },
    openapi_extensions={"requestBody": CSV_BODY},
)
def import_csv(
    format: Annotated[
        ImportFormat | None,
        Query(
            description="kakeibo (this API's), mf (Money Forward ME), zaim, or a statement's (GET /imports/formats); "
            "default: detected from the header"
        ),
    ] = None,
    account: Annotated[
        str | None,
        Query(
            max_length=64,
            pattern=ACCOUNT_ID_PATTERN,
            description="a card's or bank's statement: the account it is the statement of (required for one)",
        ),
    ] = None,
    create_accounts: Annotated[
        bool, Query(description="create the accounts the file names that the ledger does not have")
    ] = False,
    dry_run: Annotated[bool, Query(description="write nothing; answer what each row would do")] = False,
    apply_deletions: Annotated[
        bool,
        Query(
            description="delete the slips earlier downloads of the same app brought that this file lacks "
            "(within its dates, unedited here), and let a Zaim row replace the one it possibly replaces"
        ),
    ] = False,
    identity: Annotated[
        Literal["id", "content"],
        Query(
            description="id: a Money Forward row is the row of its ID (the default); content: by its content, "
            "for files whose IDs repeat (edited by hand or anonymised)"
        ),
    ] = "id",
    idempotency_key: IdempotencyKeyHeader = None,
) -> Response[str]:
    importer = _importer()
    writer = ledger_scope(router, EDITORS).writer
    charset = csvio.charset_of(router.current_event.headers.get("content-type"))
    options = importer.Options(
        format=format,
        create_accounts=create_accounts,
        dry_run=dry_run,
        apply_deletions=apply_deletions,
        by_content=identity == "content",
        account=account,
    )
    result = importer.import_csv(
        get_store(), writer, raw_body(router), charset, time_left=time_left(router), options=options
    )
    result = _worded(result)
    if dry_run:
        return json_response(200, result)
    return json_response(200 if result["status"] == "complete" else 202, result)


def _worded(result: dict[str, Any]) -> dict[str, Any]:
    """An import's answer or report with each row's message in the caller's language (they are
    kept in English, worded by the catalogue)."""
    lang = caller_language(router.current_event.raw_event)
    if lang == "en":
        return result
    out = dict(result)
    for key in ("errors", "items", "outcomes"):
        if isinstance(out.get(key), list):
            out[key] = [_worded_row(row, lang) for row in out[key]]
    if isinstance(out.get("notices"), list):
        out["notices"] = [row_message(notice, lang) for notice in out["notices"]]
    return out


def _worded_row(row: dict[str, Any], lang: Lang) -> dict[str, Any]:
    if not isinstance(row.get("message"), str):
        return row
    if row.get("changes"):
        return {**row, "message": changes_message(row["message"], row["changes"], lang)}
    return {**row, "message": row_message(row["message"], lang)}


@router.get(
    "/imports/formats",
    tags=TAGS,
    summary="The files POST /imports reads: other apps' exports and the card issuers' and banks' statements",
    operation_id="listImportFormats",
    description="Each format with its layout versions (the header as the issuer writes it, the preamble "
    "before it, the encoding) and the public source the layout was taken from. A statement is imported onto "
    "one account: POST /imports?account={id}.",
    responses={200: ok_response(ImportFormats), **problem_responses(401, 409)},
)
def list_formats() -> Response[str]:
    ledger_scope(router)
    return json_response(200, {"items": _formats().listing()})


def _formats() -> ModuleType:
    from kakeibo.importformats import detect  # noqa: PLC0415 - with the importer, on first use

    return detect


@router.get(
    "/imports/<id>",
    tags=TAGS,
    summary="The full report of an import: counts and every refused row (up to 1000), by line",
    operation_id="getImport",
    responses={200: ok_response(ImportReport), **problem_responses(401, 404, 409)},
)
def get_import(id: str) -> Response[str]:
    return json_response(200, _worded(_importer().get_import(get_store(), ledger_scope(router).key, id)))


@router.get(
    "/slips.csv",
    tags=TAGS,
    summary="Export slips as CSV (the import format; external_id = slip id), oldest first",
    operation_id="exportSlips",
    description='Large exports come in pages: a `Link: <...>; rel="next"` header names the next one. '
    "A cell that starts with = + - @, TAB or CR (or with a quote before one of them) is written with a "
    "leading single quote, so a spreadsheet shows it as text instead of running it as a formula; "
    "POST /imports removes that quote again, so an export imports back exactly.",
    responses={
        200: {
            "description": "CSV (UTF-8)",
            "headers": {
                "Link": header_doc('<...>; rel="next" when there is a next page', required=False),
                "Content-Disposition": header_doc("attachment; filename=slips.csv"),
            },
            "content": {CSV: {"schema": {"type": "string"}}},
        },
        **problem_responses(400, 401, 409),
    },
)
def export_csv(
    date_from: Annotated[str | None, Query(alias="from", pattern=DATE_PATTERN)] = None,
    date_to: Annotated[str | None, Query(alias="to", pattern=DATE_PATTERN)] = None,
    by: ByQuery = None,
    cursor: Annotated[str | None, Query(max_length=512)] = None,
) -> Response[str]:
    scope = ledger_scope(router)
    ledger = scope.key
    body, next_cursor = _importer().export_csv(
        get_store(), ledger, date_from=date_from, date_to=date_to, by=by, cursor=cursor
    )
    headers = {"Content-Disposition": 'attachment; filename="slips.csv"'}
    if next_cursor:
        params = {k: v for k, v in (("from", date_from), ("to", date_to), ("by", by)) if v}
        query = urlencode({**params, "cursor": next_cursor})
        headers["Link"] = f'<{scope.url("/slips.csv")}?{query}>; rel="next"'
    return Response(status_code=200, content_type=f"{CSV}; charset=utf-8", body=body, headers=headers)
