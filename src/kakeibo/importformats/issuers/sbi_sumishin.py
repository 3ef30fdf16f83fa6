"""住信SBIネット銀行: the 入出金明細 CSV (Shift_JIS, every cell quoted, newest first).

Source of the layout: tmurakam/felica2money (defs/CsvRules.xml, rule SumishinSBI), rlan/beancount-multitool
(tests/data/sumishin_net_bank/test.csv), yukihiko-shinoda/zaim-csv-converter
(sbi_sumishin_net_bank202201.csv) and mukai11/meisaicsv (SbiNetBank.csv):
  "日付","内容","出金金額(円)","入金金額(円)","残高(円)","メモ"
Rows: 出金金額 is an expense, 入金金額 income; the payee 内容; メモ `-` is no memo.
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
    find_header,
    movement,
    read_table,
)

FORMAT_ID = "sbi_sumishin"
SOURCE = (
    "tmurakam/felica2money defs/CsvRules.xml (SumishinSBI); rlan/beancount-multitool tests/data/sumishin_net_bank; "
    "yukihiko-shinoda/zaim-csv-converter sbi_sumishin_net_bank202201.csv; mukai11/meisaicsv SbiNetBank.csv"
)
HEADER = ("日付", "内容", "出金金額(円)", "入金金額(円)")
CLUES = ("日付", "内容", "出金金額(円)", "入金金額(円)", "残高(円)", "メモ")


def _recognise(found: Sequence[Record]) -> bool:
    return find_header(found, HEADER) is not None


def _read(found: Sequence[Record], context: Context) -> Statement:
    return read_table(found, Statement(FORMAT_ID, "netbk", "bank"), HEADER, _row, context=context)


def _row(cells: Cells, reading: Reading) -> Entry | SkipReason:
    if cells.text("日付") is None:
        return "note"
    return movement(
        cells.record.line,
        cells.date("日付"),
        cells.amount("出金金額(円)"),
        cells.amount("入金金額(円)"),
        cells.text("内容"),
        names=("出金金額(円)", "入金金額(円)"),
        memo_text=cells.text("メモ"),
    )


FORMAT = Format(
    id=FORMAT_ID,
    name="住信SBIネット銀行（入出金明細）",
    name_en="SBI Sumishin Net Bank (statement)",
    kind="bank",
    layouts=(
        Layout(
            id="netbk",
            header='"日付","内容","出金金額(円)","入金金額(円)","残高(円)","メモ"',
            source=SOURCE,
            encoding="shift_jis",
            clues=CLUES,
            recognise=_recognise,
            read=_read,
        ),
    ),
)
