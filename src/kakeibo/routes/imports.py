"""/imports and /slips.csv: bank and card CSV files in, the ledger's slips out, same format."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import urlencode

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Query

from kakeibo import csvio, importer
from kakeibo.http import (
    identity,
    json_response,
    ok_response,
    problem_responses,
    raw_body,
    time_left,
)
from kakeibo.importformats.prepare import Options
from kakeibo.models import DATE_PATTERN, ImportFormat, ImportPreview, ImportResult
from kakeibo.store import get_store

router = Router()
TAGS = ["imports"]
CSV = "text/csv"
MAX_CSV_BODY = 5 * 1024 * 1024
HEADER = ",".join(csvio.EXPORT_COLUMNS)
CSV_BODY = {
    "required": True,
    "description": f"UTF-8 (BOM or not) or Shift_JIS/CP932, up to 5 MB. Header: {HEADER} "
    "(external_id optional). Set the charset parameter, or it is detected.",
    "content": {
        CSV: {
            "schema": {"type": "string"},
            "example": f"{HEADER}\n2026-11-03,expense,1200,cash,,食費,ランチ,\n",
        }
    },
}


@router.post(
    "/imports",
    tags=TAGS,
    summary="Import slips from a CSV file, exactly once per row",
    description="Valid rows are imported; invalid ones are listed with their line. Sending the same "
    "file again (or one that overlaps it, with external_id) creates only what is missing. 202: time "
    "ran out before the end of the file; send it again to import the rest. Also reads Money Forward "
    "ME's 収入・支出詳細 and Zaim's exports (detected from the header); their accounts are matched by "
    "name or id. dry_run=true writes nothing and answers what each row would do.",
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
        Query(description="kakeibo (this API's), mf (Money Forward ME) or zaim; default: detected from the header"),
    ] = None,
    create_accounts: Annotated[
        bool, Query(description="create the accounts the file names that the ledger does not have")
    ] = False,
    dry_run: Annotated[bool, Query(description="write nothing; answer what each row would do")] = False,
) -> Response[str]:
    who = identity(router)
    charset = csvio.charset_of(router.current_event.headers.get("content-type"))
    options = Options(format=format, create_accounts=create_accounts, dry_run=dry_run)
    result = importer.import_csv(
        get_store(), who, raw_body(router), charset, time_left=time_left(router), options=options
    )
    if dry_run:
        return json_response(200, result)
    return json_response(200 if result["status"] == "complete" else 202, result)


@router.get(
    "/slips.csv",
    tags=TAGS,
    summary="Export slips as CSV (the import format; external_id = slip id), oldest first",
    description='Large exports come in pages: a `Link: <...>; rel="next"` header names the next one.',
    responses={
        200: {"description": "CSV (UTF-8)", "content": {CSV: {"schema": {"type": "string"}}}},
        **problem_responses(400, 401),
    },
)
def export_csv(
    date_from: Annotated[str | None, Query(alias="from", pattern=DATE_PATTERN)] = None,
    date_to: Annotated[str | None, Query(alias="to", pattern=DATE_PATTERN)] = None,
    cursor: Annotated[str | None, Query(max_length=512)] = None,
) -> Response[str]:
    who = identity(router)
    body, next_cursor = importer.export_csv(get_store(), who, date_from=date_from, date_to=date_to, cursor=cursor)
    headers = {"Content-Disposition": 'attachment; filename="slips.csv"'}
    if next_cursor:
        params = {k: v for k, v in (("from", date_from), ("to", date_to)) if v}
        query = urlencode({**params, "cursor": next_cursor})
        headers["Link"] = f'</slips.csv?{query}>; rel="next"'
    return Response(status_code=200, content_type=f"{CSV}; charset=utf-8", body=body, headers=headers)
