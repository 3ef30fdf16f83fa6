"""JCB: the カードご利用代金明細 CSV of MyJCB (Shift_JIS, every cell quoted), and the cards that share
its layout (the JCB ORIGINAL SERIES: JCB CARD W / S, JCBゴールド, and the partner cards MyJCB serves).

Source of the layout: public MyJCB readers in a public code index (it names no repository); every
one of them shows the same preamble and header:
  "","","今回のお支払日","2026/01/10"
  "","","今回のお支払金額合計(￥)","12345"
  "","","　うち国内ご利用金額合計(￥)","12345"
  "","","　うち海外ご利用金額合計(￥)","0"
  "【ご利用明細】"
  "ご利用者","カテゴリ","ご利用日","ご利用先など","ご利用金額(￥)","支払区分","今回回数","訂正サイン",
  "お支払い金額(￥)","国内／海外","摘要","備考"
Rows: the amount is ご利用金額, but a 分割 / リボ row is its month's payment (お支払い金額), its identity
then also 今回回数; 訂正サイン 取消 and negative amounts are refunds; a dateless `お支払済分　ご返金額`
line belongs to the row before it (a note). The preamble gives the statement's payment date and its
total.
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

FORMAT_ID = "jcb"
SOURCE = "public MyJCB readers (a public code index, which names no repository): the preamble and header above"
HEADER = ("ご利用日", "ご利用先など", ("ご利用金額(¥)", "お支払い金額(¥)"))
CLUES = ("ご利用者", "カテゴリ", "ご利用日", "ご利用先など", "ご利用金額(¥)", "支払区分", "今回回数", "訂正サイン")


def _recognise(found: Sequence[Record]) -> bool:
    return find_header(found, HEADER) is not None


def _preamble(record: Record, statement: Statement) -> None:
    if (date := preamble_value(record, "今回のお支払日")) is not None:
        try:
            statement.payment_date = iso_date(date, "今回のお支払日")
        except ValueError:
            statement.payment_date = None
    if (total := preamble_value(record, "今回のお支払金額合計")) is not None:
        try:
            statement.stated_total = yen(total, "今回のお支払金額合計")
        except ValueError:
            statement.stated_total = None


def _read(found: Sequence[Record], context: Context) -> Statement:
    statement = Statement(FORMAT_ID, "myjcb", "card")
    return read_table(found, statement, HEADER, _row, preamble=_preamble, context=context)


def _row(cells: Cells, reading: Reading) -> Entry | SkipReason:
    shop = cells.text("ご利用先など")
    if cells.text("ご利用日") is None:
        return "note" if shop else "total"
    method = cells.text("支払区分")
    used, paid = cells.amount("ご利用金額(¥)"), cells.amount("お支払い金額(¥)")
    amount = used if used is not None else paid
    key: tuple[str, ...] = ()
    if is_installment(method) and paid is not None:
        amount, key = paid, ("installment", cells.text("今回回数") or "")
    correction = cells.text("訂正サイン")
    return charge(
        cells.record.line,
        cells.date("ご利用日"),
        amount,
        shop,
        name="ご利用金額(￥)",
        refund=bool(correction and "取消" in correction),
        memo_text=" / ".join(p for p in (method if is_installment(method) else None, cells.text("摘要")) if p) or None,
        key=key,
    )


FORMAT = Format(
    id=FORMAT_ID,
    name="JCB（MyJCB カードご利用代金明細）",
    name_en="JCB (MyJCB statement, and the cards sharing its layout)",
    kind="card",
    layouts=(
        Layout(
            id="myjcb",
            header='"ご利用者","カテゴリ","ご利用日","ご利用先など","ご利用金額(￥)","支払区分","今回回数","訂正サイン",'
            '"お支払い金額(￥)","国内／海外","摘要","備考"',
            preamble='"","","今回のお支払日","2026/01/10" / "","","今回のお支払金額合計(￥)","12345" / ... '
            '/ "【ご利用明細】"',
            source=SOURCE,
            encoding="shift_jis",
            clues=CLUES,
            recognise=_recognise,
            read=_read,
        ),
    ),
    notes="分割・リボ: the month's payment (お支払い金額); 訂正サイン 取消: a refund",
)
