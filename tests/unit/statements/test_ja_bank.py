"""JAバンク over its sample: Shift_JIS, quoted; dates without a year; amounts with CP932's \\ for ¥."""

from __future__ import annotations

import datetime as dt

from tests.unit.statements.reading import entry, rows, sample


def test_every_row_of_the_sample() -> None:
    statement = sample("ja_bank.csv", today=dt.date(2026, 12, 1))
    assert (statement.format, statement.layout, statement.kind) == ("ja_bank", "jabank", "bank")
    assert rows(statement) == [
        (2, "2026-11-05", 7000, "ﾔﾏﾀﾞ ﾀﾛｳ", "income"),
        (3, "2026-11-10", 4600, "NSS", "expense"),
        (4, "2026-11-27", 1200, "ﾐﾂｲｽﾐﾄﾓｶｰﾄﾞ", "expense"),
    ]
    assert entry(statement, 4).memo == "口座振替"


def test_a_day_without_a_year_is_the_latest_not_after_the_import() -> None:
    # Given the file imported on 20 November: 27 November has not come yet this year
    statement = sample("ja_bank.csv", today=dt.date(2026, 11, 20))
    # Then it is last year's 27 November; the days already past are this year's
    assert [e.date for e in statement.entries] == ["2026-11-05", "2026-11-10", "2025-11-27"]


def test_december_rows_imported_in_january_are_last_years() -> None:
    statement = sample("ja_bank.csv", today=dt.date(2027, 1, 3))
    assert {e.date[:4] for e in statement.entries} == {"2026"}
