"""Tax season on DynamoDB Local: medical payments and donations on slips and lines, kept on one item
per year by the slip transactions; the reports, the e-Tax form as CSV, and refused input."""

from __future__ import annotations

import csv
import io

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


def test_the_form_as_csv_holds_the_report_rows(api: Client) -> None:
    api.account("cash", 500_000)
    api.slip(**PHARMACY_SPLIT)
    api.slip(**HOSPITAL)
    api.slip(
        **{**HOSPITAL, "date": "2026-06-01", "amount": 20_000, "medical": {**HOSPITAL["medical"], "reimbursed": 0}}
    )
    # When the e-Tax form is downloaded as CSV
    got = api.get("/reports/medical.csv", query={"year": "2026"})
    assert got.status == 200, got
    text = got.raw.decode("utf-8")
    # Then it starts with a BOM and the form's columns, and its rows add up to the report's totals
    assert text.startswith("\ufeff")
    rows = list(csv.reader(io.StringIO(text.removeprefix("\ufeff"))))
    assert rows[0] == ["医療を受けた人", "病院・薬局などの支払先の名称", "医療費の区分", "支払った医療費の金額",
                       "左のうち、補填される金額", "支払年月日"]  # fmt: skip
    body = rows[1:]
    assert sorted((r[0], r[1], r[2]) for r in body) == [("hanako", "ドラッグストア", "医薬品購入"),
                                                        ("taro", "中央病院", "診療・治療")]  # fmt: skip
    report = _medical(api)
    assert sum(int(r[3]) for r in body) == report["paid"] == 172_000
    assert sum(int(r[4]) for r in body) == report["reimbursed"] == 30_000


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
    assert report["reasons_text"][0] == "寄附先が 5 自治体を超えました"
    assert report["remaining"] == -10_000
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
    # A year out of range is refused too
    for year in ("1899", "3000", "20x6"):
        assert api.get("/reports/medical", query={"year": year}).status == 400
    assert api.get("/reports/donations", query={"year": "2026", "limit": "-1"}).status == 400
