"""三井住友カード (Vpass) over its samples: the confirmed statement (per-card blocks, notes, total) and
the unconfirmed one, both Shift_JIS, without a header row."""

from __future__ import annotations

from tests.unit.statements.reading import cp932, entry, ids, read, rows, sample, skipped


def test_every_row_of_the_confirmed_sample() -> None:
    statement = sample("vpass_confirmed.csv")
    assert (statement.format, statement.layout, statement.kind, statement.encoding) == (
        "vpass",
        "confirmed",
        "card",
        "shift_jis",
    )
    assert rows(statement) == [
        (2, "2026-10-19", 300, "ＷＡＯＮ発行手数料", "expense"),
        (3, "2026-10-21", 3197, "ＡＭＡＺＯＮ．ＣＯ．ＪＰ", "expense"),
        (4, "2026-09-05", 10000, "ヨドバシカメラ\u3000通信販売", "expense"),
        (6, "2026-10-25", 340, "ファミリーマート／ｉＤ", "expense"),
        (7, "2026-10-28", 500, "ＡＭＡＺＯＮ．ＣＯ．ＪＰ", "income"),
    ]
    assert statement.errors == []


def test_card_blocks_notes_and_the_total_are_skipped_and_reported() -> None:
    # Given two cards' blocks, the リボ note, a note line and the total line
    statement = sample("vpass_confirmed.csv")
    # Then each block line is a section, the notes notes, the last line the total
    assert skipped(statement) == [(1, "section"), (5, "section"), (8, "note"), (9, "note"), (10, "total")]
    assert statement.stated_total == 13337 == sum(e.signed for e in statement.entries)


def test_an_installment_is_its_months_payment_with_its_number() -> None:
    # Given the 2nd of 3 payments of a 30,000 yen purchase
    statement = sample("vpass_confirmed.csv")
    yodobashi = entry(statement, 4)
    # Then the slip is this month's 10,000; the 3rd payment next month is another slip
    assert (yodobashi.amount, yodobashi.memo) == (10000, "分割 2/3回")
    third = read(
        cp932(
            "山田　花子　様,4980-00**-****-****,三井住友カード\n"
            "2026/09/05,ヨドバシカメラ　通信販売,30000,３,３,10000,\n"
        )
    )
    assert ids(third)[2] != ids(statement)[4]


def test_a_dateless_row_with_an_amount_is_refused_in_words() -> None:
    # Given a discount line Vpass writes without a date
    statement = read(cp932("山田　花子　様,4980-00**-****-****,三井住友カード\n,ＷＥＢ明細書年会費割引,,,,-550,\n"))
    # Then it is a row error naming the column, not a silently dropped credit
    assert [(e.line, e.message.split(":")[0]) for e in statement.errors] == [(2, "ご利用日")]


def test_every_row_of_the_unconfirmed_sample() -> None:
    statement = sample("vpass_unconfirmed.csv")
    assert (statement.format, statement.layout) == ("vpass", "unconfirmed")
    assert rows(statement) == [
        (1, "2026-11-04", 3844, "ＡＭＡＺＯＮ．ＣＯ．ＪＰ", "expense"),
        (2, "2026-11-16", 98, "セブン－イレブン／ｉＤ", "expense"),
        (3, "2026-11-20", 1320, "ＥＴＣ\u3000首都高速", "expense"),
    ]
    assert skipped(statement) == []


def test_a_charge_is_the_same_slip_unconfirmed_and_confirmed_at_another_amount() -> None:
    # Given a pending charge, then the confirmed statement where it settled at another amount
    pending = read(cp932("2026/11/4,ＡＭＡＺＯＮ．ＣＯ．ＪＰ,ご本人,1回払い,,'26/12,3844,3844,,,,,\n"))
    settled = read(
        cp932(
            "山田　花子　様,4980-00**-****-****,三井住友カード\n2026/11/04,ＡＭＡＺＯＮ．ＣＯ．ＪＰ,3600,１,１,3600,\n"
        )
    )
    # Then both rows have one identity (the import finds it `changed`)
    assert ids(pending)[1] == ids(settled)[2]
    assert (entry(pending, 1).amount, entry(settled, 2).amount) == (3844, 3600)
