"""PayPayカード (formerly Yahoo! JAPANカード): the ご利用明細 CSV (UTF-8, every cell quoted).

Source of the layout: yukihiko-shinoda/zaim-csv-converter (csvinput_test_success/pay_pay_card_202208.csv:
the 2022 layout), tmurakam/felica2money (defs/CsvRules.xml, rule YJCard: the Yahoo! JAPANカード one),
and a public PayPayカード reader in a public code index (which names no repository) for the layout
with 決済方法:
- "利用日/キャンセル日","利用店名・商品名","利用者","支払区分","利用金額","手数料","支払総額",
  "当月支払金額","翌月以降繰越金額","調整額","当月お支払日"
- "利用日/キャンセル日","利用店名・商品名","利用者","決済方法","支払区分","利用金額","手数料",
  "当月支払金額","翌月以降繰越金額","調整額","当月お支払日"
- "利用日","利用店名・商品名","利用者","支払区分","利用金額","手数料","支払総額","当月支払金額",
  "翌月以降繰越金額"
Rows: dated by 利用日 (a cancellation: its キャンセル日); the amount is 利用金額, a 分割 / リボ row its
month's payment (当月支払金額), its identity then also the balance carried over; a negative amount is
a refund. 当月お支払日 is the statement's payment date.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Callable, Sequence

from kakeibo.importformats.statement import (
    Cells,
    Context,
    Entry,
    Format,
    Layout,
    Reader,
    Reading,
    Record,
    SkipReason,
    Statement,
    charge,
    find_header,
    header_columns,
    is_installment,
    iso_date,
    read_table,
)

FORMAT_ID = "paypay_card"
SOURCE = (
    "yukihiko-shinoda/zaim-csv-converter csvinput_test_success/pay_pay_card_202208.csv; tmurakam/felica2money "
    "defs/CsvRules.xml (YJCard); a public PayPayカード reader (the 決済方法 layout)"
)
DATE = ("利用日/キャンセル日", "利用日")
HEADER = (DATE, "利用店名・商品名", "支払区分", "利用金額", "当月支払金額")
CLUES = ("利用日/キャンセル日", "利用店名・商品名", "利用者", "支払区分", "利用金額", "当月支払金額", "当月お支払日")


def _recognise(columns: str | None) -> Callable[[Sequence[Record]], bool]:
    def recognise(found: Sequence[Record]) -> bool:
        at = find_header(found, HEADER)
        if at is None:
            return False
        names = header_columns(found[at])
        return columns is None or columns in names

    return recognise


def _read(layout: str) -> Reader:
    def read(found: Sequence[Record], context: Context) -> Statement:
        statement = Statement(FORMAT_ID, layout, "card")
        dates: Counter[str] = Counter()
        total = 0
        seen = False

        def row(cells: Cells, reading: Reading) -> Entry | SkipReason:
            nonlocal total, seen
            entry = _row(cells)
            if isinstance(entry, Entry):
                when = cells.text("当月お支払日")
                if when:
                    with contextlib.suppress(ValueError):
                        dates[iso_date(when, "当月お支払日")] += 1
                paid = cells.amount("当月支払金額")
                if paid is not None:
                    total, seen = total + paid, True
            return entry

        read_table(found, statement, HEADER, row, context=context)
        statement.payment_date = dates.most_common(1)[0][0] if dates else None
        statement.stated_total = total if seen else None
        return statement

    return read


def _row(cells: Cells) -> Entry | SkipReason:
    when = cells.name("利用日/キャンセル日") or "利用日"
    shop = cells.text("利用店名・商品名")
    if cells.text(when) is None:
        return "note" if shop else "total"
    method = cells.text("支払区分")
    amount = cells.amount("利用金額")
    key: tuple[str, ...] = ()
    if is_installment(method) and cells.amount("当月支払金額") is not None:
        amount = cells.amount("当月支払金額")
        key = ("installment", cells.text("翌月以降繰越金額") or "")
    return charge(
        cells.record.line,
        cells.date(when),
        amount,
        shop,
        name="利用金額",
        memo_text=method if is_installment(method) else None,
        key=key,
    )


FORMAT = Format(
    id=FORMAT_ID,
    name="PayPayカード（ご利用明細）",
    name_en="PayPay Card (statement; Yahoo! JAPAN Card)",
    kind="card",
    layouts=(
        Layout(
            id="2024",
            header='"利用日/キャンセル日","利用店名・商品名","利用者","決済方法","支払区分","利用金額","手数料",'
            '"当月支払金額","翌月以降繰越金額","調整額","当月お支払日"',
            source=SOURCE,
            encoding="utf-8",
            clues=(*CLUES, "決済方法"),
            recognise=_recognise("決済方法"),
            read=_read("2024"),
        ),
        Layout(
            id="2022",
            header='"利用日/キャンセル日","利用店名・商品名","利用者","支払区分","利用金額","手数料","支払総額",'
            '"当月支払金額","翌月以降繰越金額","調整額","当月お支払日"',
            source=SOURCE,
            encoding="utf-8",
            clues=CLUES,
            recognise=_recognise("利用日/キャンセル日"),
            read=_read("2022"),
        ),
        Layout(
            id="yahoo",
            header='"利用日","利用店名・商品名","利用者","支払区分","利用金額","手数料","支払総額","当月支払金額",'
            '"翌月以降繰越金額"',
            source=SOURCE,
            encoding="shift_jis",
            clues=CLUES,
            recognise=_recognise(None),
            read=_read("yahoo"),
        ),
    ),
    notes="分割・リボ: the month's payment (当月支払金額)",
)
