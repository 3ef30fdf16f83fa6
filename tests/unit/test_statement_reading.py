"""What every card's and bank's statement shares, pure (no database): amounts and dates as the issuers
write them, encodings and line ends, blank and broken lines, and each row's identity — the same row
from any download that has its day is the same slip, in whatever order the downloads come."""

from __future__ import annotations

import datetime as dt
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kakeibo.importformats import issuers
from kakeibo.importformats.statement import file_rows, is_installment, iso_date, yen
from tests.unit.statements.reading import SAMPLES, cp932, ids, read, rows, sample_bytes, skipped

SUMISHIN = '"日付","内容","出金金額(円)","入金金額(円)","残高(円)","メモ"\n'


@pytest.mark.parametrize(
    ("written", "amount"),
    [
        ("1200", 1200),
        ("1,200", 1200),
        ("１，２００", 1200),  # full-width digits and comma
        ("¥1,200", 1200),
        ("\\1,200", 1200),  # CP932's yen sign, as JA Bank writes it
        ("￥1,200", 1200),
        ("1,200円", 1200),
        ("-500", -500),
        ("△500", -500),
        ("▲500", -500),
        ("−500", -500),  # a minus sign as spreadsheets write it
        ("0000008230", 8230),  # Saison's zero-padded bill
        ("", None),
        ("-", None),  # a placeholder
    ],
)
def test_amounts_as_the_issuers_write_them(written: str, amount: int | None) -> None:
    assert yen(written, "利用金額") == amount


@pytest.mark.parametrize("written", ["12a", "1.5", "1,20", "--5", "¥"])
def test_an_amount_that_is_no_whole_yen_is_refused_naming_its_column(written: str) -> None:
    with pytest.raises(ValueError, match=r"^利用金額: .* is not a whole number of yen$"):
        yen(written, "利用金額")


@pytest.mark.parametrize(
    ("written", "date"),
    [
        ("2026/1/5", "2026-01-05"),  # unpadded
        ("2026/01/05", "2026-01-05"),
        ("2026-1-5", "2026-01-05"),
        ("20260105", "2026-01-05"),
        ("２０２６／１／５", "2026-01-05"),  # full-width
        ("2026年1月5日", "2026-01-05"),
        ("R08.01.05", "2026-01-05"),  # 令和8年
        ("H30.01.15", "2018-01-15"),  # 平成30年
        ("令和8年1月5日", "2026-01-05"),
        ("2026/01/05 12:30", "2026-01-05"),  # a time after the date
    ],
)
def test_dates_as_the_issuers_write_them(written: str, date: str) -> None:
    assert iso_date(written, "利用日") == date


@pytest.mark.parametrize("written", ["2026/02/30", "2026/13/01", "20261301"])
def test_an_impossible_date_is_refused_naming_its_column(written: str) -> None:
    with pytest.raises(ValueError, match=r"^利用日: .* is not a real date$"):
        iso_date(written, "利用日")


@pytest.mark.parametrize(("method", "split"), [("1回払い", False), ("１回", False), ("001回払い", False),
                                               ("分割（3回）", True), ("003回払い", True), ("リボ", True),
                                               ("10回払い", True), ("分割　３回", True)])  # fmt: skip
def test_what_is_paid_over_months(method: str, split: bool) -> None:
    assert is_installment(method) is split


def test_line_ends_crlf_lf_and_cr_read_alike() -> None:
    body = (
        SUMISHIN + '"2026/11/26","振込＊ヤマダ",,"40,000","45,000","-"\n"2026/11/11","ＡＴＭ","35,000",,"5,000","-"\n'
    )
    read_as = [rows(read(body.replace("\n", end).encode("cp932"))) for end in ("\r\n", "\n", "\r")]
    assert (
        read_as[0]
        == read_as[1]
        == read_as[2]
        == [
            (2, "2026-11-26", 40000, "振込＊ヤマダ", "income"),
            (3, "2026-11-11", 35000, "ＡＴＭ", "expense"),
        ]
    )


def test_utf8_with_or_without_a_bom_and_shift_jis_are_one_file() -> None:
    body = SUMISHIN + '"2026/11/26","振込＊ヤマダ",,"40,000","45,000","-"\n'
    statements = [read(body.encode(codec)) for codec in ("utf-8", "utf-8-sig", "cp932")]
    assert [s.encoding for s in statements] == ["utf-8", "utf-8", "shift_jis"]
    assert len({s.sha256 for s in statements}) == 1
    assert len({tuple(ids(s, "bank").values()) for s in statements}) == 1


def test_blank_lines_are_skipped_and_reported() -> None:
    statement = read(
        cp932(SUMISHIN + '\n"2026/11/26","振込",,"40,000","45,000","-"\n\n"2026/11/27","利息",,"1","45,001","-"\n')
    )
    assert [e.line for e in statement.entries] == [3, 5]
    assert skipped(statement) == [(1, "header"), (2, "blank"), (4, "blank")]


def test_a_file_cut_inside_a_quoted_cell_refuses_that_row_and_keeps_the_rows_before() -> None:
    # Given a download cut in the middle of its last row, inside a quoted cell
    statement = read(cp932(SUMISHIN + '"2026/11/26","振込",,"40,000","45,000","-"\n"2026/11/27","ＡＴ'))
    # Then the rows before it are read, and that row is one row error on its line, in words
    assert rows(statement) == [(2, "2026-11-26", 40000, "振込", "income")]
    assert [(e.line, e.message) for e in statement.errors] == [
        (3, "a quoted cell is not closed: the file is cut or damaged from this line on; download it again")
    ]


def test_a_row_cut_before_its_amount_names_the_column_it_ends_before() -> None:
    statement = read(cp932(SUMISHIN + '"2026/11/26","振込",,"40,000","45,000","-"\n2026/11/27,ＡＴＭ'))
    assert rows(statement) == [(2, "2026-11-26", 40000, "振込", "income")]
    assert [(e.line, e.message) for e in statement.errors] == [
        (3, "出金金額(円): the row ends before this column: the file may be cut here")
    ]


def test_a_row_without_either_amount_says_so() -> None:
    statement = read(cp932(SUMISHIN + '"2026/11/27","ＡＴＭ",,,"44,000","-"\n'))
    assert [(e.line, e.message) for e in statement.errors] == [(2, "出金金額(円), 入金金額(円): the row has no amount")]


def test_a_row_with_a_non_numeric_amount_or_an_impossible_date_is_refused_alone() -> None:
    body = (
        '"2026/11/26","振込",,"4O,000","45,000","-"\n'
        '"2026/11/31","利息",,"1","45,001","-"\n'
        '"2026/11/30","ＡＴＭ","1,000",,"44,001","-"\n'
    )
    statement = read(cp932(SUMISHIN + body))
    assert rows(statement) == [(4, "2026-11-30", 1000, "ＡＴＭ", "expense")]
    assert [(e.line, e.message) for e in statement.errors] == [
        (2, "入金金額(円): '4O,000' is not a whole number of yen"),
        (3, "日付: '2026/11/31' is not a real date"),
    ]


def test_a_line_in_another_encoding_is_refused_and_the_rest_read() -> None:
    # Given a Shift_JIS download with one line pasted in UTF-8 (two files joined)
    data = (
        cp932(SUMISHIN + '"2026/11/26","振込＊ヤマダ",,"40,000","45,000","-"\n')
        + '"2026/11/27","ＡＴＭ　イーネット","1,000",,"44,000","-"\r\n'.encode()
        + cp932('"2026/11/28","利息",,"1","44,001","-"\n')
    )
    statement = read(data)
    # Then that line is a row error saying so; the others are read, in Shift_JIS
    assert statement.encoding == "shift_jis"
    assert [e.line for e in statement.entries] == [2, 4]
    assert [(e.line, e.message) for e in statement.errors] == [
        (3, "this line is in UTF-8 while the file is in Shift_JIS: two files were joined; download it again")
    ]


def test_a_byte_order_mark_in_the_middle_refuses_its_line() -> None:
    body = SUMISHIN + '"2026/11/26","振込",,"40,000","45,000","-"\n'
    statement = read(body.encode("utf-8-sig") + body.encode("utf-8-sig"))  # two downloads joined
    assert [e.line for e in statement.errors] == [3]
    assert "byte-order mark" in statement.errors[0].message
    assert [e.line for e in statement.entries] == [2, 4]


def test_two_identical_purchases_on_one_day_are_two_slips() -> None:
    statement = read(
        cp932(SUMISHIN + '"2026/11/26","ＡＴＭ","1,000",,"45,000","-"\n"2026/11/26","ＡＴＭ","1,000",,"44,000","-"\n')
    )
    assert len(set(ids(statement, "bank").values())) == 2


def test_the_identity_does_not_depend_on_the_rows_order_within_a_day() -> None:
    one = read(cp932(SUMISHIN + '"2026/11/26","ＡＴＭ","1,000",,"","-"\n"2026/11/26","ＡＴＭ","3,000",,"","-"\n'))
    other = read(cp932(SUMISHIN + '"2026/11/26","ＡＴＭ","3,000",,"","-"\n"2026/11/26","ＡＴＭ","1,000",,"","-"\n'))
    by_amount = {e.amount: i for e, i in zip(one.entries, ids(one, "bank").values(), strict=True)}
    assert by_amount == {e.amount: i for e, i in zip(other.entries, ids(other, "bank").values(), strict=True)}


def test_the_identity_is_the_accounts() -> None:
    statement = read(sample_bytes("sbi_sumishin.csv"))
    assert not set(ids(statement, "bank").values()) & set(ids(statement, "savings").values())


def test_the_rows_are_slips_on_the_account_with_the_files_payee() -> None:
    statement = read(sample_bytes("sbi_sumishin.csv"))
    file = file_rows(statement, "bank")
    first = file.valid[0].slip
    assert (first.account, first.payee, first.imported_payee, first.category) == (
        "bank",
        "振込＊ヤマダ\u3000タロウ",
        "振込＊ヤマダ\u3000タロウ",
        None,
    )
    assert file.rows == 3 and file.valid[0].slip_id.startswith("S") and len(file.valid[0].slip_id) == 27


def test_every_format_has_a_sample_and_a_test_file() -> None:
    tests = {p.stem.removeprefix("test_") for p in (SAMPLES.parents[1] / "unit" / "statements").glob("test_*.py")}
    readme = (SAMPLES / "README.md").read_text(encoding="utf-8")
    for fmt in issuers.FORMATS:
        assert fmt.id in tests, fmt.id
        assert any(p.stem.startswith(fmt.id) for p in SAMPLES.glob("*.csv")), fmt.id
        assert f"`{fmt.id}" in readme, fmt.id
        for layout in fmt.layouts:
            assert layout.source, (fmt.id, layout.id)


def test_a_file_of_no_statement_layout_is_not_recognised() -> None:
    text = "日付,内容,金額\n2026/11/01,コンビニ,-500\n"
    assert issuers.recognise(text) is None
    assert [r["format"] for r in issuers.resembles(text)] == ["sbi_sumishin"]  # 日付 and 内容 are its


# ---- overlapping downloads ------------------------------------------------------------------------

DAYS = [dt.date(2026, 11, 1) + dt.timedelta(days=n) for n in range(30)]
SHOPS = ("ＡＭＡＺＯＮ．ＣＯ．ＪＰ", "セブン－イレブン", "ｽｰﾊﾟｰ ﾏﾙｴﾂ")


def _card_file(uses: list[tuple[int, int, int]], lo: int, hi: int, seed: int) -> bytes:
    """A Vpass confirmed download of the uses dated from day lo to day hi, its rows within a day in
    an order of the issuer's own (drawn)."""
    inside = [u for u in uses if lo <= u[0] <= hi]
    random.Random(seed).shuffle(inside)
    inside.sort(key=lambda u: u[0])  # by day, each day's rows in any order
    lines = ["山田　花子　様,4980-00**-****-****,三井住友カード"]
    lines += [f"{DAYS[d]:%Y/%m/%d},{SHOPS[s]},{a},１,１,{a}," for d, s, a in inside]
    return cp932("\n".join(lines) + "\n")


@settings(max_examples=200, deadline=None)
@given(
    uses=st.lists(st.tuples(st.integers(0, 29), st.integers(0, 2), st.sampled_from((100, 500, 980))), max_size=25),
    windows=st.lists(st.tuples(st.integers(0, 29), st.integers(0, 29)), min_size=1, max_size=5),
    seed=st.integers(0, 10**6),
    order=st.randoms(use_true_random=False),
)
def test_any_order_of_overlapping_downloads_gives_the_same_slips(
    uses: list[tuple[int, int, int]], windows: list[tuple[int, int]], seed: int, order: random.Random
) -> None:
    # Given a month of card uses and downloads of overlapping periods of it
    periods = [(min(a, b), max(a, b)) for a, b in windows]
    downloads = [_card_file(uses, lo, hi, seed + n) for n, (lo, hi) in enumerate(periods)]

    def imported(files: list[bytes]) -> dict[str, tuple[str, int, str | None]]:
        """What importing the files in this order leaves: each identity created once, by its first file."""
        slips: dict[str, tuple[str, int, str | None]] = {}
        for data in files:
            for row in file_rows(read(data), "card").valid:
                slips.setdefault(row.slip_id, (row.slip.date, row.slip.amount, row.slip.payee))
        return slips

    # When they are imported in one order and in another
    first = imported(downloads)
    shuffled = list(downloads)
    order.shuffle(shuffled)
    # Then the slips are the same, one per use the downloads cover, as one download of all of it gives
    assert imported(shuffled) == first
    covered = [u for u in uses if any(lo <= u[0] <= hi for lo, hi in periods)]
    assert sorted((d, a, p) for d, a, p in first.values()) == sorted(
        (f"{DAYS[d]:%Y-%m-%d}", a, SHOPS[s]) for d, s, a in covered
    )


def test_a_repeated_issuer_id_refuses_the_second_row() -> None:
    # Given ゆうちょ's download with one 入出金明細ＩＤ on two rows (edited by hand, or two files joined)
    text = (
        "取引日,入出金明細ＩＤ,受入金額（円）,払出金額（円）,詳細１,詳細２,現在（貸付）高,\n"
        "20261101,202611010000001,3,,受取利子,,200003,\n"
        "20261102,202611010000001,,1000,送金,ヤマダ,199003,\n"
    )
    file = file_rows(read(cp932(text)), "bank")
    # Then the second is a row error naming the first, and one slip is left: never two rows on one slip
    assert [r.line for r in file.valid] == [2]
    assert [(e.line, e.message) for e in file.errors] == [(3, "the issuer's id of this row repeats line 2's")]
