"""楽天カード: the ご利用明細 CSV of 楽天e-NAVI (UTF-8 with a BOM, every cell quoted).

Source of the layout: rlan/beancount-multitool (tests/data/rakuten_card/test.csv, the confirmed
statement's header), tmurakam/felica2money (defs/CsvRules.xml, rule RakutenCard), and public e-NAVI
readers describing the newest statement's 支払月 column and the 現地利用額 and ■ご利用キャンセルなど
lines (seen in a public code index; it names no repository).

Two versions, told apart by their columns, read by name:
- a closed statement: 利用日,利用店名・商品名,利用者,支払方法,利用金額,支払手数料 (or 手数料/利息),
  支払総額,<N>月支払金額[,当月請求額],<N+1>月繰越残高,新規サイン
- the newest (still open) one: the same with 支払月 after 支払総額 and <N+1>月以降請求額 at the end.
Rows: dated by 利用日; the amount is 利用金額, but a 分割 / リボ row is its month's payment (<N>月支払金額),
its identity then also the month and the balance carried over (each month's installment is one slip).
A negative amount, and every row after the ■ご利用キャンセルなど heading, is a refund. A dateless
`現地利用額 35.000 変換レート 142.029円` line after a foreign-currency row is that row's local amount
(kept in its memo); other dateless lines are notes or totals, skipped and reported.
"""

from __future__ import annotations

import re
import unicodedata
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
    column_key,
    find_header,
    header_columns,
    is_installment,
    month_column,
    payment_month,
    read_table,
    yen,
)

FORMAT_ID = "rakuten_card"
SOURCE = (
    "rlan/beancount-multitool tests/data/rakuten_card; tmurakam/felica2money defs/CsvRules.xml (RakutenCard); "
    "public e-NAVI readers (the 支払月 column, 現地利用額 and ■ご利用キャンセルなど lines)"
)
HEADER = ("利用日", "利用店名・商品名", "支払方法", "利用金額")
CLUES = ("利用日", "利用店名・商品名", "利用者", "支払方法", "利用金額", "支払総額", "新規サイン")
_LOCAL = re.compile(r"現地利用額\s*([0-9.,]+)\s*([A-Z]{3})?")
_RATE = re.compile(r"変換レート\s*([0-9.,]+)")


def _recognise_open(found: Sequence[Record]) -> bool:
    at = find_header(found, HEADER)
    return at is not None and "支払月" in header_columns(found[at])


def _recognise_closed(found: Sequence[Record]) -> bool:
    return find_header(found, HEADER) is not None


def _read(found: Sequence[Record], context: Context, layout: str) -> Statement:
    statement = Statement(FORMAT_ID, layout, "card")
    at = find_header(found, HEADER)
    columns = header_columns(found[at]) if at is not None else {}
    paid = month_column(columns, "支払金額")
    carried = month_column(columns, "繰越残高")
    read_table(found, statement, HEADER, lambda cells, reading: _row(cells, reading, paid, carried))
    if paid is not None:
        statement.payment_month = payment_month(statement.entries, paid[1])
        payments = [_amount(c) for c in _month_payments(found, at, paid[0])]
        statement.stated_total = sum(p for p in payments if p is not None) if payments else None
    return statement


def _month_payments(found: Sequence[Record], at: int | None, column: str) -> list[str | None]:
    if at is None:
        return []
    columns = header_columns(found[at])
    out: list[str | None] = []
    for record in found[at + 1 :]:
        cells = Cells(record, columns)
        if cells.text("利用日") is not None:
            out.append(cells.text(column))
    return out


def _amount(text: str | None) -> int | None:
    try:
        return yen(text, "")
    except ValueError:
        return None


def _row(
    cells: Cells, reading: Reading, paid: tuple[str, int] | None, carried: tuple[str, int] | None
) -> Entry | SkipReason | None:
    statement = reading.statement
    shop = cells.text("利用店名・商品名")
    heading = cells.text("利用日")
    if heading is not None and heading.startswith("■"):  # ■ご利用キャンセルなど: the rows after it are refunds
        reading.section = heading
        return "section"
    if heading is None:
        if shop and column_key(shop).startswith("現地利用額"):
            _local_amount(statement, shop)
            return "note"
        if shop and shop.startswith("■"):
            reading.section = shop
            return "section"
        return "note" if shop else "total"
    date = cells.date("利用日")
    method = cells.text("支払方法")
    amount = cells.amount("利用金額")
    key: tuple[str, ...] = ()
    if is_installment(method) and paid is not None and cells.amount(paid[0]) is not None:
        amount = cells.amount(paid[0])
        left = cells.text(carried[0]) if carried is not None else None
        key = ("installment", str(paid[1]), left or "")
    refund = bool(reading.section and "キャンセル" in reading.section)
    return charge(
        cells.record.line,
        date,
        amount,
        shop,
        name="利用金額",
        refund=refund,
        memo_text=method if is_installment(method) else None,
        key=key,
    )


def _local_amount(statement: Statement, note: str) -> None:
    """A 現地利用額 line: the local amount and rate of the row before it, kept in its memo."""
    text = unicodedata.normalize("NFKC", note)
    found, rate = _LOCAL.search(text), _RATE.search(text)
    if not found or not statement.entries:
        return
    local = " ".join(p for p in (found.group(2), found.group(1)) if p)
    shown = f"{local} (変換レート {rate.group(1)}円)" if rate else local
    last = statement.entries[-1]
    memo = "現地通貨 " + shown if not last.memo else f"{last.memo} / 現地通貨 {shown}"
    statement.amend_last(local_amount=local, memo=memo[:500])


FORMAT = Format(
    id=FORMAT_ID,
    name="楽天カード（楽天e-NAVI ご利用明細）",
    name_en="Rakuten Card (e-NAVI statement)",
    kind="card",
    layouts=(
        Layout(
            id="open",
            header='"利用日","利用店名・商品名","利用者","支払方法","利用金額","手数料/利息","支払総額","支払月",'
            '"10月支払金額","当月請求額","11月繰越残高","11月以降請求額"',
            source=SOURCE,
            encoding="utf-8 (BOM)",
            clues=(*CLUES, "支払月"),
            recognise=_recognise_open,
            read=lambda found, context: _read(found, context, "open"),
        ),
        Layout(
            id="closed",
            header='"利用日","利用店名・商品名","利用者","支払方法","利用金額","支払手数料","支払総額",'
            '"10月支払金額","当月請求額","11月繰越残高","新規サイン"',
            source=SOURCE,
            encoding="utf-8 (BOM)",
            clues=CLUES,
            recognise=_recognise_closed,
            read=lambda found, context: _read(found, context, "closed"),
        ),
    ),
    notes="分割・リボ: the month's payment (<N>月支払金額); 現地利用額 lines: the row's local amount, in its memo",
)
