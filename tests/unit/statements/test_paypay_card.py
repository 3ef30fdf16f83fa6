"""PayPayカード over its sample: UTF-8 without a BOM, quoted, LF; unpadded dates."""

from __future__ import annotations

from tests.unit.statements.reading import entry, read, rows, sample, skipped


def test_every_row_of_the_sample() -> None:
    statement = sample("paypay_card.csv")
    assert (statement.format, statement.layout, statement.encoding) == ("paypay_card", "2022", "utf-8")
    assert rows(statement) == [
        (2, "2026-10-29", 3000, "ＰａｙＰａｙ\u3000チャージ", "expense"),
        (3, "2026-10-03", 292, "ﾍﾟｲﾍﾟｲ ﾋﾞｯｸﾞｴｰ", "expense"),
        (4, "2026-09-12", 12000, "ヤマダデンキ", "expense"),
        (5, "2026-10-15", 1500, "ＡＭＡＺＯＮ", "income"),
    ]
    assert skipped(statement) == [(1, "header")]


def test_unpadded_dates_are_read() -> None:
    assert entry(sample("paypay_card.csv"), 3).date == "2026-10-03"  # written 2026/10/3


def test_an_installment_is_its_months_payment() -> None:
    assert entry(sample("paypay_card.csv"), 4).amount == 12000  # of 36,000; 24,000 carried over


def test_the_statement_names_its_payment_date_and_total() -> None:
    statement = sample("paypay_card.csv")
    assert (statement.payment_date, statement.stated_total) == ("2026-11-27", 13792)


def test_the_layout_with_its_payment_method_column() -> None:
    text = (
        '"利用日/キャンセル日","利用店名・商品名","利用者","決済方法","支払区分","利用金額","手数料","当月支払金額",'
        '"翌月以降繰越金額","調整額","当月お支払日"\n'
        '"2026/11/2","セブン－イレブン","本人","Apple Pay","1回","498","0","498","0","0","2026/12/27"\n'
    )
    statement = read(text.encode("utf-8"))
    assert statement.layout == "2024"
    assert rows(statement) == [(2, "2026-11-02", 498, "セブン－イレブン", "expense")]


def test_the_yahoo_japan_card_layout() -> None:
    text = (
        '"利用日","利用店名・商品名","利用者","支払区分","利用金額","手数料","支払総額","当月支払金額","翌月以降繰越金額"\n'
        '"2021/3/2","ヤフオク！","本人","1回","1200","0","1200","1200","0"\n'
    )
    statement = read(text.encode("cp932"))
    assert (statement.format, statement.layout) == ("paypay_card", "yahoo")
    assert rows(statement) == [(2, "2021-03-02", 1200, "ヤフオク！", "expense")]
