"""ゆうちょ銀行: the 入出金明細 CSV of ゆうちょダイレクト (Shift_JIS).

Source of the layout: mukai11/meisaicsv (src/test/resources/csv/YuuchoBank/YuuchoBank.csv and its
parser ParserYuuchoBank):
  お客さま口座情報
  現在高：,"12,345",円,
  出力日時：平成 30 年 07 月 22 日 17 時 52 分
  お客さま口座番号：9876-12345678
  照会対象：期間指定
  日付指定：平成 30 年 07 月 20 日 ～ 平成 30 年 07 月 21 日
  明細件数：2
  取引日,入出金明細ＩＤ,受入金額（円）,払出金額（円）,詳細１,詳細２,現在（貸付）高,
Rows: dated by 取引日 (`20180720`); 受入金額 is income, 払出金額 an expense; the payee 詳細２ (the
other party), else 詳細１ (the kind: 送金, 受取利子, 料金...), which is then the memo. 入出金明細ＩＤ is
unique: a row's identity is it.
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

FORMAT_ID = "yucho"
SOURCE = "mukai11/meisaicsv src/test/resources/csv/YuuchoBank/YuuchoBank.csv (and ParserYuuchoBank)"
HEADER = ("取引日", "入出金明細ID", "受入金額(円)", "払出金額(円)")
CLUES = ("取引日", "入出金明細ID", "受入金額(円)", "払出金額(円)", "詳細1", "詳細2", "現在(貸付)高")


def _recognise(found: Sequence[Record]) -> bool:
    return find_header(found, HEADER) is not None


def _read(found: Sequence[Record], context: Context) -> Statement:
    return read_table(found, Statement(FORMAT_ID, "direct", "bank"), HEADER, _row, context=context)


def _row(cells: Cells, reading: Reading) -> Entry | SkipReason:
    if cells.text("取引日") is None:
        return "note"
    kind, party = cells.text("詳細1"), cells.text("詳細2")
    return movement(
        cells.record.line,
        cells.date("取引日"),
        cells.amount("払出金額(円)"),
        cells.amount("受入金額(円)"),
        party or kind,
        names=("払出金額（円）", "受入金額（円）"),
        memo_text=kind if party else None,
        external_id=cells.text("入出金明細ID"),
        texts=(kind,),
    )


FORMAT = Format(
    id=FORMAT_ID,
    name="ゆうちょ銀行（ゆうちょダイレクト 入出金明細）",
    name_en="Japan Post Bank (Yucho Direct)",
    kind="bank",
    layouts=(
        Layout(
            id="direct",
            header="取引日,入出金明細ＩＤ,受入金額（円）,払出金額（円）,詳細１,詳細２,現在（貸付）高,",
            preamble="お客さま口座情報 / 現在高：,… / 出力日時：… / お客さま口座番号：… / 照会対象：… / 明細件数：…",
            source=SOURCE,
            encoding="shift_jis",
            clues=CLUES,
            recognise=_recognise,
            read=_read,
        ),
    ),
    notes="identity: 入出金明細ＩＤ",
)
