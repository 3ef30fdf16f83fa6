"""Suica / PASMO as SFCard Viewer exports them, over the sample: Shift_JIS; a card-id line; two columns
of one name (定期, 鉄道会社名); charges and 0-yen rows."""

from __future__ import annotations

from tests.unit.statements.reading import entry, ids, rows, sample, skipped


def test_every_row_of_the_sample() -> None:
    statement = sample("sfcard_viewer.csv")
    assert (statement.format, statement.layout, statement.kind) == ("sfcard_viewer", "sfcardviewer", "ic")
    assert rows(statement) == [
        (3, "2026-11-22", 79, "物販", "expense"),
        (4, "2026-11-21", 473, "JR東 越谷レイクタウン→JR東 板橋", "expense"),
        (5, "2026-11-21", 473, "JR東 板橋→JR東 越谷レイクタウン", "expense"),
        (6, "2026-11-21", 3000, "ｵｰﾄﾁｬｰｼﾞ JR東 板橋", "income"),
    ]


def test_the_card_id_line_and_a_zero_fare_are_skipped() -> None:
    assert skipped(sample("sfcard_viewer.csv")) == [(1, "preamble"), (2, "header"), (7, "zero")]


def test_the_exit_company_is_the_second_column_of_its_name() -> None:
    # 鉄道会社名 appears twice: the entry's, then the exit's
    assert entry(sample("sfcard_viewer.csv"), 4).payee == "JR東 越谷レイクタウン→JR東 板橋"


def test_the_balance_after_a_ride_tells_two_same_fares_apart() -> None:
    statement = sample("sfcard_viewer.csv")
    assert entry(statement, 4).key[-1] == "2054"
    assert len(set(ids(statement, "suica").values())) == 4
