"""ゆうちょ銀行 (ゆうちょダイレクト) over its sample: Shift_JIS, seven preamble lines, 入出金明細ＩＤ."""

from __future__ import annotations

from tests.unit.statements.reading import entry, ids, read, rows, sample, sample_bytes, skipped


def test_every_row_of_the_sample() -> None:
    statement = sample("yucho.csv")
    assert (statement.format, statement.layout, statement.kind) == ("yucho", "direct", "bank")
    assert rows(statement) == [
        (9, "2026-11-01", 3, "受取利子", "income"),
        (10, "2026-11-05", 1000, "ヤマダ\u3000タロウ", "expense"),
        (11, "2026-11-10", 6000, "ＮＨＫ", "expense"),
        (12, "2026-11-25", 250000, "カ）サンプルシヨウジ", "income"),
    ]


def test_the_preamble_is_skipped_and_reported() -> None:
    assert skipped(sample("yucho.csv")) == [*((n, "preamble") for n in range(1, 8)), (8, "header")]


def test_the_kind_is_the_memo_when_the_other_party_is_the_payee() -> None:
    assert entry(sample("yucho.csv"), 11).memo == "料\u3000金"


def test_the_row_id_is_the_identity() -> None:
    # Given the same row in another download, at another line, with another text
    statement = sample("yucho.csv")
    other = read(sample_bytes("yucho.csv").replace("ＮＨＫ".encode("cp932"), "ＮＨＫ受信料".encode("cp932")))
    # Then its identity is its 入出金明細ＩＤ's: the same slip, whatever else changed
    assert entry(statement, 11).external_id == "202611100000001"
    assert ids(other, "bank")[11] == ids(statement, "bank")[11]
