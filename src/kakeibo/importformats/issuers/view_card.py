"""ビューカード (JR東日本, the ビュー・スイカ cards): the ご利用明細 CSV of VIEW's NET (Shift_JIS).

Source of the layout: yukihiko-shinoda/zaim-csv-converter (csvinput_test_success/view_card202005.csv):
  会員番号,****-****-****-1234
  対象カード,「ビュー・スイカ｣カード
  お支払日,2020年05月07日
  今回お支払金額,"3,524"

  ご利用年月日,ご利用箇所,ご利用額,払戻額,ご請求額（うち手数料・利息）,支払区分（回数）,今回回数,
  今回ご請求額・弁済金（うち手数料・利息）,現地通貨額,通貨略称,換算レート
  ****-****-****-1234 テスト　ユーザー
  2020/03/21,板橋駅　オートチャージ,"3,000",,"3,000",１回払,,"3,000",,   ,
Rows: dated by ご利用年月日, the payee ご利用箇所; the amount is ご利用額, a 分割 / リボ row its
month's payment (今回ご請求額・弁済金), its identity then also 今回回数; a 払戻額 is a refund of that
amount. A row in another currency keeps 現地通貨額 通貨略称 (換算レート) in its memo. The cardholder
line is a section; the preamble gives the payment date and the statement's total.
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
    iso_date,
    preamble_value,
    read_table,
    yen,
)

FORMAT_ID = "view_card"
SOURCE = (
    "yukihiko-shinoda/zaim-csv-converter "
    "tests/testresources/test_zaim_csv_converter/csvinput_test_success/view_card202005.csv"
)
HEADER = ("ご利用年月日", "ご利用箇所", "ご利用額")
PAID = "今回ご請求額・弁済金*"
CLUES = ("ご利用年月日", "ご利用箇所", "ご利用額", "払戻額", "今回回数", "現地通貨額", "通貨略称", "換算レート")


def _recognise(found: Sequence[Record]) -> bool:
    return find_header(found, HEADER) is not None


def _preamble(record: Record, statement: Statement) -> None:
    try:
        if (date := preamble_value(record, "お支払日")) is not None:
            statement.payment_date = iso_date(date, "お支払日")
        if (total := preamble_value(record, "今回お支払金額")) is not None:
            statement.stated_total = yen(total, "今回お支払金額")
    except ValueError:
        return


def _read(found: Sequence[Record], context: Context) -> Statement:
    statement = Statement(FORMAT_ID, "viewsnet", "card")
    return read_table(found, statement, HEADER, _row, preamble=_preamble, context=context)


def _row(cells: Cells, reading: Reading) -> Entry | SkipReason:
    if cells.text("ご利用年月日") is None:
        return "total" if cells.amount("ご利用額") is not None else "note"
    if (cells.text("ご利用箇所") is None) and len([c for c in cells.record.cells if c.strip()]) == 1:
        reading.section = cells.text("ご利用年月日")
        return "section"
    method = cells.text("支払区分*")
    refund = cells.amount("払戻額")
    amount = cells.amount("ご利用額")
    key: tuple[str, ...] = ()
    if refund:
        amount = -abs(refund)
    elif is_installment(method) and cells.amount(PAID) is not None:
        amount, key = cells.amount(PAID), ("installment", cells.text("今回回数") or "")
    local = cells.text("現地通貨額")
    currency, rate = cells.text("通貨略称"), cells.text("換算レート")
    shown = " ".join(p for p in (currency, local) if p) if local else None
    return charge(
        cells.record.line,
        cells.date("ご利用年月日"),
        amount,
        cells.text("ご利用箇所"),
        name="ご利用額",
        memo_text=method if is_installment(method) else None,
        key=key,
        local_amount=f"{shown} (換算レート {rate})" if shown and rate else shown,
    )


FORMAT = Format(
    id=FORMAT_ID,
    name="ビューカード（VIEW's NET ご利用明細）",
    name_en="VIEW Card (VIEW's NET statement)",
    kind="card",
    layouts=(
        Layout(
            id="viewsnet",
            header="ご利用年月日,ご利用箇所,ご利用額,払戻額,ご請求額（うち手数料・利息）,支払区分（回数）,今回回数,"
            "今回ご請求額・弁済金（うち手数料・利息）,現地通貨額,通貨略称,換算レート",
            preamble='会員番号,… / 対象カード,… / お支払日,2020年05月07日 / 今回お支払金額,"3,524"',
            source=SOURCE,
            encoding="shift_jis",
            clues=CLUES,
            recognise=_recognise,
            read=_read,
        ),
    ),
    notes="払戻額: a refund; 分割・リボ: the month's payment (今回ご請求額・弁済金)",
)
