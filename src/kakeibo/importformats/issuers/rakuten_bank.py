"""楽天銀行: the 入出金明細 CSV (Shift_JIS).

Source of the layout: rlan/beancount-multitool (tests/data/rakuten_bank/test.csv and
docs/institutions/rakuten_bank.md: the current header) and tmurakam/felica2money (defs/CsvRules.xml,
rule ebank: the older one):
  取引日,入出金(円),取引後残高(円),入出金内容
  取引日,入出金(円),残高(円),入出金先内容
Rows: dated by 取引日 (`20230407`); 入出金 is signed: negative an expense, positive income; the payee
入出金内容 (入出金先内容).
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

FORMAT_ID = "rakuten_bank"
SOURCE = (
    "rlan/beancount-multitool tests/data/rakuten_bank (current); tmurakam/felica2money defs/CsvRules.xml "
    "(ebank: the older header)"
)
PAYEE = ("入出金内容", "入出金先内容")
HEADER = ("取引日", "入出金(円)", PAYEE)
CLUES = ("取引日", "入出金(円)", "取引後残高(円)", "残高(円)", "入出金内容", "入出金先内容")


def _recognise(column: str) -> Callable[[Sequence[Record]], bool]:
    def recognise(found: Sequence[Record]) -> bool:
        return find_header(found, ("取引日", "入出金(円)", column)) is not None

    return recognise


def _read(layout: str) -> Callable[[Sequence[Record], Context], Statement]:
    def read(found: Sequence[Record], context: Context) -> Statement:
        return read_table(found, Statement(FORMAT_ID, layout, "bank"), HEADER, _row, context=context)

    return read


def _row(cells: Cells, reading: Reading) -> Entry | SkipReason:
    if cells.text("取引日") is None:
        return "note"
    signed = cells.amount("入出金(円)")
    if signed is None:
        raise ValueError("入出金(円): the row has no amount")
    return movement(
        cells.record.line,
        cells.date("取引日"),
        -signed if signed <= 0 else None,
        signed if signed > 0 else None,
        cells.text("入出金内容") or cells.text("入出金先内容"),
        names=("入出金(円)", "入出金(円)"),
    )


FORMAT = Format(
    id=FORMAT_ID,
    name="楽天銀行（入出金明細）",
    name_en="Rakuten Bank (statement)",
    kind="bank",
    layouts=(
        Layout(
            id="current",
            header="取引日,入出金(円),取引後残高(円),入出金内容",
            source=SOURCE,
            encoding="shift_jis",
            clues=CLUES,
            recognise=_recognise("入出金内容"),
            read=_read("current"),
        ),
        Layout(
            id="older",
            header="取引日,入出金(円),残高(円),入出金先内容",
            source=SOURCE,
            encoding="shift_jis",
            clues=CLUES,
            recognise=_recognise("入出金先内容"),
            read=_read("older"),
        ),
    ),
)
