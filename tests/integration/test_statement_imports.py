"""Card and bank statements imported on DynamoDB Local, as their websites give them: onto the account
named by ?account=, each row once through the one create path, the ledger's rules run on the payee,
overlapping downloads importing only what is new, an issuer's changed row `changed` under the slip's
version (or `conflict` when edited here), and every refusal worded in the caller's language."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest

from kakeibo.store import Store
from tests import invariants
from tests.events import Client

SAMPLES = Path(__file__).resolve().parents[1] / "samples" / "statements"
CSV = {"Content-Type": "text/csv"}
JA = {**CSV, "Accept-Language": "ja"}
SUMISHIN = '"日付","内容","出金金額(円)","入金金額(円)","残高(円)","メモ"\n'


def sample(name: str) -> bytes:
    return (SAMPLES / name).read_bytes()


def cp932(text: str) -> bytes:
    return text.replace("\n", "\r\n").encode("cp932")


def send(api: Client, data: bytes, account: str | None, *, headers: dict[str, str] = CSV, **query: str) -> Any:
    where = {"account": account} if account else {}
    return api.post("/imports", raw=data, headers=headers, query={**where, **query})


def slips(api: Client, account: str | None = None) -> list[dict[str, Any]]:
    got = api.get("/slips", query={"limit": "100", **({"account": account} if account else {})})
    assert got.status == 200, got
    return sorted(got.json["items"], key=lambda s: (s["date"], s["amount"], s.get("payee") or ""))


def test_a_card_statement_is_imported_onto_its_account_once(api: Client, store: Store, user: str) -> None:
    # Given a credit card account, and 楽天カード's statement of it (UTF-8 with a BOM)
    api.account("card", 0, type="credit", allow_negative=True)
    data = sample("rakuten_card.csv")
    before = invariants.ledger_items(store, user)

    # When the household previews it
    dry = send(api, data, "card", dry_run="true")
    # Then nothing is written; the format, its layout and each row's slip are shown
    assert dry.status == 200, dry
    assert invariants.ledger_items(store, user) == before
    assert (dry.json["format"], dry.json["layout"], dry.json["account"], dry.json["created"]) == (
        "rakuten_card",
        "closed",
        "card",
        6,
    )
    shown = {o["line"]: o["slip"] for o in dry.json["outcomes"]}
    assert shown[4] == {
        "date": "2026-11-05",
        "kind": "expense",
        "amount": 1590,
        "account": "card",
        "payee": "NETFLIX.COM利用国USA",
        "imported_payee": "NETFLIX.COM利用国USA",
        "memo": "現地通貨 USD 9.99 (変換レート 159.159円)",
    }
    assert [(s["line"], s["reason"]) for s in dry.json["skipped_lines"]] == [
        (1, "header"),
        (5, "note"),
        (8, "blank"),
        (9, "section"),
    ]

    # When it is imported
    done = send(api, data, "card")
    # Then each row is one slip on the card, dated by its 利用日, the refund as income
    assert done.status == 200, done
    assert (done.json["created"], done.json["skipped"], done.json["failed"]) == (6, 0, 0)
    got = [(s["date"], s["kind"], s["amount"], s["payee"], s["imported_payee"]) for s in slips(api)]
    assert got == [
        ("2026-09-15", "expense", 22000, "ビックカメラ\u3000有楽町店", "ビックカメラ\u3000有楽町店"),
        ("2026-10-28", "expense", 1051, "ローソン\u3000銀座店", "ローソン\u3000銀座店"),
        ("2026-11-03", "expense", 3980, "AMAZON.CO.JP", "AMAZON.CO.JP"),
        ("2026-11-05", "expense", 1590, "NETFLIX.COM利用国USA", "NETFLIX.COM利用国USA"),
        ("2026-11-10", "expense", 2480, "ｽｰﾊﾟｰ ﾏﾙｴﾂ", "ｽｰﾊﾟｰ ﾏﾙｴﾂ"),
        ("2026-11-12", "income", 1200, "AMAZON.CO.JP", "AMAZON.CO.JP"),
    ]
    assert api.balances()["card"] == -29901
    assert {s["cleared"] for s in slips(api)} == {"cleared"}  # the card company's own statement

    # When the same file is sent again
    again = send(api, data, "card")
    # Then nothing more is created
    assert (again.json["created"], again.json["skipped"]) == (0, 6)
    assert api.balances()["card"] == -29901
    assert invariants.check(store, user) == []


def test_the_ledgers_rules_run_on_the_issuers_payee(api: Client) -> None:
    # Given a rule filing everything from AMAZON under 日用品
    api.account("card", 0, type="credit", allow_negative=True)
    rule = api.post("/rules", {"conditions": [{"field": "payee", "op": "contains", "value": "amazon"}],
                               "actions": {"category": "日用品"}})  # fmt: skip
    assert rule.status == 201, rule
    # When the card's statement is imported
    done = send(api, sample("vpass_confirmed.csv"), "card")
    # Then the rows whose 利用店名 the rule matches (full-width ＡＭＡＺＯＮ too) are filed by it
    assert done.status == 200, done
    assert [r["line"] for r in done.json["ruled"]] == [3, 7]
    filed = {(s["date"], s["category"]) for s in slips(api)}
    assert ("2026-10-21", "日用品") in filed and ("2026-10-19", "uncategorized") in filed


def test_an_overlapping_bank_download_imports_only_what_is_new(api: Client, store: Store, user: str) -> None:
    # Given the bank's download of 1-20 November, imported
    api.account("bank", 100_000, type="bank")
    first = cp932(SUMISHIN + '"2026/11/20","ＡＴＭ","1,000",,"","-"\n"2026/11/05","振込＊ヤマダ",,"5,000","","-"\n')
    assert send(api, first, "bank").json["created"] == 2
    # When the download of 5-30 November (the 5th and 20th again, newest first) is imported
    later = cp932(
        SUMISHIN + '"2026/11/28","ＡＴＭ","2,000",,"","-"\n"2026/11/20","ＡＴＭ","1,000",,"","-"\n'
        '"2026/11/05","振込＊ヤマダ",,"5,000","","-"\n'
    )
    done = send(api, later, "bank")
    # Then only the 28th is new
    assert (done.json["created"], done.json["skipped"], done.json["missing_in_file"]) == (1, 2, 0)
    assert api.balances()["bank"] == 100_000 - 1_000 + 5_000 - 2_000
    assert invariants.check(store, user) == []


def test_a_pending_charge_that_settles_at_another_amount_is_changed(api: Client, store: Store, user: str) -> None:
    # Given the unconfirmed statement imported (AMAZON pending at 3,844)
    api.account("card", 0, type="credit", allow_negative=True)
    assert send(api, sample("vpass_unconfirmed.csv"), "card").json["created"] == 3
    # When the confirmed statement has it at 3,600 (the other rows as they were)
    confirmed = cp932(
        "山田　花子　様,4980-00**-****-****,三井住友カード\n"
        "2026/11/4,ＡＭＡＺＯＮ．ＣＯ．ＪＰ,3600,１,１,3600,\n"
        "2026/11/16,セブン－イレブン／ｉＤ,98,１,１,98,\n"
        "2026/11/20,ＥＴＣ　首都高速,1320,１,１,1320,\n"
        ",,,,,5018,\n"
    )
    dry = send(api, confirmed, "card", dry_run="true")
    # Then the preview says it changed, field by field, and the import applies it to the same slip
    assert dry.json["changed"] == 1, dry.json
    change = next(o for o in dry.json["outcomes"] if o["action"] == "changed")
    assert change["changes"] == {"amount": [3844, 3600]}
    done = send(api, confirmed, "card")
    assert (done.json["created"], done.json["changed"], done.json["skipped"]) == (0, 1, 2)
    amazon = next(s for s in slips(api) if s["date"] == "2026-11-04")
    assert (amazon["amount"], amazon["version"]) == (3600, 2)
    assert api.balances()["card"] == -(3600 + 98 + 1320)

    # When the household edits the slip here and the issuer changes it again
    edited = api.patch(f"/slips/{amazon['date']}/{amazon['id']}", {"memo": "返品予定"}, headers={"If-Match": '"2"'})
    assert edited.status == 200, edited
    again = send(api, confirmed.replace(b"3600", b"3500"), "card")
    # Then it is a conflict, left as it is
    assert (again.json["conflicts"], again.json["changed"]) == (1, 0)
    assert next(s for s in slips(api) if s["date"] == "2026-11-04")["amount"] == 3600
    assert invariants.check(store, user) == []


def test_a_bank_row_a_later_download_of_the_same_days_lacks_is_missing_in_file(api: Client) -> None:
    # Given a download of the 1st-20th imported, then one of the same days without the 10th's row
    api.account("bank", 100_000, type="bank")
    api.account("other", 100_000, type="bank")
    first = cp932(SUMISHIN + '"2026/11/20","ＡＴＭ","1,000",,"","-"\n"2026/11/10","ＮＨＫ","2,000",,"","-"\n'
                  '"2026/11/01","利息",,"1","","-"\n')  # fmt: skip
    send(api, first, "bank")
    send(api, first, "other")  # another account's download of the same rows
    later = cp932(SUMISHIN + '"2026/11/20","ＡＴＭ","1,000",,"","-"\n"2026/11/01","利息",,"1","","-"\n')
    # When the later one is imported
    done = send(api, later, "bank")
    # Then the 10th's slip of this account is listed as missing, not deleted; the other account's is not listed
    missing = [o for o in done.json["outcomes"] if o["action"] == "missing_in_file"]
    assert [(o["current"]["date"], o["current"]["account"]) for o in missing] == [("2026-11-10", "bank")]
    assert len(slips(api, "bank")) == 3
    # And with apply_deletions it is deleted
    assert send(api, later, "bank", apply_deletions="true").json["deleted"] == 1
    assert len(slips(api, "bank")) == 2 and len(slips(api, "other")) == 3


def test_an_ic_card_history_rides_and_charges(api: Client) -> None:
    # Given a Suica account and its SFCard Viewer history
    api.account("suica", 0, type="emoney")
    done = send(api, sample("sfcard_viewer.csv"), "suica")
    # Then fares and purchases are expenses, the charge income, the 0-yen exit skipped
    assert (done.json["created"], [s["reason"] for s in done.json["skipped_lines"]]) == (
        4,
        ["preamble", "header", "zero"],
    )
    assert api.balances()["suica"] == 3000 - 473 - 473 - 79


def test_a_year_less_date_is_read_against_the_day_of_the_import(api: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given JA Bank's download (dates without a year), imported on 1 December 2026
    monkeypatch.setattr("kakeibo.settings.today", lambda: dt.date(2026, 12, 1))
    api.account("ja", 50_000, type="bank")
    assert send(api, sample("ja_bank.csv"), "ja").json["created"] == 3
    assert [s["date"] for s in slips(api)] == ["2026-11-05", "2026-11-10", "2026-11-27"]


def test_a_statement_needs_the_account_it_is_of(api: Client) -> None:
    api.account("card", 0, type="credit", allow_negative=True)
    # Without ?account=: refused, saying so, in the caller's language
    missing = send(api, sample("jcb.csv"), None, headers=JA)
    assert missing.status == 422 and missing.json["errors"][0]["loc"] == ["query", "account"]
    assert (
        missing.json["detail"]
        == "この明細を取り込む口座を ?account={id} で指定してください（ファイルには書かれていません）"
    )
    # An account the ledger does not have
    unknown = send(api, sample("jcb.csv"), "nope")
    assert unknown.status == 422 and unknown.json["detail"] == "account: 'nope' is not an account of the ledger"
    # And ?account= on a file that is no statement
    ours = send(api, b"date,kind,amount,account,to_account,category,memo\n2026-11-03,expense,1200,card,,,x\n", "card")
    assert ours.status == 422 and ours.json["errors"][0]["loc"] == ["query", "account"]
    assert slips(api) == []


def test_a_file_of_no_known_layout_is_422_naming_what_it_resembles(api: Client) -> None:
    # Given a file that looks like 住信SBI's download but lacks its amount columns
    data = "日付,内容,金額\n2026/11/01,コンビニ,-500\n".encode("cp932")
    en = send(api, data, "bank")
    ja = send(api, data, "bank", headers=JA)
    # Then 422 in both languages, naming the layouts it resembles and what they would have
    assert en.status == ja.status == 422
    assert en.json["resembles"] == ja.json["resembles"] == [
        {"format": "sbi_sumishin", "name": "住信SBIネット銀行（入出金明細）", "layout": "netbk",
         "missing": ["出金金額(円)", "入金金額(円)", "残高(円)", "メモ"]}
    ]  # fmt: skip
    assert "it resembles: 住信SBIネット銀行（入出金明細） (missing 出金金額(円)" in en.json["detail"]
    assert ja.json["detail"].endswith(
        "似ている形式: 住信SBIネット銀行（入出金明細）（出金金額(円), 入金金額(円), 残高(円), メモ がありません）"
    )


def test_a_forced_format_the_file_is_not_is_422(api: Client) -> None:
    api.account("card", 0, type="credit", allow_negative=True)
    wrong = send(api, sample("jcb.csv"), "card", format="rakuten_card", headers=JA)
    assert wrong.status == 422
    assert wrong.json["detail"].startswith("このファイルは Rakuten Card (e-NAVI statement) の明細の形式ではありません")


def test_row_errors_name_the_line_and_the_column_in_words(api: Client) -> None:
    # Given a download with a mistyped amount and an impossible date among good rows
    api.account("bank", 100_000, type="bank")
    data = cp932(SUMISHIN + '"2026/11/26","振込",,"4O,000","","-"\n"2026/11/31","利息",,"1","","-"\n'
                 '"2026/11/30","ＡＴＭ","1,000",,"","-"\n')  # fmt: skip
    en = send(api, data, "bank")
    # Then the good row is imported and each bad one is refused by line, naming its column
    assert (en.json["created"], en.json["failed"]) == (1, 2)
    assert en.json["errors"] == [
        {"line": 2, "message": "入金金額(円): '4O,000' is not a whole number of yen"},
        {"line": 3, "message": "日付: '2026/11/31' is not a real date"},
    ]
    ja = api.get(f"/imports/{en.json['import_id']}", headers={"Accept-Language": "ja"})
    assert [e["message"] for e in ja.json["errors"]] == [
        "入金金額(円) の '4O,000' は円単位の整数ではありません",
        "日付 の '2026/11/31' は実在しない日付です",
    ]


def test_a_file_cut_mid_row_imports_the_rows_before_and_refuses_that_one(api: Client) -> None:
    api.account("bank", 100_000, type="bank")
    data = cp932(SUMISHIN + '"2026/11/26","振込",,"40,000","","-"\n"2026/11/27","ＡＴ')
    done = send(api, data, "bank", headers=JA)
    assert (done.status, done.json["created"], done.json["failed"]) == (200, 1, 1)
    assert done.json["errors"] == [
        {"line": 3, "message": "引用符で始まる項目が閉じられていません。この行から先が切れているか壊れています。"
                               "ダウンロードし直してください"}
    ]  # fmt: skip


def test_the_formats_are_listed(api: Client) -> None:
    got = api.get("/imports/formats")
    assert got.status == 200, got
    ids = [f["id"] for f in got.json["items"]]
    assert ids[:3] == ["kakeibo", "mf", "zaim"]
    assert {"rakuten_card", "vpass", "jcb", "yucho", "ja_bank", "sfcard_viewer"} <= set(ids)
    vpass = next(f for f in got.json["items"] if f["id"] == "vpass")
    assert (vpass["kind"], [layout["id"] for layout in vpass["layouts"]]) == ("card", ["confirmed", "unconfirmed"])
    assert all(layout["source"] for f in got.json["items"] for layout in f["layouts"])
