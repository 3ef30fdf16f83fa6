"""SBI新生銀行 over its samples: UTF-8 with a BOM, the English header, the older tab-separated file."""

from __future__ import annotations

from tests.unit.statements.reading import read, rows, sample


def test_every_row_of_the_sample() -> None:
    statement = sample("sbi_shinsei.csv")
    assert (statement.format, statement.layout, statement.encoding) == ("sbi_shinsei", "current", "utf-8")
    assert rows(statement) == [
        (2, "2026-11-22", 110, "振込手数料", "expense"),
        (3, "2026-11-22", 20000, "振込\u3000ヤマダ\u3000タロウ", "income"),
        (4, "2026-11-25", 10000, "ＡＴＭ\u3000セブン銀行", "expense"),
    ]


def test_the_tab_separated_download() -> None:
    statement = sample("sbi_shinsei_tsv.csv")
    assert statement.layout == "tsv"
    assert rows(statement) == [
        (2, "2026-11-22", 110, "振込手数料", "expense"),
        (3, "2026-11-25", 10000, "ＡＴＭ\u3000セブン銀行", "expense"),
    ]


def test_the_english_header() -> None:
    text = '"Value Date","Description","Debit","Credit","Balance"\n"2026/11/22","TRANSFER FEE","110","","711"\n'
    statement = read(text.encode("utf-8-sig"))
    assert statement.layout == "english"
    assert rows(statement) == [(2, "2026-11-22", 110, "TRANSFER FEE", "expense")]
