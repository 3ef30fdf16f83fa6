"""Which bank row pays one of the ledger's cards (pure): the card company's debit name, as banks print
it, on the card's payment date."""

from __future__ import annotations

import datetime as dt

import pytest

from kakeibo.core.billing import LAST_DAY, Billing
from kakeibo.core.statements import debit_names, names_card, paying_cycle, squash

RAKUTEN = Billing(closing_day=LAST_DAY, payment_day=27)
JCB = Billing(closing_day=15, payment_day=10, shift="next_business_day")


@pytest.mark.parametrize(
    ("card", "printed"),
    [
        ("楽天カード", "ﾗｸﾃﾝｶ-ﾄﾞｻ-ﾋﾞｽ"),  # half-width, a hyphen for the long vowel
        ("楽天カード", "ラクテンカ－ド　サ－ビス"),  # full-width, a full-width hyphen
        ("三井住友カード", "ミツイスミトモカ－ド　（カ"),
        ("JCB CARD W", "ＪＣＢ）セブンカ－ド"),
        ("PayPayカード", "ＰＡＹＰＡＹカ－ド"),
        ("アメックス", "アメツクス"),  # a bank's small ッ printed large
        ("エポスカード", "ｴﾎﾟｽｶｰﾄﾞ"),
        ("VIEWカード", "ビユーカード"),
        ("家族カード", "家族カード"),  # a card no company word names: its own name
    ],
)
def test_a_cards_company_is_found_as_banks_print_it(card: str, printed: str) -> None:
    assert names_card([printed], debit_names(card))


@pytest.mark.parametrize(
    ("card", "printed"), [("楽天カード", "ＮＨＫ"), ("JCBカード", "ラクテンカ－ド"), ("カード", "ＪＣＢ")]
)
def test_another_companys_debit_is_not_the_cards(card: str, printed: str) -> None:
    assert not names_card([printed], debit_names(card))


def test_text_compares_in_one_form() -> None:
    assert squash("ﾗｸﾃﾝ ｶｰﾄﾞ") == squash("ラクテン　カ－ド") == squash("ラクテンカ-ド") == "ラクテンカード"


def test_the_cycle_paid_on_a_day() -> None:
    # 楽天: October's cycle (closing the 31st) is paid on 27 November
    paid = paying_cycle(RAKUTEN, dt.date(2026, 11, 27))
    assert paid is not None and paid.closing_date == dt.date(2026, 10, 31)
    assert paying_cycle(RAKUTEN, dt.date(2026, 11, 26)) is None


def test_the_cycle_paid_on_a_shifted_day() -> None:
    # JCB's payment due on Sunday 10 January 2027 is debited on Tuesday the 12th (the 11th is 成人の日)
    cycle = paying_cycle(JCB, dt.date(2027, 1, 12))
    assert cycle is not None and cycle.closing_date == dt.date(2026, 12, 15)
    assert paying_cycle(JCB, dt.date(2027, 1, 10)) is None
