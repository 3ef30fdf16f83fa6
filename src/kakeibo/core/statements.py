"""Pure rules of card and bank statements meeting the ledger's cards (§26, §13). No boto3, no HTTP.

- Which bank row is the payment of one of the ledger's own cards: an outgoing row, on the card's
  payment date, whose 摘要 names the card company. Banks print the company as its debit name, in
  half-width or full-width katakana or Latin letters (ﾗｸﾃﾝｶ-ﾄﾞｻ-ﾋﾞｽ, ミツイスミトモカ－ド, ＪＣＢ); a
  card is known by its account's name and, when that name holds a known company's word (楽天, JCB,
  セゾン...), by that company's debit names. Text compares in one form: NFKC, case folded, every
  long-vowel mark and dash as ー, small kana as large (banks print ツ for ッ), no spaces or dots.
- Which billing cycle a card's file is the statement of: the one paid on the date the file names,
  else in the month it names, else the cycle most of its rows fall in.
- How the file's rows differ from what the ledger holds for that cycle.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kakeibo.core import billing
from kakeibo.core.billing import Billing, Cycle

# A word of an account's name -> the names banks print for that card company's debits.
COMPANIES: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("楽天", "rakuten"), ("ラクテンカード", "楽天カード", "ラクテンカードサービス")),
    (
        ("三井住友", "smbc", "vpass", "olive"),
        ("ミツイスミトモカード", "三井住友カード", "smbcカード", "スミトモカード"),
    ),
    (("jcb",), ("jcb", "ジエーシービー", "ジェーシービー")),
    (("paypay", "ペイペイ", "yahoo", "ヤフー"), ("paypayカード", "ペイペイカード", "ワイジエイカード", "ヤフーカード")),
    (("エポス", "epos"), ("エポスカード", "エポス")),
    (("セゾン", "saison", "uc", "出光"), ("セゾン", "クレデイセゾン", "クレディセゾン", "ユーシーカード")),
    (("ビュー", "view", "スイカ", "suica"), ("ビユーカード", "ビューカード", "viewカード", "ジエイアールヒガシ")),
    (("ニコス", "nicos", "mufg", "ufj", "dc"), ("ニコス", "mufgカード", "ミツビシユーエフジエイニコス", "dcカード")),
    (("イオン", "aeon"), ("イオンカード", "イオンクレジツト", "イオンフイナンシヤル")),
    (("アメックス", "amex", "アメリカン", "american"), ("アメリカンエキスプレス", "アメツクス", "amex")),
)
_DASHES = re.compile(r"[-‐‑‒–—―−－ｰーｰ]")
_SMALL = str.maketrans("ァィゥェォッャュョヮヵヶ", "アイウエオツヤユヨワカケ")
_GENERIC = {"カード", "クレジツトカード", "クレジツト", "card", "credit"}
_DROP = re.compile(r"[\s・･.．,，()（）「」]")


def squash(text: str) -> str:
    """Text in the one form bank descriptions and card names compare in (see the module's doc)."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _DROP.sub("", _DASHES.sub("ー", folded)).translate(_SMALL)


def debit_names(card_name: str, card_id: str = "") -> tuple[str, ...]:
    """The names a bank may print for the card's debits: its own name (without カード), and the
    debit names of every company a word of its name or id is."""
    own = squash(card_name)
    names = {own, own.removesuffix("カード")} - {""}
    words = f"{own} {squash(card_id)}"
    for keys, printed in COMPANIES:
        if any(squash(k) in words for k in keys):
            names.update(squash(p) for p in printed)
    return tuple(sorted(n for n in names if len(n) >= 2 and n not in _GENERIC))


def names_card(texts: Iterable[str], names: Sequence[str]) -> bool:
    """Whether a row's texts (its 摘要, 摘要内容...) name the card."""
    return any(name in squash(text) for text in texts for name in names)


def paying_cycle(rule: Billing, day: dt.date) -> Cycle | None:
    """The cycle of `rule` whose payment is debited on `day`, if one is."""
    for months in range(4):
        index = day.year * 12 + day.month - 1 - months
        closing = billing.cycle(rule, index // 12, index % 12 + 1)
        if closing.payment_date == day:
            return closing
    return None


def statement_cycle(
    rule: Billing, *, payment_date: str | None, payment_month: str | None, dates: Sequence[str]
) -> Cycle | None:
    """The cycle a card's file is the statement of (see the module's doc)."""
    if payment_date is not None:
        day = dt.date.fromisoformat(payment_date)
        paid = paying_cycle(rule, day)
        if paid is not None:
            return paid
        for months in range(4):  # a date the card's shift does not reach: by its scheduled day
            index = day.year * 12 + day.month - 1 - months
            found = billing.cycle(rule, index // 12, index % 12 + 1)
            if found.scheduled_payment == day or found.payment_date.strftime("%Y-%m") == payment_date[:7]:
                return found
    if payment_month is not None:
        year, month = int(payment_month[:4]), int(payment_month[5:7])
        for months in range(4):
            index = year * 12 + month - 1 - months
            found = billing.cycle(rule, index // 12, index % 12 + 1)
            if found.scheduled_payment.strftime("%Y-%m") == payment_month:
                return found
    if not dates:
        return None
    counted = Counter(billing.cycle_of(rule, dt.date.fromisoformat(d)).closing_date for d in dates)
    closing = max(counted, key=lambda c: (counted[c], c))
    return billing.cycle_of(rule, closing)


@dataclass(frozen=True, slots=True)
class FileRow:
    line: int
    slip_id: str
    date: str
    signed: int  # what the row adds to what the card owes (a refund: negative)
    payee: str | None


@dataclass(frozen=True, slots=True)
class LedgerSlip:
    slip_id: str
    date: str
    signed: int
    payee: str | None


def differences(
    rows: Sequence[FileRow], ledger: Mapping[str, LedgerSlip], cycle_slips: Sequence[LedgerSlip], cycle: Cycle
) -> list[dict[str, Any]]:
    """The file's rows that the ledger does not hold as the file says for `cycle`, and the cycle's
    slips the file lacks: `{reason, line?, slip_id, date, file_amount?, ledger_amount?, payee}` where
    reason is not_in_ledger (not imported, or deleted), amount (the ledger's differs: edited here),
    outside_period (dated outside the cycle: the ledger bills it in another one), or not_in_file."""
    lo, hi = cycle.period_from.isoformat(), cycle.closing_date.isoformat()
    out: list[dict[str, Any]] = []
    for row in rows:
        held = ledger.get(row.slip_id)
        base = {"line": row.line, "slip_id": row.slip_id, "date": row.date, "file_amount": row.signed,
                "payee": row.payee}  # fmt: skip
        if held is None:
            out.append({"reason": "not_in_ledger", **base, "ledger_amount": None})
        elif held.signed != row.signed:
            out.append({"reason": "amount", **base, "ledger_amount": held.signed})
        elif not lo <= held.date <= hi:
            out.append({"reason": "outside_period", **base, "date": held.date, "ledger_amount": held.signed})
    inside = {row.slip_id for row in rows}
    for slip in cycle_slips:
        if slip.slip_id not in inside:
            out.append({"reason": "not_in_file", "line": None, "slip_id": slip.slip_id, "date": slip.date,
                        "file_amount": None, "ledger_amount": slip.signed, "payee": slip.payee})  # fmt: skip
    return out
