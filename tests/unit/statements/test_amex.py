"""アメリカン・エキスプレス over its sample: UTF-8, CRLF; the card's own payment row; foreign currency."""

from __future__ import annotations

from tests.unit.statements.reading import entry, read, rows, sample, skipped


def test_every_row_of_the_sample() -> None:
    statement = sample("amex.csv")
    assert (statement.format, statement.layout, statement.kind) == ("amex", "members", "card")
    assert rows(statement) == [
        (2, "2026-10-06", 16746, "アマゾン\u3000ＪＰ\u3000マーケットプレイス", "expense"),
        (4, "2026-10-11", 2332, "イトーヨーカドー\u3000専門店", "expense"),
        (5, "2026-10-15", 31420, "HOTEL XYZ NEW YORK", "expense"),
        (6, "2026-10-20", 799, "アマゾン\u3000ＪＰ\u3000マーケットプレイス", "income"),
    ]


def test_the_cards_own_payment_is_skipped_as_a_payment() -> None:
    # 前回分口座振替金額: the bank's debit as the card received it; the daily job posts that transfer
    assert skipped(sample("amex.csv")) == [(1, "header"), (3, "payment")]


def test_dated_by_the_use_not_the_processing() -> None:
    assert entry(sample("amex.csv"), 4).date == "2026-10-11"  # データ処理日 2026/10/14


def test_a_foreign_currency_row_keeps_its_local_amount() -> None:
    assert entry(sample("amex.csv"), 5).local_amount == "200.00 USD (換算レート 157.100)"


def test_the_layout_without_member_columns() -> None:
    text = "ご利用日,データ処理日,ご利用内容,金額,海外通貨利用金額,換算レート\n"
    text += "2026/11/01,2026/11/02,スターバックス,600,,\n"
    statement = read(text.encode("cp932"))
    assert statement.layout == "plain"
    assert rows(statement) == [(2, "2026-11-01", 600, "スターバックス", "expense")]
