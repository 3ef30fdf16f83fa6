"""楽天カード (e-NAVI ご利用明細) over its sample: UTF-8 with a BOM, every cell quoted, CRLF."""

from __future__ import annotations

from tests.unit.statements.reading import entry, ids, read, rows, sample, sample_bytes, skipped

HEADER = (
    '"利用日","利用店名・商品名","利用者","支払方法","利用金額","支払手数料","支払総額","12月支払金額","当月請求額",'
    '"1月繰越残高","新規サイン"'
)


def test_every_row_of_the_sample() -> None:
    # Given 楽天カード's closed statement
    statement = sample("rakuten_card.csv")
    # Then it is recognised, and each row is a slip by its 利用日
    assert (statement.format, statement.layout, statement.kind, statement.encoding) == (
        "rakuten_card",
        "closed",
        "card",
        "utf-8",
    )
    assert rows(statement) == [
        (2, "2026-10-28", 1051, "ローソン\u3000銀座店", "expense"),
        (3, "2026-11-03", 3980, "AMAZON.CO.JP", "expense"),
        (4, "2026-11-05", 1590, "NETFLIX.COM利用国USA", "expense"),
        (6, "2026-09-15", 22000, "ビックカメラ\u3000有楽町店", "expense"),
        (7, "2026-11-10", 2480, "ｽｰﾊﾟｰ ﾏﾙｴﾂ", "expense"),
        (10, "2026-11-12", 1200, "AMAZON.CO.JP", "income"),
    ]
    assert statement.errors == []
    assert skipped(statement) == [(1, "header"), (5, "note"), (8, "blank"), (9, "section")]


def test_the_local_amount_line_belongs_to_the_row_before_it() -> None:
    # Given a foreign-currency row followed by its dateless 現地利用額 line
    statement = sample("rakuten_card.csv")
    # Then the row is the yen charged, its local amount and rate kept
    netflix = entry(statement, 4)
    assert (netflix.amount, netflix.local_amount) == (1590, "USD 9.99")
    assert netflix.memo == "現地通貨 USD 9.99 (変換レート 159.159円)"


def test_an_installment_is_its_months_payment() -> None:
    # Given a 分割（3回） purchase of 66,000 yen, 22,000 of it paid in December
    statement = sample("rakuten_card.csv")
    # Then the slip is the month's payment, its identity the month's too
    camera = entry(statement, 6)
    assert (camera.amount, camera.memo) == (22000, "分割（3回）")
    january = read(sample_bytes("rakuten_card.csv").replace(b'"12\xe6\x9c\x88', b'"1\xe6\x9c\x88'))
    assert ids(january)[6] != ids(statement)[6]  # next month's installment is another slip
    assert ids(january)[2] == ids(statement)[2]  # a one-time charge is the same slip in any month's file


def test_rows_after_the_cancellations_heading_are_refunds() -> None:
    # Given a positive row under ■ご利用キャンセルなど
    statement = sample("rakuten_card.csv")
    # Then it is a refund: income of the card, its effect on the bill negative
    refund = entry(statement, 10)
    assert (refund.kind, refund.refund, refund.signed) == ("income", True, -1200)


def test_a_negative_amount_is_a_refund_anywhere() -> None:
    text = HEADER + '\n"2026/11/12","AMAZON.CO.JP","本人","1回払い","-1200","0","-1200","-1200","","0",""\n'
    statement = read(text.encode("utf-8-sig"))
    assert rows(statement) == [(2, "2026-11-12", 1200, "AMAZON.CO.JP", "income")]


def test_the_statement_names_its_payment_month_and_total() -> None:
    statement = sample("rakuten_card.csv")
    # 12月支払金額 after rows of October and November: paid in December 2026; the column sums to the bill
    assert (statement.payment_month, statement.stated_total) == ("2026-12", 29901)


def test_the_newest_statement_with_its_payment_month_column() -> None:
    # Given the newest (open) layout, with 支払月 and 11月以降請求額
    text = (
        '"利用日","利用店名・商品名","利用者","支払方法","利用金額","手数料/利息","支払総額","支払月","12月支払金額",'
        '"当月請求額","1月繰越残高","1月以降請求額"\n'
        '"2026/11/20","マスター国内利用　MZZ ローソン","本人","1回払い","540","0","540","12月","540","","0",""\n'
    )
    statement = read(text.encode("utf-8-sig"))
    assert statement.layout == "open"
    assert rows(statement) == [(2, "2026-11-20", 540, "マスター国内利用\u3000MZZ ローソン", "expense")]


def test_the_same_file_in_shift_jis_and_lf_reads_the_same() -> None:
    # Given the sample saved again as Shift_JIS with LF line ends
    utf8 = sample("rakuten_card.csv")
    text = sample_bytes("rakuten_card.csv").decode("utf-8-sig").replace("\r\n", "\n")
    again = read(text.encode("cp932"))
    # Then its rows and their identities are the same
    assert rows(again) == rows(utf8)
    assert ids(again) == ids(utf8)
