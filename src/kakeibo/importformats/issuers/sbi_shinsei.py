"""SBI新生銀行 (formerly 新生銀行): the 入出金明細 CSV of SBI新生パワーダイレクト.

Source of the layout: rlan/beancount-multitool (tests/data/shinsei_bank/test.csv and
docs/institutions/shinsei_bank.md: the Japanese and English headers, UTF-8 with a BOM) and
tmurakam/felica2money (defs/CsvRules.xml, rule ShinseiBank: the older tab-separated download):
  "取引日","摘要","出金金額","入金金額","残高"        (some downloads add "メモ")
  "Value Date","Description","Debit","Credit","Balance"
  取引日<TAB>照会番号<TAB>摘要<TAB>お支払金額<TAB>お預り金額<TAB>残高
Rows: 出金金額 / Debit / お支払金額 is an expense, 入金金額 / Credit / お預り金額 income; the payee 摘要
(Description).
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
    movement,
    read_table,
)

FORMAT_ID = "sbi_shinsei"
SOURCE = (
    "rlan/beancount-multitool tests/data/shinsei_bank and docs/institutions/shinsei_bank.md; "
    "tmurakam/felica2money defs/CsvRules.xml (ShinseiBank: the tab-separated layout)"
)
LAYOUTS = {
    "current": ("取引日", "摘要", "出金金額", "入金金額"),
    "english": ("ValueDate", "Description", "Debit", "Credit"),
    "tsv": ("取引日", "照会番号", "摘要", "お支払金額", "お預り金額"),
}
CLUES = ("取引日", "摘要", "出金金額", "入金金額", "残高", "ValueDate", "Description", "Debit", "Credit", "照会番号")


def _recognise(layout: str) -> Callable[[Sequence[Record]], bool]:
    def recognise(found: Sequence[Record]) -> bool:
        return find_header(found, LAYOUTS[layout]) is not None

    return recognise


def _read(layout: str) -> Callable[[Sequence[Record], Context], Statement]:
    date, payee, out, into = {
        "current": ("取引日", "摘要", "出金金額", "入金金額"),
        "english": ("ValueDate", "Description", "Debit", "Credit"),
        "tsv": ("取引日", "摘要", "お支払金額", "お預り金額"),
    }[layout]

    def row(cells: Cells, reading: Reading) -> Entry | SkipReason:
        if cells.text(date) is None:
            return "note"
        return movement(
            cells.record.line,
            cells.date(date),
            cells.amount(out),
            cells.amount(into),
            cells.text(payee),
            names=(out, into),
            memo_text=cells.text("メモ"),
        )

    def read(found: Sequence[Record], context: Context) -> Statement:
        return read_table(found, Statement(FORMAT_ID, layout, "bank"), LAYOUTS[layout], row, context=context)

    return read


FORMAT = Format(
    id=FORMAT_ID,
    name="SBI新生銀行（入出金明細）",
    name_en="SBI Shinsei Bank (statement)",
    kind="bank",
    layouts=(
        Layout(
            id="current",
            header='"取引日","摘要","出金金額","入金金額","残高"',
            source=SOURCE,
            encoding="utf-8 (BOM)",
            clues=CLUES,
            recognise=_recognise("current"),
            read=_read("current"),
        ),
        Layout(
            id="english",
            header='"Value Date","Description","Debit","Credit","Balance"',
            source=SOURCE,
            encoding="utf-8 (BOM)",
            clues=CLUES,
            recognise=_recognise("english"),
            read=_read("english"),
        ),
        Layout(
            id="tsv",
            header="取引日\t照会番号\t摘要\tお支払金額\tお預り金額\t残高",
            source=SOURCE,
            encoding="shift_jis",
            clues=CLUES,
            recognise=_recognise("tsv"),
            read=_read("tsv"),
            delimiter="\t",
        ),
    ),
    notes="the older download is tab-separated",
)
