"""PayPay銀行 over its sample: Shift_JIS, quoted; the date in three cells; 取引順番号."""

from __future__ import annotations

from tests.unit.statements.reading import entry, ids, read, rows, sample


def test_every_row_of_the_sample() -> None:
    statement = sample("paypay_bank.csv")
    assert (statement.format, statement.layout, statement.kind) == ("paypay_bank", "current", "bank")
    assert rows(statement) == [
        (2, "2026-11-01", 50000, "ローソンATM入金", "income"),
        (3, "2026-11-02", 1980, "Visaデビット\u3000AMAZON", "expense"),
        (4, "2026-11-27", 7644, "ＰＡＹＰＡＹカ－ド", "expense"),
    ]
    assert entry(statement, 3).memo == "日用品"


def test_the_transaction_number_and_date_are_the_identity() -> None:
    statement = sample("paypay_bank.csv")
    assert entry(statement, 4).external_id == "2026-11-27#3"
    header = (
        '"操作日(年)","操作日(月)","操作日(日)","操作時刻(時)","操作時刻(分)","操作時刻(秒)","取引順番号","摘要",'
        '"お支払金額","お預り金額","残高"\n'
    )
    older = read(
        (header + '"2026","11","27","10","00","00","3","ＰＡＹＰＡＹカ－ド","7,644","","40,376"\n').encode("cp932")
    )
    assert older.layout == "jnb"
    assert ids(older, "bank")[2] == ids(statement, "bank")[4]  # the Japan Net Bank layout: the same slip
