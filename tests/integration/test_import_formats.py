"""Money Forward ME and Zaim exports on DynamoDB Local: a family's month, then an overlapping
later download, in Shift_JIS; balances and report totals checked against numbers worked out by
hand (written literally below); a dry run writes nothing."""

from __future__ import annotations

import json
from typing import Any

from kakeibo import csvio
from kakeibo.services import integrity
from kakeibo.store import Store, WriteContext
from tests import invariants
from tests.events import Client

CSV = {"Content-Type": "text/csv"}

MF_HEADER = '"計算対象","日付","内容","金額（円）","保有金融機関","大項目","中項目","メモ","振替","ID"\r\n'


def mf(*rows: str) -> bytes:
    """A 収入・支出詳細 file as Money Forward ME writes it: Shift_JIS, CRLF, every value quoted."""
    lines = [",".join(f'"{v}"' for v in row.split("|")) for row in rows]
    return (MF_HEADER + "\r\n".join(lines) + "\r\n").encode("cp932")


# November, newest first as the site lists it. Fields: 計算対象|日付|内容|金額|口座|大項目|中項目|メモ|振替|ID
MF_NOVEMBER = (
    "0|2026/11/28|立替精算|5000|三井住友銀行|未分類|未分類||0|mfA15",
    "1|2026/11/27|家賃|-85000|三井住友銀行|住宅|家賃・地代||0|mfA02",
    "0|2026/11/26|ラクテンカード|-60000|三井住友銀行|未分類|未分類||1|mfA03",
    "0|2026/11/26|口座振替|60000|楽天カード|未分類|未分類||1|mfA04",
    "1|2026/11/25|給与 カブシキガイシャサンプル|320000|三井住友銀行|収入|給与||0|mfA01",
    "1|2026/11/20|外食 ランチ|-2500|財布|食費|外食||0|mfA13",
    "1|2026/11/19|JR東日本 乗車|-420|モバイルSuica|交通費|電車||0|mfA09",
    "0|2026/11/18|チャージ|2000|モバイルSuica|未分類|未分類||1|mfA07",
    "1|2026/11/15|Amazon.co.jp|-3980|楽天カード|日用品|日用品||0|mfA11",
    "0|2026/11/14|立替 (会社経費)|-5000|財布|未分類|未分類|会社に請求|0|mfA14",
    "1|2026/11/12|八百屋|-1200|財布|食費|食料品||0|mfA12",
    "1|2026/11/10|イオン, 各務原店|-8640|楽天カード|食費|食料品|まとめ買い|0|mfA10",
    "1|2026/11/06|JR東日本 乗車|-420|モバイルSuica|交通費|電車||0|mfA08",
    "0|2026/11/05|モバイルSuica チャージ|-3000|楽天カード|未分類|未分類||1|mfA05",
    "0|2026/11/05|チャージ|3000|モバイルSuica|未分類|未分類||1|mfA06",
    "0|2026/11/03|ATM 引出|-20000|三井住友銀行|未分類|未分類||1|mfA16",
    "0|2026/11/03|ATM 引出|20000|財布|未分類|未分類||1|mfA17",
)
# 2026/11/16 - 2026/12/15: eight rows of November again (seven slips: mfA03/mfA04 are one), five new
MF_DECEMBER = (
    "1|2026/12/10|ユニクロ, 銀座店|-4990|楽天カード|衣服・美容|衣服||0|mfB03",
    "0|2026/12/08|ATM 引出|-10000|三井住友銀行|未分類|未分類||1|mfB04",
    "0|2026/12/08|ATM 引出|10000|財布|未分類|未分類||1|mfB05",
    "1|2026/12/05|セブン-イレブン|-680|財布|食費|食料品||0|mfB02",
    "1|2026/12/01|JR東日本 乗車|-420|モバイルSuica|交通費|電車||0|mfB01",
    *(r for r in MF_NOVEMBER if r.split("|")[1] >= "2026/11/16"),
)


def mf_household(api: Client) -> None:
    """The family's accounts, named as Money Forward names them (Suica in full-width letters)."""
    for body in (
        {"id": "bank", "name": "三井住友銀行", "type": "bank", "opening_balance": 500_000},
        {"id": "card", "name": "楽天カード", "type": "credit", "opening_balance": -60_000},
        {"id": "suica", "name": "モバイルＳｕｉｃａ", "type": "emoney", "opening_balance": 3_000},
        {"id": "cash", "name": " 財布 ", "type": "cash", "opening_balance": 20_000},
    ):
        reply = api.post("/accounts", body)
        assert reply.status == 201, reply


def report(api: Client, month: str) -> dict[str, Any]:
    reply = api.get("/reports/monthly", query={"month": month})
    assert reply.status == 200, reply
    return reply.json  # type: ignore[no-any-return]


def totals(api: Client, month: str) -> tuple[int, int, list[Any]]:
    """The month's income, expense and totals by category (without their labels: the categories here)."""
    got = report(api, month)
    by_category = [{k: v for k, v in c.items() if k != "category_label"} for c in got["by_category"]]
    return got["income"], got["expense"], by_category


def by_name(api: Client) -> dict[str, int]:
    names = {a["id"]: a["name"] for a in api.get("/accounts").json["items"]}
    return {names[a]: b for a, b in api.balances().items()}


def test_money_forward_month_then_overlapping_download(api: Client, store: Store, user: str) -> None:
    # Given a family's four accounts and their November export
    mf_household(api)
    november = mf(*MF_NOVEMBER)
    before = invariants.ledger_items(store, user)

    # When they preview it without creating accounts
    dry = api.post("/imports", raw=november, headers=CSV, query={"dry_run": "true"})
    # Then nothing is written, the format is recognised, and the two clearing accounts are unknown
    assert dry.status == 200, dry
    assert invariants.ledger_items(store, user) == before
    assert (dry.json["format"], dry.json["encoding"], dry.json["rows"]) == ("mf", "shift_jis", 14)
    assert {u["name"] for u in dry.json["unknown_accounts"]} == {"振替相手（不明）", "集計対象外"}
    actions = {i["line"]: i["action"] for i in dry.json["outcomes"]}
    assert [line for line, action in actions.items() if action == "error"] == [2, 9, 11]  # mfA15, A07, A14
    assert (dry.json["created"], dry.json["not_counted"], dry.json["skipped"]) == (11, 0, 0)

    # When they preview it with create_accounts
    dry = api.post("/imports", raw=november, headers=CSV, query={"dry_run": "true", "create_accounts": "true"})
    # Then still nothing is written; the 計算対象=0 rows are "not counted", the rest created
    assert dry.status == 200, dry
    assert invariants.ledger_items(store, user) == before
    assert (dry.json["created"], dry.json["not_counted"], dry.json["skipped"], dry.json["failed"]) == (14, 2, 0, 0)
    assert {(u["name"], u["type"]) for u in dry.json["unknown_accounts"]} == {
        ("振替相手（不明）", "other"),
        ("集計対象外", "other"),
    }
    card_line = next(i for i in dry.json["outcomes"] if i["line"] == 4)  # the card settlement, both sides
    assert card_line["slip"] == {
        "date": "2026-11-26",
        "kind": "transfer",
        "amount": 60000,
        "account": "bank",
        "to_account": "card",
        "memo": "ラクテンカード",
        "payee": "ラクテンカード",  # 内容: the payee, and as the file wrote it
        "imported_payee": "ラクテンカード",
    }
    assert 5 not in {i["line"] for i in dry.json["outcomes"]}  # its other side is the same slip

    # When they import it
    first = api.post("/imports", raw=november, headers=CSV, query={"create_accounts": "true"})
    # Then 14 slips are created (17 rows: three transfer pairs are one slip each) and nothing fails
    assert first.status == 200, first
    assert (first.json["rows"], first.json["created"], first.json["skipped"], first.json["failed"]) == (14, 14, 0, 0)
    assert len(first.json["accounts_created"]) == 2
    # And the balances are the ones worked out by hand
    assert by_name(api) == {
        "三井住友銀行": 660_000,  # 500000 + 320000 - 85000 - 60000 + 5000 - 20000
        "楽天カード": -15_620,  # -60000 - 3000 + 60000 - 8640 - 3980
        "モバイルＳｕｉｃａ": 7_160,  # 3000 + 3000 + 2000 - 420 - 420
        "財布": 31_300,  # 20000 + 20000 - 1200 - 5000 - 2500
        "振替相手（不明）": -2_000,  # the charge whose other side is not in the file
        "集計対象外": 0,  # 5000 advanced from the wallet, 5000 paid back to the bank
    }
    # And the month's income, expense and categories count neither transfers nor 計算対象=0 rows
    assert totals(api, "2026-11") == (
        320_000,
        102_160,  # 85000 + 420 + 420 + 8640 + 3980 + 1200 + 2500
        [
            {"category": "交通費", "income": 0, "expense": 840, "subcategories": [sub("電車", 0, 840)]},
            {"category": "住宅", "income": 0, "expense": 85_000, "subcategories": [sub("家賃・地代", 0, 85_000)]},
            {"category": "収入", "income": 320_000, "expense": 0, "subcategories": [sub("給与", 320_000, 0)]},
            {"category": "日用品", "income": 0, "expense": 3_980, "subcategories": [sub("日用品", 0, 3_980)]},
            {
                "category": "食費",
                "income": 0,
                "expense": 12_340,
                "subcategories": [sub("外食", 0, 2_500), sub("食料品", 0, 9_840)],
            },
        ],
    )

    # When the overlapping December download is previewed, then imported
    december = mf(*MF_DECEMBER)
    dry = api.post("/imports", raw=december, headers=CSV, query={"dry_run": "true"})
    assert (dry.json["created"], dry.json["not_counted"], dry.json["skipped"], dry.json["failed"]) == (4, 0, 7, 0)
    second = api.post("/imports", raw=december, headers=CSV)
    # Then only the four new slips are created; November's seven are recognised by their ID
    assert second.status == 200, second
    assert (second.json["rows"], second.json["created"], second.json["skipped"], second.json["failed"]) == (11, 4, 7, 0)
    assert by_name(api) == {
        "三井住友銀行": 650_000,  # 660000 - 10000
        "楽天カード": -20_610,  # -15620 - 4990
        "モバイルＳｕｉｃａ": 6_740,  # 7160 - 420
        "財布": 40_620,  # 31300 - 680 + 10000
        "振替相手（不明）": -2_000,
        "集計対象外": 0,
    }
    assert totals(api, "2026-11")[:2] == (320_000, 102_160)
    assert totals(api, "2026-12") == (
        0,
        6_090,
        [
            {"category": "交通費", "income": 0, "expense": 420, "subcategories": [sub("電車", 0, 420)]},
            {"category": "衣服・美容", "income": 0, "expense": 4_990, "subcategories": [sub("衣服", 0, 4_990)]},
            {"category": "食費", "income": 0, "expense": 680, "subcategories": [sub("食料品", 0, 680)]},
        ],
    )
    # And the quoted 内容 with a comma is one field; every derived item agrees with the slips
    slips = api.get("/slips", query={"from": "2026-11-10", "to": "2026-11-10"}).json["items"]
    assert [(s["memo"], s["category"], s["subcategory"]) for s in slips] == [
        ("イオン, 各務原店 / まとめ買い", "食費", "食料品")
    ]
    assert invariants.check(store, user) == []
    assert integrity.verify(store, user)["ok"]


def sub(name: str | None, income: int, expense: int) -> dict[str, Any]:
    return {"subcategory": name, "income": income, "expense": expense}


ZAIM_HEADER = (
    "日付,方法,カテゴリ,カテゴリの内訳,支払元,入金先,品目,メモ,お店,"
    "通貨,収入,支出,振替,残高調整,通貨変換前の金額,集計の設定"
)
ALWAYS = "常に集計に含める"
METRO = f"2026-11-04,payment,交通,電車,PASMO,-,,,東京メトロ,JPY,0,178,0,0,0,{ALWAYS}"
ZAIM_NOVEMBER = (
    f"2026-11-01,transfer,-,-,ゆうちょ銀行,お財布,ATM,,,JPY,0,0,30000,0,0,{ALWAYS}",
    f"2026-11-02,transfer,-,-,お財布,PASMO,チャージ,,,JPY,0,0,3000,0,0,{ALWAYS}",
    METRO,
    METRO,  # the same ride twice that day: two slips
    f'2026-11-08,payment,食費,食料品,イオンカード,-,"牛乳, 卵",まとめ買い,イオン,JPY,0,4320,0,0,0,{ALWAYS}',
    f"2026-11-09,payment,食費,外食,お財布,-,ランチ,,,JPY,0,1100,0,0,0,{ALWAYS}",
    "2026-11-15,payment,その他,立替,お財布,-,飲み会の立替,,,JPY,0,6000,0,0,0,集計に含めない",
    f"2026-11-20,balance,-,-,-,お財布,,,,JPY,0,0,0,-500,0,{ALWAYS}",
    f"2026-11-25,income,給与,給与,-,ゆうちょ銀行,,,,JPY,280000,0,0,0,0,{ALWAYS}",
    f"2026-11-27,payment,住まい,家賃,ゆうちょ銀行,-,11月分家賃,,,JPY,0,78000,0,0,0,{ALWAYS}",
    f"2026-11-27,transfer,-,-,ゆうちょ銀行,イオンカード,カード引き落とし,,,JPY,0,0,45000,0,0,{ALWAYS}",
)
DEC_METRO = METRO.replace("2026-11-04", "2026-12-01")
ZAIM_DECEMBER = (
    *ZAIM_NOVEMBER[6:],  # 2026-11-15 onwards again
    DEC_METRO,
    DEC_METRO,
    f"2026-12-03,payment,食費,食料品,イオンカード,-,野菜,,イオン,JPY,0,980,0,0,0,{ALWAYS}",
)


def zaim(*rows: str) -> bytes:
    return ("\r\n".join((ZAIM_HEADER, *rows)) + "\r\n").encode("cp932")


def test_zaim_month_then_overlapping_download_with_accounts_created(api: Client, store: Store, user: str) -> None:
    # Given an empty ledger and a Zaim export of November
    november = zaim(*ZAIM_NOVEMBER)
    # When it is imported with create_accounts
    first = api.post("/imports", raw=november, headers=CSV, query={"create_accounts": "true"})
    # Then every row is a slip (the two identical rides too), and the accounts exist, typed by name
    assert first.status == 200, first
    outcome = (first.json["format"], first.json["rows"], first.json["created"], first.json["failed"])
    assert outcome == ("zaim", 11, 11, 0)
    accounts = {a["name"]: a for a in api.get("/accounts").json["items"]}
    assert {name: a["type"] for name, a in accounts.items()} == {
        "ゆうちょ銀行": "bank",
        "お財布": "cash",
        "PASMO": "emoney",
        "イオンカード": "credit",
        "集計対象外": "other",
        "残高調整": "other",
    }
    assert all(a["allow_negative"] and a["opening_balance"] == 0 for a in accounts.values())
    assert accounts["PASMO"]["id"].startswith("pasmo-")
    assert by_name(api) == {
        "ゆうちょ銀行": 127_000,  # 280000 - 78000 - 45000 - 30000
        "イオンカード": 40_680,  # 45000 - 4320
        "PASMO": 2_644,  # 3000 - 178 - 178
        "お財布": 19_400,  # 30000 - 3000 - 1100 - 6000 - 500
        "集計対象外": 6_000,  # the advance Zaim does not count
        "残高調整": 500,  # the wallet adjusted down by 500
    }
    assert totals(api, "2026-11") == (
        280_000,
        83_776,  # 78000 + 178 + 178 + 4320 + 1100
        [
            {"category": "交通", "income": 0, "expense": 356, "subcategories": [sub("電車", 0, 356)]},
            {"category": "住まい", "income": 0, "expense": 78_000, "subcategories": [sub("家賃", 0, 78_000)]},
            {"category": "給与", "income": 280_000, "expense": 0, "subcategories": [sub("給与", 280_000, 0)]},
            {
                "category": "食費",
                "income": 0,
                "expense": 5_420,
                "subcategories": [sub("外食", 0, 1_100), sub("食料品", 0, 4_320)],
            },
        ],
    )

    # When the overlapping December download is previewed
    december = zaim(*ZAIM_DECEMBER)
    before = invariants.ledger_items(store, user)
    dry = api.post("/imports", raw=december, headers=CSV, query={"dry_run": "true"})
    # Then nothing is written and November's five rows are duplicates (two of them not counted)
    assert invariants.ledger_items(store, user) == before
    assert (dry.json["created"], dry.json["not_counted"], dry.json["skipped"], dry.json["failed"]) == (3, 0, 5, 0)
    assert dry.json["unknown_accounts"] == []

    # When it is imported
    second = api.post("/imports", raw=december, headers=CSV)
    # Then only December's three slips are new: the two identical rides are two, nothing twice
    assert (second.json["rows"], second.json["created"], second.json["skipped"], second.json["failed"]) == (8, 3, 5, 0)
    assert by_name(api)["PASMO"] == 2_288  # 2644 - 178 - 178
    assert by_name(api)["イオンカード"] == 39_700  # 40680 - 980
    assert by_name(api)["ゆうちょ銀行"] == 127_000
    assert totals(api, "2026-11")[:2] == (280_000, 83_776)
    assert totals(api, "2026-12")[:2] == (0, 1_336)  # 178 + 178 + 980
    # And the same file again creates nothing
    third = api.post("/imports", raw=december, headers=CSV)
    assert (third.json["created"], third.json["skipped"]) == (0, 8)
    slips = api.get("/slips", query={"from": "2026-11-08", "to": "2026-11-08"}).json["items"]
    assert [s["memo"] for s in slips] == ["牛乳, 卵 / イオン / まとめ買い"]
    assert invariants.check(store, user) == []
    assert integrity.verify(store, user)["ok"]


def test_forced_format_and_an_unknown_header(api: Client) -> None:
    # Given a bank's own CSV layout, which is none of the three formats
    bank = "日付,内容,金額\n2026/11/01,コンビニ,-500\n".encode("cp932")
    # When it is imported, Then 422 names the headers that are read
    reply = api.post("/imports", raw=bank, headers=CSV)
    assert reply.status == 422, reply
    assert "Money Forward" in reply.json["detail"] and "Zaim" in reply.json["detail"]
    # When a Zaim file is forced to be read as Money Forward's, Then 422 says what is missing
    reply = api.post("/imports", raw=zaim(*ZAIM_NOVEMBER), headers=CSV, query={"format": "mf"})
    assert reply.status == 422 and "計算対象" in reply.json["detail"], reply
    # When the format is not one of them, Then 400 (a bad query) before anything is read
    reply = api.post("/imports", raw=zaim(*ZAIM_NOVEMBER), headers=CSV, query={"format": "freee"})
    assert reply.status == 400 and reply.json["errors"][0]["loc"] == ["query", "format"], reply
    # And nothing was imported
    assert api.get("/slips").json["items"] == []


def test_a_dry_run_key_is_never_replayed_as_the_import(api: Client, store: Store, user: str) -> None:
    # Given a dry run sent with an Idempotency-Key
    mf_household(api)
    november = mf(*MF_NOVEMBER)
    key = {**CSV, "Idempotency-Key": "move-in-2026-11"}
    dry = api.post("/imports", raw=november, headers=key, query={"dry_run": "true", "create_accounts": "true"})
    assert dry.status == 200 and dry.json["dry_run"] is True, dry
    # When the import itself is sent with the same key
    reply = api.post("/imports", raw=november, headers=key, query={"create_accounts": "true"})
    # Then it is refused as another request under that key, not answered with the dry run
    assert reply.status == 422 and reply.json["code"] == "idempotency_key_reused", reply
    assert api.get("/slips").json["items"] == []
    # And with a key of its own it imports; the same request again is replayed, not re-run
    key = {**CSV, "Idempotency-Key": "move-in-2026-11-commit"}
    first = api.post("/imports", raw=november, headers=key, query={"create_accounts": "true"})
    again = api.post("/imports", raw=november, headers=key, query={"create_accounts": "true"})
    assert first.status == again.status == 200 and first.json == again.json and first.json["created"] == 14


def test_an_import_out_of_time_answers_202_and_the_next_send_finishes(api: Client, store: Store, user: str) -> None:
    from kakeibo.services.imports import importer
    from kakeibo.services.imports.prepare import Options

    # Given the November file and an invocation with no time left
    mf_household(api)
    november = mf(*MF_NOVEMBER)
    options = Options(create_accounts=True)
    partial = importer.import_csv(store, WriteContext.personal(user), november, time_left=lambda: 0.0, options=options)
    # Then nothing of it is written yet and every slip of the file is pending
    assert (partial["status"], partial["rows"], partial["created"], partial["pending"]) == ("partial", 14, 0, 14)
    # When it is sent again with time to spare, Then it completes and the balances are the hand-worked ones
    done = importer.import_csv(store, WriteContext.personal(user), november, options=options)
    assert (done["status"], done["created"], done["skipped"], done["pending"]) == ("complete", 14, 0, 0)
    assert by_name(api)["三井住友銀行"] == 660_000
    assert by_name(api)["楽天カード"] == -15_620


def test_our_own_format_has_a_dry_run_too(api: Client, store: Store, user: str) -> None:
    # Given a file of ours, one row of which is already in, one naming an account that does not exist
    api.account("cash", 10_000)
    header = "date,kind,amount,account,to_account,category,memo,external_id\n"
    api.post("/imports", raw=header + "2026-11-01,expense,100,cash,,食費,パン,r1\n", headers=CSV)
    text = (
        header
        + "2026-11-01,expense,100,cash,,食費,パン,r1\n"
        + "2026-11-02,expense,200,cash,,食費,牛乳,r2\n"
        + "2026-11-03,expense,300,wallet,,食費,卵,r3\n"
        + "2026-11-04,expense,1.5,cash,,食費,,r4\n"
    )
    before = invariants.ledger_items(store, user)
    # When it is previewed
    dry = api.post("/imports", raw=text, headers=CSV, query={"dry_run": "true"})
    # Then each row says what it would do, and nothing is written
    assert dry.status == 200 and dry.json["format"] == "kakeibo", dry
    assert [(i["line"], i["action"]) for i in dry.json["outcomes"]] == [
        (2, "duplicate"),
        (3, "create"),
        (4, "error"),
        (5, "error"),
    ]
    assert dry.json["outcomes"][2]["message"] == "account 'wallet' does not exist"
    assert dry.json["outcomes"][1]["slip"] == {
        "date": "2026-11-02",
        "kind": "expense",
        "amount": 200,
        "account": "cash",
        "category": "食費",
        "memo": "牛乳",
    }
    assert invariants.ledger_items(store, user) == before


def test_a_dry_run_counts_deleted_slips_and_older_imports_as_duplicates(api: Client, store: Store, user: str) -> None:
    # Given a row imported and its slip deleted since (its identity is a tombstone), and a row
    # marked imported the way imports did before slips had identities (a ROW# item)
    api.account("cash", 10_000)
    header = "date,kind,amount,account,to_account,category,memo,external_id\n"
    first = api.post("/imports", raw=header + "2026-11-01,expense,100,cash,,食費,パン,r1\n", headers=CSV)
    assert first.status == 200 and first.json["created"] == 1, first
    r1 = csvio.slip_id_for("", 0, "r1")
    assert api.delete(f"/slips/2026-11-01/{r1}", headers={"If-Match": '"1"'}).status == 204
    store.core.client.put_item(
        TableName=store.core.table,
        Item={
            "PK": {"S": f"LEDGER#{user}"},
            "SK": {"S": "ROW#r2"},
            "type": {"S": "import_row"},
            "slip_id": {"S": "r2"},
            "date": {"S": "2026-11-02"},
            "import_id": {"S": "0" * 64},
            "line": {"N": "2"},
        },
    )
    text = (
        header
        + "2026-11-01,expense,100,cash,,食費,パン,r1\n"
        + "2026-11-02,expense,200,cash,,食費,牛乳,r2\n"
        + "2026-11-03,expense,300,cash,,食費,卵,r3\n"
    )
    # When the file is previewed, and then imported
    dry = api.post("/imports", raw=text, headers=CSV, query={"dry_run": "true"})
    done = api.post("/imports", raw=text, headers=CSV)
    # Then the preview said what the import did: both older rows are duplicates, one slip is new
    assert [(i["line"], i["action"]) for i in dry.json["outcomes"]] == [
        (2, "duplicate"),
        (3, "duplicate"),
        (4, "create"),
    ]
    assert (done.json["created"], done.json["skipped"]) == (1, 2), done
    assert api.balances()["cash"] == 9_700


def test_a_dry_run_of_long_rows_lists_what_fits_and_is_replayed_under_its_key(api: Client, user: str) -> None:
    # Given a file of 600 rows, each with a memo of 500 Japanese characters
    api.account("cash", 10_000_000)
    header = "date,kind,amount,account,to_account,category,memo,external_id\n"
    rows = "".join(f"2026-11-01,expense,1,cash,,食費,{'長' * 500},long{i}\n" for i in range(600))
    key = {**CSV, "Idempotency-Key": "preview-long"}
    # When it is previewed with an Idempotency-Key, twice
    dry = api.post("/imports", raw=header + rows, headers=key, query={"dry_run": "true"})
    again = api.post("/imports", raw=header + rows, headers=key, query={"dry_run": "true"})
    # Then the counts cover every row, the rows listed are the first ones by line and fit the
    # stored answer, and the second request gets the same answer back
    assert dry.status == 200 and dry.json["created"] == 600, dry
    listed = dry.json["outcomes"]
    assert 50 < len(listed) < 600
    assert [i["line"] for i in listed] == list(range(2, 2 + len(listed)))
    assert len(json.dumps(json.dumps(dry.json, ensure_ascii=False))) < 400_000
    assert again.status == 200 and again.json == dry.json
    assert api.get("/slips").json["items"] == []


BAD_NAME_CHARACTERS = ("\x00", "\x01", "\x7f", "\u200b")


def test_an_app_account_name_with_a_control_character_is_a_row_error(api: Client, store: Store, user: str) -> None:
    for ch in BAD_NAME_CHARACTERS:
        # Given a Money Forward and a Zaim file (UTF-8: Shift_JIS has no such characters), each with
        # a row whose account name holds an invisible character, and a row naming a plain account
        name, n = f"財{ch}布", ord(ch)
        files = {
            "mf": (MF_HEADER + f'"1","2026/11/20","ランチ","-800","{name}","食費","外食","","0","mfX{n}"\r\n'
                   + f'"1","2026/11/21","パン","-300","財布","食費","食料品","","0","mfY{n}"\r\n'),
            "zaim": (ZAIM_HEADER + f"\r\n2026-11-20,payment,食費,外食,{name},-,ランチ{n},,,JPY,0,800,0,0,0,{ALWAYS}"
                     + f"\r\n2026-11-21,payment,食費,食料品,財布,-,パン{n},,,JPY,0,300,0,0,0,{ALWAYS}\r\n"),
        }  # fmt: skip
        for fmt, text in files.items():
            # When it is imported with create_accounts (and previewed first)
            query = {"create_accounts": "true"}
            dry = api.post("/imports", raw=text.encode("utf-8"), headers=CSV, query={**query, "dry_run": "true"})
            done = api.post("/imports", raw=text.encode("utf-8"), headers=CSV, query=query)
            # Then that row alone is refused, saying why, and no account is made of that name
            for reply in (dry, done):
                assert reply.status == 200 and reply.json["format"] == fmt, (ch, reply)
                assert [u["name"] for u in reply.json["unknown_accounts"]] in ([], ["財布"]), (ch, reply.json)
            assert (done.json["failed"], done.json["pending"]) == (1, 0), (ch, fmt, done.json)
            (error,) = done.json["errors"]
            assert error["line"] == 2 and f"U+{ord(ch):04X}" in error["message"], (ch, fmt, error)
            names = [a["name"] for a in api.get("/accounts").json["items"]]
            assert names == ["財布"], (ch, names)
    # And in Japanese the refusal reads in Japanese
    imports = api.get(f"/imports/{done.json['import_id']}", headers={"Accept-Language": "ja"}).json
    assert imports["errors"][0]["message"].startswith("口座名「"), imports
    assert invariants.check(store, user) == []
