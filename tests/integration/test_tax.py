"""Tax season on DynamoDB Local: medical payments and donations on slips and lines, kept on one item
per year by the slip transactions; the reports, the e-Tax form as CSV, and refused input."""

from __future__ import annotations

import csv
import io

import openpyxl
import pytest

from kakeibo.store import Store
from tests import invariants
from tests.events import Client

PHARMACY_SPLIT = {
    "date": "2026-03-10",
    "kind": "expense",
    "amount": 5000,
    "account": "cash",
    "memo": "ドラッグストア",
    "lines": [
        {"amount": 3000, "category": "日用品"},
        {"amount": 2000, "category": "医療費", "medical": {"patient": "hanako", "kind": "medicine", "otc": True}},
    ],
}
HOSPITAL = {
    "date": "2026-05-20",
    "kind": "expense",
    "amount": 150_000,
    "account": "cash",
    "category": "医療費",
    "medical": {"patient": "taro", "provider": "中央病院", "kind": "treatment", "reimbursed": 30_000},
}


def _medical(api: Client, year: str = "2026", **query: str) -> dict:
    got = api.get("/reports/medical", query={"year": year, **query})
    assert got.status == 200, got
    return got.json


def test_a_split_receipt_counts_only_its_medical_line(api: Client, store: Store, user: str) -> None:
    # Given cash, a split pharmacy receipt with one OTC medicine line, and a hospital bill partly reimbursed
    api.account("cash", 500_000)
    split = api.slip(**PHARMACY_SPLIT)
    assert split.status == 201, split
    assert split.json["lines"][1]["medical"]["provider"] == "ドラッグストア"  # the memo names the provider
    assert "medical" not in split.json["lines"][0] or split.json["lines"][0]["medical"] is None
    assert api.slip(**HOSPITAL).status == 201
    # When the year's medical report is read, with an income of 4,000,000
    report = _medical(api, income="4000000")
    # Then only the medical line counts (2,000, not the receipt's 5,000), per patient and provider
    rows = {(r["patient"], r["provider"], r["kind"]): (r["paid"], r["reimbursed"], r["otc"]) for r in report["items"]}
    assert rows == {
        ("hanako", "ドラッグストア", "medicine"): (2000, 0, True),
        ("taro", "中央病院", "treatment"): (150_000, 30_000, False),
    }
    assert (report["paid"], report["reimbursed"], report["net"]) == (152_000, 30_000, 122_000)
    # And the deduction is 122,000 - 100,000; self-medication gives nothing under 12,000 of OTC
    assert (report["deduction"], report["self_medication"], report["larger"]) == (22_000, 0, "medical")
    # And an income of 300,000 lowers the floor to 15,000
    assert _medical(api, income="300000")["deduction"] == 107_000
    # And another year has nothing
    assert _medical(api, year="2025")["items"] == []
    assert invariants.check(store, user) == []
    assert api.post("/ledger/verify").json["ok"] is True


def test_a_medical_payment_that_names_no_provider_was_paid_to_the_slip_s_payee(api: Client) -> None:
    # Given cash, and medical payments that do not name their provider: a clinic's bill with a payee and
    # no memo, a pharmacy's with a payee and a memo, a split receipt with a payee and a memo on its line,
    # and one that names its provider beside another payee
    api.account("cash", 500_000)
    visit = {"patient": "taro", "kind": "treatment"}
    base = {"date": "2026-06-01", "kind": "expense", "amount": 4_000, "account": "cash", "category": "医療費"}
    clinic = api.slip(**{**base, "payee": "山田医院", "medical": visit})
    pharmacy = api.slip(**{**base, "payee": "さくら薬局", "memo": "風邪薬", "medical": {**visit, "kind": "medicine"}})
    uncategorised = {k: v for k, v in base.items() if k != "category"}  # a split slip's lines have them
    split = api.slip(**{**uncategorised, "payee": "駅前ドラッグ", "memo": "まとめ買い", "lines": [
        {"amount": 1_000, "category": "日用品"},
        {"amount": 3_000, "category": "医療費", "memo": "目薬", "medical": {**visit, "kind": "medicine"}},
    ]})  # fmt: skip
    named = api.slip(**{**base, "payee": "カード払い", "medical": {**visit, "provider": "中央病院"}})
    # Then each is recorded, its provider the payee (the payee before any memo), or the one it names
    for made in (clinic, pharmacy, split, named):
        assert made.status == 201, made
    assert clinic.json["medical"]["provider"] == "山田医院"
    assert pharmacy.json["medical"]["provider"] == "さくら薬局"
    assert split.json["lines"][1]["medical"]["provider"] == "駅前ドラッグ"
    assert named.json["medical"]["provider"] == "中央病院"
    # And the year's report lists the payments under those providers
    rows = {(r["provider"], r["kind"]): r["paid"] for r in _medical(api)["items"]}
    assert rows == {
        ("山田医院", "treatment"): 4_000,
        ("さくら薬局", "medicine"): 4_000,
        ("駅前ドラッグ", "medicine"): 3_000,
        ("中央病院", "treatment"): 4_000,
    }
    # And one with neither a provider, a payee nor a memo is refused, saying what would name it
    nobody = api.post("/slips", {**base, "medical": visit})
    assert nobody.status == 422 and "payee" in nobody.json["detail"], nobody
    japanese = api.post("/slips", {**base, "medical": visit}, headers={"Accept-Language": "ja"})
    assert japanese.status == 422 and "支払先（payee）" in japanese.json["detail"], japanese


def test_edits_moves_and_deletes_keep_the_year_right(api: Client, store: Store, user: str) -> None:
    api.account("cash", 500_000)
    made = api.slip(**HOSPITAL)
    where, etag = made.header("Location") or "", made.etag or ""
    # When the amount is corrected, then the report follows
    patched = api.patch(where, {"amount": 160_000}, headers={"If-Match": etag})
    assert patched.status == 200, patched
    assert patched.json["medical"]["reimbursed"] == 30_000
    assert _medical(api)["paid"] == 160_000
    # When it moves to the next year, then it leaves 2026 and counts in 2027
    moved = api.patch(
        patched.header("Location") or where, {"date": "2027-01-04"}, headers={"If-Match": patched.etag or ""}
    )
    assert moved.status == 200, moved
    assert _medical(api)["items"] == []
    assert _medical(api, year="2027")["paid"] == 160_000
    # When its medical part is removed (null), then nothing counts
    cleared = api.patch(moved.header("Location") or "", {"medical": None}, headers={"If-Match": moved.etag or ""})
    assert (cleared.status == 200 and "medical" not in cleared.json) or cleared.json["medical"] is None
    assert _medical(api, year="2027")["items"] == []
    # When a medical slip is deleted, then its payment is gone from the year
    other = api.slip(**HOSPITAL)
    assert api.delete(other.header("Location") or "", headers={"If-Match": other.etag or ""}).status == 204
    assert _medical(api)["items"] == []
    assert invariants.check(store, user) == []
    assert api.post("/ledger/verify").json["ok"] is True


def test_self_medication_is_larger_for_otc_purchases_alone(api: Client) -> None:
    # Given 60,000 of OTC medicine in a year and nothing else
    api.account("cash", 500_000)
    otc = {"patient": "hanako", "provider": "薬局", "kind": "medicine", "otc": True}
    assert api.slip(date="2026-07-01", kind="expense", amount=60_000, account="cash", medical=otc).status == 201
    report = _medical(api)
    # Then the usual deduction is 0 and セルフメディケーション gives 48,000
    assert (report["deduction"], report["self_medication"], report["larger"]) == (0, 48_000, "self_medication")


FORM_HEADINGS = ["医療を受けた人", "病院・薬局などの名称", "診療・治療", "医薬品購入", "介護保険サービス",
                 "その他の医療費", "支払った医療費の金額", "左のうち、補填される金額", "支払年月日"]  # fmt: skip


def _a_year_of_receipts(api: Client) -> None:
    api.account("cash", 500_000)
    assert api.slip(**PHARMACY_SPLIT).status == 201
    assert api.slip(**HOSPITAL).status == 201
    again = {**HOSPITAL, "date": "2026-06-01", "amount": 20_000, "medical": {**HOSPITAL["medical"], "reimbursed": 0}}
    assert api.slip(**again).status == 201
    formula = {"patient": "=1+1", "provider": "@SUM(A1)", "kind": "care"}
    assert api.slip(date="2026-08-01", kind="expense", amount=3000, account="cash", medical=formula).status == 201


def test_the_form_as_xlsx_is_laid_out_as_the_e_tax_form_and_adds_up_to_the_report(api: Client) -> None:
    # Given a split pharmacy receipt, two hospital bills (one partly reimbursed) and a care bill
    _a_year_of_receipts(api)
    # When the e-Tax 医療費集計フォーム is downloaded
    got = api.get("/reports/medical.xlsx", query={"year": "2026"})
    # Then it is a workbook to save, named for the year
    assert got.status == 200, got
    assert got.header("Content-Type") == "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    assert got.header("Content-Disposition") == 'attachment; filename="medical-2026.xlsx"'
    book = openpyxl.load_workbook(io.BytesIO(got.raw))
    sheet = book["医療費集計フォーム"]
    # And its headings sit where the form has them (rows 7-8), its rows from row 9 (B-J)
    assert [sheet.cell(7, c).value for c in range(1, 11)] == [
        "No", "医療を受けた人", "病院・薬局などの名称", "医療費の区分", None, None, None,
        "支払った医療費の金額", "左のうち、補填される金額", "支払年月日（任意）"]  # fmt: skip
    assert [sheet.cell(8, c).value for c in range(4, 8)] == FORM_HEADINGS[2:6]
    rows = [[sheet.cell(r, c).value for c in range(1, 11)] for r in range(9, sheet.max_row + 1)]
    assert [r[0] for r in rows] == [1, 2, 3]
    marked = {(r[1], r[2]): [FORM_HEADINGS[2 + i] for i, v in enumerate(r[3:7]) if v == "該当する"] for r in rows}
    assert marked == {("=1+1", "@SUM(A1)"): ["介護保険サービス"], ("hanako", "ドラッグストア"): ["医薬品購入"],
                      ("taro", "中央病院"): ["診療・治療"]}  # fmt: skip
    assert all(v is None for r in rows for v in r[3:7] if v != "該当する")  # the other kinds left empty
    assert all(r[9] is None for r in rows)  # a row adds up a year: no single date
    # And its amounts and the totals at C3 and C4 are the JSON report's
    report = _medical(api)
    assert sum(r[7] for r in rows) == report["paid"] == 175_000
    assert sum(r[8] for r in rows) == report["reimbursed"] == 30_000
    assert sheet["C3"].value == "=SUM(H9:H11)" and sheet["C4"].value == "=SUM(I9:I11)"
    cached = openpyxl.load_workbook(io.BytesIO(got.raw), data_only=True)["医療費集計フォーム"]
    assert (cached["C3"].value, cached["C4"].value) == (175_000, 30_000)
    # And a name that looks like a formula stays text
    assert sheet["B9"].data_type == "s"


def test_the_form_as_csv_has_the_xlsx_columns(api: Client) -> None:
    _a_year_of_receipts(api)
    # When the e-Tax form is downloaded as CSV
    got = api.get("/reports/medical.csv", query={"year": "2026"})
    assert got.status == 200, got
    assert got.header("Content-Disposition") == 'attachment; filename="medical-2026.csv"'
    text = got.raw.decode("utf-8")
    # Then it starts with a BOM and the form's columns B-J, one row per patient, provider and kind
    assert text.startswith("\ufeff")
    rows = list(csv.reader(io.StringIO(text.removeprefix("\ufeff"))))
    assert rows[0] == FORM_HEADINGS
    body = rows[1:]
    assert sorted((r[0], r[1], r[2:6]) for r in body) == [
        ("'=1+1", "'@SUM(A1)", ["", "", "該当する", ""]),  # kept from running as a formula
        ("hanako", "ドラッグストア", ["", "該当する", "", ""]),
        ("taro", "中央病院", ["該当する", "", "", ""]),
    ]
    # And its rows are the workbook's and add up to the report's totals
    book = openpyxl.load_workbook(io.BytesIO(api.get("/reports/medical.xlsx", query={"year": "2026"}).raw))
    sheet = book["医療費集計フォーム"]
    cells = [[sheet.cell(r, c).value for c in range(2, 11)] for r in range(9, 12)]
    assert [["" if v is None else str(v) for v in r] for r in cells] == [[v.removeprefix("'") for v in r] for r in body]
    report = _medical(api)
    assert sum(int(r[6]) for r in body) == report["paid"]
    assert sum(int(r[7]) for r in body) == report["reimbursed"]


def test_the_slips_csv_carries_medical_and_donation_into_another_ledger(api: Client, other_api: Client) -> None:
    # Given a year of medical receipts (a split one among them) and a ふるさと納税 donation
    _a_year_of_receipts(api)
    gift = {"municipality": "北海道紋別市", "one_stop": True}
    assert api.slip(date="2026-11-01", kind="expense", amount=10_000, account="cash", donation=gift).status == 201
    # When the slips are exported and imported into another ledger with the same account
    exported = api.get("/slips.csv")
    assert exported.status == 200, exported
    other_api.account("cash", 500_000)
    reply = other_api.post("/imports", raw=exported.raw, headers={"Content-Type": "text/csv; charset=utf-8"})
    assert reply.status == 200 and reply.json["created"] == 5 and reply.json["failed"] == 0, reply
    # Then its medical report, its form and its donations are the same
    assert _medical(other_api) == _medical(api)
    form = {"year": "2026"}
    assert other_api.get("/reports/medical.csv", query=form).raw == api.get("/reports/medical.csv", query=form).raw
    donations = other_api.get("/reports/donations", query=form).json
    assert donations == api.get("/reports/donations", query=form).json
    assert (donations["total"], donations["one_stop"]) == (10_000, True)
    assert other_api.get("/slips.csv").raw == exported.raw


def test_the_api_document_describes_medical_and_donation_on_slips(api: Client) -> None:
    doc = api.get("/openapi.json").json
    schemas = doc["components"]["schemas"]
    for name in ("SlipIn", "Slip", "SlipPatch"):
        assert {"medical", "donation"} <= set(schemas[name]["properties"]), name
    assert "medical" in schemas["LineIn"]["properties"]
    xlsx = doc["paths"]["/reports/medical.xlsx"]["get"]["responses"]["200"]["content"]
    assert list(xlsx) == ["application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"]


def test_donations_say_when_one_stop_no_longer_applies(api: Client, store: Store, user: str) -> None:
    api.account("cash", 1_000_000)

    def give(town: str, amount: int, one_stop: bool = True) -> None:
        donation = {"municipality": town, "one_stop": one_stop}
        made = api.slip(date="2026-11-01", kind="expense", amount=amount, account="cash", donation=donation)
        assert made.status == 201, made

    # Given five municipalities, each asked for the ワンストップ特例
    for i in range(5):
        give(f"町{i}", 10_000)
    report = api.get("/reports/donations", query={"year": "2026", "limit": "60000"}).json
    assert (report["total"], report["municipalities"], report["one_stop"], report["remaining"]) == (
        50_000,
        5,
        True,
        10_000,
    )
    # When a sixth is given to without asking, then it no longer applies, and the report says why (in Japanese)
    give("市6", 20_000, one_stop=False)
    got = api.get("/reports/donations", query={"year": "2026", "limit": "60000"}, headers={"Accept-Language": "ja"})
    report = got.json
    assert report["one_stop"] is False
    assert report["reasons"] == ["too_many_municipalities", "not_requested"]
    assert report["reasons_text"][0] == "今年の寄附先が 5 自治体を超えています（ワンストップ特例は 5 自治体まで）"
    assert report["remaining"] == -10_000
    # And in English it says so in plain words
    english = api.get("/reports/donations", query={"year": "2026"}).json["reasons_text"]
    assert (
        english[0] == "this year's donations went to more than 5 municipalities: the ワンストップ特例 covers at most 5"
    )
    assert invariants.check(store, user) == []


def test_bad_input_is_refused_naming_the_field_and_nothing_is_written(api: Client) -> None:
    api.account("cash", 500_000)
    api.account("bank", 0)
    medical = {"patient": "taro", "provider": "中央病院", "kind": "treatment"}
    refused = {
        "医療費の区分": {**HOSPITAL, "medical": {**medical, "kind": "massage"}},
        "補填される金額": {**HOSPITAL, "medical": {**medical, "reimbursed": -1}},
        "支払った金額": {**HOSPITAL, "medical": {**medical, "reimbursed": 150_001}},
        "支出にだけ": {
            "date": "2026-05-20",
            "kind": "transfer",
            "amount": 100,
            "account": "cash",
            "to_account": "bank",
            "medical": medical,
        },
        "支払先": {**HOSPITAL, "medical": {"patient": "taro", "kind": "treatment"}},
        "ふるさと納税": {
            "date": "2026-05-20",
            "kind": "income",
            "amount": 100,
            "account": "cash",
            "donation": {"municipality": "町"},
        },
    }
    for words, body in refused.items():
        # When each is sent (in Japanese), then 422 names the field, in words
        got = api.post("/slips", body, headers={"Accept-Language": "ja"})
        assert got.status == 422, (words, got)
        assert words in got.json["detail"], (words, got.json["detail"])
    # And nothing was written
    assert api.get("/slips").json["items"] == []
    assert _medical(api)["items"] == []


@pytest.mark.parametrize(
    ("path", "query", "words"),
    [
        ("/reports/medical", {"year": "1899"}, "年は 1900 以上"),
        ("/reports/medical", {"year": "3000"}, "年は 2999 以下"),
        ("/reports/medical.csv", {"year": "20x6"}, "年の形式"),
        ("/reports/medical.xlsx", {"year": "1899"}, "年は 1900 以上"),
        ("/reports/medical.xlsx", {}, "年を指定"),
        ("/reports/medical", {"year": "2026", "income": "4e6"}, "所得（income）は整数"),
        ("/reports/medical", {"year": "2026", "income": "-1"}, "所得（income）は 0 以上"),
        ("/reports/donations", {"year": "2026", "limit": "-1"}, "上限額は 0 以上"),
        ("/reports/donations", {"year": "2026", "limit": "many"}, "上限額は整数"),
    ],
    ids=[
        "year-too-early",
        "year-too-late",
        "year-not-a-year",
        "xlsx-year",
        "xlsx-no-year",
        "income-not-integer",
        "income-negative",
        "limit-negative",
        "limit-not-integer",
    ],
)
def test_a_report_query_out_of_range_is_422_naming_the_field(
    api: Client, path: str, query: dict[str, str], words: str
) -> None:
    # When a report is asked for with a value it cannot take (in Japanese)
    got = api.get(path, query=query, headers={"Accept-Language": "ja"})
    # Then 422 names the field in words
    assert got.status == 422, got
    assert got.json["code"] == "validation_error"
    assert words in got.json["detail"], got.json["detail"]
    assert got.json["errors"][0]["loc"][0] == "query"


@pytest.mark.parametrize(
    ("income", "words"),
    [("-5", "所得（income）は 0 以上"), ("1.5", "所得（income）は整数"), ("9" * 40, "所得（income）は")],
    ids=["negative", "fraction", "forty-digits"],
)
def test_every_form_of_the_medical_report_refuses_the_same_income_in_the_same_words(
    api: Client, income: str, words: str
) -> None:
    # Given an income the medical report cannot take
    query = {"year": "2026", "income": income}
    # When the report is asked for as JSON, as CSV and as the .xlsx form (in Japanese)
    answers = [
        api.get(path, query=query, headers={"Accept-Language": "ja"})
        for path in ("/reports/medical", "/reports/medical.csv", "/reports/medical.xlsx")
    ]
    # Then each is the same 422 naming income in words
    for got in answers:
        assert got.status == 422 and got.json["code"] == "validation_error", got
        assert got.json["errors"][0]["loc"] == ["query", "income"], got.json
        assert words in got.json["detail"], got.json["detail"]
    assert answers[1].json["detail"] == answers[0].json["detail"] == answers[2].json["detail"]
    # And a whole number of yen is taken by all three
    for path in ("/reports/medical", "/reports/medical.csv", "/reports/medical.xlsx"):
        assert api.get(path, query={"year": "2026", "income": "4000000"}).status == 200, path
