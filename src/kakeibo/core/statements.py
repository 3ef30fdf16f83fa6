"""Pure rules of card and bank statements meeting the ledger's cards (§26, §13). No boto3, no HTTP.

- Which bank row is the payment of one of the ledger's own cards: an outgoing row, on the card's
  payment date, whose 摘要 names the card company. Banks print the company as its debit name, in
  half-width or full-width katakana or Latin letters (ﾗｸﾃﾝｶ-ﾄﾞｻ-ﾋﾞｽ, ミツイスミトモカ－ド, ＪＣＢ); a
  card is known by its account's name and, when that name holds a known company's word (楽天, JCB,
  セゾン...), by that company's debit names. Text compares in one form: NFKC, case folded, every
  long-vowel mark and dash as ー, small kana as large (banks print ツ for ッ), no spaces or dots.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections.abc import Iterable, Sequence

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
