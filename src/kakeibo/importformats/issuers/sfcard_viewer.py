"""Suica / PASMO (and the other 交通系IC cards) as SFCard Viewer exports their history (Shift_JIS).

Source of the layout: yukihiko-shinoda/zaim-csv-converter (csvinput_test_success/suica202003.csv,
pasmo201811.csv, and its SFCardViewerRowData model):
  カードID=01234567A8901234,,,,,,,,,
  利用年月日,定期,鉄道会社名,入場駅/事業者名,定期,鉄道会社名,出場駅/降車場所,利用額(円),残額(円),メモ
(定期 and 鉄道会社名 are written twice: the first of each is the entry's, the second the exit's.)
Rows: 利用額 positive is a fare or a purchase (メモ 物販, バス/路面等): an expense; negative is a charge
(ｵｰﾄﾁｬｰｼﾞ, a station's チャージ): income of the card (as a bank's 入金 is); 0 (窓出, a commuter pass)
is skipped. The payee: the ride (`JR東 板橋→JR東 越谷レイクタウン`), else the 事業者名, else the メモ.
A row's identity is its date, payee and 残額 (the balance after it, which tells two same fares of a
day apart).
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

FORMAT_ID = "sfcard_viewer"
SOURCE = (
    "yukihiko-shinoda/zaim-csv-converter tests/testresources/test_zaim_csv_converter/csvinput_test_success/"
    "suica202003.csv, pasmo201811.csv (and zaimcsvconverter/data/sf_card_viewer.py)"
)
HEADER = ("利用年月日", "入場駅/事業者名", "出場駅/降車場所", "利用額(円)", "残額(円)")
CLUES = ("利用年月日", "定期", "鉄道会社名", "入場駅/事業者名", "出場駅/降車場所", "利用額(円)", "残額(円)", "メモ")


def _recognise(found: Sequence[Record]) -> bool:
    return find_header(found, HEADER) is not None


def _read(found: Sequence[Record], context: Context) -> Statement:
    return read_table(found, Statement(FORMAT_ID, "sfcardviewer", "ic"), HEADER, _row, context=context)


def _row(cells: Cells, reading: Reading) -> Entry | SkipReason:
    if cells.text("利用年月日") is None:
        return "note"
    used = cells.amount("利用額(円)")
    if used is None:
        raise ValueError("利用額(円): the row has no amount")
    entry = " ".join(p for p in (cells.text("鉄道会社名"), cells.text("入場駅/事業者名")) if p)
    exit_ = " ".join(p for p in (cells.text("鉄道会社名#2"), cells.text("出場駅/降車場所")) if p)
    note = cells.text("メモ")
    ride = f"{entry}→{exit_}" if entry and exit_ else None
    payee = ride or (" ".join(p for p in (note, entry) if p) or None)
    return movement(
        cells.record.line,
        cells.date("利用年月日"),
        used if used >= 0 else None,
        -used if used < 0 else None,
        payee,
        names=("利用額(円)", "利用額(円)"),
        memo_text=note if ride else None,
        key=(cells.text("残額(円)") or "",),
    )


FORMAT = Format(
    id=FORMAT_ID,
    name="Suica・PASMO など（SFCard Viewer の利用履歴）",
    name_en="Suica / PASMO history (SFCard Viewer export)",
    kind="ic",
    layouts=(
        Layout(
            id="sfcardviewer",
            header="利用年月日,定期,鉄道会社名,入場駅/事業者名,定期,鉄道会社名,出場駅/降車場所,利用額(円),残額(円),メモ",
            preamble="カードID=…",
            source=SOURCE,
            encoding="shift_jis",
            clues=CLUES,
            recognise=_recognise,
            read=_read,
        ),
    ),
    notes="a charge (利用額 negative) is income of the card; identity: date, payee and 残額",
)
