"""Reading and writing slip CSV files (pure): encodings, header, row rules, line numbers, row ids."""

from __future__ import annotations

import pytest

from kakeibo import csvio, errors
from kakeibo.services.slips import _valid_key

HEADER = "date,kind,amount,account,to_account,category,memo,external_id\n"


def test_utf8_with_and_without_bom_and_crlf_are_one_file() -> None:
    # Given the same rows as UTF-8, UTF-8 with BOM and CRLF, and Shift_JIS
    text = HEADER + "2026-11-03,expense,1200,cash,,食費,ランチ,\n"
    variants = [
        text.encode("utf-8"),
        b"\xef\xbb\xbf" + text.encode("utf-8"),
        text.replace("\n", "\r\n").encode("utf-8"),
        text.encode("cp932"),
    ]
    # When each is parsed without a charset
    parsed = [csvio.parse(data) for data in variants]
    # Then they are the same file with the same row, and the encoding was detected
    assert {p.sha256 for p in parsed} == {parsed[0].sha256}
    assert [p.encoding for p in parsed] == ["utf-8", "utf-8", "utf-8", "shift_jis"]
    assert {p.valid[0].slip_id for p in parsed} == {parsed[0].valid[0].slip_id}
    row = parsed[3].valid[0].slip
    assert (row.category, row.memo, row.amount) == ("食費", "ランチ", 1200)


def test_shift_jis_named_by_the_charset_parameter_including_cp932_only_characters() -> None:
    # Given a bank-style file in CP932 with characters plain Shift_JIS lacks (①, ㈱, ～)
    text = HEADER + "2026-11-03,expense,3300,bank,,日用品,①㈱ドラッグ～セール,\n"
    data = text.encode("cp932")
    for name in ("shift_jis", "Shift-JIS", "sjis", "windows-31j", "cp932", "MS932"):
        # When it is declared under any of the names banks and browsers use
        parsed = csvio.parse(data, name)
        # Then it is read exactly
        assert parsed.encoding == "shift_jis"
        assert parsed.valid[0].slip.memo == "①㈱ドラッグ～セール"


def test_declared_charset_that_does_not_match_is_400() -> None:
    data = (HEADER + "2026-11-03,expense,1200,cash,,食費,ランチ,\n").encode("cp932")
    with pytest.raises(errors.BadRequest, match="not valid utf-8"):
        csvio.parse(data, "utf-8")


def test_undetectable_bytes_are_400() -> None:
    with pytest.raises(errors.BadRequest, match="neither UTF-8 nor Shift_JIS"):
        csvio.parse(HEADER.encode() + b"\x80\xff\xfe\x81\x00")


@pytest.mark.parametrize("charset", ["latin-1", "utf-16", "euc-jp", "no-such-charset"])
def test_other_charsets_are_415(charset: str) -> None:
    with pytest.raises(errors.UnsupportedMediaType):
        csvio.parse(HEADER.encode(), charset)


@pytest.mark.parametrize(
    ("content_type", "charset"),
    [
        ("text/csv", None),
        ("text/csv; charset=Shift_JIS", "Shift_JIS"),
        ('text/csv;charset="utf-8"', "utf-8"),
        ("text/csv; header=present; charset=cp932", "cp932"),
        (None, None),
    ],
)
def test_charset_parameter(content_type: str | None, charset: str | None) -> None:
    assert csvio.charset_of(content_type) == charset


@pytest.mark.parametrize(
    ("header", "problem"),
    [
        ("date,kind,amount,account,category,memo", "missing to_account"),
        ("date,kind,amount,account,to_account,category,memo,note", "unknown 'note'"),
        ("date,kind,amount,account,to_account,category,memo,memo", "repeated"),
        ("日付,種類,金額,口座,振替先,分類,メモ", "missing date"),
    ],
)
def test_a_wrong_header_refuses_the_whole_file(header: str, problem: str) -> None:
    with pytest.raises(errors.ValidationFailed, match=problem):
        csvio.parse(f"{header}\n2026-11-03,expense,1,cash,,,,\n".encode())


def test_an_empty_file_is_refused() -> None:
    with pytest.raises(errors.ValidationFailed, match="empty"):
        csvio.parse(b"\n\n")


def test_header_in_any_order_and_case_external_id_optional() -> None:
    data = "Memo, Amount ,KIND,date,account,to_account,category\nおにぎり,150,expense,2026-11-03,cash,,\n"
    parsed = csvio.parse(data.encode())
    assert not parsed.errors
    slip = parsed.valid[0].slip
    assert (slip.memo, slip.amount, slip.kind, slip.category, slip.external_id) == (
        "おにぎり",
        150,
        "expense",
        None,
        None,
    )


def test_invalid_rows_are_reported_by_line_and_the_rest_are_kept() -> None:
    # Given a file with good rows among bad ones (line 1 is the header; line 4 is blank)
    text = (
        HEADER
        + "2026-11-03,expense,1200,cash,,食費,ランチ,\n"  # 2 ok
        + "2026-02-30,expense,100,cash,,,,\n"  # 3 impossible date
        + "\n"  # 4 blank: ignored
        + "2026-11-04,expense,-5,cash,,,,\n"  # 5 negative amount
        + "2026-11-04,expense,1.5,cash,,,,\n"  # 6 float
        + "2026-11-04,refund,100,cash,,,,\n"  # 7 unknown kind
        + "2026-11-04,transfer,100,cash,,,,\n"  # 8 transfer without to_account
        + "2026-11-04,transfer,100,cash,cash,,,\n"  # 9 transfer to itself
        + "2026-11-04,expense,100,ca#sh,,,,\n"  # 10 forged account id
        + "2026-11-04,expense,100,cash,,a#b,,\n"  # 11 category breaking the key layout
        + '2026-11-05,income,"250,000",bank,,給与,"11月分\n給与",\n'  # 12-13 ok, quoted newline
        + "2026-11-06,expense,100,cash\n"  # 14 too few fields
        + "2026-11-06,expense,１２００,cash,,,,\n"  # 15 ok: full-width digits
        + "2026-11-06,expense,,cash,,,,\n"  # 16 amount missing
        + f"2026-11-06,expense,{10**13},cash,,,,\n"  # 17 too large
        + "2026-11-06,expense,100,cash,,,bell\x07,\n"  # 18 control character in memo
    )
    # When it is parsed
    parsed = csvio.parse(text.encode())
    # Then the good rows are kept with their lines, and each bad one is reported with its line
    assert parsed.rows == 15
    assert [r.line for r in parsed.valid] == [2, 12, 15]
    assert parsed.valid[1].slip.memo == "11月分\n給与" and parsed.valid[1].slip.amount == 250000
    messages = {e.line: e.message for e in parsed.errors}
    assert sorted(messages) == [3, 5, 6, 7, 8, 9, 10, 11, 14, 16, 17, 18]
    assert "date" in messages[3] and "calendar" in messages[3]
    assert messages[5].startswith("amount") and messages[6].startswith("amount")
    assert messages[7].startswith("kind")
    assert "to_account" in messages[8] and "differ" in messages[9]
    assert messages[10].startswith("account") and messages[11].startswith("category")
    assert messages[14] == "expected 8 fields, found 4"
    assert messages[16] == "amount is required"
    assert messages[17].startswith("amount") and messages[18].startswith("memo")


def test_trailing_empty_cells_are_ignored_but_extra_values_are_not() -> None:
    text = HEADER + "2026-11-03,expense,100,cash,,,,,,\n2026-11-03,expense,100,cash,,,,,x\n"
    parsed = csvio.parse(text.encode())
    assert [r.line for r in parsed.valid] == [2]
    assert parsed.errors == [csvio.RowError(3, "expected 8 fields, found 9")]


def test_identical_rows_get_distinct_ids_and_a_rerun_gets_the_same_ids() -> None:
    # Given the same coffee twice on one day
    text = HEADER + "2026-11-03,expense,300,cash,,カフェ,コーヒー,\n" * 2
    first, again = csvio.parse(text.encode()), csvio.parse(text.encode())
    ids = [r.slip_id for r in first.valid]
    # Then they are two rows with two ids, the same each time the file is read
    assert len(set(ids)) == 2
    assert ids == [r.slip_id for r in again.valid]
    assert all(_valid_key("2026-11-03", i) for i in ids)
    # And a different file gives its rows other ids
    other = csvio.parse((text + "2026-11-04,expense,1,cash,,,,\n").encode())
    assert not set(ids) & {r.slip_id for r in other.valid}


@pytest.mark.parametrize(
    ("external_id", "kept", "legacy"),
    [
        ("01KAJ0000000000000000000AB", True, True),  # a generated slip id, as exports write it
        ("TX20261103001", False, True),  # a valid slip id: it was the slip id before namespacing
        ("Q2B3XK7FRAM5WZ4YHNJQ6D2V3A", False, True),  # shaped like a recurrence's or a key's slip id
        ("smbc-2026-11-03/001", False, False),
        ("振込-001", False, False),
        ("x" * 65, False, False),
    ],
)
def test_external_id_gives_the_slip_id(external_id: str, kept: bool, legacy: bool) -> None:
    text = HEADER + f"2026-11-03,expense,300,cash,,,,{external_id}\n"
    (row,) = csvio.parse(text.encode()).valid
    # Then the slip id is the external_id only when it is a generated id (a ULID); any other is
    # hashed into the import's own namespace
    assert (row.slip_id == external_id) is kept
    assert kept or (row.slip_id.startswith("U") and len(row.slip_id) == 27)
    assert _valid_key("2026-11-03", row.slip_id)
    # And an external_id that is a slip id is kept as the id an earlier import may have used
    assert row.legacy_id == (external_id if legacy else None)
    # And it does not depend on the file or the line
    moved = HEADER + "2026-11-01,income,1,cash,,,,\n" + f"2026-11-03,expense,300,cash,,,,{external_id}\n"
    assert csvio.parse(moved.encode()).valid[1].slip_id == row.slip_id


def test_a_repeated_external_id_in_one_file_is_a_row_error() -> None:
    text = HEADER + "2026-11-03,expense,300,cash,,,,A1\n2026-11-04,expense,500,cash,,,,A1\n"
    parsed = csvio.parse(text.encode())
    assert [r.line for r in parsed.valid] == [2]
    assert parsed.errors == [csvio.RowError(3, "external_id 'A1' repeats line 2")]


def test_export_lines_read_back_as_the_same_slips() -> None:
    # Given slips as the API shows them, with commas, quotes and newlines in the memo
    slips = [
        {"id": "01KAJ0000000000000000000AB", "date": "2026-11-03", "kind": "expense", "amount": 1200,
         "account": "cash", "to_account": None, "category": "食費", "memo": 'a, "b"\nc'},
        {"id": "01KAJ0000000000000000000AC", "date": "2026-11-04", "kind": "transfer", "amount": 3000,
         "account": "cash", "to_account": "suica", "category": None, "memo": None},
    ]  # fmt: skip
    # When they are written and read back
    text = csvio.header_line() + "".join(csvio.slip_line(s) for s in slips)
    parsed = csvio.parse(text.encode())
    # Then every field survives and the ids are the slip ids
    assert not parsed.errors
    for row, slip in zip(parsed.valid, slips, strict=True):
        assert row.slip_id == row.legacy_id == slip["id"]
        for name in ("date", "kind", "amount", "account", "to_account", "category", "memo"):
            assert getattr(row.slip, name) == slip[name]


@pytest.mark.parametrize(
    "memo",
    [
        '"never closed',  # open to the end of the file
        '"closed later',  # closed by a quote a few lines down
    ],
)
def test_a_stray_quote_refuses_the_file_instead_of_swallowing_rows(memo: str) -> None:
    # Given a memo whose quote is not closed on its own line
    lines = [HEADER.strip(), f"2026-01-01,expense,1,cash,,食費,{memo},", "2026-01-02,expense,2,cash,,食費,b,"]
    if memo.startswith('"closed'):
        lines.append('2026-01-03,expense,3,cash,,食費,"c"d"')
    lines.append("2026-01-04,expense,4,cash,,食費,d")
    # When it is parsed, Then the whole file is refused with the line of the quote — no row vanishes
    with pytest.raises(errors.BadRequest) as raised:
        csvio.parse(("\n".join(lines) + "\n").encode(), None)
    assert raised.value.detail.startswith("line 2:")


def test_a_memo_with_a_line_break_and_a_date_reads_back_as_written() -> None:
    # Given an exported slip whose memo holds a newline followed by date-like text
    memo = "立替分\n2026-11-10, 返済予定"
    slip = {"id": "S1", "date": "2026-11-03", "kind": "expense", "amount": 1200, "account": "cash", "memo": memo}
    text = csvio.header_line() + csvio.slip_line(slip) + csvio.slip_line({**slip, "id": "S2", "memo": "次"})
    # When it is parsed again
    parsed = csvio.parse(text.encode(), None)
    # Then both rows are there, the memo intact, and the second row keeps its own line
    assert parsed.errors == []
    assert [(r.line, r.slip.memo, r.legacy_id) for r in parsed.valid] == [(2, memo, "S1"), (4, "次", "S2")]


FORMULA_LIKE = [
    '=HYPERLINK("http://evil","x")',
    "+cmd|calc!A0",
    "-5% 値引き",  # a legitimate leading minus
    "-1200",
    "@SUM(A1:A9)",
    "'quoted",  # a leading quote of the user's own
    "''=x",
    "'=x",
    "a=b",
]


@pytest.mark.parametrize("text", FORMULA_LIKE)
def test_export_neutralises_formula_cells_and_reads_them_back_exactly(text: str) -> None:
    # Given a slip whose category and memo a spreadsheet could take for a formula
    slip = {"id": "S1", "date": "2026-11-03", "kind": "expense", "amount": 1200, "account": "cash",
            "category": text, "memo": text}  # fmt: skip
    # When it is exported
    exported = csvio.header_line() + csvio.slip_line(slip)
    # Then no cell starts with = + - @, TAB or CR (OWASP's CSV injection rule)
    (_, (_, fields)) = list(csvio.records(exported))
    assert not [f for f in fields if f[:1] in ("=", "+", "-", "@", "\t", "\r")]
    # And importing the export gives back exactly what was written
    (row,) = csvio.parse(exported.encode()).valid
    assert (row.slip.category, row.slip.memo) == (text, text)


def test_a_hand_made_file_keeps_its_leading_quotes_and_minus_signs() -> None:
    # Given a file not written by the export: a memo starting with a quote, one with a minus
    text = HEADER + "2026-11-03,expense,300,cash,,食費,'76 ヴィンテージ,\n2026-11-04,expense,300,cash,,食費,-割引後,\n"
    # When it is read, Then the cells are as written
    assert [r.slip.memo for r in csvio.parse(text.encode()).valid] == ["'76 ヴィンテージ", "-割引後"]


SPLIT_HEADER = "date,kind,amount,account,to_account,category,memo,external_id,subcategory,line,slip_memo\n"


def test_rows_of_a_split_slip_become_one_slip() -> None:
    text = (
        SPLIT_HEADER
        + "2026-11-14,expense,1800,cash,,食費,,S1,食料品,1,スーパー\n"
        + "2026-11-14,expense,900,cash,,日用品,,S1,,2,スーパー\n"
    )
    parsed = csvio.parse(text.encode())
    (row,) = parsed.valid
    assert parsed.errors == [] and row.line == 2 and row.slip.amount == 2700 and row.slip.memo == "スーパー"
    assert parsed.rows == 1  # one slip: one outcome of the import (created, skipped or refused)
    assert [(line.amount, line.category, line.subcategory) for line in row.slip.lines or []] == [
        (1800, "食費", "食料品"),
        (900, "日用品", None),
    ]


def test_split_rows_that_do_not_make_a_slip_are_row_errors() -> None:
    cases = [
        # no external_id
        "2026-11-14,expense,1800,cash,,食費,,,食料品,1,\n2026-11-14,expense,900,cash,,日用品,,,,2,\n",
        "2026-11-14,expense,1800,cash,,食費,,S1,,1,\n2026-11-14,expense,900,cash,,日用品,,S1,,3,\n",  # 1, 3
        "2026-11-14,expense,1800,cash,,食費,,S1,,1,\n2026-11-15,expense,900,cash,,日用品,,S1,,2,\n",  # two dates
        "2026-11-14,expense,1800,cash,,食費,,S1,,1,\n",  # one line only
        "2026-11-14,expense,1800,cash,,食費,,S1,,x,\n",  # not a number
    ]
    for rows in cases:
        parsed = csvio.parse((SPLIT_HEADER + rows).encode())
        assert parsed.valid == [] and parsed.errors, rows
        assert parsed.rows == len(parsed.errors), rows  # each refusal is one outcome, nothing left over


def test_medical_and_donation_columns_read_back_as_the_same_slips() -> None:
    # Given a medical payment, a donation and a split receipt with one medical line, as the API shows them
    hospital = {"patient": "taro", "provider": "中央病院", "kind": "treatment", "reimbursed": 30_000, "otc": False}
    otc = {"patient": "hanako", "provider": "ドラッグストア", "kind": "medicine", "reimbursed": 0, "otc": True}
    slips = [
        {"id": "01KAJ0000000000000000000AB", "date": "2026-05-20", "kind": "expense", "amount": 150_000,
         "account": "cash", "category": "医療費", "medical": hospital},
        {"id": "01KAJ0000000000000000000AC", "date": "2026-11-01", "kind": "expense", "amount": 10_000,
         "account": "cash", "category": "寄附", "donation": {"municipality": "北海道紋別市", "one_stop": True}},
        {"id": "01KAJ0000000000000000000AD", "date": "2026-03-10", "kind": "expense", "amount": 5000,
         "account": "cash", "memo": "ドラッグストア", "lines": [
             {"amount": 3000, "category": "日用品"}, {"amount": 2000, "category": "医療費", "medical": otc}]},
    ]  # fmt: skip
    # When they are written with the tax columns and read back
    text = csvio.header_line(subcategory=True, lines=True, tax=True)
    text += "".join(csvio.slip_line(s, lines=True, tax=True) for s in slips)
    assert text.splitlines()[0].endswith(",".join((*csvio.TAX_COLUMNS, *csvio.CLEARED_COLUMNS)))
    parsed = csvio.parse(text.encode())
    # Then each keeps its medical payment (the split slip: on its line) and its donation
    assert parsed.errors == []
    got = {row.slip_id: row.slip for row in parsed.valid}
    assert got["01KAJ0000000000000000000AB"].medical.model_dump() == hospital  # type: ignore[union-attr]
    assert got["01KAJ0000000000000000000AB"].donation is None
    assert got["01KAJ0000000000000000000AC"].donation.model_dump() == slips[1]["donation"]  # type: ignore[union-attr]
    assert got["01KAJ0000000000000000000AC"].medical is None
    split = got["01KAJ0000000000000000000AD"]
    assert split.medical is None
    assert [line.medical.model_dump() if line.medical else None for line in split.lines or []] == [None, otc]


@pytest.mark.parametrize(
    ("cells", "problem"),
    [
        ("taro,病院,massage,0,false,,", "medical.kind"),
        ("taro,病院,treatment,-1,false,,", "medical_reimbursed"),
        ("taro,病院,treatment,2000,false,,", "medical.reimbursed (2000) cannot be more than the amount paid (1000)"),
        ("taro,病院,treatment,0,maybe,,", "medical_otc: must be true or false"),
        (",,,,,町,perhaps", "donation_one_stop: must be true or false"),
    ],
    ids=["unknown-kind", "reimbursed-below-0", "reimbursed-over-amount", "otc-not-a-flag", "one-stop-not-a-flag"],
)
def test_a_bad_medical_or_donation_cell_is_a_row_error_naming_it(cells: str, problem: str) -> None:
    header = HEADER.strip() + "," + ",".join(csvio.TAX_COLUMNS) + "\n"
    parsed = csvio.parse((header + "2026-05-20,expense,1000,cash,,医療費,,A1," + cells + "\n").encode())
    assert parsed.valid == []
    (error,) = parsed.errors
    assert problem in error.message, error.message


def test_each_sides_state_is_written_and_read_back_reconciled_as_cleared() -> None:
    # Given a cleared expense, a reconciled one and a transfer cleared on its paying side only
    slips = [
        {"id": "01HZZZZZZZZZZZZZZZZZZZZZZA", "date": "2026-11-02", "kind": "expense", "amount": 300, "account": "bank",
         "category": "食費", "cleared": "cleared", "to_cleared": None},
        {"id": "01HZZZZZZZZZZZZZZZZZZZZZZB", "date": "2026-11-03", "kind": "expense", "amount": 400, "account": "bank",
         "category": "食費", "cleared": "reconciled", "to_cleared": None},
        {"id": "01HZZZZZZZZZZZZZZZZZZZZZZC", "date": "2026-11-04", "kind": "transfer", "amount": 500,
         "account": "bank", "to_account": "cash", "cleared": "cleared", "to_cleared": "uncleared"},
    ]  # fmt: skip
    # When they are written and read back
    text = csvio.header_line() + "".join(csvio.slip_line(s) for s in slips)
    parsed = csvio.parse(text.encode())
    # Then the header names them, and each side reads back as it was (reconciled as cleared)
    assert text.splitlines()[0].endswith(",external_id,cleared,to_cleared")
    assert parsed.errors == []
    assert [(r.slip.cleared, r.slip.to_cleared) for r in parsed.valid] == [
        ("cleared", None),
        ("cleared", None),
        ("cleared", "uncleared"),
    ]


def test_a_cleared_cell_the_model_does_not_know_is_a_row_error_naming_the_column() -> None:
    # Given a row whose cleared cell says neither uncleared nor cleared
    text = HEADER.rstrip("\n") + ",cleared\n2026-11-03,expense,300,cash,,食費,,EXT1,済\n"
    # When it is read, then that row is refused naming the column
    parsed = csvio.parse(text.encode())
    assert parsed.valid == [] and "cleared" in parsed.errors[0].message, parsed.errors
