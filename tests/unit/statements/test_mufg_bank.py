"""三菱UFJ銀行 over its sample: Shift_JIS, quoted; unpadded dates; 摘要 and 摘要内容."""

from __future__ import annotations

from tests.unit.statements.reading import entry, read, rows, sample


def test_every_row_of_the_sample() -> None:
    statement = sample("mufg_bank.csv")
    assert (statement.format, statement.layout, statement.kind) == ("mufg_bank", "eco", "bank")
    assert rows(statement) == [
        (2, "2026-11-02", 230090, "カ）サンプル", "income"),
        (3, "2026-11-10", 45252, "ＪＣＢ）セブンカ－ド", "expense"),
        (4, "2026-11-15", 9000, "リヨウキヨク０１７０１", "expense"),
        (5, "2026-11-20", 20, "スーパーフツウ", "income"),
    ]


def test_the_kind_is_the_memo_and_a_text_a_card_name_may_be_in() -> None:
    jcb = entry(sample("mufg_bank.csv"), 3)
    assert jcb.memo == "カード"
    assert jcb.texts == ("ＪＣＢ）セブンカ－ド", "カード")


def test_the_classic_layout_without_quotes() -> None:
    statement = read(
        '日付,摘要,摘要内容,支払い金額,預かり金額,差引残高\n2018/1/9,給料,,,"230,090","414,679"\n'.encode("cp932")
    )
    assert statement.layout == "classic"
    assert rows(statement) == [(2, "2018-01-09", 230090, "給料", "income")]
