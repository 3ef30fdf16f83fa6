"""三菱UFJニコス over its sample: Shift_JIS, quoted; 新規利用額 and 今回請求額."""

from __future__ import annotations

from tests.unit.statements.reading import entry, read, rows, sample


def test_every_row_of_the_sample() -> None:
    statement = sample("nicos.csv")
    assert (statement.format, statement.layout, statement.kind) == ("nicos", "current", "card")
    assert rows(statement) == [
        (2, "2026-10-12", 1590, "ﾈｯﾄﾌﾘｯｸｽ", "expense"),
        (3, "2026-10-05", 66000, "ﾋﾞｯｸｶﾒﾗ", "expense"),
        (4, "2026-10-20", 1280, "SPOTIFY", "expense"),
        (5, "2026-10-25", 2000, "ｲｵﾝﾓｰﾙ", "income"),
    ]


def test_an_installment_is_the_whole_use_and_the_bill_sums_this_months_part() -> None:
    statement = sample("nicos.csv")
    assert entry(statement, 3).memo == "3回払い"
    assert statement.stated_total == 1590 + 22000 + 1280 - 2000  # the sum of 今回請求額


def test_a_foreign_currency_row_keeps_its_local_amount() -> None:
    assert entry(sample("nicos.csv"), 4).local_amount == "USD 8.99 (換算レート 142.380)"


def test_the_older_layout_with_its_currency_columns() -> None:
    text = (
        '"利用日","利用者","利用区分","利用内容","新規利用額","今回請求額","支払回数","現地通貨額","通貨","為替相場","備考"\n'
        '"2019/5/1","本人","海外","PAYPAL *STEAM","3200","3200","1","29.99","USD","106.70",""\n'
    )
    statement = read(text.encode("cp932"))
    assert statement.layout == "older"
    assert entry(statement, 2).local_amount == "USD 29.99 (換算レート 106.70)"
