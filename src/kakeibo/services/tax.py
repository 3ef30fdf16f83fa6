"""Tax season (確定申告): the medical report (医療費控除 beside セルフメディケーション), its e-Tax
医療費集計フォーム rows, and the ふるさと納税 report — all from the year's tax item the slip
transactions keep (one GetItem), never a scan of the year's slips."""

from __future__ import annotations

from typing import Any

from kakeibo import errors
from kakeibo.core import tax
from kakeibo.messages import Lang
from kakeibo.models import MAX_AMOUNT, MAX_YEAR, MIN_YEAR
from kakeibo.store import Store

KIND_LABELS_EN = {
    "treatment": "Treatment",
    "medicine": "Medicine",
    "care": "Nursing care service",
    "other": "Other medical costs",
}
REASONS: dict[str, tuple[str, str]] = {
    "too_many_municipalities": (
        "more than 5 municipalities were given to this year",
        "寄附先が 5 自治体を超えました",
    ),
    "not_requested": (
        "a donation was not marked as sent for the ワンストップ特例",
        "ワンストップ特例の申請をしていない寄附があります",
    ),
}


def check_year(year: str) -> str:
    if not (year.isdigit() and len(year) == 4 and MIN_YEAR <= int(year) <= MAX_YEAR):
        raise errors.BadRequest(f"'year' must be between {MIN_YEAR} and {MAX_YEAR}")
    return year


def check_amount(name: str, value: int | None) -> int | None:
    if value is not None and not 0 <= value <= MAX_AMOUNT:
        raise errors.BadRequest(f"'{name}' must be between 0 and {MAX_AMOUNT}")
    return value


def kind_label(kind: str, lang: Lang) -> str:
    return tax.KIND_LABELS_JA[kind] if lang == "ja" else KIND_LABELS_EN[kind]


def medical_report(store: Store, ledger: str, year: str, income: int | None, lang: Lang = "en") -> dict[str, Any]:
    """The year's medical payments per patient, provider and kind, the totals and both deductions."""
    groups = tax.medical_groups(store.tax_year(ledger, check_year(year)))
    summary = tax.summarize(groups, check_amount("income", income))
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
    groups = tax.donation_groups(store.tax_year(ledger, check_year(year)))
    summary = tax.donation_summary(groups, check_amount("limit", limit))
    return {
        "year": year,
        "total": summary.total,
        "municipalities": summary.municipalities,
        "one_stop": summary.one_stop,
        "reasons": list(summary.reasons),
        "reasons_text": [REASONS[r][0 if lang == "en" else 1] for r in summary.reasons],
        "limit": limit,
        "remaining": summary.remaining,
        "items": [
            {"municipality": name, "total": t.total, "slips": t.count, "one_stop": t.not_one_stop == 0}
            for name, t in groups.items()
        ],
    }


# The e-Tax 医療費集計フォーム's columns, in its order.
FORM_COLUMNS = (
    "医療を受けた人",
    "病院・薬局などの支払先の名称",
    "医療費の区分",
    "支払った医療費の金額",
    "左のうち、補填される金額",
    "支払年月日",
)


def form_rows(store: Store, ledger: str, year: str) -> list[tuple[str, str, str, int, int, str]]:
    """The year's rows of the 医療費集計フォーム: one per patient, provider and kind (OTC purchases
    and the rest apart), the payments added up; the date is left empty on such a row."""
    groups = tax.medical_groups(store.tax_year(ledger, check_year(year)))
    return [
        (g.patient, g.provider, tax.KIND_LABELS_JA[g.kind], t.paid, t.reimbursed, "")
        for g, t in groups.items()
        if t.paid or t.reimbursed
    ]


def medical_csv(store: Store, ledger: str, year: str) -> str:
    """The form as CSV, UTF-8 with a BOM (what a spreadsheet opens as Japanese text)."""
    import csv  # noqa: PLC0415 - loaded when a file is asked for
    import io  # noqa: PLC0415

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(FORM_COLUMNS)
    for row in form_rows(store, ledger, year):
        writer.writerow([_cell(v) if isinstance(v, str) else v for v in row])
    return "\ufeff" + out.getvalue()


def _cell(text: str) -> str:
    """A cell a spreadsheet shows as text, never runs as a formula (as /slips.csv writes them)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text
