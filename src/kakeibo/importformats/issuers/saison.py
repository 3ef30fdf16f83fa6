"""セゾンカード (and the cards クレディセゾン issues: 出光, UC): the ご利用明細 CSV of セゾンNetアンサー
(Shift_JIS).

Source of the layout: tmurakam/felica2money (defs/CsvRules.xml, rules SAISONCard and IdemitsuCard: the
header) and public Netアンサー readers in a public code index (which names no repository) for the
preamble and the cardholder lines:
  カード名称,セゾンカードインターナショナル
  お支払日,2026/05/07
  今回ご請求額,003000

  利用日,ご利用店名及び商品名,本人・家族区分,支払区分名称,締前入金区分,利用金額,備考
  ,ご利用者名:ヤマダ ハナコ         様,1,,,,
Rows: dated by 利用日, the amount 利用金額 (the use: the file does not say which installment a 分割
row's payment is, so it is the whole use, once, its 支払区分名称 in the memo); a negative amount is a
refund. Cardholder lines are sections; other dateless lines notes or totals. The preamble gives the
payment date and the statement's total.
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

FORMAT_ID = "saison"
SOURCE = (
    "tmurakam/felica2money defs/CsvRules.xml (SAISONCard, IdemitsuCard); public Netアンサー readers "
    "(the preamble and cardholder lines)"
)
HEADER = ("利用日", "ご利用店名及び商品名", "利用金額")
CLUES = ("利用日", "ご利用店名及び商品名", "本人・家族区分", "支払区分名称", "締前入金区分", "利用金額", "備考")


def _recognise(found: Sequence[Record]) -> bool:
    return find_header(found, HEADER) is not None


def _preamble(record: Record, statement: Statement) -> None:
    try:
        if (date := preamble_value(record, "お支払日")) is not None:
            statement.payment_date = iso_date(date, "お支払日")
        if (total := preamble_value(record, "今回ご請求額")) is not None:
            statement.stated_total = yen(total, "今回ご請求額")
    except ValueError:
        return


def _read(found: Sequence[Record], context: Context) -> Statement:
    statement = Statement(FORMAT_ID, "netanswer", "card")
    return read_table(found, statement, HEADER, _row, preamble=_preamble, context=context)


def _row(cells: Cells, reading: Reading) -> Entry | SkipReason:
    shop = cells.text("ご利用店名及び商品名")
    if cells.text("利用日") is None:
        if shop and shop.startswith("ご利用者名"):
            reading.section = shop
            return "section"
        return "total" if cells.amount("利用金額") is not None else "note"
    method = cells.text("支払区分名称")
    return charge(
        cells.record.line,
        cells.date("利用日"),
        cells.amount("利用金額"),
        shop,
        name="利用金額",
        memo_text=" / ".join(p for p in (method if is_installment(method) else None, cells.text("備考")) if p) or None,
    )


FORMAT = Format(
    id=FORMAT_ID,
    name="セゾンカード（セゾンNetアンサー ご利用明細）",
    name_en="Saison Card (Net Answer statement)",
    kind="card",
    layouts=(
        Layout(
            id="netanswer",
            header="利用日,ご利用店名及び商品名,本人・家族区分,支払区分名称,締前入金区分,利用金額,備考",
            preamble="カード名称,… / お支払日,2026/05/07 / 今回ご請求額,003000",
            source=SOURCE,
            encoding="shift_jis",
            clues=CLUES,
            recognise=_recognise,
            read=_read,
        ),
    ),
    notes="a 分割 row is the whole use (the file does not say which installment); cardholder lines: sections",
)
