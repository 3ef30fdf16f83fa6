"""Statements meeting the ledger's cards (pure): which bank row pays one of its cards (the card
company's debit name, as banks print it, on the card's payment date), which cycle a card's file is
the statement of, and how the file differs from what the ledger holds."""

from __future__ import annotations

import datetime as dt

import pytest

from kakeibo.core.billing import LAST_DAY, Billing
from kakeibo.core.statements import (
    FileRow,
    LedgerSlip,
    debit_names,
    differences,
    names_card,
    paying_cycle,
    squash,
    statement_cycle,
)

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


# ---- the cycle a card's file is the statement of, and how it differs ------------------------------


def test_the_cycle_is_the_one_paid_on_the_date_the_file_names() -> None:
    cycle = statement_cycle(JCB, payment_date="2027-01-12", payment_month=None, dates=["2026-08-02"])
    assert cycle is not None and cycle.closing_date == dt.date(2026, 12, 15)


def test_a_date_the_shift_does_not_reach_is_taken_as_the_scheduled_day() -> None:
    cycle = statement_cycle(JCB, payment_date="2027-01-10", payment_month=None, dates=[])
    assert cycle is not None and cycle.closing_date == dt.date(2026, 12, 15)


def test_else_the_cycle_paid_in_the_month_the_file_names() -> None:
    cycle = statement_cycle(RAKUTEN, payment_date=None, payment_month="2026-12", dates=[])
    assert cycle is not None and cycle.closing_date == dt.date(2026, 11, 30)


def test_else_the_cycle_most_of_its_rows_fall_in() -> None:
    dates = ["2026-10-30", "2026-11-02", "2026-11-20", "2026-11-28"]
    cycle = statement_cycle(RAKUTEN, payment_date=None, payment_month=None, dates=dates)
    assert cycle is not None and cycle.closing_date == dt.date(2026, 11, 30)
    assert statement_cycle(RAKUTEN, payment_date=None, payment_month=None, dates=[]) is None


def test_the_differences_of_a_file_and_the_ledger() -> None:
    # Given a cycle of November, the file's rows and what the ledger holds
    cycle = paying_cycle(RAKUTEN, dt.date(2026, 12, 27))
    assert cycle is not None
    rows = [
        FileRow(2, "S1", "2026-11-03", 3980, "AMAZON"),  # as the ledger holds it
        FileRow(3, "S2", "2026-11-05", 1590, "NETFLIX"),  # edited here to 1,500
        FileRow(4, "S3", "2026-10-28", 1051, "ローソン"),  # dated in October's cycle
        FileRow(5, "S4", "2026-11-10", 2480, "マルエツ"),  # not imported
    ]
    ledger = {
        "S1": LedgerSlip("S1", "2026-11-03", 3980, "AMAZON"),
        "S2": LedgerSlip("S2", "2026-11-05", 1500, "NETFLIX"),
        "S3": LedgerSlip("S3", "2026-10-28", 1051, "ローソン"),
    }
    in_cycle = [ledger["S1"], ledger["S2"], LedgerSlip("H1", "2026-11-15", 700, "書店")]
    # Then each difference is named with its reason
    found = [(d["reason"], d["line"], d["slip_id"]) for d in differences(rows, ledger, in_cycle, cycle)]
    assert found == [
        ("amount", 3, "S2"),
        ("outside_period", 4, "S3"),
        ("not_in_ledger", 5, "S4"),
        ("not_in_file", None, "H1"),
    ]
