"""エポスカード (月別ご利用明細) over its sample: Shift_JIS, a title line, 年月日 dates, totals and notes."""

from __future__ import annotations

from tests.unit.statements.reading import entry, rows, sample, skipped


def test_every_row_of_the_sample() -> None:
    statement = sample("epos.csv")
    assert (statement.format, statement.layout, statement.kind) == ("epos", "monthly", "card")
    assert rows(statement) == [
        (3, "2026-10-01", 3000, "モバイルスイカ", "expense"),
        (4, "2026-10-05", 12000, "マルイ\u3000新宿店", "expense"),
        (5, "2026-10-09", 558, "ハロ－デイ", "expense"),
    ]
    assert statement.errors == []


def test_the_title_line_total_and_note_are_skipped_and_reported() -> None:
    assert skipped(sample("epos.csv")) == [(1, "preamble"), (2, "header"), (6, "total"), (7, "note")]


def test_an_installment_is_the_whole_purchase_its_plan_in_the_memo() -> None:
    # Given a 003回払い row: this file lists uses, not payments
    marui = entry(sample("epos.csv"), 4)
    assert marui.amount == 12000
    assert marui.memo == "003回払い / １回目\u30004,000円 ２回目以降\u30004,000円"


def test_a_placeholder_content_is_no_memo() -> None:
    assert entry(sample("epos.csv"), 3).memo is None  # ご利用内容 written －
