"""PayPay銀行 (formerly ジャパンネット銀行): the 入出金明細 CSV (Shift_JIS, every cell quoted).

Source of the layout: tmurakam/felica2money (defs/CsvRules.xml, rule JapanNetBank) and public PayPay
銀行 readers in a public code index (which names no repository) for the current one with メモ:
  "操作日(年)","操作日(月)","操作日(日)","操作時刻(時)","操作時刻(分)","操作時刻(秒)","取引順番号","摘要",
  "お支払金額","お預り金額","残高","メモ"
Rows: dated by the three 操作日 cells; お支払金額 is an expense, お預り金額 income; the payee 摘要.
取引順番号 numbers the account's transactions: a row's identity is its date and that number.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

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
    find_header,
    header_columns,
    iso_date,
    movement,
    read_table,
)

FORMAT_ID = "paypay_bank"
SOURCE = "tmurakam/felica2money defs/CsvRules.xml (JapanNetBank); public PayPay銀行 readers (the メモ column)"
HEADER = ("操作日(年)", "操作日(月)", "操作日(日)", "摘要", "お支払金額", "お預り金額")
CLUES = ("操作日(年)", "操作日(月)", "操作日(日)", "操作時刻(時)", "取引順番号", "摘要", "お支払金額", "お預り金額")


def _recognise(found: Sequence[Record]) -> bool:
    return find_header(found, HEADER) is not None


def _recognise_memo(found: Sequence[Record]) -> bool:
    at = find_header(found, HEADER)
    return at is not None and "メモ" in header_columns(found[at])


def _read(layout: str) -> Callable[[Sequence[Record], Context], Statement]:
    def read(found: Sequence[Record], context: Context) -> Statement:
        return read_table(found, Statement(FORMAT_ID, layout, "bank"), HEADER, _row, context=context)

    return read


def _row(cells: Cells, reading: Reading) -> Entry | SkipReason:
    parts = [cells.text(f"操作日({p})") for p in ("年", "月", "日")]
    if not any(parts):
        return "note"
    year, month, day = (cells.required(f"操作日({p})").strip() for p in ("年", "月", "日"))
    date = iso_date(f"{year}/{month}/{day}", "操作日")
    number = cells.text("取引順番号")
    return movement(
        cells.record.line,
        date,
        cells.amount("お支払金額"),
        cells.amount("お預り金額"),
        cells.text("摘要"),
        names=("お支払金額", "お預り金額"),
        memo_text=cells.text("メモ"),
        external_id=f"{date}#{number}" if number else None,
    )


FORMAT = Format(
    id=FORMAT_ID,
    name="PayPay銀行（入出金明細）",
    name_en="PayPay Bank (statement; Japan Net Bank)",
    kind="bank",
    layouts=(
        Layout(
            id="current",
            header='"操作日(年)","操作日(月)","操作日(日)","操作時刻(時)","操作時刻(分)","操作時刻(秒)","取引順番号",'
            '"摘要","お支払金額","お預り金額","残高","メモ"',
            source=SOURCE,
            encoding="shift_jis",
            clues=CLUES,
            recognise=_recognise_memo,
            read=_read("current"),
        ),
        Layout(
            id="jnb",
            header='"操作日(年)","操作日(月)","操作日(日)","操作時刻(時)","操作時刻(分)","操作時刻(秒)","取引順番号",'
            '"摘要","お支払金額","お預り金額","残高"',
            source=SOURCE,
            encoding="shift_jis",
            clues=CLUES,
            recognise=_recognise,
            read=_read("jnb"),
        ),
    ),
    notes="identity: the date and 取引順番号",
)
