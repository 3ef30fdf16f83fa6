"""アメリカン・エキスプレス: the ご利用明細 CSV of the オンライン・サービス (UTF-8 or Shift_JIS).

Source of the layout: public American Express Japan readers in a public code index (which names no
repository), showing two versions:
  ご利用日,データ処理日,ご利用内容,カード会員様名,会員番号 #,金額,海外通貨利用金額,換算レート
  ご利用日,データ処理日,ご利用内容,金額,海外通貨利用金額,換算レート
Rows: dated by ご利用日 (not データ処理日), the payee ご利用内容, the amount 金額 (a negative one a
refund). `前回分口座振替金額` is the card's own payment as the card received it: skipped (reported as
`payment`), the payment being the transfer the daily job posts from the bank (§13). A row in another
currency keeps 海外通貨利用金額 (換算レート) in its memo.
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
    charge,
    find_header,
    header_columns,
    read_table,
)

FORMAT_ID = "amex"
SOURCE = "public American Express Japan readers (a public code index, which names no repository): both headers above"
HEADER = ("ご利用日", "データ処理日", "ご利用内容", "金額")
CLUES = (
    "ご利用日",
    "データ処理日",
    "ご利用内容",
    "カード会員様名",
    "会員番号#",
    "金額",
    "海外通貨利用金額",
    "換算レート",
)
PAYMENT = "前回分口座振替金額"


def _recognise(found: Sequence[Record]) -> bool:
    return find_header(found, HEADER) is not None


def _recognise_members(found: Sequence[Record]) -> bool:
    at = find_header(found, HEADER)
    return at is not None and "カード会員様名" in header_columns(found[at])


def _read(layout: str) -> Callable[[Sequence[Record], Context], Statement]:
    def read(found: Sequence[Record], context: Context) -> Statement:
        return read_table(found, Statement(FORMAT_ID, layout, "card"), HEADER, _row, context=context)

    return read


def _row(cells: Cells, reading: Reading) -> Entry | SkipReason:
    shop = cells.text("ご利用内容")
    if cells.text("ご利用日") is None:
        return "total" if cells.amount("金額") is not None else "note"
    if shop and shop.replace(" ", "").replace("\u3000", "").startswith(PAYMENT):
        return "payment"
    local, rate = cells.text("海外通貨利用金額"), cells.text("換算レート")
    return charge(
        cells.record.line,
        cells.date("ご利用日"),
        cells.amount("金額"),
        shop,
        name="金額",
        local_amount=f"{local} (換算レート {rate})" if local and rate else local,
    )


FORMAT = Format(
    id=FORMAT_ID,
    name="アメリカン・エキスプレス（ご利用明細）",
    name_en="American Express Japan (statement)",
    kind="card",
    layouts=(
        Layout(
            id="members",
            header="ご利用日,データ処理日,ご利用内容,カード会員様名,会員番号 #,金額,海外通貨利用金額,換算レート",
            source=SOURCE,
            encoding="utf-8 or shift_jis",
            clues=CLUES,
            recognise=_recognise_members,
            read=_read("members"),
        ),
        Layout(
            id="plain",
            header="ご利用日,データ処理日,ご利用内容,金額,海外通貨利用金額,換算レート",
            source=SOURCE,
            encoding="utf-8 or shift_jis",
            clues=CLUES,
            recognise=_recognise,
            read=_read("plain"),
        ),
    ),
    notes="前回分口座振替金額 (the card's payment as the card received it): skipped, reported as payment",
)
