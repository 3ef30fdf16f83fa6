"""JCB (MyJCB カードご利用代金明細) over its sample: Shift_JIS, quoted, its preamble of totals."""

from __future__ import annotations

from tests.unit.statements.reading import cp932, entry, ids, read, rows, sample, skipped

HEADER = (
    '"ご利用者","カテゴリ","ご利用日","ご利用先など","ご利用金額(￥)","支払区分","今回回数","訂正サイン",'
    '"お支払い金額(￥)","国内／海外","摘要","備考"\n'
)


def test_every_row_of_the_sample() -> None:
    statement = sample("jcb.csv")
    assert (statement.format, statement.layout, statement.kind) == ("jcb", "myjcb", "card")
    assert rows(statement) == [
        (7, "2026-10-17", 880, "ホームセンター\u3000コーナン", "expense"),
        (8, "2026-10-18", 4175, "ＥＮＥＯＳ\u3000ＳＳ", "expense"),
        (9, "2026-08-02", 10475, "エディオン", "expense"),
        (10, "2026-10-20", 1700, "ＡＰＰＬＥ．ＣＯＭ／ＢＩＬＬ", "expense"),
        (11, "2026-10-22", 990, "ユニクロ", "income"),
    ]
    assert statement.errors == []


def test_the_preamble_gives_the_payment_date_and_the_total() -> None:
    statement = sample("jcb.csv")
    assert skipped(statement)[:6] == [(1, "preamble"), (2, "preamble"), (3, "preamble"), (4, "preamble"),
                                      (5, "preamble"), (6, "header")]  # fmt: skip
    assert (statement.payment_date, statement.stated_total) == ("2026-12-10", 16240)
    assert statement.stated_total == sum(e.signed for e in statement.entries)


def test_a_correction_sign_of_cancellation_is_a_refund() -> None:
    refund = entry(sample("jcb.csv"), 11)
    assert (refund.kind, refund.refund) == ("income", True)


def test_an_installment_is_its_months_payment() -> None:
    # Given the 2nd payment of a 分割 3回 purchase of 30,000 yen: 10,475 this month (fees included)
    statement = sample("jcb.csv")
    assert entry(statement, 9).amount == 10475
    third = read(
        cp932(HEADER + '"x","y","2026/08/02","エディオン","30000","分割　３回","３","","10475","国内","",""\n')
    )
    assert ids(third)[2] != ids(statement)[9]


def test_the_refund_note_line_is_skipped_as_a_note() -> None:
    assert skipped(sample("jcb.csv"))[-1] == (12, "note")


def test_the_layout_without_its_preamble_is_read_too() -> None:
    statement = read(cp932(HEADER + '"x","y","2026/11/1","ローソン","300","１回","","","300","国内","",""\n'))
    assert rows(statement) == [(2, "2026-11-01", 300, "ローソン", "expense")]
    assert statement.payment_date is None
