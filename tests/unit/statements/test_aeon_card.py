"""イオンカード over its sample: Shift_JIS; a header with two unnamed columns and a trailing comma."""

from __future__ import annotations

from tests.unit.statements.reading import entry, rows, sample, skipped


def test_every_row_of_the_sample() -> None:
    statement = sample("aeon_card.csv")
    assert (statement.format, statement.layout, statement.kind) == ("aeon_card", "kurashi", "card")
    assert rows(statement) == [
        (2, "2026-10-03", 5400, "イオン\u3000各務原店", "expense"),
        (3, "2026-10-10", 3218, "ｲｵﾝﾈｯﾄｽｰﾊﾟｰ", "expense"),
        (4, "2026-10-15", 1800, "イオンシネマ", "income"),
    ]
    assert skipped(statement) == [(1, "header")]


def test_a_cancelled_use_is_a_refund_with_its_note() -> None:
    cinema = entry(sample("aeon_card.csv"), 4)
    assert (cinema.refund, cinema.memo) == (True, "取消")
