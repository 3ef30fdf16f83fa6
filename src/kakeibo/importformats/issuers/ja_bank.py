"""JAバンク: the 入出金明細 CSV of JAネットバンク (Shift_JIS, every cell quoted).

Source of the layout: rlan/beancount-multitool (tests/data/ja_bank/test.csv, tests/data2/ja_bank and
docs/institutions/ja_bank.md):
  "番号","明細区分","取扱日付","起算日","お支払金額","お預り金額","取引区分","残高","摘要"
  "001","","4月30日","","","\\7,000","振込入金","\\7,000","ｳｳ"
Rows: 取扱日付 has no year (`4月30日`): it is the latest such day not after the day of the import (a
January import of December's rows dates them last year); amounts are written with CP932's `\\` for
¥. お支払金額 is an expense, お預り金額 income; the payee 摘要, the memo 取引区分. 番号 only numbers the
download's rows (it is not the row's identity).
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
    latest_year,
    movement,
    read_table,
)

FORMAT_ID = "ja_bank"
SOURCE = "rlan/beancount-multitool tests/data/ja_bank, tests/data2/ja_bank, docs/institutions/ja_bank.md"
HEADER = ("番号", "取扱日付", "お支払金額", "お預り金額", "摘要")
CLUES = ("番号", "明細区分", "取扱日付", "起算日", "お支払金額", "お預り金額", "取引区分", "残高", "摘要")


def _recognise(found: Sequence[Record]) -> bool:
    return find_header(found, HEADER) is not None


def _read(found: Sequence[Record], context: Context) -> Statement:
    return read_table(found, Statement(FORMAT_ID, "jabank", "bank"), HEADER, _row, context=context)


def _row(cells: Cells, reading: Reading) -> Entry | SkipReason:
    if cells.text("取扱日付") is None:
        return "note"
    context = reading.context
    year_for = latest_year(context.today) if context is not None else None
    return movement(
        cells.record.line,
        cells.date("取扱日付", year_for=year_for),
        cells.amount("お支払金額"),
        cells.amount("お預り金額"),
        cells.text("摘要"),
        names=("お支払金額", "お預り金額"),
        memo_text=cells.text("取引区分"),
        texts=(cells.text("取引区分"),),
    )


FORMAT = Format(
    id=FORMAT_ID,
    name="JAバンク（JAネットバンク 入出金明細）",
    name_en="JA Bank (JA Net Bank statement)",
    kind="bank",
    layouts=(
        Layout(
            id="jabank",
            header='"番号","明細区分","取扱日付","起算日","お支払金額","お預り金額","取引区分","残高","摘要"',
            source=SOURCE,
            encoding="shift_jis",
            clues=CLUES,
            recognise=_recognise,
            read=_read,
        ),
    ),
    notes="取扱日付 has no year: the latest such day not after the import's",
)
