"""楽天銀行 over its sample: Shift_JIS; YYYYMMDD dates; one signed amount column; two layouts."""

from __future__ import annotations

from tests.unit.statements.reading import read, rows, sample


def test_every_row_of_the_sample() -> None:
    statement = sample("rakuten_bank.csv")
    assert (statement.format, statement.layout, statement.kind) == ("rakuten_bank", "current", "bank")
    assert rows(statement) == [
        (2, "2026-11-07", 3146, "振込\u3000ヤマダ\u3000タロウ", "income"),
        (3, "2026-11-27", 3086, "ラクテンカ－ド\u3000サ－ビス", "expense"),
        (4, "2026-11-30", 100, "ATM手数料", "expense"),
    ]


def test_the_older_layout() -> None:
    statement = read("取引日,入出金(円),残高(円),入出金先内容\n20190105,-500,1000,ｺﾝﾋﾞﾆ\n".encode("cp932"))
    assert statement.layout == "older"
    assert rows(statement) == [(2, "2019-01-05", 500, "ｺﾝﾋﾞﾆ", "expense")]
