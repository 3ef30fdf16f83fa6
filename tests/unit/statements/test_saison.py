"""セゾンカード (Netアンサー) over its sample: Shift_JIS, a preamble with the bill, cardholder lines."""

from __future__ import annotations

from tests.unit.statements.reading import entry, rows, sample, skipped


def test_every_row_of_the_sample() -> None:
    statement = sample("saison.csv")
    assert (statement.format, statement.layout, statement.kind) == ("saison", "netanswer", "card")
    assert rows(statement) == [
        (7, "2026-10-12", 4780, "西友\u3000吉祥寺店", "expense"),
        (8, "2026-10-20", 5200, "ＥＮＥＯＳ", "expense"),
        (10, "2026-10-25", 1750, "無印良品", "income"),
    ]


def test_the_preamble_gives_the_payment_date_and_the_bill() -> None:
    statement = sample("saison.csv")
    assert (statement.payment_date, statement.stated_total) == ("2026-12-04", 8230)  # 今回ご請求額,0000008230
    assert skipped(statement)[:5] == [(1, "preamble"), (2, "preamble"), (3, "preamble"), (4, "blank"), (5, "header")]


def test_cardholder_lines_are_sections() -> None:
    assert [line for line, reason in skipped(sample("saison.csv")) if reason == "section"] == [6, 9]


def test_a_negative_amount_is_a_refund_with_its_note() -> None:
    muji = entry(sample("saison.csv"), 10)
    assert (muji.kind, muji.memo) == ("income", "返品")
