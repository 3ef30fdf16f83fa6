"""Tax season (確定申告): the medical report (医療費控除 beside セルフメディケーション), its e-Tax
医療費集計フォーム rows, and the ふるさと納税 report — all from the year's tax item the slip
transactions keep (one GetItem), never a scan of the year's slips."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kakeibo import errors, messages
from kakeibo.core import tax
from kakeibo.messages import Lang
from kakeibo.models.base import MAX_AMOUNT, MAX_YEAR, MIN_YEAR
from kakeibo.store import Store

KIND_LABELS_EN = {
    "treatment": "Treatment",
    "medicine": "Medicine",
    "care": "Nursing care service",
    "other": "Other medical costs",
}


def check_year(year: str) -> str:
    """A report's year (already four digits): 422 naming `year` when it is out of range."""
    if not (year.isdigit() and len(year) == 4):
        raise _query_error("year", "string_pattern_mismatch", "must be a year YYYY")
    if int(year) < MIN_YEAR:
        raise _query_error("year", "greater_than_equal", f"must be at least {MIN_YEAR}", ge=str(MIN_YEAR))
    if int(year) > MAX_YEAR:
        raise _query_error("year", "less_than_equal", f"must be at most {MAX_YEAR}", le=str(MAX_YEAR))
    return year


def check_amount(name: str, value: int | None) -> int | None:
    if value is not None and value < 0:
        raise _query_error(name, "greater_than_equal", "must be at least 0", ge=0)
    if value is not None and value > MAX_AMOUNT:
        raise _query_error(name, "less_than_equal", f"must be at most {MAX_AMOUNT}", le=MAX_AMOUNT)
    return value


def _query_error(name: str, kind: str, msg: str, **limits: int | str) -> errors.ValidationFailed:
    """A refused query parameter: 422 naming it, worded in the caller's language from `errors` (a
    year's limits as text: no thousands separator)."""
    item: dict[str, Any] = {"loc": ["query", name], "msg": msg, "type": kind}
    if limits:
        item["ctx"] = limits
    return errors.ValidationFailed(messages.field_errors([item], "en"), errors=[item])


def kind_label(kind: str, lang: Lang) -> str:
    return tax.KIND_LABELS_JA[kind] if lang == "ja" else KIND_LABELS_EN[kind]


def medical_query(year: str, income: int | None) -> tuple[str, int | None]:
    """What the medical report takes, in each of its forms (JSON, .csv, .xlsx), checked the same way:
    422 naming `year` or `income`."""
    return check_year(year), check_amount("income", income)


def medical_report(store: Store, ledger: str, year: str, income: int | None, lang: Lang = "en") -> dict[str, Any]:
    """The year's medical payments per patient, provider and kind, the totals and both deductions."""
    year, income = medical_query(year, income)
    groups = tax.medical_groups(store.tax.tax_year(ledger, year))
    summary = tax.summarize(groups, income)
    items = [
        {
            "patient": group.patient,
            "provider": group.provider,
            "kind": group.kind,
            "kind_label": kind_label(group.kind, lang),
            "otc": group.otc,
            "paid": totals.paid,
            "reimbursed": totals.reimbursed,
            "net": totals.net,
            "slips": totals.count,
        }
        for group, totals in groups.items()
    ]
    return {
        "year": year,
        "income": income,
        "paid": summary.paid,
        "reimbursed": summary.reimbursed,
        "net": summary.net,
        "floor": summary.floor,
        "deduction": summary.deduction,
        "otc_net": summary.otc_net,
        "self_medication": summary.self_medication,
        "larger": summary.larger,
        "items": items,
    }


def donations_report(store: Store, ledger: str, year: str, limit: int | None, lang: Lang = "en") -> dict[str, Any]:
    """The year's ふるさと納税 per municipality, whether ワンストップ特例 still applies (else why
    not), and what remains of the limit."""
    groups = tax.donation_groups(store.tax.tax_year(ledger, check_year(year)))
    summary = tax.donation_summary(groups, check_amount("limit", limit))
    return {
        "year": year,
        "total": summary.total,
        "municipalities": summary.municipalities,
        "one_stop": summary.one_stop,
        "reasons": list(summary.reasons),
        "reasons_text": [messages.one_stop_reason(r, lang) for r in summary.reasons],
        "limit": limit,
        "remaining": summary.remaining,
        "items": [
            {"municipality": name, "total": t.total, "slips": t.count, "one_stop": t.not_one_stop == 0}
            for name, t in groups.items()
        ],
    }


# The e-Tax 医療費集計フォーム (国税庁, 平成29年分以降用 ver.3.1) as a user fills it in and uploads it to
# 確定申告書等作成コーナー: the sheet 医療費集計フォーム, the totals at C3 and C4 (SUM of the
# columns below), the column headings on rows 7-8, one payment per row from row 9: A the row number,
# B 医療を受けた人, C 病院・薬局などの名称, D-G 医療費の区分 (「該当する」 under the kind), H 支払った
# 医療費の金額, I 左のうち、補填される金額, J 支払年月日 (任意). The CSV holds columns B-J (the
# headings, then the rows), so that it can be pasted at B9 or read as it is.
FORM_SHEET = "医療費集計フォーム"
FORM_FIRST_ROW = 9  # 1-based, as the form numbers it
FORM_APPLIES = "該当する"
FORM_ROWS = 1000  # rows a user may fill in on the sheet (the list of 医療費の区分 covers them)
FORM_COLUMNS = (
    "医療を受けた人",
    "病院・薬局などの名称",
    *(tax.KIND_LABELS_JA[kind] for kind in tax.MEDICAL_KINDS),
    "支払った医療費の金額",
    "左のうち、補填される金額",
    "支払年月日",
)


@dataclass(frozen=True, slots=True)
class FormRow:
    patient: str
    provider: str
    kind: str
    paid: int
    reimbursed: int
    paid_on: str = ""  # a row adds up a year of payments: the form's date is optional, left empty

    def cells(self) -> list[str | int]:
        """Columns B-J of the form."""
        kinds = [FORM_APPLIES if self.kind == kind else "" for kind in tax.MEDICAL_KINDS]
        return [self.patient, self.provider, *kinds, self.paid, self.reimbursed, self.paid_on]


def form_rows(store: Store, ledger: str, year: str) -> list[FormRow]:
    """The year's rows of the 医療費集計フォーム: one per patient, provider and kind (OTC purchases
    and the rest apart), the payments added up, in the report's order."""
    groups = tax.medical_groups(store.tax.tax_year(ledger, check_year(year)))
    return [
        FormRow(g.patient, g.provider, g.kind, t.paid, t.reimbursed)
        for g, t in groups.items()
        if t.paid or t.reimbursed
    ]


def medical_csv(store: Store, ledger: str, year: str, income: int | None = None) -> str:
    """The form's columns B-J as CSV, UTF-8 with a BOM (what a spreadsheet opens as Japanese text).
    `income` is checked as the report checks it; the form has no place for it."""
    import csv  # noqa: PLC0415 - loaded when a file is asked for
    import io  # noqa: PLC0415

    year, _ = medical_query(year, income)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(FORM_COLUMNS)
    for row in form_rows(store, ledger, year):
        writer.writerow([_cell(v) if isinstance(v, str) else v for v in row.cells()])
    return "\ufeff" + out.getvalue()


def medical_xlsx(store: Store, ledger: str, year: str, income: int | None = None) -> bytes:
    """The form as an .xlsx workbook laid out as the e-Tax 医療費集計フォーム (see FORM_SHEET).
    `income` is checked as the report checks it; the form has no place for it."""
    year, _ = medical_query(year, income)
    return form_workbook(form_rows(store, ledger, year))


def form_workbook(rows: list[FormRow]) -> bytes:
    import io  # noqa: PLC0415 - loaded when a file is asked for

    import xlsxwriter  # noqa: PLC0415 - only this route pays for it

    out = io.BytesIO()
    # strings_to_formulas off: a name such as "=HYPERLINK(...)" stays text, never runs in a spreadsheet
    book = xlsxwriter.Workbook(out, {"in_memory": True, "strings_to_formulas": False, "strings_to_urls": False})
    sheet = book.add_worksheet(FORM_SHEET)
    bold = book.add_format({"bold": True})
    head = book.add_format({"bold": True, "border": 1, "align": "center", "valign": "vcenter", "text_wrap": True})
    yen_total = book.add_format({"num_format": "#,##0", "border": 1})
    text = book.add_format({"border": 1})
    mark = book.add_format({"border": 1, "align": "center"})
    yen_cell = book.add_format({"num_format": "#,##0", "border": 1})
    for col, width in enumerate((6, 16, 28, 10, 10, 14, 12, 16, 18, 14)):
        sheet.set_column(col, col, width)

    first, last = FORM_FIRST_ROW, FORM_FIRST_ROW + max(len(rows), 1) - 1
    sheet.write(0, 0, FORM_SHEET, bold)
    sheet.write(2, 1, "医療費の合計", bold)
    sheet.write_formula(2, 2, f"=SUM(H{first}:H{last})", yen_total, sum(r.paid for r in rows))
    sheet.write(3, 1, "補填される金額の合計", bold)
    sheet.write_formula(3, 2, f"=SUM(I{first}:I{last})", yen_total, sum(r.reimbursed for r in rows))
    # rows 7-8: the headings; 医療費の区分 over its four kinds
    top, sub = 6, 7
    for col, title in ((0, "No"), (1, FORM_COLUMNS[0]), (2, FORM_COLUMNS[1])):
        sheet.merge_range(top, col, sub, col, title, head)
    sheet.merge_range(top, 3, top, 6, "医療費の区分", head)
    for offset, title in enumerate(FORM_COLUMNS[2:6]):
        sheet.write(sub, 3 + offset, title, head)
    for col, title in ((7, FORM_COLUMNS[6]), (8, FORM_COLUMNS[7]), (9, FORM_COLUMNS[8] + "（任意）")):
        sheet.merge_range(top, col, sub, col, title, head)
    for index, row in enumerate(rows):
        at = FORM_FIRST_ROW - 1 + index
        sheet.write_number(at, 0, index + 1, text)
        cells = row.cells()
        for offset, value in enumerate(cells):
            col = 1 + offset
            if isinstance(value, int):
                sheet.write_number(at, col, value, yen_cell)
            elif not value:  # an empty cell, as a user leaves it (bordered like the rest)
                sheet.write_blank(at, col, None, mark if 2 <= offset <= 5 else text)
            elif 2 <= offset <= 5:
                sheet.write_string(at, col, value, mark)
            else:
                sheet.write_string(at, col, value, text)
    # as on the form: 医療費の区分 takes 「該当する」 from a list, on the rows written and those a user adds
    sheet.data_validation(first - 1, 3, first + FORM_ROWS - 2, 6, {"validate": "list", "source": [FORM_APPLIES]})
    sheet.freeze_panes(FORM_FIRST_ROW - 1, 0)
    book.close()
    return out.getvalue()


def _cell(text: str) -> str:
    """A cell a spreadsheet shows as text, never runs as a formula (as /slips.csv writes them)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text
