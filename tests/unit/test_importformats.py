"""Reading Money Forward ME and Zaim exports (pure: no database): detection, each column's
mapping, transfer pairing, row identity, account matching and the ids proposed for new ones."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest

from kakeibo import errors, messages
from kakeibo.csvio import CsvFile
from kakeibo.importformats import accounts, detect, issuers
from kakeibo.importformats.source import NOT_COUNTED, UNKNOWN_COUNTERPART, SourceFile
from kakeibo.models.imports import ImportFormat

MF = "計算対象,日付,内容,金額（円）,保有金融機関,大項目,中項目,メモ,振替,ID\n"
ZAIM = (
    "日付,方法,カテゴリ,カテゴリの内訳,支払元,入金先,品目,メモ,お店,"
    "通貨,収入,支出,振替,残高調整,通貨変換前の金額,集計の設定\n"
)


def read(text: str, encoding: str = "utf-8", fmt: str | None = None) -> SourceFile:
    found = detect.read(text.encode(encoding), None, fmt)
    assert isinstance(found, SourceFile)
    return found


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("date,kind,amount,account,to_account,category,memo", "kakeibo"),
        ("date,kind,amount", "kakeibo"),  # ours, incomplete: our parser says what is missing
        ('"計算対象","日付","内容","金額（円）","保有金融機関","大項目","中項目","メモ","振替","ID"', "mf"),
        ("ID,振替,メモ,中項目,大項目,保有金融機関,金額(円),内容,日付,計算対象", "mf"),  # any order, half-width
        (ZAIM.strip(), "zaim"),
        (
            "日付,方法,カテゴリ,ジャンル,支払元,入金先,商品,メモ,場所,通貨,収入,支出,振替,残高調整,通貨変換前の金額,集計の設定",
            "zaim",
        ),
    ],
)
def test_the_format_is_told_by_the_header(header: str, expected: str) -> None:
    assert detect.detect(header + "\n") == expected


def test_a_header_of_no_known_format_is_422_naming_all_three() -> None:
    with pytest.raises(errors.ValidationFailed) as caught:
        detect.read("日付,内容,金額\n2026/11/01,コンビニ,-500\n".encode("cp932"))
    assert "date,kind,amount" in caught.value.detail
    assert "計算対象" in caught.value.detail and "集計の設定" in caught.value.detail


def test_an_mf_header_missing_columns_says_which() -> None:
    with pytest.raises(errors.ValidationFailed, match="missing 振替, ID"):
        detect.read("計算対象,日付,内容,金額（円）,保有金融機関,大項目,中項目,メモ\n".encode())


@pytest.mark.parametrize("encoding", ["cp932", "utf-8", "utf-8-sig"])
def test_mf_rows_map_to_slips_in_any_encoding(encoding: str) -> None:
    parsed = read(
        MF
        + '"1","2026/11/3","イオン, 各務原店","-1,080","財布","食費","食料品","特売","0","id1"\n'
        + '"1","2026/11/25","給与","320000","三井住友銀行","収入","給与","","0","id2"\n'
        + '"0","2026/11/14","立替","-5000","財布","未分類","未分類","会社","0","id3"\n'
        + '"0","2026/11/15","返金","700","財布","","","","0","id4"\n',
        encoding,
    )
    assert parsed.errors == []
    expense, income, advance, refund = parsed.rows
    assert (expense.date, expense.kind, expense.amount, expense.account) == ("2026-11-03", "expense", 1080, "財布")
    assert (expense.category, expense.subcategory, expense.memo) == ("食費", "食料品", "イオン, 各務原店 / 特売")
    assert (income.kind, income.amount, income.category, income.subcategory) == ("income", 320000, "収入", "給与")
    # 計算対象=0: the money moved in the wallet, but as a transfer against the clearing account
    assert (advance.kind, advance.account, advance.to_account, advance.counted) == (
        "transfer",
        "財布",
        NOT_COUNTED,
        False,
    )
    assert advance.memo == "立替 / 会社 / 未分類/未分類"
    assert (refund.account, refund.to_account, refund.memo) == (NOT_COUNTED, "財布", "返金")
    assert all(r.slip_id.startswith("M") and r.slip_id.isalnum() and len(r.slip_id) == 27 for r in parsed.rows)


def test_mf_transfer_sides_pair_up_and_a_lone_side_meets_the_unknown_counterpart() -> None:
    parsed = read(
        MF
        + "0,2026/11/26,カード引落,-60000,銀行,,,,1,out1\n"
        + "0,2026/11/05,チャージ,3000,Suica,,,,1,lone\n"
        + "0,2026/11/26,口座振替,60000,カード,,,,1,in1\n"
        + "0,2026/11/26,別の振替,-60000,銀行,,,,1,out2\n"
    )
    assert parsed.errors == [] and parsed.count == 3
    pair, lone, unmatched = parsed.rows  # in file order; the pair where its outgoing side is
    assert (pair.kind, pair.account, pair.to_account, pair.amount, pair.lines) == (
        "transfer",
        "銀行",
        "カード",
        60000,
        (2, 4),
    )
    assert (lone.account, lone.to_account, lone.amount, lone.counted) == (UNKNOWN_COUNTERPART, "Suica", 3000, True)
    assert (unmatched.account, unmatched.to_account, unmatched.line) == ("銀行", UNKNOWN_COUNTERPART, 5)


def test_mf_identity_is_the_id_column_so_overlapping_files_agree() -> None:
    row = '"1","2026/11/03","八百屋","-1200","財布","食費","食料品","","0","abc123"\n'
    first = read(MF + row)
    later = read(MF + '"1","2026/12/01","X","-1","財布","食費","","","0","zzz"\n' + row)
    assert first.rows[0].slip_id == later.rows[1].slip_id
    assert first.rows[0].slip_id != later.rows[0].slip_id


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("2,2026/11/03,a,-1,財布,,,,0,x", "計算対象"),
        ("1,2026/13/03,a,-1,財布,,,,0,x", "date"),
        ("1,2026/11/03,a,1.5,財布,,,,0,x", "金額"),
        ("1,2026/11/03,a,0,財布,,,,0,x", "nothing to record"),
        ("1,2026/11/03,a,-1,,,,,0,x", "保有金融機関"),
        ("1,2026/11/03,a,-1,財布,,,,0,", "ID"),
    ],
)
def test_mf_bad_rows_are_refused_by_line(row: str, message: str) -> None:
    parsed = read(MF + "1,2026/11/01,ok,-1,財布,,,,0,ok\n" + row + "\n")
    assert len(parsed.rows) == 1
    assert [e.line for e in parsed.errors] == [3] and message in parsed.errors[0].message


def test_a_repeated_mf_id_is_refused_on_its_second_line() -> None:
    row = "1,2026/11/01,a,-1,財布,,,,0,same\n"
    parsed = read(MF + row + row)
    assert len(parsed.rows) == 1 and parsed.errors[0].line == 3 and "repeats line 2" in parsed.errors[0].message


def test_zaim_rows_map_by_method() -> None:
    parsed = read(
        ZAIM
        + "2026-11-04,payment,交通,電車,PASMO,-,切符,,東京メトロ,JPY,0,178,0,0,0,常に集計に含める\n"
        + "2026-11-25,income,給与,-,-,ゆうちょ銀行,,,,JPY,280000,0,0,0,0,常に集計に含める\n"
        + "2026-11-27,transfer,-,-,ゆうちょ銀行,イオンカード,,,,JPY,0,0,45000,0,0,常に集計に含める\n"
        + "2026-11-20,balance,-,-,-,お財布,,,,JPY,0,0,0,1200,0,常に集計に含める\n"
        + "2026-11-15,payment,その他,立替,お財布,-,,,,JPY,0,6000,0,0,0,集計に含めない\n"
        + "2026-11-16,income,臨時収入,-,-,お財布,,,,JPY,3000,0,0,0,0,年の集計にのみ含める\n"
    )
    assert parsed.errors == []
    pay, income, move, adjust, uncounted, yearly = parsed.rows
    assert (pay.kind, pay.account, pay.amount, pay.category, pay.subcategory, pay.memo) == (
        "expense",
        "PASMO",
        178,
        "交通",
        "電車",
        "切符 / 東京メトロ",
    )
    assert (income.kind, income.account, income.amount, income.subcategory) == ("income", "ゆうちょ銀行", 280000, None)
    assert (move.kind, move.account, move.to_account, move.amount) == (
        "transfer",
        "ゆうちょ銀行",
        "イオンカード",
        45000,
    )
    assert (adjust.account, adjust.to_account, adjust.amount, adjust.counted) == ("残高調整", "お財布", 1200, False)
    assert (uncounted.account, uncounted.to_account, uncounted.counted) == ("お財布", NOT_COUNTED, False)
    assert (yearly.kind, yearly.counted) == ("income", True)


def test_zaim_identity_is_content_and_occurrence() -> None:
    ride = "2026-11-04,payment,交通,電車,PASMO,-,,,,JPY,0,178,0,0,0,常に集計に含める\n"
    other = "2026-11-05,payment,交通,電車,PASMO,-,,,,JPY,0,178,0,0,0,常に集計に含める\n"
    twice = read(ZAIM + ride + ride)
    overlapping = read(ZAIM + other + ride + ride + ride)
    first, second = (r.slip_id for r in twice.rows)
    assert first != second  # two identical purchases stay two
    assert [r.slip_id for r in overlapping.rows][1:3] == [first, second]  # the same rows, found again
    assert len({r.slip_id for r in overlapping.rows}) == 4


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("2026-11-04,refund,交通,,PASMO,-,,,,JPY,0,178,0,0,0,", "方法"),
        ("2026-11-04,payment,交通,,PASMO,-,,,,JPY,0,0,0,0,0,", "支出"),
        ("2026-11-04,payment,交通,,PASMO,-,,,,JPY,0,178,0,0,0,たまに", "集計の設定"),
        ("2026-11-04,balance,-,-,-,PASMO,,,,JPY,0,0,0,0,0,", "残高調整"),
    ],
)
def test_zaim_bad_rows_are_refused_by_line(row: str, message: str) -> None:
    parsed = read(ZAIM + row + "\n")
    assert parsed.rows == [] and parsed.errors[0].line == 2 and message in parsed.errors[0].message


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("財布", "cash"),
        ("お財布（現金）", "cash"),
        ("三井住友銀行", "bank"),
        ("楽天カード", "credit"),
        ("PayPayカード", "credit"),
        ("モバイルSuica", "emoney"),
        ("ＰＡＳＭＯ", "emoney"),
        ("nanaco", "emoney"),
        ("WAON", "emoney"),
        ("PayPay", "emoney"),
        ("SBI証券", "other"),
    ],
)
def test_account_types_are_guessed_from_well_known_names(name: str, kind: str) -> None:
    assert accounts.guess_type(name) == kind


def test_proposed_account_ids_are_valid_stable_and_distinct() -> None:
    from kakeibo.models.base import ACCOUNT_ID_RE

    names = ["三井住友銀行", "モバイルSuica", "モバイルＳｕｉｃａ", "Suica", "楽天カード", "楽天銀行", "x" * 200]
    ids = [accounts.account_id_for(n) for n in names]
    assert all(ACCOUNT_ID_RE.match(i) for i in ids)
    assert ids[1] == ids[2]  # NFKC: the same name
    assert len(set(ids)) == len(names) - 1
    assert ids[1].startswith("suica-") and ids[0].startswith("acct-")
    assert ids == [accounts.account_id_for(n) for n in names]


def test_accounts_match_by_normalised_name_or_id_and_unknown_ones_are_listed() -> None:
    ledger = [
        {"id": "suica", "name": "モバイルＳｕｉｃａ"},
        {"id": "bank", "name": "三井住友銀行"},
    ]
    parsed = read(
        MF
        + "1,2026/11/01,乗車,-420, モバイルSuica ,交通費,電車,,0,a\n"
        + "1,2026/11/02,給与,1000,bank,収入,,,0,b\n"
        + "1,2026/11/03,八百屋,-100,財布,食費,,,0,c\n"
    )
    refused = accounts.resolve(parsed, ledger, create=False)
    assert [(r.line, r.slip.account) for r in refused.file.valid] == [(2, "suica"), (3, "bank")]
    assert [e.line for e in refused.file.errors] == [4] and "create_accounts=true" in refused.file.errors[0].message
    assert refused.unknown == [{"name": "財布", "id": accounts.account_id_for("財布"), "type": "cash", "rows": 1}]
    created = accounts.resolve(parsed, ledger, create=True)
    assert isinstance(created.file, CsvFile) and created.file.errors == []
    assert created.file.valid[2].slip.account == accounts.account_id_for("財布")


def test_an_exact_account_name_wins_over_a_look_alike_and_two_look_alikes_are_ambiguous() -> None:
    # Given two accounts whose names differ only in width (NFKC makes them one): half-width ｶﾞ, full-width ガ
    ledger = [{"id": "a-half", "name": "ｶﾞｽ代"}, {"id": "b-full", "name": "ガス代"}]
    parsed = read(
        MF
        + "1,2026/11/01,ガス,-100,ガス代,水道・光熱費,,,0,a\n"  # exactly the full-width one
        + "1,2026/11/02,ガス,-200,ｶﾞｽ代,水道・光熱費,,,0,b\n"  # exactly the half-width one
        + "1,2026/11/03,ガス,-300,ｶﾞス代,水道・光熱費,,,0,c\n"  # like both, exactly neither
    )
    # When the file's account names are matched
    resolved = accounts.resolve(parsed, ledger, create=True)
    # Then each exact name finds its own account
    assert [(r.line, r.slip.account) for r in resolved.file.valid] == [(2, "b-full"), (3, "a-half")]
    # And the row naming a look-alike of both is refused as ambiguous, naming the candidates
    (error,) = resolved.file.errors
    assert error.line == 4
    assert "ｶﾞス代" in error.message and "a-half" in error.message and "b-full" in error.message
    # And it is not proposed as a new account either
    assert resolved.unknown == []


@pytest.mark.parametrize("ch", ["\x00", "\x01", "\x7f", "\u200b", "\u202e"])
@pytest.mark.parametrize("create", [False, True])
def test_an_account_name_no_account_may_have_is_refused_in_its_rows_and_never_proposed(ch: str, create: bool) -> None:
    # Given a Zaim file whose 支払元 holds a control or invisible character, and a plain row
    parsed = read(
        ZAIM
        + f"2026-11-20,payment,食費,外食,財{ch}布,-,ランチ,,,JPY,0,800,0,0,0,常に集計に含める\n"
        + "2026-11-21,payment,食費,食料品,財布,-,パン,,,JPY,0,300,0,0,0,常に集計に含める\n"
    )
    # When its account names are matched, with or without creating accounts
    resolved = accounts.resolve(parsed, [], create=create)
    # Then its row is refused, naming the character (not "create it": it cannot be created)
    error = resolved.file.errors[0]
    assert error.line == 2 and f"[U+{ord(ch):04X}]" in error.message and "create_accounts" not in error.message
    # And the plain row is read (or, without creating accounts, refused as unknown)
    assert [r.line for r in resolved.file.valid] == ([3] if create else [])
    assert [e.line for e in resolved.file.errors] == ([2] if create else [2, 3])
    # And only the plain name is proposed as an account
    assert [u["name"] for u in resolved.unknown] == ["財布"]
    # And the refusal reads in Japanese too
    assert messages.row_message(error.message, "ja").startswith(f"口座名「財[U+{ord(ch):04X}]布」には")


def test_a_blank_account_name_is_no_account_name_either() -> None:
    # Given a name that is only an ideographic space, Then no account can be made of it, in words
    with pytest.raises(ValueError, match="cannot be an account's name") as refused:
        accounts.account_name("\u3000")
    assert messages.row_message(str(refused.value), "ja").startswith("口座名「」は口座名に使えません")
    # And a plain name is kept, trimmed, up to an account name's 100 characters
    assert accounts.account_name(" 財布 ") == "財布" and accounts.account_name("a" * 150) == "a" * 100


def test_zaims_foreign_rows_land_in_an_account_of_their_currency_in_its_unit_with_their_yen() -> None:
    # Given a dollar account and a yen card, and Zaim rows in dollars paid from each
    ledger = [{"id": "usd", "name": "ドル財布", "unit": "USD"}, {"id": "card", "name": "カード"}]
    parsed = read(
        ZAIM
        + "2026-08-03,payment,食費,外食,ドル財布,,,,,USD,0,1900,0,0,12.34,常に集計に含める\n"
        + "2026-08-04,payment,食費,外食,カード,,,,,USD,0,800,0,0,5.00,常に集計に含める\n"
        + "2026-08-05,payment,食費,外食,ドル財布,,,,,USD,0,100,0,0,0.005,常に集計に含める\n"
    )
    # When the rows are matched to the ledger's accounts
    resolved = accounts.resolve(parsed, ledger, create=False)
    rows = {r.line: r.slip for r in resolved.file.valid}
    # Then the dollar account's row is $12.34 in cents, with the ¥1,900 Zaim counted as its yen
    assert (rows[2].account, rows[2].amount, rows[2].jpy_amount) == ("usd", 1234, 1900)
    # And the yen card's row stays in yen, the dollars in its memo
    assert (rows[3].account, rows[3].amount, rows[3].jpy_amount) == ("card", 800, None)
    assert "USD 5.00" in (rows[3].memo or "")
    # And an amount finer than a cent is not written in dollars (the row keeps its yen, and fails
    # later as a dollar-account row without jpy_amount)
    assert rows[4].jpy_amount is None and rows[4].amount == 100
    assert accounts.in_minor_units("1,234.5", "USD") == 123450 and accounts.in_minor_units("abc", "USD") is None


def test_zaims_foreign_transfers_carry_what_arrived_in_the_unit_of_each_side() -> None:
    # Given a dollar wallet, a second dollar account, a yen bank and Zaim transfers in dollars between them
    ledger = [
        {"id": "usd", "name": "ドル財布", "unit": "USD"},
        {"id": "usd2", "name": "ドル口座", "unit": "USD"},
        {"id": "bank", "name": "銀行"},
        {"id": "cash", "name": "財布"},
    ]
    parsed = read(
        ZAIM
        + "2026-08-01,transfer,,,銀行,ドル財布,,,,USD,0,0,15000,0,100.00,常に集計に含める\n"
        + "2026-08-02,transfer,,,ドル財布,銀行,,,,USD,0,0,2900,0,20.00,常に集計に含める\n"
        + "2026-08-03,transfer,,,ドル財布,ドル口座,,,,USD,0,0,1450,0,10.00,常に集計に含める\n"
        + "2026-08-04,transfer,,,銀行,財布,,,,JPY,0,0,500,0,0,常に集計に含める\n"
    )
    # When the rows are matched to the ledger's accounts
    resolved = accounts.resolve(parsed, ledger, create=False)
    rows = {r.line: r.slip for r in resolved.file.valid}
    # Then yen into dollars leaves ¥15,000 and brings $100.00; dollars into yen the other way round
    assert (rows[2].amount, rows[2].to_amount) == (15000, 10000)
    assert (rows[3].amount, rows[3].to_amount) == (2000, 2900)
    # And between two dollar accounts the dollars move as they are, and a yen transfer stays in yen
    assert (rows[4].amount, rows[4].to_amount) == (1000, None)
    assert (rows[5].amount, rows[5].to_amount) == (500, None)


# ---- card and bank statements -------------------------------------------------------------------

SAMPLES = Path(__file__).resolve().parents[1] / "samples" / "statements"


@pytest.mark.parametrize("path", sorted(SAMPLES.glob("*.csv")), ids=lambda p: p.stem)
def test_a_statement_is_told_by_its_header_and_preamble(path: Path) -> None:
    # Given an issuer's download as it comes
    text, _, _ = issuers.decode(path.read_bytes())
    # Then detection names the issuer (the sample's name begins with its format's)
    assert path.stem.startswith(detect.detect(text))


def test_the_formats_a_request_may_force_are_the_registrys() -> None:
    assert set(typing.get_args(ImportFormat)) == set(detect.FORMATS)
    assert [f["id"] for f in detect.listing()] == list(detect.FORMATS)


def test_a_file_of_no_known_layout_names_what_it_resembles() -> None:
    # Given a download that has JCB's columns but its amount
    text = '"ご利用者","カテゴリ","ご利用日","ご利用先など","支払区分"\n"x","y","2026/11/01","ローソン","１回"\n'
    with pytest.raises(errors.ValidationFailed) as caught:
        detect.read(text.encode("cp932"))
    # Then the 422 names it, with what it lacks, in words and as a member
    assert caught.value.context["resembles"][0]["format"] == "jcb"
    assert "it resembles: JCB（MyJCB カードご利用代金明細） (missing ご利用金額(¥)" in caught.value.detail
    assert messages.translate(caught.value.detail) is not None


def test_a_statement_forced_as_another_issuers_is_422_naming_what_that_one_expects() -> None:
    with pytest.raises(errors.ValidationFailed, match=r"is not Rakuten Card .*'s statement: expected"):
        detect.read((SAMPLES / "jcb.csv").read_bytes(), fmt="rakuten_card")
