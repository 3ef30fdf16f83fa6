"""三菱UFJニコス (MUFGカード, DCカード, NICOSカード): the ご利用明細 CSV (Shift_JIS, every cell quoted).

Source of the layout: tmurakam/felica2money (defs/CsvRules.xml, rules UFJNicos and BTMUVisa):
  "利用日","利用者","利用区分","利用内容","新規利用額","今回請求額","支払回数","現地通貨額","通貨略称",
  "換算レート","備考"
and the older one with "通貨","為替相場" for "通貨略称","換算レート".
Rows: dated by 利用日, the payee 利用内容; the amount is 新規利用額 (the use: the file does not say
which installment a 分割 row's 今回請求額 is, so a 分割 row is the whole use, once, its plan in the
memo; the statement's total is the sum of 今回請求額); a negative amount is a refund. A row in another
currency keeps 現地通貨額 通貨略称 (換算レート) in its memo.
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
    installments,
    read_table,
)

FORMAT_ID = "nicos"
SOURCE = "tmurakam/felica2money defs/CsvRules.xml (UFJNicos, BTMUVisa)"
HEADER = ("利用日", "利用者", "利用内容", "新規利用額", "今回請求額")
CLUES = ("利用日", "利用者", "利用区分", "利用内容", "新規利用額", "今回請求額", "支払回数", "現地通貨額")


def _recognise(found: Sequence[Record]) -> bool:
    return find_header(found, HEADER) is not None


def _recognise_current(found: Sequence[Record]) -> bool:
    at = find_header(found, HEADER)
    return at is not None and "通貨略称" in header_columns(found[at])


def _read(layout: str) -> Callable[[Sequence[Record], Context], Statement]:
    def read(found: Sequence[Record], context: Context) -> Statement:
        statement = Statement(FORMAT_ID, layout, "card")
        billed: list[int] = []

        def row(cells: Cells, reading: Reading) -> Entry | SkipReason:
            entry = _row(cells)
            if isinstance(entry, Entry) and (this := cells.amount("今回請求額")) is not None:
                billed.append(this)
            return entry

        read_table(found, statement, HEADER, row, context=context)
        statement.stated_total = sum(billed) if billed else None
        return statement

    return read


def _row(cells: Cells) -> Entry | SkipReason:
    if cells.text("利用日") is None:
        return "total" if cells.amount("新規利用額") is not None else "note"
    count = installments(cells.text("支払回数"))
    plan = f"{count}回払い" if count > 1 else None
    local = cells.text("現地通貨額")
    currency = cells.text("通貨略称") or cells.text("通貨")
    rate = cells.text("換算レート") or cells.text("為替相場")
    shown = " ".join(p for p in (currency, local) if p) if local else None
    return charge(
        cells.record.line,
        cells.date("利用日"),
        cells.amount("新規利用額"),
        cells.text("利用内容"),
        name="新規利用額",
        memo_text=" / ".join(p for p in (plan, cells.text("備考")) if p) or None,
        local_amount=f"{shown} (換算レート {rate})" if shown and rate else shown,
    )


FORMAT = Format(
    id=FORMAT_ID,
    name="三菱UFJニコス（ご利用明細）",
    name_en="Mitsubishi UFJ NICOS (statement)",
    kind="card",
    layouts=(
        Layout(
            id="current",
            header='"利用日","利用者","利用区分","利用内容","新規利用額","今回請求額","支払回数","現地通貨額","通貨略称",'
            '"換算レート","備考"',
            source=SOURCE,
            encoding="shift_jis",
            clues=CLUES,
            recognise=_recognise_current,
            read=_read("current"),
        ),
        Layout(
            id="older",
            header='"利用日","利用者","利用区分","利用内容","新規利用額","今回請求額","支払回数","現地通貨額","通貨",'
            '"為替相場","備考"',
            source=SOURCE,
            encoding="shift_jis",
            clues=CLUES,
            recognise=_recognise,
            read=_read("older"),
        ),
    ),
    notes="a 分割 row is the whole use (新規利用額); the statement's total: the sum of 今回請求額",
)
