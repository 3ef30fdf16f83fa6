"""イオンカード: the ご利用明細 CSV of 暮らしのマネーサイト (Shift_JIS).

Source of the layout: tmurakam/felica2money (defs/CsvRules.xml, rule AEONCard):
  ご利用日,利用者区分,ご利用先,支払方法,,,ご利用金額,備考,
(two columns without a name, and a trailing empty one). Rows: dated by ご利用日, the payee ご利用先,
the amount ご利用金額 (a negative one a refund); dateless lines are notes or totals.
"""

from __future__ import annotations

from collections.abc import Sequence

from kakeibo.importformats.statement import (
    Cells,
    Context,
    Entry,
    Format,
    Layout,
    Reading,
    Record,
    SkipReason,
    Statement,
    charge,
    find_header,
    is_installment,
    read_table,
)

FORMAT_ID = "aeon_card"
SOURCE = "tmurakam/felica2money defs/CsvRules.xml (AEONCard)"
HEADER = ("ご利用日", "利用者区分", "ご利用先", "ご利用金額")
CLUES = ("ご利用日", "利用者区分", "ご利用先", "支払方法", "ご利用金額", "備考")


def _recognise(found: Sequence[Record]) -> bool:
    return find_header(found, HEADER) is not None


def _read(found: Sequence[Record], context: Context) -> Statement:
    return read_table(found, Statement(FORMAT_ID, "kurashi", "card"), HEADER, _row, context=context)


def _row(cells: Cells, reading: Reading) -> Entry | SkipReason:
    if cells.text("ご利用日") is None:
        return "total" if cells.amount("ご利用金額") is not None else "note"
    method = cells.text("支払方法")
    return charge(
        cells.record.line,
        cells.date("ご利用日"),
        cells.amount("ご利用金額"),
        cells.text("ご利用先"),
        name="ご利用金額",
        memo_text=" / ".join(p for p in (method if is_installment(method) else None, cells.text("備考")) if p) or None,
    )


FORMAT = Format(
    id=FORMAT_ID,
    name="イオンカード（暮らしのマネーサイト ご利用明細）",
    name_en="AEON Card (statement)",
    kind="card",
    layouts=(
        Layout(
            id="kurashi",
            header="ご利用日,利用者区分,ご利用先,支払方法,,,ご利用金額,備考,",
            source=SOURCE,
            encoding="shift_jis",
            clues=CLUES,
            recognise=_recognise,
            read=_read,
        ),
    ),
)
