"""エポスカード: the 月別ご利用明細 CSV of エポスNet (Shift_JIS).

Source of the layout: public エポスカード readers in a public code index (it names no repository),
which all show a title line and this header:
  月別ご利用明細　山田　花子　様　ご利用期間：2026年1月から2026年8月　株式会社エポスカード,,,,,,,
  種別（ショッピング、キャッシング、その他）,ご利用年月日,ご利用場所,ご利用内容,
  ご利用金額（キャッシングでは元金になります）,支払区分,お支払開始月,備考
then rows such as `ショッピング,2026年1月10日,モバイルスイカ,−,3000,1回払い,2026年2月,` and, at the
end, `ショッピング合計,,,,864,,,` and `※１ ...` lines (totals and notes, skipped and reported).
Rows: dated by ご利用年月日, the payee ご利用場所. This file lists each use once, by the month it was
made (not each month's payment): a 分割 row is the whole purchase, its plan (支払区分, 備考 such as
`１回目　1,930円 ２回目以降　1,100円`) kept in the memo. A negative amount is a refund.
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

FORMAT_ID = "epos"
SOURCE = "public エポスカード readers (a public code index, which names no repository): the title line and header above"
HEADER = ("種別*", "ご利用年月日", "ご利用場所", "ご利用金額*")
CLUES = ("ご利用年月日", "ご利用場所", "ご利用内容", "支払区分", "お支払開始月", "備考")


def _recognise(found: Sequence[Record]) -> bool:
    return find_header(found, HEADER) is not None


def _read(found: Sequence[Record], context: Context) -> Statement:
    return read_table(found, Statement(FORMAT_ID, "monthly", "card"), HEADER, _row, context=context)


def _row(cells: Cells, reading: Reading) -> Entry | SkipReason:
    kind = cells.text("種別*") or ""
    if kind.endswith("合計"):
        return "total"
    if kind.startswith("※") or cells.text("ご利用年月日") is None:
        return "note"
    method, note = cells.text("支払区分"), cells.text("備考")
    plan = method if is_installment(method) else None
    return charge(
        cells.record.line,
        cells.date("ご利用年月日"),
        cells.amount("ご利用金額*"),
        cells.text("ご利用場所"),
        name="ご利用金額",
        memo_text=" / ".join(p for p in (cells.text("ご利用内容"), plan, note) if p) or None,
        key=() if kind == "ショッピング" else (kind,),
    )


FORMAT = Format(
    id=FORMAT_ID,
    name="エポスカード（月別ご利用明細）",
    name_en="Epos Card (monthly statement)",
    kind="card",
    layouts=(
        Layout(
            id="monthly",
            header="種別（ショッピング、キャッシング、その他）,ご利用年月日,ご利用場所,ご利用内容,"
            "ご利用金額（キャッシングでは元金になります）,支払区分,お支払開始月,備考",
            preamble="月別ご利用明細　…　様　株式会社エポスカード,,,,,,,",
            source=SOURCE,
            encoding="shift_jis",
            clues=CLUES,
            recognise=_recognise,
            read=_read,
        ),
    ),
    notes="a list of uses, not of payments: a 分割 row is the whole purchase, its plan in the memo",
)
