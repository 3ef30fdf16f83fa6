"""Errors people can read: Japanese with `Accept-Language: ja`, English otherwise, the same code and
members in both, fields in words, accounts by their name, never a pattern or a validator's phrase."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

from kakeibo import messages
from tests.events import Client

SRC = Path(__file__).resolve().parents[2] / "src" / "kakeibo"
JA = {"Accept-Language": "ja"}
LUNCH = {"date": "2026-11-03", "kind": "expense", "amount": 1200, "account": "wallet", "category": "食費"}
# errors whose detail is always worded from their typed members, whatever text they are raised with
WORDED_FROM_MEMBERS = {"InsufficientFunds", "BudgetExceeded"}
TECHNICAL = re.compile(r"\^|\\d|String should|Input should|Value error|pattern|Field required")


@pytest.fixture
def wallet(api: Client) -> Client:
    made = api.post("/accounts", {"id": "wallet", "name": "財布", "type": "cash", "opening_balance": 4620})
    assert made.status == 201
    return api


def both(api: Client, method: str, path: str, body: Any = None, **kw: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The same refused request, asked for in English and in Japanese."""
    headers = kw.pop("headers", {})
    en = api.request(method, path, body, headers={**headers, "Accept-Language": "en-US,en;q=0.9"}, **kw)
    ja = api.request(method, path, body, headers={**headers, **JA}, **kw)
    assert en.status == ja.status >= 400
    assert ja.header("Content-Language") == "ja" and en.header("Content-Language") == "en"
    # the code and every typed member are the same; only title, detail and each field error's msg
    # are worded per language
    strip = ("title", "detail")

    def members(body: dict[str, Any]) -> dict[str, Any]:
        kept = {k: v for k, v in body.items() if k not in strip}
        if isinstance(kept.get("errors"), list):
            kept["errors"] = [{k: v for k, v in e.items() if k != "msg"} for e in kept["errors"]]
        return kept

    assert members(en.json) == members(ja.json)
    assert not TECHNICAL.search(en.json["detail"]) and not TECHNICAL.search(ja.json["detail"]), (en.json, ja.json)
    return en.json, ja.json


def test_insufficient_funds_names_the_account_and_the_yen(wallet: Client) -> None:
    # Given a wallet (財布) holding 4,620 yen
    # When a 5,000 yen expense is recorded
    en, ja = both(wallet, "POST", "/slips", {**LUNCH, "amount": 5000})
    # Then both languages name the account by its name and show yen
    assert ja["detail"] == "財布の残高 ¥4,620 では ¥5,000 を支払えません"
    assert ja["title"] == "残高不足"
    assert en["detail"] == "財布 has ¥4,620: it cannot pay ¥5,000"
    assert en["account"] == "wallet" and en["account_name"] == "財布"
    assert (en["balance"], en["needed"]) == (4620, 5000)


def test_field_errors_are_worded_per_field(wallet: Client) -> None:
    # When the date is not YYYY-MM-DD and the amount is a float
    en, ja = both(wallet, "POST", "/slips", {**LUNCH, "date": "2026/11/03"})
    # Then the detail says so in words
    assert ja["detail"] == "日付は YYYY-MM-DD で指定してください（例: 2026-11-21）"
    assert en["detail"] == "write date as YYYY-MM-DD (e.g. 2026-11-21)"
    assert ja["errors"][0]["loc"] == ["body", "date"]
    _, ja = both(wallet, "POST", "/slips", {**LUNCH, "amount": 0, "memo": 3})
    assert ja["detail"] == "金額は 1 以上で指定してください。メモは文字列で指定してください"
    _, ja = both(wallet, "POST", "/slips", {**LUNCH, "date": "2026-02-30", "colour": "red"})
    assert (
        "日付には実在する日付を指定してください" in ja["detail"] and "「colour」という項目はありません" in ja["detail"]
    )
    _, ja = both(wallet, "POST", "/slips", {"date": "2026-11-03", "kind": "expense", "account": "wallet"})
    assert ja["detail"] == "金額を指定してください"
    _, ja = both(wallet, "POST", "/slips", {**LUNCH, "kind": "transfer", "category": None})
    assert ja["detail"] == "振替には振替先の口座（to_account）が必要です"


def test_budget_stale_version_and_queries_in_japanese(wallet: Client) -> None:
    # Given a strict 3,000 yen food budget
    assert wallet.put("/budgets/2026-11/食費", {"limit": 3000, "strict": True}).status == 201
    # When an expense passes it
    en, ja = both(wallet, "POST", "/slips", {**LUNCH, "amount": 3500})
    assert ja["detail"] == "2026年11月の「食費」の予算は残り ¥3,000 です（¥3,500 必要です）"
    assert en["remaining"] == 3000 and en["needed"] == 3500
    # When a slip is changed with a stale If-Match
    made = wallet.post("/slips", {**LUNCH, "amount": 100})
    where = made.header("Location") or ""
    assert wallet.patch(where, {"amount": 200}, headers={"If-Match": '"1"'}).status == 200
    en, ja = both(wallet, "PATCH", where, {"amount": 300}, headers={"If-Match": '"1"'})
    assert (en["current"], en["expected"]) == (2, 1)
    assert ja["detail"].startswith("ほかの人が先に変更しました")
    # When If-Match is unquoted, Then 400 shows how to write one, in both languages
    en, ja = both(wallet, "PATCH", where, {"amount": 300}, headers={"If-Match": "2"})
    assert 'If-Match: "3"' in en["detail"] and 'If-Match: "3"' in ja["detail"] and "ETag" in ja["detail"]
    # When a query is malformed
    _, ja = both(wallet, "GET", "/slips", query={"from": "11/01"})
    assert ja["detail"] == "開始日は YYYY-MM-DD で指定してください（例: 2026-11-01）"
    _, ja = both(wallet, "GET", "/slips", query={"from": "2026-11-30", "to": "2026-11-01"})
    assert ja["detail"] == "開始日（from）が終了日（to）より後になっています"


@pytest.mark.parametrize(
    ("header", "lang"),
    [
        (None, "en"),
        ("ja", "ja"),
        ("ja-JP", "ja"),
        ("ja-JP,ja;q=0.9,en-US;q=0.8,en;q=0.7", "ja"),
        ("en-US,en;q=0.9,ja;q=0.8", "en"),
        ("en;q=0.5, ja;q=0.9", "ja"),
        ("ja;q=0, en", "en"),
        ("fr-FR, ja;q=0.1", "ja"),
        ("fr", "en"),
        ("*", "en"),
        ("ja;q=bogus", "en"),
        ("garbage;;;", "en"),
    ],
)
def test_accept_language_honours_q_values(header: str | None, lang: str) -> None:
    assert messages.language(header) == lang


def _raised_details() -> list[tuple[str, str, str]]:
    """(where, code class, the detail with every interpolated value as X) of each raise site."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args):
                continue
            if not (isinstance(node.func.value, ast.Name) and node.func.value.id == "errors"):
                continue
            if node.func.attr in WORDED_FROM_MEMBERS and node.keywords:
                continue
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                text = arg.value
            elif isinstance(arg, ast.JoinedStr) and not any(
                isinstance(n, ast.Name) and n.id == "exc" for n in ast.walk(arg)
            ):
                text = "".join(v.value if isinstance(v, ast.Constant) else "X" for v in arg.values)
            else:
                continue  # composed at run time (from members, or from an exception: tested below)
            found.append((f"{path.name}:{node.lineno}", node.func.attr, text))
    return found


def test_every_detail_raised_as_text_has_japanese() -> None:
    # Given every error the code raises with a literal or formatted detail
    raised = _raised_details()
    assert len(raised) > 40
    # Then the catalogue words each one in Japanese
    missing = [(where, text) for where, _, text in raised if messages.translate(text) is None]
    assert not missing, missing


def test_every_code_has_a_japanese_title() -> None:
    from kakeibo import errors

    codes = {cls.code for cls in vars(errors).values() if isinstance(cls, type) and issubclass(cls, errors.ApiError)}
    assert codes <= set(messages.TITLES), codes - set(messages.TITLES)


@pytest.mark.parametrize(
    ("path", "query"),
    [
        ("/balances", {"date": "2026-02-30"}),
        ("/balances", {"date": "1800-01-01"}),
        ("/reports/monthly", {"month": "2026-13"}),
        ("/reports/monthly", {"month": "0999-01"}),
        ("/reports/yearly", {"year": "0999"}),
        ("/budgets", {"month": "2026-00"}),
    ],
)
def test_query_values_that_are_not_real_dates_are_worded(api: Client, path: str, query: dict[str, str]) -> None:
    _, ja = both(api, "GET", path, query=query)
    assert ja["code"] == "bad_request" and ja["detail"] != messages.TITLES["bad_request"][1]
    assert re.search(r"実在する日付|存在しない月|年は", ja["detail"]), ja


def test_a_budget_month_that_does_not_exist_is_worded(api: Client) -> None:
    _, ja = both(api, "PUT", "/budgets/2026-13/食費", {"limit": 1})
    assert ja["detail"] == "存在しない月が指定されています"


JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
ENGLISH = re.compile(r"\b(?:is|are|must|should|expected|found|required|the|not|has|cannot|repeats|only)\b")


def test_each_field_error_says_what_is_wrong_in_the_callers_language(wallet: Client) -> None:
    # When a slip with an impossible date and a zero amount is posted
    en, ja = both(wallet, "POST", "/slips", {**LUNCH, "date": "2026-02-30", "amount": 0})
    # Then each listed field error's msg is the catalogue's sentence, in the language asked for
    assert [e["msg"] for e in ja["errors"]] == [
        "日付には実在する日付を指定してください",
        "金額は 1 以上で指定してください",
    ]
    assert [e["msg"] for e in en["errors"]] == ["date is not a real calendar date", "amount must be at least 1"]
    assert not any(TECHNICAL.search(e["msg"]) for e in en["errors"] + ja["errors"])


BAD_ROWS = (
    "date,kind,amount,account,to_account,category,memo,external_id\n"
    "2026-02-30,expense,100,wallet,,,,\n"  # 2 impossible date
    "2026-11-04,expense,-5,wallet,,,,\n"  # 3 not a whole number
    "2026-11-04,refund,100,wallet,,,,\n"  # 4 unknown kind
    "2026-11-04,transfer,100,wallet,,,,\n"  # 5 transfer without to_account
    "2026-11-04,expense,100,wallet\n"  # 6 too few fields
    "2026-11-04,expense,,wallet,,,,\n"  # 7 amount missing
    "2026-11-04,expense,100,nowhere,,,,\n"  # 8 unknown account
    "2026-11-04,expense,9000,wallet,,,,\n"  # 9 more than the wallet holds
    "2026-11-05,expense,100,wallet,,,,A1\n"  # 10 ok
    "2026-11-06,expense,100,wallet,,,,A1\n"  # 11 external_id repeated
)


def test_csv_row_errors_are_worded_in_the_callers_language(wallet: Client) -> None:
    # When a file with bad rows is imported by a caller who reads Japanese
    csv = {"Content-Type": "text/csv"}
    imported = wallet.post("/imports", raw=BAD_ROWS, headers={**csv, **JA})
    assert imported.status == 200, imported
    # Then every row error is in Japanese, none in English
    ja = {e["line"]: e["message"] for e in imported.json["errors"]}
    assert sorted(ja) == [2, 3, 4, 5, 6, 7, 8, 9, 11]
    for line, message in ja.items():
        assert JAPANESE.search(message) and not ENGLISH.search(message), (line, message)
    assert ja[6] == "列の数が 4 です（8 列にしてください）"
    assert ja[9] == "残高不足: 財布の残高 ¥4,520 では ¥9,000 を支払えません"
    # And the dry run and the import's report read the same way
    dry = wallet.post("/imports", raw=BAD_ROWS, headers={**csv, **JA}, query={"dry_run": "true"}).json
    assert all(JAPANESE.search(i["message"]) for i in dry["outcomes"] if i["action"] == "error"), dry["outcomes"]
    report = wallet.get(f"/imports/{imported.json['import_id']}", headers=JA).json
    assert {e["line"]: e["message"] for e in report["errors"]} == ja
    # And in English they stay English, from the same catalogue
    en = {e["line"]: e["message"] for e in wallet.get(f"/imports/{imported.json['import_id']}").json["errors"]}
    assert en[6] == "expected 8 fields, found 4" and en[2] == "date is not a real calendar date"
    assert not any(JAPANESE.search(m) for line, m in en.items() if line != 9)  # 9 names 財布


def test_a_slip_without_a_category_reads_in_the_callers_language_and_keeps_its_key(wallet: Client) -> None:
    # Given a slip recorded without a category (filed under the stored key "uncategorized", as
    # slips and monthly totals always were), and one with a category
    made = wallet.post("/slips", {**LUNCH, "category": None, "amount": 100}, headers=JA)
    wallet.post("/slips", {**LUNCH, "amount": 200})
    assert made.status == 201, made
    # Then the slip keeps the key (a client can send it back unchanged) and says it in words, per language
    assert (made.json["category"], made.json["category_label"]) == ("uncategorized", "未分類")
    path = made.header("Location") or ""
    assert wallet.get(path).json["category_label"] == "Uncategorized"
    assert wallet.get(path, headers=JA).json["category_label"] == "未分類"
    # And a named category is its own label
    listed = wallet.get("/slips", headers=JA).json["items"]
    labels = sorted((s["category"], s["category_label"]) for s in listed)
    assert labels == [("uncategorized", "未分類"), ("食費", "食費")]
    # And the month's report counts both, old key and all, each labelled
    report = wallet.get("/reports/monthly", query={"month": "2026-11"}, headers=JA).json
    assert {(c["category"], c["category_label"], c["expense"]) for c in report["by_category"]} == {
        ("uncategorized", "未分類", 100),
        ("食費", "食費", 200),
    }
    # And a budget on it reads the same way
    assert wallet.put("/budgets/2026-11/uncategorized", {"limit": 1000}).status == 201
    budgets = wallet.get("/budgets", query={"month": "2026-11"}, headers=JA).json["items"]
    assert [(b["category"], b["category_label"], b["spent"]) for b in budgets] == [("uncategorized", "未分類", 100)]


# ---- undo and reconciliation texts ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("members", "en_has", "ja_has"),
    [
        (
            {"entity": "slip", "id": "S1", "current": 4, "expected": 2},
            "slip S1 was changed after this change (it is at version 4; this change left it at 2)",
            "伝票 S1 はこの変更のあとにも変更されています（現在の版は 4、この変更の直後は 2）",
        ),
        (
            {"entity": "budget", "id": "2026-11/食費", "current": None, "expected": 3},
            "budget 2026-11/食費 was deleted after this change",
            "予算 2026-11/食費 はこの変更のあとで削除されています",
        ),
        (
            {"entity": "slip", "id": "S1", "current": 3, "expected": 1, "reconciled_by": "R1"},
            "undo that reconciliation first",
            "伝票 S1 はこの変更のあとで照合されました（R1）",
        ),
        (
            {"entity": "slip", "id": "A1", "current": 4, "expected": 2, "adjustment_of": "R1"},
            "the adjustment slip A1 of reconciliation R1 was changed after it",
            "照合 R1 の差額の伝票 A1 は、照合のあとに変更されています（現在の版は 4）",
        ),
    ],
    ids=["changed", "deleted", "reconciled-since", "adjustment-changed"],
)
def test_an_undo_refused_says_what_moved_on_and_blames_nobody(
    members: dict[str, Any], en_has: str, ja_has: str
) -> None:
    # When an undo's 412 is worded in English and in Japanese
    en = messages.detail("version_mismatch", "raised", members, "en")
    ja = messages.detail("version_mismatch", "raised", members, "ja")
    # Then it names what moved on, says nothing was undone, and neither blames another person nor asks to save
    assert en_has in en and ja_has in ja, (en, ja)
    assert "not undone" in en and "取り消していません" in ja, (en, ja)
    assert "ほかの人" not in ja and "保存" not in ja and "meanwhile" not in en and "save" not in en, (en, ja)


def test_a_stale_if_match_still_reads_as_before() -> None:
    # Given a 412 of an If-Match that names an old version (no undo), its words are unchanged
    ja = messages.detail("version_mismatch", "raised", {"current": 3, "expected": 2}, "ja")
    assert ja.startswith("ほかの人が先に変更しました（現在の版は 3、送られた版は 2）")


@pytest.mark.parametrize(
    ("unit", "en_has", "ja_has"),
    [
        ("JPY", "is ¥20,000, the statement says ¥32,520 (difference ¥12,520)", "差額 ¥12,520"),
        ("USD", "is $200.00, the statement says $325.20 (difference $125.20)", "差額 $125.20"),
        ("points", "is 20,000 pt, the statement says 32,520 pt (difference 12,520 pt)", "差額 12,520 pt"),
        (None, "(difference ¥12,520)", "差額 ¥12,520"),
    ],
    ids=["yen", "dollars", "points", "no-unit"],
)
def test_a_reconciliation_difference_is_worded_in_the_accounts_unit(unit: str | None, en_has: str, ja_has: str) -> None:
    members = {"date": "2026-11-20", "balance": 32_520, "cleared_balance": 20_000, "difference": 12_520, "unit": unit}
    # When the 409 is worded
    en = messages.detail("reconciliation_difference", "raised", members, "en")
    ja = messages.detail("reconciliation_difference", "raised", members, "ja")
    # Then each amount is in the account's unit
    assert en_has in en and ja_has in ja, (en, ja)
    assert "12520" not in en and "12520" not in ja


def test_the_reconciliation_request_says_its_amounts_are_in_the_accounts_unit() -> None:
    from kakeibo.models.reconciliations import ReconciliationIn

    # Given the request's schema, as the OpenAPI document shows it
    properties = ReconciliationIn.model_json_schema()["properties"]
    # Then the balance is in the account's unit, not "in yen", and the adjustment's yen has a field
    assert "in yen" not in properties["balance"]["description"]
    assert "the account's unit" in properties["balance"]["description"]
    assert "jpy_amount" in properties and "rate" in properties["jpy_amount"]["description"]
