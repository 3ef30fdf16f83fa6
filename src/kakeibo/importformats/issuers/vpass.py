"""三井住友カード: the ご利用明細 CSV of Vpass (Shift_JIS), confirmed (確定) and unconfirmed (未確定).
The cards Vpass serves share it (ゴールドポイントカード・プラス, Olive, the NL cards).

Source of the layout: mukai11/meisaicsv (src/test/resources/csv/MitsuiSumitomoCard, and its parser's
columns ご利用日,ご利用店名,ご利用金額,支払い区分,分割回数,お支払い金額,備考), tmurakam/felica2money
(defs/CsvRules.xml, rules SMBCcard and SMBCcard2), yukihiko-shinoda/zaim-csv-converter
(gold_point_card_plus_201912: the confirmed rows; gold_point_card_plus: the unconfirmed ones).

Neither file has a header row: its columns are the issuer's, in the issuer's fixed order, named
here as Vpass's own screen names them and read by those names:
- confirmed: per card a block line `山田　花子　様,4980-00**-****-****,三井住友カード（NL）`, then its
  rows ご利用日,ご利用店名,ご利用金額,分割回数,今回回数,お支払い金額,備考; after the blocks, lines
  with no date: notes (`,※マイ・ペイすリボ最低支払額（弁済金）※,,,,5047,`) and the statement's
  total (`,,,,,5047,`), skipped and reported (the last total is the statement's).
- unconfirmed: rows ご利用日,ご利用店名,ご利用者,支払区分,分割回数,支払予定月,ご利用金額,... (13 cells,
  支払予定月 as `'22/08`).
Rows: a 分割 row (分割回数 above 1) is its month's payment (お支払い金額), its identity also its
installment (今回回数); a negative amount is a refund. A row is the same slip unconfirmed and
confirmed, so a charge that settles at another amount is `changed`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import partial

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
    clean,
    installments,
    looks_like_date,
    yen,
)

FORMAT_ID = "vpass"
SOURCE = (
    "mukai11/meisaicsv src/test/resources/csv/MitsuiSumitomoCard; tmurakam/felica2money defs/CsvRules.xml "
    "(SMBCcard, SMBCcard2); yukihiko-shinoda/zaim-csv-converter (gold_point_card_plus, gold_point_card_plus_201912)"
)
CONFIRMED = ("ご利用日", "ご利用店名", "ご利用金額", "分割回数", "今回回数", "お支払い金額", "備考")
UNCONFIRMED = ("ご利用日", "ご利用店名", "ご利用者", "支払区分", "分割回数", "支払予定月", "ご利用金額")
_CARD_NUMBER = re.compile(r"^[0-9*]{4}-[0-9*]{2,4}-?[0-9*]{0,4}-[0-9*]{3,4}$")
_PAY_MONTH = re.compile(r"^'?\d{2}/\d{1,2}$")


def _first(found: Sequence[Record]) -> Record | None:
    return next((r for r in found if not r.blank), None)


def _is_block(record: Record) -> bool:
    cells = [unicodedata.normalize("NFKC", c).strip() for c in record.cells]
    return len(cells) >= 3 and cells[0].endswith("様") and bool(_CARD_NUMBER.match(cells[1]))


def _recognise_confirmed(found: Sequence[Record]) -> bool:
    first = _first(found)
    return first is not None and _is_block(first)


def _recognise_unconfirmed(found: Sequence[Record]) -> bool:
    first = _first(found)
    if first is None or len(first.cells) < 7:
        return False
    cells = first.cells
    return looks_like_date(cells[0]) and bool(_PAY_MONTH.match(cells[5].strip())) and _is_amount(cells[6])


def _is_amount(text: str) -> bool:
    try:
        return yen(text, "") is not None
    except ValueError:
        return False


def _columns(names: tuple[str, ...]) -> dict[str, int]:
    return {name: position for position, name in enumerate(names)}


def _read_confirmed(found: Sequence[Record], context: Context) -> Statement:
    statement = Statement(FORMAT_ID, "confirmed", "card")
    reading = Reading(statement, context=context)
    columns = _columns(CONFIRMED)
    for record in found:
        if record.blank:
            statement.skip(record, "blank")
        elif _is_block(record):
            reading.section = clean(record.cells[2]) or clean(record.cells[1])
            statement.skip(record, "section")
        else:
            cells = Cells(record, columns)
            statement.add(record, partial(_confirmed, cells, reading))
    return statement


def _confirmed(cells: Cells, reading: Reading) -> Entry | SkipReason:
    statement = reading.statement
    if cells.text("ご利用日") is None:
        shop, paid = cells.text("ご利用店名"), cells.amount("お支払い金額")
        if shop is None and paid is not None:
            statement.stated_total = paid  # the last one is the statement's total
            return "total"
        if shop is not None and not shop.startswith("※") and (cells.amount("ご利用金額") or paid):
            raise ValueError(f"ご利用日: {UNDATED}")
        return "note"
    date = cells.date("ご利用日")
    count = installments(cells.text("分割回数"))
    amount = cells.amount("ご利用金額")
    key: tuple[str, ...] = ()
    if count > 1 and cells.amount("お支払い金額") is not None:
        amount = cells.amount("お支払い金額")
        key = ("installment", str(installments(cells.text("今回回数"))))
    note = cells.text("備考")
    plan = f"分割 {installments(cells.text('今回回数'))}/{count}回" if count > 1 else None
    return charge(
        cells.record.line,
        date,
        amount,
        cells.text("ご利用店名"),
        name="ご利用金額",
        memo_text=" / ".join(p for p in (plan, note) if p) or None,
        key=key,
    )


UNDATED = "the row has an amount but no date: Vpass gives it none; record it by hand"


def _read_unconfirmed(found: Sequence[Record], context: Context) -> Statement:
    statement = Statement(FORMAT_ID, "unconfirmed", "card")
    columns = _columns(UNCONFIRMED)
    for record in found:
        if record.blank:
            statement.skip(record, "blank")
            continue
        cells = Cells(record, columns)
        statement.add(record, partial(_unconfirmed, cells))
    return statement


def _unconfirmed(cells: Cells) -> Entry | SkipReason:
    if cells.text("ご利用日") is None:
        return "total" if cells.amount("ご利用金額") is not None else "note"
    return charge(
        cells.record.line,
        cells.date("ご利用日"),
        cells.amount("ご利用金額"),
        cells.text("ご利用店名"),
        name="ご利用金額",
        memo_text=cells.text("支払区分") if installments(cells.text("分割回数")) > 1 else None,
    )


FORMAT = Format(
    id=FORMAT_ID,
    name="三井住友カード（Vpass ご利用明細）",
    name_en="Sumitomo Mitsui Card (Vpass statement)",
    kind="card",
    layouts=(
        Layout(
            id="confirmed",
            header="山田　花子　様,4980-00**-****-****,三井住友カード（NL）",
            preamble=None,
            source=SOURCE,
            encoding="shift_jis",
            clues=(),
            recognise=_recognise_confirmed,
            read=_read_confirmed,
        ),
        Layout(
            id="unconfirmed",
            header="2026/11/3,ＡＭＡＺＯＮ．ＣＯ．ＪＰ,ご本人,1回払い,,'26/12,3844,3844,,,,,",
            source=SOURCE,
            encoding="shift_jis",
            clues=(),
            recognise=_recognise_unconfirmed,
            read=_read_unconfirmed,
        ),
    ),
    notes="no header row: columns in the issuer's fixed order (" + ",".join(CONFIRMED) + "); 分割: the month's "
    "payment (お支払い金額)",
)
