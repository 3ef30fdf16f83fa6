"""住信SBIネット銀行 over its sample: Shift_JIS, quoted, newest first; メモ `-`."""

from __future__ import annotations

from tests.unit.statements.reading import entry, rows, sample


def test_every_row_of_the_sample() -> None:
    statement = sample("sbi_sumishin.csv")
    assert (statement.format, statement.layout, statement.kind) == ("sbi_sumishin", "netbk", "bank")
    assert rows(statement) == [
        (2, "2026-11-26", 40000, "振込＊ヤマダ\u3000タロウ", "income"),
        (3, "2026-11-11", 35000, "ＡＴＭ\u3000イーネット", "expense"),
        (4, "2026-11-01", 1, "利息", "income"),
    ]


def test_a_placeholder_memo_is_no_memo() -> None:
    assert entry(sample("sbi_sumishin.csv"), 2).memo is None
