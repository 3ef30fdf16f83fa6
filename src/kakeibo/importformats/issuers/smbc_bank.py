"""三井住友銀行: the 入出金明細 CSV of SMBCダイレクト (Shift_JIS).

Source of the layout: tmurakam/felica2money (defs/CsvRules.xml, the 三井住友銀行 rule) and
mukai11/meisaicsv (src/test/resources/csv/MitsuiSumitomoBank: dates in the Japanese era, `H30.01.15`):
  "年月日（和暦）","お引出し","お預入れ","お取り扱い内容","残高"
and the current one, dated in the Western calendar, with a memo and a label (public SMBC readers in a
public code index, which names no repository):
  "年月日","お引出し","お預入れ","お取り扱い内容","残高","メモ","ラベル"
Rows: お引出し is an expense, お預入れ income; the payee お取り扱い内容.
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

FORMAT_ID = "smbc_bank"
SOURCE = (
    "tmurakam/felica2money defs/CsvRules.xml (三井住友銀行); mukai11/meisaicsv MitsuiSumitomoBank.csv; "
    "public SMBC readers (the 年月日,…,メモ,ラベル layout)"
)
DATE = ("年月日(和暦)", "年月日")
HEADER = (DATE, "お引出し", "お預入れ", "お取り扱い内容")
CLUES = ("年月日(和暦)", "年月日", "お引出し", "お預入れ", "お取り扱い内容", "残高", "メモ", "ラベル")


def _recognise(column: str) -> Callable[[Sequence[Record]], bool]:
    def recognise(found: Sequence[Record]) -> bool:
        return find_header(found, (column, *HEADER[1:])) is not None

    return recognise


def _read(layout: str) -> Callable[[Sequence[Record], Context], Statement]:
    def read(found: Sequence[Record], context: Context) -> Statement:
        return read_table(found, Statement(FORMAT_ID, layout, "bank"), HEADER, _row, context=context)

    return read


def _row(cells: Cells, reading: Reading) -> Entry | SkipReason:
    when = "年月日(和暦)" if cells.has("年月日(和暦)") else "年月日"
    if cells.text(when) is None:
        return "note"
    return movement(
        cells.record.line,
        cells.date(when),
        cells.amount("お引出し"),
        cells.amount("お預入れ"),
        cells.text("お取り扱い内容"),
        names=("お引出し", "お預入れ"),
        memo_text=cells.text("メモ"),
    )


FORMAT = Format(
    id=FORMAT_ID,
    name="三井住友銀行（SMBCダイレクト 入出金明細）",
    name_en="Sumitomo Mitsui Banking Corporation (statement)",
    kind="bank",
    layouts=(
        Layout(
            id="current",
            header='"年月日","お引出し","お預入れ","お取り扱い内容","残高","メモ","ラベル"',
            source=SOURCE,
            encoding="shift_jis",
            clues=CLUES,
            recognise=_recognise("年月日"),
            read=_read("current"),
        ),
        Layout(
            id="era",
            header='"年月日（和暦）","お引出し","お預入れ","お取り扱い内容","残高"',
            source=SOURCE,
            encoding="shift_jis",
            clues=CLUES,
            recognise=_recognise("年月日(和暦)"),
            read=_read("era"),
        ),
    ),
    notes="dates in the Japanese era (H30.01.15, R08.01.05) or the Western calendar",
)
