"""三菱UFJ銀行: the 入出金明細 CSV of 三菱UFJダイレクト (Shift_JIS).

Source of the layout: tmurakam/felica2money (defs/CsvRules.xml, rules MitsubishiTokyoUFJ and
MitsubishiTokyoUFJEco), yukihiko-shinoda/zaim-csv-converter (csvinput_test_success/mufg201808.csv,
mufg202304.csv) and mukai11/meisaicsv (src/test/resources/csv/MitsubishiUfjBank):
  "日付","摘要","摘要内容","支払い金額","預かり金額","差引残高"
  "日付","摘要","摘要内容","支払い金額","預かり金額","差引残高","メモ","未資金化区分","入払区分"
(quoted or not). Rows: dated by 日付 (`2023/4/22`); 支払い金額 is an expense, 預かり金額 income; the
payee 摘要内容 (the other party), else 摘要 (the kind: 振込, カード, 口座振替...), which is then the memo.
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
    movement,
    read_table,
)

FORMAT_ID = "mufg_bank"
SOURCE = (
    "tmurakam/felica2money defs/CsvRules.xml (MitsubishiTokyoUFJ, MitsubishiTokyoUFJEco); "
    "yukihiko-shinoda/zaim-csv-converter mufg202304.csv; mukai11/meisaicsv MitsubishiUfjBank.csv"
)
HEADER = ("日付", "摘要", "摘要内容", "支払い金額", "預かり金額")
CLUES = ("日付", "摘要", "摘要内容", "支払い金額", "預かり金額", "差引残高", "入払区分")


def _recognise(found: Sequence[Record]) -> bool:
    return find_header(found, HEADER) is not None


def _recognise_eco(found: Sequence[Record]) -> bool:
    at = find_header(found, HEADER)
    return at is not None and "入払区分" in header_columns(found[at])


def _read(layout: str) -> Callable[[Sequence[Record], Context], Statement]:
    def read(found: Sequence[Record], context: Context) -> Statement:
        return read_table(found, Statement(FORMAT_ID, layout, "bank"), HEADER, _row, context=context)

    return read


def _row(cells: Cells, reading: Reading) -> Entry | SkipReason:
    if cells.text("日付") is None:
        return "note"
    kind, party = cells.text("摘要"), cells.text("摘要内容")
    return movement(
        cells.record.line,
        cells.date("日付"),
        cells.amount("支払い金額"),
        cells.amount("預かり金額"),
        party or kind,
        names=("支払い金額", "預かり金額"),
        memo_text=" / ".join(p for p in (kind if party else None, cells.text("メモ")) if p) or None,
        texts=(kind,),
    )


FORMAT = Format(
    id=FORMAT_ID,
    name="三菱UFJ銀行（三菱UFJダイレクト 入出金明細）",
    name_en="MUFG Bank (statement)",
    kind="bank",
    layouts=(
        Layout(
            id="eco",
            header='"日付","摘要","摘要内容","支払い金額","預かり金額","差引残高","メモ","未資金化区分","入払区分"',
            source=SOURCE,
            encoding="shift_jis",
            clues=CLUES,
            recognise=_recognise_eco,
            read=_read("eco"),
        ),
        Layout(
            id="classic",
            header='"日付","摘要","摘要内容","支払い金額","預かり金額","差引残高"',
            source=SOURCE,
            encoding="shift_jis",
            clues=CLUES,
            recognise=_recognise,
            read=_read("classic"),
        ),
    ),
)
