"""ビューカード (VIEW's NET) over its sample: Shift_JIS, a preamble, 払戻額, a foreign-currency row."""

from __future__ import annotations

from tests.unit.statements.reading import entry, rows, sample, skipped


def test_every_row_of_the_sample() -> None:
    statement = sample("view_card.csv")
    assert (statement.format, statement.layout, statement.kind) == ("view_card", "viewsnet", "card")
    assert rows(statement) == [
        (8, "2026-10-21", 3000, "板橋駅\u3000オートチャージ", "expense"),
        (9, "2026-10-31", 524, "カード年会費", "expense"),
        (10, "2026-10-15", 3500, "ＡＭＡＺＯＮ．ＣＯＭ", "expense"),
        (11, "2026-10-18", 500, "ＪＲＥ\u3000ＭＡＬＬ", "income"),
    ]


def test_the_preamble_and_the_cardholder_line() -> None:
    statement = sample("view_card.csv")
    assert (statement.payment_date, statement.stated_total) == ("2026-12-04", 6524)  # お支払日,2026年12月04日
    assert skipped(statement)[-2:] == [(6, "header"), (7, "section")]


def test_a_refund_amount_is_a_refund() -> None:
    assert entry(sample("view_card.csv"), 11).refund


def test_a_foreign_currency_row_keeps_its_local_amount() -> None:
    amazon = entry(sample("view_card.csv"), 10)
    assert (amazon.amount, amazon.local_amount) == (3500, "USD 22.50 (換算レート 155.555)")
