"""三井住友銀行 over its samples: dates in the Japanese era (和暦) and the current Western layout."""

from __future__ import annotations

from tests.unit.statements.reading import entry, rows, sample


def test_every_row_of_the_era_sample() -> None:
    statement = sample("smbc_bank.csv")
    assert (statement.format, statement.layout, statement.kind) == ("smbc_bank", "era", "bank")
    assert rows(statement) == [
        (2, "2026-11-04", 5000, "振込\u3000カ－ドキヤマ\u3000クロ", "income"),
        (3, "2026-11-06", 15900, "カード振込\u3000ｶﾞｸ)", "expense"),
        (4, "2026-11-26", 12000, "ミツイスミトモカ－ド\u3000（カ", "expense"),
    ]


def test_every_row_of_the_current_sample() -> None:
    statement = sample("smbc_bank_current.csv")
    assert statement.layout == "current"
    assert rows(statement) == [
        (2, "2026-11-04", 5000, "振込\u3000ヤマダ\u3000タロウ", "income"),
        (3, "2026-11-06", 15900, "カード\u3000ＳＭＢＣ", "expense"),
    ]
    assert entry(statement, 3).memo == "学費"
